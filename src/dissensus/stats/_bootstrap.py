"""Vectorised bootstrap helpers: resample weights and confidence intervals.

Notation. ``n`` observations (items), ``B`` resamples. A nonparametric
bootstrap resample of ``n`` items drawn with replacement is summarised by its
*weight vector* ``w`` (how many times each item was drawn, ``w.sum() == n``),
so a statistic that is a function of item-level sums is evaluated for all
``B`` resamples at once as ``W @ S`` with ``W`` the ``(B, n)`` weight matrix
and ``S`` the ``(n, ...)`` per-item statistics. No Python loop over
resamples.

When many items share the same per-item statistics (e.g. the same row of
label counts), resampling items is the same as drawing multinomial counts
over the *distinct* rows with probabilities proportional to their
multiplicities: :func:`pattern_bootstrap_weights` does that, which makes
bootstraps over 10^5 items cost as little as over a few thousand patterns.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

from dissensus._validation import SeedLike, as_generator, check_probability_level

__all__ = [
    "ConfidenceInterval",
    "bca_interval",
    "bootstrap_weights",
    "iter_bootstrap_weights",
    "pattern_bootstrap_weights",
    "percentile_interval",
]

FloatArray = npt.NDArray[np.float64]

#: Default memory budget (bytes) of one chunk of a (B, n) weight matrix.
_CHUNK_BYTES = 200 * 2**20


class ConfidenceInterval(NamedTuple):
    """A two-sided confidence interval ``(low, high)``."""

    low: float
    high: float


def _default_chunk(n: int) -> int:
    return max(1, _CHUNK_BYTES // (8 * max(n, 1)))


def _check_sizes(func: str, n: int, n_boot: int) -> None:
    if int(n) < 1:
        msg = f"The 'n' parameter of {func} must be at least 1. Got {n!r} instead."
        raise ValueError(msg)
    if int(n_boot) < 1:
        msg = f"The 'n_boot' parameter of {func} must be at least 1. Got {n_boot!r} instead."
        raise ValueError(msg)


def iter_bootstrap_weights(
    n: int,
    n_boot: int,
    *,
    seed: SeedLike = 0,
    chunk: int | None = None,
    p: npt.ArrayLike | None = None,
    total: int | None = None,
) -> Iterator[npt.NDArray[np.int64]]:
    """Yield the rows of :func:`bootstrap_weights` in chunks of ``chunk`` resamples.

    The concatenation of the chunks equals ``bootstrap_weights(n, n_boot,
    seed=seed)`` for every ``chunk``, so callers can bound memory without
    changing results.

    Parameters
    ----------
    n : int
        Number of cells (items, or distinct patterns when ``p`` is given).
    n_boot : int
        Number of resamples ``B``.
    seed : int, Generator or None, default 0
        Randomness, turned into a Generator once.
    chunk : int, optional
        Resamples per chunk. Default: as many as fit in about 200 MB.
    p : array_like, shape (n,), optional
        Cell probabilities. Default uniform ``1/n`` (the plain bootstrap).
    total : int, optional
        Draws per resample. Default ``n``.

    Yields
    ------
    ndarray of int64, shape (chunk, n)
        Multinomial resample counts; every row sums to ``total``.
    """
    _check_sizes("iter_bootstrap_weights", n, n_boot)
    rng = as_generator(seed)
    probs = np.full(n, 1.0 / n) if p is None else np.asarray(p, dtype=np.float64)
    draws = n if total is None else int(total)
    step = _default_chunk(n) if chunk is None else max(1, int(chunk))
    done = 0
    while done < n_boot:
        size = min(step, n_boot - done)
        yield rng.multinomial(draws, probs, size=size).astype(np.int64, copy=False)
        done += size


def bootstrap_weights(
    n: int, n_boot: int, *, seed: SeedLike = 0, chunk: int | None = None
) -> npt.NDArray[np.int64]:
    r"""Multinomial resample counts of the nonparametric bootstrap.

    Row ``b`` says how often each of the ``n`` observations is drawn in
    resample ``b``: ``rng.multinomial(n, [1/n] * n, size=n_boot)``.

    Parameters
    ----------
    n : int
        Number of observations.
    n_boot : int
        Number of resamples ``B``.
    seed : int, Generator or None, default 0
        Randomness, turned into a Generator once.
    chunk : int, optional
        Draw the rows in chunks of this many resamples (same result for every
        chunk size). Use :func:`iter_bootstrap_weights` to avoid holding the
        full matrix.

    Returns
    -------
    ndarray of int64, shape (n_boot, n)
        Each row sums to ``n``.

    Notes
    -----
    A statistic that is a sum over observations, :math:`T = \sum_i s_i`,
    is evaluated on every resample at once as ``W @ s``. Numpy draws a
    multinomial row with one binomial per cell, which costs about 1 µs per
    cell; for large ``n`` with repeated rows prefer
    :func:`pattern_bootstrap_weights`.

    Examples
    --------
    >>> w = bootstrap_weights(5, 3, seed=0)
    >>> w.shape, w.sum(axis=1).tolist()
    ((3, 5), [5, 5, 5])
    """
    return np.concatenate(list(iter_bootstrap_weights(n, n_boot, seed=seed, chunk=chunk)))


def pattern_bootstrap_weights(
    multiplicity: npt.ArrayLike, n_boot: int, *, seed: SeedLike = 0
) -> npt.NDArray[np.int64]:
    """Bootstrap weights over distinct patterns with given multiplicities.

    Drawing ``n = multiplicity.sum()`` items with replacement and counting
    how often each *pattern* (group of identical items) is drawn gives
    ``Multinomial(n, multiplicity / n)`` counts, so this is exactly the item
    bootstrap of any statistic that depends on items only through their
    pattern, at a cost proportional to the number of patterns.

    Parameters
    ----------
    multiplicity : array_like of int, shape (U,)
        How many items share each pattern (all > 0).
    n_boot : int
        Number of resamples.
    seed : int, Generator or None, default 0
        Randomness.

    Returns
    -------
    ndarray of int64, shape (n_boot, U)
        Each row sums to ``multiplicity.sum()``.

    Examples
    --------
    >>> w = pattern_bootstrap_weights([3, 1], 4, seed=1)
    >>> w.sum(axis=1).tolist()
    [4, 4, 4, 4]
    """
    m = np.asarray(multiplicity, dtype=np.int64)
    total = int(m.sum())
    _check_sizes("pattern_bootstrap_weights", total, n_boot)
    chunks = iter_bootstrap_weights(m.size, n_boot, seed=seed, p=m / total, total=total)
    return np.concatenate(list(chunks))


def _sorted_quantile(
    sorted_boot: FloatArray, count: npt.NDArray[np.int64], q: FloatArray
) -> FloatArray:
    """Quantile ``q`` (per column) of columns sorted with NaN last, ``count`` finite each.

    Linear interpolation between order statistics, as ``numpy.quantile``'s
    default method.
    """
    pos = q * (count - 1)
    lo = np.floor(pos).astype(np.int64)
    lo = np.clip(lo, 0, np.maximum(count - 1, 0))
    hi = np.clip(lo + 1, 0, np.maximum(count - 1, 0))
    frac = pos - lo
    v_lo = np.take_along_axis(sorted_boot, lo[None, ...], axis=0)[0]
    v_hi = np.take_along_axis(sorted_boot, hi[None, ...], axis=0)[0]
    out = v_lo + frac * (v_hi - v_lo)
    return np.where(count > 0, out, np.nan)


def _as_boot(boot: npt.ArrayLike) -> FloatArray:
    arr = np.asarray(boot, dtype=np.float64)
    if arr.ndim == 0:
        msg = "`boot` must have the resamples along axis 0; got a scalar."
        raise ValueError(msg)
    return arr


def percentile_interval(
    boot: npt.ArrayLike, *, level: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap interval along axis 0, ignoring NaN resamples.

    Parameters
    ----------
    boot : array_like, shape (B, ...)
        Bootstrap replicates of the statistic.
    level : float, default 0.95
        Two-sided coverage.

    Returns
    -------
    low, high : ndarray, shape (...)
        The ``(1 - level)/2`` and ``(1 + level)/2`` quantiles of the finite
        replicates (linear interpolation); NaN where none is finite.

    Examples
    --------
    >>> lo, hi = percentile_interval(np.arange(101.0), level=0.9)
    >>> float(lo), float(hi)
    (5.0, 95.0)
    """
    level = check_probability_level("percentile_interval", "level", level)
    arr = _as_boot(boot)
    tail = (1.0 - level) / 2.0
    sorted_boot = np.sort(arr, axis=0)  # NaN sort last
    count = np.isfinite(arr).sum(axis=0)
    q_lo = np.full(arr.shape[1:], tail)
    q_hi = np.full(arr.shape[1:], 1.0 - tail)
    return _sorted_quantile(sorted_boot, count, q_lo), _sorted_quantile(sorted_boot, count, q_hi)


