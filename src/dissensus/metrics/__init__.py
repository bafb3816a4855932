"""Soft metrics: pointwise, expected under a Dirichlet posterior, debiased, and the LeWiDi scorers.

Every metric takes ``(target, prediction)`` (N, K) arrays and returns one
score per item (N,); the registry (:func:`get_metric`, :func:`list_metrics`)
holds each one's metadata.
"""

from dissensus.metrics import debiased, expected, lewidi
from dissensus.metrics._pointwise import (
    canberra,
    chebyshev,
    clark,
    cosine,
    cross_entropy,
    emd,
    entropy,
    euclidean,
    fidelity,
    hellinger,
    intersection,
    js_distance,
    js_divergence,
    kl_divergence,
    kl_divergence_reverse,
    manhattan,
    sorensen,
    squared_chi2,
    squared_euclidean,
)
from dissensus.metrics._registry import REGISTRY, Metric, get_metric, list_metrics, register_metric

#: Built-in metrics with ``func(p, q) == func(q, p)`` (drives the shared symmetry tests).
SYMMETRIC_METRICS = frozenset(list_metrics(symmetric=True, unary=None))
#: Built-in metrics with a finite range for each K (drives the shared bound tests).
BOUNDED_METRICS = frozenset(list_metrics(bounded=True, unary=None))
#: Built-in metrics that depend on the order of the classes.
ORDINAL_METRICS = frozenset(list_metrics(needs_order=True, unary=None))
#: Built-in expected metrics (take Dirichlet ``alpha``).
EXPECTED_METRICS = frozenset(list_metrics(kind="expected", unary=None))
#: Built-in debiased metrics (take label counts).
DEBIASED_METRICS = frozenset(list_metrics(kind="debiased", unary=None))

__all__ = [
    "BOUNDED_METRICS",
    "DEBIASED_METRICS",
    "EXPECTED_METRICS",
    "ORDINAL_METRICS",
    "REGISTRY",
    "SYMMETRIC_METRICS",
    "Metric",
    "canberra",
    "chebyshev",
    "clark",
    "cosine",
    "cross_entropy",
    "debiased",
    "emd",
    "entropy",
    "euclidean",
    "expected",
    "fidelity",
    "get_metric",
    "hellinger",
    "intersection",
    "js_distance",
    "js_divergence",
    "kl_divergence",
    "kl_divergence_reverse",
    "lewidi",
    "list_metrics",
    "manhattan",
    "register_metric",
    "sorensen",
    "squared_chi2",
    "squared_euclidean",
]
