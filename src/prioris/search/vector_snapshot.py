"""One loaded vector copy and what it answers: owners, filter masks, nearest rows.

A :class:`Snapshot` is the in-memory copy of :mod:`prioris.search.vector_copy` once it is
filled: the chunk ids, the vectors (float32 unit rows, or the compact
:class:`~prioris.search.quantized.QuantizedVectors`) and the metadata the filters test,
coded as small integers. It is immutable and knows nothing of the database: a filter
becomes a boolean mask over its rows, and the nearest rows that pass are ranked in numpy
(the float form on one BLAS thread). When to keep a copy, how it is loaded and when it
is stale are :mod:`prioris.search.vector_copy`'s; this is the part a query runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from prioris.search.protocols import SearchFilters
from prioris.search.quantized import QuantizedVectors


@cache
def _blas() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread() -> AbstractContextManager[Any]:
    """The float copy's scan on one BLAS thread. OpenBLAS's second thread halves a lone
    matrix-vector product, but then spins idle on the core the next query embedding (ONNX
    Runtime) and hybrid's FTS half need: SciFact vector searches took 19 ms with it and 9
    without, at 100k chunks 30.3 against 24.0 ms p50 (docs/benchmarks.md, section 8)."""
    return _blas().limit(limits=1, user_api="blas")


@dataclass(frozen=True)
class Snapshot:
    version: int
    chunk_ids: np.ndarray
    matrix: np.ndarray | None  # float32 unit rows (exact form)
    quantized: QuantizedVectors | None  # compact form
    work_codes: np.ndarray
    work_names: list[str]
    work_index: dict[str, int]
    source_codes: np.ndarray
    source_index: dict[str, int]
    years: np.ndarray
    # chunk ids in ascending order, and the row of each (None: the rows already are)
    sorted_ids: np.ndarray | None = None
    sorted_rows: np.ndarray | None = None

    def owners(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        """The work of each given chunk this copy holds, without reading the library.

        At a million chunks the full-text half of a search names a few hundred chunks
        whose rows sit on as many random pages of the chunks table (text and all): reading
        their works back cost 110-230 ms cold. Chunks never change work, and a copy is
        used only while no vector (so no chunk with one) was added or deleted since it
        was loaded, so what it says of a chunk it holds is what the table says."""
        ids = self.chunk_ids if self.sorted_ids is None else self.sorted_ids
        if len(ids) == 0 or not chunk_ids:
            return {}
        wanted = np.asarray(chunk_ids, dtype=np.int64)
        at = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
        held = ids[at] == wanted
        rows = at[held] if self.sorted_rows is None else self.sorted_rows[at[held]]
        names, codes = self.work_names, self.work_codes
        return {int(c): names[codes[r]] for c, r in zip(wanted[held], rows, strict=True)}

    def mask(self, filters: SearchFilters) -> np.ndarray | None:
        keep: np.ndarray | None = None

        def both(cond: np.ndarray) -> None:
            nonlocal keep
            keep = cond if keep is None else keep & cond

        if filters.source:
            both(self.source_codes == self.source_index.get(filters.source, -1))
        undated = self.years == 0  # the vector table's unknown year, copied as it is
        if filters.undated_only:
            both(undated)
        elif filters.has_years:
            dated = ~undated
            if filters.from_year is not None:
                dated &= self.years >= filters.from_year
            if filters.to_year is not None:
                dated &= self.years <= filters.to_year
            both(dated | undated if filters.include_undated else dated)
        if filters.work_ids is not None:
            codes = [self.work_index[w] for w in filters.work_ids if w in self.work_index]
            both(np.isin(self.work_codes, np.asarray(codes, dtype=np.int32)))
        return keep

    def nearest(
        self, query: np.ndarray, filters: SearchFilters, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Row indices and cosine scores of the k nearest rows that pass the filters."""
        mask = self.mask(filters)
        if self.quantized is not None:
            return self.quantized.search(query, k, keep=mask)
        assert self.matrix is not None
        with one_blas_thread():
            scores = self.matrix @ np.asarray(query, dtype=np.float32)
        if mask is None:  # no filter: rank every row in place, no index copies
            top = min(k, len(scores))
            part = np.argpartition(scores, len(scores) - top)[len(scores) - top :]
            picked = part[np.argsort(-scores[part], kind="stable")]
        else:
            candidates = np.flatnonzero(mask)
            if len(candidates) == 0:
                return candidates, scores[:0]
            chosen = scores[candidates]
            top = min(k, len(candidates))
            part = np.argpartition(-chosen, top - 1)[:top]
            picked = candidates[part[np.argsort(-chosen[part], kind="stable")]]
        return picked, scores[picked]
