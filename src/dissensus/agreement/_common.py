"""Shared machinery: input preparation, weight matrices and the item bootstrap.

Every count-based coefficient is written as a *core*: a function of the
distinct count rows ``P`` (U, K) and a weight matrix ``W`` (B, U) saying how
often each row enters each of ``B`` datasets. The point estimate uses the
data's own rows with weight 1 (``W = ones((1, N))``); the bootstrap uses
multinomial weights over distinct rows (the package's one weight generator,
:func:`dissensus.stats.iter_pattern_weights`, drawn in chunks); the
jackknife uses the multiplicities minus one. One formula, three uses, no
loop over resamples.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import special

from dissensus._exceptions import DataError, DegenerateAgreementWarning
from dissensus._validation import SeedLike, as_count_matrix, check_option, examples, refuse_dask
from dissensus.data import Annotations, LabelCounts, Scale, as_label_counts
from dissensus.stats import (
    ConfidenceInterval,
    bca_interval,
    item_keys,
    iter_pattern_weights,
    percentile_interval,
    poisson_weights,
    warn_few_items,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Core = Callable[[FloatArray, FloatArray], FloatArray]
WeightScheme = Literal[
    "identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"
]
#: Gwet's (2014) named weight schemes, as irrCAC names them.
WEIGHT_SCHEMES: tuple[str, ...] = (
    "identity",
    "linear",
    "quadratic",
    "ordinal",
    "radical",
    "ratio",
    "circular",
    "bipolar",
)
Weights = WeightScheme | npt.ArrayLike | None

#: Budget (number of float64) for one chunk of bootstrap intermediates.
_CHUNK_FLOATS = 8_000_000


@dataclass(frozen=True)
class CountInput:
    """Counts of the items that have at least two ratings.

    ``Xt`` is the (K, N) transpose as contiguous float64: row sums over a
    handful of categories are much faster as sums of K contiguous vectors
    than as ``axis=1`` reductions of an (N, K) array.
    """

    Xt: FloatArray
    scale: Scale
    n_excluded: int
    #: Ids of the items used (row positions for a plain array).
    items: Any = None

    @property
    def X(self) -> IntArray:
        """(N, K) int64 counts."""
        return np.ascontiguousarray(self.Xt.T).astype(np.int64)

    @property
    def N(self) -> int:
        """Items used."""
        return int(self.Xt.shape[1])

    @property
    def n_annotations(self) -> int:
        """Ratings used."""
        return int(self.Xt.sum())


def prepare_counts(data: Any, func: str, *, min_ratings: int = 2) -> CountInput:
    """Turn ``data`` into the counts of items with at least ``min_ratings`` ratings.

    Items with fewer ratings are excluded and counted; a
    :class:`DegenerateAgreementWarning` says how many.
    """
    refuse_dask(data, func, "agreement")
    items: pd.Index | None
    if isinstance(data, LabelCounts | pd.DataFrame) or callable(getattr(data, "counts", None)):
        # (a DataFrame is refused by as_label_counts with advice on what to pass)
        counts: LabelCounts = as_label_counts(data)
        X = counts.values  # noqa: PD011 -- LabelCounts, not pandas
        scale, items = counts.scale, counts.items
    else:
        # A plain (N, K) array: validate the numbers only (no item index to build).
        X = as_count_matrix(data, "data")
        scale, items = Scale(tuple(range(X.shape[1]))), None
    Xt = np.ascontiguousarray(X.T, dtype=np.float64)
    keep = Xt.sum(axis=0) >= min_ratings
    ids = np.arange(keep.size) if items is None else items
    n_excluded = int(keep.size - np.count_nonzero(keep))
    excluded: list[Any] = []
    if n_excluded:
        dropped = np.flatnonzero(~keep)
        excluded = dropped.tolist() if items is None else items[dropped].tolist()
        warnings.warn(
            f"{func}: {n_excluded} of {keep.size} items have fewer than {min_ratings} ratings "
            f"and are excluded ({examples(excluded)}).",
            DegenerateAgreementWarning,
            stacklevel=3,
        )
        Xt = np.ascontiguousarray(Xt[:, keep])
        ids = ids[keep]
    return CountInput(Xt, scale, n_excluded, ids)


def require_order(scale: Scale, what: str) -> None:
    """Refuse an order-dependent measure on text labels whose order is unknown.

    Numbers have their natural order and a scale given as a list (or an
    ordered pandas Categorical, or ``--labels``) is ordered; text labels
    inferred from the data are only sorted alphabetically ("high" < "low" <
    "mid"), which an ordinal measure would silently take for their order. Two
    labels need none: every such measure is unchanged when the order is reversed.
    """
    if scale.ordered or scale.is_numeric or scale.K <= 2:
        return
    labels = list(scale.labels)
    msg = (
        f"{what} needs the order of the labels, but {examples(labels, 10)} are text with no "
        "known order (their alphabetical order is not one). Give the order, lowest first, with "
        f"scale=[...] (CLI: --labels {','.join(map(str, labels))} rearranged) or an ordered "
        "pandas Categorical label column. Or use a nominal measure."
    )
    raise DataError(msg)


def _weight_values(scale: Scale | int) -> tuple[FloatArray, int]:
    """Category values for weights: a numeric scale's labels, else positions ``1 .. K``."""
    if isinstance(scale, Scale):
        K = scale.K
        if scale.is_numeric:
            return np.asarray(scale.labels, dtype=np.float64), K
        return np.arange(1.0, K + 1.0), K
    return np.arange(float(scale)), int(scale)


