"""FTS5 over the chunks table (external content): text stored once, index kept in step."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from prioris.engines.sqlite.connection import MIGRATIONS_DIR, apply_migrations, connect
from prioris.library import Library
from prioris.models import Work
from prioris.storage import chunks as chunk_store
from prioris.storage import works as work_store


def _check(conn: Any) -> None:
    """FTS5's own check, comparing the index with the content it reads (raises if off)."""
    conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")


def _matches(conn: Any, expression: str) -> list[int]:
    rows = conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (expression,))
    return sorted(r[0] for r in rows)


def test_an_old_library_is_converted_and_keeps_its_index(tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    shutil.copy(MIGRATIONS_DIR / "0001_initial.sql", old)
    conn = connect(tmp_path / "lib.sqlite", migrations_dir=old)
    conn.execute("BEGIN")
    conn.execute(  # schema 1's columns (today's code writes later ones too)
        "INSERT INTO works(id, title, source, created_at, updated_at) "
        "VALUES ('w1', 'Coral bleaching', 'import', 'now', 'now')"
    )
    chunk_id = conn.execute(  # schema 1's chunk columns, and its FTS row
        "INSERT INTO chunks(work_id, ordinal, text, page_start, page_end, char_start, "
        "char_end, heading, token_count) VALUES ('w1', 0, 'Heatwaves bleach reefs.', 1, 1, "
        "0, 23, 'Intro', 4)"
    ).lastrowid
    conn.execute(
        "INSERT INTO chunks_fts(rowid, text, title, heading) VALUES (?, ?, ?, ?)",
        (chunk_id, "Heatwaves bleach reefs.", "Coral bleaching", "Intro"),
    )
    ids = [chunk_id]
    conn.execute("COMMIT")
    text_copy = conn.execute("SELECT count(*) FROM chunks_fts_content").fetchone()[0]
    assert text_copy == 1  # schema 1 kept its own copy of the text

    assert 4 in apply_migrations(conn, MIGRATIONS_DIR)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "chunks_fts_content" not in tables  # the second copy of the text is gone
    assert _matches(conn, "reefs") == ids
    assert _matches(conn, "title:coral") == ids
    assert _matches(conn, "heading:intro") == ids
    _check(conn)


def test_title_changes_and_deletes_keep_the_index_consistent(library: Library) -> None:
    library.import_records([{"_id": "a", "title": "", "text": "Lattice gauge theory."}])
    library.import_records([{"_id": "b", "title": "Bees", "text": "Bees dance to talk."}])
    conn = library.conn
    assert _matches(conn, "title:quantum") == []
    conn.execute("BEGIN")
    # a merge fills the missing title; the trigger re-indexes the work's chunks
    work_store.upsert_work(conn, Work(id="a", title="Quantum fields", source="import"), "now")
    conn.execute("COMMIT")
    assert len(_matches(conn, "title:quantum")) == 1
    _check(conn)
    library.delete(["a"])
    assert _matches(conn, "lattice OR quantum") == []
    assert len(_matches(conn, "bees")) == 1
    _check(conn)
    assert library.search("quantum lattice", mode="fts").hits == []
    assert library.search("bees dance", mode="fts").hits[0].id == "b"


def test_enrichment_retitle_keeps_the_index_consistent(library: Library) -> None:
    """The enrichment path: replace_fields, then update_work_fields (vec0 year only)."""
    library.import_records([{"_id": "p", "title": "Untitled scan", "text": "Tau tangles."}])
    conn = library.conn
    work = work_store.get_work(conn, "p")
    assert work is not None
    work.title, work.year = "Tau pathology in ageing brains", 2019
    conn.execute("BEGIN IMMEDIATE")
    work_store.replace_fields(conn, work, "now")
    chunk_store.update_work_fields(conn, "p", work.title, work.year)
    conn.execute("COMMIT")
    assert len(_matches(conn, "title:pathology")) == 1
    assert _matches(conn, "title:untitled") == []
    _check(conn)
    hits = library.search("ageing brains", mode="fts", from_year=2019).hits
    assert [h.id for h in hits] == ["p"]
