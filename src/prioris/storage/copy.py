"""Copying a library to another backend (``prioris migrate-to``), vectors included.

Works are copied in batches, each batch in one transaction of the target with
everything that belongs to its works: aliases, blobs and documents, pages, per-source
records, the edit history (numbered by the target, in the same order, so undo takes the
same edit back), collections and tags, the researcher's notes, what reference-manager
syncs saw of them, their reference lists (linked in a last pass, once every work
is there), chunks (their ids kept, so nothing needs renumbering) with their full-text
rows, and their vectors as stored (no re-embedding); then OpenAlex's cached answers and
the day counts of its requests. A work already in the
target is skipped, so a copy that was stopped resumes where it stopped when run again.
The snowball candidates the user dismissed, the collections made in Prioris and the
alerts (with their last results and triage) go over too. The target must be new, or a
copy of the same source: a library holding other works is refused, since kept chunk ids
could collide with its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from prioris.errors import ConfigurationError, InvalidRequestError
from prioris.storage import alerts as alert_store
from prioris.storage import openalex_cache, user_labels
from prioris.storage import work_vectors as work_vector_store
from prioris.storage.backend import StorageBackend, index_of
from prioris.storage.chunks import ensure_vector_index, get_state, set_state

BATCH_WORKS = 200
WORK_COLUMNS = (
    "id, title, authors, year, venue, abstract, source, published, type, is_oa, oa_status, "
    "pdf_url, cited_by_count, concepts, is_preprint, extra, markdown, markdown_sha256, "
    "created_at, updated_at, markdown_format, volume, issue, pages, publisher, keywords, origins"
)
CHUNK_COLUMNS = (
    "id, work_id, ordinal, text, page_start, page_end, char_start, char_end, heading, "
    "token_count, embedding_model, section"
)
NOTE_COLUMNS = "work_id, source, note_key, kind, text, comment, color, page_label, page"
SYNC_COLUMNS = "scope, item_key, work_id, fingerprint, files, synced_at"
DISMISSED_COLUMNS = "key, title, dismissed_at"
REFERENCE_COLUMNS = "work_id, ordinal, raw, authors, title, year, venue, doi, arxiv, url"
SOURCE_KEY = "copied_from"


@dataclass
class CopyReport:
    works: int = 0  # copied by this run
    skipped: int = 0  # already in the target (an earlier, stopped run)
    chunks: int = 0
    vectors: int = 0

    def to_dict(self) -> dict[str, int]:
        return {
            "works": self.works,
            "skipped": self.skipped,
            "chunks": self.chunks,
            "vectors": self.vectors,
        }


def copy_library(
    source: StorageBackend,
    target: StorageBackend,
    *,
    batch: int = BATCH_WORKS,
    on_progress: Callable[[int, int], None] | None = None,
) -> CopyReport:
    """Copy every work of ``source`` into ``target``; resumable (see the module text)."""
    if source.kind == target.kind and source.location == target.location:
        raise InvalidRequestError("the target is the library itself")
    src = source.connect()
    dst = target.connect()
    try:
        return _copy(src, dst, source.location, batch, on_progress)
    finally:
        src.close()
        dst.close()


def _copy(
    src: Any,
    dst: Any,
    origin: str,
    batch: int,
    on_progress: Callable[[int, int], None] | None,
) -> CopyReport:
    stored_from = get_state(dst, SOURCE_KEY)
    has_works = dst.execute("SELECT count(*) FROM works").fetchone()[0]
    if has_works and stored_from != origin:
        raise ConfigurationError(
            "the target library already holds works of its own; copy into a new library "
            "(an empty database or a new file)"
        )
    model, dim = get_state(src, "embedding_model"), get_state(src, "embedding_dim")
    if model and dim:
        ensure_vector_index(dst, model, int(dim))
    dst.execute("BEGIN IMMEDIATE")
    set_state(dst, SOURCE_KEY, origin)
    index_of(dst).before_copy(dst)
    dst.execute("COMMIT")
    ids = [r[0] for r in src.execute("SELECT id FROM works ORDER BY id")]
    if has_works:  # resuming: the target must hold nothing but this source's works
        known = set(ids)
        foreign = [r[0] for r in dst.execute("SELECT id FROM works") if r[0] not in known]
        if foreign:
            raise ConfigurationError(
                f"the target library has gained {len(foreign)} work(s) of its own since the "
                f"copy stopped (e.g. {foreign[0]!r}), so the copy cannot resume into it; copy "
                "into a new library (an empty database or a new file)"
            )
    report = CopyReport()
    for start in range(0, len(ids), batch):
        group = ids[start : start + batch]
        present = {r[0] for r in dst.execute(_select_in("SELECT id FROM works", group), group)}
        todo = [i for i in group if i not in present]
        report.skipped += len(present)
        if todo:
            _copy_works(src, dst, todo, report)
        if on_progress:
            on_progress(min(start + batch, len(ids)), len(ids))
    # what a sync saw of items that have no work (they failed): the next sync retries them
    orphans = [
        tuple(r)
        for r in src.execute(f"SELECT {SYNC_COLUMNS} FROM refsync_items WHERE work_id IS NULL")
    ]
    dst.execute("BEGIN IMMEDIATE")
    marks = ", ".join("?" for _ in SYNC_COLUMNS.split(","))
    dst.executemany(
        f"INSERT INTO refsync_items({SYNC_COLUMNS}) VALUES ({marks}) ON CONFLICT DO NOTHING",
        orphans,
    )
    openalex_cache.copy_rows(src, dst)  # the day's OpenAlex count and its cached answers
    _copy_dismissed(src, dst)
    user_labels.copy_rows(src, dst)  # the collections made in Prioris, empty ones too
    alert_store.copy_rows(src, dst)  # the alerts, their last results and triage
    _copy_reference_links(src, dst)
    index_of(dst).after_copy(dst)
    dst.execute("COMMIT")
    return report


def _copy_dismissed(src: Any, dst: Any) -> None:
    """The snowball candidates the user dismissed (they name no work of the library, so
    they go over whole, inside the caller's transaction; a resumed copy adds none twice)."""
    rows = [tuple(r) for r in src.execute(f"SELECT {DISMISSED_COLUMNS} FROM snowball_dismissed")]
    dst.executemany(
        f"INSERT INTO snowball_dismissed({DISMISSED_COLUMNS}) VALUES (?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        rows,
    )


def _copy_reference_links(src: Any, dst: Any) -> None:
    """The citation graph, once every work is in the target: each reference is copied with
    its work (unlinked, since the work it cites may come in a later batch), and its link
    is set here, by (work, ordinal)."""
    links = [
        (r[2], r[3], r[4], r[0], r[1])
        for r in src.execute(
            "SELECT work_id, ordinal, cited_work_id, link_method, link_score "
            "FROM work_references WHERE cited_work_id IS NOT NULL"
        )
    ]
    dst.executemany(
        "UPDATE work_references SET cited_work_id = ?, link_method = ?, link_score = ? "
        "WHERE work_id = ? AND ordinal = ?",
        links,
    )


def _select_in(head: str, values: Sequence[Any], column: str = "id") -> str:
    marks = ", ".join("?" for _ in values) or "NULL"
    return f"{head} WHERE {column} IN ({marks})"


def _rows(src: Any, sql: str, values: Sequence[Any], column: str = "work_id") -> list[Any]:
    return [tuple(r) for r in src.execute(_select_in(sql, values, column), list(values))]


def _copy_works(src: Any, dst: Any, work_ids: list[str], report: CopyReport) -> None:
    works = _rows(src, f"SELECT {WORK_COLUMNS} FROM works", work_ids, "id")
    aliases = _rows(src, "SELECT alias, work_id FROM aliases", work_ids)
    documents = _rows(
        src,
        "SELECT sha256, work_id, format, size_bytes, page_count, ocr_pages, parser_version, "
        "path, url, created_at FROM documents",
        work_ids,
    )
    pages = _rows(src, "SELECT work_id, number, char_start, char_end, ocr FROM pages", work_ids)
    records = _rows(src, "SELECT work_id, origin, record, recorded_at FROM work_records", work_ids)
    edits = sorted(  # oldest first, so the target numbers them in the same order
        _rows(src, "SELECT id, work_id, edited_at, changes, before FROM work_edits", work_ids)
    )
    notes = sorted(_rows(src, f"SELECT id, {NOTE_COLUMNS} FROM work_notes", work_ids))
    synced = _rows(src, f"SELECT {SYNC_COLUMNS} FROM refsync_items", work_ids)
    collections = _rows(src, "SELECT work_id, source, path FROM work_collections", work_ids)
    tags = _rows(src, "SELECT work_id, source, tag FROM work_tags", work_ids)
    read_text = index_of(src).read_text  # a damaged passage: an error naming its work
    chunks = [
        (*c[:3], read_text(c[3], c[1]), *c[4:])
        for c in _rows(src, f"SELECT {CHUNK_COLUMNS} FROM chunks", work_ids)
    ]
    references = _rows(src, f"SELECT {REFERENCE_COLUMNS} FROM work_references", work_ids)
    titles = {w[0]: w[1] for w in works}
    vectors = index_of(src).read_vectors(src, [c[0] for c in chunks])
    work_vectors = work_vector_store.read_rows(src, work_ids)
    dst.execute("BEGIN IMMEDIATE")
    try:
        marks = ", ".join("?" for _ in WORK_COLUMNS.split(","))
        dst.executemany(f"INSERT INTO works ({WORK_COLUMNS}) VALUES ({marks})", works)
        dst.executemany(
            "INSERT INTO aliases(alias, work_id) VALUES (?, ?) ON CONFLICT DO NOTHING", aliases
        )
        for doc in documents:
            blob = src.execute("SELECT size_bytes, content FROM blobs WHERE sha256 = ?", (doc[0],))
            size, content = blob.fetchone()
            dst.execute(
                "INSERT INTO blobs(sha256, size_bytes, content) VALUES (?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                (doc[0], size, bytes(content)),
            )
        dst.executemany(
            "INSERT INTO documents(sha256, work_id, format, size_bytes, page_count, ocr_pages, "
            "parser_version, path, url, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            documents,
        )
        dst.executemany(
            "INSERT INTO pages(work_id, number, char_start, char_end, ocr) VALUES (?, ?, ?, ?, ?)",
            pages,
        )
        dst.executemany(
            "INSERT INTO work_records(work_id, origin, record, recorded_at) VALUES (?, ?, ?, ?)",
            records,
        )
        dst.executemany(
            "INSERT INTO work_edits(work_id, edited_at, changes, before) VALUES (?, ?, ?, ?)",
            [e[1:] for e in edits],
        )
        marks = ", ".join("?" for _ in NOTE_COLUMNS.split(","))
        dst.executemany(
            f"INSERT INTO work_notes({NOTE_COLUMNS}) VALUES ({marks})", [n[1:] for n in notes]
        )
        marks = ", ".join("?" for _ in SYNC_COLUMNS.split(","))
        dst.executemany(
            f"INSERT INTO refsync_items({SYNC_COLUMNS}) VALUES ({marks}) ON CONFLICT DO NOTHING",
            synced,
        )
        dst.executemany(
            "INSERT INTO work_collections(work_id, source, path) VALUES (?, ?, ?)", collections
        )
        dst.executemany("INSERT INTO work_tags(work_id, source, tag) VALUES (?, ?, ?)", tags)
        marks = ", ".join("?" for _ in REFERENCE_COLUMNS.split(","))
        dst.executemany(
            f"INSERT INTO work_references({REFERENCE_COLUMNS}) VALUES ({marks})", references
        )
        marks = ", ".join("?" for _ in CHUNK_COLUMNS.split(","))
        pack = index_of(dst).pack_text
        dst.executemany(
            f"INSERT INTO chunks ({CHUNK_COLUMNS}) VALUES ({marks})",
            [(*c[:3], pack(c[3]), *c[4:]) for c in chunks],
        )
        index_of(dst).index_copied_chunks(
            dst, [(c[0], c[3], titles.get(c[1], ""), c[8]) for c in chunks]
        )
        kept = [c[0] for c in chunks if c[0] in vectors]
        if kept:
            import numpy as np

            index_of(dst).store_vectors(
                dst,
                kept,
                np.stack([vectors[c][0] for c in kept]),
                work_ids=[vectors[c][1] for c in kept],
                sources=[vectors[c][2] for c in kept],
                years=[vectors[c][3] for c in kept],
            )
        work_vector_store.insert_rows(dst, work_vectors)
        if chunks:
            from prioris.storage.chunks import bump_vectors_version

            bump_vectors_version(dst)
        dst.execute("COMMIT")
    except BaseException:
        dst.execute("ROLLBACK")
        raise
    report.works += len(works)
    report.chunks += len(chunks)
    report.vectors += len(kept)
