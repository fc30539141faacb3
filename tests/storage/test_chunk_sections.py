"""Migration 0007 (SQLite) / 0004 (PostgreSQL): chunk sections backfilled from headings,
and carried by ``migrate-to``."""

from __future__ import annotations

import shutil
from pathlib import Path

HEADINGS = {
    1: ("Paper > 1 Introduction", "body"),
    2: ("Paper > Abstract", "abstract"),
    3: ("Paper > 7 Acknowledgments", "acknowledgements"),
    4: ("Paper > Declarations > Funding", "funding"),
    5: ("Paper > Competing interests", "author_info"),
    6: ("Paper > References", "references"),
    7: ("Paper > Appendix B: Proofs", "appendix"),
    8: ("", "body"),
    9: ("Paper > Acknowledging uncertainty in long range climate projections", "body"),
    10: ("Paper > 7. References", "references"),
    11: ("Funding", "body"),  # the work's title (a record's one heading), not a section
}


def _old_library(conn) -> None:  # type: ignore[no-untyped-def]
    conn.execute(
        "INSERT INTO works(id, title, source, created_at, updated_at) "
        "VALUES ('w1', 'Paper', 'file', 'now', 'now'), ('w2', 'Funding', 'file', 'now', 'now')"
    )
    for ordinal, (heading, _) in HEADINGS.items():
        conn.execute(
            "INSERT INTO chunks(work_id, ordinal, text, page_start, page_end, char_start, "
            "char_end, heading) VALUES (?, ?, 'text', 1, 1, 0, 4, ?)",
            ("w2" if ordinal == 11 else "w1", ordinal, heading),
        )


def test_sqlite_backfills_sections_from_stored_headings(tmp_path: Path) -> None:
    from prioris.engines.sqlite.connection import MIGRATIONS_DIR, connect

    old = tmp_path / "old-migrations"
    old.mkdir()
    for file in sorted(MIGRATIONS_DIR.glob("*.sql")):
        if int(file.name[:4]) < 7:
            shutil.copy(file, old)
    path = tmp_path / "lib.sqlite"
    conn = connect(path, migrations_dir=old)
    conn.execute("BEGIN")
    _old_library(conn)
    conn.execute("COMMIT")
    conn.close()
    conn = connect(path)
    rows = dict(conn.execute("SELECT ordinal, section FROM chunks").fetchall())
    conn.close()
    assert rows == {ordinal: label for ordinal, (_, label) in HEADINGS.items()}


def test_postgres_backfills_sections_from_stored_headings(pg_url: str, tmp_path: Path) -> None:
    import psycopg

    from prioris.engines.postgres.storage import MIGRATIONS_DIR, apply_migrations

    old = tmp_path / "old-migrations"
    old.mkdir()
    for file in sorted(MIGRATIONS_DIR.glob("*.sql")):
        if int(file.name[:4]) < 4:
            shutil.copy(file, old)
    with psycopg.connect(pg_url, autocommit=True) as raw:
        apply_migrations(raw, pg_url, old)
        from prioris.engines.postgres.connection import PgConnection

        _old_library(PgConnection(raw, pg_url))
        assert apply_migrations(raw, pg_url)[0] == 4  # and any later ones
        rows = dict(raw.execute("SELECT ordinal, section FROM chunks").fetchall())
    assert rows == {ordinal: label for ordinal, (_, label) in HEADINGS.items()}


def test_migrate_to_carries_sections(pg_url: str, tmp_path: Path) -> None:
    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library, migrate_library
    from prioris.models import Page, Work

    def opened(location: str | Path) -> Library:
        settings = load_settings({"PRIORIS_MCP_ENRICH": "off"}).with_library(location)
        return Library.open(settings, embedder=FakeEmbedder())

    markdown = (
        "# Paper\n\n## Methods\n\nWe measure windows.\n\n## Acknowledgements\n\nWe thank all.\n\n"
        "## References\n\n[1] A. Author. Cited work. 2017."
    )
    source = tmp_path / "source.sqlite"
    with opened(source) as lib:
        work = Work(id="w1", title="Paper", source="import")
        lib.pipeline.store(lib.pipeline.prepare_pages(work, [Page(1, markdown)]))
        before = [tuple(r) for r in lib.conn.execute("SELECT id, section FROM chunks ORDER BY id")]
    assert {s for _, s in before} == {"body", "acknowledgements", "references"}
    back = tmp_path / "back.sqlite"
    migrate_library(load_settings({}).with_library(source), pg_url)
    migrate_library(load_settings({}).with_library(pg_url), back)
    for location in (pg_url, back):
        with opened(location) as copied:
            rows = copied.conn.execute("SELECT id, section FROM chunks ORDER BY id")
            assert [tuple(r) for r in rows] == before
            hits = copied.search("cited work", mode="fts", chunks=True).hits
            assert hits and hits[0].section == "references"
