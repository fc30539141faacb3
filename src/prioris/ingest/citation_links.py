"""The local citation graph: which references of the library are works of the library.

A reference is a library work when its DOI or arXiv id is one of the work's aliases
(``doi:...``, ``arxiv:...``; an arXiv id matches whatever version is stored), else when
its title matches the work's closely (:func:`title_score`, ``rapidfuzz``'s normalised
Indel ratio on folded titles) with the year within one and the same first-author family
name. The threshold (:data:`TITLE_THRESHOLD`) was measured on references read from the
fixture papers against their own metadata and near misses (bench/bench_references.py,
docs/benchmarks.md section 16): it is the lowest with no false link there. A reference
without a year or with two equally good candidates is left unlinked: never a silent
wrong link.

Links are made both ways: a work's own references when its text is indexed
(:func:`link_references_of`), and every unlinked reference of the library that is the
work when it arrives (:func:`link_references_to`, by DOI / arXiv index first, fuzzy on the
references of its year only). Deleting a work unlinks the references to it (the
table's ``ON DELETE SET NULL``). Everything runs inside the caller's transaction.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from rapidfuzz import fuzz, process

from prioris.ingest.references import parse_references
from prioris.storage import references as reference_store

TITLE_THRESHOLD = 90.0  # measured: see the module text
FAMILY_THRESHOLD = 85.0  # first-author family names (accents, OCR)
MIN_TITLE_CHARS = 12  # shorter titles ("Introduction") never link by title


def fold(text: str) -> str:
    """Lower-case ASCII words separated by single spaces (accents, punctuation gone)."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return " ".join(re.findall(r"[a-z0-9]+", text))


def family_name(name: str) -> str:
    """A printed name's family name, folded: ``Smith, J.`` / ``Smith J`` / ``J. Smith`` /
    ``John Smith`` -> ``smith``."""
    name = name.strip()
    if "," in name:
        return fold(name.split(",", 1)[0]).split(" ")[-1] if fold(name.split(",", 1)[0]) else ""
    words = name.split()
    if len(words) >= 2 and re.fullmatch(
        r"(?:[A-Z]\.?-?){1,3}", words[-1]
    ):  # "Smith JA", "Smith J."
        return fold(" ".join(words[:-1])).split(" ")[-1] if fold(words[-2]) else ""
    folded = fold(name).split(" ")
    return folded[-1] if folded else ""


def title_score(a: str, b: str) -> float:
    """How alike two titles are, 0-100 (folded, normalised Indel ratio)."""
    fa, fb = fold(a), fold(b)
    if not fa or not fb:
        return 0.0
    return float(fuzz.ratio(fa, fb))


def match_score(
    ref: dict[str, Any], title: str | None, authors: Sequence[str], year: int | None
) -> float | None:
    """The title score of a reference against a work's fields when year (within one) and
    first author agree, else None (no match whatever the titles say)."""
    ref_title = ref.get("title") or ""
    if not title or len(fold(ref_title)) < MIN_TITLE_CHARS or ref.get("year") is None:
        return None
    if year is None or abs(int(ref["year"]) - int(year)) > 1:
        return None
    work_family = family_name(authors[0]) if authors else ""
    ref_authors = ref.get("authors") or []
    if work_family:
        if ref_authors:
            if fuzz.ratio(family_name(ref_authors[0]), work_family) < FAMILY_THRESHOLD:
                return None
        elif work_family not in fold(ref.get("raw") or ""):
            return None
    score = title_score(ref_title, title)
    return score if score >= TITLE_THRESHOLD else None


def _work_fields(conn: Any, work_ids: Sequence[str]) -> dict[str, tuple[str, list[str], Any]]:
    found: dict[str, tuple[str, list[str], Any]] = {}
    for start in range(0, len(work_ids), 500):
        group = list(work_ids[start : start + 500])
        marks = ", ".join("?" for _ in group)
        for r in conn.execute(
            f"SELECT id, title, authors, year FROM works WHERE id IN ({marks})", group
        ).fetchall():
            found[r[0]] = (r[1] or "", json.loads(r[2] or "[]"), r[3])
    return found


def _owner(conn: Any, ident: str) -> str | None:
    """The work whose id or alias is ``ident``."""
    row = conn.execute(
        "SELECT id FROM works WHERE id = ? UNION ALL SELECT work_id FROM aliases WHERE alias = ?",
        (ident, ident),
    ).fetchone()
    return str(row[0]) if row else None


def _arxiv_owner(conn: Any, arxiv: str) -> str | None:
    """The work holding this arXiv id in any version (its id or an alias)."""
    base = "arxiv:" + re.sub(r"v\d+$", "", arxiv)
    found = _owner(conn, base)
    if found:
        return found
    bounds = (base + "v", base + "w")
    row = conn.execute(
        "SELECT id FROM works WHERE id >= ? AND id < ? "
        "UNION ALL SELECT work_id FROM aliases WHERE alias >= ? AND alias < ?",
        bounds + bounds,
    ).fetchone()
    return str(row[0]) if row else None


def _by_alias(conn: Any, ref: dict[str, Any]) -> tuple[str, str] | None:
    """(work id, method) when the reference's DOI or arXiv id is a library work's."""
    if ref.get("doi"):
        found = _owner(conn, "doi:" + ref["doi"])
        if found:
            return found, "doi"
    if ref.get("arxiv"):
        found = _arxiv_owner(conn, ref["arxiv"])
        if found:
            return found, "arxiv"
    return None


