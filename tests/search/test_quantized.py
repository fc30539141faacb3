"""The compact vector copy: binary first pass, int8 rescoring, filters inside the pass."""

from __future__ import annotations

import numpy as np
import pytest

from prioris.search import quantized
from prioris.search.quantized import QuantizedVectors, build


def _clustered(n: int, dim: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Vectors around a few hundred centres (real embeddings cluster), and queries near
    some of the centres."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((300, dim)).astype(np.float32) + 0.5
    vectors = centres[rng.integers(0, 300, n)] + 0.5 * rng.standard_normal((n, dim))
    queries = centres[rng.integers(0, 300, 20)] + 0.5 * rng.standard_normal((20, dim))
    return vectors.astype(np.float32), queries.astype(np.float32)


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch) -> tuple[QuantizedVectors, np.ndarray, np.ndarray]:
    monkeypatch.setattr(quantized, "MIN_CANDIDATES", 300)  # the binary pass must prune
    monkeypatch.setattr(quantized, "BLOCK", 1000)  # and scan in several blocks
    vectors, queries = _clustered(6000, 96, seed=1)
    built = build((vectors[i : i + 1000] for i in range(0, 6000, 1000)), vectors[:2000], 6000)
    return built, _unit(vectors), _unit(queries)


def test_recall_against_exact_search(index) -> None:  # type: ignore[no-untyped-def]
    built, vectors, queries = index
    recalls = []
    for query in queries:
        exact = np.argsort(-(vectors @ query))[:10]
        found, scores = built.search(query, 10)
        assert len(found) == 10
        assert np.all(np.diff(scores) <= 1e-6)  # best first
        # the int8 score is the cosine up to quantisation error
        assert scores == pytest.approx(vectors[found] @ query, abs=0.02)
        recalls.append(len(set(exact) & set(found)) / 10)
    assert np.mean(recalls) >= 0.9


def test_hamming_distance_counts_differing_signs(index) -> None:  # type: ignore[no-untyped-def]
    built, vectors, _ = index
    distance = built.hamming(vectors[5])
    assert distance[5] == 0
    centred = _unit(vectors) - built.mean
    expected = np.count_nonzero((centred > 0) != (centred[5] > 0), axis=1)
    assert np.array_equal(distance, expected)


def test_filters_inside_the_first_pass_still_return_k(index) -> None:  # type: ignore[no-untyped-def]
    built, vectors, queries = index
    keep = np.zeros(len(vectors), dtype=bool)
    keep[::7] = True  # wide filter: the binary pass runs over the allowed rows only
    found, _ = built.search(queries[0], 25, keep=keep)
    assert len(found) == 25 and keep[found].all()
    exact = np.flatnonzero(keep)[np.argsort(-(vectors[keep] @ queries[0]))[:25]]
    assert len(set(exact) & set(found)) >= 20
    narrow = np.zeros(len(vectors), dtype=bool)
    narrow[[3, 50, 999]] = True  # narrow filter: every allowed row scored
    found, _ = built.search(queries[0], 10, keep=narrow)
    assert sorted(found) == [3, 50, 999]
    assert len(built.search(queries[0], 5, keep=np.zeros(len(vectors), dtype=bool))[0]) == 0


def test_dimensions_not_a_multiple_of_64() -> None:
    vectors, queries = _clustered(500, 40, seed=2)
    built = build([vectors], vectors, 500)
    assert built.codes.shape == (1, 500)
    found, _ = built.search(_unit(queries[0]), 3)
    assert found[0] == np.argmax(_unit(vectors) @ _unit(queries[0]))


@pytest.fixture
def partitioned(
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[QuantizedVectors, np.ndarray, np.ndarray]:
    """A copy large enough (as far as the thresholds say) to be grouped into lists."""
    monkeypatch.setattr(quantized, "PARTITION_MIN_ROWS", 1000)
    monkeypatch.setattr(quantized, "MIN_CANDIDATES", 300)
    monkeypatch.setattr(quantized, "PARTITION_CANDIDATES", 600)
    monkeypatch.setattr(quantized, "KMEANS_SAMPLE", 3000)
    monkeypatch.setattr(quantized, "PROBE_SHARE", 0.15)
    monkeypatch.setattr(quantized, "ASSIGN_BLOCK", 1000)  # several blocks
    vectors, queries = _clustered(6000, 96, seed=3)
    built = build((vectors[i : i + 1000] for i in range(0, 6000, 1000)), vectors[:2000], 6000)
    built.build_partition()
    return built, _unit(vectors), _unit(queries)


def test_the_lists_hold_every_row_once(partitioned) -> None:  # type: ignore[no-untyped-def]
    built, _, _ = partitioned
    part = built.partition
    assert part is not None
    lists = len(part.centres)
    assert lists == int(np.sqrt(6000))
    assert sorted(part.order.tolist()) == list(range(6000))
    assert part.offsets[0] == 0 and part.offsets[-1] == 6000
    assert np.all(np.diff(part.offsets) >= 0)
    assert np.array_equal(part.codes, built.codes[:, part.order])
    # each row sits in the list of its nearest centre (in the int8 rows' space)
    step = built.scale / 127
    for position in (0, 1234, 5999):
        row = part.order[position]
        listed = int(np.searchsorted(part.offsets, position, side="right") - 1)
        point = built.rows[row].astype(np.float32) * step
        nearest = int(np.argmin(((part.centres - point) ** 2).sum(axis=1)))
        assert listed == nearest
    assert built.nbytes() == built.codes.nbytes + built.rows.nbytes + part.codes.nbytes + (
        part.order.nbytes
    )


def test_a_partitioned_search_keeps_the_recall(partitioned) -> None:  # type: ignore[no-untyped-def]
    built, vectors, queries = partitioned
    scanned: list[int] = []
    real = built.partition.positions

    def counting(centred: np.ndarray, probes: int) -> np.ndarray:
        found = real(centred, probes)
        scanned.append(len(found))
        return found

    object.__setattr__(built.partition, "positions", counting)
    recalls = []
    for query in queries:
        exact = np.argsort(-(vectors @ query))[:10]
        found, scores = built.search(query, 10)
        assert len(found) == 10 and list(scores) == sorted(scores, reverse=True)
        assert np.allclose(scores, vectors[found] @ query, atol=0.02)  # int8 scores
        recalls.append(len(set(found.tolist()) & set(exact.tolist())) / 10)
    assert len(scanned) == len(queries)
    assert max(scanned) < 6000 * 0.5  # only some lists were scanned
    assert np.mean(recalls) >= 0.9


def test_filtered_searches_and_small_copies_scan_every_row(partitioned) -> None:  # type: ignore[no-untyped-def]
    built, vectors, queries = partitioned
    keep = np.zeros(6000, dtype=bool)
    keep[::7] = True
    built.partition = type(built.partition)(  # a partition that must not be read
        *(np.zeros(0) for _ in range(5))
    )
    found, _ = built.search(queries[0], 10, keep=keep)
    assert len(found) == 10 and all(keep[i] for i in found)
    small = build([vectors[:500]], vectors[:500], 500)
    small.build_partition()
    assert small.partition is None  # below PARTITION_MIN_ROWS (1000 here)
    small.partition = built.partition
    small.add(vectors[:1])  # a row added after the lists were made drops them
    assert small.partition is None
