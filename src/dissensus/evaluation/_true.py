r"""Intervals for the difference of TRUE scores between models, where an unbiased estimator exists.

From :math:`n` multinomial annotations of an item exactly the polynomials of
degree :math:`\le n` in its true label distribution :math:`\pi` have unbiased
estimators. The paired difference :math:`f(\pi, q_A) - f(\pi, q_B)` is linear
in :math:`\pi` for cross-entropy, KL (the entropy term cancels), the squared
Euclidean distance (Brier) and the ranked probability score
(``Metric.difference_degree == 1``), so the difference of the per-item
empirical scores (and of their debiased forms, whose corrections cancel) is
unbiased for the difference of true scores from one annotation per item on.
EMD, L1, JS and the other non-polynomial metrics have no unbiased estimator at
any finite :math:`n`: they get no row here (``dissensus.simulate`` measures how
far off their intervals are).

For a model pair :math:`(A, B)` and the items :math:`i` with at least
``difference_degree`` annotations, :math:`D_i` is the per-item estimate of
:math:`f(\pi_i, q_{iA}) - f(\pi_i, q_{iB})`; the estimate is :math:`\bar D`,
its standard error :math:`s_D / \sqrt{N}` (``ddof=1``) and the interval
:func:`dissensus.stats.mean_interval`'s: the Student t interval with Hall's
(1992) skewness correction, which stretches it towards a heavy tail (a
log-loss difference where a model gives some label a tiny probability: the
plain t interval covered 91% at one annotation per item in the simulation,
this one 94%; docs/true_difference.md). The target is the mean over these
items of the true per-item difference; :math:`s_D` also holds the spread of
the true differences over items, so the interval is conservative for that
fixed set of items (exact, for large N, for the population they were drawn
from). ``p_a_better`` is :math:`P(\text{A truly better})` under the same
approximation (a flat prior on the true difference): the level at which the
one-sided interval reaches 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._validation import check_probability_level
from dissensus.metrics import Metric
from dissensus.report import FullFrame
from dissensus.stats import mean_interval

FloatArray = npt.NDArray[np.float64]

#: Columns of :func:`true_differences`, in order.
TRUE_DIFFERENCE_COLUMNS = (
    "metric",
    "model_a",
    "model_b",
    "diff",
    "standard_error",
    "ci_low",
    "ci_high",
    "p_a_better",
    "n_items",
    "estimator",
    "n_infinite",
)


def unbiased_difference_metrics(metrics: Sequence[Metric], *, targets: str) -> list[int]:
    """Positions of the metrics whose per-item paired difference is unbiased for the true one.

    A metric with a ``difference_degree``, debiased (from the counts) or
    pointwise scored against the label shares (``targets == "empirical"``;
    against an annotator model's posterior, a pointwise score is not an
    estimate of the score against the true distribution).
    """
    return [
        i
        for i, m in enumerate(metrics)
        if m.difference_degree is not None
        and (m.kind == "debiased" or (m.kind == "pointwise" and targets == "empirical"))
    ]


def true_differences(
    values: FloatArray,
    metrics: Sequence[Metric],
    models: Sequence[str],
    n_annotations: npt.NDArray[np.int64],
    *,
    targets: str = "empirical",
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Difference of TRUE mean scores, model a minus model b, for every eligible metric and pair.

    ``values`` are the (M, J, N) per-item scores of ``metrics`` (M) and
    ``models`` (J), ``n_annotations`` (N,) the annotations per item,
    ``targets`` what the pointwise scores were computed against. Returns one
    row per eligible metric (:func:`unbiased_difference_metrics`, evaluation
    order) and model pair (``model_a`` before ``model_b`` in model order):
    ``metric, model_a, model_b, diff, standard_error, ci_low, ci_high,
    p_a_better, n_items, estimator, n_infinite`` (the module docstring gives
    the formulas). ``diff`` is in the metric's units (a minus b); ``n_items``
    the items used (those with at least ``difference_degree`` annotations);
    ``estimator`` ``"empirical"`` or ``"debiased"``; ``n_infinite`` the used
    items whose difference is not finite (a zero prediction where the
    annotations put mass): then ``diff`` is that infinite (or NaN) mean and
    the interval, standard error and ``p_a_better`` are NaN.
    """
    level = check_probability_level("true_differences", "confidence_level", confidence_level)
    chosen = unbiased_difference_metrics(metrics, targets=targets)
    J = len(models)
    a, b = np.triu_indices(J, k=1)
    names = np.asarray(models, dtype=object)
    parts: list[dict[str, npt.NDArray[Any]]] = []
    for m in chosen:
        met = metrics[m]
        keep = n_annotations >= int(met.difference_degree or 0)
        with np.errstate(invalid="ignore", over="ignore"):
            D = values[m][a][:, keep] - values[m][b][:, keep]  # (pairs, items)
        r = mean_interval(D, confidence_level=level)
        parts.append(
            {
                "metric": np.full(a.size, met.name, dtype=object),
                "model_a": names[a],
                "model_b": names[b],
                "diff": r.mean,
                "standard_error": r.standard_error,
                "ci_low": r.ci_low,
                "ci_high": r.ci_high,
                # a is better when a - b < 0 for a loss, > 0 for a similarity
                "p_a_better": 1.0 - r.p_positive if met.lower_is_better else r.p_positive,
                "n_items": np.full(a.size, r.n, dtype=np.int64),
                "estimator": np.full(
                    a.size, "debiased" if met.kind == "debiased" else "empirical", dtype=object
                ),
                "n_infinite": r.n_infinite,
            }
        )
    columns: dict[str, Any] = {
        c: np.concatenate([part[c] for part in parts]) if parts else []
        for c in TRUE_DIFFERENCE_COLUMNS
    }
    return FullFrame(columns, columns=list(TRUE_DIFFERENCE_COLUMNS))
