"""Applying a sync to the library: an item's record, aliases, labels and notes written,
its state row saved, a gone item's work removed or detached; each its own transaction.

The write half of a sync, separate from deciding what to write (:mod:`.plan`) and from
the file ingest (:mod:`.files`, which goes through the ingest pipeline): every function
here takes the library's lock and opens one ``BEGIN IMMEDIATE`` transaction, and the
state row is written last (:func:`save_state`), so a sync killed at any point redoes only
the items it had not finished.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from prioris.ingest.pipeline import IngestPipeline
from prioris.models import Work
from prioris.provenance import LIST_FIELDS, fields_of
from prioris.refman.items import RefItem
from prioris.services.refsync.items import origin_record, work_of
from prioris.services.refsync.plan import holding_work, new_work_id
from prioris.services.refsync.report import SyncReport
from prioris.storage import documents as document_store
from prioris.storage import labels as label_store
from prioris.storage import notes as note_store
from prioris.storage import records as record_store
from prioris.storage import refsync as sync_store
from prioris.storage import works as work_store
from prioris.storage.merged import apply_records
from prioris.storage.transaction import immediate


def store_item(
    conn: Any,
    lock: threading.RLock,
    pipeline: IngestPipeline,
    now: Callable[[], str],
    item: RefItem,
    work_id: str,
) -> None:
    """The item's record, aliases, labels and notes on its work (one transaction), and
    the work's title and abstract as its text when it has no document."""
    embedder = pipeline.embedder
    with lock:
        row = conn.execute("SELECT markdown FROM works WHERE id = ?", (work_id,)).fetchone()
    if row is None or not row[0]:  # no file made it (the work new, or only pinned):
        # a work of metadata, its title and abstract indexed
        prepared = pipeline.prepare_metadata_only(work_of(item, work_id))
        prepared.records[item.source] = origin_record(item)
        work_id = pipeline.store(prepared).id
    with lock, immediate(conn):
        stamp = now()
        work_store.upsert_work(conn, work_of(item, work_id), stamp)
        record_store.save_records(conn, work_id, {item.source: origin_record(item)}, stamp)
        apply_records(conn, work_id, stamp)
        label_store.set_labels(
            conn,
            work_id,
            item.source,
            collections=list(item.collections),
            tags=list(item.tags),
        )
        note_store.replace_notes(
            conn,
            work_id,
            item.source,
            [
                note_store.StoredNote(
                    n.key, n.kind, n.text, n.comment, n.color, n.page_label, n.page
                )
                for n in item.notes
            ],
            embed=lambda texts: embedder.embed_passages(texts),
            model_id=embedder.model_id,
        )
        text_sha = conn.execute(
            "SELECT markdown_sha256 FROM works WHERE id = ?", (work_id,)
        ).fetchone()[0]
        merged = work_store.get_work(conn, work_id)
    if text_sha is None and merged is not None:
        # metadata only: what search sees is the merged title and abstract (re-indexed
        # when they changed; no record is written here)
        prepared = pipeline.prepare_metadata_only(merged)
        with lock:
            row = conn.execute("SELECT markdown FROM works WHERE id = ?", (work_id,)).fetchone()
        stored = row[0]
        if prepared.markdown != stored:
            pipeline.index_stored(prepared)


def pin_work(
    conn: Any,
    lock: threading.RLock,
    now: Callable[[], str],
    item: RefItem,
) -> tuple[str, bool, dict[str, str] | None, list[dict[str, str]]]:
    """Create a new item's work under its own id before anything else is written, so that
    every later write finds it by that id first: neither an identifier its PDF prints nor
    one its record shares with another work can then carry the item into another paper's
    work. Decided inside one transaction, so two syncs at once make one work.

    Returns ``(work_id, created, claimed, taken)``: ``created`` False when a work holding
    the item appeared meanwhile (another sync: the item joins it); ``claimed`` as
    :func:`~.plan.holding_work` says; ``taken``, the aliases another work owns (left with
    it, ``[{"alias", "owner"}]``) for the report."""
    with lock, immediate(conn):
        found, claimed = holding_work(conn, item, None)
        if found is not None:
            return found, False, None, []
        work_id = new_work_id(conn, item)
        work = work_of(item, work_id)
        taken = work_store.alias_conflicts(conn, work_id, work.aliases)
        owned = {t["alias"] for t in taken}
        work.aliases = [a for a in work.aliases if a not in owned]
        work_store.upsert_work(conn, work, now())  # found by nothing but its own names
    return work_id, True, claimed, taken


