"""The write of one prepared document: one ``BEGIN IMMEDIATE … COMMIT`` under the lock.

Everything one document changes (work, aliases, records, original bytes, Markdown, pages,
chunks, FTS rows, vectors, the work's own vector) is written in a single transaction, so
a crash leaves the whole document or none of it and a re-run skips bytes already stored.
The merge rules (identical bytes, a provider's record of stored bytes, a PDF whose ids
belong to another paper, a re-extraction) live here because they are decided inside it.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any

from prioris.embedding.base import Embedder
from prioris.ingest.citation_links import link_references_to, store_references
from prioris.ingest.embed import work_text
from prioris.ingest.prepared import IngestResult, Now, Prepared
from prioris.models import Work
from prioris.provenance import origin_of_source, record_of
from prioris.storage import chunks as chunk_store
from prioris.storage import documents as document_store
from prioris.storage import labels as label_store
from prioris.storage import records as record_store
from prioris.storage import work_vectors as work_vector_store
from prioris.storage import works as work_store
from prioris.storage.merged import apply_records

log = logging.getLogger("prioris.ingest.pipeline")  # the pipeline's name, as ``-v`` shows it


def _title_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


def titles_agree(a: str, b: str) -> bool:
    """Loose title match, used before merging a PDF into a work found through an alias."""
    wa, wb = _title_words(a), _title_words(b)
    if not wa or not wb:
        return False
    return len(wa & wb) / len(wa | wb) >= 0.5


class Writer:
    """Commits prepared documents through one connection, under the library's write lock."""

    def __init__(
        self,
        conn: Any,
        write_lock: AbstractContextManager[Any],
        embedder: Embedder,
        now: Now,
        ensure_chunks: Callable[[Prepared], None],
    ) -> None:
        self.conn = conn
        self.write_lock = write_lock
        self.embedder = embedder
        self.now = now
        self.ensure_chunks = ensure_chunks

    def already_stored(self, sha256: str) -> str | None:
        """The work that holds these bytes, if any."""
        with self.write_lock:
            return document_store.has_document(self.conn, sha256)

    def commit(self, item: Prepared) -> IngestResult:
        """Write one prepared document in a single transaction (under the write lock)."""
        started = time.perf_counter()
        with self.write_lock:
            result = self._commit(item)
        log.debug(
            "committed %s (%s) in %.3f s", result.id, result.status, time.perf_counter() - started
        )
        return result

    def _commit(self, item: Prepared) -> IngestResult:
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = self._write(item, self.now())
            if item.labels is not None:  # a JSONL record's collections and tags
                label_store.set_labels(conn, result.id, "import", **item.labels)
            self._keep_work_vector(result.id)  # a merged title or abstract dropped it
            if result.status != "skipped":
                link_references_to(conn, result.id)  # the library's references to it
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return result

    def _write(self, item: Prepared, now: str) -> IngestResult:
        """Everything one document changes, inside ``_commit``'s transaction."""
        conn = self.conn
        if item.document is not None:
            owner = document_store.has_document(conn, item.document.sha256)
            if owner is not None and item.replace:
                return self._replace_parse(item, owner, now)
            if owner is not None:
                if item.work.source != "file":  # a provider's record of the same bytes
                    known = replace(item.work, id=owner, aliases=[item.work.id, *item.work.aliases])
                    work_store.upsert_work(conn, known, now)
                    self._merged(owner, replace(item, work=known), now)  # kept and merged
                return IngestResult(
                    id=owner,
                    path=item.result.path,
                    status="skipped",
                    reason="identical bytes already stored",
                )
        work = item.work
        if work.source == "file":
            existing = work_store.find_work_id(conn, work.aliases)
            stored = work_store.get_work(conn, existing) if existing else None
            if stored is not None and not self._same_paper(stored, work.title):
                work.aliases = []  # ids in the text belong to another paper: do not merge
        elif work_store.find_work_id(conn, [work.id]) is None:
            work.aliases = self._own_entry(work)
        work_id = work_store.upsert_work(conn, work, now)
        stored_work, has_full_text = self._merged(work_id, item, now)
        if item.document is not None:
            item.document.work_id = work_id
            document_store.add_document(conn, item.document, item.content, now)
        # full text already indexed stays; a further copy is only stored
        chunk_count = 0 if has_full_text else self._index(item, stored_work, now)
        result = item.result
        result.id = work_id
        result.chunks = chunk_count
        return result

    def _own_entry(self, work: Work) -> list[str]:
        """A new work of a reference manager's entry keeps the ids its PDF printed unless
        they name another entry of the same manager (``bibtex:other``): two entries the
        user wrote are two works, even when one's attached PDF prints the other's DOI."""
        own = f"{work.source}:"
        existing = work_store.find_work_id(self.conn, work.aliases)
        stored = work_store.get_work(self.conn, existing) if existing else None
        if stored is None or not any(
            a.startswith(own) and a != work.id for a in [stored.id, *stored.aliases]
        ):
            return work.aliases
        return [a for a in work.aliases if a.startswith(own)]

    def _same_paper(self, stored: Work, title: str) -> bool:
        """Whether a PDF's title is the stored work's: its title, or one its sources gave
        (a title the user corrected no longer looks like the printed one)."""
        titles = [stored.title]
        titles += [
            str(r.get("title") or "")
            for r in record_store.records_of(self.conn, stored.id).values()
        ]
        return any(titles_agree(t, title) for t in titles if t)

    def _merged(self, work_id: str, item: Prepared, now: str) -> tuple[Work, str | None]:
        """After the upsert: save what the source printed (a new parse's records replace the
        old), merge the work's records into its fields (:mod:`prioris.provenance`: the
        user's corrections win over everything), and return the stored work with the hash
        of its indexed Markdown (if any)."""
        records = dict(item.records)
        origin = origin_of_source(item.work.source)
        if item.work.source != "file" and origin not in records:  # a fetched or imported
            records[origin] = record_of(item.work)  # record: kept beside what its PDF printed
        if records:
            record_store.save_records(self.conn, work_id, records, now)
        work = apply_records(self.conn, work_id, now)  # the merge by provenance
        indexed = self.conn.execute(
            "SELECT markdown_sha256 FROM works WHERE id = ?", (work_id,)
        ).fetchone()[0]
        return work, indexed

    def _replace_parse(self, item: Prepared, owner: str, now: str) -> IngestResult:
        """Stored bytes parsed again: the document row takes the new parse, and the work's
        text, pages, chunks and vectors are rebuilt from it when it is the indexed text.
        Metadata merges as on any ingest (stored values kept, gaps filled)."""
        assert item.document is not None
        conn = self.conn
        document_store.update_parse(conn, item.document)
        work_store.upsert_work(conn, replace(item.work, id=owner), now)
        work, indexed = self._merged(owner, item, now)
        chunk_count = 0
        if indexed in (None, item.document.sha256):
            chunk_count = self._index(item, work, now)
        result = item.result
        result.id, result.chunks, result.reason = owner, chunk_count, "re-extracted"
        return result

    def _index(self, item: Prepared, work: Work, now: str) -> int:
        """Make ``item``'s Markdown the work's indexed text: pages, chunks, FTS, vectors."""
        conn = self.conn
        self.ensure_chunks(item)  # stored when prepared, deleted since: it is indexed after all
        chunk_store.delete_chunks_of(conn, work.id, keep_notes=True)  # the user's stay
        sha = item.document.sha256 if item.document else None
        work_store.set_markdown(conn, work.id, item.markdown, sha, now)
        chunk_store.replace_pages(conn, work.id, item.pages)
        for chunk in item.chunks:
            chunk.work_id = work.id
        ids = chunk_store.insert_chunks(conn, item.chunks, work.title)
        if ids and item.vectors is not None:
            chunk_store.insert_vectors(
                conn,
                ids,
                item.vectors,
                self.embedder.model_id,
                work_ids=[work.id] * len(ids),
                sources=[work.source] * len(ids),
                years=[work.year] * len(ids),
            )
            self._store_work_vector(item, work)
        store_references(conn, work.id, item.markdown)  # its reference list, linked
        return len(ids)

    def _keep_work_vector(self, work_id: str) -> None:
        """A work with chunks but no vector of its own (a merged title or abstract dropped
        it: the trigger) gets one for its new text, in the same transaction; one indexed
        read when it has one."""
        model = self.embedder.model_id
        for _, title, abstract, head in work_vector_store.missing(
            self.conn, model, 1, work_ids=[work_id]
        ):
            vector = self.embedder.embed_passages([work_text(title, abstract, head)])[0]
            work_vector_store.store(self.conn, work_id, vector, model)

    def _store_work_vector(self, item: Prepared, work: Work) -> None:
        """The work's own vector, from the text it has now that it is merged: the one
        embedded with the chunks when the text is the same, else embedded here."""
        text = work_text(work.title, work.abstract, item.markdown)
        vector = item.work_vector
        if vector is None or text != item.work_text:
            vector = self.embedder.embed_passages([text])[0]
        work_vector_store.store(self.conn, work.id, vector, self.embedder.model_id)

    def index_stored(self, item: Prepared) -> int:
        """Index a work's text again from a document it still stores (after its Markdown
        was deleted), its chunks embedded: pages, chunks, FTS rows and vectors; no bytes."""
        with self.write_lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                count = self._index(item, item.work, self.now())
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        return count

    def replace_text(self, item: Prepared, *, fields: bool, text: bool) -> int:
        """A stored work's cleaned text and fields (``prioris reindex --clean-text``), in
        one transaction: its bibliographic fields when ``fields``, its Markdown, pages,
        chunks and vectors when ``text`` (``item`` embedded). Returns the chunks written."""
        with self.write_lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                now = self.now()
                if fields:
                    work_store.replace_fields(self.conn, item.work, now)
                count = self._index(item, item.work, now) if text else 0
                self._keep_work_vector(item.work.id)  # a cleaned title or abstract dropped it
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        return count
