"""The researcher's notes and highlights, kept with their work and searchable as passages.

A reference manager keeps what the researcher wrote about a paper: child notes and PDF
annotations (a highlighted passage, its comment, its colour and page). They are kept in
``work_notes`` and each is also a passage of the work (a chunk with ``section`` 'note' or
'highlight', ordinals from :data:`NOTE_ORDINAL_BASE` on, no place in the work's Markdown),
so every search mode finds them and a hit says it is the user's own note or highlight and
on which page. Re-parsing a work's text replaces its text passages only
(``chunks.delete_chunks_of(..., keep_notes=True)``); the notes' passages stay.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from prioris.models import Chunk
from prioris.storage import chunks as chunk_store
from prioris.storage.backend import index_of
from prioris.storage.batched import rows_in

NOTE_SECTIONS = chunk_store.USER_SECTIONS
NOTE_ORDINAL_BASE = 1_000_000
"""Notes' passages sort after any text passage of their work (a work has far fewer)."""
MAX_PASSAGE_CHARS = 2_000
HIGHLIGHTS = frozenset(("highlight", "underline", "image", "ink", "text"))


@dataclass(frozen=True)
class StoredNote:
    """One note or annotation as stored (see :class:`prioris.refman.items.RefNote`)."""

    key: str
    kind: str
    text: str
    comment: str = ""
    color: str = ""
    page_label: str = ""
    page: int | None = None

    def section(self) -> str:
        """'highlight' for what was marked on a page, 'note' for what was written."""
        return "highlight" if self.kind in HIGHLIGHTS and self.text.strip() else "note"

    def passage(self) -> str:
        """The text search sees: the note, or the highlighted passage with its comment."""
        parts = [self.text.strip()]
        if self.comment.strip():
            parts.append(f"Comment: {self.comment.strip()}")
        return "\n\n".join(p for p in parts if p)

    def heading(self) -> str:
        label = "Highlight" if self.section() == "highlight" else "Note"
        where = self.page_label or (str(self.page) if self.page else "")
        return f"{label}, p. {where}" if where else label


def _pieces(text: str) -> list[str]:
    """A long note in passages of at most :data:`MAX_PASSAGE_CHARS`, split at paragraphs."""
    pieces: list[str] = []
    current = ""
    for paragraph in text.split("\n\n"):
        while len(paragraph) > MAX_PASSAGE_CHARS:
            cut = paragraph.rfind(" ", 0, MAX_PASSAGE_CHARS)
            cut = cut if cut > MAX_PASSAGE_CHARS // 2 else MAX_PASSAGE_CHARS
            if current:
                pieces.append(current)
                current = ""
            pieces.append(paragraph[:cut].strip())
            paragraph = paragraph[cut:].strip()
        if current and len(current) + 2 + len(paragraph) > MAX_PASSAGE_CHARS:
            pieces.append(current)
            current = ""
        current = f"{current}\n\n{paragraph}" if current else paragraph
    if current.strip():
        pieces.append(current)
    return [p for p in pieces if p.strip()]


def notes_of(conn: Any, work_id: str) -> list[dict[str, Any]]:
    """A work's notes and highlights in page order (those without a page first)."""
    rows = conn.execute(
        "SELECT source, note_key, kind, text, comment, color, page_label, page FROM work_notes "
        "WHERE work_id = ? ORDER BY COALESCE(page, 0), id",
        (work_id,),
    ).fetchall()
    return [_note(r) for r in rows]


def _note(r: Sequence[Any]) -> dict[str, Any]:
    return {
        "source": r[0],
        "key": r[1],
        "kind": r[2],
        "section": StoredNote(r[1], r[2], r[3], r[4]).section(),
        "text": r[3],
        "comment": r[4],
        "color": r[5],
        "page_label": r[6],
        "page": r[7],
    }