def save_state(
    conn: Any,
    lock: threading.RLock,
    now: Callable[[], str],
    state: sync_store.SyncedItem,
) -> None:
    """Record an item as stored (its own transaction, after everything else of it)."""
    with lock, immediate(conn):
        sync_store.save_item(conn, state, now())


def remove_item(
    conn: Any,
    lock: threading.RLock,
    pipeline: IngestPipeline,
    now: Callable[[], str],
    state: sync_store.SyncedItem,
    report: SyncReport,
) -> None:
    """An item that is gone: its work goes when nothing else gave it anything, else the
    work stays without what this item gave it."""
    source = state.scope.split(":", 1)[0]
    with lock, immediate(conn):
        work_id = state.work_id
        work = work_store.get_work(conn, work_id) if work_id else None
        sync_store.forget_item(conn, state.scope, state.key)
        if work is None:
            report.removed += 1
            return
        assert work_id is not None
        mine = {
            str(e["sha256"])
            for e in state.files.values()
            if e.get("sha256") and not e.get("held_by")  # a file another work holds
        }
        if only_from(conn, work_id, source, mine):
            work_store.delete_work(conn, work_id)
            report.removed += 1
            return
        others = sync_store.scopes_of_work(conn, work_id)
        if not any(scope.split(":", 1)[0] == source for scope, _ in others):
            conn.execute(
                "DELETE FROM work_records WHERE work_id = ? AND origin = ?", (work_id, source)
            )
            label_store.remove_labels(conn, work_id, source)
            conn.execute(
                "DELETE FROM work_notes WHERE work_id = ? AND source = ?", (work_id, source)
            )
            embedder = pipeline.embedder
            note_store.reindex_note_passages(
                conn,
                work_id,
                embed=lambda texts: embedder.embed_passages(texts),
                model_id=embedder.model_id,
            )
        conn.execute(
            "DELETE FROM aliases WHERE alias = ? AND work_id = ?",
            (f"{source}:{state.key}", work_id),
        )
        base, base_origins = without_source(work, source)
        apply_records(conn, work_id, now(), base=base, base_origins=base_origins)
        report.removed += 1
        report.kept.append({"key": state.key, "id": work_id})


def without_source(work: Work, source: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The work's stored fields and origins without what ``source`` gave it: the base a
    kept work is merged again on once that source's record is gone.

    The merge takes a field no record has from the stored row, so the manager's venue or
    year stayed after its item was trashed. A field whose origin was ``source`` is cleared
    here instead and the records left fill it; only the title stays (a work has one)
    when no record left gives another.
    """
    base = fields_of(work)
    origins = dict(work.origins)
    for name, origin in work.origins.items():
        if origin != source or name not in base:
            continue
        del origins[name]
        if name != "title":
            base[name] = [] if name in LIST_FIELDS else None
    return base, origins


def only_from(conn: Any, work_id: str, source: str, mine: set[str]) -> bool:
    """Whether everything a work has came from this one item: no record origin but the
    manager's and its PDFs' (printed, PDF metadata; a user's edit keeps the work), no
    document but the ones this item's sync ingested (``mine``), no other synced item, no
    collection or tag the user gave it in Prioris."""
    origins = set(record_store.records_of(conn, work_id))
    if origins - {source, "printed", "pdf_metadata"}:
        return False
    if label_store.has_labels_from(conn, work_id, "user"):
        return False  # the user put it in a collection or tagged it in Prioris: it stays
    if sync_store.scopes_of_work(conn, work_id):
        return False  # this item's row is forgotten: any left is another item's
    documents = {d.sha256 for d in document_store.documents_of(conn, work_id)}
    return documents <= mine
