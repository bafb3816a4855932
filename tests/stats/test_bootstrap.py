"""Tests of dissensus.stats._bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dissensus import FewItemsWarning
from dissensus.stats import item_keys, poisson_weights
from dissensus.stats._bootstrap import (
    MAX_RESAMPLES,
    MIN_ITEMS_FOR_INTERVAL,
    ConfidenceInterval,
    bca_interval,
    bootstrap_weights,
    iter_bootstrap_weights,
    iter_pattern_weights,
    pattern_bootstrap_weights,
    percentile_interval,
    warn_few_items,
)


class TestBootstrapWeights:
    def test_shape_and_row_sums(self) -> None:
        w = bootstrap_weights(7, 13, seed=3)
        assert w.shape == (13, 7)
        assert w.dtype == np.int64
        assert (w.sum(axis=1) == 7).all()

    def test_cell_counts_are_binomial(self) -> None:
        # Multinomial(n, 1/n): each cell is Binomial(n, 1/n); n = 9 is not a
        # power of two, so the second level rejects candidate indices.
        n = 9
        w = bootstrap_weights(n, 20_000, seed=5)
        observed = np.bincount(w.ravel(), minlength=n + 1)
        expected = stats.binom.pmf(np.arange(n + 1), n, 1 / n) * w.size
        keep = expected > 5
        obs = np.r_[observed[keep], observed[~keep].sum()]
        exp = np.r_[expected[keep], expected[~keep].sum()]
        assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 0.001
        cov = np.cov(w[:, 0], w[:, 1])[0, 1]
        assert cov == pytest.approx(-1 / n, abs=0.01)

    def test_same_as_patterns_of_one(self) -> None:
        np.testing.assert_array_equal(
            bootstrap_weights(40, 7, seed=6), pattern_bootstrap_weights(np.ones(40, int), 7, seed=6)
        )

    @pytest.mark.parametrize("chunk", [1, 3, 4, 100])
    def test_chunking_does_not_change_result(self, chunk: int) -> None:
        np.testing.assert_array_equal(
            bootstrap_weights(6, 10, seed=2, chunk=chunk), bootstrap_weights(6, 10, seed=2)
        )
        sizes = [c.shape[0] for c in iter_bootstrap_weights(6, 10, seed=2, chunk=chunk)]
        assert sum(sizes) == 10
        assert max(sizes) <= chunk

    def test_seeded(self) -> None:
        np.testing.assert_array_equal(
            bootstrap_weights(5, 4, seed=8), bootstrap_weights(5, 4, seed=8)
        )
        assert not np.array_equal(
            bootstrap_weights(50, 4, seed=8), bootstrap_weights(50, 4, seed=9)
        )

    def test_uniform_marginals(self) -> None:
        # Each item is drawn Binomial(n, 1/n) times: mean 1.
        w = bootstrap_weights(20, 4000, seed=0)
        assert abs(w.mean() - 1.0) < 1e-12  # rows sum to n exactly
        assert abs(w.var() - (1 - 1 / 20)) < 0.05

    def test_bad_sizes(self) -> None:
        with pytest.raises(ValueError, match="'n_resamples' parameter"):
            bootstrap_weights(5, 0)
        with pytest.raises(ValueError, match="'n' parameter"):
            bootstrap_weights(0, 5)

    def test_too_many_resamples_are_refused_before_allocating(self) -> None:
        # 10^11 resamples would need terabytes; the refusal names the limit.
        for draw in (
            lambda: bootstrap_weights(5, 10**11),
            lambda: pattern_bootstrap_weights([2, 3], MAX_RESAMPLES + 1),
            lambda: poisson_weights(item_keys([1, 2]), 10**12),
        ):
            with pytest.raises(ValueError, match="at most 10,000,000"):
                draw()


class TestPatternBootstrapWeights:
    def test_row_sums_and_expectation(self) -> None:
        m = np.array([5, 1, 14])
        w = pattern_bootstrap_weights(m, 3000, seed=1)
        assert (w.sum(axis=1) == 20).all()
        np.testing.assert_allclose(w.mean(axis=0), m, rtol=0.05)

    def test_multinomial_moments_with_heavy_and_light_patterns(self) -> None:
        # heavy patterns (>= 16 items) are drawn at the first level, light ones
        # item by item; both must give Multinomial(n, m / n) counts:
        # E = m, Var = m (1 - m / n), Cov = -m_i m_j / n.
        m = np.array([1, 40, 3, 1, 200, 7, 16, 2])
        n = int(m.sum())
        w = pattern_bootstrap_weights(m, 40_000, seed=2)
        assert (w.sum(axis=1) == n).all()
        np.testing.assert_allclose(w.mean(axis=0), m, rtol=0.02)
        np.testing.assert_allclose(w.var(axis=0), m * (1 - m / n), rtol=0.05)
        cov = np.cov(w[:, 1], w[:, 2])[0, 1]
        assert cov == pytest.approx(-40 * 3 / n, abs=0.1)

    def test_patterns_spanning_blocks(self) -> None:
        # 70,000 light items in patterns of 3: blocks of 32,768 split a pattern
        m = np.full(70_000 // 3 + 1, 3)
        w = pattern_bootstrap_weights(m, 6, seed=4)
        assert (w.sum(axis=1) == m.sum()).all()
        assert w.mean() == pytest.approx(3.0, rel=0.01)
        assert w.var() == pytest.approx(3.0, rel=0.05)

    @pytest.mark.parametrize("chunk", [1, 5, 64])
    def test_chunking_does_not_change_result(self, chunk: int) -> None:
        m = np.array([3, 1, 30, 2, 17])
        np.testing.assert_array_equal(
            np.concatenate(list(iter_pattern_weights(m, 23, seed=9, chunk=chunk))),
            pattern_bootstrap_weights(m, 23, seed=9),
        )

    def test_bad_multiplicity(self) -> None:
        with pytest.raises(ValueError, match="positive integers"):
            pattern_bootstrap_weights([2, 0], 5)
        with pytest.raises(ValueError, match="positive integers"):
            pattern_bootstrap_weights([1.5, 2], 5)


class TestPercentileInterval:
    def test_matches_numpy_quantile(self) -> None:
        rng = np.random.default_rng(0)
        boot = rng.normal(size=(999, 3, 2))
        lo, hi = percentile_interval(boot, confidence_level=0.9)
        np.testing.assert_allclose(lo, np.quantile(boot, 0.05, axis=0))
        np.testing.assert_allclose(hi, np.quantile(boot, 0.95, axis=0))

    def test_nan_aware(self) -> None:
        boot = np.array([[1.0, np.nan], [2.0, np.nan], [np.nan, np.nan], [3.0, np.nan]])
        lo, hi = percentile_interval(boot, confidence_level=0.5)
        np.testing.assert_allclose(lo[0], np.nanquantile(boot[:, 0], 0.25))
        np.testing.assert_allclose(hi[0], np.nanquantile(boot[:, 0], 0.75))
        assert np.isnan(lo[1])
        assert np.isnan(hi[1])

    def test_bad_level(self) -> None:
        with pytest.raises(ValueError, match="'confidence_level' parameter of percentile_interval"):
            percentile_interval(np.zeros(5), confidence_level=95)


class TestBcaInterval:
    def test_equals_efron_formula_on_the_same_replicates(self) -> None:
        # Efron (1987) written out here (z0, jackknife acceleration, adjusted quantiles)
        rng = np.random.default_rng(4)
        x = rng.exponential(size=40)
        boot = bootstrap_weights(40, 4000, seed=7) @ x / 40
        jack = (x.sum() - x) / 39
        theta = x.mean()
        z0 = stats.norm.ppf(np.mean(boot < theta))
        dev = jack.mean() - jack
        a = (dev**3).sum() / (6 * ((dev**2).sum()) ** 1.5)
        z = stats.norm.ppf([0.05, 0.95])
        q = stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
        lo, hi = bca_interval(boot, theta, jack, confidence_level=0.9)
        np.testing.assert_allclose([lo, hi], np.quantile(boot, q), rtol=1e-12)

    def test_matches_scipy_bootstrap_bca(self) -> None:
        # scipy.stats.bootstrap(method="BCa") on the mean; scipy draws its own resamples,
        # so the two agree within Monte Carlo error (the same replicates: the test above).
        rng = np.random.default_rng(4)
        x = rng.exponential(size=40)
        n_resamples = 4000
        w = bootstrap_weights(40, n_resamples, seed=7)
        boot = w @ x / 40
        jack = (x.sum() - x) / 39
        lo, hi = bca_interval(boot, x.mean(), jack, confidence_level=0.9)
        ref = stats.bootstrap(
            (x,),
            np.mean,
            method="BCa",
            confidence_level=0.9,
            n_resamples=n_resamples,
            random_state=7,
        ).confidence_interval
        # Different resamples: agreement within Monte Carlo error only.
        assert abs(float(lo) - ref.low) < 0.03
        assert abs(float(hi) - ref.high) < 0.03

    def test_vectorised_over_trailing_dims(self) -> None:
        rng = np.random.default_rng(1)
        x = rng.normal(size=(30, 2))
        w = bootstrap_weights(30, 500, seed=2)
        boot = w @ x / 30
        jack = (x.sum(axis=0) - x) / 29
        lo, hi = bca_interval(boot, x.mean(axis=0), jack)
        for j in range(2):
            lo_j, hi_j = bca_interval(boot[:, j], x[:, j].mean(), jack[:, j])
            assert lo[j] == pytest.approx(float(lo_j))
            assert hi[j] == pytest.approx(float(hi_j))

    def test_symmetric_case_equals_percentile(self) -> None:
        # z0 = 0 and a = 0 reduce BCa to the percentile interval.
        boot = np.array([-2.0, -1.0, 1.0, 2.0])
        jack = np.array([-1.0, 1.0])
        lo, hi = bca_interval(boot, 0.0, jack, confidence_level=0.5)
        plo, phi = percentile_interval(boot, confidence_level=0.5)
        assert float(lo) == pytest.approx(float(plo))
        assert float(hi) == pytest.approx(float(phi))

    def test_all_on_one_side_is_nan(self) -> None:
        lo, hi = bca_interval(np.array([1.0, 2.0, 3.0]), 0.0, np.array([0.0, 1.0]))
        assert np.isnan(lo)
        assert np.isnan(hi)


def test_confidence_interval_is_named_pair() -> None:
    interval = ConfidenceInterval(0.1, 0.4)
    assert interval.low == 0.1
    assert tuple(interval) == (0.1, 0.4)


class TestPoissonWeights:
    def test_poisson_one_moments(self) -> None:
        W = poisson_weights(item_keys(np.arange(20_000)), 50, seed=5)
        assert W.shape == (50, 20_000)
        freq = np.bincount(W.ravel().astype(np.int64), minlength=4)[:4] / W.size
        np.testing.assert_allclose(freq, stats.poisson(1).pmf(np.arange(4)), atol=2e-3)
        assert W.var() == pytest.approx(1.0, abs=0.01)

    def test_keyed_by_item_not_position_or_chunk(self) -> None:
        ids = np.array(["x", "y", "z", "w"], dtype=object)
        W = poisson_weights(item_keys(ids), 40, seed=2)
        perm = np.array([2, 0, 3, 1])
        np.testing.assert_array_equal(poisson_weights(item_keys(ids[perm]), 40, seed=2), W[:, perm])
        np.testing.assert_array_equal(poisson_weights(item_keys(ids), 15, seed=2, start=25), W[25:])
        assert not np.array_equal(poisson_weights(item_keys(ids), 40, seed=3), W)

    def test_integer_ids_same_whatever_the_int_dtype(self) -> None:
        np.testing.assert_array_equal(
            item_keys(np.array([1, 5], dtype=np.int32)), item_keys(np.array([1, 5]))
        )
        assert len(set(item_keys(np.arange(1000)).tolist())) == 1000

    def test_seed_must_be_a_non_negative_int(self) -> None:
        with pytest.raises(TypeError, match="non-negative integer 'seed'"):
            poisson_weights(item_keys([1]), 3, seed=np.random.default_rng(0))  # type: ignore[arg-type]


class TestFewResamplesAndItems:
    def test_one_resample_is_refused(self):
        with pytest.raises(ValueError, match="at least 2 resamples"):
            percentile_interval(np.array([[0.3]]))
        with pytest.raises(ValueError, match="at least 2 resamples"):
            bca_interval(np.array([[0.3]]), 0.3, np.array([0.2, 0.4]))

    def test_few_items_warn(self):
        with pytest.warns(FewItemsWarning, match="only 1 item.*width zero"):
            warn_few_items(1)
        with pytest.warns(FewItemsWarning, match="only 29 item"):
            warn_few_items(29)

    def test_enough_items_are_silent(self):
        warn_few_items(MIN_ITEMS_FOR_INTERVAL)  # filterwarnings=error would raise
