r"""Annotator × annotator agreement matrices.

All rater-pair contingency tables come from one sparse product: with ``Y``
the (N items, R·K) one-hot matrix of who gave which label,
``T = Y^T Y`` reshaped to (R, R, K, K) holds every pair's table (items
both rated), so Cohen's kappa and Krippendorff's alpha of all pairs are
computed at once.

The coefficients are functions of a pair's table only
(:func:`table_values`), so the same formulas serve batches of tables: the
bootstrap resamples and the soft (expected) tables of
:mod:`dissensus.tendency`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DegenerateAgreementWarning
from dissensus._validation import check_option
from dissensus.agreement._alpha import LEVELS, Level, _delta, _ordinal_delta, _values
from dissensus.agreement._cohen import pair_tables, table_kappa
from dissensus.agreement._common import (
    FloatArray,
    Weights,
    annotations_rater_matrix,
    require_order,
    weight_matrix,
)
from dissensus.data import Annotations, Scale

Measure = Literal["cohen", "weighted_cohen", "alpha", "pearson"]
#: The built-in pair coefficients, all functions of the pair's K × K table.
MEASURES: tuple[str, ...] = ("cohen", "weighted_cohen", "alpha", "pearson")


@dataclass(frozen=True)
class PairwiseAgreement:
    """Agreement of every pair of annotators.

    Attributes
    ----------
    statistic : pandas.DataFrame
        Annotator × annotator coefficients (NaN where the pair shares fewer
        than ``min_overlap`` items or the coefficient is undefined).
    overlap : pandas.DataFrame
        Number of items each pair both rated (the diagonal: items rated).
    measure : str
        The coefficient.
    """

    statistic: pd.DataFrame
    overlap: pd.DataFrame
    measure: str

    def __repr__(self) -> str:
        R = self.statistic.shape[0]
        off = self.statistic.to_numpy()[~np.eye(R, dtype=bool)]
        finite = off[np.isfinite(off)]
        span = f"{finite.min():.3g}–{finite.max():.3g}" if finite.size else "none defined"
        return f"<PairwiseAgreement {self.measure}: {R} annotators, pairs {span}>"


def _pair_alpha(T: FloatArray, level: str, v: FloatArray | None) -> FloatArray:
    o = T + np.swapaxes(T, -1, -2)
    nc = o.sum(axis=-1)
    ntot = nc.sum(axis=-1)
    d = _ordinal_delta(nc) if level == "ordinal" else _delta(level, v)  # type: ignore[arg-type]
    do = (o * d).sum(axis=(-2, -1))
    de = np.einsum("...c,...ck,...k->...", nc, d, nc)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(de > 0, 1.0 - (ntot - 1.0) * do / de, np.nan)
    return np.asarray(out, dtype=np.float64)


def _pair_pearson(T: FloatArray, v: FloatArray) -> FloatArray:
    """Pearson correlation of the two raters' label values in tables ``T`` (..., K, K)."""
    n = T.sum(axis=(-2, -1))
    row, col = T.sum(axis=-1), T.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        ma, mb = row @ v / n, col @ v / n
        va = row @ (v * v) / n - ma * ma
        vb = col @ (v * v) / n - mb * mb
        cov = np.einsum("...kl,k,l->...", T, v, v) / n - ma * mb
        den = np.sqrt(va * vb)
        # a constant rater (zero variance, up to rounding) has no correlation
        tiny = 1e-12 * (np.abs(v).max() ** 2 + 1.0)
        out = np.where((va > tiny) & (vb > tiny), cov / den, np.nan)
    return np.asarray(np.clip(out, -1.0, 1.0), dtype=np.float64)


def pearson_values(scale: Scale) -> FloatArray:
    """Label values for Pearson's r: the numbers of a numeric scale, else positions 0..K-1 (ordered only)."""
    require_order(scale, "Pearson's r")
    if scale.is_numeric:
        return scale.values  # noqa: PD011 - Scale, not pandas
    return np.arange(scale.K, dtype=np.float64)


def table_values(
    T: FloatArray,
    measure: str,
    scale: Scale,
    *,
    weights: Weights = "quadratic",
    level: Level = "nominal",
    func: str = "pairwise",
) -> FloatArray:
    r"""A built-in pair coefficient of every table in a batch.

    Parameters
    ----------
    T : ndarray, shape (..., K, K)
        Pair tables: ``T[..., k, l]`` is how often (or, for soft tables, how
        much expected mass) the first rater gave label ``k`` and the second
        ``l`` on their shared items.
    measure : {"cohen", "weighted_cohen", "alpha", "pearson"}
    scale : Scale
        The label set (values for ``"pearson"`` and interval/ratio alpha).
    weights, level
        As in :func:`pairwise`.
    func : str
        Caller's name for error messages.

    Returns
    -------
    ndarray, shape (...)
        The coefficient; NaN where it is undefined (an empty table, one
        category only, a constant rater for Pearson).

    Notes
    -----
    Pearson's correlation of a table with label values :math:`v`:

    .. math::

        r = \frac{\sum_{kl} T_{kl} v_k v_l / n - \bar a \bar b}
                 {\sqrt{(\overline{a^2} - \bar a^2)(\overline{b^2} - \bar b^2)}},

    the values being the numeric labels of the scale, or their positions
    ``0 .. K-1`` for a scale of strings.
    """
    K = scale.K
    if measure == "cohen":
        return np.asarray(table_kappa(T, np.eye(K))[0], dtype=np.float64)
    if measure == "weighted_cohen":
        return np.asarray(table_kappa(T, weight_matrix(weights, scale, func))[0], dtype=np.float64)
    if measure == "alpha":
        v = None if level in ("nominal", "ordinal") else _values(scale, level)
        if level == "nominal":
            v = np.arange(K, dtype=np.float64)
        return _pair_alpha(T, level, v)
    if measure == "pearson":
        return _pair_pearson(T, pearson_values(scale))
    check_option(func, "measure", measure, MEASURES)
    raise AssertionError  # pragma: no cover - check_option raised


