"""Tests of dissensus.stats._paired: paired tests, paired bootstrap, p-value adjustment."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from dissensus.stats._bootstrap import bootstrap_weights, iter_weight_blocks
from dissensus.stats._paired import (
    adjust_pvalues,
    bootstrap_test,
    mean_interval,
    permutation_test,
    resample_means,
    wilcoxon_test,
)


class TestResampleWeights:
    """The weights resample_means consumes (the package's one generator)."""

    def test_rows_sum_to_n_and_chunking_is_deterministic(self):
        a = bootstrap_weights(50, 37, seed=3, chunk=37)
        b = bootstrap_weights(50, 37, seed=3, chunk=37)
        assert a.shape == (37, 50)
        np.testing.assert_array_equal(a.sum(axis=1), 50)
        np.testing.assert_array_equal(a, b)
        assert (a == np.round(a)).all()

    def test_multinomial_moments(self):
        # Multinomial(n, 1/n): E w = 1, Var w = 1 - 1/n, Cov(w_i, w_j) = -1/n
        n = 20
        w = bootstrap_weights(n, 20000, seed=0)
        assert w.mean() == pytest.approx(1.0)
        assert w.var(axis=0).mean() == pytest.approx(1 - 1 / n, rel=0.03)
        cov = np.cov(w[:, 0], w[:, 1])[0, 1]
        assert cov == pytest.approx(-1 / n, abs=0.01)

    def test_several_item_blocks(self):
        # more items than one block of the two-level draw (32,768)
        n = 70_000
        w = bootstrap_weights(n, 6, seed=1)
        np.testing.assert_array_equal(w.sum(axis=1), n)
        # every block gets its share of draws: Binomial(n, b/n) totals
        assert abs(w[:, :32_768].sum(axis=1) - 32_768).max() < 6 * np.sqrt(32_768)
        assert w.var() == pytest.approx(1.0, rel=0.02)

    def test_uniform_within_full_blocks(self):
        # full blocks draw indices from raw bits: pooled counts must be uniform
        w = bootstrap_weights(2**16, 64, seed=3)
        assert sps.chisquare(w.sum(axis=0)).pvalue > 0.01
        assert w.var() == pytest.approx(1 - 2**-16, rel=0.01)

    def test_resample_means_uses_these_rows_for_any_chunk(self):
        s = np.random.default_rng(3).random((3, 50))
        w = bootstrap_weights(50, 40, seed=4)
        np.testing.assert_allclose(resample_means(s, 40, seed=4, chunk=16), w @ s.T / 50)

    def test_bad_sizes(self):
        with pytest.raises(ValueError, match="N >= 1"):
            resample_means(np.empty((2, 0)), 5)

    def test_centring_block_by_block_gives_the_bytes_of_centring_all_at_once(self):
        # resample_means centres one block of columns at a time (memory); the
        # product must see the same numbers as a centred copy of all of S
        rng = np.random.default_rng(5)
        n = 70_000  # three column blocks of the weight draw
        s = rng.gamma(2.0, size=(4, n)) * 10
        s[2, 7] = np.inf  # a non-finite series is not centred
        center = s.mean(axis=1)
        finite = np.isfinite(center)
        dev = np.where(finite[:, None], s - center[:, None], s)
        want = np.zeros((30, 4))
        for row, cols, w in iter_weight_blocks(np.ones(n, dtype=np.int64), 30, seed=2):
            want[row : row + w.shape[0]] += w.astype(np.float64) @ dev[:, cols].T
        want /= n
        want += np.where(finite, center, 0.0)
        got = resample_means(s, 30, seed=2)
        assert got.tobytes() == want.tobytes()


class TestResampleMeans:
    def test_paired_contrast_is_exact(self):
        rng = np.random.default_rng(0)
        x = rng.normal(size=300)
        s = np.vstack([x, x + 0.25, 2 * x])
        m = resample_means(s, 500, seed=1)
        np.testing.assert_allclose(m[:, 1] - m[:, 0], 0.25, atol=1e-12)
        np.testing.assert_allclose(m[:, 2], 2 * m[:, 0], atol=1e-12)

    def test_same_seed_same_bytes(self):
        s = np.random.default_rng(1).random((4, 100))
        assert resample_means(s, 64, seed=7).tobytes() == resample_means(s, 64, seed=7).tobytes()
        assert not np.array_equal(resample_means(s, 64, seed=7), resample_means(s, 64, seed=8))

    def test_spread_matches_standard_error(self):
        x = np.random.default_rng(2).exponential(size=400)
        m = resample_means(x, 4000, seed=0)[:, 0]
        assert m.mean() == pytest.approx(x.mean(), rel=0.01)
        assert m.std() == pytest.approx(x.std() / np.sqrt(x.size), rel=0.06)

    def test_inf_propagates(self):
        s = np.vstack([np.r_[np.inf, np.ones(9)], np.ones(10)])
        m = resample_means(s, 50, seed=0)
        assert not np.isfinite(m[:, 0]).all()
        np.testing.assert_allclose(m[:, 1], 1.0)

    def test_several_blocks_match_the_weight_rows(self):
        s = np.random.default_rng(8).random((2, 70_000))
        w = bootstrap_weights(70_000, 8, seed=2)
        np.testing.assert_allclose(resample_means(s, 8, seed=2), w @ s.T / 70_000, rtol=1e-12)

    def test_bad_input(self):
        with pytest.raises(ValueError, match=r"\(P, N\)"):
            resample_means(np.zeros((2, 2, 2)), 10)
        with pytest.raises(ValueError, match="n_resamples"):
            resample_means(np.zeros(3), 0)


class TestWilcoxonTest:
    @settings(max_examples=25, deadline=None)
    @given(
        st.integers(2, 25).flatmap(
            lambda n: hnp.arrays(
                np.float64, (2, n), elements=st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0, 2.0])
            )
        )
    )
    def test_equals_scipy(self, xy):
        x, y = xy
        got = wilcoxon_test(x, y)
        with np.errstate(all="ignore"), _no_warning_check():
            exp = sps.wilcoxon(x, y)
        np.testing.assert_equal(got.statistic, float(exp.statistic))
        np.testing.assert_equal(got.pvalue, float(exp.pvalue))
        assert got.diff == pytest.approx(np.mean(x - y))

    def test_large_sample_normal_approximation(self):
        rng = np.random.default_rng(5)
        x, y = rng.normal(size=2000), rng.normal(0.05, size=2000)
        exp = sps.wilcoxon(x, y)
        got = wilcoxon_test(x, y)
        assert (got.statistic, got.pvalue) == (exp.statistic, exp.pvalue)
        assert got.test == "wilcoxon"
        assert got.n == 2000
        assert np.isnan(got.confidence_interval.low)

    def test_all_zero_differences(self):
        res = wilcoxon_test([1.0, 2.0], [1.0, 2.0])
        assert res.pvalue == 1.0
        assert float(res) == res.pvalue == 1.0

    def test_nonfinite_refused(self):
        with pytest.raises(ValueError, match="position 1 is inf"):
            wilcoxon_test([1.0, np.inf], [1.0, 2.0])

    def test_length_mismatch(self):
        with pytest.raises(ValueError, match="one score per item"):
            wilcoxon_test([1.0, 2.0], [1.0])


