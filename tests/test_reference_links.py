"""The local citation graph: references linked to library works by DOI, arXiv id (any
version) or title + year + first author, in both directions, and unlinked on delete; on
both engines, through the Library, the CLI and MCP."""

from __future__ import annotations

import json
from typing import Any

import pytest

from prioris.ingest.citation_links import TITLE_THRESHOLD, family_name, match_score

CITING = {
    "_id": "doi:10.9/citing",
    "title": "A survey that cites",
    "authors": ["Sam Writer"],
    "year": 2021,
    "text": """# A survey that cites

Body text [1-6].

## References

[1] A. Vaswani, N. Shazeer. Attention is all you need. In NIPS, 2017. arXiv:1706.03762.

[2] K. He, X. Zhang. Deep residual learning. In CVPR, 2016. doi:10.1000/DEEP.

[3] J. Diver and K. Lee. Coral reef bleaching under marine heat waves. Nature Climate, 2020.

[4] J. Diver. Coral reef bleaching under marine heatwaves. Old Journal, 2014.

[5] M. Other. Coral reef bleaching under marine heatwaves. Some Journal, 2019.

[6] J. Diver. Coral reefs: a review of bleaching. Reef Reviews, 2019.
""",
}
TARGETS = [
    {
        "_id": "arxiv:1706.03762v5",
        "title": "Attention Is All You Need",
        "authors": ["Ashish Vaswani", "Noam Shazeer"],
        "year": 2017,
        "text": "Transformers.",
    },
    {
        "_id": "doi:10.1000/deep",
        "title": "Deep Residual Learning for Image Recognition",
        "authors": ["Kaiming He"],
        "year": 2016,
        "text": "Residual nets.",
    },
    {
        "_id": "doi:10.1/reef",
        "title": "Coral reef bleaching under marine heatwaves",
        "authors": ["Jane Diver", "Kim Lee"],
        "year": 2019,
        "text": "Reefs.",
    },
    {  # a near miss: the same first author and year, another title
        "_id": "doi:10.1/reef2",
        "title": "Coral reef recovery after cyclones",
        "authors": ["Jane Diver"],
        "year": 2019,
        "text": "Cyclones.",
    },
]
EXPECTED = {
    1: ("arxiv:1706.03762v5", "arxiv"),
    2: ("doi:10.1000/deep", "doi"),
    3: ("doi:10.1/reef", "title"),
}