def pairwise(
    annotations: Annotations | pd.DataFrame | npt.ArrayLike,
    measure: Measure | Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], float] = "cohen",
    *,
    min_overlap: int = 1,
    weights: Weights = "quadratic",
    level: Level = "nominal",
) -> PairwiseAgreement:
    """Agreement between every pair of annotators, on the items both rated.

    Parameters
    ----------
    annotations : Annotations or array_like of shape (N items, R raters)
        Annotations with annotator ids, a DataFrame whose columns are the
        annotators, or an array of label codes ``0 .. K-1`` (NaN = missing).
    measure : {"cohen", "weighted_cohen", "alpha", "pearson"} or callable, default "cohen"
        Cohen's kappa, weighted Cohen's kappa (with ``weights``),
        Krippendorff's alpha (at ``level``), Pearson's correlation of the
        label values (numeric labels, else their positions on the scale;
        see :func:`table_values`), or ``f(codes_a, codes_b) -> float``
        called on each pair's shared items (label codes).
    min_overlap : int, default 1
        Pairs sharing fewer items get NaN.
    weights : str or array_like, default "quadratic"
        Weights of ``"weighted_cohen"``: a named scheme of
        :func:`agreement_weights` or a (K, K) matrix.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of ``"alpha"``.

    Returns
    -------
    PairwiseAgreement
        ``.statistic`` and ``.overlap`` DataFrames indexed by annotator.

    Warns
    -----
    DegenerateAgreementWarning
        When pairs with enough overlap have an undefined coefficient (e.g.
        both raters used one category); they are NaN.

    Examples
    --------
    >>> R = [[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 1, 0]]
    >>> pairwise(R).statistic.round(2)
         0    1    2
    0  1.0  0.5  0.0
    1  0.5  1.0 -0.5
    2  0.0 -0.5  1.0
    """
    func = "pairwise"
    if not callable(measure):
        check_option(func, "measure", measure, MEASURES)
    check_option(func, "level", level, LEVELS)
    if int(min_overlap) < 1:
        msg = f"The 'min_overlap' parameter of pairwise must be at least 1. Got {min_overlap!r}."
        raise ValueError(msg)
    R, scale = annotations_rater_matrix(annotations, func)
    if isinstance(annotations, Annotations) and annotations.annotators is not None:
        names = pd.Index(annotations.annotators, name="annotator")
    elif isinstance(annotations, pd.DataFrame):
        names = pd.Index(annotations.columns, name="annotator")
    else:
        names = pd.RangeIndex(R.shape[1])
    K = scale.K
    T = pair_tables(R, K)
    if isinstance(measure, str):
        return tables_to_pairwise(
            T, names, scale, measure, min_overlap=min_overlap, weights=weights, level=level
        )
    overlap = T.sum(axis=(2, 3))
    name = getattr(measure, "__name__", "custom")
    values = np.full(overlap.shape, np.nan)
    rated = np.isfinite(R)
    for i in range(R.shape[1]):
        for j in range(R.shape[1]):
            both = rated[:, i] & rated[:, j]
            if both.sum() >= min_overlap:
                a = R[both, i].astype(np.int64)
                b = R[both, j].astype(np.int64)
                values[i, j] = float(measure(a, b))
    return _finish(values, overlap, names, str(name), min_overlap)


def tables_to_pairwise(
    T: FloatArray,
    names: pd.Index,
    scale: Scale,
    measure: str,
    *,
    min_overlap: int = 1,
    weights: Weights = "quadratic",
    level: Level = "nominal",
) -> PairwiseAgreement:
    """:class:`PairwiseAgreement` of the (R, R, K, K) pair tables ``T`` (built-in measures).

    The tables may come from anywhere (e.g. summed over the partitions of
    :mod:`dissensus.distributed`); ``names`` labels the R annotators.
    """
    func = "pairwise"
    values = table_values(T, measure, scale, weights=weights, level=level, func=func)
    return _finish(values, T.sum(axis=(2, 3)), names, measure, min_overlap)


def _finish(
    values: FloatArray, overlap: FloatArray, names: pd.Index, name: str, min_overlap: int
) -> PairwiseAgreement:
    enough = overlap >= min_overlap
    values = np.where(enough, values, np.nan)
    off = ~np.eye(len(names), dtype=bool) & enough
    bad = off & ~np.isfinite(values)
    if bad.any():
        warnings.warn(
            f"pairwise {name}: {int(bad.sum()) // 2 or int(bad.sum())} annotator pairs share "
            f"at least {min_overlap} items but have an undefined coefficient (e.g. both used a "
            "single category); they are NaN.",
            DegenerateAgreementWarning,
            stacklevel=3,
        )
    return PairwiseAgreement(
        statistic=pd.DataFrame(values, index=names, columns=names.rename(None)),
        overlap=pd.DataFrame(overlap.astype(np.int64), index=names, columns=names.rename(None)),
        measure=name,
    )
