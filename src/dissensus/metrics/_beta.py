r"""Vectorised Beta-marginal expectations behind :mod:`dissensus.metrics.expected`.

Two elementwise kernels over many :math:`X \sim \mathrm{Beta}(a, b)` and
constants :math:`c`: :func:`abs_dev_into`, :math:`\mathbb{E}|X - c|`, and
:func:`phi_terms`, :math:`\mathbb{E}[\varphi(X, c)]` with :math:`\varphi(x, c) =
x \ln x + c \ln c - (x + c)\ln(x + c)` (quadrature). Parameters ``prior +
counts`` take few distinct pairs :math:`(a, b)` even for millions of items:
what depends on the pair only (:func:`density_tables`, :func:`phi_tables`) is
computed once per distinct pair and gathered, when :func:`half_grid` says it
applies. Callers run fixed-size blocks on threads: results are bit-identical
for any ``n_jobs``.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
from functools import cache
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]

#: Pair tables are used when every ``2 alpha`` is an integer and ``2 a0 < _HALF_LIMIT``
#: (keys ``2a * M + 2b`` then fit a flag array of at most 4 Mi entries).
_HALF_LIMIT = 2048

_beta_pdf: Callable[..., FloatArray] | None = getattr(
    getattr(special, "_ufuncs", None), "_beta_pdf", None
)


def half_grid(a: FloatArray, *, check: bool = True) -> int | None:
    """``M`` such that every ``2 alpha`` and ``2 a0`` is an integer below ``M``, or None.

    ``check=False`` skips the integrality check, for a caller that checks each block.
    """
    if a.size == 0:
        return None
    # K max(alpha) bounds max(a0) and costs one pass instead of a row-wise sum
    top = 2.0 * float(a.max()) * a.shape[1]
    if top >= _HALF_LIMIT:
        top = 2.0 * float(a.sum(axis=1).max())
        if top >= _HALF_LIMIT:
            return None
    if check and not is_half_integer(a):
        return None
    return int(top) + 1


def is_half_integer(x: FloatArray) -> bool:
    """Whether every ``2 x`` is an integer."""
    x2 = x * 2.0
    return bool(np.array_equal(x2, np.floor(x2)))


def pair_keys(a: FloatArray, b: FloatArray, m: int) -> IntArray:
    """Integer keys ``2a * m + 2b`` (exact: all operands are small integers)."""
    k = a * (2.0 * m)
    k += b * 2.0
    return k.astype(np.intp)


def distinct(
    keys: IntArray | None, m: int, flags: BoolArray | None = None
) -> tuple[IntArray, FloatArray, FloatArray]:
    """The distinct keys present, in increasing order, and their ``(a, b)``.

    One scatter into an ``m * m`` flag array (linear time), or the caller's ``flags``.
    """
    if flags is None:
        flags = np.zeros(m * m, dtype=bool)
        flags[keys] = True
    u = np.flatnonzero(flags)
    return u, (u // m) / 2.0, (u % m) / 2.0


@cache
def _stirling_table() -> FloatArray:
    r"""Stirling's remainder :math:`\delta(j/2)`, j = 0..39 (index 0 unused), to 50 digits.

    :math:`\delta(x) = \ln\Gamma(x) - (x - \tfrac12)\ln x + x - \tfrac12\ln 2\pi`
    from exact factorials (in double precision the difference would cancel).
    """
    pi = decimal.Decimal("3.14159265358979323846264338327950288419716939937510582")
    out = np.zeros(_STIRLING_SMALL)
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        half_ln_2pi = (2 * pi).ln() / 2
        for j in range(1, _STIRLING_SMALL):
            x = decimal.Decimal(j) / 2
            if j % 2 == 0:  # Gamma(n) = (n - 1)!
                lg = decimal.Decimal(math.factorial(j // 2 - 1)).ln()
            else:  # Gamma(n + 1/2) = (2n)! sqrt(pi) / (4^n n!)
                n = (j - 1) // 2
                lg = (
                    decimal.Decimal(math.factorial(2 * n)).ln()
                    - decimal.Decimal(4**n * math.factorial(n)).ln()
                    + pi.ln() / 2
                )
            out[j] = float(lg - (x - decimal.Decimal("0.5")) * x.ln() + x - half_ln_2pi)
    out.flags.writeable = False  # cached: a caller must not change what the next one reads
    return out


_STIRLING_SMALL = 40


def stirling(x: FloatArray) -> FloatArray:
    """Stirling's remainder at half-integers ``x > 0`` (table below 20, series above)."""
    out = np.empty(x.shape)
    small = x < _STIRLING_SMALL / 2
    out[small] = _stirling_table()[(2.0 * x[small]).astype(np.intp)]
    y = 1.0 / x[~small]
    y2 = y * y
    # next term 691 / (360360 x^11) < 1e-17 for x >= 20
    out[~small] = y * (1 / 12 - y2 * (1 / 360 - y2 * (1 / 1260 - y2 * (1 / 1680 - y2 / 1188))))
    return out


