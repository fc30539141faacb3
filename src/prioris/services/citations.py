"""A work's references and the local citation graph, as the interfaces read them.

The references are read from each work's text at ingest and linked to the library works
they are (:mod:`prioris.ingest.citation_links`); this service answers, for one work, its
reference list, the library works it cites (each with the reference that cites it) and
the library works that cite it, each work shown by id, title, authors and year.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.storage import references as reference_store
from prioris.storage import works as work_store

DIRECTIONS = ("cites", "cited_by", "references")


def shown(ref: dict[str, Any]) -> dict[str, Any]:
    """A reference as it is shown: ``title_parsed`` says whether ``title`` is a title;
    a stored title that is an author list, a citation string or a venue (read before the
    parser knew better) is dropped, so the entry is shown by its ``raw`` text (issue 39)."""
    from prioris.ingest.reference_title import title_problem

    title = ref.get("title")
    if title and title_problem(title):
        title = None
    return {**ref, "title": title, "title_parsed": bool(title)}


class Citations:
    """Reads ``work_references`` under the library's lock; never writes."""

    def __init__(self, conn: Any, lock: AbstractContextManager[Any], resolve: Any) -> None:
        self.conn = conn
        self.lock = lock
        self.resolve = resolve  # text -> work id (NotFoundError for an unknown one)

    def _brief(self, work_ids: list[str]) -> dict[str, dict[str, Any]]:
        works = work_store.get_works(self.conn, list(dict.fromkeys(work_ids)))
        return {
            wid: {"id": wid, "title": w.title, "authors": list(w.authors), "year": w.year}
            for wid, w in works.items()
        }

    def references(self, text: str) -> list[dict[str, Any]]:
        """The work's reference list in printed order; a linked entry carries ``cited``
        (the library work it is: id, title, authors, year)."""
        with self.lock:
            work_id = self.resolve(text)
            refs = reference_store.references_of(self.conn, work_id)
            briefs = self._brief([r["cited_work_id"] for r in refs if r["cited_work_id"]])
        return [{**shown(r), "cited": briefs.get(r["cited_work_id"] or "")} for r in refs]

    def cites(self, text: str) -> list[dict[str, Any]]:
        """The library works this work cites, once each in the order it first cites
        them, each with the references (``references``) that cite it."""
        with self.lock:
            work_id = self.resolve(text)
            refs = [
                r
                for r in reference_store.references_of(self.conn, work_id)
                if r["cited_work_id"] and r["cited_work_id"] != work_id
            ]
            briefs = self._brief([r["cited_work_id"] for r in refs])
        found: dict[str, dict[str, Any]] = {}
        for r in refs:
            entry = found.setdefault(
                r["cited_work_id"], {**briefs[r["cited_work_id"]], "references": []}
            )
            entry["references"].append(r)
        return list(found.values())

    def cited_by(self, text: str) -> list[dict[str, Any]]:
        """The library works that cite this work, each with its references to it."""
        with self.lock:
            work_id = self.resolve(text)
            refs = [
                r for r in reference_store.citing(self.conn, work_id) if r["work_id"] != work_id
            ]
            briefs = self._brief([r["work_id"] for r in refs])
        found: dict[str, dict[str, Any]] = {}
        for r in refs:
            entry = found.setdefault(r["work_id"], {**briefs[r["work_id"]], "references": []})
            entry["references"].append(r)
        return list(found.values())

    def citations(self, text: str, direction: str) -> list[dict[str, Any]]:
        """One of :data:`DIRECTIONS` (``cites``, ``cited_by``, ``references``)."""
        if direction not in DIRECTIONS:
            raise InvalidRequestError(
                f"unknown direction {direction!r}; expected one of {', '.join(DIRECTIONS)}"
            )
        return {"cites": self.cites, "cited_by": self.cited_by, "references": self.references}[
            direction
        ](text)
