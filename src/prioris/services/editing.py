"""Editing a work's record: the user's corrections, their history and undo.

A correction is kept as the work's ``user`` record in ``work_records`` (the fields the
user set; a cleared field as ``null``), and the ``works`` row is merged again from all its
records by :mod:`prioris.provenance`, where ``user`` ranks first. That is why an edit
survives re-ingest, ``ingest --force``, ``enrich``, ``reindex`` and ``migrate-to``: each of
them merges the records again, and the user's record is one of them.

Every edit adds a row to the edit history (``work_edits``) with the state before it, so
:meth:`Editor.undo_edit` restores it (newest first, repeatable). An edit and an undo are one
transaction each: the record, the merged row, the aliases, the history row, the
full-text copy of the title (a trigger), the vectors' copy of the year, and the work's own
vector when its title or abstract changed (embedded in the same transaction).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any

from prioris.embedding.base import Embedder
from prioris.errors import InvalidRequestError, NotFoundError
from prioris.ingest.embed import work_text
from prioris.models import Work
from prioris.provenance import FIELDS, ID_FIELDS, USER, alias_of, fields_of, validate_patch
from prioris.storage import edits as edit_store
from prioris.storage import records as record_store
from prioris.storage import work_vectors as work_vector_store
from prioris.storage import works as work_store
from prioris.storage.merged import apply_records
from prioris.storage.transaction import immediate


def record_view(work: Work, edits: int | None = None) -> dict[str, Any]:
    """A work's editable record as the interfaces show it: ``id``, every field of
    :data:`~prioris.provenance.FIELDS`, ``origins`` ({field: origin}), ``aliases`` and
    (when counted) ``edits``, the number of edits undo can take back."""
    view: dict[str, Any] = {"id": work.id, **fields_of(work)}
    view["origins"] = {name: work.origins[name] for name in FIELDS if name in work.origins}
    view["aliases"] = list(work.aliases)
    if edits is not None:
        view["edits"] = edits
    return view


class Editor:
    """Edits, undo and history over one library connection, under its write lock."""

    def __init__(
        self,
        conn: Any,
        lock: AbstractContextManager[Any],
        resolve: Callable[[str], str],
        embedder: Embedder,
        now: Callable[[], str],
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.resolve = resolve
        self.embedder = embedder
        self.now = now

    def edit_work(self, text: str, patch: Mapping[str, Any]) -> Work:
        """Correct fields of a work: ``patch`` is ``{field: value}``, ``None`` clears.

        Unknown fields, a bad year or date, an empty title, an id that is no such id and
        an id another work holds are InvalidRequestError; nothing changes then. Returns
        the work as stored after the merge.
        """
        changes = validate_patch(patch)
        with self.lock:
            work_id = self.resolve(text)
            with self._transaction():
                work = work_store.get_work(self.conn, work_id)
                assert work is not None
                self._check_ids(work_id, changes)
                user = self._user_record(work_id)
                before = {
                    "user": user,
                    "fields": fields_of(work),
                    "origins": dict(work.origins),
                }
                now = self.now()
                record_store.save_records(
                    self.conn, work_id, {USER: {**(user or {}), **changes}}, now
                )
                after = apply_records(
                    self.conn, work_id, now, base=before["fields"], base_origins=work.origins
                )
                before["added_aliases"] = sorted(set(after.aliases) - set(work.aliases))
                before["removed_aliases"] = sorted(set(work.aliases) - set(after.aliases))
                edit_store.add_edit(self.conn, work_id, changes, before, now)
                self._keep_work_vector(work, after)
        return after

    def undo_edit(self, text: str) -> Work:
        """Take back a work's newest edit (NotFoundError when none is left)."""
        with self.lock:
            work_id = self.resolve(text)
            with self._transaction():
                newest = edit_store.edits_of(self.conn, work_id, limit=1)
                if not newest:
                    raise NotFoundError(f"{work_id} has no edit to undo")
                edit = newest[0]
                before = edit["before"]
                work = work_store.get_work(self.conn, work_id)
                assert work is not None
                now = self.now()
                if before.get("user"):
                    record_store.save_records(self.conn, work_id, {USER: before["user"]}, now)
                else:
                    self.conn.execute(
                        "DELETE FROM work_records WHERE work_id = ? AND origin = ?",
                        (work_id, USER),
                    )
                for alias in before.get("added_aliases", []):
                    self.conn.execute(
                        "DELETE FROM aliases WHERE alias = ? AND work_id = ?", (alias, work_id)
                    )
                work_store.add_aliases(self.conn, work_id, before.get("removed_aliases", []))
                after = apply_records(
                    self.conn,
                    work_id,
                    now,
                    base=before.get("fields", {}),
                    base_origins=before.get("origins", {}),
                )
                edit_store.delete_edit(self.conn, edit["id"])
                self._keep_work_vector(work, after)
        return after

    def edit_history(self, text: str) -> list[dict[str, Any]]:
        """A work's edits, newest first (the order undo takes them back): ``id``,
        ``edited_at``, ``changes`` and ``previous`` (each changed field's value before)."""
        with self.lock:
            work_id = self.resolve(text)
            edits = edit_store.edits_of(self.conn, work_id)
        return [
            {
                "id": e["id"],
                "work_id": work_id,
                "edited_at": e["edited_at"],
                "changes": e["changes"],
                "previous": {
                    name: e["before"].get("fields", {}).get(name) for name in e["changes"]
                },
            }
            for e in edits
        ]

    def work_fields(self, text: str) -> dict[str, Any]:
        """A work's editable record with each field's origin (see :func:`record_view`)."""
        with self.lock:
            work_id = self.resolve(text)
            work = work_store.get_work(self.conn, work_id)
            assert work is not None
            return record_view(work, edit_store.count_edits(self.conn, work_id))

    # -- inside the transaction ----------------------------------------------------------
    def _user_record(self, work_id: str) -> dict[str, Any] | None:
        record = record_store.records_of(self.conn, work_id).get(USER)
        if record is None:
            return None
        record.pop("recorded_at", None)
        return record

    def _check_ids(self, work_id: str, changes: Mapping[str, Any]) -> None:
        """An id the user gives must not be another work's (one alias, one work)."""
        for name in ID_FIELDS:
            value = changes.get(name)
            if not value:
                continue
            alias = alias_of(name, value)
            owner = work_store.find_work_id(self.conn, [alias])
            if owner is not None and owner != work_id:
                raise InvalidRequestError(
                    f"{name} {value} belongs to another work ({owner}); delete or edit that "
                    "work first"
                )

    def _keep_work_vector(self, before: Work, after: Work) -> None:
        """A new title or abstract (the trigger dropped the vector): embed the work's own
        vector again now, so vector search scores it by its corrected text."""
        if (before.title, before.abstract) == (after.title, after.abstract):
            return
        model = self.embedder.model_id
        for work_id, title, abstract, head in work_vector_store.missing(
            self.conn, model, 1, work_ids=[after.id]
        ):
            vector = self.embedder.embed_passages([work_text(title, abstract, head)])[0]
            work_vector_store.store(self.conn, work_id, vector, model)

    def _transaction(self) -> AbstractContextManager[None]:
        return immediate(self.conn)