class DensityTables(NamedTuple):
    r"""Per-pair constants of the density term, indexed by :func:`pair_keys`.

    ``k = a ln p + b ln(1 - p) - ln B(a, b) - ln(a + b)`` with ``p = a / (a + b)``,
    ``lp = ln p``, ``lq = ln(1 - p)``; filled at the keys present only.
    """

    k: FloatArray
    lp: FloatArray
    lq: FloatArray


def density_tables(keys: IntArray | None, m: int, flags: BoolArray | None = None) -> DensityTables:
    r"""The :class:`DensityTables` for the half-integer pairs present in ``keys``.

    By Stirling, :math:`k = \tfrac12 \ln\frac{ab}{2\pi s} - \ln s + \delta(s)
    - \delta(a) - \delta(b)` (:math:`s = a + b`): small terms, exact to a few ulp.
    """
    u, ua, ub = distinct(keys, m, flags)
    us = ua + ub
    k = 0.5 * np.log(ua * ub / (2.0 * math.pi * us)) - np.log(us)
    k += stirling(us) - stirling(ua) - stirling(ub)
    tables = DensityTables(np.empty(m * m), np.empty(m * m), np.empty(m * m))
    tables.k[u] = k
    tables.lp[u] = np.log(ua / us)
    tables.lq[u] = np.log(ub / us)
    return tables


#: Below this a + b a Beta(a, b) variable is a coin between 0 and 1 to double precision.
TINY_SUM = 1e-100
#: Above this (both parameters) a Beta(a, b) variable is its mean plus a normal wobble.
HUGE = 1e12
#: Above this a + b the Jensen-Shannon terms use the delta method (see expected._e_phi).
HUGE_SUM = 1e15


#: The finite sums of :func:`cdf` take an integer parameter up to this (the loop's length).
SUM_MAX = 64
#: ... or up to this when the other parameter is not a half-integer (longer sums
#: would be up to 6e-16 less accurate than SciPy's).
SUM_MAX_REAL = 32
#: ... and the other parameter up to this: the sum (at most ``C(a + b - 1, b - 1)``,
#: about 1e165 here) then stays finite.
SUM_OTHER_MAX = 1e4
#: Below this ``c^a`` (subnormal, relative accuracy lost) the element goes to SciPy.
_POW_MIN = 1e-290


def _int_sum(
    p: FloatArray,
    n: FloatArray,
    z: FloatArray,
    zds: FloatArray | None,
    prod: FloatArray | None,
    *,
    half: bool,
) -> FloatArray:
    r""":math:`S(z) = \sum_{j=0}^{n-1} t_j`, :math:`t_j = \frac{(p)_j}{j!} z^j`, integer ``n >= 1``.

    With ``zds`` (zeros on entry), also :math:`z S'(z) = \sum_j j\, t_j` into it;
    with ``prod`` (ones on entry), also :math:`t_{n-1} = \prod_{j < n - 1} f_j`.
    Horner from the top term, :math:`S_j = 1 + f_j S_{j+1}`, :math:`f_j = z
    \tfrac{p + j}{j + 1}` (and :math:`(zS')_j = f_j (S_{j+1} + (zS')_{j+1})`),
    a loop over j only: ``n`` must be sorted in decreasing order, so that the
    sums under way at step j (``n > j + 1``) are a prefix. All terms are >= 0
    (``p > 0``, ``0 <= z <= 1``): no cancellation. ``half``: every ``p`` is a
    half-integer, so ``p + j`` is exact; otherwise its rounding at each j
    would bias the sum (as p off by j/2 ulp), so :math:`1 + (p - 1)/(j + 1)`,
    ``p - 1`` rounded once.
    """
    s = np.ones(p.shape)
    if not p.size:
        return s
    f = np.empty(p.shape)
    q = p if half else p - 1.0
    top = int(n[0]) - 1
    # how many have n > j + 1, for every step j at once
    active = np.searchsorted(-n, -np.arange(1.0, top + 1.0)).tolist()
    for j in range(top - 1, -1, -1):
        m = active[j]
        fm, sm = f[:m], s[:m]
        if half:
            np.add(q[:m], float(j), out=fm)
            fm *= z[:m]
            fm /= float(j + 1)
        else:
            np.divide(q[:m], float(j + 1), out=fm)
            fm += 1.0
            fm *= z[:m]
        if zds is not None:
            dm = zds[:m]
            dm += sm
            dm *= fm
        if prod is not None:
            prod[:m] *= fm
        sm *= fm
        sm += 1.0
    return s


