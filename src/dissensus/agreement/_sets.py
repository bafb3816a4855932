r"""Distances between sets of labels (MASI, Jaccard) for Krippendorff's alpha.

For two sets :math:`A, B` of labels,

.. math::
    d_J(A, B) = 1 - \frac{|A \cap B|}{|A \cup B|}, \qquad
    d_{\mathrm{MASI}}(A, B) = 1 - \frac{|A \cap B|}{|A \cup B|}\, M(A, B),

with Passonneau's monotonicity weight :math:`M = 1` when :math:`A = B`,
:math:`2/3` when one set contains the other, :math:`1/3` when they overlap
otherwise and :math:`0` when they are disjoint. Both are 0 between a set and
itself; for the empty set :math:`d(\emptyset, \emptyset) = 0` and
:math:`d(\emptyset, B) = 1` for :math:`B \ne \emptyset` (the limits of the
formulas; nltk's functions divide by zero there).

The distances enter alpha as Krippendorff's difference function
:math:`\delta^2` as they are, unsquared, as nltk's ``AnnotationTask`` uses
them. Each distinct set observed is one "value": the (S, S) matrix over the
S distinct sets goes to the alpha core, so memory is O(S²) and
O(N S) for the counts.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from dissensus._validation import check_option
from dissensus.data import LabelCounts, SetAnnotations

SetDistance = Literal["masi", "jaccard"]
SET_DISTANCES: tuple[str, ...] = ("masi", "jaccard")

FloatArray = npt.NDArray[np.float64]


def set_distance_matrix(sets: npt.ArrayLike, distance: SetDistance) -> FloatArray:
    """The (S, S) MASI or Jaccard distances between the rows of an (S, L) indicator matrix.

    Examples
    --------
    >>> sets = [[1, 1, 0], [1, 0, 0], [0, 0, 1]]  # {a, b}, {a}, {c}
    >>> set_distance_matrix(sets, "masi").round(4).tolist()
    [[0.0, 0.6667, 1.0], [0.6667, 0.0, 1.0], [1.0, 1.0, 0.0]]
    >>> set_distance_matrix(sets, "jaccard").tolist()
    [[0.0, 0.5, 1.0], [0.5, 0.0, 1.0], [1.0, 1.0, 0.0]]
    """
    check_option("set_distance_matrix", "distance", distance, SET_DISTANCES)
    Z = np.asarray(sets, dtype=np.float64)
    inter = Z @ Z.T
    size = Z.sum(axis=1)
    union = size[:, None] + size[None, :] - inter
    # |A ∪ B| = 0 only for two empty sets, which are equal: similarity 1
    with np.errstate(invalid="ignore", divide="ignore"):
        jac = np.where(union > 0, inter / np.where(union > 0, union, 1.0), 1.0)
    if distance == "jaccard":
        out = 1.0 - jac
    else:
        equal = (inter == size[:, None]) & (inter == size[None, :])
        nested = inter == np.minimum(size[:, None], size[None, :])
        weight = np.select([equal, nested, inter > 0], [1.0, 2.0 / 3.0, 1.0 / 3.0], 0.0)
        out = 1.0 - jac * weight
    np.fill_diagonal(out, 0.0)
    return np.asarray(out, dtype=np.float64)


def set_alpha_input(data: Any, distance: Any) -> tuple[LabelCounts, FloatArray | None]:
    """The counts over distinct sets and their distance matrix, for alpha on sets.

    ``data`` is :class:`SetAnnotations` and ``distance`` a name in
    :data:`SET_DISTANCES`; anything else is refused with what to pass.
    """
    func = "krippendorff_alpha"
    if not isinstance(data, SetAnnotations):
        msg = (
            f"The 'distance' parameter of {func} names a set distance ({distance!r}), which "
            "needs set-valued annotations (SetAnnotations); for single labels give a level or "
            "a (K, K) matrix / callable distance."
        )
        raise ValueError(msg)
    if distance is None:
        msg = (
            f"{func} on set-valued annotations needs distance='masi' or 'jaccard' (partial "
            "credit for overlapping sets); for exact-match agreement pass sets.set_counts() "
            "instead."
        )
        raise ValueError(msg)
    check_option(func, "distance", distance, SET_DISTANCES)
    sets, _ = data.distinct_sets()
    return data.set_counts(), set_distance_matrix(sets, distance)
