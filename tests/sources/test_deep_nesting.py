"""Absurdly deep documents are a parse error of that one item, never a RecursionError.

The JATS renderer recurses over the element tree, ``json`` recurses over arrays: 5,000
levels used to raise RecursionError, which is no PriorisError and so aborted a whole
``fetch`` batch. XML depth is now bounded when parsing; JSON depth is the provider's fault.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import ParseError, ProviderUnavailableError
from prioris.library import Library
from prioris.sources.arxiv import parse_atom
from prioris.sources.jats import jats_to_markdown
from prioris.sources.xml import MAX_XML_DEPTH, parse_xml

from conftest import FAKE_PROVIDER_ENV, FakeOcr

DEPTH = 5000


def deep_jats(depth: int = DEPTH, tag: str = "sec") -> bytes:
    inner = f"<{tag}>" * depth + "deep" + f"</{tag}>" * depth
    return (
        "<article><front><article-meta><title-group><article-title>Deep</article-title>"
        f"</title-group></article-meta></front><body><p>intro</p>{inner}</body></article>"
    ).encode()


@pytest.mark.parametrize("tag", ["sec", "bold", "list"])
def test_deep_jats_is_a_parse_error(tag: str) -> None:
    with pytest.raises(ParseError, match="nested deeper than"):
        jats_to_markdown(deep_jats(tag=tag))


def test_depth_at_the_limit_still_parses() -> None:
    ok = deep_jats(MAX_XML_DEPTH - 4, "bold")  # article/body/bold... stays within the bound
    assert "deep" in jats_to_markdown(ok).markdown
    with pytest.raises(ParseError, match="nested deeper than"):
        parse_xml(b"<a>" * (MAX_XML_DEPTH + 1) + b"</a>" * (MAX_XML_DEPTH + 1))


def test_deep_atom_is_a_parse_error() -> None:
    feed = (
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/2401.01234v1'
        "</id><title>" + "<x>" * DEPTH + "t" + "</x>" * DEPTH + "</title></entry></feed>"
    )
    with pytest.raises(ParseError, match="nested deeper than"):
        parse_atom(feed)


def test_deep_json_is_provider_unavailable() -> None:
    from prioris.sources.http import ProviderHttp, make_client

    body = b"[" * 100_000 + b"]" * 100_000
    http = ProviderHttp(
        "openalex",
        make_client(
            load_settings(), httpx.MockTransport(lambda r: httpx.Response(200, content=body))
        ),
        min_interval=0,
        backoff_budget=0,
    )
    with pytest.raises(ProviderUnavailableError, match="malformed JSON"):
        http.get_json("https://openalex.test/works")


def _epmc_search(pmcid: str) -> dict:
    record = {
        "id": pmcid,
        "source": "PMC",
        "pmcid": pmcid,
        "title": f"Paper {pmcid}",
        "pubYear": "2020",
        "inEPMC": "Y",
        "isOpenAccess": "Y",
    }
    return {"hitCount": 1, "resultList": {"result": [record]}}


def test_deep_jats_fails_alone_in_a_fetch_batch(tmp_path: Path) -> None:
    good = (
        b"<article><front><article-meta><title-group><article-title>Fine</article-title>"
        b"</title-group></article-meta></front><body><sec><title>Intro</title>"
        b"<p>ordinary words</p></sec></body></article>"
    )

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/rest/search":
            pmcid = "PMC111" if "PMC111" in str(request.url) else "PMC222"
            return httpx.Response(200, json=_epmc_search(pmcid))
        if path == "/rest/PMC111/fullTextXML":
            return httpx.Response(200, content=deep_jats())
        if path == "/rest/PMC222/fullTextXML":
            return httpx.Response(200, content=good)
        return httpx.Response(404)

    settings = load_settings({**FAKE_PROVIDER_ENV, "PRIORIS_MCP_DATA_DIR": str(tmp_path)})
    with Library.open(
        settings,
        embedder=FakeEmbedder(),
        ocr=FakeOcr(),
        http_transport=httpx.MockTransport(handler),
    ) as library:
        summary = library.fetch(["PMC111", "PMC222"])
        assert [f["error"]["code"] for f in summary.failed] == ["parse_error"]
        assert "nested deeper than" in summary.failed[0]["error"]["message"]
        assert [r.id for r in summary.ingested] == ["europepmc:PMC222"]


def test_an_unexpected_error_in_one_item_fails_that_item_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A defect in one provider record's handling (any exception, not only ours) used to
    abort the whole fetch batch with a traceback; it now fails that identifier alone."""
    settings = load_settings({**FAKE_PROVIDER_ENV, "PRIORIS_MCP_DATA_DIR": str(tmp_path)})
    with Library.open(settings, embedder=FakeEmbedder(), ocr=FakeOcr()) as library:
        real_fetch_one = library.fetcher._fetch_one

        def fetch_one(identifier: str, format: str | None):  # type: ignore[no-untyped-def]
            if identifier == "PMC111":
                raise KeyError("pmcid")  # a defect somewhere below fetch_one
            return real_fetch_one(identifier, format)

        monkeypatch.setattr(library.fetcher, "_fetch_one", fetch_one)
        library.import_records([{"_id": "kept", "title": "Kept", "text": "stored words"}])
        with caplog.at_level("ERROR", logger="prioris.library"):
            summary = library.fetch(["PMC111", "kept"])
        assert [f["error"]["code"] for f in summary.failed] == ["parse_error"]
        assert "unexpected KeyError" in summary.failed[0]["error"]["message"]
        assert [r.status for r in summary.skipped] == ["skipped"]
        assert any(record.exc_info for record in caplog.records)