@pytest.fixture(params=["sqlite", "postgresql"])
def library(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library

    if request.param == "postgresql":
        monkeypatch.setenv("PRIORIS_MCP_DB", request.getfixturevalue("pg_url"))
    lib = Library.open(load_settings(), embedder=FakeEmbedder())
    yield lib
    lib.close()


def _links(library: Any) -> dict[int, tuple[str, str]]:
    return {
        r["ordinal"]: (r["cited_work_id"], r["link_method"])
        for r in library.references("doi:10.9/citing")
        if r["cited_work_id"]
    }


def test_a_new_work_links_its_references_to_the_library(library: Any) -> None:
    library.import_records(TARGETS)
    library.import_records([CITING])
    assert len(library.references("doi:10.9/citing")) == 6
    assert _links(library) == EXPECTED  # and no near miss (4, 5, 6) is linked
    cites = library.cites("doi:10.9/citing")
    assert [w["id"] for w in cites] == ["arxiv:1706.03762v5", "doi:10.1000/deep", "doi:10.1/reef"]
    assert cites[2]["references"][0]["link_score"] >= TITLE_THRESHOLD
    assert [w["id"] for w in library.cited_by("doi:10.1/reef")] == ["doi:10.9/citing"]
    assert library.cited_by("doi:10.1/reef2") == []


def test_references_already_stored_link_to_a_work_that_arrives(library: Any) -> None:
    library.import_records([CITING])
    assert _links(library) == {}
    library.import_records(TARGETS)  # each arrival links what cites it
    assert _links(library) == EXPECTED


def test_deleting_a_work_unlinks_what_cites_it_and_drops_its_references(library: Any) -> None:
    library.import_records(TARGETS)
    library.import_records([CITING])
    library.delete(["doi:10.1/reef"])
    assert 3 not in _links(library)
    assert library.references("doi:10.9/citing")[2]["cited_work_id"] is None
    library.import_records([TARGETS[2]])  # back: linked again
    assert _links(library)[3] == ("doi:10.1/reef", "title")
    library.delete(["doi:10.9/citing"])  # its list goes with it
    count = library.conn.execute("SELECT count(*) FROM work_references").fetchone()[0]
    assert count == 0
    assert library.cited_by("doi:10.1/reef") == []


def test_a_work_never_links_to_itself(library: Any) -> None:
    own = dict(CITING, text=CITING["text"] + "\n[7] S. Writer. A survey that cites. 2021.\n")
    library.import_records([own])
    assert _links(library) == {}


def test_citations_of_an_unknown_work_or_direction_are_clear_errors(library: Any) -> None:
    from prioris.errors import InvalidRequestError, NotFoundError

    with pytest.raises(NotFoundError):
        library.cites("doi:10.1/none")
    library.import_records([CITING])
    with pytest.raises(InvalidRequestError, match="direction"):
        library.citations("doi:10.9/citing", "sideways")


def test_the_matcher_needs_year_author_and_title() -> None:
    ref = {"title": "Coral reef bleaching under marine heat waves", "year": 2020,
           "authors": ["J. Diver"], "raw": "", "work_id": "x"}  # fmt: skip
    title, authors = "Coral reef bleaching under marine heatwaves", ["Jane Diver"]
    assert match_score(ref, title, authors, 2019) is not None
    assert match_score(ref, title, authors, 2017) is None  # two years apart
    assert match_score(ref, title, ["Kim Lee"], 2019) is None  # another first author
    assert match_score({**ref, "year": None}, title, authors, 2019) is None  # no year: never
    assert match_score({**ref, "title": "Coral reefs"}, "Coral reefs", authors, 2019) is None
    assert match_score({**ref, "authors": []}, title, authors, 2019) is None  # name not in raw
    assert match_score({**ref, "authors": [], "raw": "Diver J."}, title, authors, 2019)
    assert [family_name(n) for n in ("Smith, J.", "Smith JA", "J. A. Smith", "Jane Smith")] == [
        "smith"
    ] * 4


def test_cli_cites_cited_by_and_show(library: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from prioris.interfaces.cli.app import main

    library.import_records(TARGETS)
    library.import_records([CITING])
    db = library.settings.db_path if library.storage.kind == "sqlite" else library.storage.location
    base = ["--db", str(db)]
    assert main([*base, "cites", "doi:10.9/citing", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["count"] == 3 and out["cites"][2]["id"] == "doi:10.1/reef"
    assert main([*base, "cited-by", "arxiv:1706.03762"]) == 0
    text = capsys.readouterr().out
    assert "doi:10.9/citing  A survey that cites (2021)" in text and "(arxiv)" in text
    assert main([*base, "show", "doi:10.9/citing", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert len(shown["references"]) == 6
    assert shown["references"][0]["cited"]["title"] == "Attention Is All You Need"
    assert main([*base, "show", "doi:10.9/citing"]) == 0
    text = capsys.readouterr().out
    assert "references: 6 (3 in your library)" in text
    assert "-> doi:10.1/reef" in text
    assert main([*base, "cites", "doi:10.1/none"]) != 0


def test_mcp_research_citations(library: Any) -> None:
    from interfaces.mcp_helpers import data, error, with_client

    library.import_records(TARGETS)
    library.import_records([CITING])

    async def body(client: Any) -> dict[str, Any]:
        calls = {
            "refs": {"id": "doi:10.9/citing"},
            "cites": {"id": "doi:10.9/citing", "direction": "cites"},
            "cited_by": {"id": "doi:10.1000/deep", "direction": "cited_by"},
            "unknown": {"id": "doi:10.1/none", "direction": "cites"},
            "bad": {"id": "doi:10.9/citing", "direction": "sideways"},
        }
        return {k: await client.call_tool("research_citations", v) for k, v in calls.items()}

    out = with_client(library, body)
    refs = data(out["refs"])
    assert refs["count"] == 6 and refs["items"][1]["doi"] == "10.1000/deep"
    assert [w["id"] for w in data(out["cites"])["items"]] == [i for i, _ in EXPECTED.values()]
    assert data(out["cited_by"])["items"][0]["id"] == "doi:10.9/citing"
    assert "not_found" in error(out["unknown"])
    assert out["bad"].is_error


def test_reindex_references_reads_stored_works_again_and_resumes(
    library: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from prioris.ingest.reference_reindex import RESUME_KEY
    from prioris.interfaces.cli.app import main
    from prioris.storage.chunks import set_state

    library.import_records(TARGETS)
    library.import_records([CITING])
    with library.lock:  # a library made before reference lists were read
        library.conn.execute("BEGIN IMMEDIATE")
        library.conn.execute("DELETE FROM work_references")
        library.conn.execute("COMMIT")
    assert library.references("doi:10.9/citing") == []
    seen: list[tuple[int, int]] = []
    report = library.reread_references(on_progress=lambda d, t: seen.append((d, t)))
    assert report == {"works": 5, "references": 6, "linked": 3, "resumed": False}
    assert seen[-1] == (5, 5) and _links(library) == EXPECTED
    with library.lock:  # stopped after the first works: the rest only
        library.conn.execute("BEGIN IMMEDIATE")
        set_state(library.conn, RESUME_KEY, "doi:10.1/reef")
        library.conn.execute("COMMIT")
    again = library.reread_references()
    assert again["resumed"] and again["works"] == 3  # reef2, 10.1000/deep, 10.9/citing
    assert _links(library) == EXPECTED
    db = library.settings.db_path if library.storage.kind == "sqlite" else library.storage.location
    assert main(["--db", str(db), "reindex", "--references", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["references"] == {"works": 5, "references": 6, "linked": 3, "resumed": False}
    assert main(["--db", str(db), "reindex", "--references"]) == 0
    text = capsys.readouterr().out
    assert "read the references of 5 works again: 6 references, 3 linked" in text
