"""A compact in-memory vector copy for large libraries: binary codes, then int8 rescoring.

At a million 384-dimension chunks a float32 copy is 1.5 GB and one matrix-vector product
reads all of it per query. This copy keeps two smaller forms of the same (unit) vectors,
both taken after subtracting the mean vector, which ranks exactly as the raw vectors do
(``q·x = q·(x - m) + q·m`` and ``q·m`` is the same for every row):

- one sign bit per dimension (48 bytes a chunk at 384 dimensions), scanned in full with
  XOR and popcount to keep the few thousand rows nearest in Hamming distance;
- one int8 per dimension with a per-dimension scale (384 bytes a chunk), used to score
  only those candidates, and whose score is returned.

Past ``PARTITION_MIN_ROWS`` rows the codes are also grouped into k-means lists (an
inverted file over the same rows), and an unfiltered query's binary pass reads only the
lists nearest it: about 3% of the rows instead of all of them.

Both live in numpy arrays (the scans release the GIL, so hybrid's FTS runs beside them).
The first pass is approximate and the int8 score near exact: ``bench/bench_latency.py``
prints the recall@10 against exact float search that this trade gives.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

WORD_BITS = 64
# rows kept by the binary pass before int8 rescoring: on the realistic 1M corpus the exact
# top 10 (after float rescoring) was found in 0.925 of cases from 2,000, 0.967 from 5,000,
# 0.990 from 10,000 and 0.995 from 20,000, the scan costing the same (docs/benchmarks.md)
MIN_CANDIDATES = 10_000
CANDIDATES_PER_HIT = 8  # ... or this many per hit asked for, when more
BLOCK = 1 << 16  # rows per step of the binary scan
# Past PARTITION_MIN_ROWS rows an unfiltered search scans only the rows of the lists
# nearest the query (an inverted file: k-means over a sample, every row in the list of its
# nearest centre, about sqrt(n) lists). On the realistic 1M corpus (100 SciFact queries,
# exact top 10 from vec0): 30 of 1,000 lists and the best 12,000 of their rows by Hamming
# distance gave recall@10 0.990 in 13.6 ms, as the full scan with 10,000 candidates did in
# 20.6; 20 lists and 8,000 rows 0.981, 50 lists and 10,000 rows 0.992 in 15.3 ms
# (docs/benchmarks.md section 8). Filtered searches scan every row, as before.
PARTITION_MIN_ROWS = 200_000
PROBE_SHARE = 0.03  # lists scanned per query, as a share of the lists
MIN_PROBES = 8
PARTITION_CANDIDATES = 12_000
KMEANS_SAMPLE = 50_000
KMEANS_ROUNDS = 8
ASSIGN_BLOCK = 8192
RESCORE_BLOCK = 1024  # int8 rows converted to float32 at a time (1.5 MB)


@dataclass(frozen=True)
class Partition:
    """Rows grouped by their nearest k-means centre (centred space): the binary codes
    copied in that order, so a list's codes are one contiguous slice."""

    centres: np.ndarray  # float32 (lists, dim)
    centre_norms: np.ndarray  # float32 (lists,): |c|^2
    order: np.ndarray  # int64 (n,): the row at each position
    offsets: np.ndarray  # int64 (lists + 1,): list l holds positions offsets[l]:offsets[l+1]
    codes: np.ndarray  # uint64 (words, n), codes[:, order]

    def positions(self, centred: np.ndarray, probes: int) -> np.ndarray:
        """The positions of the rows in the ``probes`` lists nearest the query."""
        distance = self.centre_norms - 2 * (self.centres @ centred)
        probes = min(probes, len(distance))
        nearest = np.argpartition(distance, probes - 1)[:probes]
        starts, ends = self.offsets[nearest], self.offsets[nearest + 1]
        lengths = ends - starts
        total = int(lengths.sum())
        before = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        return np.repeat(starts - before, lengths) + np.arange(total)