class _Summed(NamedTuple):
    """The elements :func:`_sums` gave, in its order: positions, ``I``, density term, parameters."""

    idx: IntArray
    i: FloatArray
    dens: FloatArray | None
    a: FloatArray
    b: FloatArray
    c: FloatArray


def _sums(
    a: FloatArray, b: FloatArray, c: FloatArray, *, relative: bool, density: bool
) -> _Summed | None:
    r""":math:`I_c(a, b)` where a finite sum gives it exactly (None: nowhere).

    DLMF 8.17.5 (Abramowitz & Stegun 26.5.6-26.5.7): for a positive integer
    :math:`b`, any real :math:`a > 0`,

    .. math:: I_x(a, b) = x^a \sum_{j=0}^{b-1} \frac{(a)_j}{j!} (1 - x)^j,

    and otherwise, for a positive integer :math:`a`, :math:`I_x(a, b) = 1 -
    I_{1-x}(b, a)` by the same sum: one sum :math:`J = u^p S_p(z)` of length
    ``n`` (``(n, p, z, u) = (b, a, 1 - x, x)`` or ``(a, b, x, 1 - x)``), all
    elements in one loop (:func:`_int_sum`). Integers up to :data:`SUM_MAX`
    (:data:`SUM_MAX_REAL` unless every other parameter is a half-integer), the
    other parameter up to :data:`SUM_OTHER_MAX`.

    ``relative`` (relative accuracy, for :func:`cdf`): the complement only
    where the result is >= 1/2 (the subtraction then loses no relative
    accuracy), ``x^a`` only where it is not subnormal (below ``1e-290``), and
    the rounding of ``1 - x`` (when ``x < 1/2``) corrected: its exact error
    ``d = (1 - fl(1 - x)) - x`` (Sterbenz) enters to first order, :math:`S(y +
    d) = S(y) + (d / y)\, y S'(y)` and :math:`(y + d)^b = y^b (1 + b d / y)`;
    else the sum's sensitivity (up to ``b - 1``) would cost up to ``b/2`` ulp.
    Without it (absolute accuracy, for :func:`abs_dev_sums`) every element with
    an integer parameter is summed and ``1 - x`` is taken as rounded: ``I`` is
    then the exact value at a point within one rounding of ``1 - x`` (2^-53) of
    ``x``, an absolute error up to the density at ``x`` times 1.1e-16.

    With ``density``, also the density term of
    :func:`abs_dev_into`, :math:`2 x (1 - x) f_{a,b}(x) / (a + b)`: with the
    sum's terms :math:`t_j = u^p \tfrac{(p)_j}{j!} z^j` (which sum to 1 over
    all j) it is :math:`\tfrac{2n}{a + b}\, t_n`, since :math:`1 / B(a, b) =
    n\,(p)_n / n!`, and :math:`t_n = t_{n-1}\, z\, \tfrac{a + b - 1}{n}`: one
    product per step of the sum and no Beta function. Elementwise, but for
    that "every" (and the matching choice of the step in :func:`_int_sum`):
    the same block always gives the same bits.
    """
    fb = np.floor(b)
    b_int = b == fb
    fa = np.floor(a)
    a_int = a == fa
    # (the range masks only where some parameter is an integer: no cost for others)
    if not (b_int.any() or a_int.any()):
        return None
    b_int &= (fb >= 1.0) & (fb <= SUM_MAX)
    a_int &= (fa >= 1.0) & (fa <= SUM_MAX)
    a_int |= b_int  # now: some parameter gives a sum
    count = int(np.count_nonzero(a_int))
    if not count:
        return None
    # the sums sorted by length, decreasing (a radix sort of small integers), the rest (0) last
    length = np.where(b_int, b, np.where(a_int, a, 0.0))  # (not a product: NaN x 0 = NaN)
    idx = np.argsort(-length.astype(np.int8), kind="stable")[:count]
    ub, ai, bi, ci = b_int[idx], a[idx], b[idx], c[idx]
    n, p = np.where(ub, bi, ai), np.where(ub, ai, bi)
    # NaN fails every comparison
    if not (p.min() > 0.0 and p.max() <= SUM_OTHER_MAX and ci.min() >= 0.0 and ci.max() <= 1.0):
        keep = np.flatnonzero((p > 0.0) & (p <= SUM_OTHER_MAX) & (ci >= 0.0) & (ci <= 1.0))
        idx, ub = idx[keep], ub[keep]
        ai, bi, ci, n, p = ai[keep], bi[keep], ci[keep], n[keep], p[keep]
        if not idx.size:
            return None  # the rest: SciPy
    half = is_half_integer(p)
    if not half:  # the longest sums (a prefix) are less accurate than SciPy's
        lo = int(np.searchsorted(-n, -SUM_MAX_REAL))
        idx, ub = idx[lo:], ub[lo:]
        ai, bi, ci, n, p = ai[lo:], bi[lo:], ci[lo:], n[lo:], p[lo:]
        if not idx.size:
            return None
    y = 1.0 - ci
    z = np.where(ub, y, ci)
    prod = np.ones(p.shape) if density else None
    zds = np.zeros(p.shape) if relative else None
    s = _int_sum(p, n, z, zds, prod, half=half)
    lead = np.power(np.where(ub, ci, y), p)
    if relative and zds is not None:
        d = 1.0 - y
        d -= ci  # exact: 0 where c >= 1/2
        d /= np.maximum(y, 0.5)  # d != 0 only where y > 1/2
        # the rounded 1 - c is the sum's variable (b integer) or the lead's base (a integer)
        zds *= d
        s += np.where(ub, zds, 0.0)
        lead += np.where(ub, 0.0, lead * p * d)
    # (S <= C(a + b - 1, b - 1) < 1e166 and lead <= 1: val is finite)
    val = lead * s
    good: BoolArray | None = None
    if relative:
        good = np.where(ub, (lead >= _POW_MIN) | (ci == 0.0), val <= 0.5)
        if good.all():
            good = None
    np.subtract(1.0, val, out=val, where=~ub)
    if prod is not None:  # 2 z (a + b - 1) / (a + b) t_{n-1}
        top = ai + bi
        prod *= lead
        prod *= z
        prod *= (top - 1.0) / top
        prod *= 2.0
    if good is None:
        return _Summed(idx, val, prod, ai, bi, ci)
    if not good.any():
        return None
    return _Summed(
        idx[good], val[good], None if prod is None else prod[good], ai[good], bi[good], ci[good]
    )


