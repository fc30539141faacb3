"""The Library facade over real SQLite: ingest, import, show, delete, status, reindex."""

from __future__ import annotations

from pathlib import Path

import pytest

from prioris.embedding.fake import FakeEmbedder
from prioris.errors import InvalidRequestError, NotFoundError
from prioris.library import Library
from prioris.models import Work
from prioris.storage.backend import index_of

from backend_sql import fts_rows_sql, vector_table
from pdf_factory import make_scanned_pdf, make_text_pdf


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


def _counts(library: Library) -> tuple[int, int, int, int]:
    q = library.conn.execute
    return (
        q("SELECT count(*) FROM works").fetchone()[0],
        q("SELECT count(*) FROM chunks").fetchone()[0],
        q(fts_rows_sql(library)).fetchone()[0],
        q(f"SELECT count(*) FROM {vector_table(library)}").fetchone()[0],
    )


def test_pdf_ingest_stores_pages_chunks_and_indexes(library: Library, tmp_path: Path) -> None:
    pdf = make_text_pdf(
        tmp_path / "paper.pdf",
        "Graph neural networks for molecules",
        [
            "Message passing networks predict molecular properties. " * 20,
            "Second page discusses benchmarks on QM9 with doi 10.1234/gnn.5678 cited. " * 5,
        ],
    )
    summary = library.ingest_paths([tmp_path])
    assert not summary.failed and len(summary.ingested) == 1
    result = summary.ingested[0]
    assert result.id.startswith("file:") and result.pages == 2 and result.chunks >= 2
    works, chunks, fts_rows, vectors = _counts(library)
    assert (works, fts_rows, vectors) == (1, chunks, chunks)
    work = library.get_work(result.id)
    assert work.title == "Graph neural networks for molecules"
    assert library.show(result.id, page=2)["markdown"].startswith("Second page")
    hits = library.search("QM9 benchmarks", mode="fts").hits
    assert hits[0].page_start == 2
    # identical bytes again: a no-op
    again = library.ingest_paths([pdf])
    assert again.skipped and not again.ingested
    assert _counts(library) == (works, chunks, fts_rows, vectors)


def test_ocr_runs_only_where_the_text_layer_is_missing(library: Library, tmp_path: Path) -> None:
    make_scanned_pdf(tmp_path / "scan.pdf", "Scanned page about photosynthesis")
    result = library.ingest_paths([tmp_path / "scan.pdf"]).ingested[0]
    assert result.ocr_pages == 1
    assert library.ocr.calls == 1  # the fake engine
    assert "fake engine" in library.show(result.id)["markdown"]


def test_a_bad_file_fails_alone(library: Library, tmp_path: Path) -> None:
    make_text_pdf(tmp_path / "a_good.pdf", "Good paper", ["Body text of the good paper."])
    (tmp_path / "b_not.pdf").write_bytes(b"this is not a pdf at all")
    (tmp_path / "c_truncated.pdf").write_bytes((tmp_path / "a_good.pdf").read_bytes()[:300])
    summary = library.ingest_paths([tmp_path])
    assert [Path(r.path).name for r in summary.ingested] == ["a_good.pdf"]
    codes = {Path(f["path"]).name: f["error"]["code"] for f in summary.failed}
    assert codes == {"b_not.pdf": "parse_error", "c_truncated.pdf": "parse_error"}


