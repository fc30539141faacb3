"""From ranked candidates to what a search returns: hits with snippets, and the response.

Ranking is settled before this runs (:mod:`prioris.search.service`); here only the k
results are read back from the backend (passage text, work record) and dressed as
:class:`~prioris.models.Hit`, with the rank each had in the FTS and vector lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prioris.models import Hit
from prioris.search.protocols import ChunkScore, SearchBackend
from prioris.search.snippets import make_snippet


@dataclass
class SearchResponse:
    """What one search returns: the query as run, its mode, the time taken and the hits."""

    query: str
    mode: str
    took_ms: float
    hits: list[Hit] = field(default_factory=list)
    # works without a year a year filter set aside (None: no year filter, or undated kept)
    left_out_no_year: int | None = None
    # shards a sharded library's search could not ask (PRIORIS_MCP_DB_SHARD_MISSING=
    # partial): the hits leave out the works placed there; never silently
    missing_shards: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query,
            "mode": self.mode,
            "took_ms": round(self.took_ms, 2),
            "hits": [h.to_dict() for h in self.hits],
        }
        if self.left_out_no_year is not None:
            out["left_out_no_year"] = self.left_out_no_year
        if self.missing_shards:
            out["missing_shards"] = list(self.missing_shards)
        return out


def build_hits(
    backend: SearchBackend,
    ordered: list[tuple[ChunkScore, float]],
    terms: list[str],
    fts_ranks: dict[object, int],
    vec_ranks: dict[object, int],
    chunks: bool,
    mode: str,
    leg_scores: dict[str, dict[object, float]] | None = None,
) -> list[Hit]:
    """A :class:`Hit` for each ranked item: its work, passage, snippet and list ranks.

    Passages and works are read in one call each, for the k results only; an item whose
    chunk or work is gone by now (a concurrent delete) is dropped.
    """
    if not ordered:
        return []
    rows = backend.passages([c.chunk_id for c, _ in ordered])
    works = backend.works(list(dict.fromkeys(c.work_id for c, _ in ordered)))
    hits = []
    for item, score in ordered:
        row, work = rows.get(item.chunk_id), works.get(item.work_id)
        if row is None or work is None:
            continue
        key = item.chunk_id if chunks else item.work_id
        ranks: dict[str, int | None] = {}
        scores: dict[str, float | None] = {}
        legs = leg_scores or {}
        if mode in ("fts", "hybrid"):
            ranks["fts"] = fts_ranks.get(key)
            scores["fts"] = _rounded(legs.get("fts", {}).get(key))
        if mode in ("vector", "hybrid"):
            ranks["vector"] = vec_ranks.get(key)
            scores["vector"] = _rounded(legs.get("vector", {}).get(key))
        hits.append(
            Hit(
                id=work.id,
                title=work.title,
                authors=work.authors,
                year=work.year,
                score=float(f"{float(score):.6g}"),
                ranks=ranks,
                snippet=make_snippet(row.text, terms),
                page_start=row.page_start,
                page_end=row.page_end,
                offset=row.char_start,
                chunk_id=item.chunk_id,
                source=work.source,
                section=row.section,
                scores=scores,
            )
        )
    return hits


def _rounded(score: float | None) -> float | None:
    return None if score is None else float(f"{float(score):.6g}")


def list_ranks(items: list[ChunkScore], chunks: bool) -> dict[object, int]:
    """Rank (from 1) of each chunk, or each work, in one candidate list."""
    return {(c.chunk_id if chunks else c.work_id): i for i, c in enumerate(items, start=1)}


def list_scores(items: list[ChunkScore], chunks: bool) -> dict[object, float]:
    """Score of each chunk, or each work (its first, best, item), in one candidate list."""
    found: dict[object, float] = {}
    for c in items:
        found.setdefault(c.chunk_id if chunks else c.work_id, c.score)
    return found
