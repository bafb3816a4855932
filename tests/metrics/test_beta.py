"""The regularised incomplete beta of dissensus.metrics._beta.cdf: finite sums against SciPy and mpmath."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from dissensus.metrics import _beta

#: x on [0, 1] with the ends and the points next to them
X_EDGES = np.array([0.0, 1.0, 1e-300, 5e-324, 1e-16, 1.0 - 1e-16, 0.5, 0.25, 0.75])


def _params(rng: np.random.Generator, n: int, top: float = 70.0) -> np.ndarray:
    """A third half-integers, a third integers, a third reals, on (0, top]."""
    kind = rng.integers(0, 3, n)
    half = rng.integers(1, int(2 * top) + 1, n) / 2.0
    out = np.where(kind == 1, np.ceil(half), half)
    return np.where(kind == 2, rng.uniform(0.01, top, n), out)


def _grid(seed: int, n: int, top: float = 70.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random (a, b, x): x uniform, near the median (where I is neither 0 nor 1) or an edge."""
    rng = np.random.default_rng(seed)
    a, b = _params(rng, n, top), _params(rng, n, top)
    s = a + b
    mu = a / s
    sd = np.sqrt(mu * (1.0 - mu) / (s + 1.0))
    x = np.clip(mu + 1.5 * sd * rng.normal(size=n), 0.0, 1.0)
    pick = rng.integers(0, 3, n)
    x = np.where(pick == 1, rng.random(n), x)
    return a, b, np.where(pick == 2, rng.choice(X_EDGES, n), x)


def _summed(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """I_x(a, b) where the finite sums (relative accuracy) give it, NaN elsewhere."""
    ib = np.full(a.shape, np.nan)
    done = _beta._sums(a, b, x, relative=True, density=False)
    if done is not None:
        ib[done.idx] = done.i
    return ib


def _tol(value: np.ndarray) -> np.ndarray:
    return 4e-16 + 4e-15 * np.abs(value)


class TestCdfAgainstScipy:
    def test_random_grid(self) -> None:
        a, b, x = _grid(20261126, 60_000)
        got = _beta.cdf(a, b, x)
        ref = special.betainc(a, b, x)
        # Boost errs by up to 3e-13 near the median (TestCdfAgainstMpmath: not us)
        assert np.abs(got - ref).max() <= 5e-13
        np.testing.assert_array_equal(got[x == 0.0], 0.0)
        np.testing.assert_array_equal(got[x == 1.0], 1.0)

    def test_small_parameters(self) -> None:
        # where SciPy (Boost) is itself accurate to a few ulp, tightly
        a, b, x = _grid(20261127, 30_000, top=6.0)
        ref = special.betainc(a, b, x)
        assert np.all(np.abs(_beta.cdf(a, b, x) - ref) <= _tol(ref))

    def test_sums_used_where_they_apply(self) -> None:
        a, b, x = _grid(7, 20_000)
        ib = _summed(a, b, x)
        # real parameters in the block: sums up to SUM_MAX_REAL terms
        b_int = (b == np.floor(b)) & (b <= _beta.SUM_MAX_REAL)
        b_any = (b == np.floor(b)) & (b <= _beta.SUM_MAX)
        tiny_lead = (x > 0.0) & (x**a < 1e-290)
        assert np.all(np.isfinite(ib[b_int & ~tiny_lead]))
        # integer a (b not): only where I >= 1/2, so no cancellation in 1 - I_{1-x}(b, a)
        a_only = (a == np.floor(a)) & ~b_any & (a <= _beta.SUM_MAX_REAL)
        filled = np.isfinite(ib)
        assert np.all(ib[filled & a_only] >= 0.5)
        ref = special.betainc(a, b, x)
        assert np.all(filled[a_only & (ref > 0.5 + 1e-12)])
        assert not np.any(filled[~b_int & ~a_only & (a != np.floor(a))])

    def test_half_integer_blocks_sum_to_sum_max(self) -> None:
        rng = np.random.default_rng(8)
        a = rng.integers(1, 141, 5000) / 2.0
        b = rng.integers(1, _beta.SUM_MAX + 1, 5000).astype(np.float64)
        x = rng.random(5000)
        ib = _summed(a, b, x)
        assert np.all(np.isfinite(ib[x**a >= 1e-290]))
        assert np.all(np.abs(ib - special.betainc(a, b, x)) <= 5e-13)

    def test_left_to_scipy_unchanged(self) -> None:
        # non-integer parameters, integers above SUM_MAX (SUM_MAX_REAL beside a real
        # parameter), c^a subnormal, NaN: SciPy's values
        a = np.array([2.5, 3.3, 70.0, 2.0, np.nan, 3.0, 2.0, 4.0, 1e5, 3.3])
        b = np.array([1.5, 4.7, 65.0, 3.0, 2.0, np.nan, 3.0, 0.0, 3.0, 40.0])
        x = np.array([0.3, 0.6, 0.5, 1e-300, 0.5, 0.5, np.nan, 0.5, 0.99999, 0.05])
        got = _beta.cdf(a, b, x)
        with np.errstate(all="ignore"):
            ref = special.betainc(a, b, x)
        fine = ~np.isnan(ref)
        np.testing.assert_array_equal(got[fine], ref[fine])

    def test_blocks_agree(self) -> None:
        # elementwise: any split of one kind of block gives the same bits
        rng = np.random.default_rng(3)
        a = rng.integers(1, 41, 5000) / 2.0
        b = np.ceil(rng.integers(1, 41, 5000) / 2.0)
        x = rng.random(5000)
        whole = _beta.cdf(a, b, x)
        parts = np.concatenate(
            [_beta.cdf(a[i : i + 700], b[i : i + 700], x[i : i + 700]) for i in range(0, 5000, 700)]
        )
        np.testing.assert_array_equal(whole, parts)


class TestCdfAgainstMpmath:
    def test_against_mpmath_and_scipy(self) -> None:
        mpmath = pytest.importorskip(
            "mpmath", reason="mpmath (installed with sympy, the torch extra) gives the reference"
        )
        a, b, x = _grid(11, 40_000)
        got = _beta.cdf(a, b, x)
        ref = special.betainc(a, b, x)
        # the 100 points where we differ most from SciPy, and 100 more at random
        worst = np.argsort(-np.abs(got - ref))[:100]
        pick = np.concatenate([worst, np.random.default_rng(12).choice(a.size, 100)])
        with mpmath.workdps(30):
            exact = np.array(
                [
                    float(
                        mpmath.betainc(
                            mpmath.mpf(a[i]),
                            mpmath.mpf(b[i]),
                            0,
                            mpmath.mpf(x[i]),
                            regularized=True,
                        )
                    )
                    for i in pick
                ]
            )
        ours, scipys = np.abs(got[pick] - exact), np.abs(ref[pick] - exact)
        assert np.all(ours <= scipys + 1e-15)
        ib = _summed(a, b, x)  # the same block as `got`: the points the sums gave
        summed = np.isfinite(ib[pick])
        assert summed.sum() > 100
        assert np.all(ours[summed] <= _tol(exact[summed]))
        assert scipys.max() > 1e-14  # the grid reaches where SciPy is the less accurate