def _best_by_title(
    ref: dict[str, Any], candidates: dict[str, tuple[str, list[str], Any]]
) -> tuple[str, float] | None:
    scored = sorted(
        (
            (score, work_id)
            for work_id, (title, authors, year) in candidates.items()
            if work_id != ref["work_id"]
            and (score := match_score(ref, title, authors, year)) is not None
        ),
        reverse=True,
    )
    if not scored or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None  # none, or two equally good: left unlinked
    return scored[0][1], scored[0][0]


def link_references_of(conn: Any, work_id: str) -> int:
    """Link a work's unlinked references to the library works they are; returns the
    number linked. The works of each year are read and their titles folded once (a list
    cites many works of the same years); each reference's title is compared with those of
    its year and the years beside in one ``rapidfuzz`` pass (the same ratio as
    :func:`title_score`), and only the titles over the threshold go through
    :func:`match_score`'s year and author checks."""
    links: list[tuple[int, str | None, str | None, float | None]] = []
    fields: dict[str, tuple[str, list[str], Any]] = {}
    folded: dict[int, dict[str, str]] = {}

    def titles_of(year: int) -> dict[str, str]:
        if year not in folded:
            folded[year] = {}
            for r in conn.execute(
                "SELECT id, title, authors, year FROM works WHERE year = ? AND id <> ?",
                (year, work_id),
            ).fetchall():
                fields[r[0]] = (r[1] or "", json.loads(r[2] or "[]"), r[3])
                folded[year][r[0]] = fold(r[1] or "")
        return folded[year]

    for ref in reference_store.unlinked(conn, [work_id]):
        hit = _by_alias(conn, ref)
        if hit is not None and hit[0] != work_id:
            links.append((ref["id"], hit[0], hit[1], 100.0))
            continue
        if ref.get("year") is None or not ref.get("title"):
            continue
        year = int(ref["year"])
        choices = {**titles_of(year - 1), **titles_of(year), **titles_of(year + 1)}
        close = process.extract(
            fold(ref["title"]), choices, scorer=fuzz.ratio, score_cutoff=TITLE_THRESHOLD, limit=None
        )
        best = _best_by_title(ref, {key: fields[key] for _, _, key in close})
        if best is not None:
            links.append((ref["id"], best[0], "title", best[1]))
    reference_store.set_links(conn, links)
    return len(links)


def link_references_to(conn: Any, work_id: str) -> int:
    """Link every unlinked reference of the library that is ``work_id`` (a work just
    stored): by its DOI and arXiv aliases through the indexes, then by title on the
    unlinked references of its year (within one). Returns the number linked."""
    links: list[tuple[int, str | None, str | None, float | None]] = []
    aliases = [work_id] + [
        r[0] for r in conn.execute("SELECT alias FROM aliases WHERE work_id = ?", (work_id,))
    ]
    linked: set[int] = set()
    for alias in aliases:
        scheme, _, value = alias.partition(":")
        if scheme == "doi":
            rows = conn.execute(
                "SELECT id FROM work_references WHERE doi = ? AND cited_work_id IS NULL "
                "AND work_id <> ?",
                (value, work_id),
            ).fetchall()
            method = "doi"
        elif scheme == "arxiv":
            base = re.sub(r"v\d+$", "", value)
            rows = conn.execute(
                "SELECT id FROM work_references WHERE (arxiv = ? OR (arxiv >= ? AND arxiv < ?)) "
                "AND cited_work_id IS NULL AND work_id <> ?",
                (base, base + "v", base + "w", work_id),
            ).fetchall()
            method = "arxiv"
        else:
            continue
        for (ref_id,) in rows:
            if ref_id not in linked:
                linked.add(ref_id)
                links.append((ref_id, work_id, method, 100.0))
    fields = _work_fields(conn, [work_id]).get(work_id)
    if fields is not None and fields[2] is not None and fields[0]:
        title, authors, year = fields
        for ref in reference_store.unlinked_in_years(conn, int(year) - 1, int(year) + 1, work_id):
            if ref["id"] in linked:
                continue
            score = match_score(ref, title, authors, year)
            if score is not None:
                links.append((ref["id"], work_id, "title", score))
    reference_store.set_links(conn, links)
    return len(links)


def store_references(conn: Any, work_id: str, markdown: str) -> int:
    """Make the references read from ``markdown`` the work's list (replacing the old one)
    and link them to the library; inside the caller's transaction. The work's own DOI or
    arXiv id in an entry is a running footer's or a cover page's: an entry without
    authors and title that carries it is dropped, another loses it.
    Returns how many were stored."""
    own = {work_id} | {
        r[0] for r in conn.execute("SELECT alias FROM aliases WHERE work_id = ?", (work_id,))
    }
    refs = []
    for ref in parse_references(markdown):
        if ref.doi and f"doi:{ref.doi}" in own:
            ref.doi = None
        elif ref.arxiv and any(a.startswith(f"arxiv:{ref.arxiv}") for a in own):
            ref.arxiv = None
        else:
            refs.append(ref)
            continue
        if ref.authors and ref.title:  # the footer ran into the last entry: keep the entry
            refs.append(ref)
    for ordinal, ref in enumerate(refs, start=1):
        ref.ordinal = ordinal
    reference_store.replace_references(conn, work_id, refs)
    link_references_of(conn, work_id)
    return len(refs)


__all__ = [
    "TITLE_THRESHOLD",
    "family_name",
    "fold",
    "link_references_of",
    "link_references_to",
    "match_score",
    "store_references",
    "title_score",
]
