"""Every accepted identifier spelling of SPEC section 3, the rejections, and free-text search."""

from __future__ import annotations

import pytest

from prioris.errors import InvalidRequestError
from prioris.identifiers import (
    Identifier,
    arxiv_id_from_doi,
    find_identifiers_in_text,
    parse_identifier,
    provider_of_source,
    reference_identifier,
    source_of_provider,
)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("arxiv:2401.01234v2", "arxiv:2401.01234v2"),
        ("2401.01234", "arxiv:2401.01234"),
        ("  2401.01234v3 ", "arxiv:2401.01234v3"),
        ("arXiv:2401.01234", "arxiv:2401.01234"),
        ("ARXIV: 1706.03762", "arxiv:1706.03762"),
        ("0808.0539", "arxiv:0808.0539"),
        ("https://arxiv.org/abs/2401.01234v1", "arxiv:2401.01234v1"),
        ("http://arxiv.org/abs/2401.01234", "arxiv:2401.01234"),
        ("https://arxiv.org/pdf/2401.01234v2", "arxiv:2401.01234v2"),
        ("https://arxiv.org/pdf/2401.01234v2.pdf", "arxiv:2401.01234v2"),
        ("https://export.arxiv.org/abs/2401.01234?context=cs#x", "arxiv:2401.01234"),
        ("https://arxiv.org/html/2401.01234v1", "arxiv:2401.01234v1"),
        ("hep-th/9901001", "arxiv:hep-th/9901001"),
        ("arxiv:hep-th/9901001v1", "arxiv:hep-th/9901001v1"),
        ("math.AG/0601001", "arxiv:math/0601001"),
        ("https://arxiv.org/abs/cond-mat/0001001v2", "arxiv:cond-mat/0001001v2"),
        ("PMC123", "europepmc:PMC123"),
        ("pmc3339582", "europepmc:PMC3339582"),
        ("europepmc:PMC123", "europepmc:PMC123"),
        ("europepmc:MED:123", "europepmc:MED:123"),
        ("MED:123", "europepmc:MED:123"),
        ("med:31000002", "europepmc:MED:31000002"),
        ("PPR:ppr9", "europepmc:PPR:PPR9"),
        ("europepmc:PMC:PMC77", "europepmc:PMC77"),
        ("europepmc:PPR:ppr12", "europepmc:PPR:PPR12"),
        ("PMC:3339582", "europepmc:PMC3339582"),  # PriorisMCP's canonical form
        ("europepmc:PMC:3339582", "europepmc:PMC3339582"),
        ("MED:26551875", "europepmc:MED:26551875"),  # Europe PMC's SRC:id
        ("PPR:PPR123", "europepmc:PPR:PPR123"),
        ("PMID:123", "europepmc:MED:123"),
        ("pmid:456", "europepmc:MED:456"),
        ("PMCID:PMC9", "europepmc:PMC9"),
        ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC3339582/", "europepmc:PMC3339582"),
        ("https://pmc.ncbi.nlm.nih.gov/articles/PMC3339582/", "europepmc:PMC3339582"),
        ("https://europepmc.org/article/MED/22559136", "europepmc:MED:22559136"),
        ("https://europepmc.org/article/PMC/PMC3339582", "europepmc:PMC3339582"),
        ("https://europepmc.org/abstract/MED/1", "europepmc:MED:1"),
        ("https://pubmed.ncbi.nlm.nih.gov/22559136/", "europepmc:MED:22559136"),
        ("10.1234/abc", "doi:10.1234/abc"),
        ("doi:10.1234/ABC", "doi:10.1234/abc"),
        ("DOI: 10.1038/Nature12373", "doi:10.1038/nature12373"),
        ("https://doi.org/10.1016/S0140-6736(20)30183-5", "doi:10.1016/s0140-6736(20)30183-5"),
        ("https://dx.doi.org/10.1234/a%2Fb", "doi:10.1234/a/b"),
        ("doi:https://doi.org/10.1234/XY", "doi:10.1234/xy"),
        ("10.48550/arXiv.2401.01234", "doi:10.48550/arxiv.2401.01234"),
        ("W2741809807", "openalex:W2741809807"),
        ("w123", "openalex:W123"),
        ("openalex:W123", "openalex:W123"),
        ("https://openalex.org/W123", "openalex:W123"),
        ("https://api.openalex.org/works/W42", "openalex:W42"),
        ("file:0123456789ABCDEF", "file:0123456789abcdef"),
    ],
)
def test_parse_accepts_every_documented_form(text: str, canonical: str) -> None:
    assert parse_identifier(text).canonical == canonical


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "hello world",
        "2401.1234567",  # too many digits
        "2413.01234",  # month 13
        "arxiv:notanid",
        "europepmc:XYZ:1",
        "europepmc:MED:abc",
        "MED:abc",
        "PMID:12a",
        "pmc",
        "PMC:12a",
        "MED:abc",
        "doi:11.1234/abc",
        "10.12/abc",  # registrant too short
        "openalex:A123",
        "file:0123",
        "file:zzzzzzzzzzzzzzzz",
        "https://example.com/abs/2401.01234",
        "https://arxiv.org/list/cs.AI/recent",
        "https://doi.org/",
        "12345678",
        "ftp://arxiv.org/abs/2401.01234",
    ],
)
def test_parse_rejects_unrecognised_input(text: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        parse_identifier(text)
    assert info.value.code == "invalid_request"
    assert "accepted" in info.value.message


def test_identifier_properties() -> None:
    ident = parse_identifier("arxiv:2401.01234v12")
    assert ident == Identifier("arxiv", "2401.01234v12")
    assert ident.versionless == "2401.01234"
    assert ident.version == 12
    assert str(ident) == "arxiv:2401.01234v12"
    old = parse_identifier("hep-th/9901001v1")
    assert old.versionless == "hep-th/9901001"
    assert parse_identifier("2401.01234").version is None
    pmc = parse_identifier("PMC5")
    assert pmc.versionless == "PMC5" and pmc.version is None


def test_arxiv_doi_maps_to_arxiv_id() -> None:
    assert arxiv_id_from_doi("10.48550/arXiv.2401.01234") == "2401.01234"
    assert arxiv_id_from_doi("10.48550/arxiv.hep-th/9901001") == "hep-th/9901001"
    assert arxiv_id_from_doi("10.1234/arxiv.2401.01234") is None
    assert arxiv_id_from_doi("10.48550/arXiv.garbage") is None


def test_find_identifiers_in_first_page_text() -> None:
    text = (
        "arXiv:2401.01234v2  [cs.CL]  3 Jan 2024\n"
        "Published as doi:10.1016/S0140-6736(20)30183-5. See also (https://doi.org/10.1234/ABC).\n"
        "Earlier version: arXiv: hep-th/9901001; repeated arXiv:2401.01234v2, "
        "and https://arxiv.org/abs/1706.03762v5, DataCite 10.48550/arXiv.2305.00001.\n"
        "Numbers like 2401.01234 or 10.5 alone are not identifiers."
    )
    found = [i.canonical for i in find_identifiers_in_text(text)]
    assert found == [
        "arxiv:2401.01234v2",
        "doi:10.1016/s0140-6736(20)30183-5",
        "doi:10.1234/abc",
        "arxiv:hep-th/9901001",
        "arxiv:1706.03762v5",
        "doi:10.48550/arxiv.2305.00001",
        "arxiv:2305.00001",
    ]


def test_find_identifiers_empty_text() -> None:
    assert find_identifiers_in_text("") == []
    assert find_identifiers_in_text("no ids here, only 3.14159 and 2024.") == []


@pytest.mark.parametrize(
    ("work_id", "reference"),
    [
        ("arxiv:2401.01234v2", "2401.01234v2"),
        ("arxiv:hep-th/9901001v1", "hep-th/9901001v1"),
        ("europepmc:PMC3339582", "PMC:3339582"),
        ("europepmc:MED:123", "MED:123"),
        ("file:0123456789abcdef", "file:0123456789abcdef"),
        ("scifact-42", "scifact-42"),
    ],
)
def test_works_are_named_as_priorismcp_names_them(work_id: str, reference: str) -> None:
    assert reference_identifier(work_id) == reference
    if ":" in reference and not reference.startswith("file:"):
        assert parse_identifier(f"{work_id.split(':')[0]}:{reference}").canonical == work_id


def test_provider_names() -> None:
    assert provider_of_source("file") == "localfile" and source_of_provider("localfile") == "file"
    assert provider_of_source("arxiv") == "arxiv" and source_of_provider("europepmc") == "europepmc"


@pytest.mark.parametrize("text", ["HTTP://[", "https://[::1", "http://arxiv.org:99999999/abs/1"])
def test_urls_urllib_cannot_split_are_invalid_requests(text: str) -> None:
    with pytest.raises(InvalidRequestError):
        parse_identifier(text)
