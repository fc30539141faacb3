"""Snowballing over the library: seeds, their citation neighbours, ranked; and the graph.

:class:`Snowball` gathers the seeds (ids, every work, or a collection), the candidates the
local citation graph gives (the seeds' references not linked to a library work:
backward) and, when online, the ones OpenAlex gives (the seeds' ``referenced_works``:
backward; the works citing the seeds: forward), merges and dedupes them against the
library and the dismissed ones, embeds their title + abstract the way a work's own vector
is made, and ranks them (:mod:`prioris.discovery.snowball`). It never fetches: each
candidate carries the route discovery's fetch ladder gives it, for the user or an agent to
take. A refused request (the daily budget) or an OpenAlex failure leaves the answer
partial and says so, instead of failing.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from prioris.discovery.graph import GraphRecords
from prioris.discovery.snowball import keep_direction, score_candidates, seed_centroid
from prioris.discovery.snowball_candidates import Candidate, from_record, from_reference
from prioris.discovery.snowball_dedupe import CandidatePool, LibraryIndex
from prioris.discovery.snowball_identity import (
    clean_ids,
    is_candidate_key,
    library_aliases,
    openalex_short,
)
from prioris.embedding.base import Embedder
from prioris.errors import InvalidRequestError, NotFoundError, PriorisError
from prioris.ingest.embed import work_text
from prioris.storage import labels as label_store
from prioris.storage import references as reference_store
from prioris.storage import snowball as dismissed_store
from prioris.storage import work_vectors as work_vector_store
from prioris.storage import works as work_store

DIRECTIONS = ("backward", "forward", "both")
MAX_LIMIT = 500
EMBED_AT_MOST = 300
"""Candidates embedded for similarity: the best 300 by the other parts of the score (the
links above all). The library's model embeds about 50 to 100 titles a second on two busy
cores (bench/bench_snowball.py), so 300 keep a whole-library snowball to seconds; a
candidate past them is scored without similarity, and being past them it was already
below them on everything else."""
FORWARD_PER_SEED = 50
"""Citing works asked of OpenAlex per seed (at most 2,000 in all), so a forward snowball
over a famous paper does not spend the day's budget on one listing."""


