"""Europe PMC: JSON parsing on recorded and hand-written responses, the client via MockTransport."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from prioris.config import load_settings
from prioris.errors import (
    FormatUnavailableError,
    InvalidRequestError,
    NotFoundError,
    ParseError,
    ProviderUnavailableError,
)
from prioris.sources.europepmc import EuropePmcClient, parse_record, parse_search, strip_tags
from prioris.sources.http import ProviderHttp, make_client

from conftest import shared_path

BASE = "https://epmc.test/rest"

JATS = (
    b'<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange '
    b'DTD v1.0 20120330//EN" "JATS-archivearticle1.dtd"><article><front><article-meta>'
    b"<title-group><article-title>T</article-title></title-group>"
    b"<abstract><p>Short abstract.</p></abstract></article-meta></front>"
    b"<body><sec><title>Intro</title><p>Body text.</p></sec></body></article>"
)


def record(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "12345",
        "source": "MED",
        "pmid": "12345",
        "doi": "10.1111/ABC",
        "title": "A <i>study</i> of things.",
        "authorList": {"author": [{"fullName": "Doe J"}, {"collectiveName": "The Group"}]},
        "journalInfo": {"journal": {"title": "Journal of Tests"}},
        "pubYear": "2021",
        "abstractText": "<h4>Background</h4>Things &amp; stuff.<h4>Results</h4>Good.",
        "pubTypeList": {"pubType": ["Journal Article"]},
        "isOpenAccess": "N",
        "inEPMC": "N",
        "inPMC": "N",
        "hasPDF": "N",
        "citedByCount": 7,
        "firstPublicationDate": "2021-03-04",
    }
    base.update(overrides)
    return base


def response(
    *records: dict[str, Any],
    total: int | None = None,
    cursor: str = "*",
    next_cursor: str | None = "NEXT",
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "version": "6.9",
        "hitCount": len(records) if total is None else total,
        "request": {"queryString": "q", "resultType": "core", "cursorMark": cursor, "pageSize": 25},
        "resultList": {"result": list(records)},
    }
    if next_cursor:
        data["nextCursorMark"] = next_cursor
    return data


def client(handler: Callable[[httpx.Request], httpx.Response]) -> EuropePmcClient:
    http = ProviderHttp(
        "europepmc",
        make_client(load_settings(), httpx.MockTransport(handler)),
        min_interval=0,
        backoff_budget=0,
    )
    return EuropePmcClient(http, BASE)


def never(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"no request expected, got {request.url}")


def test_parse_every_recorded_response() -> None:
    folder = shared_path("fixtures", "api", "europepmc")
    files = sorted(Path(folder).glob("*.json"))
    assert files
    for path in files:
        page = parse_search(json.loads(path.read_text()))
        assert page.total >= len(page.works)
        for work in page.works:
            assert work.id.startswith("europepmc:") and work.title
            assert work.source == "europepmc" and work.year
            assert any(a.startswith("pmid:") for a in work.aliases)


def test_recorded_core_page_details() -> None:
    path = shared_path("fixtures", "api", "europepmc", "pyeuropepmc_search_cancer_core.json")
    page = parse_search(json.loads(path.read_text()))
    assert page.total == 5059039 and len(page.works) == 25
    assert page.next_cursor == "AoIIP4ZawSg1MzEyODI1MA=="
    first = page.works[0]
    assert first.id == "europepmc:MED:39709209"
    assert "doi:10.1016/s0140-6736(24)02600-x" in first.aliases
    assert first.venue == "Lancet (London, England)" and first.is_oa is False
    with_pmc = next(w for w in page.works if w.id == "europepmc:PMC12120539")
    assert with_pmc.is_oa is True and with_pmc.extra["in_epmc"] is True
    assert "europepmc:MED:40437959" in with_pmc.aliases
    assert with_pmc.pdf_url and "PMC12120539" in with_pmc.pdf_url
    # full names where Europe PMC gives them (export keys need the family name last)
    assert first.authors[:2] == ["Jonathan D Schoenfeld", "Daphne A Haas-Kogan"]
    structured = next(w for w in page.works if (w.abstract or "").startswith("Objective:"))
    assert "<h4>" not in (structured.abstract or "")


def test_recorded_no_results() -> None:
    path = shared_path("fixtures", "api", "europepmc", "pyeuropepmc_search_no_results.json")
    page = parse_search(json.loads(path.read_text()))
    assert (page.total, page.works, page.next_cursor) == (0, [], None)


def test_parse_written_records() -> None:
    work = parse_record(record())
    assert work.id == "europepmc:MED:12345"
    assert work.title == "A study of things."
    assert work.authors == ["Doe J", "The Group"]
    assert work.abstract == "Background: Things & stuff. Results: Good."
    assert work.aliases == ["doi:10.1111/abc", "pmid:12345"]
    assert work.is_preprint is False and work.extra["peer_reviewed"] is None
    assert work.cited_by_count == 7 and work.year == 2021

    preprint = parse_record(
        record(
            id="PPR123",
            source="PPR",
            pmid=None,
            pubTypeList={"pubType": ["Preprint"]},
            authorList=None,
            authorString="Roe A, Poe B.",
            journalInfo=None,
            bookOrReportDetails={"publisher": "bioRxiv"},
        )
    )
    assert preprint.id == "europepmc:PPR:PPR123"
    assert preprint.is_preprint is True and preprint.extra["peer_reviewed"] is False
    assert preprint.authors == ["Roe A", "Poe B"] and preprint.venue == "bioRxiv"

    pmc = parse_record(record(pmcid="pmc777", inEPMC="Y", isOpenAccess="Y"))
    assert pmc.id == "europepmc:PMC777" and pmc.is_oa is True
    assert pmc.aliases == ["doi:10.1111/abc", "pmid:12345", "europepmc:MED:12345"]


def test_parse_search_last_page_and_garbage() -> None:
    assert parse_search(response(record(), next_cursor="*")).next_cursor is None
    assert (
        parse_search(response(record(), cursor="AB%3D%3D", next_cursor="AB==")).next_cursor is None
    )
    assert parse_search(response(record())).next_cursor == "NEXT"
    with pytest.raises(ProviderUnavailableError):
        parse_search({"unexpected": True})
    assert strip_tags("<p>a</p><p>b</p>") == "a b"


def test_search_sends_core_json_cursor() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=response(record(), total=40))

    page = client(handler).search("malaria vaccine", page_size=10, cursor="CUR")
    params = seen[0].url.params
    assert seen[0].url.path == "/rest/search"
    assert (params["query"], params["resultType"], params["format"]) == (
        "malaria vaccine",
        "core",
        "json",
    )
    assert (params["pageSize"], params["cursorMark"]) == ("10", "CUR")
    assert page.total == 40 and page.next_cursor == "NEXT"
    with pytest.raises(InvalidRequestError):
        client(never).search("x", page_size=1001)
    with pytest.raises(InvalidRequestError):
        client(never).search(" ")


def test_malformed_json_is_provider_unavailable() -> None:
    with pytest.raises(ProviderUnavailableError, match="malformed JSON"):
        client(lambda r: httpx.Response(200, text="<html>")).search("x")


def test_fetch_metadata_one_or_query_and_missing() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.params["query"])
        return httpx.Response(
            200,
            json=response(record(pmcid="PMC777"), record(id="999", pmid="999", doi="10.2222/x")),
        )

    epmc = client(handler)
    works = epmc.fetch_metadata(["PMC777", "PMID:999"])
    assert [w.id for w in works] == ["europepmc:PMC777", "europepmc:MED:999"]
    assert seen == ["PMCID:PMC777 OR (EXT_ID:999 AND SRC:MED)"]
    works, missing = epmc.fetch_metadata_report(["doi:10.2222/X", "PMC1"])
    assert [w.id for w in works] == ["europepmc:MED:999"] and missing == ["PMC1"]
    assert seen[-1] == 'DOI:"10.2222/x" OR PMCID:PMC1'
    with pytest.raises(NotFoundError, match="PMC1"):
        epmc.fetch_metadata(["PMC1"])
    with pytest.raises(InvalidRequestError):
        client(never).fetch_metadata(["2401.01234"])


def test_fetch_full_text_hosted_and_not() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/rest/PMC777/fullTextXML":
            return httpx.Response(200, content=JATS)
        if request.url.path == "/rest/PMC888/fullTextXML":
            return httpx.Response(200, content=b"<article><body><p>broken")
        return httpx.Response(404)

    epmc = client(handler)
    full = epmc.fetch_full_text("PMC777")
    assert full.format == "xml" and full.content == JATS
    assert full.markdown and "# Intro" in full.markdown and "Body text." in full.markdown
    with pytest.raises(FormatUnavailableError):
        epmc.fetch_full_text("PMC1")
    with pytest.raises(FormatUnavailableError):
        client(never).fetch_full_text("europepmc:MED:12345")
    with pytest.raises(ParseError):
        epmc.fetch_full_text("PMC888")


def test_records_keep_europepmc_fields_as_given() -> None:
    work = parse_record(
        record(
            pmcid="PMC777",
            isOpenAccess="Y",
            license="cc by",
            authorList={
                "author": [
                    {"fullName": "Doe J", "firstName": "Jane", "lastName": "Doe", "initials": "J"}
                ]
            },
        )
    )
    assert work.extra["author_list"] == [
        {"full_name": "Doe J", "first_name": "Jane", "last_name": "Doe", "initials": "J"}
    ]
    assert work.extra["journal_info"] == {"journal": {"title": "Journal of Tests"}}
    assert work.extra["pub_year"] == "2021" and work.extra["is_open_access"] == "Y"
    assert work.extra["license"] == "cc by"


def test_a_mixed_batch_reports_what_is_not_an_id_as_missing() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.params["query"])
        return httpx.Response(200, json=response(record(pmcid="PMC777")))

    works, missing = client(handler).fetch_metadata_report(["PMC:777", "not an id", "MED:1"])
    assert [w.id for w in works] == ["europepmc:PMC777"]
    assert missing == ["not an id", "MED:1"]
    assert seen == ["PMCID:PMC777 OR (EXT_ID:1 AND SRC:MED)"]  # the junk was never sent
    with pytest.raises(InvalidRequestError):
        client(handler).fetch_metadata(["not an id"])
