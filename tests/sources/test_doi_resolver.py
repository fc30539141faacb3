"""DOI resolution: one request, redirect read not followed, host allowlist before anything else."""

from __future__ import annotations

import httpx
import pytest

from prioris.config import load_settings
from prioris.errors import (
    InvalidRequestError,
    NotFoundError,
    ProviderUnavailableError,
    UnsupportedProviderError,
)
from prioris.identifiers import Identifier
from prioris.sources.doi import DoiResolver
from prioris.sources.http import ProviderHttp, make_client

RESOLVER = "https://doi.test"


def resolver(targets: dict[str, httpx.Response], seen: list[str]) -> DoiResolver:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return targets.get(request.url.path, httpx.Response(404))

    http = ProviderHttp(
        "doi",
        make_client(load_settings(), httpx.MockTransport(handler)),
        min_interval=0,
        backoff_budget=0,
    )
    return DoiResolver(http, RESOLVER)


def redirect(location: str) -> httpx.Response:
    return httpx.Response(302, headers={"Location": location})


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        ("https://arxiv.org/abs/2401.01234v2", Identifier("arxiv", "2401.01234v2")),
        ("http://arxiv.org/abs/hep-th/9901001", Identifier("arxiv", "hep-th/9901001")),
        (
            "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC3339582/",
            Identifier("europepmc", "PMC3339582"),
        ),
        ("https://pmc.ncbi.nlm.nih.gov/articles/PMC42", Identifier("europepmc", "PMC42")),
        ("https://europepmc.org/article/MED/22558532", Identifier("europepmc", "MED:22558532")),
        ("https://europepmc.org/abstract/PPR/PPR9", Identifier("europepmc", "PPR:PPR9")),
    ],
)
def test_allowlisted_targets(location: str, expected: Identifier) -> None:
    seen: list[str] = []
    found = resolver({"/10.1234/abc": redirect(location)}, seen).resolve("doi:10.1234/ABC")
    assert found == expected
    assert seen == [f"{RESOLVER}/10.1234/abc"]


def test_off_allowlist_redirect_makes_no_second_request() -> None:
    seen: list[str] = []
    doi = resolver(
        {
            "/10.1016/j.cell.2020.01.001": redirect(
                "https://linkinghub.elsevier.com/retrieve/pii/S0092"
            )
        },
        seen,
    )
    with pytest.raises(UnsupportedProviderError) as info:
        doi.resolve("https://doi.org/10.1016/j.cell.2020.01.001")
    assert info.value.code == "unsupported_provider"
    assert "linkinghub.elsevier.com" in info.value.message
    assert len(seen) == 1  # the resolver only; the publisher was never contacted


def test_allowlisted_host_without_an_id_is_unsupported() -> None:
    seen: list[str] = []
    doi = resolver({"/10.1234/x": redirect("https://www.ncbi.nlm.nih.gov/pubmed/123")}, seen)
    with pytest.raises(UnsupportedProviderError):
        doi.resolve("10.1234/x")
    assert len(seen) == 1


def test_arxiv_datacite_doi_needs_no_request() -> None:
    seen: list[str] = []
    found = resolver({}, seen).resolve("10.48550/arXiv.2401.01234")
    assert found == Identifier("arxiv", "2401.01234") and seen == []


def test_unknown_doi_not_a_doi_and_no_redirect() -> None:
    seen: list[str] = []
    doi = resolver({"/10.1234/ok": httpx.Response(200, text="a landing page")}, seen)
    with pytest.raises(NotFoundError):
        doi.resolve("10.1234/missing")
    with pytest.raises(ProviderUnavailableError, match="did not redirect"):
        doi.resolve("10.1234/ok")
    with pytest.raises(InvalidRequestError):
        doi.resolve("PMC123")


def test_special_characters_are_escaped_in_the_request() -> None:
    seen: list[str] = []
    doi = resolver({"/10.1002/(sici)1097#x": redirect("https://arxiv.org/abs/2401.00001")}, seen)
    assert doi.resolve("10.1002/(SICI)1097#x") == Identifier("arxiv", "2401.00001")
    assert "%23" in seen[0]


