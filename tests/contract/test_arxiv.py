"""PriorisMCP 0.1.1's arXiv tools, called as its clients call them.

Contract: search ``{results, total_results}`` with limits checked before any request;
list_top_n AND-joins ``include_categories``, ANDNOTs ``exclude_categories``, sorts by
submission date, ``total_results = len(results)``; fetch_metadata sends one ``id_list``
and reports unknown ids in ``not_found``; fetch_full_text returns
``{location, format, size_bytes, served_from_storage, resource_uri}``; parse_full_text
returns ``{markdown, offset, limit, total_length, has_more, total_pages, page_range,
resource_uri}`` with limit 20000 by default, ``page`` for PDFs only.
"""

from __future__ import annotations

from contract.conftest import Mcp
from contract.providers import ARXIV

RECORD_FIELDS = {
    "arxiv_id",
    "title",
    "authors",
    "abstract",
    "categories",
    "primary_category",
    "published",
    "updated",
    "pdf_url",
    "doi",
    "journal_ref",
    "comment",
}


def test_search_returns_records_and_total_results(mcp: Mcp) -> None:
    before = len(mcp.world.sent("/arxiv/api"))
    out = mcp.call("research_arxiv_search", {"query": "ti:quokka AND cat:q-bio.PE"})
    sent = mcp.world.sent("/arxiv/api")[before:]
    assert sent == [
        {
            "search_query": ["ti:quokka AND cat:q-bio.PE"],
            "start": ["0"],
            "max_results": ["10"],
            "sortBy": ["relevance"],
            "sortOrder": ["descending"],
        }
    ]
    assert out["total_results"] == 42
    quokka = next(r for r in out["results"] if r["arxiv_id"] == "2401.00001v2")
    assert set(quokka) >= RECORD_FIELDS
    assert quokka["title"] == ARXIV["2401.00001v2"]["title"]
    assert quokka["authors"] == [
        {"name": "Ada Marsupial", "affiliation": "University of Western Australia"},
        {"name": "Ben Burrow", "affiliation": None},
    ]
    assert quokka["categories"] == ["q-bio.PE", "cs.LG"]
    assert quokka["primary_category"] == "q-bio.PE"
    assert quokka["published"] == "2024-01-02T10:00:00Z"
    assert quokka["updated"] == "2024-02-03T10:00:00Z"
    assert quokka["pdf_url"].endswith("/pdf/2401.00001v2")
    assert quokka["doi"] == "10.1000/quokka.2024"
    assert quokka["journal_ref"] == "J. Marsupial Stud. 12 (2024) 1-20"
    assert quokka["comment"] == "20 pages, 4 figures"


def test_search_bounds_are_invalid_request_before_any_request(mcp: Mcp) -> None:
    before = len(mcp.world.sent("/arxiv/api"))
    mcp.fails("research_arxiv_search", {"query": "x", "max_results": 2001}, "invalid_request")
    mcp.fails(
        "research_arxiv_search",
        {"query": "x", "start": 29995, "max_results": 10},
        "invalid_request",
    )
    assert len(mcp.world.sent("/arxiv/api")) == before
    mcp.call("research_arxiv_search", {"query": "x", "start": 28000, "max_results": 2000})


def test_list_top_n_and_joins_includes_and_excludes(mcp: Mcp) -> None:
    before = len(mcp.world.sent("/arxiv/api"))
    out = mcp.call(
        "research_arxiv_list_top_n",
        {
            "include_categories": ["q-bio.PE", "cs.LG", "q-bio.PE"],
            "n": 3,
            "exclude_categories": ["cs.RO", "cs.RO"],
        },
    )
    (sent,) = mcp.world.sent("/arxiv/api")[before:]
    query = sent["search_query"][0].replace("(", "").replace(")", "")
    assert query == "cat:q-bio.PE AND cat:cs.LG ANDNOT cat:cs.RO"  # deduplicated
    assert sent["sortBy"] == ["submittedDate"] and sent["sortOrder"] == ["descending"]
    assert sent["max_results"] == ["3"]
    assert out["total_results"] == len(out["results"]) <= 3
    assert set(out["results"][0]) >= RECORD_FIELDS


def test_list_top_n_needs_a_category_and_takes_a_large_n(mcp: Mcp) -> None:
    mcp.fails("research_arxiv_list_top_n", {"include_categories": [], "n": 5}, "invalid_request")
    out = mcp.call("research_arxiv_list_top_n", {"include_categories": ["cs.LG"], "n": 2000})
    assert out["total_results"] == len(out["results"])


def test_fetch_metadata_one_request_and_not_found(mcp: Mcp) -> None:
    before = len(mcp.world.sent("/arxiv/api"))
    out = mcp.call(
        "research_arxiv_fetch_metadata",
        {"arxiv_ids": ["2401.00001", "2401.00002v1", "2401.09999"]},
    )
    assert len(mcp.world.sent("/arxiv/api")) == before + 1  # one id_list request
    assert [r["arxiv_id"] for r in out["results"]] == ["2401.00001v2", "2401.00002v1"]
    assert out["not_found"] == ["2401.09999"]
    assert set(out["results"][0]) >= RECORD_FIELDS