def bca_interval(
    boot: npt.ArrayLike,
    theta_hat: npt.ArrayLike,
    jackknife: npt.ArrayLike,
    *,
    level: float = 0.95,
) -> tuple[FloatArray, FloatArray]:
    r"""Bias-corrected and accelerated (BCa) bootstrap interval along axis 0.

    Parameters
    ----------
    boot : array_like, shape (B, ...)
        Bootstrap replicates (NaN replicates are ignored).
    theta_hat : array_like, shape (...)
        The estimate on the full data.
    jackknife : array_like, shape (n, ...)
        Leave-one-out estimates (one per observation; NaN ignored).
    level : float, default 0.95
        Two-sided coverage.

    Returns
    -------
    low, high : ndarray, shape (...)

    Notes
    -----
    With :math:`\Phi` the standard normal CDF, bias correction
    :math:`\hat z_0 = \Phi^{-1}(\#\{\theta^*_b < \hat\theta\} / B)` and
    acceleration from the jackknife values :math:`\theta_{(i)}` with mean
    :math:`\theta_{(\cdot)}`,

    .. math::

        \hat a = \frac{\sum_i (\theta_{(\cdot)} - \theta_{(i)})^3}
                       {6 \left[\sum_i (\theta_{(\cdot)} - \theta_{(i)})^2\right]^{3/2}},

    the interval ends are the bootstrap quantiles at

    .. math::

        \alpha_j = \Phi\left(\hat z_0 + \frac{\hat z_0 + z_j}
                                         {1 - \hat a (\hat z_0 + z_j)}\right),
        \quad z_j = \Phi^{-1}\left(\tfrac{1 \mp \text{level}}{2}\right).

    When every replicate lies on one side of :math:`\hat\theta`,
    :math:`\hat z_0` is infinite and the interval is NaN.

    References
    ----------
    Efron, B. (1987). Better bootstrap confidence intervals. *JASA* 82(397),
    171–185. https://doi.org/10.1080/01621459.1987.10478410

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=50)
    >>> w = bootstrap_weights(50, 2000, seed=1)
    >>> boot = w @ x / 50
    >>> jack = (x.sum() - x) / 49
    >>> lo, hi = bca_interval(boot, x.mean(), jack)
    >>> bool(lo < x.mean() < hi)
    True
    """
    level = check_probability_level("bca_interval", "level", level)
    arr = _as_boot(boot)
    theta = np.broadcast_to(np.asarray(theta_hat, dtype=np.float64), arr.shape[1:])
    jack = np.asarray(jackknife, dtype=np.float64)
    finite = np.isfinite(arr)
    count = finite.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        below = np.where(finite, arr < theta, False).sum(axis=0) / count
        z0 = special.ndtri(below)
        jmean = np.nanmean(jack, axis=0) if jack.size else np.full(theta.shape, np.nan)
        dev = jmean - jack
        num = np.nansum(dev**3, axis=0)
        den = 6.0 * np.nansum(dev**2, axis=0) ** 1.5
        accel = np.where(den > 0, num / den, 0.0)
        tail = (1.0 - level) / 2.0
        z_lo, z_hi = special.ndtri(tail), special.ndtri(1.0 - tail)
        q_lo = special.ndtr(z0 + (z0 + z_lo) / (1.0 - accel * (z0 + z_lo)))
        q_hi = special.ndtr(z0 + (z0 + z_hi) / (1.0 - accel * (z0 + z_hi)))
    sorted_boot = np.sort(arr, axis=0)
    ok = np.isfinite(q_lo) & np.isfinite(q_hi)
    q_lo = np.where(ok, q_lo, 0.5)
    q_hi = np.where(ok, q_hi, 0.5)
    low = _sorted_quantile(sorted_boot, count, np.asarray(q_lo, dtype=np.float64))
    high = _sorted_quantile(sorted_boot, count, np.asarray(q_hi, dtype=np.float64))
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan)
