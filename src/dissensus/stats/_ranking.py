r"""Rankings of models under several metrics, and how much the rankings agree.

Notation. ``M`` metrics, ``J`` models; ``scores`` is an ``(M, J)`` array of
one summary value (e.g. a mean over items) per metric and model, and
``lower_is_better`` an ``(M,)`` boolean array giving each metric's direction.
A rank of 1 is the best model. Ties share the smallest rank of their group
("competition" ranking, 1, 2, 2, 4), so a rank always says how many models
are strictly better plus one.

The pairwise comparison of two rankings follows Table 2 of Rizzi et al.
(2024), who re-ranked the systems of a shared task under several soft
metrics: the share of models whose position changes and the mean ± sd of the
absolute position change, completed with Kendall's :math:`\tau_b`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _as_scores(scores: npt.ArrayLike) -> FloatArray:
    arr = np.asarray(scores, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        msg = f"`scores` must be a 1-D (models,) or 2-D (metrics, models) array; got shape {arr.shape}."
        raise ValueError(msg)
    return arr


def _oriented(scores: FloatArray, lower_is_better: npt.ArrayLike) -> FloatArray:
    """Scores turned so that smaller is better for every metric."""
    lib = np.broadcast_to(np.asarray(lower_is_better, dtype=bool), scores.shape[:1])
    return np.where(lib[:, None], scores, -scores)


def competition_ranks(
    scores: npt.ArrayLike, *, lower_is_better: bool | npt.ArrayLike = True
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    r"""Rank models under each metric, best = 1, ties sharing the smallest rank.

    Parameters
    ----------
    scores : array_like, shape (J,) or (M, J)
        One value per model (per metric).
    lower_is_better : bool or array_like of bool, shape (M,), default True
        Direction of each metric.

    Returns
    -------
    ranks : ndarray of float64, shape (M, J)
        ``1 + #{models strictly better}``; NaN where the score is NaN (a NaN
        score is not ranked and does not count as better than anything).
    tied : ndarray of bool, shape (M, J)
        Whether another model has exactly the same (non-NaN) score.

    Notes
    -----
    With :math:`s'` the scores oriented so that lower is better,
    :math:`r_j = 1 + \#\{k : s'_k < s'_j\}`. Equality is exact: two models
    with identical predictions get identical means, while models that
    differ in the last bit are not tied.

    Examples
    --------
    >>> r, t = competition_ranks([0.3, 0.1, 0.3, 0.5])
    >>> r.tolist(), t.tolist()
    ([[2.0, 1.0, 2.0, 4.0]], [[True, False, True, False]])
    >>> competition_ranks([0.3, 0.1], lower_is_better=False)[0].tolist()
    [[1.0, 2.0]]
    """
    s = _oriented(_as_scores(scores), lower_is_better)
    nan = np.isnan(s)
    better = (s[:, None, :] < s[:, :, None]).sum(axis=2)  # [m, j] = #{k: s_k < s_j}
    ranks = np.where(nan, np.nan, 1.0 + better)
    equal = (s[:, None, :] == s[:, :, None]).sum(axis=2) - 1
    tied = (equal > 0) & ~nan
    return ranks, tied


def kendall_tau_b(x: npt.ArrayLike, y: npt.ArrayLike) -> float:
    r"""Kendall's rank correlation :math:`\tau_b` (ties corrected).

    Parameters
    ----------
    x, y : array_like, shape (J,)
        Two rankings (or any scores) of the same ``J`` models.

    Returns
    -------
    float
        In [-1, 1]; NaN when either vector is constant or shorter than 2, as
        in :func:`scipy.stats.kendalltau`.

    Notes
    -----
    Over the pairs :math:`j < k`,

    .. math::

        \tau_b = \frac{\sum_{j<k} \operatorname{sgn}(x_j - x_k)\operatorname{sgn}(y_j - y_k)}
                      {\sqrt{(n_0 - n_1)(n_0 - n_2)}},

    with :math:`n_0` the number of pairs and :math:`n_1, n_2` the pairs tied
    in ``x`` and in ``y``. The pairwise form costs :math:`O(J^2)`, which is
    nothing for a handful of models.

    References
    ----------
    Kendall, M. G. (1945). The treatment of ties in ranking problems.
    *Biometrika* 33(3), 239–251. https://doi.org/10.1093/biomet/33.3.239

    Examples
    --------
    >>> kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4])
    0.667
    """
    a = np.asarray(x, dtype=np.float64).ravel()
    b = np.asarray(y, dtype=np.float64).ravel()
    if a.shape != b.shape:
        msg = f"`x` and `y` must have the same length; got {a.size} and {b.size}."
        raise ValueError(msg)
    return float(kendall_tau_b_rows(a, b))


def order_reversals(
    scores: npt.ArrayLike, *, lower_is_better: bool | npt.ArrayLike = True
) -> IntArray:
    """Every pair of metrics that orders a pair of models in opposite ways.

    Parameters
    ----------
    scores : array_like, shape (M, J)
        One value per metric and model.
    lower_is_better : bool or array_like of bool, shape (M,), default True

    Returns
    -------
    ndarray of int64, shape (R, 4)
        Rows ``(m1, m2, a, b)`` with ``m1 < m2`` and ``a < b``: model ``a``
        is strictly better than ``b`` under one metric and strictly worse
        under the other. A tie under either metric is not a reversal, and
        neither is a NaN score. Rows are sorted by ``(m1, m2, a, b)``.

    Examples
    --------
    >>> order_reversals([[0.1, 0.2, 0.3], [0.2, 0.1, 0.3]])
    array([[0, 1, 0, 1]])
    """
    s = _oriented(_as_scores(scores), lower_is_better)
    # sign[m, a, b] = +1 when a is better than b under metric m
    # comparisons, not a subtraction: NaN and inf == inf give 0 without warnings
    sign = (s[:, :, None] < s[:, None, :]).astype(np.int8) - (s[:, :, None] > s[:, None, :])
    M, J = s.shape
    m1, m2 = np.triu_indices(M, k=1)
    a, b = np.triu_indices(J, k=1)
    disagree = sign[m1][:, a, b] * sign[m2][:, a, b] < 0  # (metric pairs, model pairs)
    mp, jp = np.nonzero(disagree)
    return np.column_stack([m1[mp], m2[mp], a[jp], b[jp]]).astype(np.int64)


class RankAgreement(NamedTuple):
    """Agreement of the rankings of two metrics (one row of the seed's Table 2)."""

    share_reranked: float
    mean_abs_change: float
    sd_abs_change: float
    kendall_tau: float


def rank_agreement(ranks_1: npt.ArrayLike, ranks_2: npt.ArrayLike) -> RankAgreement:
    r"""Compare two rankings of the same models.

    Parameters
    ----------
    ranks_1, ranks_2 : array_like, shape (J,)
        Positions of the ``J`` models under two metrics (1 = best), e.g.
        from :func:`competition_ranks`.

    Returns
    -------
    RankAgreement
        ``share_reranked``: share of models whose position differs;
        ``mean_abs_change`` and ``sd_abs_change``: mean and population
        standard deviation (``ddof=0``) of :math:`|r_{1j} - r_{2j}|`;
        ``kendall_tau``: :math:`\tau_b` between the two rankings. NaN
        positions give NaN throughout.

    References
    ----------
    Rizzi, G., Leonardelli, E., Poesio, M., et al. (2024). Soft metrics for
    evaluation with disagreements: an assessment. *Proceedings of the 3rd
    Workshop on Perspectivist Approaches to NLP (NLPerspectives)*, Table 2.

    Examples
    --------
    >>> rank_agreement([1, 2, 3, 4], [2, 1, 3, 4])
    RankAgreement(share_reranked=0.5, mean_abs_change=0.5, sd_abs_change=0.5, kendall_tau=0.667)
    """
    r1 = np.asarray(ranks_1, dtype=np.float64).ravel()
    r2 = np.asarray(ranks_2, dtype=np.float64).ravel()
    if r1.shape != r2.shape or r1.size == 0:
        msg = f"`ranks_1` and `ranks_2` must be non-empty and of the same length; got {r1.size} and {r2.size}."
        raise ValueError(msg)
    change = np.abs(r1 - r2)
    if np.isnan(change).any():
        nan = float("nan")
        return RankAgreement(nan, nan, nan, nan)
    return RankAgreement(
        float(np.mean(change > 0)),
        float(np.mean(change)),
        float(np.std(change)),
        kendall_tau_b(r1, r2),
    )


def kendall_tau_b_rows(x: npt.ArrayLike, y: npt.ArrayLike) -> FloatArray:
    r"""Kendall's :math:`\tau_b` between matching rows of two score arrays.

    The batched form of :func:`kendall_tau_b` (same formula, same NaN
    rules), for many pairs of rankings at once.

    Parameters
    ----------
    x, y : array_like, shape (..., J)
        Scores of ``J`` models; the leading axes are broadcast.

    Returns
    -------
    ndarray of float64, shape (...)
        NaN where a row holds a NaN, is constant, or ``J < 2``.

    Examples
    --------
    >>> kendall_tau_b_rows([[1, 2, 3, 4], [1, 2, 3, 4]], [[1, 3, 2, 4], [4, 3, 2, 1]]).tolist()
    [0.667, -1.0]
    """
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    a, b = np.broadcast_arrays(a, b)
    J = a.shape[-1]
    if J < 2:
        return np.full(a.shape[:-1], np.nan)
    i, j = np.triu_indices(J, k=1)
    sa = np.sign(a[..., i] - a[..., j])
    sb = np.sign(b[..., i] - b[..., j])
    with np.errstate(invalid="ignore", divide="ignore"):
        den = np.sqrt((sa != 0).sum(axis=-1) * (sb != 0).sum(axis=-1).astype(np.float64))
        tau = (sa * sb).sum(axis=-1) / den
    bad = np.isnan(a).any(axis=-1) | np.isnan(b).any(axis=-1) | (den == 0)
    out: FloatArray = np.where(bad, np.nan, tau)
    return out
