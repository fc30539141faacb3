"""``Library.evidence`` and ``Library.cite_check``: sentences an agent can quote, and a
check that a work it is about to cite says what the sentence claims.

The finding and ranking are :mod:`prioris.search.evidence` (no language model inside:
the calling agent writes, Prioris grounds); this service resolves the filters as a search
does (:class:`~prioris.services.searching.Searching`), names each work by its citation
key (:func:`prioris.export.keys.citation_key`, the key ``export`` writes) and finds the
work a check names by id, alias, DOI or citation key.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from prioris.errors import InvalidRequestError
from prioris.export.keys import citation_key
from prioris.strings import without_surrogates


class EvidenceService:
    """Evidence and citation checks over the library's search service."""

    def __init__(self, searcher: Callable[[], Any], searching: Any, catalog: Any) -> None:
        self.searcher = searcher  # built on first use: it loads the model
        self.searching = searching  # the filters, as a search resolves them
        self.catalog = catalog  # works, ids and citation keys
        self._kept: Any = None
        self._lock = threading.Lock()

    def _finder(self) -> Any:
        """One finder for the library's life (it keeps recent sentence vectors)."""
        with self._lock:
            if self._kept is None:
                from prioris.search.evidence.finder import EvidenceFinder

                self._kept = EvidenceFinder(self.searcher())
            return self._kept

    def evidence(
        self,
        claim: str,
        *,
        k: int = 5,
        source: str | None = None,
        from_year: int | None = None,
        to_year: int | None = None,
        ids: Sequence[str] | None = None,
        include_undated: bool = False,
        collections: str | Sequence[str] | None = None,
        tags: str | Sequence[str] | None = None,
        back_matter: bool = False,
    ) -> dict[str, Any]:
        """The ``k`` sentences of the library that best state (or contradict) the claim:
        ``{"query", "evidence": [...]}``, each item a verbatim span of a work's stored text
        with its page, offsets, context and per-leg ranks (docs/usage.md, "Evidence")."""
        claim = self._claim(claim)
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 50:
            raise InvalidRequestError(f"k must be an integer from 1 to 50, got {k!r}")
        filters = self.searching.filters(
            source=source,
            from_year=from_year,
            to_year=to_year,
            ids=ids,
            include_undated=include_undated,
            collections=collections,
            tags=tags,
        )
        items = self._finder().find(claim, k=k, filters=filters, back_matter=back_matter)
        return {"query": claim, "evidence": self._with_keys(items)}

    def cite_check(self, claim: str, work: str, *, back_matter: bool = False) -> dict[str, Any]:
        """Whether the work (id, alias, DOI or citation key) supports the sentence: its
        best sentence for it, and ``found`` false when nothing in it does."""
        claim = self._claim(claim)
        work_id = self.resolve(work)
        check = self._finder().check(claim, work_id, back_matter=back_matter)
        answer: dict[str, Any] = {
            "work_id": work_id,
            "found": check.found,
            "similarity": _rounded(check.similarity),
            "coverage": _rounded(check.coverage),
        }
        if check.best is None:
            title = self.catalog.get_work(work_id).title
            empty = dict.fromkeys(("sentence", "start", "end", "page", "context", "score"))
            return {**answer, "citekey": self._key(work_id), "title": title, **empty}
        item = self._with_keys([check.best])[0]
        return {**answer, **{k: v for k, v in item.items() if k not in answer}}

    def resolve(self, text: str) -> str:
        """The stored work a check names: any id, alias, identifier or citation key the
        library resolves (:meth:`prioris.services.catalog.Catalog.resolve_work_id`)."""
        return str(self.catalog.resolve_work_id(text))

    # -- helpers -------------------------------------------------------------------------
    @staticmethod
    def _claim(claim: str) -> str:
        if not isinstance(claim, str) or not claim.strip():
            raise InvalidRequestError("a claim or question is required")
        return without_surrogates(claim)  # its length is checked as a search query's

    def _key(self, work_id: str) -> str:
        return citation_key(self.catalog.get_work(work_id))

    def _with_keys(self, items: list[Any]) -> list[dict[str, Any]]:
        from prioris.search.evidence.finder import with_citekeys

        keys = {item.work_id: self._key(item.work_id) for item in items}
        return with_citekeys(items, keys)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