def _relative(d: FloatArray) -> FloatArray:
    """``1 - d / max(d)`` (all ones when every distance is 0, e.g. one category)."""
    top = float(d.max()) if d.size else 0.0
    return np.asarray(1.0 - d / top if top > 0 else np.ones_like(d), dtype=np.float64)


def _scheme(name: str, x: FloatArray, func: str) -> FloatArray:
    """The agreement weights ``w[k, l]`` of a named scheme over category values ``x``."""
    K = x.size
    diff = x[:, None] - x[None, :]
    span = float(x.max() - x.min()) if K else 0.0
    if name == "identity" or K < 2:
        return np.eye(K)
    with np.errstate(invalid="ignore", divide="ignore"):
        if name == "linear":
            return np.asarray(1.0 - np.abs(diff) / span, dtype=np.float64)
        if name == "quadratic":
            return np.asarray(1.0 - (diff / span) ** 2, dtype=np.float64)
        if name == "radical":
            return np.asarray(1.0 - np.sqrt(np.abs(diff)) / math.sqrt(span), dtype=np.float64)
        if name == "ordinal":
            pos = np.arange(K, dtype=np.float64)
            m = np.abs(pos[:, None] - pos[None, :]) + 1.0
            return _relative(m * (m - 1.0) / 2.0)
        if name == "ratio":
            if (x <= 0).any():
                msg = (
                    f"Ratio weights of {func} need positive category values; got "
                    f"{examples(x[x <= 0])}. Give the labels their values (e.g. a scale "
                    "[1, 2, 3]) or choose another scheme."
                )
                raise ValueError(msg)
            tot = x[:, None] + x[None, :]
            top = (x.max() - x.min()) / (x.max() + x.min())
            return np.asarray(1.0 - (diff / tot) ** 2 / top**2, dtype=np.float64)
        if name == "circular":
            return _relative(np.sin(np.pi * diff / (span + 1.0)) ** 2)
        # bipolar
        tot = x[:, None] + x[None, :]
        d = diff**2 / ((tot - 2.0 * x.min()) * (2.0 * x.max() - tot))
        d[np.eye(K, dtype=bool)] = 0.0
        return _relative(d)


def weight_matrix(weights: Weights, scale: Scale | int, func: str) -> FloatArray:
    """Agreement weights ``w[k, l]`` (1 on the diagonal): a named scheme or a matrix.

    ``None`` gives the identity; a name, Gwet's (2014) scheme of that name
    over the category values (see :func:`agreement_weights` for the
    formulas); a (K, K) matrix is used as given. With an ``int`` for
    ``scale`` the values are ``0 .. K-1``.
    """
    x, K = _weight_values(scale)
    if weights is None:
        return np.eye(K)
    if isinstance(weights, str):
        check_option(func, "weights", weights, (None, *WEIGHT_SCHEMES))
        if weights != "identity" and isinstance(scale, Scale):
            require_order(scale, f"{func} with weights={weights!r}")
        return _scheme(weights, x, func)
    arr = np.asarray(weights, dtype=np.float64)
    if arr.shape != (K, K):
        msg = (
            f"The 'weights' parameter of {func} must be None, one of "
            f"{', '.join(map(repr, WEIGHT_SCHEMES))} or a ({K}, {K}) matrix. Got an array of "
            f"shape {arr.shape} instead."
        )
        raise ValueError(msg)
    if not np.isfinite(arr).all():
        msg = f"The 'weights' matrix of {func} must be finite."
        raise ValueError(msg)
    return arr