class Snowball:
    """Snowballing over one library connection (the Library hands the pieces)."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        embedder: Embedder,
        resolve: Callable[[str], str],
        this_year: Callable[[], int],
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.embedder = embedder
        self.resolve = resolve
        self.this_year = this_year

    # -- seeds ---------------------------------------------------------------------
    def seeds(
        self, ids: Sequence[str] = (), *, all: bool = False, collection: str | None = None
    ) -> list[str]:
        """The seed work ids: ``ids`` (each resolved), every work, or a collection's."""
        given = [i for i in ids if isinstance(i, str) and i.strip()]
        chosen = sum([bool(given), bool(all), bool(collection and collection.strip())])
        if chosen != 1:
            raise InvalidRequestError(
                "give the seeds one way: work ids, --all (every work), or --collection NAME"
            )
        if given:
            return list(dict.fromkeys(self.resolve(i) for i in given))
        with self.lock:
            if all:
                return [str(r[0]) for r in self.conn.execute("SELECT id FROM works ORDER BY id")]
            assert collection is not None
            found = label_store.works_in(self.conn, collections=[collection])
            if not found:
                missing = label_store.unmatched(self.conn, collections=[collection])
                hint = " ".join(missing.get("collections") or [])
                raise NotFoundError(
                    hint or f"the collection {collection!r} holds no works of the library"
                )
            return sorted(found)

    # -- the snowball --------------------------------------------------------------
    def run(
        self,
        seeds: Sequence[str],
        *,
        direction: str = "both",
        limit: int = 25,
        graph: GraphRecords | None = None,
        offline_reason: str | None = None,
    ) -> dict[str, Any]:
        """Candidates around ``seeds`` as SPEC's JSON (module text); ``graph`` None: the
        local citation graph only, ``offline_reason`` saying why."""
        if direction not in DIRECTIONS:
            raise InvalidRequestError(
                f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}"
            )
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise InvalidRequestError(
                f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}"
            )
        seeds = list(dict.fromkeys(seeds))
        messages: list[str] = []
        pool = CandidatePool()
        with self.lock:
            seed_info = self._seed_info(seeds)
            refs = reference_store.references_of_many(self.conn, seeds)
        if direction != "forward":
            for seed, rows in refs.items():
                for ref in rows:
                    if ref["cited_work_id"] is None and (cand := from_reference(ref, seed)):
                        pool.add(cand)
        if not seeds:
            messages.append("no seeds: the library holds no works yet")
        elif not any(refs.values()):
            messages.append(
                "the seeds have no reference lists in the library yet (references are read "
                "from ingested PDFs), so the local graph gives no candidates"
            )
        requests_before = graph.requests if graph is not None else 0
        if graph is None:
            messages.append(f"offline: the local citation graph only ({offline_reason})")
        else:
            self._from_openalex(graph, seed_info, pool, direction, messages)
        pool.merge_similar()
        found = [c for c in pool.candidates() if keep_direction(c, direction)]
        kept = self._dedupe(found, seeds, seed_info)
        ranked = self._rank(kept, seeds, seed_info)
        if not ranked and not messages:
            messages.append("no candidates: every work the seeds are tied to is in the library")
        out = {
            "seeds": seeds,
            "requests": (graph.requests - requests_before) if graph is not None else 0,
            "budget_left": graph.budget_left if graph is not None else None,
            "budget_reached": bool(graph.budget_reached) if graph is not None else False,
            "offline": graph is None,
            "direction": direction,
            "total": len(ranked),
            "messages": messages,
            "candidates": [c.to_dict() for c in ranked[:limit]],
        }
        if out["budget_reached"] and getattr(getattr(graph, "budget", None), "account_spent", 0):
            messages.append(
                "your account's share of today's OpenAlex requests is taken: the answer is "
                "partial (what the cache and the local graph give); it resets tomorrow "
                "(PRIORIS_MCP_OPENALEX_ACCOUNT_DAILY_BUDGET)"
            )
        elif out["budget_reached"]:
            messages.append(
                "the daily OpenAlex budget is reached: the answer is partial (what the cache "
                "and the local graph give); it resets tomorrow (PRIORIS_MCP_OPENALEX_DAILY_BUDGET)"
            )
        return out

    def _seed_info(self, seeds: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Each seed's title, year and identifiers (from its aliases)."""
        info: dict[str, dict[str, Any]] = {}
        for start in range(0, len(seeds), 500):
            group = list(seeds[start : start + 500])
            marks = ", ".join("?" for _ in group)
            for work_id, title, year in self.conn.execute(
                f"SELECT id, title, year FROM works WHERE id IN ({marks})", group
            ):
                info[str(work_id)] = {"title": title or "", "year": year, "ids": {}}
            for alias, work_id in self.conn.execute(
                f"SELECT alias, work_id FROM aliases WHERE work_id IN ({marks})", group
            ):
                ids = info.get(str(work_id), {}).get("ids")
                if ids is None:
                    continue
                kind, _, value = str(alias).partition(":")
                if kind in ("doi", "arxiv", "openalex"):
                    ids.update(clean_ids({kind: value}))
        for seed in seeds:  # a work id that is itself an identifier
            if seed in info:
                kind, _, value = seed.partition(":")
                if kind in ("doi", "arxiv", "openalex"):
                    for k, v in clean_ids({kind: value}).items():
                        info[seed]["ids"].setdefault(k, v)
        return info

    def _from_openalex(
        self,
        graph: GraphRecords,
        seed_info: dict[str, dict[str, Any]],
        pool: CandidatePool,
        direction: str,
        messages: list[str],
    ) -> None:
        """Backward and forward candidates from OpenAlex into ``pool``."""
        by_openalex: dict[str, str] = {}  # W id -> seed
        try:
            for seed, info in seed_info.items():
                if info["ids"].get("openalex"):
                    by_openalex[info["ids"]["openalex"]] = seed
            unresolved = {
                info["ids"]["doi"]: seed
                for seed, info in seed_info.items()
                if "openalex" not in info["ids"] and info["ids"].get("doi")
            }
            if unresolved:
                for doi, wid in graph.resolve_dois(sorted(unresolved)).items():
                    seed = unresolved.get(doi.lower())
                    short = openalex_short(wid)
                    if seed and short:
                        by_openalex.setdefault(short, seed)
            without = len(seed_info) - len(set(by_openalex.values()))
            if without:
                messages.append(
                    f"{without} seed(s) have no OpenAlex id or DOI OpenAlex knows: only their "
                    "local references are followed"
                )
            if not by_openalex:
                return
            seed_ids = sorted(by_openalex)
            if direction != "forward":
                records = graph.works(seed_ids)
                cited_by: dict[str, set[str]] = {}
                for wid, record in records.items():
                    seed = by_openalex.get(openalex_short(wid) or "")
                    for ref in record.get("referenced_works") or []:
                        short = openalex_short(ref)
                        if seed and short and short not in by_openalex:
                            cited_by.setdefault(short, set()).add(seed)
                if cited_by:
                    for wid, record in graph.works(sorted(cited_by)).items():
                        cand = from_record(record)
                        short = openalex_short(wid)
                        if cand is not None and short in cited_by:
                            cand.cited_by_seeds |= cited_by[short]
                            pool.add(cand)
            if direction != "backward":
                limit = min(2000, FORWARD_PER_SEED * len(seed_ids))
                for record in graph.citing(seed_ids, limit=limit):
                    cand = from_record(record)
                    if cand is None or cand.ids.get("openalex") in by_openalex:
                        continue
                    cited = {openalex_short(r) for r in record.get("referenced_works") or []}
                    cand.cites_seeds |= {by_openalex[w] for w in cited if w in by_openalex}
                    if cand.cites_seeds:
                        pool.add(cand)
        except PriorisError as exc:  # an OpenAlex failure: what was gathered still counts
            messages.append(f"OpenAlex failed ({exc.code}: {exc}); the answer is partial")

    def _dedupe(
        self, found: list[Candidate], seeds: Sequence[str], seed_info: dict[str, Any]
    ) -> list[Candidate]:
        """Leave out library works (by alias, by fuzzy title + year) and dismissed ones."""
        every_alias = sorted({a for c in found for a in library_aliases(c.ids)})
        with self.lock:
            known = work_store.known_aliases(self.conn, every_alias) if every_alias else set()
            works = [
                (str(r[0]), r[1] or "", r[2])
                for r in self.conn.execute("SELECT id, title, year FROM works")
            ]
            gone = dismissed_store.dismissed(self.conn)
        index = LibraryIndex.build(known | {w for w, _, _ in works}, works)
        kept = []
        for cand in found:
            if gone & set(cand.identities()):
                continue
            if index.match(cand) is not None:
                continue
            kept.append(cand)
        return kept

    def _rank(
        self, kept: list[Candidate], seeds: Sequence[str], seed_info: dict[str, Any]
    ) -> list[Candidate]:
        with self.lock:
            vectors = work_vector_store.read(self.conn, seeds)
        centroid = seed_centroid(list(vectors.values()))
        similarities: dict[int, float | None] = {}
        titles = {s: i["title"] for s, i in seed_info.items()}
        if centroid is not None and kept:
            year = self.this_year()
            first = score_candidates(kept, seeds=len(seeds), similarities={}, this_year=year)
            compared = first[:EMBED_AT_MOST]
            texts = [work_text(c.title, c.abstract, None) for c in compared]
            embedded = self.embedder.embed_passages(texts)
            for cand, vector in zip(compared, np.asarray(embedded), strict=True):
                norm = float(np.linalg.norm(vector))
                similarities[id(cand)] = float(np.dot(vector, centroid) / norm) if norm else None
        return score_candidates(
            kept,
            seeds=len(seeds),
            similarities=similarities,
            this_year=self.this_year(),
            seed_titles=titles,
        )

    # -- dismissing ----------------------------------------------------------------
    def dismiss(self, key: str, title: str, now: str) -> dict[str, Any]:
        """Remember a candidate as not wanted: never shown by a snowball again."""
        if not is_candidate_key(key):
            raise InvalidRequestError(
                "a candidate key is 'doi:…', 'arxiv:…', 'openalex:W…' or 'title:…' as a "
                f"snowball gives it, got {key!r}"
            )
        title = " ".join(str(title or "").split())[:500]
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                dismissed_store.dismiss(self.conn, key, title, now)
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        return {"dismissed": key}

    def undismiss(self, key: str) -> dict[str, Any]:
        """Show a dismissed candidate again."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                removed = dismissed_store.undismiss(self.conn, key)
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        return {"undismissed": key, "found": removed}

    # -- the citation graph --------------------------------------------------------
    def has_works(self) -> bool:
        with self.lock:
            return self.conn.execute("SELECT 1 FROM works LIMIT 1").fetchone() is not None

    def graph(self, snowball: dict[str, Any] | None = None) -> dict[str, Any]:
        """The library's works as nodes and their citation edges (citing -> cited); with a
        snowball's answer, its candidates as nodes too, each tied to its seeds (a seed
        citing it: seed -> candidate; it citing a seed: candidate -> seed)."""
        with self.lock:
            rows = self.conn.execute(
                "SELECT id, title, year, authors FROM works ORDER BY id"
            ).fetchall()
            edges = reference_store.citation_edges(self.conn)
        nodes = [
            {
                "id": str(r[0]),
                "kind": "work",
                "title": r[1] or "",
                "year": r[2],
                "authors": _authors(r[3]),
            }
            for r in rows
        ]
        out_edges = [{"source": a, "target": b, "kind": "cites"} for a, b in edges]
        out: dict[str, Any] = {"nodes": nodes, "edges": out_edges}
        if snowball is not None:
            for cand in snowball["candidates"]:
                nodes.append(
                    {
                        "id": cand["key"],
                        "kind": "candidate",
                        "title": cand["title"],
                        "year": cand["year"],
                        "authors": cand["authors"],
                        "score": cand["score"],
                    }
                )
                for seed in cand["why"]["cited_by_seeds"]:
                    out_edges.append({"source": seed, "target": cand["key"], "kind": "cites"})
                for seed in cand["why"]["cites_seeds"]:
                    out_edges.append({"source": cand["key"], "target": seed, "kind": "cites"})
            out["snowball"] = {k: v for k, v in snowball.items() if k != "candidates"}
        return out


def _authors(raw: Any) -> list[str]:
    if isinstance(raw, list):
        return [str(a) for a in raw]
    try:
        value = json.loads(raw or "[]")
    except (TypeError, ValueError):
        return []
    return [str(a) for a in value] if isinstance(value, list) else []