def test_fetch_full_text_stores_then_serves_from_storage(mcp: Mcp) -> None:
    first = mcp.call("research_arxiv_fetch_full_text", {"arxiv_id": "2401.00004", "format": "pdf"})
    assert first["format"] == "pdf"
    assert first["size_bytes"] == len(mcp.world.pdfs["2401.00004v1"])
    assert first["served_from_storage"] is False
    assert first["resource_uri"] == "research://arxiv/2401.00004v1/pdf/fulltext"
    assert isinstance(first["location"], str) and first["location"]
    requests = len(mcp.world.requests)
    again = mcp.call(
        "research_arxiv_fetch_full_text", {"arxiv_id": "2401.00004v1", "format": "pdf"}
    )
    assert again["served_from_storage"] is True and len(mcp.world.requests) == requests
    assert again["size_bytes"] == first["size_bytes"]
    assert again["resource_uri"] == first["resource_uri"]


def test_fetch_full_text_errors(mcp: Mcp) -> None:
    mcp.fails(
        "research_arxiv_fetch_full_text",
        {"arxiv_id": "2401.00002v1", "format": "html"},
        "format_unavailable",
    )
    mcp.fails(
        "research_arxiv_fetch_full_text", {"arxiv_id": "2401.09999", "format": "pdf"}, "not_found"
    )


def test_parse_full_text_pages_through_the_pdf_text(mcp: Mcp) -> None:
    mcp.call("research_arxiv_fetch_full_text", {"arxiv_id": "2401.00001", "format": "pdf"})
    whole = mcp.call(
        "research_arxiv_parse_full_text", {"arxiv_id": "2401.00001v2", "format": "pdf"}
    )
    assert "Rottnest Island" in whole["markdown"] and "dry summers" in whole["markdown"]
    assert whole["offset"] == 0 and whole["limit"] == 20000
    assert whole["total_length"] == len(whole["markdown"]) and whole["has_more"] is False
    assert whole["total_pages"] == 2 and whole["page_range"] == [1, 2]
    assert whole["resource_uri"] == "research://arxiv/2401.00001v2/pdf/markdown"

    null_limit = mcp.call(
        "research_arxiv_parse_full_text",
        {"arxiv_id": "2401.00001v2", "format": "pdf", "limit": None},
    )
    assert null_limit["markdown"] == whole["markdown"] and null_limit["limit"] == 20000
    head = mcp.call(
        "research_arxiv_parse_full_text",
        {"arxiv_id": "2401.00001v2", "format": "pdf", "offset": 5, "limit": 40},
    )
    assert head["markdown"] == whole["markdown"][5:45] and head["has_more"] is True
    assert head["offset"] == 5 and head["limit"] == 40
    page2 = mcp.call(
        "research_arxiv_parse_full_text", {"arxiv_id": "2401.00001v2", "format": "pdf", "page": 2}
    )
    assert "dry summers" in page2["markdown"] and "Rottnest" not in page2["markdown"]
    assert page2["page_range"] == [2, 2]


def test_parse_full_text_of_html_is_the_html_text(mcp: Mcp) -> None:
    mcp.call("research_arxiv_fetch_full_text", {"arxiv_id": "2401.00001v2", "format": "pdf"})
    stored = mcp.call(
        "research_arxiv_fetch_full_text", {"arxiv_id": "2401.00001v2", "format": "html"}
    )
    assert stored["format"] == "html"
    assert stored["resource_uri"] == "research://arxiv/2401.00001v2/html/fulltext"
    html = mcp.call(
        "research_arxiv_parse_full_text", {"arxiv_id": "2401.00001v2", "format": "html"}
    )
    assert "wombats" in html["markdown"] and "Rottnest" not in html["markdown"]
    assert html["total_pages"] is None and html["page_range"] is None
    assert html["resource_uri"] == "research://arxiv/2401.00001v2/html/markdown"
    mcp.fails(
        "research_arxiv_parse_full_text",
        {"arxiv_id": "2401.00001v2", "format": "html", "page": 1},
        "invalid_request",
    )


def test_parse_full_text_errors(mcp: Mcp) -> None:
    mcp.call("research_arxiv_fetch_full_text", {"arxiv_id": "2401.00001", "format": "pdf"})
    args = {"arxiv_id": "2401.00001v2", "format": "pdf"}
    mcp.fails("research_arxiv_parse_full_text", {**args, "page": 3}, "not_found")
    mcp.fails("research_arxiv_parse_full_text", {**args, "offset": -1}, "invalid_request")
    mcp.fails("research_arxiv_parse_full_text", {**args, "limit": 0}, "invalid_request")
    mcp.fails(  # never fetched: parse never fetches
        "research_arxiv_parse_full_text", {"arxiv_id": "2401.00002v1", "format": "pdf"}, "not_found"
    )
    mcp.call("research_arxiv_fetch_full_text", {"arxiv_id": "2401.00004v1", "format": "pdf"})
    mcp.fails(  # fetched as pdf only
        "research_arxiv_parse_full_text",
        {"arxiv_id": "2401.00004v1", "format": "html"},
        "not_found",
    )
