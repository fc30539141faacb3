"""A linear model per profile, trained in numpy: L2-regularised squared hinge (a linear SVM,
as arxiv-sanity-lite trains with liblinear) or logistic loss, classes balanced.

The objective is smooth and, with rows of unit length, well conditioned (its curvature is
at most ``1 + 2C * n``), so plain Nesterov-accelerated gradient descent with a fixed step
reaches liblinear's solution to a few decimals in a hundred or so steps, each step one
product with the rows and one with their transpose. The rows may be dense
(:class:`DenseRows`), sparse (:class:`~prioris.alerts.terms.SparseRows`) or both side by
side (:class:`Stacked`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np


class Rows(Protocol):
    """What training reads of a feature matrix."""

    @property
    def height(self) -> int: ...

    @property
    def width(self) -> int: ...

    def dot(self, weights: np.ndarray) -> np.ndarray: ...

    def weighted_sum(self, row_weights: np.ndarray) -> np.ndarray: ...

    def take(self, rows: Sequence[int] | np.ndarray) -> Rows: ...


@dataclass(frozen=True)
class DenseRows:
    """A dense matrix as :class:`Rows` (the model's vectors)."""

    values: np.ndarray

    @property
    def height(self) -> int:
        return int(self.values.shape[0])

    @property
    def width(self) -> int:
        return int(self.values.shape[1])

    def dot(self, weights: np.ndarray) -> np.ndarray:
        return np.asarray(self.values @ weights, dtype=np.float64)

    def weighted_sum(self, row_weights: np.ndarray) -> np.ndarray:
        return np.asarray(row_weights @ self.values, dtype=np.float64)

    def take(self, rows: Sequence[int] | np.ndarray) -> DenseRows:
        return DenseRows(self.values[np.asarray(rows, dtype=np.int64)])


@dataclass(frozen=True)
class Stacked:
    """Two feature matrices side by side (the same rows), the second scaled by ``scale``."""

    first: Rows
    second: Rows
    scale: float = 1.0

    @property
    def height(self) -> int:
        return self.first.height

    @property
    def width(self) -> int:
        return self.first.width + self.second.width

    def dot(self, weights: np.ndarray) -> np.ndarray:
        split = self.first.width
        return self.first.dot(weights[:split]) + self.scale * self.second.dot(weights[split:])

    def weighted_sum(self, row_weights: np.ndarray) -> np.ndarray:
        return np.concatenate(
            [
                self.first.weighted_sum(row_weights),
                self.scale * self.second.weighted_sum(row_weights),
            ]
        )

    def take(self, rows: Sequence[int] | np.ndarray) -> Stacked:
        return Stacked(self.first.take(rows), self.second.take(rows), self.scale)


@dataclass(frozen=True)
class LinearModel:
    """Weights and a bias: a row's score is ``row . weights + bias``."""

    weights: np.ndarray
    bias: float

    def scores(self, rows: Rows) -> np.ndarray:
        return rows.dot(self.weights) + self.bias


def _loss_grad(margins: np.ndarray, y: np.ndarray, loss: str) -> np.ndarray:
    """d(loss)/d(score) per row."""
    if loss == "hinge2":
        return np.where(margins < 1.0, -2.0 * y * (1.0 - margins), 0.0)
    return -y / (1.0 + np.exp(np.clip(margins, -50.0, 50.0)))  # logistic


def _largest_eigenvalue(rows: Rows, balance: np.ndarray, rounds: int = 12) -> float:
    """The largest eigenvalue of ``sum_i balance_i [x_i, 1][x_i, 1]^T`` (power iteration;
    its estimate is raised by a tenth, since power iteration approaches it from below)."""
    vector = np.random.default_rng(0).standard_normal(rows.width + 1)
    value = 1.0
    for _ in range(rounds):
        vector /= np.linalg.norm(vector) or 1.0
        projected = balance * (rows.dot(vector[:-1]) + vector[-1])
        image = np.concatenate([rows.weighted_sum(projected), [projected.sum()]])
        value = float(np.linalg.norm(image))
        vector = image
    return 1.1 * value


def fit(
    rows: Rows,
    labels: np.ndarray,
    *,
    c: float = 0.01,
    loss: str = "hinge2",
    steps: int = 150,
) -> LinearModel:
    """Minimise ``|w|^2 / 2 + b^2 / 2 + C * sum_i balance_i * loss(y_i (w.x_i + b))`` (the
    bias regularised as liblinear does), ``labels`` 1 for positives and 0 for negatives,
    each class weighing half (``balance = n / (2 n_class)``: scikit-learn's "balanced").
    The step is the inverse of the objective's curvature, measured on these rows."""
    y = np.where(np.asarray(labels) > 0, 1.0, -1.0)
    n = len(y)
    positives = int((y > 0).sum())
    if positives in (0, n):
        raise ValueError("a linear model needs positives and negatives")
    balance = np.where(y > 0, n / (2.0 * positives), n / (2.0 * (n - positives)))
    curvature = 2.0 if loss == "hinge2" else 0.25
    step = 1.0 / (1.0 + c * curvature * _largest_eigenvalue(rows, balance))
    w = np.zeros(rows.width, dtype=np.float64)
    b = 0.0
    w_prev, b_prev = w.copy(), b
    for t in range(1, steps + 1):
        momentum = (t - 1.0) / (t + 2.0)
        v = w + momentum * (w - w_prev)
        vb = b + momentum * (b - b_prev)
        margins = y * (rows.dot(v) + vb)
        g = c * balance * _loss_grad(margins, y, loss)
        w_prev, b_prev = w, b
        w = v - step * (v + rows.weighted_sum(g))
        b = vb - step * (vb + float(g.sum()))
    return LinearModel(w, b)
