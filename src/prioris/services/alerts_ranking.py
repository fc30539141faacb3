"""Candidates ranked for each collection of the library (and the library as a whole):
the flow behind ``Library.rank_alerts``.

It reads what the ranking needs from the library (every work's title, text and own
vector, the collections and their works), embeds with the library's model any work whose
vector is not current yet and the remembered candidates, and hands everything to
:mod:`prioris.alerts.ranking`, which trains one model per profile; the candidate pool is
embedded once for every profile, only its shortlist when it is large
(:meth:`~prioris.alerts.ranking.Ranking.embed_shortlist`). Candidates the library
already holds (an alias it knows, or the same title and year) are marked ``in_library``.
Remembered accepts and dismissals (the alerts' state, kept by a later service) come in as
``feedback`` candidates with, per profile, the ids accepted and dismissed.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from prioris.alerts.protocols import Candidate
from prioris.errors import InvalidRequestError, NotFoundError
from prioris.identifiers import parse_identifier
from prioris.storage import labels as label_store

LIBRARY = "(library)"
"""The profile of the whole library, beside its collections."""
MAX_K = 1000
MAX_CANDIDATES = 50_000


def _embedding_text(title: str, text: str) -> str:
    """What a work's own vector embeds (``ingest.embed.work_text``): title, then text."""
    return f"{title}\n{text}" if title and not text.startswith(title) else text


def _aliases(candidate: Candidate) -> list[str]:
    """A candidate's id and identifiers, each also in its stored (canonical) form."""
    out = []
    for value in (candidate.id, *candidate.identifiers):
        out.append(value)
        with contextlib.suppress(InvalidRequestError):
            out.append(parse_identifier(value).canonical)
    return list(dict.fromkeys(out))


class AlertsRanking:
    """Ranking candidate papers against the library's collections."""

    def __init__(
        self,
        conn: Any,
        lock: threading.RLock,
        embedder: Any,
        known_aliases: Callable[[Sequence[str]], set[str]],
    ) -> None:
        self.conn = conn
        self.lock = lock
        self.embedder = embedder
        self.known_aliases = known_aliases

    def _profiles_named(self, collections: Sequence[str] | None) -> list[tuple[str, set[str]]]:
        """``(name, work ids)`` of each profile asked for: the named collections (each with
        its subcollections; ``"(library)"`` names the whole library), or every collection
        and the whole library."""
        with self.lock:
            every = [path for path, _ in label_store.collection_counts(self.conn)]
            if collections is None:
                named = [
                    (path, label_store.works_in(self.conn, collections=(path,), tags=()) or set())
                    for path in every
                ]
                return [(LIBRARY, set()), *named]
            out = []
            if LIBRARY in collections:  # the whole library, as an alert from a search asks
                out.append((LIBRARY, set()))
                collections = [c for c in collections if c != LIBRARY]
            for name in label_store.filter_names(collections, "collection"):
                members = label_store.works_in(self.conn, collections=(name,), tags=())
                if not members:
                    raise NotFoundError(f"no collection {name!r} with works in the library")
                out.append((name, members))
            return out

    def rank_alerts(
        self,
        candidates: Sequence[Candidate],
        collections: Sequence[str] | None = None,
        k: int = 20,
        *,
        feedback: Sequence[Candidate] = (),
        accepted: Mapping[str, Sequence[str]] | None = None,
        dismissed: Mapping[str, Sequence[str]] | None = None,
    ) -> list[dict[str, Any]]:
        """Each profile's ``k`` best candidates: ``[{"collection", "candidates": [{"id",
        "title", "score", "why", "in_library"}]}]``, the whole library first (as
        ``"(library)"``) when no collection is named. ``feedback``: remembered candidates;
        ``accepted``/``dismissed``: profile name -> ids among them (positives/negatives)."""
        from prioris.alerts.ranking import Item, Profile, Ranking, candidate_text
        from prioris.storage import profile_texts
        from prioris.storage import work_vectors as work_vector_store

        if not 1 <= k <= MAX_K:
            raise InvalidRequestError(f"k must be between 1 and {MAX_K}, got {k}")
        if len(candidates) > MAX_CANDIDATES:
            raise InvalidRequestError(f"at most {MAX_CANDIDATES} candidates, got {len(candidates)}")
        if isinstance(collections, str):
            collections = [collections]
        profiles = self._profiles_named(collections)
        with self.lock:
            works = profile_texts.work_texts(self.conn)
            vectors = work_vector_store.read(self.conn, [w[0] for w in works])
        pool = list({c.id: c for c in candidates}.values())  # one per id, the last given
        in_library = self._in_library(works, pool)
        every = {w[0] for w in works}
        wanted = [
            Profile(
                name,
                frozenset(
                    (every if name == LIBRARY else members) | set((accepted or {}).get(name, ()))
                ),
                frozenset((dismissed or {}).get(name, ())),
            )
            for name, members in profiles
        ]
        # the library's vectors are stored; works without a current one and the remembered
        # candidates are embedded here, the pool's shortlist once it is known
        missing = [w for w in works if w[0] not in vectors]
        texts = [candidate_text(c.title, c.text) for c in feedback]  # as they were ranked
        texts += [_embedding_text(w[1], w[3]) for w in missing]
        known = self.embedder.embed_passages(texts) if texts else []
        for at, work in enumerate(missing, len(feedback)):
            vectors[work[0]] = known[at]
        ranking = Ranking(
            [Item(w[0], w[1], w[3], vectors[w[0]]) for w in works],
            [Item(c.id, c.title, c.text, None) for c in pool],
            feedback=[Item(c.id, c.title, c.text, known[i]) for i, c in enumerate(feedback)],
        )
        # a pool larger than a profile's shortlist: only what some profile's lexical model
        # puts among its best is embedded (docs/benchmarks.md: nothing lost)
        ranking.embed_shortlist(wanted, self.embedder.embed_passages, k)
        links = {c.id: c.extra.get("link", "") for c in pool}
        out = []
        for profile in wanted:
            ranked = ranking.rank(profile, k) if pool else []
            out.append(
                {
                    "collection": profile.name,
                    "candidates": [
                        {
                            "id": r.id,
                            "title": r.title,
                            "score": round(r.score, 6),
                            "why": r.why(),
                            "in_library": r.id in in_library,
                            **({"link": links[r.id]} if links.get(r.id) else {}),
                        }
                        for r in ranked
                    ],
                }
            )
        return out

    def _in_library(
        self, works: Sequence[tuple[str, str, int | None, str]], pool: Sequence[Candidate]
    ) -> set[str]:
        """Ids of the candidates the library already holds (by alias, title + year)."""
        from prioris.alerts.known import match_titles

        aliases = {c.id: _aliases(c) for c in pool}
        known = self.known_aliases(sorted({a for names in aliases.values() for a in names}))
        found = {cid for cid, names in aliases.items() if any(a in known for a in names)}
        titled = match_titles([(w[0], w[1], w[2]) for w in works], pool)
        return found | set(titled)
