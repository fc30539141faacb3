"""PriorisMCP 0.1.1's storage tools: list, delete and search what was fetched.

Contract: ``research_list_fetched`` returns ``{entries: [{provider, identifier, format,
artefact, fetched_at_or_parsed_at, size_bytes}]}`` filtered by ``provider`` and
``format``; ``research_delete_fetched`` takes ``entries`` with an ``artefact`` (document,
markdown or all), deletes what exists, reports the rest in ``not_found`` and never fails
the whole call for one absent entry; deleting one artefact leaves the other;
``research_search_fetched`` takes an FTS5 query, is scoped by ``provider``,
``identifier`` (which needs ``provider``) and ``format``, has no result cap, and answers
``{matches: [{provider, identifier, format, snippet, offset, score}]}``.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from contract.conftest import Mcp

from pdf_factory import make_text_pdf

ENTRY_FIELDS = {
    "provider",
    "identifier",
    "format",
    "artefact",
    "fetched_at_or_parsed_at",
    "size_bytes",
}
MATCH_FIELDS = {"provider", "identifier", "format", "snippet", "offset", "score"}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def upload(mcp: Mcp, path: Path, title: str, pages: list[str]) -> str:
    pdf = make_text_pdf(path, title, pages).read_bytes()
    return mcp.call("research_localfile_fetch_full_text", {"content_base64": b64(pdf)})["id"]


def entries_for(mcp: Mcp, identifier: str, **filters: str) -> set[tuple[str, str, str]]:
    listed = mcp.call("research_list_fetched", filters)["entries"]
    return {
        (e["provider"], e["format"], e["artefact"]) for e in listed if e["identifier"] == identifier
    }


@pytest.fixture(scope="module")
def stored(mcp: Mcp, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An arXiv PDF, a Europe PMC XML and a local file, all stored."""
    mcp.call("research_arxiv_fetch_full_text", {"arxiv_id": "2401.00001", "format": "pdf"})
    mcp.call("research_europepmc_fetch_full_text", {"identifier": "PMC7000001"})
    folder = tmp_path_factory.mktemp("storage")
    local = upload(
        mcp,
        folder / "bandicoot.pdf",
        "Bandicoot field notes",
        [
            " ".join(f"Bandicoot sighting {n}.{m}: the bandicoot dug for grubs." for m in range(14))
            for n in range(14)
        ],
    )
    return {"arxiv": "2401.00001v2", "europepmc": "PMC:7000001", "localfile": local}


def test_list_fetched_lists_documents_and_markdown(mcp: Mcp, stored: dict[str, str]) -> None:
    listed = mcp.call("research_list_fetched", {})["entries"]
    assert listed and all(set(e) >= ENTRY_FIELDS for e in listed)
    assert {("arxiv", "pdf", "document"), ("arxiv", "pdf", "markdown")} <= entries_for(
        mcp, stored["arxiv"]
    )
    assert ("europepmc", "xml", "document") in entries_for(mcp, stored["europepmc"])
    assert ("localfile", "pdf", "document") in entries_for(mcp, stored["localfile"])
    document = next(
        e
        for e in listed
        if e["identifier"] == stored["arxiv"]
        and (e["format"], e["artefact"]) == ("pdf", "document")
    )
    assert document["size_bytes"] == len(mcp.world.pdfs["2401.00001v2"])


def test_list_fetched_filters_by_provider_and_format(mcp: Mcp, stored: dict[str, str]) -> None:
    arxiv = mcp.call("research_list_fetched", {"provider": "arxiv"})["entries"]
    assert arxiv and {e["provider"] for e in arxiv} == {"arxiv"}
    local = mcp.call("research_list_fetched", {"provider": "localfile"})["entries"]
    assert stored["localfile"] in {e["identifier"] for e in local}
    assert {e["provider"] for e in local} == {"localfile"}
    xml = mcp.call("research_list_fetched", {"format": "xml"})["entries"]
    assert xml and {e["format"] for e in xml} == {"xml"}
    both = mcp.call("research_list_fetched", {"provider": "arxiv", "format": "xml"})["entries"]
    assert both == []


