"""PriorisMCP 0.1.1's Europe PMC tools, called as its clients call them.

Contract: search ``{results, hit_count, next_cursor_mark}`` with ``page_size`` 25 and an
opaque ``cursor_mark`` passed through; fetch_metadata reports unknown identifiers in
``not_found``; fetch_full_text stores the JATS XML (format ``xml``, canonical id
``PMC:{n}``) and fails ``format_unavailable`` when Europe PMC does not host it;
parse_full_text pages through it (page fields null: not a PDF).
"""

from __future__ import annotations

from contract.conftest import Mcp
from contract.providers import JATS, NEXT_CURSOR

RECORD_FIELDS = {
    "identifier",
    "pmid",
    "pmcid",
    "doi",
    "title",
    "authors",
    "abstract",
    "journal",
    "pub_year",
    "is_open_access",
    "license",
    "full_text_available",
}


def test_search_pages_with_the_cursor_mark(mcp: Mcp) -> None:
    before = len(mcp.world.sent("/epmc/rest/search"))
    first = mcp.call("research_europepmc_search", {"query": "koala"})
    second = mcp.call(
        "research_europepmc_search", {"query": "koala", "cursor_mark": first["next_cursor_mark"]}
    )
    sent = mcp.world.sent("/epmc/rest/search")[before:]
    assert [s["cursorMark"] for s in sent] == [["*"], [NEXT_CURSOR]]  # passed through verbatim
    assert sent[0]["pageSize"] == ["25"] and sent[0]["resultType"] == ["core"]
    assert first["hit_count"] == 2 and first["next_cursor_mark"] == NEXT_CURSOR
    record = first["results"][0]
    assert set(record) >= RECORD_FIELDS
    assert record["identifier"] == "MED:30000001"
    assert record["pmid"] == "30000001" and record["pmcid"] == "PMC7000001"
    assert record["doi"] == "10.1000/koala.2020"
    assert record["authors"][0] == {
        "full_name": "Eucalypt E",
        "first_name": "Eve",
        "last_name": "Eucalypt",
        "initials": "E",
    }
    assert record["journal"]["journal"]["title"] == "Wildlife Virology"
    assert record["pub_year"] == "2020" and record["is_open_access"] == "Y"
    assert record["license"] == "cc by" and record["full_text_available"] is True
    assert [r["identifier"] for r in second["results"]] == ["MED:30000002"]
    assert second["results"][0]["full_text_available"] is False


def test_search_page_size_is_sent(mcp: Mcp) -> None:
    before = len(mcp.world.sent("/epmc/rest/search"))
    mcp.call("research_europepmc_search", {"query": "koala", "page_size": 5})
    assert mcp.world.sent("/epmc/rest/search")[before]["pageSize"] == ["5"]


def test_fetch_metadata_reports_unknown_identifiers(mcp: Mcp) -> None:
    out = mcp.call(
        "research_europepmc_fetch_metadata",
        {"identifiers": ["PMC7000001", "MED:30000002", "MED:39999999"]},
    )
    assert sorted(r["identifier"] for r in out["results"]) == ["MED:30000001", "MED:30000002"]
    assert out["not_found"] == ["MED:39999999"]
    assert set(out["results"][0]) >= RECORD_FIELDS


def test_fetch_full_text_stores_the_jats_xml(mcp: Mcp) -> None:
    stored = mcp.call("research_europepmc_fetch_full_text", {"identifier": "PMC7000001"})
    assert stored["format"] == "xml" and stored["size_bytes"] == len(JATS)
    assert stored["resource_uri"] == "research://europepmc/PMC:7000001/xml/fulltext"
    assert isinstance(stored["location"], str) and stored["location"]
    requests = len(mcp.world.requests)
    again = mcp.call("research_europepmc_fetch_full_text", {"identifier": "PMC:7000001"})
    assert again["served_from_storage"] is True and len(mcp.world.requests) == requests
    assert again["resource_uri"] == stored["resource_uri"]


def test_fetch_full_text_errors(mcp: Mcp) -> None:
    mcp.fails(
        "research_europepmc_fetch_full_text", {"identifier": "MED:30000002"}, "format_unavailable"
    )
    mcp.fails("research_europepmc_fetch_full_text", {"identifier": "MED:39999999"}, "not_found")


def test_parse_full_text_reads_the_stored_xml(mcp: Mcp) -> None:
    mcp.call("research_europepmc_fetch_full_text", {"identifier": "PMC7000001"})
    page = mcp.call("research_europepmc_parse_full_text", {"identifier": "PMC:7000001"})
    assert "northern koala colonies" in page["markdown"]
    assert page["offset"] == 0 and page["limit"] == 20000 and page["has_more"] is False
    assert page["total_length"] == len(page["markdown"])
    assert page["total_pages"] is None and page["page_range"] is None
    assert page["resource_uri"] == "research://europepmc/PMC:7000001/xml/markdown"
    head = mcp.call(
        "research_europepmc_parse_full_text", {"identifier": "PMC7000001", "offset": 0, "limit": 10}
    )
    assert head["markdown"] == page["markdown"][:10] and head["has_more"] is True


def test_parse_full_text_of_what_was_never_fetched_is_not_found(mcp: Mcp) -> None:
    mcp.fails("research_europepmc_parse_full_text", {"identifier": "MED:30000002"}, "not_found")