@dataclass
class QuantizedVectors:
    """Binary codes (``words x n``, transposed so each scan step reads contiguous memory)
    and int8 rows (``n x dim``) of mean-centred unit vectors."""

    mean: np.ndarray  # float32 (dim,)
    scale: np.ndarray  # float32 (dim,): int8 value 127 stands for this much
    codes: np.ndarray  # uint64 (words, n)
    rows: np.ndarray  # int8 (n, dim)
    count: int = 0
    partition: Partition | None = None

    @classmethod
    def allocate(cls, sample: np.ndarray, capacity: int) -> QuantizedVectors:
        """Empty arrays for ``capacity`` rows; mean and scales come from ``sample``
        (unit vectors; a few thousand rows are enough for both)."""
        sample = _unit(np.asarray(sample, dtype=np.float32))
        dim = sample.shape[1]
        mean = sample.mean(axis=0).astype(np.float32)
        spread = np.percentile(np.abs(sample - mean), 99.9, axis=0).astype(np.float32)
        scale = np.maximum(spread, 1e-6).astype(np.float32)
        words = (dim + WORD_BITS - 1) // WORD_BITS
        return cls(
            mean=mean,
            scale=scale,
            codes=np.zeros((words, capacity), dtype=np.uint64),
            rows=np.zeros((capacity, dim), dtype=np.int8),
        )

    @property
    def dim(self) -> int:
        return int(self.mean.shape[0])

    def add(self, vectors: np.ndarray) -> None:
        """Append a batch of vectors (normalised here)."""
        centred = _unit(np.asarray(vectors, dtype=np.float32)) - self.mean
        end = self.count + len(centred)
        self.partition = None  # built over the rows it saw: again once all are in
        self.rows[self.count : end] = np.clip(np.rint(centred / self.scale * 127), -127, 127)
        self.codes[:, self.count : end] = self._pack(centred).T
        self.count = end

    def _pack(self, centred: np.ndarray) -> np.ndarray:
        """Sign bits, ``len(centred) x words`` uint64 (padding bits are 0 in every code)."""
        words = self.codes.shape[0]
        bits = centred > 0
        if bits.shape[1] != words * WORD_BITS:
            padded = np.zeros((len(bits), words * WORD_BITS), dtype=bool)
            padded[:, : bits.shape[1]] = bits
            bits = padded
        return np.packbits(bits, axis=1).view(">u8").astype(np.uint64)

    def hamming(self, query: np.ndarray) -> np.ndarray:
        """Hamming distance of the query's code to every row (uint16), in blocks small
        enough that the temporaries stay in the CPU cache."""
        code = self._pack(_unit(query[None, :]) - self.mean)[0]
        n = self.count
        distance = np.empty(n, dtype=np.uint16)
        scratch = np.empty(min(n, BLOCK), dtype=np.uint64)
        for start in range(0, n, BLOCK):
            end = min(n, start + BLOCK)
            out = distance[start:end]
            xor = scratch[: end - start]
            np.bitwise_xor(self.codes[0, start:end], code[0], out=xor)
            out[:] = np.bitwise_count(xor)
            for word in range(1, len(code)):
                np.bitwise_xor(self.codes[word, start:end], code[word], out=xor)
                out += np.bitwise_count(xor)
        return distance

    def search(
        self, query: np.ndarray, k: int, keep: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Row indices and cosine scores of the (near) ``k`` best rows, best first;
        ``keep`` is a boolean mask of the rows allowed (filters)."""
        query = _unit(np.asarray(query, dtype=np.float32)[None, :])[0]
        wanted = max(MIN_CANDIDATES, k * CANDIDATES_PER_HIT)
        if keep is not None:
            allowed = np.flatnonzero(keep[: self.count])
            if len(allowed) <= wanted:  # a narrow filter: score every allowed row
                return self._rescore(query, allowed, k)
            distance = self.hamming(query)
            distance[~keep[: self.count]] = np.iinfo(np.uint16).max
        else:
            if self.count <= wanted:
                return self._rescore(query, np.arange(self.count), k)
            if self.partition is not None:
                return self._search_lists(query, k)
            distance = self.hamming(query)
        return self._rescore(query, _smallest(distance, wanted), k)

    def _search_lists(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The binary pass over the nearest lists' rows only, then int8 rescoring."""
        partition = self.partition
        assert partition is not None
        centred = query - self.mean
        lists = len(partition.centre_norms)
        probes = max(MIN_PROBES, int(np.ceil(lists * PROBE_SHARE)))
        positions = partition.positions(centred, probes)
        code = self._pack(centred[None, :])[0]
        distance = np.zeros(len(positions), dtype=np.uint16)
        for word in range(len(code)):
            codes = partition.codes[word, positions]
            distance += np.bitwise_count(np.bitwise_xor(codes, code[word])).astype(np.uint16)
        wanted = max(PARTITION_CANDIDATES, k * CANDIDATES_PER_HIT)
        kept = _smallest(distance, wanted) if len(positions) > wanted else slice(None)
        return self._rescore(query, partition.order[positions[kept]], k)

    def build_partition(self, seed: int = 0) -> None:
        """Group the rows into about sqrt(n) lists (k-means over a sample of the int8 rows,
        each row in the list of its nearest centre); nothing below PARTITION_MIN_ROWS."""
        n = self.count
        if n < PARTITION_MIN_ROWS:
            self.partition = None
            return
        rng = np.random.default_rng(seed)
        step = (self.scale / 127).astype(np.float32)
        lists = int(np.sqrt(n))
        sample = np.sort(rng.choice(n, min(n, KMEANS_SAMPLE), replace=False))
        points = self.rows[sample].astype(np.float32) * step
        centres = points[rng.choice(len(points), lists, replace=False)].copy()
        for _ in range(KMEANS_ROUNDS):
            nearest = _nearest_centres(points, centres)
            grouped = np.argsort(nearest, kind="stable")
            ids = nearest[grouped]
            starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
            sums = np.add.reduceat(points[grouped], starts, axis=0)
            counts = np.diff(np.r_[starts, len(ids)])
            centres[ids[starts]] = sums / counts[:, None]  # an empty list keeps its centre
        assigned = np.empty(n, dtype=np.int32)
        for start in range(0, n, ASSIGN_BLOCK):
            block = self.rows[start : start + ASSIGN_BLOCK].astype(np.float32) * step
            assigned[start : start + len(block)] = _nearest_centres(block, centres)
        order = np.argsort(assigned, kind="stable")
        offsets = np.searchsorted(assigned[order], np.arange(lists + 1)).astype(np.int64)
        self.partition = Partition(
            centres=centres,
            centre_norms=(centres * centres).sum(axis=1),
            order=order.astype(np.int64),
            offsets=offsets,
            codes=np.ascontiguousarray(self.codes[:, :n][:, order]),
        )

    def _rescore(
        self, query: np.ndarray, candidates: np.ndarray, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        if len(candidates) == 0:
            return candidates.astype(np.int64), np.zeros(0, dtype=np.float32)
        weights = (query * self.scale / 127).astype(np.float32)
        # rows gathered in memory order and converted a block at a time (the float32
        # block stays in the CPU cache): 12,000 rows of a million in ~4.5 ms, not ~7
        candidates = np.sort(candidates)
        scores = np.empty(len(candidates), dtype=np.float32)
        for start in range(0, len(candidates), RESCORE_BLOCK):
            rows = self.rows[candidates[start : start + RESCORE_BLOCK]].astype(np.float32)
            # einsum, not BLAS: a small product where BLAS threads only add hand-over cost
            scores[start : start + len(rows)] = np.einsum("ij,j->i", rows, weights)
        scores += float(query @ self.mean)
        top = min(k, len(candidates))
        part = np.argpartition(-scores, top - 1)[:top]
        order = part[np.argsort(-scores[part], kind="stable")]
        return candidates[order].astype(np.int64), scores[order]

    def nbytes(self) -> int:
        extra = 0
        if self.partition is not None:
            extra = self.partition.codes.nbytes + self.partition.order.nbytes
        return int(self.codes.nbytes + self.rows.nbytes + extra)


def _smallest(distance: np.ndarray, wanted: int) -> np.ndarray:
    """Indices of the ``wanted`` smallest distances (ties at the cut all kept), found
    with a histogram of the few hundred possible values instead of a full partition."""
    counts = np.bincount(distance, minlength=1)
    cut = int(np.searchsorted(np.cumsum(counts), wanted))
    # rows filtered out carry the maximum value; never let the cut reach them
    cut = min(cut, np.iinfo(np.uint16).max - 1)
    return np.flatnonzero(distance <= cut)


def _nearest_centres(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Index of each point's nearest centre (squared Euclidean distance), a block of
    points at a time so the distance matrix stays small (8,192 x 1,000 floats: 32 MB)."""
    norms = (centres * centres).sum(axis=1)
    nearest = np.empty(len(points), dtype=np.int64)
    for start in range(0, len(points), ASSIGN_BLOCK):
        block = points[start : start + ASSIGN_BLOCK]
        nearest[start : start + len(block)] = np.argmin(norms - 2 * (block @ centres.T), axis=1)
    return nearest


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def build(batches: Iterable[np.ndarray], sample: np.ndarray, capacity: int) -> QuantizedVectors:
    """Quantise batches of vectors into a copy sized for ``capacity`` rows."""
    index = QuantizedVectors.allocate(sample, capacity)
    for batch in batches:
        index.add(batch)
    return index