@pytest.mark.parametrize(
    "location",
    [
        "https://arxiv.org.mirror.example/abs/2401.00001",
        "https://evil.example/arxiv.org/abs/2401.00001",
        "https://europepmc.org@evil.example/article/PMC/PMC42",
        "https://pubmed.ncbi.nlm.nih.gov/123",  # PubMed is not PubMed Central
        "ftp://arxiv.org/abs/2401.00001",
        "//evil.example/abs/2401.00001",
    ],
)
def test_the_host_allowlist_alone_refuses_other_sites(
    location: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even when the target names an arXiv id, a host off the allowlist is refused."""
    import prioris.sources.doi as doi_module

    monkeypatch.setattr(doi_module, "parse_identifier", _permissive_parse)
    seen: list[str] = []
    doi = resolver({"/10.1234/y": redirect(location)}, seen)
    with pytest.raises(UnsupportedProviderError) as info:
        doi.resolve("doi:10.1234/y")
    assert "not arXiv, Europe PMC or PubMed Central" in info.value.message
    assert seen == [f"{RESOLVER}/10.1234/y"]


def test_every_allowlisted_host_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    import prioris.sources.doi as doi_module

    monkeypatch.setattr(doi_module, "parse_identifier", _permissive_parse)
    for host in sorted(doi_module.ALLOWED_HOSTS):
        found = resolver({"/10.1234/z": redirect(f"https://{host.upper()}/abs/1")}, []).resolve(
            "doi:10.1234/z"
        )
        assert found == Identifier("arxiv", "2401.00001"), host


def _permissive_parse(text: str) -> Identifier:
    """A parser that finds an arXiv id in any URL, so only the host check can refuse."""
    from prioris.identifiers import parse_identifier

    if text.startswith(("http://", "https://", "ftp://")):
        return Identifier("arxiv", "2401.00001")
    return parse_identifier(text)


def test_messages_name_the_doi_the_host_and_what_to_do() -> None:
    seen: list[str] = []
    doi = resolver(
        {
            "/10.1234/pub": redirect("https://publisher.example/article/1"),
            "/10.1234/rel": redirect("/relative/elsewhere"),
            "/10.1234/file": redirect("file:///etc/passwd"),
            "/10.1234/mail": redirect("mailto:editor@publisher.example"),
            "/10.1234/junk": redirect("https://[bad"),
            "/10.1234/ipv6": redirect("https://arxiv.org]/abs/1"),
            "/10.1234/noid": redirect("https://arxiv.org/list/cs.AI/recent"),
            "/10.1234/ok": httpx.Response(200, headers={"Location": "https://arxiv.org/abs/1"}),
            "/10.1234/bare": httpx.Response(302),
        },
        seen,
    )
    with pytest.raises(UnsupportedProviderError) as info:
        doi.resolve("10.1234/pub")
    assert info.value.message == (
        "doi:10.1234/pub resolves to 'publisher.example', which is not arXiv, Europe PMC or "
        "PubMed Central; Prioris does not fetch from other sites (download the PDF yourself "
        "and ingest it)"
    )
    with pytest.raises(UnsupportedProviderError, match=r"resolves to 'doi\.test'"):
        doi.resolve("10.1234/rel")  # a relative Location is read against the resolver
    with pytest.raises(UnsupportedProviderError, match="resolves to 'file:///etc/passwd'"):
        doi.resolve("10.1234/file")  # no host: the whole target is named
    for name in ("mail", "junk", "ipv6"):  # an unreadable Location: an error, no traceback
        with pytest.raises(ProviderUnavailableError, match=r"InvalidURL|not a URL"):
            doi.resolve(f"10.1234/{name}")
    with pytest.raises(UnsupportedProviderError) as info:
        doi.resolve("10.1234/noid")
    assert info.value.message == (
        "doi:10.1234/noid resolves to https://arxiv.org/list/cs.AI/recent, which names no "
        "arXiv id or PMCID"
    )
    for name in ("ok", "bare"):  # a Location without a redirect status, or the reverse
        with pytest.raises(ProviderUnavailableError, match=f"did not redirect doi:10.1234/{name}"):
            doi.resolve(f"10.1234/{name}")
    with pytest.raises(InvalidRequestError, match="'PMC123' is not a DOI"):
        doi.resolve("PMC123")


def test_resolver_url_slashes_and_doi_slashes() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return redirect("https://arxiv.org/abs/2401.00009")

    http = ProviderHttp(
        "doi",
        make_client(load_settings(), httpx.MockTransport(handler)),
        min_interval=0,
        backoff_budget=0,
    )
    doi = DoiResolver(http, "https://doi.test/base/")
    assert doi.resolver_url == "https://doi.test/base"
    assert doi.resolve("10.1234/a/b#c") == Identifier("arxiv", "2401.00009")
    assert seen == ["https://doi.test/base/10.1234/a/b%23c"]