def _scipy_cdf(
    a: FloatArray, b: FloatArray, c: FloatArray, ib: FloatArray, rest: IntArray | None
) -> None:
    """``ib[rest] = I_c(a, b)`` from SciPy (``rest`` None: everywhere), with its lost values recovered.

    Where SciPy (Boost) returns NaN, the other tail, and where that is lost
    too, the side of ``c`` the mass sits on.
    """
    if rest is None:
        ib[:] = special.betainc(a, b, c)
    elif rest.size:
        ib[rest] = special.betainc(a[rest], b[rest], c[rest])
    lost = np.flatnonzero(np.isnan(ib))
    if lost.size:  # Boost gives NaN at e.g. c = 5e-324 with b = 3e161: use the other tail
        al, bl, cl = a[lost], b[lost], c[lost]
        other = 1.0 - special.betainc(bl, al, 1.0 - cl)
        # still lost: the mass sits far on one side of c (a + b huge)
        ib[lost] = np.where(np.isnan(other), (cl * (al + bl) >= al).astype(np.float64), other)


def cdf(a: FloatArray, b: FloatArray, c: FloatArray, *, relative: bool = True) -> FloatArray:
    r""":math:`I_c(a, b) = P(X \le c)`, X ~ Beta(a, b), for 1-D ``a, b, c`` with c in [0, 1].

    Also the derivative :math:`\tfrac{d}{dc}\mathbb{E}|X - c| = 2 I_c(a, b) - 1`
    (:func:`abs_dev_into`). An integer parameter (``prior + counts`` with a
    uniform prior; with a Jeffreys prior, one of the two of every cumulative
    marginal when K is odd) takes a finite sum (:func:`_sums`: faster, and
    more accurate than SciPy at large parameters); the rest SciPy
    (:func:`_scipy_cdf`).

    ``relative=False`` asks for absolute accuracy only (a few ulp of 1): every
    element with an integer parameter then takes a sum, the complemented one
    below 1/2 too, which SciPy would otherwise compute at four times the cost.
    That is all :math:`\mathbb{E}|X - c|` needs: an absolute error
    :math:`\delta` in ``I`` moves its slope :math:`2I - 1` by :math:`2\delta`
    and its value, which is at least :math:`|c - \mu|`, by at most
    :math:`2\delta |c - \mu|`, a relative :math:`2\delta`.
    """
    ib = np.full(a.shape, np.nan)
    # finite where a sum applies, NaN elsewhere
    done = _sums(a, b, c, relative=relative, density=False)
    filled = 0 if done is None else done.idx.size
    if done is not None:
        ib[done.idx] = done.i
    if filled < a.size:
        _scipy_cdf(a, b, c, ib, np.flatnonzero(np.isnan(ib)) if filled else None)
    return ib


