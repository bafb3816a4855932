"""What is audited: a metric seen as a loss on (target, prediction) rows.

A :class:`Subject` wraps a registry metric, an expected metric or any
callable ``f(p, q) -> (N,)`` behind one interface the property checks use:
``loss(target, q)``, ``perfect(target)`` (the prediction that matches the
target exactly) and ``targets`` (seeded targets to try).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from dissensus.metrics import Metric, get_metric, list_metrics

__all__ = ["MetricLike", "Subject", "as_subject", "auditable_metrics", "points"]

FloatArray = npt.NDArray[np.float64]
MetricLike = str | Metric | Callable[..., Any]

#: Annotation counts drawn for the targets of expected metrics (their sum is the item's n).
_EXPECTED_N = np.array([0, 1, 2, 3, 4, 5, 10, 20])
#: Grid resolutions: a random grid point has entries that are multiples of 1/m.
_GRIDS = np.array([1, 2, 4, 5, 10, 20])


def _compositions(rng: np.random.Generator, total: npt.NDArray[Any], K: int) -> FloatArray:
    """Random non-negative integer rows of K entries summing to ``total`` (sorted cut points)."""
    cuts = np.sort(np.floor(rng.random((len(total), K - 1)) * (total[:, None] + 1)), axis=1)
    edges = np.column_stack([np.zeros(len(total)), cuts, total.astype(np.float64)])
    out: FloatArray = np.diff(edges, axis=1)
    return out


def points(rng: np.random.Generator, n: int, K: int) -> FloatArray:
    """Seeded points of the simplex: interior, faces (zeros), corners and round grid points."""
    kind = rng.choice(4, size=n, p=[0.35, 0.2, 0.05, 0.4])
    g = rng.standard_exponential((n, K))
    # Faces: keep a random non-empty subset of the classes.
    keep = rng.random((n, K)) < rng.random((n, 1))
    keep[np.arange(n), rng.integers(0, K, n)] = True
    face = np.where(kind[:, None] == 1, g * keep, g)
    x = face / face.sum(axis=1, keepdims=True)
    x = np.where(kind[:, None] == 2, np.eye(K)[rng.integers(0, K, n)], x)
    m = rng.choice(_GRIDS, size=n)
    out: FloatArray = np.where(kind[:, None] == 3, _compositions(rng, m, K) / m[:, None], x)
    return out


@dataclass(frozen=True)
class Subject:
    """A metric under audit.

    Attributes
    ----------
    name : str
        Row label in the audit table.
    func : callable
        ``func(target, q) -> (N,)``, the metric as given.
    lower_is_better : bool
        Direction. A similarity ``s`` with upper bound ``b`` is audited as the
        loss ``b - s`` (so that ``cosine`` is audited as the cosine distance).
    upper : float
        The bound ``b`` used for similarities.
    expected : bool
        The target is Dirichlet ``alpha`` (counts plus a uniform prior of 1),
        not a distribution; the perfect match is the posterior mean.
    options : mapping
        Keyword options passed to ``func`` (e.g. ``zero="clip"``).
    """

    name: str
    func: Callable[..., Any]
    lower_is_better: bool = True
    upper: float = 0.0
    expected: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)

    def loss(self, target: FloatArray, q: FloatArray) -> FloatArray:
        """The metric as a loss, one value per row."""
        with np.errstate(all="ignore"):
            v = np.asarray(self.func(target, q, **self.options), dtype=np.float64).reshape(-1)
            if not self.lower_is_better:
                v = self.upper - v
        return v

    def perfect(self, target: FloatArray) -> FloatArray:
        """The perfect prediction for each target: itself, or the posterior mean."""
        if not self.expected:
            return target
        out: FloatArray = target / target.sum(axis=1, keepdims=True)
        return out

    def targets(self, rng: np.random.Generator, n: int, K: int) -> FloatArray:
        """Seeded targets: :func:`points`, or for an expected metric Dirichlet ``alpha``.

        ``alpha = 1 + counts``, counts of 0 to 20 annotations over ``K`` classes.
        """
        if not self.expected:
            return points(rng, n, K)
        return 1.0 + _compositions(rng, rng.choice(_EXPECTED_N, size=n).astype(np.float64), K)


def auditable_metrics() -> list[str]:
    """Registry metrics the audit takes: pointwise and expected, in registration order.

    ``debiased[...]`` estimators take annotation counts, not two
    distributions; their properties are those of the metric they estimate.
    One-argument metrics (entropy) are left out too.

    Examples
    --------
    >>> names = auditable_metrics()
    >>> "manhattan" in names and "E[emd]" in names and "debiased[emd]" not in names
    True
    """
    return [n for n in list_metrics() if not get_metric(n).needs_counts]


def as_subject(
    metric: MetricLike, *, name: str | None = None, options: Mapping[str, Any] | None = None
) -> Subject:
    """Turn a registry name, a :class:`~dissensus.metrics.Metric` or a callable into a Subject.

    A plain callable is taken as a loss (lower is better) on two distributions.
    """
    opts = dict(options or {})
    given: object = metric  # checked at run time whatever the annotation says
    if isinstance(given, str | Metric):
        m = get_metric(given)
        if m.unary:
            msg = (
                f"Metric {m.name!r} takes one argument (the target only); the audit needs a "
                "metric f(target, prediction). Pick one of dissensus.metrics.list_metrics()."
            )
            raise ValueError(msg)
        if m.needs_counts:
            msg = (
                f"Metric {m.name!r} is an estimator from annotation counts, not a function of two "
                "distributions; its properties are those of the metric it estimates: audit "
                f"{m.name.removeprefix('debiased[').removesuffix(']')!r} instead."
            )
            raise ValueError(msg)
        return Subject(
            name=name or m.name,
            func=m.func,
            lower_is_better=m.lower_is_better,
            upper=m.bounds[1],
            expected=m.needs_posterior,
            options=opts,
        )
    if callable(given):
        label = name or getattr(given, "__name__", None) or repr(given)
        return Subject(name=str(label), func=given, options=opts)
    msg = (
        "The 'metric' parameter of audit must be a registry name (e.g. 'manhattan'), a "
        f"dissensus.metrics.Metric or a callable f(p, q) -> (N,). Got {metric!r}."
    )
    raise TypeError(msg)
