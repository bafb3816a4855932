"""Synthetic soft-label data with signal: ordered distributions driven by the features."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dissensus import LabelCounts, Scale, metrics

K = 5


@dataclass
class Split:
    X_train: np.ndarray
    y_train: LabelCounts
    X_test: np.ndarray
    p_test: np.ndarray  # the true distributions of the test items


def make_data(seed: int = 3, n_items: int = 300, d: int = 8) -> Split:
    rng = np.random.default_rng(seed)
    X = rng.random((n_items, d))  # non-negative, so Naive Bayes can use them too
    beta = rng.normal(size=d)
    s = X @ beta
    s = (s - s.mean()) / s.std()
    mu = 2.0 + 1.4 * s
    k = np.arange(K)
    logits = -((k[None, :] - mu[:, None]) ** 2) / (2 * 0.7**2)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    n = rng.integers(2, 9, size=n_items)
    counts = np.stack([rng.multinomial(m, q) for m, q in zip(n, p, strict=True)])
    cut = 200
    y = LabelCounts.from_array(counts, scale=Scale.ordinal(list(range(K))))
    return Split(X[:cut], y.take(np.arange(cut)), X[cut:], p[cut:])


def emd_to_truth(split: Split, q: np.ndarray) -> float:
    return float(metrics.emd(split.p_test, q).mean())