def _density_term(
    a: FloatArray,
    b: FloatArray,
    c: FloatArray,
    t_s: FloatArray,
    pair: tuple[DensityTables, IntArray] | None,
) -> FloatArray:
    r""":math:`2 c (1 - c) f_{a,b}(c) / (a + b)` where no finite sum gives it; ``t_s = (c - \mu)(a + b)``.

    With ``pair = (tables, keys)`` (:func:`density_tables`): :math:`2\exp(a
    \ln(c/\mu) + b \ln((1-c)/(1-\mu)) + k)`, the logs taken as ``log1p`` of
    :math:`\pm t/\mu`, :math:`\mp t/(1-\mu)` with one shared :math:`t = c -
    \mu`, whose rounding then cancels to first order (plain logs in the
    tails, where the density is small): within 3e-16 of exact rational
    values, where ``a ln c + b ln(1 - c)`` errs by up to 2e-14 at :math:`a_0
    \approx 1000`. Otherwise SciPy's (Boost's) Beta density.
    """
    s = a + b
    if pair is not None:
        tables, keys = pair
        u = t_s / a  # t / mu
        v = t_s / b
        np.negative(v, out=v)  # -t / (1 - mu)
        tail_u = np.flatnonzero(u < -0.5)
        tail_v = np.flatnonzero(v < -0.5)
        # the tails' log1p (of about -1, possibly -1 - ulp) is overwritten just below
        with np.errstate(divide="ignore", invalid="ignore"):
            np.log1p(u, out=u)
            np.log1p(v, out=v)
            if tail_u.size:
                u[tail_u] = np.log(c[tail_u]) - tables.lp[keys[tail_u]]
            if tail_v.size:
                v[tail_v] = np.log1p(-c[tail_v]) - tables.lq[keys[tail_v]]
        u *= a
        v *= b
        u += v
        u += tables.k[keys]
        dens = np.exp(u, out=u)  # c = 0 or 1: exp(-inf) = 0
    else:
        inside = (c > 0.0) & (c < 1.0)
        boost: FloatArray | None = None
        if _beta_pdf is not None:
            try:
                with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                    boost = c * (1.0 - c) * _beta_pdf(c, a, b) / s
            except OverflowError:  # Boost refuses e.g. c = 1e-307 with a = 5.5: use logs
                boost = None
        if boost is not None:
            dens = boost
        else:
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
                dens = np.exp(
                    special.xlogy(a, c) + special.xlog1py(b, -c) - special.betaln(a, b) - np.log(s)
                )
        dens = np.where(inside, dens, 0.0)
    bad = np.flatnonzero(~np.isfinite(dens))
    if bad.size:  # Boost's density overflows (inf x a denormal c): take it through logs
        ab, bb, cb = a[bad], b[bad], c[bad]
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            logd = special.xlogy(ab, cb) + special.xlog1py(bb, -cb)
            logd -= special.betaln(ab, bb) + np.log(s[bad])
            dens[bad] = np.where((cb > 0.0) & (cb < 1.0), np.exp(logd), 0.0)
    dens *= 2.0
    return dens


def _finish(
    ib: FloatArray, dens: FloatArray, c_mu: FloatArray, out: FloatArray, slope: FloatArray | None
) -> None:
    """``out = max(0, (c - mu)(2 I - 1) + dens)`` and ``slope = 2 I - 1``; ``ib`` is overwritten."""
    ib *= 2.0
    ib -= 1.0
    if slope is not None:
        slope[:] = ib
    ib *= c_mu
    ib += dens
    np.maximum(ib, 0.0, out=out)