class _no_warning_check:
    """Silence scipy's RuntimeWarning for all-zero differences in the reference call."""

    def __enter__(self):
        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)
        return self

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)


def _scipy_paired_permutation(x, y, n_resamples, rng=None):
    return sps.permutation_test(
        (x, y),
        lambda a, b, axis: np.mean(a - b, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        rng=rng,
    )


class TestPermutationTest:
    @pytest.mark.parametrize("seed", [0, 1, 2])
    def test_exact_equals_scipy(self, seed):
        rng = np.random.default_rng(seed)
        x, y = rng.random(10), rng.random(10)
        got = permutation_test(x, y, n_resamples=5000)
        exp = _scipy_paired_permutation(x, y, 5000)
        assert got.pvalue == pytest.approx(exp.pvalue, abs=1e-12)
        assert got.statistic == pytest.approx(exp.statistic)

    def test_exact_with_tied_magnitudes(self):
        # d = (0.1, -0.1, 0.1, 0.1): many sign vectors reach the observed mean exactly
        x, y = np.array([0.3, 0.2, 0.5, 0.4]), np.array([0.2, 0.3, 0.4, 0.3])
        assert permutation_test(x, y).pvalue == pytest.approx(
            _scipy_paired_permutation(x, y, 9999).pvalue
        )

    def test_random_close_to_scipy(self):
        rng = np.random.default_rng(3)
        x, y = rng.normal(size=80), rng.normal(0.2, size=80)
        got = permutation_test(x, y, n_resamples=20000, seed=0)
        exp = _scipy_paired_permutation(x, y, 20000, rng=np.random.default_rng(1))
        assert got.pvalue == pytest.approx(exp.pvalue, abs=0.01)
        assert 1 / 20001 <= got.pvalue <= 1

    def test_same_seed_same_result(self):
        rng = np.random.default_rng(4)
        x, y = rng.normal(size=40), rng.normal(size=40)
        assert permutation_test(x, y, n_resamples=999, seed=9) == permutation_test(
            x, y, n_resamples=999, seed=9
        )

    def test_bad_n_resamples(self):
        with pytest.raises(ValueError, match="n_resamples"):
            permutation_test([1.0], [2.0], n_resamples=0)


class TestBootstrapTest:
    def test_interval_and_pvalue_agree(self):
        rng = np.random.default_rng(6)
        x = rng.normal(size=200)
        y = x - 0.3 + rng.normal(scale=0.5, size=200)
        res = bootstrap_test(x, y, n_resamples=2000, seed=0)
        assert res.confidence_interval.low > 0
        assert res.pvalue < 0.05
        assert res.diff == pytest.approx(np.mean(x - y))

    def test_null_difference_not_significant(self):
        x = np.random.default_rng(7).normal(size=100)
        res = bootstrap_test(x, x[::-1].copy(), n_resamples=2000, seed=0)
        assert res.confidence_interval.low < 0 < res.confidence_interval.high
        assert res.pvalue > 0.05

    def test_coverage_of_paired_bootstrap(self):
        # Seeded simulation: 300 data sets of 60 paired items with true mean difference 0.2.
        # The 95% percentile interval of the mean difference should cover 0.2 about 95% of
        # the time (percentile intervals undercover slightly at small n).
        rng = np.random.default_rng(2024)
        n_sets, n = 300, 60
        base = rng.gamma(2.0, size=(n_sets, n))
        x = base + rng.normal(0.2, 0.5, size=(n_sets, n))
        d = x - base
        # One set of resamples for all data sets: each interval is still a valid bootstrap.
        boot = resample_means(d, 2000, seed=11)
        lo, hi = np.quantile(boot, [0.025, 0.975], axis=0)
        coverage = np.mean((lo <= 0.2) & (hi >= 0.2))
        assert 0.90 <= coverage <= 0.98

    def test_bad_level(self):
        with pytest.raises(ValueError, match="level"):
            bootstrap_test([1.0, 2.0], [0.0, 1.0], confidence_level=1.5)


class TestAdjustPvalues:
    @settings(max_examples=60, deadline=None)
    @given(hnp.arrays(np.float64, st.integers(1, 12), elements=st.floats(0.0, 1.0)))
    def test_equals_statsmodels(self, p):
        for method in ("holm", "bonferroni"):
            exp = multipletests(p, method=method)[1]
            np.testing.assert_allclose(adjust_pvalues(p, method=method), exp, rtol=1e-12, atol=0)

    def test_none_and_nan(self):
        p = np.array([0.01, np.nan, 0.04])
        np.testing.assert_array_equal(adjust_pvalues(p, method=None), p)
        out = adjust_pvalues(p, method="holm")
        assert np.isnan(out[1])
        np.testing.assert_allclose(out[[0, 2]], [0.02, 0.04])

    def test_bad_method(self):
        with pytest.raises(ValueError, match="'method' parameter of adjust_pvalues"):
            adjust_pvalues([0.1], method="fdr")  # type: ignore[arg-type]


class TestMeanInterval:
    def test_plain_is_the_student_t_interval(self):
        rng = np.random.default_rng(1)
        x = rng.normal(size=(5, 40))
        r = mean_interval(x, confidence_level=0.9, skew_correction=False)
        for i in range(5):
            low, high = sps.t.interval(0.9, 39, loc=x[i].mean(), scale=sps.sem(x[i]))
            assert (r.ci_low[i], r.ci_high[i]) == (pytest.approx(low), pytest.approx(high))
            p = sps.t.cdf(x[i].mean() / sps.sem(x[i]), 39)
            assert r.p_positive[i] == pytest.approx(p)

    def test_vectorised_rows_equal_single_rows(self):
        rng = np.random.default_rng(2)
        x = rng.exponential(size=(3, 4, 25))
        r = mean_interval(x)
        one = mean_interval(x[2, 1])
        assert r.ci_low.shape == (3, 4)
        assert r.ci_low[2, 1] == pytest.approx(float(one.ci_low))
        assert r.p_positive[2, 1] == pytest.approx(float(one.p_positive))

    def test_skew_correction_restores_coverage_of_a_skewed_mean(self):
        # lognormal(0, 1), 50 values: the plain t interval undercovers (about 0.90)
        reps, level = 4000, 0.95
        x = np.random.default_rng(0).lognormal(0.0, 1.0, (reps, 50))
        mu = np.exp(0.5)
        se = np.sqrt(level * (1 - level) / reps)
        cover = {}
        for corrected in (True, False):
            r = mean_interval(x, confidence_level=level, skew_correction=corrected)
            cover[corrected] = float(np.mean((r.ci_low <= mu) & (mu <= r.ci_high)))
        assert cover[False] < level - 10 * se
        assert cover[True] > cover[False] + 6 * se

    def test_interval_and_probability_agree(self):
        x = np.random.default_rng(3).exponential(size=(200, 30)) - 0.8
        r = mean_interval(x, confidence_level=0.9)
        # the one-sided level at which the interval reaches 0 is P(mean > 0)
        assert (r.p_positive[r.ci_low > 0] > 0.95).all()
        assert (r.p_positive[r.ci_high < 0] < 0.05).all()
        inside = (r.ci_low < 0) & (r.ci_high > 0)
        assert ((r.p_positive[inside] >= 0.05) & (r.p_positive[inside] <= 0.95)).all()

    def test_degenerate_rows(self):
        r = mean_interval([[1.0, np.inf, 2.0], [3.0, 3.0, 3.0], [-1.0, -1.0, -1.0]])
        assert r.n_infinite.tolist() == [1, 0, 0]
        assert r.mean[0] == np.inf
        assert np.isnan([r.standard_error[0], r.ci_low[0], r.p_positive[0]]).all()
        assert r.standard_error[1:].tolist() == [0.0, 0.0]
        assert r.p_positive[1:].tolist() == [1.0, 0.0]
        assert np.isnan(mean_interval([2.0]).ci_low)

    def test_bad_level(self):
        with pytest.raises(ValueError, match="'confidence_level' parameter of mean_interval"):
            mean_interval([1.0, 2.0], confidence_level=1.5)
