"""RemoteSources routing: arXiv, Europe PMC, DOI and OpenAlex, over one MockTransport."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from prioris.config import load_settings
from prioris.errors import FormatUnavailableError, InvalidRequestError, UnsupportedProviderError
from prioris.identifiers import Identifier
from prioris.sources.remote import RemoteSources

from conftest import FAKE_PROVIDER_ENV, shared_path

ATOM = (
    '<feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom"><opensearch:totalResults>1'
    "</opensearch:totalResults><entry><id>http://arxiv.org/abs/2401.01234v3</id>"
    "<title>Paper</title><published>2024-01-02T00:00:00Z</published><summary>S</summary>"
    "<author><name>A B</name></author><arxiv:doi>10.5555/pub</arxiv:doi></entry></feed>"
)
JATS = (
    b"<article><front><article-meta><title-group><article-title>T</article-title>"
    b"</title-group></article-meta></front><body><sec><title>Intro</title><p>x</p></sec>"
    b"</body></article>"
)


def epmc_record(pmcid: str | None, in_epmc: str) -> dict[str, Any]:
    record = {
        "id": "555",
        "source": "MED",
        "pmid": "555",
        "title": "Bio",
        "pubYear": "2020",
        "doi": "10.6666/bio",
        "inEPMC": in_epmc,
        "isOpenAccess": in_epmc,
    }
    if pmcid:
        record["pmcid"] = pmcid
    return record


class Provider:
    """A fake of every provider host, recording the requests."""

    def __init__(
        self,
        *,
        pmcid: str | None = "PMC777",
        in_epmc: str = "Y",
        html: bool = True,
        openalex: dict[str, Any] | None = None,
    ) -> None:
        self.seen: list[httpx.Request] = []
        self.pmcid, self.in_epmc, self.html, self.openalex = pmcid, in_epmc, html, openalex

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        host, path = request.url.host, request.url.path
        if host == "api.arxiv.test":
            return httpx.Response(200, text=ATOM)
        if host == "arxiv.test" and path.startswith("/pdf/"):
            return httpx.Response(200, content=b"%PDF-1.5 fake")
        if host == "arxiv.test" and path.startswith("/html/") and self.html:
            return httpx.Response(
                200,
                text="<html><body><h2>Intro</h2><p>Hi</p></body></html>",
                headers={"Content-Type": "text/html"},
            )
        if host == "epmc.test" and path == "/rest/search":
            body = {
                "hitCount": 1,
                "resultList": {"result": [epmc_record(self.pmcid, self.in_epmc)]},
            }
            return httpx.Response(200, json=body)
        if host == "epmc.test" and path.endswith("/fullTextXML"):
            return httpx.Response(200, content=JATS)
        if host == "doi.test" and path == "/10.7777/to-arxiv":
            return httpx.Response(302, headers={"Location": "https://arxiv.org/abs/2401.01234"})
        if host == "doi.test":
            return httpx.Response(302, headers={"Location": "https://publisher.example/x"})
        if host == "openalex.test" and self.openalex is not None:
            return httpx.Response(200, json=self.openalex)
        return httpx.Response(404)

    def hosts(self) -> list[str]:
        return [r.url.host for r in self.seen]


def remote(provider: Provider) -> RemoteSources:
    return RemoteSources(load_settings(FAKE_PROVIDER_ENV), transport=httpx.MockTransport(provider))


def test_arxiv_unversioned_pdf_by_default_and_html_on_request() -> None:
    provider = Provider()
    with remote(provider) as sources:
        work, full = sources.fetch("2401.01234")
        assert work.id == "arxiv:2401.01234v3"  # latest version from metadata
        assert full is not None and full.format == "pdf"
        assert provider.seen[-1].url.path == "/pdf/2401.01234v3"
        work, full = sources.fetch("arxiv:2401.01234v3", format="html")
        assert full is not None and full.format == "html" and "## Intro" in (full.markdown or "")
        with pytest.raises(FormatUnavailableError):
            sources.fetch("2401.01234", format="xml")


def test_arxiv_missing_html_is_format_unavailable() -> None:
    with remote(Provider(html=False)) as sources, pytest.raises(FormatUnavailableError):
        sources.fetch("2401.01234v3", format="html")


def test_europepmc_hosted_not_hosted_and_pmid_route() -> None:
    provider = Provider()
    with remote(provider) as sources:
        work, full = sources.fetch("PMID:555")
        assert work.id == "europepmc:PMC777"
        assert full is not None and full.format == "xml" and "# Intro" in (full.markdown or "")
    provider = Provider(in_epmc="N")
    with remote(provider) as sources:
        work, full = sources.fetch("PMC777")
        assert full is None
        assert not any(r.url.path.endswith("fullTextXML") for r in provider.seen)
        with pytest.raises(FormatUnavailableError):
            sources.fetch("PMC777", format="xml")
        with pytest.raises(FormatUnavailableError):
            sources.fetch("PMC777", format="pdf")


def test_doi_routes_to_arxiv_and_keeps_the_doi_alias() -> None:
    provider = Provider()
    with remote(provider) as sources:
        assert sources.resolve("https://doi.org/10.7777/TO-ARXIV") == Identifier(
            "arxiv", "2401.01234"
        )
        work, full = sources.fetch("doi:10.7777/to-arxiv")
        assert work.id == "arxiv:2401.01234v3" and full is not None
        assert "doi:10.7777/to-arxiv" in work.aliases and "doi:10.5555/pub" in work.aliases


def test_doi_off_allowlist_is_unsupported_with_one_request() -> None:
    provider = Provider()
    with remote(provider) as sources, pytest.raises(UnsupportedProviderError):
        sources.fetch("10.8888/paywalled")
    assert provider.hosts() == ["doi.test"]


def test_openalex_routes_to_pmc_or_returns_metadata_only() -> None:
    routed = {
        "id": "https://openalex.org/W1",
        "title": "Bio",
        "doi": "https://doi.org/10.6666/bio",
        "ids": {"pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/777"},
    }
    provider = Provider(openalex=routed)
    with remote(provider) as sources:
        assert sources.resolve("W1") == Identifier("europepmc", "PMC777")
        work, full = sources.fetch("https://openalex.org/W1")
        assert work.id == "europepmc:PMC777" and "openalex:W1" in work.aliases
        assert full is not None and full.format == "xml"
    lonely = {
        "id": "https://openalex.org/W2",
        "title": "Closed",
        "doi": "https://doi.org/10.9/c",
        "abstract_inverted_index": {"Hello": [0], "world": [1]},
    }
    with remote(Provider(openalex=lonely)) as sources:
        work, full = sources.fetch("openalex:W2")
        assert work.id == "openalex:W2" and work.abstract == "Hello world" and full is None
        assert sources.resolve("W2") == Identifier("openalex", "W2")
        with pytest.raises(FormatUnavailableError):
            sources.fetch("W2", format="pdf")


def test_openalex_recorded_work_without_route() -> None:
    path = shared_path(
        "fixtures", "api", "openalex", "paperqa_test_doi_search_paper_attributes0.json"
    )
    provider = Provider(openalex=json.loads(path.read_text()))
    with remote(provider) as sources:
        work, full = sources.fetch("W4408732759")
        assert work.id == "openalex:W4408732759" and full is None
        assert work.title


def test_metadata_only_and_local_files() -> None:
    provider = Provider()
    with remote(provider) as sources:
        work = sources.fetch_metadata("arXiv:2401.01234")
        assert work.id == "arxiv:2401.01234v3"
        assert all(r.url.host == "api.arxiv.test" for r in provider.seen)
        with pytest.raises(InvalidRequestError, match="local file"):
            sources.fetch("file:0123456789abcdef")
