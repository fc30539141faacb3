"""``reindex --clean-text`` on a library made before the cleaning: the stored Markdown,
pages, passages and fields are cleaned where they lie, one transaction per work, a
stopped run resumes, and search finds the names by either spelling (both engines)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import prioris.ingest.prepare as prepare_module
from prioris.embedding.fake import FakeEmbedder
from prioris.text_clean import clean_text, has_control

from backend_sql import chunk_text


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


DIRTY = [
    {
        "_id": "w1",
        "title": "Retrieval by Barlas O\u02d8guz",
        "text": "Mangen \x012009\x02 reports \ufb01ve effects. " * 40
        + "\n\nFranc\u00b8ois Gy\u00a8ongyi agrees.",
    },
    {"_id": "w2", "title": "Clean already", "text": "Nothing here needs cleaning at all."},
    {"_id": "w3", "title": "Second dirty one", "text": "Erd\u02ddos wrote \x02this\x03 too."},
]


@pytest.fixture
def old_library(library, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A library whose works were stored as an earlier Prioris stored them: uncleaned."""
    with monkeypatch.context() as patch:
        patch.setattr(prepare_module, "clean_text", lambda text: text)
        patch.setattr(prepare_module, "clean_work", lambda work: work)
        summary = library.import_records(DIRTY)
    assert len(summary.ingested) == len(DIRTY)
    assert has_control(_markdown(library, "w1"))
    return library


def _markdown(library: Any, work_id: str) -> str:
    row = library.conn.execute("SELECT markdown FROM works WHERE id = ?", (work_id,)).fetchone()
    return str(row[0])


def _chunk_texts(library: Any, work_id: str) -> list[str]:
    rows = library.conn.execute(
        f"SELECT {chunk_text(library)} FROM chunks WHERE work_id = ? ORDER BY ordinal",
        (work_id,),
    ).fetchall()
    return [str(r[0]) for r in rows]


def test_clean_text_cleans_markdown_pages_passages_and_fields(old_library) -> None:  # type: ignore[no-untyped-def]
    lib = old_library
    assert lib.search("Oguz", mode="fts", k=3).hits == []  # as printed, the name is not found
    summary = lib.clean_stored_text()
    assert summary.works == 3 and sorted(summary.cleaned) == ["w1", "w3"]
    markdown = _markdown(lib, "w1")
    assert not has_control(markdown) and markdown == clean_text(markdown)
    assert "Mangen 2009 reports five effects." in markdown
    assert "Fran\u00e7ois Gy\u00f6ngyi" in markdown
    for work_id in ("w1", "w3"):
        texts = _chunk_texts(lib, work_id)
        assert texts and not any(has_control(t) for t in texts)
        pages = lib.pages(work_id)
        text = _markdown(lib, work_id)
        assert pages[0]["char_start"] == 0 and pages[-1]["char_end"] == len(text)
    assert lib.get_work("w1").title == "Retrieval by Barlas O\u011fuz"
    for query in ("Oguz", "O\u011fuz", "Gyongyi", "Francois", "Erdos"):
        hits = lib.search(query, mode="fts", k=3).hits
        assert hits and hits[0].id in ("w1", "w3"), query
    hits = lib.search("Mangen 2009 five effects", mode="vector", k=3).hits
    assert hits[0].id == "w1"  # re-embedded from the clean text
    assert lib.status()["stale_chunks"] == 0


def test_a_second_run_finds_nothing_to_do(old_library) -> None:  # type: ignore[no-untyped-def]
    old_library.clean_stored_text()
    before = _chunk_texts(old_library, "w1")
    again = old_library.clean_stored_text()
    assert again.works == 3 and again.cleaned == [] and again.chunks == 0
    assert _chunk_texts(old_library, "w1") == before


def test_a_stopped_run_resumes_and_each_work_is_whole(old_library, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A failure while w3 is embedded leaves w1 cleaned and w3 as it was (its transaction
    never began); running again cleans w3 only."""
    lib = old_library
    real = lib.pipeline.embed
    calls: list[str] = []

    def failing(items: Any, progress: Any = None) -> None:
        calls.append(items[0].work.id)
        if items[0].work.id == "w3":
            raise RuntimeError("stopped")
        real(items, progress)

    monkeypatch.setattr(lib.pipeline, "embed", failing)
    with pytest.raises(RuntimeError):
        lib.clean_stored_text()
    assert calls == ["w1", "w3"]
    assert not has_control(_markdown(lib, "w1"))
    assert has_control(_markdown(lib, "w3"))  # untouched: still as stored
    monkeypatch.setattr(lib.pipeline, "embed", real)
    again = lib.clean_stored_text()
    assert again.cleaned == ["w3"] and not has_control(_markdown(lib, "w3"))


def test_a_failed_write_rolls_the_work_back(old_library, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    lib = old_library
    writer = lib.pipeline.writer
    before = (_markdown(lib, "w1"), _chunk_texts(lib, "w1"), lib.get_work("w1").title)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(writer, "_keep_work_vector", broken)  # after the fields and text
    with pytest.raises(RuntimeError):
        lib.clean_stored_text()
    assert (_markdown(lib, "w1"), _chunk_texts(lib, "w1"), lib.get_work("w1").title) == before


def test_the_cli_reindex_clean_text(old_library, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``prioris reindex --clean-text`` through the real CLI (the fake model stands in)."""
    import prioris.embedding as embedding
    from prioris.interfaces.cli import main

    settings = old_library.settings
    old_library.close()
    monkeypatch.setattr(embedding, "build_embedder", lambda _settings: FakeEmbedder())
    args = ["--db", str(settings.library_location)]
    assert main([*args, "reindex", "--clean-text", "--json"]) == 0
    out, _err = capsys.readouterr()
    report = json.loads(out)
    assert report["clean_text"] == {
        "works": 3,
        "cleaned": 2,
        "chunks": report["clean_text"]["chunks"],
    }
    assert report["clean_text"]["chunks"] >= 2 and report["reindexed"] == 0
    assert main([*args, "reindex", "--clean-text"]) == 0
    out, _err = capsys.readouterr()
    assert out.startswith("cleaned the text of 0 works of 3 (0 passages re-chunked")
