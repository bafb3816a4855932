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
multiplicities: :func:`pattern_bootstrap_weights` does that, at a cost that
grows with the number of distinct rows, not of items.

One generator draws every weight in the package (:func:`iter_weight_blocks`;
the item bootstrap is the pattern bootstrap with every multiplicity 1). It is
an exact two-level multinomial, much faster than ``Generator.multinomial``
(one conditional binomial per cell, about 150 ns each):

1. *first level*: per resample, ``Multinomial(n, s_g / n)`` splits the ``n``
   draws among groups of sizes ``s_g``: each *heavy* pattern (at least
   ``_HEAVY`` items) is a group of its own; the items of the other patterns
   are laid end to end as "virtual items" and cut into blocks of
   :math:`2^{15}` = 32,768;
2. *second level*: given its total, the draws inside a block are uniform
   virtual-item indices (15 raw random bits each in a full block), mapped to
   their pattern and counted with one ``bincount`` for a whole chunk of
   resamples.

Every block has its own child generator whose accepted indices are consumed
strictly in order, so the weights depend only on ``(multiplicity, n_resamples,
seed)``, never on the chunk size.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

from dissensus._exceptions import FewItemsWarning
from dissensus._validation import SeedLike, as_generator, check_probability_level

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Columns = slice | IntArray

#: Virtual items per second-level block: a block of counts (256 KB) stays in
#: L2 cache while it is counted, and a power of two makes indices raw bits.
_BLOCK = 2**15
#: Patterns with at least this many items are drawn at the first level (one
#: binomial per resample, ~150 ns) rather than item by item (~6 ns per item
#: per resample). Measured on 10^6 review-like items (29k patterns, 200
#: resamples): threshold 8: 0.30 s, 16: 0.26 s, 24: 0.29 s, 48: 0.36 s, no
#: heavy patterns: 1.84 s; one ``Generator.multinomial`` over the patterns: 0.45 s.
_HEAVY = 16
#: Draws counted at once inside a block (2 MB of int64 indices: cache-sized).
_SUB_CELLS = 2**18
#: Cells (resamples x columns of a block) per chunk of weights: 64 MB of
#: int64. Many resamples per chunk also keep OpenBLAS off its slow path for
#: very flat products (measured: (5, 10^6) @ (10^6, 24) is 20-60 times slower
#: per row than (32, 10^6) @ (10^6, 24) with BLAS threads on a busy machine).
_CHUNK_CELLS = 8 * 2**20
#: Most resamples a bootstrap draws: 10^7 already pins a 95% percentile to
#: about 0.01 standard errors, and more only exhausts memory (the resampled
#: statistics alone take 8 bytes each).
MAX_RESAMPLES = 10**7


class ConfidenceInterval(NamedTuple):
    """A two-sided confidence interval ``(low, high)``."""

    low: float
    high: float


def _check_sizes(func: str, n: int, n_resamples: int) -> None:
    if int(n) < 1:
        msg = f"The 'n' parameter of {func} must be at least 1. Got {n!r} instead."
        raise ValueError(msg)
    if int(n_resamples) < 1:
        msg = f"The 'n_resamples' parameter of {func} must be at least 1. Got {n_resamples!r} instead."
        raise ValueError(msg)
    if int(n_resamples) > MAX_RESAMPLES:
        msg = (
            f"The 'n_resamples' parameter of {func} must be at most {MAX_RESAMPLES:,} "
            f"(the most resamples a bootstrap draws). Got {n_resamples!r} instead."
        )
        raise ValueError(msg)