def _scaled_gap(a: FloatArray, b: FloatArray, c: FloatArray) -> FloatArray:
    """``(c - mu)(a + b) = c b - (1 - c) a``: exact at c = 0 and c = 1 even when b << a."""
    t = c * b
    t -= (1.0 - c) * a
    return t


def abs_dev_sums(
    a: FloatArray, b: FloatArray, c: FloatArray, out: FloatArray, slope: FloatArray | None = None
) -> IntArray:
    r""":func:`abs_dev_into` where a parameter is a small integer; return the positions left undone.

    One finite sum gives both ``I`` and the density term (:func:`_sums`,
    absolute accuracy, which is all the value and the slope need: see
    :func:`cdf`); no Beta function, logarithm or SciPy call, about a third of
    :func:`abs_dev_general`'s time. Against mpmath on half-integer and integer
    parameters with ``a + b`` up to 128 (``tests/metrics/test_expected.py::
    test_sums_against_mpmath``): values within 1.2e-15 and slopes within 1.1e-14
    (SciPy's path: 1.9e-16 and 3.5e-15); the
    slope's error is the rounding of ``1 - c`` times the density, which a
    first-order correction (as in :func:`cdf`) would remove at about a tenth
    more time. The positions returned (increasing) hold NaN:
    :func:`abs_dev_general` computes them.
    """
    done = _sums(a, b, c, relative=False, density=True)
    if done is None:
        out[:] = np.nan
        if slope is not None:
            slope[:] = np.nan
        return np.arange(a.size)
    c_mu = _scaled_gap(done.a, done.b, done.c)
    c_mu /= done.a + done.b
    part = np.empty(c_mu.size)
    part_slope = None if slope is None else np.empty(c_mu.size)
    assert done.dens is not None  # density=True
    _finish(done.i, done.dens, c_mu, part, part_slope)
    out[done.idx] = part
    if slope is not None:
        slope[done.idx] = part_slope
    if done.idx.size == a.size:
        return np.empty(0, dtype=np.intp)
    left = np.ones(a.size, dtype=bool)
    left[done.idx] = False
    rest = np.flatnonzero(left)
    out[rest] = np.nan
    if slope is not None:
        slope[rest] = np.nan
    return rest


def abs_dev_general(
    a: FloatArray,
    b: FloatArray,
    c: FloatArray,
    out: FloatArray,
    pair: tuple[DensityTables, IntArray] | None = None,
    *,
    slope: FloatArray | None = None,
) -> None:
    """:func:`abs_dev_into` by SciPy's ``I`` (:func:`_scipy_cdf`) and :func:`_density_term`, with the limits."""
    s = a + b
    ib = np.empty(a.shape)
    _scipy_cdf(a, b, c, ib, None)
    t_s = _scaled_gap(a, b, c)
    dens = _density_term(a, b, c, t_s, pair)
    c_mu = t_s
    c_mu /= s
    _finish(ib, dens, c_mu, out, slope)
    # a + b -> 0: X is 1 with probability a/(a+b), else 0, so E|X - c| -> (b c + a (1 - c))/(a + b).
    # The general form loses it (a b underflows in the density) long before the limit is
    # inexact: its error is O(a + b), below 1e-100 here.
    tiny = np.flatnonzero(s < TINY_SUM)
    if tiny.size:
        at, bt, ct = a[tiny], b[tiny], c[tiny]
        out[tiny] = (bt / s[tiny]) * ct + (at / s[tiny]) * (1.0 - ct)
    # a, b -> inf: X is normal around mu (Boost's density overflows to NaN there), and
    # E|X - c| = sd (2 phi(d) + d (2 Phi(d) - 1)), d = (mu - c) / sd; the skew adds a
    # relative O((a + b)^-1/2) <= 1e-6 to a value below sd <= 5e-7.
    huge = np.flatnonzero((a >= HUGE) & (b >= HUGE))
    if huge.size:
        sh, mu = s[huge], a[huge] / s[huge]
        sd = np.sqrt(mu * (b[huge] / sh) / (sh + 1.0))
        gap = np.abs(c_mu[huge])
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            d = gap / sd
            dens_n = np.exp(-0.5 * d * d) / math.sqrt(2.0 * math.pi)
            normal = sd * (2.0 * dens_n + d * (2.0 * special.ndtr(d) - 1.0))
        # sd may underflow to 0 (a tiny mean over a huge a + b): then E|X - c| = |mu - c|
        out[huge] = np.where(np.isfinite(normal), normal, gap)


