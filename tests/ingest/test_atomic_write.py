"""One document's write is all or nothing: faults injected at every step of it.

The storage functions the pipeline calls are wrapped so that, at a chosen step (after the
work row, after the document row and its bytes, after the Markdown, in the middle of the
chunk and FTS rows, after the vectors), either an exception is raised or the process
kills itself with SIGKILL. Afterwards every table of the file (works, aliases, documents,
blobs, pages, chunks, the FTS5 and vec0 tables and their shadow tables, index state) must
be exactly as before the write, ``PRAGMA integrity_check`` must pass, and the library must
accept the same document again, whole.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.engines.sqlite.connection import connect
from prioris.library import Library
from prioris.models import Page, Work
from prioris.storage import chunks as chunk_store
from prioris.storage import documents as document_store
from prioris.storage import works as work_store

from conftest import FakeOcr
from pdf_factory import make_text_pdf


class InjectedFault(Exception):
    """The fault a test plants inside the write."""


def _after(module: Any, name: str, fault: Callable[[], None]) -> Callable[..., Any]:
    """``module.name`` that does its work, then faults."""
    real = getattr(module, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)
        fault()

    return wrapped


def _half_of_the_chunks(fault: Callable[[], None]) -> Callable[..., Any]:
    """``insert_chunks`` that writes the first half of the chunk and FTS rows, then faults."""
    real = chunk_store.insert_chunks

    def wrapped(conn: Any, chunks: Any, title: str) -> list[int]:
        assert len(chunks) >= 2, "the document must have several chunks"
        real(conn, chunks[: len(chunks) // 2], title)
        fault()
        raise AssertionError("unreachable")

    return wrapped


# step -> (module, attribute, wrapper factory)
STEPS: dict[str, tuple[Any, str, Callable[[Callable[[], None]], Callable[..., Any]]]] = {
    "after the work row": (
        work_store,
        "upsert_work",
        lambda f: _after(work_store, "upsert_work", f),
    ),
    "after the document and its bytes": (
        document_store,
        "add_document",
        lambda f: _after(document_store, "add_document", f),
    ),
    "after the markdown": (
        work_store,
        "set_markdown",
        lambda f: _after(work_store, "set_markdown", f),
    ),
    "after the pages": (
        chunk_store,
        "replace_pages",
        lambda f: _after(chunk_store, "replace_pages", f),
    ),
    "halfway through the chunks and FTS rows": (chunk_store, "insert_chunks", _half_of_the_chunks),
    "after the vectors": (
        chunk_store,
        "insert_vectors",
        lambda f: _after(chunk_store, "insert_vectors", f),
    ),
}


def _raise() -> None:
    raise InjectedFault("planted")


def _kill() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def snapshot(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (virtual and shadow tables too), blobs as digests."""
    conn = connect(db, migrate=False)
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        dump: dict[str, list[tuple[Any, ...]]] = {}
        for name in names:
            rows = conn.execute(f'SELECT * FROM "{name}"').fetchall()
            dump[name] = sorted(
                (
                    tuple(
                        hashlib.sha256(v).hexdigest() if isinstance(v, bytes) else v
                        for v in tuple(row)
                    )
                    for row in rows
                ),
                key=repr,
            )
        return dump
    finally:
        conn.close()


def integrity(db: Path) -> tuple[str, int]:
    conn = connect(db, migrate=False)
    try:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")
        vec_rows = conn.execute("SELECT count(*) FROM chunks_vec").fetchone()[0]
        chunk_rows = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        assert vec_rows == chunk_rows
        return check, chunk_rows
    finally:
        conn.close()


def open_library() -> Library:
    return Library.open(load_settings(), embedder=FakeEmbedder(), ocr=FakeOcr())


@pytest.fixture
def pdf(tmp_path: Path) -> Path:
    body = "Tidal marshes store carbon in waterlogged sediment for centuries. " * 60
    return make_text_pdf(tmp_path / "marsh.pdf", "Blue carbon in tidal marshes", [body] * 3)


@pytest.fixture
def db() -> Iterator[Path]:
    """A library that already holds one other work (so 'nothing' is not an empty file)."""
    library = open_library()
    library.import_records([{"_id": "other", "title": "Other", "text": "unrelated words"}])
    library.close()
    yield load_settings().db_path