def agreement_weights(scheme: WeightScheme, labels: Scale | Sequence[Any] | int) -> pd.DataFrame:
    r"""The agreement weight matrix of a named scheme, labelled by category.

    Parameters
    ----------
    scheme : {"identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"}
        Gwet's (2014) named weights, as in irrCAC; see the Notes.
    labels : Scale, sequence of labels or int
        The categories in order. Numeric labels are used as values; text
        labels get positions ``1 .. K``; an int ``K`` means ``0 .. K-1``.

    Returns
    -------
    pandas.DataFrame
        ``w[k, l]``, 1 on the diagonal, indexed and labelled by category.

    Notes
    -----
    Every weighted coefficient (``weights=`` of :func:`fleiss_kappa`,
    :func:`conger_kappa`, :func:`gwet_ac2`, :func:`brennan_prediger`,
    :func:`cohen_kappa`, ...) uses these matrices. With :math:`x_k` the
    category values and :math:`m_{kl} = |k - l| + 1`:

    ========== =====================================================================
    identity   :math:`[k = l]`
    linear     :math:`1 - |x_k - x_l| / (x_{\max} - x_{\min})`
    quadratic  :math:`1 - (x_k - x_l)^2 / (x_{\max} - x_{\min})^2`
    radical    :math:`1 - \sqrt{|x_k - x_l|} / \sqrt{x_{\max} - x_{\min}}`
    ordinal    :math:`1 - m_{kl}(m_{kl} - 1) / \max_{kl} m_{kl}(m_{kl} - 1)`
    ratio      :math:`1 - ((x_k - x_l) / (x_k + x_l))^2 / ((x_{\max} - x_{\min}) / (x_{\max} + x_{\min}))^2`
    circular   :math:`1 - d_{kl} / \max d`, :math:`d_{kl} = \sin^2(\pi (x_k - x_l) / (x_{\max} - x_{\min} + 1))`
    bipolar    :math:`1 - d_{kl} / \max d`, :math:`d_{kl} = (x_k - x_l)^2 / ((x_k + x_l - 2 x_{\min})(2 x_{\max} - x_k - x_l))`
    ========== =====================================================================

    Weights over *values* follow Gwet and irrCAC; ``sklearn``'s
    ``cohen_kappa_score`` uses positions, which is the same for equally
    spaced labels.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability*, 4th ed.,
    Advanced Analytics, ch. 3 (weights) and 9.

    Examples
    --------
    >>> agreement_weights("linear", [1, 2, 3])
           1    2    3
    1  1.0  0.5  0.0
    2  0.5  1.0  0.5
    3  0.0  0.5  1.0
    """
    func = "agreement_weights"
    check_option(func, "scheme", scheme, WEIGHT_SCHEMES)
    values = range(labels) if isinstance(labels, int) else labels
    # labels listed by the user are in their order (as a scale given as a list is)
    sc = labels if isinstance(labels, Scale) else Scale(tuple(values), ordered=True)
    W = weight_matrix(scheme, sc, func)
    return pd.DataFrame(W, index=pd.Index(sc.labels), columns=pd.Index(sc.labels))


