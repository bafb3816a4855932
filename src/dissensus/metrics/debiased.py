r"""Debiased soft metrics: estimate :math:`f(\pi, q)` against the TRUE label distribution.

For ``f`` not linear in the target, the empirical :math:`\hat p = n_k / n`
of ``n`` annotations gives :math:`\mathbb{E}[f(\hat p, q)] \ne f(\pi, q)`
(biased by an amount that depends on ``q``, enough to reorder models with 2–3
annotations per item). These functions take the label ``counts`` ((N, K)
integers, at least one per item) and remove the :math:`1/n` term of the bias. Each metric with a debiased form
(``debiased[<name>]`` in the registry; ``dissensus metrics --kind debiased``)
has one estimator: the exact U-statistic for ``squared_euclidean``, the
empirical value for the target-linear ``cross_entropy``, the jackknife over
annotations for the metrics declared ``debiased="jackknife"``
(:data:`JACKKNIFE_METRICS`; for ``kl_divergence`` it corrects :math:`-H(\hat
p)` only, Zahl's jackknife entropy). ``kl_divergence_reverse`` has none; the
unary ``entropy``'s, ``debiased[entropy]``, is in :mod:`dissensus.metrics.variation`.

**A debiased value can be negative** (above 1 for similarities): means and
intervals use the unclipped values. **The jackknife does not fix L1 and EMD**
(nor Chebyshev and intersection): their bias near :math:`q = \pi` is of order
:math:`n^{-1/2}`; :func:`binomial_corrected` is the alternative studied
(docs/debiased.md). Items with one annotation get their empirical value and a
:class:`RuntimeWarning` (``single="empirical"``) or NaN (``single="nan"``).
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings
from dataclasses import dataclass
from typing import Any, Literal, cast, overload

import numpy as np
import numpy.typing as npt
from scipy import special

from dissensus._exceptions import DataError
from dissensus._parallel import for_blocks, n_threads
from dissensus._validation import as_count_matrix, check_option, examples
from dissensus.metrics import _declare, _pointwise  # noqa: F401  (declares what is debiased here)
from dissensus.metrics._registry import (
    REGISTRY,
    Metric,
    MetricFunc,
    get_metric,
    list_metrics,
    metric_form,
    register_form,
)

__all__ = [
    "BINOMIAL_METRICS",
    "DEBIASED_METRICS",
    "JACKKNIFE_METRICS",
    "WeightedMean",
    "binomial_corrected",
    "cross_entropy",
    "debiased",
    "inverse_variance_mean",
    "jackknife",
    "jackknife_variance",
    "rps",
    "squared_euclidean",
]

FloatArray = npt.NDArray[np.float64]
SinglePolicy = Literal["empirical", "nan"]
_SINGLE = ("empirical", "nan")

#: The jackknife estimator, as ``dissensus metrics`` prints it (``f`` the pointwise metric).
JACKKNIFE_FORMULA = "n f(p̂) − (n − 1) Σ_k (n_k / n) f(p̂₋ₖ), p̂₋ₖ = (n − e_k)/(n − 1), f(p) = {}"


def _kernel(name: str) -> MetricFunc:
    """The unchecked kernel of a built-in pointwise metric (every one is declared with one)."""
    return cast("MetricFunc", REGISTRY[name].kernel)


def _counts_and_q(
    counts: npt.ArrayLike, q_pred: npt.ArrayLike, single: str, func: str
) -> tuple[npt.NDArray[np.int64], FloatArray, FloatArray, bool]:
    """Checked counts (n >= 1 per row), ``n`` as float, ``q`` (N, K), and whether one item."""
    check_option(func, "single", single, _SINGLE)
    C, nf, one = _checked_counts(counts, func)
    Q, q_one = _declare.prediction_for(C, q_pred, "counts")
    return C, nf, Q, one and q_one


def _checked_counts(
    counts: npt.ArrayLike, func: str
) -> tuple[npt.NDArray[np.int64], FloatArray, bool]:
    """Checked (N, K) counts (n >= 1 per row), ``n`` as float, and whether one row was given."""
    arr = np.asarray(counts)
    one = arr.ndim == 1
    C = as_count_matrix(arr[None, :] if one else arr, "counts")
    n = np.einsum("ij->i", C)  # exact int64 row sums, 3x faster than C.sum(axis=1) at small K
    if (n == 0).any():
        empty = np.flatnonzero(n == 0)
        msg = (
            f"{func}: {empty.size} items have no annotation (rows {examples(empty.tolist())}); "
            "a debiased metric needs at least one (two for the debiasing). Drop these items."
        )
        raise DataError(msg)
    return C, n.astype(np.float64), one


#: Metrics with logs (a ``base=`` option), and user metrics without a kernel, cost several
#: copies of their input: the jackknife gathers the rows that leave a class out when at most
#: this share do. For the cheap kernels gathering costs more than it saves (1M x K = 5, 2-10
#: annotations: JS divergence 0.92 -> 0.71 s, Manhattan 0.19 -> 0.26 s).
_GATHER_SHARE = 0.75


def _single(values: FloatArray, n: FloatArray, single: str, func: str) -> None:
    """Apply the documented one-annotation policy in place."""
    ones = n == 1
    if not ones.any():
        return
    if single == "nan":
        values[ones] = np.nan
        return
    warnings.warn(
        f"{func}: {int(ones.sum())} items have one annotation; the jackknife needs two, so "
        "their value is the empirical (biased) one. Pass single='nan' to leave them out.",
        RuntimeWarning,
        stacklevel=3,
    )


@overload
def jackknife(
    counts: npt.ArrayLike,
    q_pred: npt.ArrayLike,
    /,
    *,
    metric: str,
    single: SinglePolicy = ...,
    return_variance: Literal[False] = ...,
    **options: Any,
) -> FloatArray: ...
@overload
def jackknife(
    counts: npt.ArrayLike,
    q_pred: npt.ArrayLike,
    /,
    *,
    metric: str,
    single: SinglePolicy = ...,
    return_variance: Literal[True],
    **options: Any,
) -> tuple[FloatArray, FloatArray]: ...
def jackknife(
    counts: npt.ArrayLike,
    q_pred: npt.ArrayLike,
    /,
    *,
    metric: str,
    single: SinglePolicy = "empirical",
    return_variance: bool = False,
    **options: Any,
) -> FloatArray | tuple[FloatArray, FloatArray]:
    r"""Jackknife-over-annotations estimate of :math:`f(\pi, q)`, per item.

    ``metric`` is a two-argument pointwise metric of the registry, e.g.
    ``"emd"`` (``ValueError`` otherwise), ``**options`` its options;
    ``single`` as in the module docstring; ``return_variance=True`` also
    returns each item's jackknife variance (NaN for one annotation).

    Notes
    -----
    Leaving out one annotation of class :math:`k` turns the counts :math:`n`
    into :math:`n - e_k`; the :math:`n_k` such leave-outs share one value
    :math:`f_{(k)} = f((n - e_k)/(n - 1), q)`, so the jackknife is a weighted
    sum over the K classes (one metric call per class):

    .. math::

        \hat f_J = n f(\hat p, q) - (n - 1) \sum_k \frac{n_k}{n} f_{(k)},
        \qquad
        \widehat{\mathrm{Var}}_J = \frac{n - 1}{n} \sum_k n_k
            \Big(f_{(k)} - \sum_j \tfrac{n_j}{n} f_{(j)}\Big)^2 .

    It removes the :math:`1/n` term of the bias of a smooth ``f`` (exactly
    unbiased for a quadratic one); where ``f`` has kinks it lowers the bias on
    average only. An infinite empirical value stays infinite.

    References
    ----------
    .. [1] Quenouille, M. H. (1956). Notes on bias in estimation. Biometrika 43,
       353-360. doi:10.1093/biomet/43.3-4.353
    .. [2] Efron, B. and Stein, C. (1981). The jackknife estimate of variance.
       Ann. Statist. 9(3), 586-596. doi:10.1214/aos/1176345462

    Examples
    --------
    Two annotations scored against the truth ``[0.5, 0.5]`` itself: the empirical
    L1 averages 0.5 over annotation draws, the jackknife 0.

    >>> jackknife([[1, 1], [2, 0], [0, 2]], [0.5, 0.5], metric="manhattan")
    array([-1.,  1.,  1.])
    """
    met = _jackknife_metric(metric)
    C, n, Q, one = _counts_and_q(counts, q_pred, single, "jackknife")
    est, var = _jackknife(met, C, n, Q, options, want_variance=return_variance)
    _single(est, n, single, "jackknife")
    out = est[0] if one else est
    if var is None:
        return out
    return out, (var[0] if one else var)


def _jackknife_metric(metric: str) -> Metric:
    met = get_metric(metric)
    if met.kind != "pointwise" or met.unary:
        msg = (
            f"The 'metric' parameter of jackknife takes a two-argument pointwise metric "
            f"(e.g. 'emd'); got {met.name!r}."
        )
        raise ValueError(msg)
    return met


@functools.cache
def _has_logs(func: MetricFunc) -> bool:
    return "base" in inspect.signature(func).parameters


def _jackknife(
    met: Metric,
    C: npt.NDArray[np.int64],
    n: FloatArray,
    Q: FloatArray,
    options: dict[str, Any],
    *,
    want_variance: bool,
) -> tuple[FloatArray, FloatArray | None]:
    """The jackknife estimate (and variance) of every item, by cache-sized blocks of rows on threads.

    K + 1 calls of the (unchecked) kernel per block. Leaving out one class-k
    annotation turns row ``C / n`` into ``(C - e_k) / (n - 1)``: ``B = C / (n -
    1)`` with column k replaced by ``(C_k - 1) / (n - 1)`` (the bytes of the
    brute-force leave-one-out). Rows with ``C_k = 0`` keep ``B`` (weight 0);
    rows with ``n = 1`` use ``n`` for ``n - 1`` and get ``f0``.
    """
    est = np.empty(C.shape[0])
    var = np.empty(C.shape[0]) if want_variance else None
    unchecked = met.kernel is not None
    f = met.kernel if met.kernel is not None else met.func
    gather = not unchecked or _has_logs(met.func)

    def block(lo: int, hi: int) -> None:
        nb, Qb = n[lo:hi], Q[lo:hi]
        Cf = C[lo:hi].astype(np.float64)
        N, K = Cf.shape
        flat = Cf.reshape(-1)
        # division by a repeated vector: a broadcast n[:, None] runs K-long inner loops (2.5x slower)
        n_rep = np.repeat(nb, K)
        P = (flat / n_rep).reshape(N, K)
        many = nb >= 2
        d_rep = np.maximum(n_rep - 1.0, 1.0)  # n - 1, and 1 where n = 1 (those rows keep f0)
        B = (flat / d_rep).reshape(N, K)
        Cm = np.maximum(flat - 1.0, 0.0)
        Cm /= d_rep
        B1 = Cm.reshape(N, K)  # column k of the leave-one-class-k-out targets
        CT = np.ascontiguousarray(Cf.T)  # contiguous class columns for the weights
        f0 = np.asarray(f(P, Qb, **options), dtype=np.float64)
        s1 = np.zeros(N)
        s2 = np.zeros(N) if want_variance else None
        for k in range(K):  # one metric call per class: the n_k leave-outs share a value
            ck = CT[k]
            hk = (ck > 0) & many
            m = int(np.count_nonzero(hk))
            if m == 0:
                continue
            keep = None
            if gather and m < _GATHER_SHARE * N:
                # an expensive metric on the rows that leave something out only (gathered copies)
                idx: npt.NDArray[np.intp] | slice = np.flatnonzero(hk)
                Pk = B[idx]
                Pk[:, k] = B1[idx, k]
            else:
                idx, keep = slice(None), B[:, k].copy()
                B[:, k] = B1[:, k]
                # a user metric without a kernel re-checks its rows: give the weight-0 rows p-hat
                Pk = B if unchecked else np.where(hk[:, None], B, P)
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                g = np.asarray(f(Pk, Qb[idx], **options), dtype=np.float64)
                g -= f0[idx]  # NaN (inf - inf) only where f0 is infinite: those items keep f0
            if keep is not None:
                B[:, k] = keep
            w = g * ck[idx]  # n_k (f_k - f0), then n_k (f_k - f0)^2; 0 where n_k = 0
            s1[idx] += w
            if s2 is not None:
                w *= g
                s2[idx] += w
        with np.errstate(invalid="ignore", divide="ignore"):
            # centred on f0: f0 - (n-1)/n * sum n_k (f_k - f0) = n f0 - (n-1) sum (n_k/n) f_k
            est[lo:hi] = np.where(np.isfinite(f0) & many, f0 - (nb - 1.0) / nb * s1, f0)
            if var is not None and s2 is not None:
                v = np.where(many, (nb - 1.0) / nb * (s2 - s1 * s1 / nb), np.nan)
                var[lo:hi] = np.maximum(v, 0.0)  # rounding only: a sum of squares

    step = max(256, _declare.CHUNK_ELEMENTS // max(C.shape[1], 1))
    for_blocks(C.shape[0], step, block, n_threads(None, "dissensus.metrics"))
    return est, var


def jackknife_variance(
    counts: npt.ArrayLike, q_pred: npt.ArrayLike, /, *, metric: str, **options: Any
) -> FloatArray:
    r"""The jackknife variance :math:`\widehat{\mathrm{Var}}_J \ge 0` of each item's debiased estimate.

    As :func:`jackknife` (also the variance of the exact ``squared_euclidean``
    and ``cross_entropy`` forms). NaN for one annotation; 0 when all
    annotations agree, an underestimate (see :func:`inverse_variance_mean`).

    Examples
    --------
    >>> jackknife_variance([[2, 1], [2, 0], [1, 0]], [0.5, 0.5], metric="manhattan")
    array([0.444444, 0.      ,      nan])
    """
    met = _jackknife_metric(metric)
    C, n, Q, one = _counts_and_q(counts, q_pred, "nan", "jackknife_variance")
    var = cast("FloatArray", _jackknife(met, C, n, Q, options, want_variance=True)[1])
    return var[0] if one else var


@dataclass(frozen=True)
class WeightedMean:
    r"""An inverse-variance weighted mean over items (:func:`inverse_variance_mean`).

    ``statistic`` is :math:`\sum_i w_i x_i` with the normalised ``weights``,
    ``standard_error`` :math:`1 / \sqrt{\sum_i 1 / \max(v_i, v_0)}` (independent
    items), ``floor`` the :math:`v_0` used, ``n_floored`` the items below it.
    """

    statistic: float
    standard_error: float
    weights: FloatArray
    floor: float
    n_floored: int

    def __float__(self) -> float:
        return self.statistic

    def __repr__(self) -> str:
        return (
            f"WeightedMean(statistic={self.statistic:.6g}, "
            f"standard_error={self.standard_error:.3g}, floor={self.floor:.3g}, "
            f"n_floored={self.n_floored} of {self.weights.size})"
        )


def inverse_variance_mean(
    values: npt.ArrayLike,
    variances: npt.ArrayLike,
    /,
    *,
    floor: float | Literal["min", "median"] = "min",
) -> WeightedMean:
    r"""Mean of per-item estimates weighted by their inverse variance: a DIFFERENT estimand.

    ``values`` and ``variances``, shape (N,): per-item estimates (e.g.
    :func:`jackknife` values of one model) and their variances (e.g.
    :func:`jackknife_variance`; to compare models, pass the SAME variances for
    every model, e.g. their mean over models, so that all are scored on one
    estimand). ``floor`` is the smallest variance used in a weight,
    :math:`v_0` (a variance of 0 means "no disagreement seen", not "known
    exactly"): ``"min"`` the smallest positive variance, ``"median"`` the median
    of the positive ones (flatter weights), or a positive number. ``DataError``
    for non-finite values or variances, negative variances, mismatched lengths,
    or no positive variance for ``"min"`` / ``"median"``.

    .. math:: \hat\mu_w = \frac{\sum_i w_i x_i}{\sum_i w_i}, \qquad w_i = \frac{1}{\max(v_i, v_0)} .

    This estimates :math:`\sum_i w_i f(\pi_i, q_i) / \sum_i w_i` (well-annotated
    items count more), NOT the plain mean that :func:`dissensus.evaluate` reports;
    the least variable weighted mean when the :math:`v_i` are the true variances.

    References
    ----------
    .. [1] Cochran, W. G. (1954). The combination of estimates from different
       experiments. Biometrics 10(1), 101-129. doi:10.2307/3001666

    Examples
    --------
    >>> r = inverse_variance_mean([0.2, 0.4, 0.3], [0.01, 0.04, 0.0])
    >>> round(r.statistic, 4), r.floor, r.n_floored
    (0.2667, 0.01, 1)
    """
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    v = np.asarray(variances, dtype=np.float64).reshape(-1)
    if x.shape != v.shape:
        msg = (
            f"`values` has {x.size} items but `variances` has {v.size}; pass one variance "
            "per value."
        )
        raise DataError(msg)
    for name, arr in (("values", x), ("variances", v)):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            msg = (
                f"`{name}` has {bad.size} NaN or infinite entries (positions "
                f"{examples(bad.tolist())}); items with one annotation have no jackknife "
                "variance: drop them (single='nan' marks them) or give them a variance."
            )
            raise DataError(msg)
    if (v < 0).any():
        bad = np.flatnonzero(v < 0)
        msg = f"`variances` has negative entries (positions {examples(bad.tolist())})."
        raise DataError(msg)
    if isinstance(floor, str):
        check_option("inverse_variance_mean", "floor", floor, ("min", "median"))
        positive = v[v > 0]
        if positive.size == 0:
            msg = (
                f"inverse_variance_mean: no item has a positive variance, so floor={floor!r} is "
                "undefined; pass a positive floor=."
            )
            raise DataError(msg)
        v0 = float(positive.min() if floor == "min" else np.median(positive))
    else:
        v0 = float(floor)
        if not (math.isfinite(v0) and v0 > 0):
            msg = (
                "The 'floor' parameter of inverse_variance_mean must be 'min', 'median' or a "
                f"positive number. Got {floor!r}."
            )
            raise ValueError(msg)
    vf = np.maximum(v, v0)
    w = 1.0 / vf
    total = float(w.sum())
    return WeightedMean(
        statistic=float(w @ x) / total,
        standard_error=1.0 / math.sqrt(total),
        weights=w / total,
        floor=v0,
        n_floored=int((v < v0).sum()),
    )


#: Metrics with the binomial bias correction of :func:`binomial_corrected`.
BINOMIAL_METRICS = ("manhattan", "emd")


def _binomial_cdf(m: FloatArray, n: FloatArray, F: FloatArray) -> FloatArray:
    """P(X <= m) for X ~ Binomial(n, F): I_{1-F}(n - m, m + 1), 0 below 0 and 1 from n on."""
    inside = (m >= 0) & (m < n)
    with np.errstate(invalid="ignore"):
        b = special.betainc(np.where(inside, n - m, 1.0), np.where(inside, m + 1.0, 1.0), 1.0 - F)
    out: FloatArray = np.where(inside, b, np.where(m >= n, 1.0, 0.0))
    return out


def _binomial_abs_dev(F: FloatArray, c: FloatArray, n: FloatArray) -> FloatArray:
    r""":math:`\mathbb{E}|X/n - c|` for :math:`X \sim \mathrm{Binomial}(n, F)`, elementwise.

    With :math:`m = \lfloor n c \rfloor` and :math:`B(m; n, F)` the binomial
    CDF, :math:`\mathbb{E}[(c - X/n)_+] = c\,B(m; n, F) - F\,B(m - 1; n - 1, F)`
    (because :math:`x \binom{n}{x} F^x (1-F)^{n-x} = n F \binom{n-1}{x-1} \dots`), and
    :math:`|y - c| = (y - c) + 2 (c - y)_+`. A ``c`` on the lattice ``x / n``
    contributes a zero term whichever side rounding puts it.
    """
    m = np.floor(n * c)
    b1 = _binomial_cdf(m, n, F)
    b2 = _binomial_cdf(m - 1.0, n - 1.0, F)
    out: FloatArray = (F - c) + 2.0 * (c * b1 - F * b2)
    return out


def binomial_corrected(
    counts: npt.ArrayLike,
    q_pred: npt.ArrayLike,
    /,
    *,
    metric: Literal["manhattan", "emd"],
    prior: float = 0.5,
    single: SinglePolicy = "empirical",
) -> FloatArray:
    r"""L1 or EMD against the truth with the binomial bias of each term removed, per item.

    ``metric`` is ``"manhattan"`` or ``"emd"`` (ground distance :math:`|i - j| /
    (K - 1)`); ``prior`` places the correction at :math:`\tilde F = (X + a) / (n
    + 2a)`, ``a = prior`` (0.5: the Jeffreys posterior mean; 0: the plug-in, the
    parametric bootstrap).

    Both metrics are sums of :math:`|F - c|` over binomial proportions (class
    shares for L1, cumulative shares for EMD). The bias of the plug-in term,
    :math:`\beta(F) = \mathbb{E}_F|\hat F - c| - |F - c|`, has a closed form
    (:func:`_binomial_abs_dev`), subtracted at :math:`\tilde F`:

    .. math:: \widehat{|F - c|} = |\hat F - c| - \beta(\tilde F), \qquad \tilde F = \frac{X + a}{n + 2a}.

    No unbiased estimator of :math:`|F - c|` exists (not a polynomial in
    :math:`F`); this one-step bias correction at a shrunk :math:`\tilde F` does
    not jump with the lattice :math:`x / n` as the jackknife does.

    References
    ----------
    .. [1] Efron, B. and Tibshirani, R. J. (1993). An Introduction to the
       Bootstrap, ch. 10. Chapman & Hall. doi:10.1201/9780429246593
    .. [2] Jiao, J., Han, Y. and Weissman, T. (2018). Minimax estimation of the
       L1 distance. IEEE Trans. Inf. Theory 64(10), 6672-6706.
       doi:10.1109/TIT.2018.2846245

    Examples
    --------
    >>> binomial_corrected([[1, 1], [2, 0]], [0.5, 0.5], metric="manhattan").round(4)
    array([-0.5   ,  0.9444])
    """
    check_option("binomial_corrected", "metric", metric, BINOMIAL_METRICS)
    a = float(prior)
    if not (math.isfinite(a) and a >= 0.0):
        msg = f"The 'prior' parameter of binomial_corrected must be a number >= 0. Got {prior!r}."
        raise ValueError(msg)
    C, n, Q, one = _counts_and_q(counts, q_pred, single, "binomial_corrected")
    K = C.shape[1]
    if metric == "emd":
        X = np.cumsum(C[:, :-1], axis=1, dtype=np.float64)
        c = np.cumsum(Q[:, :-1], axis=1)
        scale = float(max(K - 1, 1))
    else:
        X, c, scale = C.astype(np.float64), np.asarray(Q), 1.0
    nn = n[:, None]
    F_hat = X / nn
    F_tilde = (X + a) / (nn + 2.0 * a)
    term = np.abs(F_hat - c) - (_binomial_abs_dev(F_tilde, c, nn) - np.abs(F_tilde - c))
    plug = np.abs(F_hat - c).sum(axis=1) / scale
    est: FloatArray = np.where(n >= 2, term.sum(axis=1) / scale, plug)
    _single(est, n, single, "binomial_corrected")
    return est[0] if one else est


@metric_form("debiased", "squared_euclidean", formula="‖p̂ − q‖² − (1 − Σ_k p̂_k²) / (n − 1)")
def squared_euclidean(
    counts: npt.ArrayLike, q_pred: npt.ArrayLike, /, *, single: SinglePolicy = "empirical"
) -> FloatArray:
    r"""Unbiased estimate of the squared Euclidean distance (Brier score) to the truth.

    :math:`n_k(n_k - 1) / (n(n - 1))` is the unbiased U-statistic for :math:`\pi_k^2`, so

    .. math:: \widehat{\lVert \pi - q \rVert^2} = \lVert \hat p - q \rVert^2 - \frac{1 - \sum_k \hat p_k^2}{n - 1}

    is exactly unbiased when :math:`n \ge 2`, and equals :func:`jackknife` here.

    References
    ----------
    .. [1] Hoeffding, W. (1948). A class of statistics with asymptotically normal
       distribution. Ann. Math. Statist. 19(3), 293-325. doi:10.1214/aoms/1177730196

    Examples
    --------
    >>> squared_euclidean([[1, 1], [2, 0]], [0.5, 0.5])
    array([-0.5,  0.5])
    """
    C, n, Q, one = _counts_and_q(counts, q_pred, single, "squared_euclidean")
    P: FloatArray = C / n[:, None]  # the empirical distributions
    f0 = _kernel("squared_euclidean")(P, Q)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = f0 - (1.0 - np.einsum("ij,ij->i", P, P)) / (n - 1.0)
    est = np.where(n >= 2, est, f0)
    _single(est, n, single, "squared_euclidean")
    return est[0] if one else est


@metric_form(
    "debiased",
    "rps",
    formula="RPS(p̂, q) − Σ_k P̂_k (1 − P̂_k) / ((n − 1)(K − 1)), P̂ cumulative",
)
def rps(
    counts: npt.ArrayLike, q_pred: npt.ArrayLike, /, *, single: SinglePolicy = "empirical"
) -> FloatArray:
    r"""Unbiased estimate of the ranked probability score to the truth (exact U-statistic).

    The cumulative count :math:`X_k = n_1 + \dots + n_k` is
    :math:`\mathrm{Binomial}(n, \Pi_k)`, and :math:`X_k (X_k - 1) / (n (n - 1))`
    is the unbiased U-statistic for :math:`\Pi_k^2`; with :math:`\hat P_k = X_k / n`,

    .. math::

        \widehat{\mathrm{RPS}} = \frac{1}{K - 1} \sum_{k=1}^{K-1} \left[(\hat P_k - Q_k)^2
            - \frac{\hat P_k (1 - \hat P_k)}{n - 1}\right]

    is exactly unbiased for :math:`\mathrm{RPS}(\pi, q)` when :math:`n \ge 2` (and
    equals :func:`jackknife` of ``"rps"``: the jackknife is exact for a quadratic).
    ``single`` as for :func:`squared_euclidean`.

    References
    ----------
    .. [1] Hoeffding, W. (1948). A class of statistics with asymptotically normal
       distribution. Ann. Math. Statist. 19(3), 293-325. doi:10.1214/aoms/1177730196

    Examples
    --------
    >>> rps([[1, 1], [2, 0]], [0.5, 0.5])
    array([-0.25,  0.25])
    """
    C, n, Q, one = _counts_and_q(counts, q_pred, single, "rps")
    K = C.shape[1]
    P: FloatArray = C / n[:, None]  # the empirical distributions
    f0 = _kernel("rps")(P, Q)
    F = np.cumsum(P[:, :-1], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        est = f0 - (F * (1.0 - F)).sum(axis=1) / ((n - 1.0) * max(K - 1, 1))
    est = np.where(n >= 2, est, f0)
    _single(est, n, single, "rps")
    return est[0] if one else est


@metric_form("debiased", "cross_entropy", formula="−Σ p̂_k ln q_k (unbiased as it is)")
def cross_entropy(
    counts: npt.ArrayLike,
    q_pred: npt.ArrayLike,
    /,
    *,
    single: SinglePolicy = "empirical",
    **options: Any,
) -> FloatArray:
    r"""Cross-entropy against the empirical distribution: already unbiased for :math:`H(\pi, q)`.

    :math:`H(p, q) = -\sum_k p_k \ln q_k` is linear in the target and
    :math:`\mathbb{E}[\hat p] = \pi`, so ``single="empirical"`` does not warn.

    Examples
    --------
    >>> cross_entropy([[1, 1]], [0.5, 0.5])
    array([0.69314718])
    """
    C, n, Q, one = _counts_and_q(counts, q_pred, single, "cross_entropy")
    P: FloatArray = C / n[:, None]  # the empirical distributions
    est = np.asarray(_kernel("cross_entropy")(P, Q, **options), dtype=np.float64)
    if single == "nan":
        est = np.where(n == 1, np.nan, est)
    return est[0] if one else est


def debiased(
    counts: npt.ArrayLike,
    q_pred: npt.ArrayLike,
    /,
    *,
    metric: str,
    single: SinglePolicy = "empirical",
    **options: Any,
) -> FloatArray:
    """The debiased estimate of ``metric`` (one of :data:`DEBIASED_METRICS`) against the truth, per item.

    Examples
    --------
    >>> debiased([[1, 1], [2, 0]], [0.5, 0.5], metric="squared_euclidean")
    array([-0.5,  0.5])
    """
    check_option("debiased", "metric", metric, DEBIASED_METRICS)
    return REGISTRY[f"debiased[{metric}]"].func(counts, q_pred, single=single, **options)


def _jackknife_form(name: str) -> MetricFunc:
    def form(counts: npt.ArrayLike, q_pred: npt.ArrayLike, /, **options: Any) -> FloatArray:
        out: FloatArray = jackknife(counts, q_pred, metric=name, **options)
        return out

    form.__name__ = form.__qualname__ = f"debiased[{name}]"
    form.__doc__ = f"The jackknife estimate of {name}: ``jackknife(counts, q, metric={name!r})``."
    return form


#: Pointwise metrics whose debiased form is the jackknife over annotations: those declared
#: with ``debiased="jackknife"``, whose link names no form registered above.
JACKKNIFE_METRICS = tuple(
    name
    for name in list_metrics(kind="pointwise")
    if REGISTRY[name].debiased is not None and REGISTRY[name].debiased not in REGISTRY
)
for _name in JACKKNIFE_METRICS:
    register_form(
        "debiased",
        _name,
        _jackknife_form(_name),
        formula=JACKKNIFE_FORMULA.format(REGISTRY[_name].formula),
    )
#: Every pointwise metric with a debiased form (registered as ``debiased[<name>]``).
DEBIASED_METRICS = tuple(cast("str", REGISTRY[n].pointwise) for n in list_metrics(kind="debiased"))