class _IndexStream:
    """Uniform integers in ``[0, size)`` from one generator, handed out in order.

    Candidates are the 16-bit quarters of raw 64-bit words masked to the
    smallest power of two >= ``size``; those >= ``size`` are rejected
    (acceptance > 1/2, none in a full block). Accepted values not handed out
    yet are kept for the next request, so the sequence does not depend on how
    it is requested.
    """

    def __init__(self, rng: np.random.Generator, size: int) -> None:
        self.bitgen = rng.bit_generator
        self.size = size
        self.mask = (1 << max(0, (size - 1).bit_length())) - 1
        self.exact = size == self.mask + 1
        self.buf = np.empty(0, dtype=np.uint16)

    def _candidates(self, need: int) -> npt.NDArray[np.uint16]:
        n_cand = need if self.exact else need * (self.mask + 1) // self.size + need // 16 + 64
        raw = self.bitgen.random_raw(-(-n_cand // 4))
        cand = raw.astype("<u8", copy=False).view("<u2") & np.uint16(self.mask)
        return cand if self.exact else cand[cand < self.size]

    def add_to(self, idx: IntArray, lut: IntArray | None) -> None:
        """Add the next ``idx.size`` indices (through ``lut`` if given) to ``idx``, in place."""
        m = idx.size
        if self.size == 1:
            if lut is not None:
                idx += lut[0]
            return
        pos = 0
        while pos < m:
            if not self.buf.size:
                self.buf = self._candidates(m - pos)
            seg = self.buf[: m - pos]
            idx[pos : pos + seg.size] += seg if lut is None else lut[seg]
            pos += seg.size
            # keep only the few values not handed out, not a view of the batch
            self.buf = self.buf[seg.size :].copy()


@dataclass(frozen=True)
class _Block:
    """A second-level block: its columns, virtual item -> local column map, size."""

    cols: Columns
    n_cols: int
    lut: IntArray | None
    size: int


@dataclass(frozen=True)
class _Plan:
    total: int
    n_cols: int
    heavy: IntArray
    blocks: list[_Block]
    share: FloatArray


def _plan(multiplicity: IntArray) -> _Plan:
    m = multiplicity
    total = int(m.sum())
    is_heavy = m >= _HEAVY
    heavy = np.flatnonzero(is_heavy)
    light = np.flatnonzero(~is_heavy)
    lm = m[light]
    L = int(lm.sum())
    blocks: list[_Block] = []
    if L:
        unit = bool((lm == 1).all())
        ends = np.cumsum(lm)
        owner = None if unit else np.repeat(np.arange(light.size, dtype=np.int64), lm)
        for b0 in range(0, L, _BLOCK):
            b1 = min(b0 + _BLOCK, L)
            first = int(np.searchsorted(ends, b0, side="right"))
            last = int(np.searchsorted(ends, b1 - 1, side="right")) + 1
            cells = light[first:last]
            cols: Columns = (
                slice(int(cells[0]), int(cells[-1]) + 1)
                if int(cells[-1]) - int(cells[0]) == cells.size - 1
                else cells
            )
            lut = None if owner is None else owner[b0:b1] - first
            blocks.append(_Block(cols, cells.size, lut, b1 - b0))
    sizes = np.concatenate([m[heavy], [b.size for b in blocks]]).astype(np.float64)
    return _Plan(total, m.size, heavy, blocks, sizes / total)


def _as_multiplicity(func: str, multiplicity: npt.ArrayLike) -> IntArray:
    m = np.asarray(multiplicity)
    if m.ndim != 1 or m.size == 0 or not np.issubdtype(m.dtype, np.integer) or (m < 1).any():
        msg = (
            f"The 'multiplicity' parameter of {func} must be a non-empty 1-D array of "
            "positive integers."
        )
        raise ValueError(msg)
    return m.astype(np.int64, copy=False)


def _chunk_size(n_resamples: int, chunk: int | None, width: int) -> int:
    if chunk is not None:
        return max(1, int(chunk))
    return max(1, min(int(n_resamples), _CHUNK_CELLS // max(width, 1)))


def iter_weight_blocks(
    multiplicity: npt.ArrayLike, n_resamples: int, *, seed: SeedLike = 0, chunk: int | None = None
) -> Iterator[tuple[int, Columns, IntArray]]:
    """Bootstrap weights over patterns, chunk by chunk and block by block.

    The engine behind every weight function here (see the module notes);
    use it directly to consume a large weight matrix block by block without
    assembling its rows (as :func:`dissensus.stats.resample_means` does):
    only one block of one chunk is in memory at a time.

    Parameters
    ----------
    multiplicity : array_like of int, shape (U,)
        Items per pattern (all >= 1); ``np.ones(n)`` for the item bootstrap.
    n_resamples : int
        Number of resamples ``B``.
    seed : int, Generator or None, default 0
        Randomness, turned into a Generator once.
    chunk : int, optional
        Resamples per chunk (the weights do not depend on it). Default: about
        64 MB of counts per block.

    Yields
    ------
    row : int
        Index of the chunk's first resample (the blocks of a chunk follow
        each other).
    columns : slice or ndarray of int64
        The patterns this block counts.
    counts : ndarray of int64, shape (c, len(columns))
        Draws of each of these patterns in the chunk's ``c`` resamples. A
        pattern may appear in two consecutive blocks: add, do not assign.
        Summed over a chunk's blocks, every resample totals
        ``multiplicity.sum()``.

    Examples
    --------
    >>> sum(int(W.sum()) for _, _, W in iter_weight_blocks([3, 1, 20], 2, seed=0))
    48
    """
    yield from weight_blocks(multiplicity, n_resamples, seed=seed, chunk=chunk, dtype=np.int64)


def weight_blocks(
    multiplicity: npt.ArrayLike,
    n_resamples: int,
    *,
    seed: SeedLike,
    chunk: int | None,
    dtype: type[np.int64] | type[np.float64],
) -> Iterator[tuple[int, Columns, npt.NDArray[Any]]]:
    """:func:`iter_weight_blocks` with counts of type ``dtype``.

    ``float64`` counts feed a matrix product directly (converted while the
    counts are still in cache, instead of in a second pass over the block).
    """
    m = _as_multiplicity("iter_weight_blocks", multiplicity)
    _check_sizes("iter_weight_blocks", int(m.sum()), n_resamples)
    n_resamples = int(n_resamples)
    rng = as_generator(seed)
    plan = _plan(m)
    light = sum(b.size for b in plan.blocks)
    step = _chunk_size(n_resamples, chunk, max(plan.heavy.size, min(light, _BLOCK)))
    streams = [
        _IndexStream(child, b.size)
        for child, b in zip(rng.spawn(len(plan.blocks)), plan.blocks, strict=True)
    ]
    H = plan.heavy.size
    row = 0
    while row < n_resamples:
        c = min(step, n_resamples - row)
        first: IntArray = (
            np.full((c, 1), plan.total, dtype=np.int64)
            if plan.share.size == 1
            else rng.multinomial(plan.total, plan.share, size=c).astype(np.int64, copy=False)
        )
        if H:
            yield row, plan.heavy, first[:, :H].astype(dtype)
        for g, (block, stream) in enumerate(zip(plan.blocks, streams, strict=True)):
            W = np.empty((c, block.n_cols), dtype=dtype)
            # a few resamples at a time, so that the indices and their counts
            # stay in cache (the stream hands out the same indices either way)
            sub = max(1, _SUB_CELLS // block.size)
            for r0 in range(0, c, sub):
                r1 = min(r0 + sub, c)
                idx = np.repeat(
                    np.arange(r1 - r0, dtype=np.int64) * block.n_cols, first[r0:r1, H + g]
                )
                stream.add_to(idx, block.lut)
                W[r0:r1] = np.bincount(idx, minlength=(r1 - r0) * block.n_cols).reshape(
                    r1 - r0, block.n_cols
                )
            yield row, block.cols, W
        row += c


def iter_pattern_weights(
    multiplicity: npt.ArrayLike, n_resamples: int, *, seed: SeedLike = 0, chunk: int | None = None
) -> Iterator[IntArray]:
    """Yield the rows of :func:`pattern_bootstrap_weights`, ``chunk`` resamples at a time.

    The concatenation of the chunks is the same for every ``chunk`` (default:
    about 64 MB of counts), so callers bound memory without changing results.
    """
    m = _as_multiplicity("iter_pattern_weights", multiplicity)
    step = _chunk_size(int(n_resamples), chunk, m.size)
    rows = np.zeros((0, m.size), dtype=np.int64)
    current = -1
    for row, cols, W in iter_weight_blocks(m, n_resamples, seed=seed, chunk=step):
        if row != current:
            if current >= 0:
                yield rows
            rows = np.zeros((W.shape[0], m.size), dtype=np.int64)
            current = row
        rows[:, cols] += W
    if current >= 0:
        yield rows


def iter_bootstrap_weights(
    n: int, n_resamples: int, *, seed: SeedLike = 0, chunk: int | None = None
) -> Iterator[IntArray]:
    """Yield the rows of :func:`bootstrap_weights`, ``chunk`` resamples at a time.

    As :func:`iter_pattern_weights` with ``n`` patterns of one item each.

    Examples
    --------
    >>> [w.shape for w in iter_bootstrap_weights(4, 5, seed=0, chunk=2)]
    [(2, 4), (2, 4), (1, 4)]
    """
    _check_sizes("iter_bootstrap_weights", n, n_resamples)
    return iter_pattern_weights(
        np.ones(int(n), dtype=np.int64), n_resamples, seed=seed, chunk=chunk
    )


def bootstrap_weights(
    n: int, n_resamples: int, *, seed: SeedLike = 0, chunk: int | None = None
) -> IntArray:
    r"""Multinomial resample counts of the nonparametric bootstrap, shape ``(n_resamples, n)``.

    Row ``b`` says how often each of the ``n`` observations is drawn in
    resample ``b``: a ``Multinomial(n, [1/n] * n)`` vector, drawn by the
    two-level generator of the module notes (about ten times faster than
    ``Generator.multinomial`` at 10^6 items). A statistic that is a sum over
    observations, :math:`T = \sum_i s_i`, is then ``W @ s`` for every
    resample at once. ``chunk`` draws the rows in chunks (same result).

    Examples
    --------
    >>> w = bootstrap_weights(5, 3, seed=0)
    >>> w.shape, w.sum(axis=1).tolist()
    ((3, 5), [5, 5, 5])
    """
    return np.concatenate(list(iter_bootstrap_weights(n, n_resamples, seed=seed, chunk=chunk)))


def pattern_bootstrap_weights(
    multiplicity: npt.ArrayLike, n_resamples: int, *, seed: SeedLike = 0
) -> IntArray:
    """Bootstrap weights over distinct patterns, shape ``(n_resamples, U)``.

    Drawing ``n = multiplicity.sum()`` items with replacement and counting
    how often each *pattern* (group of identical items; ``multiplicity`` of
    them, all > 0) is drawn gives ``Multinomial(n, multiplicity / n)``
    counts: the item bootstrap of any statistic that depends on items only
    through their pattern. ``bootstrap_weights(n, B)`` equals
    ``pattern_bootstrap_weights(np.ones(n, int), B)``.

    Examples
    --------
    >>> w = pattern_bootstrap_weights([3, 1], 4, seed=1)
    >>> w.sum(axis=1).tolist()
    [4, 4, 4, 4]
    """
    return np.concatenate(list(iter_pattern_weights(multiplicity, n_resamples, seed=seed)))


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
    if arr.shape[0] < 2:
        # One resample gives low == high: an interval of width zero that
        # looks like certainty.
        msg = (
            f"A bootstrap interval needs at least 2 resamples; got {arr.shape[0]}. "
            "Use n_resamples of 1000 or more."
        )
        raise ValueError(msg)
    return arr


#: Below this many items a bootstrap interval is flagged with a FewItemsWarning.
MIN_ITEMS_FOR_INTERVAL = 30


def warn_few_items(n_items: int, *, what: str = "bootstrap interval", stacklevel: int = 3) -> None:
    """Warn (:class:`~dissensus.FewItemsWarning`) when an interval rests on too few items.

    A percentile bootstrap over ``n`` items can only take the values of
    means of those items: with one item every resample is the same and the
    interval has width zero; below :data:`MIN_ITEMS_FOR_INTERVAL` items its
    coverage is well under the nominal level.
    """
    if int(n_items) < MIN_ITEMS_FOR_INTERVAL:
        msg = (
            f"The {what} rests on only {int(n_items)} item(s); with fewer than "
            f"{MIN_ITEMS_FOR_INTERVAL} items it is too narrow to trust"
            + (" (with one item it has width zero)." if int(n_items) == 1 else ".")
        )
        warnings.warn(msg, FewItemsWarning, stacklevel=stacklevel)


def percentile_interval(
    boot: npt.ArrayLike, *, confidence_level: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap interval along axis 0, ignoring NaN resamples.

    Parameters
    ----------
    boot : array_like, shape (B, ...)
        Bootstrap replicates of the statistic.
    confidence_level : float, default 0.95
        Two-sided coverage.

    Returns
    -------
    low, high : ndarray, shape (...)
        The ``(1 - confidence_level)/2`` and ``(1 + confidence_level)/2`` quantiles of the finite
        replicates (linear interpolation); NaN where none is finite.

    Examples
    --------
    >>> lo, hi = percentile_interval(np.arange(101.0), confidence_level=0.9)
    >>> float(lo), float(hi)
    (5.0, 95.0)
    """
    confidence_level = check_probability_level(
        "percentile_interval", "confidence_level", confidence_level
    )
    arr = _as_boot(boot)
    tail = (1.0 - confidence_level) / 2.0
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
    confidence_level: float = 0.95,
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
    confidence_level : float, default 0.95
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
        \quad z_j = \Phi^{-1}\left(\tfrac{1 \mp \text{confidence\_level}}{2}\right).

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
    confidence_level = check_probability_level("bca_interval", "confidence_level", confidence_level)
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
        tail = (1.0 - confidence_level) / 2.0
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


# --------------------------------------------------------------------------- Poisson bootstrap

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: Poisson(1) CDF at 0, 1, ...: beyond 19 it is 1 in float64, so 20 cut points suffice.
_POISSON1_CDF = np.cumsum(np.exp(-1.0) / np.cumprod(np.r_[1.0, np.arange(1.0, 20.0)]))


def _mix64(z: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """SplitMix64's finaliser (Steele, Lea and Flood 2014): a bijective 64-bit mixer."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.asarray(z ^ (z >> np.uint64(31)), dtype=np.uint64)


def item_keys(items: Any) -> npt.NDArray[np.uint64]:
    """Stable 64-bit keys of item ids, the same in every process and on every machine.

    Integer ids are mixed from their value; any other id from the SipHash of
    its text (:func:`pandas.util.hash_array` with its fixed key), so the key
    of an item depends on its id only, never on where the item sits.

    Examples
    --------
    >>> bool((item_keys([3, 7]) == item_keys(np.array([7, 3]))[::-1]).all())
    True
    """
    import pandas as pd  # noqa: PLC0415  (stats stays importable without pandas at import)

    arr = np.asarray(items)
    if arr.dtype.kind in "iub":
        return _mix64(arr.astype(np.int64).view(np.uint64) ^ _GOLDEN)
    text = np.asarray(arr.astype(str), dtype=object)
    return np.asarray(pd.util.hash_array(text, categorize=False), dtype=np.uint64)


def poisson_weights(
    keys: npt.NDArray[np.uint64], n_resamples: int, *, seed: int = 0, start: int = 0
) -> FloatArray:
    r"""Poisson(1) bootstrap weights of items, keyed by ``(seed, item, resample)``.

    Parameters
    ----------
    keys : ndarray of uint64, shape (N,)
        Item keys from :func:`item_keys`.
    n_resamples : int
        Resamples to draw (rows of the result).
    seed : int, default 0
        Non-negative integer seed (a Generator has no stable counter to key).
    start : int, default 0
        Index of the first resample: rows ``start .. start + n_resamples - 1``,
        so resamples can be drawn in chunks with the same result.

    Returns
    -------
    ndarray of float64, shape (n_resamples, N)
        ``W[b, i]`` how many times item ``i`` enters resample ``b``.

    Notes
    -----
    A counter-based generator: the uniform of item ``i`` in resample ``b`` is
    :math:`u = \mathrm{mix}(\mathrm{mix}(k_i \oplus s) + (b + 1) \phi) / 2^{64}`
    (``mix`` the SplitMix64 finaliser, :math:`s` the mixed seed,
    :math:`\phi` the 64-bit golden ratio), turned into a Poisson(1) count by
    its inverse CDF. Each weight depends on the seed, the item id and the
    resample only, never on the order, number or partitioning of the items,
    so a dataset split over many machines gets the same weights as in memory.

    Unlike the multinomial (classical) bootstrap, whose weights sum to
    exactly ``N``, a Poisson bootstrap resample has a random size (mean
    ``N``, variance ``N``); weights are independent across items, which is
    what makes them computable item by item. For the ratio statistics of
    agreement the two give the same intervals to first order (Hanley and
    MacGibbon 2006; Chamandy et al. 2012).

    References
    ----------
    Chamandy, N., Muralidharan, O., Najmi, A. and Naidu, S. (2012).
    Estimating uncertainty for massive data streams. Google technical report.

    Hanley, J. A. and MacGibbon, B. (2006). Creating non-parametric bootstrap
    samples using Poisson frequencies. *Computer Methods and Programs in
    Biomedicine* 83(1), 57–62. https://doi.org/10.1016/j.cmpb.2006.04.006

    Steele, G. L., Lea, D. and Flood, C. H. (2014). Fast splittable
    pseudorandom number generators. *OOPSLA 2014*. https://doi.org/10.1145/2660193.2660195

    Examples
    --------
    >>> keys = item_keys(["a", "b", "c", "d"])
    >>> W = poisson_weights(keys, 3, seed=1)
    >>> W.shape
    (3, 4)
    >>> bool((poisson_weights(keys[::-1], 3, seed=1) == W[:, ::-1]).all())
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        msg = (
            "The Poisson bootstrap needs a non-negative integer 'seed' (its weights are keyed "
            f"by seed, item and resample). Got {seed!r} instead."
        )
        raise TypeError(msg)
    _check_sizes("poisson_weights", 1, n_resamples)
    k = np.asarray(keys, dtype=np.uint64)
    s = _mix64(np.asarray([int(seed) & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64) + _GOLDEN)
    base = _mix64(k ^ s)
    b = np.arange(start + 1, start + n_resamples + 1, dtype=np.uint64) * _GOLDEN
    with np.errstate(over="ignore"):
        u64 = _mix64(base[None, :] + b[:, None])
    u = (u64 >> np.uint64(11)).astype(np.float64) * 2.0**-53
    return np.searchsorted(_POISSON1_CDF, u, side="right").astype(np.float64)