def patterns(X: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """Distinct rows of ``X``: ``(rows (U, K), multiplicity (U,), inverse (N,))``.

    Rows are packed into one integer key when that fits in int64 (a 1-D
    sort is much faster than ``np.unique(axis=0)``).
    """
    if X.shape[0] == 0:
        return X, np.zeros(0, np.int64), np.zeros(0, np.int64)
    base = int(X.max()) + 1
    K = X.shape[1]
    if K * math.log2(max(base, 2)) < 62:
        radix = base ** np.arange(K, dtype=np.int64)
        key = X @ radix
        _, first, inverse, mult = np.unique(
            key, return_index=True, return_inverse=True, return_counts=True
        )
        return X[first], mult.astype(np.int64), inverse.astype(np.int64)
    # Wide rows (many categories, e.g. continuous values): group by a random
    # projection (a hash; fixed, not user randomness) and verify exactly.
    proj = np.random.default_rng(0x5EED).random((K, 2)) @ np.array([1.0, 1j])
    _, first, inverse, mult = np.unique(
        X @ proj, return_index=True, return_inverse=True, return_counts=True
    )
    if np.array_equal(X[first][inverse], X):
        return X[first], mult.astype(np.int64), inverse.astype(np.int64)
    rows, inverse, mult = np.unique(X, axis=0, return_inverse=True, return_counts=True)
    return rows.astype(np.int64), mult.astype(np.int64), inverse.reshape(-1).astype(np.int64)


class _LeaveOneOut:
    """The weight rows ``base - e_u`` for ``u`` in a slice, without forming them.

    Cores only use their weights through ``W @ A``, ``W.sum(axis=1)`` and
    ``W.shape``, which this provides as ``base @ A - A[u]``.
    """

    def __init__(self, base: FloatArray, rows: slice) -> None:
        self.base = base
        self.rows = rows
        self.shape = (rows.stop - rows.start, base.size)

    def __matmul__(self, other: FloatArray) -> FloatArray:
        return np.asarray((self.base @ other)[None, ...] - other[self.rows], dtype=np.float64)

    def sum(self, axis: int) -> FloatArray:
        if axis != 1:
            raise NotImplementedError
        return np.full(self.shape[0], self.base.sum() - 1.0)


@dataclass(frozen=True)
class BootStatistic:
    """One statistic to bootstrap: its core, its full-data value and its chunk width.

    ``width`` is the number of float64 intermediates the core needs per
    resample (default ``U (K + 1)``), which bounds the chunk size.
    """

    core: Core
    theta_hat: float
    width: int | None = None


def bootstrap_cis(
    stats: Sequence[BootStatistic],
    rows: FloatArray,
    mult: IntArray,
    *,
    confidence_level: float,
    n_resamples: int,
    seed: SeedLike,
    method: str,
) -> list[ConfidenceInterval]:
    """Percentile or BCa intervals of several statistics from ONE set of resamples.

    ``rows`` are the distinct per-item records (patterns) and ``mult`` their
    multiplicities; every statistic sees each resample as the same weights
    over them, so the intervals are paired (a difference of two coefficients
    could be bootstrapped from the same replicates) and the weights, the
    costly part at 10^6 items, are drawn once whatever the number of
    statistics.
    """
    nan = ConfidenceInterval(math.nan, math.nan)
    todo = [i for i, st in enumerate(stats) if math.isfinite(st.theta_hat)]
    out = [nan] * len(stats)
    if mult.size == 0 or not todo:
        return out
    # the same threshold as every bootstrap interval of the package (evaluate's included)
    warn_few_items(int(mult.sum()), what="bootstrap interval of the agreement coefficients")
    default = rows.shape[0] + rows.size
    widths = [default if stats[i].width is None else int(stats[i].width or 0) for i in todo]
    # Weights are drawn chunk by chunk (the same weights for every chunk size)
    # so that B x U never has to fit in memory at once.
    step = max(1, _CHUNK_FLOATS // max(*widths, 1))
    reps: list[list[FloatArray]] = [[] for _ in todo]
    with np.errstate(invalid="ignore", divide="ignore"):
        for W in iter_pattern_weights(mult, n_resamples, seed=seed, chunk=step):
            Wf = W.astype(np.float64)
            for j, i in enumerate(todo):
                reps[j].append(stats[i].core(rows, Wf))
    for j, i in enumerate(todo):
        boot = np.concatenate(reps[j])
        st = stats[i]
        if method == "percentile":
            lo, hi = percentile_interval(boot, confidence_level=confidence_level)
        else:
            # Leaving out one item of pattern u: weights mult - e_u, applied
            # implicitly (O(U) per left-out pattern, not O(U^2)).
            U = mult.size
            jack_u = np.empty(U)
            base = mult.astype(np.float64)
            jstep = max(1, _CHUNK_FLOATS // max(widths[j], 1))
            for start in range(0, U, jstep):
                s = slice(start, min(start + jstep, U))
                with np.errstate(invalid="ignore", divide="ignore"):
                    jack_u[s] = st.core(rows, cast("FloatArray", _LeaveOneOut(base, s)))
            jack = np.repeat(jack_u, mult)
            lo, hi = bca_interval(boot, st.theta_hat, jack, confidence_level=confidence_level)
        out[i] = ConfidenceInterval(float(lo), float(hi))
    return out


def poisson_ci(
    core: Core,
    Xt: FloatArray,
    items: Any,
    *,
    confidence_level: float,
    n_resamples: int,
    seed: int,
    theta_hat: float,
) -> ConfidenceInterval:
    """Percentile interval of ``core`` under the Poisson bootstrap keyed by item id.

    The weights of :func:`~dissensus.stats.poisson_weights` depend on (seed,
    item id, resample) only, so this interval equals the one of
    :mod:`dissensus.distributed` on the same items however they are
    partitioned.
    """
    N = Xt.shape[1]
    if not math.isfinite(theta_hat) or N == 0:
        return ConfidenceInterval(math.nan, math.nan)
    warn_few_items(N, what="bootstrap interval of the agreement coefficients")
    X = np.ascontiguousarray(Xt.T)
    keys = item_keys(items)
    step = max(1, _CHUNK_FLOATS // (2 * X.size + N))
    reps = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for start in range(0, n_resamples, step):
            W = poisson_weights(keys, min(step, n_resamples - start), seed=seed, start=start)
            reps.append(core(X, W))
    lo, hi = percentile_interval(np.concatenate(reps), confidence_level=confidence_level)
    return ConfidenceInterval(float(lo), float(hi))


class ItemBootstrap:
    """The :class:`Resampler` of one coefficient: its item bootstrap, computed on request.

    ``rows()`` gives the distinct per-item records and their multiplicities
    (computed once, at the first request: a point estimate does not pay for
    them); ``statistic(U)`` the core over ``U`` of them. ``poisson`` holds
    the counts and item ids of the Poisson bootstrap (None: multinomial
    only). :func:`dissensus.agreement.report` draws one set of weights for
    the statistics of several results; with an int seed each interval equals
    the result's own.
    """

    def __init__(
        self,
        name: str,
        statistic: Callable[[int], BootStatistic],
        rows: Callable[[], tuple[FloatArray, IntArray]],
        poisson: CountInput | None = None,
    ) -> None:
        self.name, self.statistic, self.rows, self.poisson = name, statistic, rows, poisson
        self._rows: tuple[FloatArray, IntArray] | None = None

    def __call__(
        self, confidence_level: float, n_resamples: int, method: str, bootstrap: str, seed: SeedLike
    ) -> ConfidenceInterval:
        if bootstrap == "poisson":
            if self.poisson is None:
                msg = f"{self.name} resamples with bootstrap='multinomial' only."
                raise ValueError(msg)
            st = self.statistic(0)
            assert isinstance(seed, int)
            return poisson_ci(
                st.core, self.poisson.Xt, self.poisson.items, confidence_level=confidence_level,
                n_resamples=n_resamples, seed=seed, theta_hat=st.theta_hat,
            )  # fmt: skip
        if self._rows is None:
            self._rows = self.rows()
        P, mult = self._rows
        return bootstrap_cis(
            [self.statistic(P.shape[0])], P, mult, confidence_level=confidence_level,
            n_resamples=n_resamples, seed=seed, method=method,
        )[0]  # fmt: skip


def count_rows(inp: CountInput) -> Callable[[], tuple[FloatArray, IntArray]]:
    """The distinct count rows of ``inp`` and their multiplicities, on request."""

    def rows() -> tuple[FloatArray, IntArray]:
        P, mult, _ = patterns(inp.X)
        return P.astype(np.float64), mult

    return rows


def two_sided_p(z: float) -> float:
    """Two-sided normal p-value of a z statistic; NaN when ``z`` is not finite."""
    return float(2.0 * special.ndtr(-abs(z))) if math.isfinite(z) else math.nan


def degenerate(func: str, reason: str) -> str:
    """Warn that ``func`` is undefined here and return the note for the result."""
    note = f"{func} is undefined: {reason}"
    warnings.warn(note, DegenerateAgreementWarning, stacklevel=3)
    return note


def annotations_rater_matrix(data: Any, func: str) -> tuple[FloatArray, Scale]:
    """(N items, R raters) float matrix of label codes with NaN for missing.

    Accepts :class:`Annotations` with annotator ids or an (N, R) array of
    label codes ``0 .. K-1`` (NaN = missing).
    """
    if isinstance(data, Annotations):
        if not data.has_annotators:
            msg = (
                f"{func} compares raters, so it needs annotator ids; load the annotations "
                "with annotator='<column>'."
            )
            raise DataError(msg)
        return data.rater_matrix(), data.scale
    if isinstance(data, LabelCounts):
        msg = (
            f"{func} compares individual raters, which label counts cannot tell apart; "
            "pass Annotations with annotator ids or an (N items, R raters) array."
        )
        raise TypeError(msg)
    if not isinstance(data, np.ndarray | pd.DataFrame | list | tuple):
        # e.g. a Dask collection: np.asarray would collect a long table and read it as raters
        msg = (
            f"{func} compares raters in memory: pass Annotations or an (N items, R raters) "
            f"array, not a {type(data).__name__}. For a Dask DataFrame of long annotations use "
            "Annotations.from_frame(ddf, ...), or dissensus.distributed.pairwise(ddf, ...)."
        )
        raise TypeError(msg)
    try:
        arr = np.asarray(
            data.to_numpy() if isinstance(data, pd.DataFrame) else data, dtype=np.float64
        )
    except (TypeError, ValueError):
        msg = (
            "`ratings` must hold label codes 0..K-1 (NaN for missing); for labels such as "
            "strings build Annotations first, e.g. Annotations.from_wide(df, item=...)."
        )
        raise DataError(msg) from None
    if arr.ndim != 2:
        msg = f"`ratings` must be a 2-D (N items, R raters) array; got shape {arr.shape}."
        raise DataError(msg)
    finite = arr[np.isfinite(arr)]
    bad = (finite < 0) | (finite != np.round(finite))
    if bad.any():
        msg = (
            f"`ratings` must hold label codes 0..K-1 (NaN for missing); found "
            f"{examples(finite[bad])}. Encode labels with Scale.encode or use Annotations."
        )
        raise DataError(msg)
    K = int(finite.max()) + 1 if finite.size else 1
    return arr, Scale(tuple(range(max(K, 1))))


def check_table(table: npt.ArrayLike) -> FloatArray:
    """A square contingency table of non-negative whole counts, as float64."""
    T = np.asarray(table, dtype=np.float64)
    if T.ndim != 2 or T.shape[0] != T.shape[1]:
        msg = f"`table` must be a square K × K contingency table; got shape {T.shape}."
        raise DataError(msg)
    if not np.isfinite(T).all() or (T < 0).any() or (np.round(T) != T).any():
        msg = "`table` must hold non-negative whole counts."
        raise DataError(msg)
    return T


def contingency_to_counts(table: npt.ArrayLike, *, scale: Any = None) -> LabelCounts:
    """Label counts of the items behind a two-rater K × K contingency table.

    Cell ``(k, l)`` holding ``m`` becomes ``m`` items with one rating ``k``
    and one rating ``l``, so every count-based coefficient (Fleiss = Scott's
    pi, AC1, alpha, ...) applies to published tables.

    Parameters
    ----------
    table : array_like of shape (K, K)
        Counts of items by (rater A's label, rater B's label).
    scale : Scale or sequence of labels, optional
        Labels of the rows / columns (default ``0 .. K-1``).

    Returns
    -------
    LabelCounts
        ``table.sum()`` items, two ratings each.

    Examples
    --------
    >>> contingency_to_counts([[2, 1], [0, 1]]).values.tolist()
    [[2, 0], [2, 0], [1, 1], [0, 2]]
    """
    T = check_table(table)
    sc = Scale(tuple(range(T.shape[0])))
    K = T.shape[0]
    eye = np.eye(K, dtype=np.int64)
    cells = (eye[:, None, :] + eye[None, :, :]).reshape(K * K, K)
    values = np.repeat(cells, T.reshape(-1).astype(np.int64), axis=0)
    return LabelCounts.from_array(values, scale=scale if scale is not None else sc)
