"""The gold soft labels of the LeWiDi 2023 tasks, as the organisers defined them."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dissensus._exceptions import DataError
from dissensus.data._annotations import as_label_counts

__all__ = ["targets_2023"]


def targets_2023(data: Any, /) -> npt.NDArray[np.float64]:
    r"""The LeWiDi 2023 soft-label targets: (N, 2) probabilities of labels 0 and 1.

    LeWiDi 2023's four tasks are binary. For HS-Brexit, ArMIS and
    MD-Agreement the annotations are 0/1 and the target is their
    proportion. ConvAbuse is annotated on a severity scale
    :math:`\{-3, -2, -1, 0, 1\}` and its target is *binary*: abusive
    (severity :math:`< 0`) or not,

    .. math:: t_{i1} = \frac{\#\{\text{annotations of } i < 0\}}{n_i},
              \qquad t_{i0} = 1 - t_{i1},

    which is what the 2023 JSON files print as ``soft_label`` (rounded to
    three decimals) and what :func:`dissensus.metrics.lewidi.cross_entropy_2023`
    scores. Feed these targets (not the five-label proportions) to that
    scorer.

    Parameters
    ----------
    data : Annotations, LabelCounts or array_like of shape (N, K)
        Annotations of a 2023 task: labels a subset of {0, 1}, or numeric
        labels with negative values (ConvAbuse severities).

    Returns
    -------
    ndarray of float64, shape (N, 2)
        Column 0: P(label 0 / not abusive); column 1: P(label 1 / abusive).

    Raises
    ------
    DataError
        Labels that are neither binary nor numeric with negative values;
        items without annotations.

    References
    ----------
    E. Leonardelli et al. "SemEval-2023 Task 11: Learning with
    Disagreements (LeWiDi)". SemEval 2023. :doi:`10.18653/v1/2023.semeval-1.314`

    Examples
    --------
    >>> from dissensus import LabelCounts, Scale
    >>> lc = LabelCounts.from_array([[1, 0, 1, 1, 0], [0, 0, 0, 2, 1]],
    ...                             scale=Scale.ordinal([-3, -2, -1, 0, 1]))
    >>> targets_2023(lc)
    array([[0.333, 0.667],
           [1.   , 0.   ]])
    """
    counts = as_label_counts(data, "data")
    scale = counts.scale
    n = counts.n
    if (n == 0).any():
        msg = (
            f"{int((n == 0).sum())} items have no annotations; the LeWiDi 2023 targets are "
            "undefined for them (drop them first)."
        )
        raise DataError(msg)
    C = counts.values.astype(np.float64)
    if scale.is_numeric and set(scale.values.tolist()) <= {0.0, 1.0}:
        one = C[:, scale.values == 1.0].sum(axis=1)
    elif scale.is_numeric and (scale.values < 0).any():
        one = C[:, scale.values < 0].sum(axis=1)
    else:
        msg = (
            f"The LeWiDi 2023 targets need binary labels (0/1) or ConvAbuse severities "
            f"(-3..1); got the scale {scale!r}."
        )
        raise DataError(msg)
    p1 = one / n
    return np.column_stack([1.0 - p1, p1])