def test_oversized_file_is_rejected_before_reading(settings, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    small = settings.with_overrides(max_file_bytes=200)
    lib = Library.open(small, embedder=FakeEmbedder())
    make_text_pdf(tmp_path / "big.pdf", "Big", ["x " * 3000])
    summary = lib.ingest_paths([tmp_path / "big.pdf"])
    assert summary.failed[0]["error"]["code"] == "file_too_large"
    lib.close()


def test_import_is_resumable_and_reports_bad_lines(library: Library, tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    path.write_text(
        '{"_id": "r1", "title": "First", "text": "alpha beta"}\n'
        "not json\n"
        '{"_id": "r2", "title": "Second", "text": "gamma delta"}\n'
        '{"title": "no id"}\n'
    )
    summary = library.import_records(library.read_jsonl(path))
    assert [r.id for r in summary.ingested] == ["r1", "r2"]
    assert [f["error"]["code"] for f in summary.failed] == ["invalid_request", "invalid_request"]
    again = library.import_records(library.read_jsonl(path))
    assert len(again.skipped) == 2 and not again.ingested
    assert library.status()["works"] == 2


def test_delete_removes_the_work_from_every_table(library: Library) -> None:
    library.import_records(
        [
            {"_id": "gone", "title": "To delete", "text": "ephemeral words"},
            {"_id": "kept", "title": "To keep", "text": "durable words"},
        ]
    )
    q = library.conn.execute
    library.conn.execute("INSERT INTO aliases(alias, work_id) VALUES ('doi:10.1/gone', 'gone')")
    _, docs = library.original("gone")
    gone_sha = docs[0]["sha256"]
    kept_sha = library.original("kept")[1][0]["sha256"]
    assert library.document_bytes(gone_sha).startswith(b"# To delete")
    per_work = (
        "SELECT (SELECT count(*) FROM documents WHERE work_id = ?), "
        "(SELECT count(*) FROM pages WHERE work_id = ?), "
        "(SELECT count(*) FROM aliases WHERE work_id = ?), "
        "(SELECT count(*) FROM chunks WHERE work_id = ?), "
        f"(SELECT count(*) FROM {vector_table(library)} WHERE work_id = ?)"
    )
    assert tuple(q(per_work, ["gone"] * 5).fetchone()) == (1, 1, 1, 1, 1)
    before = _counts(library)
    assert library.delete(["gone"]) == ["gone"]
    after = _counts(library)
    assert after == (before[0] - 1, before[1] - 1, before[2] - 1, before[3] - 1)
    assert tuple(q(per_work, ["gone"] * 5).fetchone()) == (0, 0, 0, 0, 0)
    assert tuple(q(per_work, ["kept"] * 5).fetchone()) == (1, 1, 0, 1, 1)
    blobs = [r[0] for r in q("SELECT sha256 FROM blobs").fetchall()]
    assert blobs == [kept_sha]  # the deleted work's bytes are gone, the other's stay
    with pytest.raises(NotFoundError):
        library.document_bytes(gone_sha)
    assert library.document_bytes(kept_sha).startswith(b"# To keep")
    assert q("SELECT markdown FROM works").fetchall()[0][0].startswith("# To keep")
    assert not library.search("ephemeral", mode="fts").hits
    assert [h.id for h in library.search("ephemeral words", mode="vector").hits] == ["kept"]
    with pytest.raises(NotFoundError):
        library.resolve_work_id("doi:10.1/gone")
    with pytest.raises(NotFoundError):
        library.delete(["gone"])


def test_aliases_resolve_and_same_paper_is_one_work(library: Library) -> None:
    now = "2026-01-01T00:00:00+00:00"
    from prioris.storage.works import upsert_work

    first = Work(
        id="arxiv:2401.01234v2", title="A paper", aliases=["doi:10.1234/x"], source="arxiv"
    )
    second = Work(
        id="openalex:W1",
        title="A paper",
        aliases=["doi:10.1234/x", "pmid:9"],
        source="openalex",
        cited_by_count=7,
    )
    assert upsert_work(library.conn, first, now) == "arxiv:2401.01234v2"
    assert upsert_work(library.conn, second, now) == "arxiv:2401.01234v2"
    work = library.get_work("W1")
    assert work.id == "arxiv:2401.01234v2" and work.cited_by_count == 7
    assert set(work.aliases) >= {"doi:10.1234/x", "openalex:W1", "pmid:9"}
    assert library.resolve_work_id("2401.01234") == "arxiv:2401.01234v2"
    assert library.resolve_work_id("https://doi.org/10.1234/X") == "arxiv:2401.01234v2"
    with pytest.raises(NotFoundError):
        library.resolve_work_id("10.9999/unknown")


def test_show_pages_offsets_and_errors(library: Library) -> None:
    library.import_records([{"_id": "s", "title": "Show", "text": "0123456789" * 10}])
    view = library.show("s", offset=5, limit=10)
    assert len(view["markdown"]) == 10 and view["has_more"] and view["next_offset"] == 15
    assert view["total_pages"] == 1
    with pytest.raises(InvalidRequestError):
        library.show("s", page=3)
    with pytest.raises(InvalidRequestError):
        library.show("s", offset=10_000)


def test_model_change_marks_chunks_stale_and_reindex_rebuilds(settings) -> None:  # type: ignore[no-untyped-def]
    lib = Library.open(settings, embedder=FakeEmbedder(dim=64, model_id="fake/a"))
    lib.import_records(
        [{"_id": f"d{i}", "title": f"Doc {i}", "text": f"text number {i}"} for i in range(5)]
    )
    lib.close()

    lib = Library.open(settings, embedder=FakeEmbedder(dim=32, model_id="fake/b"))
    status = lib.status()
    assert status["stale_chunks"] == 5 and status["model"] == "fake/b" and status["dim"] == 32
    assert status["stale_works"] == 5  # their own vectors are fake/a's too
    assert lib.search("text number 3", mode="vector").hits == []
    seen: list[tuple[int, int]] = []
    assert lib.reindex(on_progress=lambda d, t: seen.append((d, t))) == 5
    assert seen[-1] == (10, 10)  # five chunks, then five works
    assert lib.status()["stale_chunks"] == 0 and lib.status()["stale_works"] == 0
    assert lib.search("text number 3", mode="vector", k=1).hits[0].id == "d3"
    lib.close()


def test_reference_lists_are_indexed_and_labelled(library: Library) -> None:
    """A cited title is found in the reference list, which stays a chunk of its own."""
    from prioris.models import Page

    markdown = (
        "# Sparse attention\n\n## Methods\n\nWe use sliding windows over long inputs.\n\n"
        "## References\n\n[1] A. Author. Dense attention for everything. 2017.\n\n"
        "## Appendix\n\nExtra tables about window sizes."
    )
    work = Work(id="w-refs", title="Sparse attention", source="import")
    result = library.pipeline.store(library.pipeline.prepare_pages(work, [Page(1, markdown)]))
    text = index_of(library.conn).text_sql("text")
    texts = [r[0] for r in library.conn.execute(f"SELECT {text} FROM chunks ORDER BY ordinal")]
    assert result.chunks == len(texts) == 3
    assert [t for t in texts if "Dense attention for everything" in t] == [texts[1]]
    assert "sliding windows" in texts[0] and "window sizes" in texts[2]
    hits = library.search("dense everything", mode="fts", chunks=True).hits
    assert [(h.id, h.section) for h in hits] == [("w-refs", "references")]
    assert "Dense attention for everything" in library.show("w-refs")["markdown"]


def test_searches_keep_answering_while_a_writer_ingests(library: Library) -> None:
    """WAL: readers on their own connections see whole documents, never a lock error."""
    import threading

    library.import_records([{"_id": "seed", "title": "Seed", "text": "seed words"}])
    errors: list[BaseException] = []

    def write() -> None:
        try:
            for start in range(0, 300, 30):
                library.import_records(
                    [
                        {"_id": f"r{i}", "title": f"Record {i}", "text": f"shared topic text {i}"}
                        for i in range(start, start + 30)
                    ]
                )
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    seen = []
    while writer.is_alive():
        for mode in ("fts", "vector", "hybrid"):
            hits = library.search("shared topic", mode=mode, k=50).hits
            assert all(h.title.startswith(("Record", "Seed")) for h in hits)
        seen.append(len(library.search("shared topic", mode="fts", k=500).hits))
    writer.join()
    assert not errors
    assert seen == sorted(seen)  # committed documents only ever appear, whole
    assert len(library.search("shared topic", mode="fts", k=500).hits) == 300


def test_an_alias_never_moves_to_another_work(library: Library) -> None:
    """Two works claim one DOI: the first owner keeps it (no silent re-pointing)."""
    from prioris.storage.works import add_aliases, aliases_of, upsert_work

    now = "2026-01-01T00:00:00+00:00"
    conn = library.conn
    upsert_work(
        conn, Work(id="arxiv:2401.00001v1", title="First", aliases=["doi:10.1234/dup"]), now
    )
    upsert_work(conn, Work(id="europepmc:PMC1", title="Second", aliases=["pmid:1"]), now)
    # the second work, met again with the first one's DOI among its aliases
    again = Work(id="europepmc:PMC1", title="Second", aliases=["doi:10.1234/dup", "pmid:2"])
    assert upsert_work(conn, again, now) == "europepmc:PMC1"
    add_aliases(conn, "europepmc:PMC1", ["doi:10.1234/dup", "pmid:1"])
    assert aliases_of(conn, "arxiv:2401.00001v1") == ["doi:10.1234/dup"]
    assert aliases_of(conn, "europepmc:PMC1") == ["pmid:1", "pmid:2"]
    assert library.resolve_work_id("doi:10.1234/dup") == "arxiv:2401.00001v1"
    assert library.resolve_work_id("10.1234/dup") == "arxiv:2401.00001v1"
    owners = conn.execute("SELECT count(*) FROM aliases WHERE alias = 'doi:10.1234/dup'").fetchone()
    assert owners[0] == 1


def test_summaries_and_responses_as_json(library: Library) -> None:
    """The dictionaries the CLI and MCP print: exact keys, a reason only when skipped."""
    first = library.import_records([{"_id": "j1", "title": "Json", "text": "json words"}])
    again = library.import_records([{"_id": "j1", "title": "Json", "text": "json words"}, {}])
    assert first.to_dict() == {
        "ingested": [{"id": "j1", "path": None, "pages": 1, "ocr_pages": 0, "chunks": 1}],
        "skipped": [],
        "failed": [],
    }
    data = again.to_dict()
    assert data["ingested"] == [] and [f["path"] for f in data["failed"]] == ["record 2"]
    assert data["skipped"] == [
        {
            "id": "j1",
            "path": None,
            "pages": 0,
            "ocr_pages": 0,
            "chunks": 0,
            "reason": "identical bytes already stored",
        }
    ]
    response = library.search("json", mode="fts", k=1)
    response.took_ms = 1.23456
    out = response.to_dict()
    assert (out["query"], out["mode"], out["took_ms"]) == ("json", "fts", 1.23)
    assert [h["id"] for h in out["hits"]] == ["j1"] and out["hits"][0]["ranks"] == {"fts": 1}
    assert set(out) == {"query", "mode", "took_ms", "hits"}


def test_original_lists_every_field_of_a_stored_document(library: Library, tmp_path: Path) -> None:
    pdf = make_text_pdf(tmp_path / "doc.pdf", "Stored fields", ["Body text here. " * 30])
    result = library.ingest_file(pdf)
    work, documents = library.original(result.id)
    assert work.id == result.id
    (document,) = documents
    data = pdf.read_bytes()
    import hashlib

    assert document == {
        "sha256": hashlib.sha256(data).hexdigest(),
        "work_id": result.id,
        "format": "pdf",
        "size_bytes": len(data),
        "page_count": 1,
        "ocr_pages": 0,
        "parser_version": document["parser_version"],
        "path": str(pdf),
        "url": None,
        "created_at": document["created_at"],
        "name": "doc.pdf",  # what a download is saved as: the file it came from
    }
    assert document["parser_version"] and document["created_at"].endswith("+00:00")
    assert library.document_bytes(document["sha256"]) == data


def test_storage_reads_of_what_is_not_there(library: Library) -> None:
    from prioris.storage.works import get_work, upsert_work

    assert get_work(library.conn, "no-such-work") is None
    now = "2026-01-01T00:00:00+00:00"
    upsert_work(library.conn, Work(id="oa", title="t", source="openalex", is_oa=False), now)
    upsert_work(library.conn, Work(id="oa", title="t", source="openalex", is_oa=True), now)
    stored = get_work(library.conn, "oa")
    assert stored is not None and stored.is_oa is True  # open-access status is refreshed


def test_a_model_switch_on_an_empty_library_reports_nothing_stale(settings) -> None:  # type: ignore[no-untyped-def]
    Library.open(settings, embedder=FakeEmbedder(dim=64, model_id="fake/a")).close()
    lib = Library.open(settings, embedder=FakeEmbedder(dim=32, model_id="fake/b"))
    try:
        assert lib.stale_on_open == 0 and lib.status()["dim"] == 32
    finally:
        lib.close()


def test_chunks_keep_their_token_counts_and_a_second_copy_keeps_the_first_text(
    library: Library, tmp_path: Path
) -> None:
    from prioris.models import FullText

    library.import_records([{"_id": "t", "title": "T", "text": "one two three four"}])
    counts = [r[0] for r in library.conn.execute("SELECT token_count FROM chunks")]
    assert counts and all(c > 0 for c in counts)
    work = library.get_work("t")
    html = FullText(format="html", content=b"<p>other copy</p>", markdown="# T\n\nother copy")
    result = library.pipeline.store(library.pipeline.prepare_fulltext(work, html))
    assert result.status == "ingested" and result.chunks == 0  # stored, not indexed again
    assert library.show("t")["markdown"] == "# T\n\none two three four"
    assert len(library.original("t")[1]) == 2


def test_a_library_that_fails_to_open_closes_what_it_opened(
    settings, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """An error while assembling (here: the vector index) used to leave the connection and
    the storage open, holding the file (and on PostgreSQL a pool) until the process ended."""
    import prioris.compose as compose_module
    from prioris.storage import chunks

    closed: list[str] = []
    real_open = compose_module.open_storage

    def tracking_open(location, cfg):  # type: ignore[no-untyped-def]
        storage = real_open(location, cfg)
        real_connect, real_close = storage.connect, storage.close

        def connect():  # type: ignore[no-untyped-def]
            conn = real_connect()
            real_conn_close = conn.close

            class Tracked:
                def __getattr__(self, name):  # type: ignore[no-untyped-def]
                    return getattr(conn, name)

                def close(self) -> None:
                    closed.append("conn")
                    real_conn_close()

            return Tracked()

        def close() -> None:
            closed.append("storage")
            real_close()

        storage.connect, storage.close = connect, close
        return storage

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise InvalidRequestError("the model does not fit the index")

    monkeypatch.setattr(compose_module, "open_storage", tracking_open)
    monkeypatch.setattr(chunks, "ensure_vector_index", broken)
    with pytest.raises(InvalidRequestError):
        Library.open(settings, embedder=FakeEmbedder())
    assert closed == ["conn", "storage"]


def test_ingest_file_takes_a_path_as_text_too(library: Library, tmp_path: Path) -> None:
    """A Python caller passing a str got AttributeError ('str' has no 'exists')."""
    pdf = make_text_pdf(tmp_path / "text.pdf", "Paths as text", ["Body text here. " * 30])
    result = library.ingest_file(str(pdf))
    assert result.status == "ingested" and result.path == str(pdf)
    with pytest.raises(NotFoundError):
        library.ingest_file(str(tmp_path / "missing.pdf"))
