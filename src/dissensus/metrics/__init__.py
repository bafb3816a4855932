"""Soft metrics: pointwise, expected under a Dirichlet posterior, debiased, and the LeWiDi scorers.

Every metric takes ``(target, prediction)`` (N, K) arrays and returns one
score per item (N,), except the corpus-level measures of
:mod:`~dissensus.metrics.variation` (one number); the registry
(:func:`get_metric`, :func:`list_metrics`) holds each one's metadata;
:mod:`~dissensus.metrics.gradients` the derivatives in the prediction that the
training objectives use.
"""

from dissensus.metrics import debiased, expected, gradients, lewidi, variation
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
    rps,
    sorensen,
    squared_chi2,
    squared_euclidean,
)
from dissensus.metrics._registry import REGISTRY, Metric, get_metric, list_metrics, register_metric

__all__ = [
    "REGISTRY",
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
    "gradients",
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
    "rps",
    "sorensen",
    "squared_chi2",
    "squared_euclidean",
    "variation",
]
