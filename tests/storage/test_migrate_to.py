"""``prioris migrate-to``: an SQLite library copied to PostgreSQL and back, vectors and all,
resumable after a stop, never into a library holding other works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.engines import open_storage
from prioris.errors import ConfigurationError, InvalidRequestError
from prioris.interfaces.cli import main
from prioris.library import Library, migrate_library
from prioris.storage import copy as copy_module
from prioris.storage import labels as label_store
from prioris.storage import work_vectors as work_vector_store
from prioris.storage.backend import index_of

from pdf_factory import make_text_pdf

QUERIES = ["reef corals bleach", "lattice hadron masses", "station 7"]
KEPT = (
    "works",
    "aliases",
    "chunks",
    "pages",
    "blobs",
    "documents",
    "work_fields",
    "work_records",
    "work_edits",
    "work_vectors",
    "labels",
    "notes",
    "references",
)


def _open(location: str | Path) -> Library:
    settings = load_settings({"PRIORIS_MCP_ENRICH": "off"}).with_library(location)
    return Library.open(settings, embedder=FakeEmbedder())


def _fill(library: Library, tmp_path: Path) -> None:
    library.import_records(
        [
            {
                "_id": f"doi:10.1/{i}",
                "title": f"Reef station {i}" if i % 2 else f"Lattice run {i}",
                "text": f"Station {i}: reef corals bleach; lattice hadron masses at run {i}.",
                "year": 2000 + i,
                "source": "arxiv" if i % 3 else "import",
            }
            for i in range(12)
        ]
    )
    pdf = make_text_pdf(tmp_path / "p.pdf", "Coral paper", ["Corals bleach in hot water. " * 30])
    library.ingest_file(pdf)
    library.conn.execute("BEGIN IMMEDIATE")
    library.conn.execute("INSERT INTO aliases(alias, work_id) VALUES ('pmid:7', 'doi:10.1/7')")
    library.conn.execute("COMMIT")
    # an edit (its history row, the user's record, a new work vector) and a second one
    library.edit_work("doi:10.1/3", {"title": "Edited reef station", "volume": "4"})
    library.edit_work("doi:10.1/3", {"pages": "1-9", "keywords": ["reef", "station"]})
    # collections and tags from two sources
    library.conn.execute("BEGIN IMMEDIATE")
    for i, source in ((2, "zotero"), (3, "zotero"), (3, "bibtex")):
        label_store.set_labels(
            library.conn,
            f"doi:10.1/{i}",
            source,
            collections=[f"Reefs / {source}"],
            tags=["Coral", f"from {source}"],
        )
    library.conn.execute("COMMIT")
    # a Zotero item that joins a stored work (its DOI) with a note and a highlight
    from prioris.refman.items import RefItem, RefNote

    report = library.refsync.sync(
        "zotero",
        [
            RefItem(
                source="zotero",
                key="ZKEY0005",
                record={"title": "Reef station 5", "doi": "10.1/5"},
                version="1",
                notes=(
                    RefNote("note", "my note on reef five", key="N1"),
                    RefNote("highlight", "corals bleach", comment="!", page=1, key="N2"),
                ),
            )
        ],
    )
    assert report.updated == 1
    # an item a sync saw but could not store (no work): copied, so the next sync retries it
    from prioris.storage import refsync as refsync_store

    library.conn.execute("BEGIN IMMEDIATE")
    failed = refsync_store.SyncedItem("zotero", "ZFAILED9", None, "fingerprint-9")
    refsync_store.save_item(library.conn, failed, "2026-01-02T03:04:05+00:00")
    library.conn.execute("COMMIT")
    # reference lists, one entry linked to a work copied in a later batch, one unlinked
    from prioris.models import Reference
    from prioris.storage import references as reference_store

    library.conn.execute("BEGIN IMMEDIATE")
    reference_store.replace_references(
        library.conn,
        "doi:10.1/1",
        [
            Reference(1, "Reef station 9. 2009. doi:10.1/9", ["A. Diver"], "Reef station 9", 2009),
            Reference(2, "Nobody. An unknown work. 1999.", ["Nobody"], "An unknown work", 1999),
        ],
    )
    ref_id = reference_store.references_of(library.conn, "doi:10.1/1")[0]["id"]
    reference_store.set_links(library.conn, [(ref_id, "doi:10.1/9", "doi", 100.0)])
    library.conn.execute("COMMIT")


def _snapshot(library: Library) -> dict[str, Any]:
    q = library.conn.execute
    text = index_of(library.conn).text_sql("text")  # stored packed on SQLite
    return {
        "status": {k: v for k, v in library.status().items() if k not in ("db", "size_bytes")},
        "works": sorted(tuple(r) for r in q("SELECT id, title, year, source, markdown FROM works")),
        "aliases": sorted(tuple(r) for r in q("SELECT alias, work_id FROM aliases")),
        "chunks": sorted(tuple(r) for r in q(f"SELECT id, work_id, {text} FROM chunks")),
        "pages": sorted(tuple(r) for r in q("SELECT work_id, number, char_end FROM pages")),
        "blobs": sorted(bytes(r[0]) for r in q("SELECT content FROM blobs")),
        "documents": sorted(
            tuple(r)
            for r in q(
                "SELECT sha256, work_id, format, size_bytes, page_count, ocr_pages, "
                "parser_version, path, url, created_at FROM documents"
            )
        ),
        "work_fields": sorted(
            tuple(r)
            for r in q("SELECT id, volume, issue, pages, publisher, keywords, origins FROM works")
        ),
        "work_records": sorted(
            tuple(r) for r in q("SELECT work_id, origin, record, recorded_at FROM work_records")
        ),
        # ids are the target's own; each work's history keeps its order
        "work_edits": [
            (r[0], *r[2:])
            for r in sorted(
                tuple(r)
                for r in q("SELECT work_id, id, edited_at, changes, before FROM work_edits")
            )
        ],
        "work_vectors": sorted(
            work_vector_store.read_rows(
                library.conn, [r[0] for r in q("SELECT id FROM works ORDER BY id")]
            )
        ),
        "labels": sorted(
            [tuple(r) for r in q("SELECT work_id, source, path FROM work_collections")]
            + [tuple(r) for r in q("SELECT work_id, source, tag FROM work_tags")]
        ),
        "notes": sorted(
            [
                tuple(r)
                for r in q(
                    "SELECT work_id, source, note_key, kind, text, comment, color, page_label, "
                    "page FROM work_notes"
                )
            ]
            + [
                tuple(r)
                for r in q("SELECT scope, item_key, work_id, fingerprint FROM refsync_items")
            ]
        ),
        "references": sorted(
            tuple(r)
            for r in q(
                "SELECT work_id, ordinal, raw, authors, title, year, doi, arxiv, cited_work_id, "
                "link_method, link_score FROM work_references"
            )
        ),
        "search": {  # KNN over the same vectors: the same scores (tied works may swap)
            query: [round(h.score, 4) for h in hits]
            for query in QUERIES
            for hits in [library.search(query, mode="vector", k=5).hits]
        },
        "resolved": library.resolve_work_id("pmid:7"),
        "top": library.search("station 7", mode="vector", k=1).hits[0].id,
    }


def test_sqlite_to_postgres_and_back_keeps_everything(pg_url: str, tmp_path: Path) -> None:
    source_file = tmp_path / "source.sqlite"
    with _open(source_file) as source:
        _fill(source, tmp_path)
        before = _snapshot(source)
        for key in KEPT:  # each table compared holds something to lose
            assert before[key], key
        assert len(before["work_edits"]) == 2 and len(before["work_vectors"]) == 13
        assert len(before["notes"]) == 4  # two notes, the sync's row and its failed item
        fts = [h.id for h in source.search("reef", mode="fts", k=20).hits]
        pdf_work = source.search("paper", mode="fts").hits[0].id
        assert [h.id for h in source.search("edited", mode="fts").hits] == ["doi:10.1/3"]
    report = migrate_library(load_settings({}).with_library(source_file), pg_url)
    assert report["works"] == 13 and report["vectors"] == report["chunks"] >= 13
    with _open(pg_url) as copied:
        after = _snapshot(copied)
        assert after["status"] == before["status"]  # no chunk stale: vectors came along
        for key in KEPT:  # each already in a set order (work_edits: each work's history)
            assert after[key] == before[key], key
        assert (after["resolved"], after["top"]) == (before["resolved"], before["top"])
        assert after["search"] == before["search"]  # the same vectors give the same KNN
        hnsw = copied.conn.execute("SELECT to_regclass('chunk_vectors_hnsw')").fetchone()[0]
        assert hnsw is not None  # built once after the copy
        assert sorted(h.id for h in copied.search("reef", mode="fts", k=20).hits) == sorted(fts)
        # words of a title alone (an edited one, a PDF's): the chunks' title came along
        for word, work in (("edited", "doi:10.1/3"), ("paper", pdf_work)):
            assert [h.id for h in copied.search(word, mode="fts").hits] == [work], word
        copied.import_records([{"_id": "new", "title": "After the copy", "text": "more reef"}])
        assert copied.search("more reef", mode="fts").hits  # ids continue past the copied
        grown = _snapshot(copied)
    back = tmp_path / "back.sqlite"
    migrate_library(load_settings({}).with_library(pg_url), back)
    with _open(back) as returned:
        assert returned.status()["works"] == 14 and returned.status()["stale_chunks"] == 0
        assert returned.search("reef", mode="fts", k=30).hits
        for word, work in (("edited", "doi:10.1/3"), ("paper", pdf_work)):  # FTS5's titles
            assert [h.id for h in returned.search(word, mode="fts").hits] == [work], word
        snapshot = _snapshot(returned)
        for key in KEPT:
            assert snapshot[key] == grown[key], key
        assert (snapshot["search"], snapshot["top"]) == (grown["search"], grown["top"])


def _copy_stopped_after_one_batch(
    source: Path, target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy in batches of 5 works, stopped (Ctrl-C) as its second batch begins."""
    real = copy_module._copy_works
    calls = 0

    def stop_on_second(*args: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise KeyboardInterrupt
        real(*args)

    monkeypatch.setattr(copy_module, "_copy_works", stop_on_second)
    with pytest.raises(KeyboardInterrupt):
        copy_module.copy_library(open_storage(source), open_storage(target), batch=5)
    monkeypatch.setattr(copy_module, "_copy_works", real)


def test_a_stopped_copy_resumes(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source_file = tmp_path / "source.sqlite"
    with _open(source_file) as source:
        _fill(source, tmp_path)
    settings = load_settings({}).with_library(source_file)
    monkeypatch.setattr(copy_module, "BATCH_WORKS", 5)
    _copy_stopped_after_one_batch(source_file, pg_url, monkeypatch)
    report = migrate_library(settings, pg_url)
    assert report["skipped"] == 5 and report["works"] == 8
    with _open(pg_url) as copied:
        assert copied.status()["works"] == 13 and copied.status()["stale_chunks"] == 0
        # the reference copied in the first batch links to a work of a later one
        cites = copied.cites("doi:10.1/1")
        assert [w["id"] for w in cites] == ["doi:10.1/9"]
        assert copied.cited_by("doi:10.1/9")[0]["id"] == "doi:10.1/1"


def test_a_library_with_other_works_is_not_a_target(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with _open(pg_url) as other:
        other.import_records([{"_id": "theirs", "title": "Theirs", "text": "words"}])
    with _open(tmp_path / "source.sqlite") as source:
        _fill(source, tmp_path)
    with pytest.raises(ConfigurationError, match="already holds works"):
        migrate_library(load_settings({}).with_library(tmp_path / "source.sqlite"), pg_url)
    code = main(["--db", str(tmp_path / "source.sqlite"), "migrate-to", str(tmp_path / "s2.db")])
    assert code == 0 and "copied 13 works" in capsys.readouterr().out
    code = main(["--db", str(tmp_path / "s2.db"), "migrate-to", str(tmp_path / "s2.db"), "--json"])
    assert code == 2 and "the target is the library itself" in capsys.readouterr().err
    assert main(["--db", str(tmp_path / "s2.db"), "migrate-to", pg_url, "--json"]) == 2


def test_a_missing_source_is_refused_and_not_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "typo.sqlite"
    code = main(["--db", str(missing), "migrate-to", str(tmp_path / "copy.db")])
    assert code == 2 and f"there is no library at {missing} to copy" in capsys.readouterr().err
    assert not missing.exists() and not (tmp_path / "copy.db").exists()


def test_a_resume_into_a_target_that_gained_its_own_works_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source_file, target_file = tmp_path / "source.sqlite", tmp_path / "target.sqlite"
    with _open(source_file) as source:
        _fill(source, tmp_path)
    _copy_stopped_after_one_batch(source_file, str(target_file), monkeypatch)
    with _open(target_file) as target:  # someone uses the half-copied library meanwhile
        target.import_records([{"_id": "theirs", "title": "Theirs", "text": "own words"}])
    settings = load_settings({}).with_library(source_file)
    with pytest.raises(ConfigurationError, match=r"gained 1 work\(s\) of its own.*'theirs'"):
        migrate_library(settings, target_file)


def test_a_copy_reports_progress_per_batch_and_what_it_copied(tmp_path: Path) -> None:
    """SQLite to SQLite in batches of 5 of 13 works: progress after each batch (the last
    one short), and a report of works, chunks and vectors; copying again skips them all."""
    source_file, target_file = tmp_path / "source.sqlite", tmp_path / "target.sqlite"
    with _open(source_file) as source:
        _fill(source, tmp_path)
        chunks = source.status()["chunks"]
    progress: list[tuple[int, int]] = []
    report = copy_module.copy_library(
        open_storage(source_file),
        open_storage(target_file),
        batch=5,
        on_progress=lambda done, total: progress.append((done, total)),
    )
    assert progress == [(5, 13), (10, 13), (13, 13)]
    assert report.to_dict() == {"works": 13, "skipped": 0, "chunks": chunks, "vectors": chunks}
    again = copy_module.copy_library(  # every batch's skipped works counted
        open_storage(source_file), open_storage(target_file), batch=5
    )
    assert again.to_dict() == {"works": 0, "skipped": 13, "chunks": 0, "vectors": 0}
    with _open(target_file) as copied:
        assert copied.status()["works"] == 13 and copied.status()["chunks"] == chunks
        assert copied.status()["stale_chunks"] == 0 and copied.status()["stale_works"] == 0
    with pytest.raises(InvalidRequestError) as itself:
        copy_module.copy_library(open_storage(target_file), open_storage(target_file))
    assert itself.value.message == "the target is the library itself"
