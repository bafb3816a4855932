"""Paired comparisons of two models scored on the same items.

Notation. ``N`` items; ``x`` and ``y`` the per-item scores of two models
under one metric; ``d = x - y`` the paired differences; ``B`` resamples.
Every test here is *paired*: resamples keep each item's two scores
together, so the variation shared by both models (hard items, items with few
annotations) cancels out of the comparison.

Resampling is vectorised. A nonparametric bootstrap resample is a weight
vector ``w`` (how often each item is drawn, ``sum(w) == N``), and the
resampled means of ``P`` score series held as the rows of ``S`` (P, N) are
``W @ S.T / N`` for a chunk of weight rows ``W``: one matrix product per
chunk, never a Python loop over resamples. The weights are those of
:func:`~dissensus.stats.bootstrap_weights` (the package's one weight
generator), consumed block by block through
``iter_weight_blocks`` so that the full ``(B, N)``
matrix is never assembled.

Every test takes ``x, y``, the per-item scores (array_like, shape (N,)) of
two models on the same items, and returns a :class:`PairedTestResult`;
``seed`` (int, Generator or None) is the randomness of a resampling test.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy import special

from dissensus._validation import (
    SeedLike,
    as_generator,
    check_option,
    check_probability_level,
    check_resamples,
)
from dissensus.stats._bootstrap import ConfidenceInterval, percentile_interval, weight_blocks

FloatArray = npt.NDArray[np.float64]

#: Memory budget (bytes) of the sign arrays of one permutation chunk.
_CHUNK_BYTES = 128 * 2**20


@dataclass(frozen=True)
class PairedTestResult:
    r"""Outcome of a paired test of ``x`` against ``y``.

    Attributes
    ----------
    statistic : float
        The test statistic (Wilcoxon's :math:`T`; the mean difference for
        the permutation and bootstrap tests).
    pvalue : float
        Two-sided p-value.
    diff : float
        Mean paired difference :math:`\bar d = \overline{x - y}`.
    confidence_interval : ConfidenceInterval
        Percentile bootstrap interval of ``diff`` (bootstrap test); NaN ends
        for the other tests.
    test : str
        ``"wilcoxon"``, ``"permutation"`` or ``"bootstrap"``.
    n : int
        Number of paired items.
    """

    statistic: float
    pvalue: float
    diff: float
    confidence_interval: ConfidenceInterval
    test: str
    n: int

    def __float__(self) -> float:
        """The p-value: the number a paired test is asked for."""
        return self.pvalue

    def __repr__(self) -> str:
        low, high = self.confidence_interval
        interval = f", confidence_interval=({low:.4g}, {high:.4g})" if np.isfinite(low) else ""
        return (
            f"PairedTestResult(test={self.test!r}, statistic={self.statistic:.6g}, "
            f"pvalue={self.pvalue:.4g}, diff={self.diff:.6g}{interval}, n={self.n})"
        )


_NO_CI = ConfidenceInterval(float("nan"), float("nan"))


def _paired(x: npt.ArrayLike, y: npt.ArrayLike) -> FloatArray:
    a = np.asarray(x, dtype=np.float64).ravel()
    b = np.asarray(y, dtype=np.float64).ravel()
    if a.shape != b.shape:
        msg = f"`x` and `y` must hold one score per item each; got {a.size} and {b.size} values."
        raise ValueError(msg)
    if a.size == 0:
        msg = "`x` and `y` are empty; a paired test needs at least one item."
        raise ValueError(msg)
    d = a - b
    if not np.isfinite(d).all():
        i = int(np.flatnonzero(~np.isfinite(d))[0])
        msg = f"Paired difference at position {i} is {d[i]} (x={a[i]}, y={b[i]}); tests need finite scores."
        raise ValueError(msg)
    return d


# -- resampling ----------------------------------------------------------------------


def resample_means(
    scores: npt.ArrayLike, n_resamples: int, *, seed: SeedLike = 0, chunk: int | None = None
) -> FloatArray:
    r"""Bootstrap means of several score series resampled *together* (paired).

    Parameters
    ----------
    scores : array_like, shape (N,) or (P, N)
        ``P`` per-item score series on the same ``N`` items (e.g. every
        model × metric). Non-finite values propagate: a series with an inf
        has inf or NaN resampled means.
    n_resamples : int
        Number of resamples ``B``.
    seed : int, Generator or None, default 0
        Randomness.
    chunk : int, optional
        Resamples per chunk (memory only: the result does not depend on it).
        Default: a (chunk, 32768) block of weights stays under 64 MB.

    Returns
    -------
    ndarray of float64, shape (B, P)
        Row ``b`` holds the means of all series under resample ``b`` of
        ``bootstrap_weights(N, n_resamples, seed=seed)``; any linear contrast of the series (a difference of two models) is
        therefore resampled with the same items.

    Notes
    -----
    The series are centred on their means before the product so that the
    rounding error of the sums scales with the spread of the scores, not
    their level: :math:`\bar s^*_b = \bar s + w_b^\top (s - \bar s) / N`.

    Examples
    --------
    >>> s = np.array([[1.0, 2.0, 3.0, 4.0], [1.5, 2.5, 3.5, 4.5]])
    >>> m = resample_means(s, 200, seed=1)
    >>> m.shape, bool(np.allclose(m[:, 1] - m[:, 0], 0.5))
    ((200, 2), True)
    """
    S = np.asarray(scores, dtype=np.float64)
    if S.ndim == 1:
        S = S[None, :]
    if S.ndim != 2 or S.shape[1] < 1:
        msg = f"`scores` must be a (P, N) array with N >= 1; got shape {S.shape}."
        raise ValueError(msg)
    n_resamples = check_resamples("resample_means", n_resamples)
    N = S.shape[1]
    with np.errstate(invalid="ignore", over="ignore"):
        center = S.mean(axis=1)
        finite = np.isfinite(center)
        out = np.zeros((n_resamples, S.shape[0]))
        blocks = weight_blocks(
            np.ones(N, dtype=np.int64), n_resamples, seed=seed, chunk=chunk, dtype=np.float64
        )
        for row, cols, W in blocks:
            # centred one block of columns at a time: a centred copy of all of
            # S would double the memory of a large (P, N) input
            block = S[:, cols]
            dev = np.where(finite[:, None], block - center[:, None], block)
            out[row : row + W.shape[0]] += W @ dev.T
        out /= N
        out += np.where(finite, center, 0.0)
    return out


# -- tests ---------------------------------------------------------------------------


def wilcoxon_test(x: npt.ArrayLike, y: npt.ArrayLike) -> PairedTestResult:
    r"""Wilcoxon signed-rank test of the paired differences ``x - y``.

    A thin wrapper of :func:`scipy.stats.wilcoxon` with its defaults
    (zero differences dropped, ``method="auto"``: exact for small ``N``,
    normal approximation otherwise), so the statistic and p-value are
    scipy's.

    ``statistic`` is :math:`T = \min(R^+, R^-)`; ``diff`` the mean
    difference; no interval.

    Notes
    -----
    With :math:`R^\pm` the sums of the ranks of :math:`|d_i|` over the
    positive / negative differences, the test asks whether the differences
    are symmetric about 0. When every difference is 0 the p-value is 1.

    References
    ----------
    Wilcoxon, F. (1945). Individual comparisons by ranking methods.
    *Biometrics Bulletin* 1(6), 80–83. https://doi.org/10.2307/3001968

    Examples
    --------
    >>> wilcoxon_test([0.2, 0.4, 0.5, 0.9, 0.3], [0.1, 0.1, 0.3, 0.2, 0.35]).pvalue
    0.125
    """
    d = _paired(x, y)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        # scipy.stats costs ~0.7 s to import; only this test needs it
        from scipy import stats as sps  # noqa: PLC0415

        res = sps.wilcoxon(d)
    return PairedTestResult(
        float(res.statistic), float(res.pvalue), float(d.mean()), _NO_CI, "wilcoxon", d.size
    )


def _sign_flip_pvalue(null: FloatArray, observed: float, adjustment: int) -> float:
    """Two-sided p-value as :func:`scipy.stats.permutation_test` computes it."""
    gamma = abs(np.finfo(np.float64).eps * 100 * observed)
    n = null.size
    less = (np.count_nonzero(null <= observed + gamma) + adjustment) / (n + adjustment)
    greater = (np.count_nonzero(null >= observed - gamma) + adjustment) / (n + adjustment)
    return float(min(1.0, 2.0 * min(less, greater)))


def permutation_test(
    x: npt.ArrayLike, y: npt.ArrayLike, *, n_resamples: int = 9999, seed: SeedLike = 0
) -> PairedTestResult:
    r"""Paired permutation (sign-flip) test of the mean difference.

    Under the null hypothesis that the two models are exchangeable on every
    item, each difference :math:`d_i` is as likely to be :math:`-d_i`; the
    null distribution of :math:`\bar d` is that of
    :math:`\frac1N \sum_i s_i d_i` over random signs :math:`s_i = \pm 1`.

    ``n_resamples`` random sign vectors; when :math:`2^N \le` ``n_resamples``
    all are enumerated and the p-value is exact. ``statistic`` and ``diff``
    are :math:`\bar d`; no interval.

    Notes
    -----
    The two-sided p-value is :math:`\min(1, 2\min(p_\le, p_\ge))`, with
    :math:`p_\ge = (\#\{T^* \ge \bar d\} + 1) / (B + 1)` for random
    resamples (``+1`` dropped when exact) and comparisons made with a
    relative tolerance of 100 machine epsilons, exactly as
    :func:`scipy.stats.permutation_test` with ``permutation_type="samples"``.
    Signs are drawn in chunks and applied with one matrix product per chunk.

    References
    ----------
    Good, P. (2005). *Permutation, Parametric, and Bootstrap Tests of
    Hypotheses*, 3rd ed. Springer. https://doi.org/10.1007/b138696

    Examples
    --------
    >>> permutation_test([0.2, 0.4, 0.5, 0.9, 0.3], [0.1, 0.1, 0.3, 0.2, 0.35]).pvalue
    0.125
    """
    d = _paired(x, y)
    n_resamples = check_resamples("permutation_test", n_resamples)
    N = d.size
    observed = float(d.mean())
    if N < 63 and n_resamples >= 2**N:
        codes = np.arange(2**N, dtype=np.int64)[:, None] >> np.arange(N, dtype=np.int64)
        signs = 1.0 - 2.0 * (codes & 1)
        null = signs @ d / N
        return PairedTestResult(
            observed, _sign_flip_pvalue(null, observed, 0), observed, _NO_CI, "permutation", N
        )
    rng = as_generator(seed)
    step = max(1, _CHUNK_BYTES // (9 * N))
    null = np.empty(n_resamples)
    done = 0
    while done < n_resamples:
        c = min(step, n_resamples - done)
        bits = rng.integers(0, 2, size=(c, N), dtype=np.int8)
        null[done : done + c] = (d.sum() - 2.0 * (bits @ d)) / N  # s = 1 - 2 bit
        done += c
    return PairedTestResult(
        observed, _sign_flip_pvalue(null, observed, 1), observed, _NO_CI, "permutation", N
    )


def bootstrap_test(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    seed: SeedLike = 0,
) -> PairedTestResult:
    r"""Paired bootstrap of the mean difference, with interval and p-value.

    ``statistic`` and ``diff`` are :math:`\bar d`; ``confidence_interval``
    the percentile interval (``confidence_level``) of :math:`\bar d^*` over
    ``n_resamples`` bootstrap resamples of the items.

    Notes
    -----
    The p-value inverts the percentile interval: it is the smallest
    ``1 - confidence_level`` at which the interval excludes 0,

    .. math::

        p = \min\left(1, 2 \min\left(\frac{1 + \#\{\bar d^* \le 0\}}{B + 1},
                                        \frac{1 + \#\{\bar d^* \ge 0\}}{B + 1}\right)\right).

    References
    ----------
    Efron, B., Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*,
    ch. 16. Chapman & Hall. https://doi.org/10.1201/9780429246593

    Examples
    --------
    >>> res = bootstrap_test([0.2, 0.4, 0.5, 0.9, 0.3], [0.1, 0.1, 0.3, 0.2, 0.35], seed=0)
    >>> round(res.diff, 3), bool(res.confidence_interval.low > 0)
    (0.25, True)
    """
    d = _paired(x, y)
    n_resamples = check_resamples("bootstrap_test", n_resamples)
    confidence_level = check_probability_level(
        "bootstrap_test", "confidence_level", confidence_level
    )
    boot = resample_means(d, n_resamples, seed=seed)[:, 0]
    low, high = percentile_interval(boot, confidence_level=confidence_level)
    B = boot.size
    below = (1 + np.count_nonzero(boot <= 0)) / (B + 1)
    above = (1 + np.count_nonzero(boot >= 0)) / (B + 1)
    diff = float(d.mean())
    return PairedTestResult(
        diff,
        float(min(1.0, 2.0 * min(below, above))),
        diff,
        ConfidenceInterval(float(low), float(high)),
        "bootstrap",
        d.size,
    )


def adjust_pvalues(
    pvalues: npt.ArrayLike, *, method: Literal["holm", "bonferroni"] | None = "holm"
) -> FloatArray:
    r"""Adjust p-values for multiple comparisons (family-wise error rate).

    Parameters
    ----------
    pvalues : array_like, shape (m,)
        Raw p-values; NaN entries stay NaN and do not count towards ``m``.
    method : {"holm", "bonferroni"} or None, default "holm"
        ``None`` returns the p-values unchanged.

    Returns
    -------
    ndarray of float64, shape (m,)
        Adjusted p-values, in the input order, capped at 1.

    Notes
    -----
    Bonferroni: :math:`\tilde p_i = \min(1, m p_i)`. Holm's step-down:
    with :math:`p_{(1)} \le \dots \le p_{(m)}`,
    :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1) p_{(j)})`.
    Both control the family-wise error rate; Holm is uniformly more
    powerful.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test
    procedure. *Scandinavian Journal of Statistics* 6(2), 65–70.
    https://www.jstor.org/stable/4615733

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], method="bonferroni").tolist()
    [0.03, 0.12, 0.09]
    """
    check_option("adjust_pvalues", "method", method, ("holm", "bonferroni", None))
    p = np.asarray(pvalues, dtype=np.float64).ravel()
    out = p.copy()
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if method is None or m == 0:
        return out
    q = p[ok]
    if method == "bonferroni":
        out[ok] = np.minimum(1.0, m * q)
        return out
    order = np.argsort(q, kind="stable")
    stepped = np.minimum(1.0, (m - np.arange(m)) * q[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(stepped)
    out[ok] = adjusted
    return out


@dataclass(frozen=True)
class MeanInterval:
    r"""Interval for the mean of the last axis (:func:`mean_interval`); arrays of the leading shape.

    ``mean`` :math:`\bar d`, ``standard_error`` :math:`s / \sqrt{n}` (``ddof=1``),
    ``ci_low`` and ``ci_high`` the interval, ``p_positive`` the probability that
    the true mean is positive (the level at which the one-sided interval
    touches 0; 0, 1/2 or 1 when the standard error is 0), ``n`` the values per
    row, ``n_infinite`` the non-finite ones: a row with any has its infinite
    (or NaN) mean and NaN elsewhere, as has every row when ``n < 2``.
    """

    mean: FloatArray
    standard_error: FloatArray
    ci_low: FloatArray
    ci_high: FloatArray
    p_positive: FloatArray
    n: int
    n_infinite: npt.NDArray[np.int64]


def _cbrt1m(u: FloatArray) -> FloatArray:
    """``cbrt(1 + u) - 1`` without cancellation for small ``u`` (real cube root below -1)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(u > -1.0, np.expm1(np.log1p(u) / 3.0), np.cbrt(1.0 + u) - 1.0)
    return out


def mean_interval(
    values: npt.ArrayLike, *, confidence_level: float = 0.95, skew_correction: bool = True
) -> MeanInterval:
    r"""Interval and P(mean > 0) for the mean of the last axis, vectorised over the others.

    For paired differences ``d`` (shape (..., n)): an interval for the mean of
    the distribution they are drawn from, from the standard error of the
    sample mean, without resampling. With ``skew_correction`` (default) it is
    Hall's (1992) transformation of the studentized mean: with :math:`T =
    (\bar d - \mu)/\mathrm{SE}`, sample skewness :math:`\hat\gamma`, :math:`a =
    \hat\gamma / (3\sqrt n)` and :math:`b = \hat\gamma / (6\sqrt n)`,

    .. math::

        g(T) = \frac{(1 + aT)^3 - 1}{3a} + b \approx t_{n-1}, \qquad
        \mu \in \bar d - \mathrm{SE}\; g^{-1}(\pm t_{n-1,(1+c)/2}),

    :math:`g^{-1}(y) = ((1 + 3a(y - b))^{1/3} - 1)/a`, monotone, so the interval
    stretches towards a heavy tail that a sample of a few hundred items
    under-represents (a log-loss difference where some predictions are
    tiny); ``p_positive`` is :math:`F_{t_{n-1}}(g(\bar d / \mathrm{SE}))`. Without
    it (or when :math:`\hat\gamma = 0`) it is the Student t interval
    :math:`\bar d \pm t_{n-1,(1+c)/2}\,\mathrm{SE}`. ``ValueError`` for a
    ``confidence_level`` outside (0, 1).

    References
    ----------
    .. [1] Hall, P. (1992). On the removal of skewness by transformation. J. R.
       Statist. Soc. B 54(1), 221-228. doi:10.1111/j.2517-6161.1992.tb01876.x

    Examples
    --------
    >>> r = mean_interval([[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0]], confidence_level=0.9)
    >>> r.mean.tolist(), r.ci_low.round(4).tolist(), r.p_positive.round(4).tolist()
    ([2.5, 0.0], [0.9809, 0.0], [0.9848, 0.5])
    >>> skewed = mean_interval([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 10.0])
    >>> plain = mean_interval([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 10.0], skew_correction=False)
    >>> bool(skewed.ci_high - skewed.mean > plain.ci_high - plain.mean)
    True
    """
    level = check_probability_level("mean_interval", "confidence_level", confidence_level)
    x = np.asarray(values, dtype=np.float64)
    n = x.shape[-1]
    shape = x.shape[:-1]
    n_inf = (~np.isfinite(x)).sum(axis=-1).astype(np.int64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        mean = x.mean(axis=-1) if n else np.full(shape, np.nan)
        if n >= 2:
            dev = x - mean[..., None]
            m2 = np.einsum("...i,...i->...", dev, dev) / n
            se = np.sqrt(m2 * n / (n - 1)) / np.sqrt(n)
            gamma = (dev**3).mean(axis=-1) / m2**1.5 if skew_correction else np.zeros(shape)
        else:
            se = gamma = np.full(shape, np.nan)
    se = np.where(n_inf == 0, se, np.nan)
    gamma = np.where(np.isfinite(gamma), gamma, 0.0)
    root_n = np.sqrt(max(n, 1))
    a, b = gamma / (3.0 * root_n), gamma / (6.0 * root_n)
    # a = 0 (no skewness): g is the identity shifted by b = 0
    plain = np.abs(a) < 1e-300
    safe_a = np.where(plain, 1.0, a)

    def g_inv(y: FloatArray | float) -> FloatArray:
        out: FloatArray = np.where(plain, y - b, _cbrt1m(3.0 * a * (y - b)) / safe_a)
        return out

    df = float(max(n - 1, 1))
    q = float(special.stdtrit(df, 0.5 + level / 2.0))
    low, high = mean - se * g_inv(q), mean - se * g_inv(-q)
    ratio = np.divide(mean, se, out=np.zeros_like(se), where=se > 0)
    g_ratio = np.where(plain, ratio, ((1.0 + a * ratio) ** 3 - 1.0) / (3.0 * safe_a)) + b
    p = np.where(se > 0, special.stdtr(df, g_ratio), 0.5 * (1.0 + np.sign(mean)))
    p = np.where(np.isnan(se), np.nan, p)
    return MeanInterval(mean, se, low, high, p, n, n_inf)