def test_delete_one_artefact_leaves_the_other(mcp: Mcp) -> None:
    mcp.call("research_arxiv_fetch_full_text", {"arxiv_id": "2401.00003", "format": "pdf"})
    ref = {"provider": "arxiv", "identifier": "2401.00003v1", "format": "pdf"}
    out = mcp.call("research_delete_fetched", {"entries": [{**ref, "artefact": "document"}]})
    assert out["deleted"] == [{**ref, "artefact": "document"}] and out["not_found"] == []
    assert entries_for(mcp, "2401.00003v1") == {("arxiv", "pdf", "markdown")}
    mcp.read_fails("research://arxiv/2401.00003v1/pdf/fulltext", "not_found")
    page = mcp.call("research_arxiv_parse_full_text", {"arxiv_id": "2401.00003v1", "format": "pdf"})
    assert "Echidna spines" in page["markdown"]  # the markdown stays readable
    found = mcp.call("research_search_fetched", {"query": "echidna*"})["matches"]
    assert {m["identifier"] for m in found} == {"2401.00003v1"}  # and searchable

    out = mcp.call("research_delete_fetched", {"entries": [{**ref, "artefact": "markdown"}]})
    assert out["deleted"] == [{**ref, "artefact": "markdown"}]
    assert mcp.call("research_search_fetched", {"query": "echidna*"})["matches"] == []
    assert entries_for(mcp, "2401.00003v1") == set()


def test_delete_tolerates_absent_entries(mcp: Mcp, tmp_path: Path) -> None:
    local = upload(mcp, tmp_path / "potoroo.pdf", "Potoroo truffles", ["Potoroos dig truffles."])
    present = {"provider": "localfile", "identifier": local, "format": "pdf", "artefact": "all"}
    absent = {"provider": "arxiv", "identifier": "2401.09999v1", "format": "pdf", "artefact": "all"}
    out = mcp.call("research_delete_fetched", {"entries": [absent, present]})
    assert out["deleted"] == [present] and out["not_found"] == [absent]
    assert entries_for(mcp, local) == set()
    again = mcp.call("research_delete_fetched", {"entries": [present]})
    assert again["deleted"] == [] and again["not_found"] == [present]
    mcp.fails(
        "research_delete_fetched",
        {"entries": [{**present, "artefact": "pages"}]},
        "invalid_request",
    )


def test_search_takes_fts5_syntax(mcp: Mcp, stored: dict[str, str]) -> None:
    prefix = mcp.call("research_search_fetched", {"query": "quokk*"})["matches"]
    assert prefix and all(set(m) >= MATCH_FIELDS for m in prefix)
    quokka = prefix[0]
    assert (quokka["provider"], quokka["identifier"], quokka["format"]) == (
        "arxiv",
        "2401.00001v2",
        "pdf",
    )
    assert isinstance(quokka["offset"], int) and isinstance(quokka["score"], float)
    scores = [m["score"] for m in prefix]
    assert scores == sorted(scores)  # best first, lower is better (bm25)
    phrase = mcp.call("research_search_fetched", {"query": '"dry summers"'})["matches"]
    assert {m["identifier"] for m in phrase} == {"2401.00001v2"}
    negated = mcp.call("research_search_fetched", {"query": "koala NOT quokka"})["matches"]
    assert negated and {m["identifier"] for m in negated} == {"PMC:7000001"}
    mcp.fails("research_search_fetched", {"query": '"unbalanced'}, "invalid_request")


def test_search_has_no_result_cap(mcp: Mcp, stored: dict[str, str]) -> None:
    found = mcp.call("research_search_fetched", {"query": "bandicoot"})["matches"]
    assert len(found) > 10
    assert {m["identifier"] for m in found} == {stored["localfile"]}


def test_search_offset_reads_back_with_parse(mcp: Mcp, stored: dict[str, str]) -> None:
    match = mcp.call("research_search_fetched", {"query": '"dry summers"'})["matches"][0]
    page = mcp.call(
        "research_arxiv_parse_full_text",
        {"arxiv_id": match["identifier"], "format": match["format"], "offset": match["offset"]},
    )
    assert "dry summers" in page["markdown"]


def test_search_is_scoped_by_provider_identifier_and_format(
    mcp: Mcp, stored: dict[str, str]
) -> None:
    query = {"query": "koala OR quokka OR bandicoot"}
    every = mcp.call("research_search_fetched", query)["matches"]
    assert {m["provider"] for m in every} >= {"arxiv", "europepmc", "localfile"}
    epmc = mcp.call("research_search_fetched", {**query, "provider": "europepmc"})["matches"]
    assert epmc and {m["provider"] for m in epmc} == {"europepmc"}
    one = mcp.call(
        "research_search_fetched",
        {**query, "provider": "arxiv", "identifier": stored["arxiv"]},
    )["matches"]
    assert one and {m["identifier"] for m in one} == {stored["arxiv"]}
    xml = mcp.call("research_search_fetched", {**query, "format": "xml"})["matches"]
    assert xml and {m["format"] for m in xml} == {"xml"}
    none = mcp.call(
        "research_search_fetched", {**query, "provider": "arxiv", "identifier": "2401.09999v1"}
    )["matches"]
    assert none == []
    mcp.fails(
        "research_search_fetched", {**query, "identifier": stored["arxiv"]}, "invalid_request"
    )