def abs_dev_into(
    a: FloatArray,
    b: FloatArray,
    c: FloatArray,
    out: FloatArray,
    pair: tuple[DensityTables, IntArray] | None = None,
    *,
    slope: FloatArray | None = None,
) -> None:
    r"""``out[:] = E|X - c|``, X ~ Beta(a, b), for 1-D ``a, b, c`` with c in [0, 1].

    With ``slope``, also ``slope[:] =`` :math:`\tfrac{d}{dc}\mathbb{E}|X - c| = 2 I_c(a, b) - 1`
    (:func:`cdf`), a by-product of the value.

    :math:`\mathbb{E}|X - c| = (c - \mu)(2 I_c(a, b) - 1) + 2 c (1 - c) f(c) / (a + b)`:
    :func:`abs_dev_sums` where a parameter is a small integer, :func:`abs_dev_general`
    for the rest (with ``pair = (tables, keys)``, :func:`density_tables`, the density
    from per-pair tables).
    """
    rest = abs_dev_sums(a, b, c, out, slope)
    if rest.size == a.size:
        abs_dev_general(a, b, c, out, pair, slope=slope)
    elif rest.size:
        part, ds = np.empty(rest.size), None if slope is None else np.empty(rest.size)
        sub = None if pair is None else (pair[0], pair[1][rest])
        abs_dev_general(a[rest], b[rest], c[rest], part, sub, slope=ds)
        out[rest] = part
        if slope is not None and ds is not None:
            slope[rest] = ds


#: Trapezoid in t on [-2.9, 2.9], 49 nodes, y = yhat + 2.4 s sinh(t) (phi_tables); errors in
#: expected.js_divergence (the 401-node reference is within 2.2e-15 of mpmath). Each 4 nodes
#: fewer lose about 10x (41: 3e-11); t = 3, scale 2 gave 2.4e-12 and 9.7e-12.
JS_T = 2.9
JS_NODES = 49
JS_KAPPA = 2.4


@cache
def js_grid(n_nodes: int, t_max: float, kappa: float) -> tuple[FloatArray, FloatArray]:
    """Standardised nodes z = kappa sinh(t) and trapezoid weights dz (cached)."""
    t = np.linspace(-t_max, t_max, n_nodes)
    h = t[1] - t[0]
    z, dz = kappa * np.sinh(t), kappa * np.cosh(t) * h
    z.flags.writeable = dz.flags.writeable = False  # cached and shared: read-only
    return z, dz


class PhiTables(NamedTuple):
    r"""Per-pair quadrature for :math:`\mathbb{E}[\varphi(X, c)]`, X ~ Beta(a, b).

    ``x`` (P, n) nodes, ``w`` (P, n) weights, and per pair ``m0 = sum w``,
    ``m1 = sum w x ln x``, ``m2 = sum w x``, ``mu = a / (a + b)``; then
    :math:`\mathbb{E}[\varphi(X, c)] \approx m_1 + \varphi_1 (\mu - m_2) +
    c \ln c \, m_0 - \sum_j w_j (x_j + c) \ln(x_j + c)` with
    :math:`\varphi_1 = \varphi(1, c)`.
    """

    x: FloatArray
    w: FloatArray
    m0: FloatArray
    m1: FloatArray
    m2: FloatArray
    mu: FloatArray