class Recorder:
    """The pipeline's connection, with every statement recorded."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self.statements: list[str] = []

    def execute(self, sql: str, *args: Any) -> Any:
        self.statements.append(sql.strip().split()[0].upper())
        return self._conn.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        self.statements.append(sql.strip().split()[0].upper())
        return self._conn.executemany(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def _ingest_whole_and_check(db: Path, pdf: Path) -> None:
    library = open_library()
    try:
        result = library.ingest_file(pdf)
        assert result.status == "ingested" and result.pages == 3 and result.chunks >= 2
        work = result.id
        assert library.show(work)["total_pages"] == 3
        hits = library.search("waterlogged sediment", mode="hybrid", k=5).hits
        assert hits[0].id == work
    finally:
        library.close()
    assert integrity(db)[0] == "ok"


@pytest.mark.parametrize("step", list(STEPS))
def test_an_exception_inside_the_write_leaves_nothing(
    step: str, db: Path, pdf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(db)
    library = open_library()
    recorder = Recorder(library.pipeline.conn)
    library.pipeline.conn = recorder
    module, name, factory = STEPS[step]
    with monkeypatch.context() as patch:
        patch.setattr(module, name, factory(_raise))
        with pytest.raises(InjectedFault):
            library.ingest_file(pdf)
    assert recorder.statements.count("BEGIN") == 1
    assert recorder.statements[-1] == "ROLLBACK" and "COMMIT" not in recorder.statements
    assert not library.conn.in_transaction
    library.close()
    assert snapshot(db) == before
    assert integrity(db)[0] == "ok"
    _ingest_whole_and_check(db, pdf)


def test_a_failed_reindex_of_a_stored_work_keeps_its_old_text(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replacing a work's indexed text (abstract -> full text) fails whole, old text kept."""
    library = open_library()
    pipeline = library.pipeline
    work = Work(id="europepmc:PMC7", title="Seagrass meadows", abstract="Seagrass abstract.")
    pipeline.store(pipeline.prepare_metadata_only(work))
    library.close()
    before = snapshot(db)
    library = open_library()
    pipeline = library.pipeline
    text = "\n\n".join(f"## Part {i}\n\n" + "Seagrass roots trap sediment. " * 80 for i in range(4))
    prepared = pipeline.prepare_pages(work, [Page(1, text)])
    assert len(prepared.chunks) >= 2
    with monkeypatch.context() as patch:
        patch.setattr(chunk_store, "insert_chunks", _half_of_the_chunks(_raise))
        with pytest.raises(InjectedFault):
            pipeline.store(prepared)
    library.close()
    assert snapshot(db) == before
    library = open_library()
    try:
        assert (
            library.show("PMC7")["markdown"]
            == "# Seagrass meadows\n\n## Abstract\n\nSeagrass abstract."
        )
        assert library.search("seagrass abstract", mode="fts").hits[0].id == "europepmc:PMC7"
    finally:
        library.close()


def _child(step: str | None, pdf: str, data_dir: str) -> None:
    """In a forked process: plant a SIGKILL at ``step`` (or after the commit) and ingest."""
    os.environ["PRIORIS_MCP_DATA_DIR"] = data_dir
    if step is not None:
        module, name, factory = STEPS[step]
        setattr(module, name, factory(_kill))
    library = open_library()
    library.ingest_file(Path(pdf))
    if step is None:
        _kill()  # committed: the kill comes after the whole document is in
    os._exit(3)  # unreachable when the kill fired


def _killed_child(step: str | None, pdf: Path, data_dir: Path) -> None:
    process = multiprocessing.get_context("fork").Process(
        target=_child, args=(step, str(pdf), str(data_dir))
    )
    process.start()
    process.join(timeout=120)
    assert process.exitcode == -signal.SIGKILL, f"the child ended with {process.exitcode}"


@pytest.mark.parametrize(
    "step",
    [
        "after the work row",
        "after the document and its bytes",
        "halfway through the chunks and FTS rows",
        "after the vectors",
    ],
)
def test_kill_minus_nine_inside_the_write_leaves_nothing(
    step: str, db: Path, pdf: Path, data_dir: Path
) -> None:
    before = snapshot(db)
    _killed_child(step, pdf, data_dir)
    assert integrity(db)[0] == "ok"  # opening recovers the WAL
    assert snapshot(db) == before
    _ingest_whole_and_check(db, pdf)


def test_kill_minus_nine_after_the_commit_leaves_the_whole_document(
    db: Path, pdf: Path, data_dir: Path
) -> None:
    before = snapshot(db)
    _killed_child(None, pdf, data_dir)
    check, chunk_rows = integrity(db)
    assert check == "ok"
    after = snapshot(db)
    assert len(after["works"]) == len(before["works"]) + 1
    assert len(after["documents"]) == len(after["blobs"]) == len(before["documents"]) + 1
    assert len(after["pages"]) == len(before["pages"]) + 3
    assert chunk_rows > len(before["chunks"]) + 1
    library = open_library()
    try:
        assert library.ingest_file(pdf).status == "skipped"
        assert library.search("waterlogged", mode="vector", k=1).hits[0].title.startswith("Blue")
    finally:
        library.close()


def test_a_failed_model_switch_leaves_the_old_vector_index(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recreating the vector index for a new model is one transaction too."""
    before = snapshot(db)
    with monkeypatch.context() as patch:
        patch.setattr(chunk_store, "set_state", _after(chunk_store, "set_state", _raise))
        with pytest.raises(InjectedFault):
            Library.open(load_settings(), embedder=FakeEmbedder(dim=32, model_id="fake/other"))
    assert snapshot(db) == before
    library = open_library()  # the old model still finds its vectors
    try:
        assert library.stale_on_open == 0 and library.status()["stale_chunks"] == 0
        assert library.search("unrelated words", mode="vector").hits[0].id == "other"
    finally:
        library.close()