def notes_of_many(conn: Any, work_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Notes of several works (exports), a query per 500 works: ``{work_id: [note]}``."""
    found: dict[str, list[dict[str, Any]]] = {work_id: [] for work_id in work_ids}
    sql = (
        "SELECT work_id, source, note_key, kind, text, comment, color, page_label, page "
        "FROM work_notes WHERE work_id IN ({marks}) ORDER BY COALESCE(page, 0), id"
    )
    for r in rows_in(conn, sql, work_ids):
        found[r[0]].append(_note(r[1:]))
    return found


def _stored(conn: Any, work_id: str, source: str) -> list[StoredNote]:
    rows = conn.execute(
        "SELECT note_key, kind, text, comment, color, page_label, page FROM work_notes "
        "WHERE work_id = ? AND source = ? ORDER BY id",
        (work_id, source),
    ).fetchall()
    return [StoredNote(*r) for r in rows]


def replace_notes(
    conn: Any,
    work_id: str,
    source: str,
    notes: Sequence[StoredNote],
    *,
    embed: Callable[[list[str]], np.ndarray],
    model_id: str,
) -> bool:
    """Make ``notes`` the work's notes from ``source`` and rebuild the work's note passages
    (embedded with ``embed``), inside the caller's transaction. Unchanged notes change
    nothing; returns whether anything changed."""
    if _stored(conn, work_id, source) == list(notes):
        return False
    conn.execute("DELETE FROM work_notes WHERE work_id = ? AND source = ?", (work_id, source))
    conn.executemany(
        "INSERT INTO work_notes(work_id, source, note_key, kind, text, comment, color, "
        "page_label, page) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (work_id, source, n.key, n.kind, n.text, n.comment, n.color, n.page_label, n.page)
            for n in notes
        ],
    )
    reindex_note_passages(conn, work_id, embed=embed, model_id=model_id)
    return True


def delete_note_passages(conn: Any, work_id: str) -> None:
    marks = ", ".join("?" for _ in NOTE_SECTIONS)
    ids = [
        r[0]
        for r in conn.execute(
            f"SELECT id FROM chunks WHERE work_id = ? AND section IN ({marks})",
            (work_id, *NOTE_SECTIONS),
        )
    ]
    if ids:
        index_of(conn).delete_rows(conn, ids)
        id_marks = ", ".join("?" for _ in ids)
        conn.execute(f"DELETE FROM chunks WHERE id IN ({id_marks})", ids)
        chunk_store.bump_vectors_version(conn)


def reindex_note_passages(
    conn: Any, work_id: str, *, embed: Callable[[list[str]], np.ndarray], model_id: str
) -> int:
    """The work's note passages, made again from every stored note of the work."""
    delete_note_passages(conn, work_id)
    row = conn.execute("SELECT title, source, year FROM works WHERE id = ?", (work_id,)).fetchone()
    if row is None:
        return 0
    title, source, year = row[0], row[1], row[2]
    rows = conn.execute(
        "SELECT note_key, kind, text, comment, color, page_label, page FROM work_notes "
        "WHERE work_id = ? ORDER BY COALESCE(page, 0), id",
        (work_id,),
    ).fetchall()
    passages: list[Chunk] = []
    for note in (StoredNote(*r) for r in rows):
        page = note.page if note.page and note.page > 0 else 1
        for piece in _pieces(note.passage()):
            passages.append(
                Chunk(
                    work_id=work_id,
                    document_sha256=None,
                    ordinal=NOTE_ORDINAL_BASE + len(passages),
                    text=piece,
                    page_start=page,
                    page_end=page,
                    char_start=0,
                    char_end=0,
                    heading=note.heading(),
                    token_count=len(piece.split()),
                    section=note.section(),
                )
            )
    if not passages:
        return 0
    ids = chunk_store.insert_chunks(conn, passages, title)
    vectors = embed([p.text for p in passages])
    chunk_store.insert_vectors(
        conn,
        ids,
        vectors,
        model_id,
        work_ids=[work_id] * len(ids),
        sources=[source] * len(ids),
        years=[year] * len(ids),
    )
    return len(ids)