def _logit_nodes(
    a: FloatArray, b: FloatArray, z: FloatArray, dz: FloatArray, *, reflect: bool
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Nodes of the sinh-logit rule for Beta(a + 1, b + 1): ``(x, ln x, w, x (1 - x))``.

    All pairs share ``reflect`` (``a > b``). In the frame where the mode x' <=
    1/2, x' = xh e^d / D and 1 - x' = (1 - xh) / D with D = 1 - xh + xh e^d:
    both sides accurate, four transcendental calls per node. ``w`` (x^A (1-x)^B
    relative to the mode times dy/dt) is unnormalised; callers normalise it.
    """
    A = ((b if reflect else a) + 1.0)[:, None]
    B = ((a if reflect else b) + 1.0)[:, None]
    ab = A + B
    xh = A / ab
    xh1 = B / ab
    d = np.sqrt(1.0 / A + 1.0 / B) * z  # y - yhat
    ed = np.exp(d)
    D = xh1 + xh * ed
    L = np.log(D)
    w = np.exp(A * d - ab * L) * dz
    lo = xh * ed / D  # x' in the reflected frame
    hi = xh1 / D  # 1 - x'
    if reflect:
        return hi, np.log(xh1) - L, w, lo * hi
    return lo, np.log(xh) + d - L, w, lo * hi


def phi_tables(
    a: FloatArray, b: FloatArray, rule: tuple[int, float, float] | None = None
) -> PhiTables:
    r"""Nodes and weights of :class:`PhiTables` for 1-D arrays of pairs ``(a, b)``.

    Write :math:`\varphi(x) = \psi(x) + x\varphi(1, c)` with :math:`\psi(0) =
    \psi(1) = 0`; then :math:`\mathbb{E}[\psi(X)] = \mathbb{E}[X(1 - X)]\,
    \mathbb{E}'[\psi(X') / (X'(1 - X'))]`, :math:`X' \sim \mathrm{Beta}(a + 1, b
    + 1)`, whose density in :math:`y = \operatorname{logit} x'` is smooth,
    unimodal and analytic in :math:`|\Im y| < \pi`: trapezoidal rule in
    :math:`t`, :math:`y = \hat y + 2.4 s \sinh t` (mode :math:`\hat y`, scale
    :math:`s`), self-normalised (no Beta function of huge arguments).
    ``rule = (nodes, t_max, scale)`` overrides the rule (for tests). The weights
    fold in everything but :math:`(x + c) \ln(x + c)`, the only part with ``c``.
    """
    z, dz = js_grid(*(rule or (JS_NODES, JS_T, JS_KAPPA)))
    x = np.empty((a.size, z.size))
    lx = np.empty_like(x)
    w = np.empty_like(x)
    lohi = np.empty_like(x)
    for reflect in (False, True):
        sl = np.flatnonzero((a > b) == reflect)
        if sl.size:
            x[sl], lx[sl], w[sl], lohi[sl] = _logit_nodes(a[sl], b[sl], z, dz, reflect=reflect)
    ex1x = a * b / ((a + b) * (a + b + 1.0))
    # x (1 - x) is floored so that far tail nodes (where w underflows to 0) give 0, not nan
    with np.errstate(under="ignore"):
        w *= (ex1x / w.sum(axis=1))[:, None]
        w /= np.maximum(lohi, 1e-300)
    wx = w * x
    return PhiTables(
        x=np.ascontiguousarray(x),
        w=w,
        m0=w.sum(axis=1),
        m1=np.einsum("ij,ij->i", wx, lx),
        m2=wx.sum(axis=1),
        mu=a / (a + b),
    )


def phi_terms(tab: PhiTables, pid: IntArray | None, c: FloatArray) -> FloatArray:
    """E[phi(X, c)] for terms with pair index ``pid`` into ``tab`` (None: one pair per term).

    ``c`` must be > 0 (the c = 0 terms are 0 and are left to the caller).
    """
    if pid is None:
        x, w, m0, m1, m2, mu = tab
        y = x + c[:, None]
    else:
        y = tab.x[pid]
        y += c[:, None]
        w = tab.w[pid]
        m0, m1, m2, mu = tab.m0[pid], tab.m1[pid], tab.m2[pid], tab.mu[pid]
    ly = np.log(y)
    ly *= y
    s = np.einsum("ij,ij->i", ly, w)
    clc = special.xlogy(c, c)
    phi1 = clc - (1.0 + c) * np.log1p(c)
    out: FloatArray = m1 + phi1 * (mu - m2) + clc * m0 - s
    return out


def phi_direct(a: FloatArray, b: FloatArray, c: FloatArray) -> FloatArray:
    """E[phi(X, c)] term by term (the rule of :func:`phi_tables`, nothing stored); c > 0."""
    z, dz = js_grid(JS_NODES, JS_T, JS_KAPPA)
    out = np.empty(a.shape)
    for reflect in (False, True):
        sl = np.flatnonzero((a > b) == reflect)
        if not sl.size:
            continue
        ai, bi, cc = a[sl], b[sl], c[sl, None]
        x, lx, w, lohi = _logit_nodes(ai, bi, z, dz, reflect=reflect)
        clc = special.xlogy(cc, cc)
        phi1 = clc - (1.0 + cc) * np.log1p(cc)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            # x (1 - x) is floored so that far tail nodes (where w underflows to 0) give 0, not nan
            r = (x * (lx - phi1) + clc - (x + cc) * np.log(x + cc)) / np.maximum(lohi, 1e-300)
        ex1x = ai * bi / ((ai + bi) * (ai + bi + 1.0))
        out[sl] = ex1x * (w * r).sum(axis=1) / w.sum(axis=1) + ai / (ai + bi) * phi1[:, 0]
    return out
