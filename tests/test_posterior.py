from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from scipy import optimize, special, stats

from dissensus import Annotations, DataError, LabelCounts, Scale
from dissensus.posterior import (
    CredibleInterval,
    DirichletPrior,
    PriorFitWarning,
    credible_interval,
    dirichlet,
    fit_dirichlet_prior,
    marginal_log_likelihood,
    soft_labels,
)
from tests.strategies import count_matrices


def _polya_nll(log_alpha: np.ndarray, n: np.ndarray) -> float:
    a = np.exp(log_alpha)
    s = a.sum()
    ni = n.sum(1)
    return -float(
        (
            special.gammaln(s)
            - special.gammaln(ni + s)
            + (special.gammaln(n + a) - special.gammaln(a)).sum(1)
        ).sum()
    )


class TestDirichlet:
    def test_uniform_and_jeffreys(self):
        n = np.array([[0, 2, 1], [5, 0, 0]])
        np.testing.assert_array_equal(dirichlet(n, prior="uniform"), n + 1.0)
        np.testing.assert_array_equal(dirichlet(n, prior="jeffreys"), n + 0.5)

    def test_seed_example_excellent(self):
        # seed 000, Sec. 3.2.2: two "excellent" ratings out of 2, K = 5, uniform prior
        alpha = dirichlet([[0, 0, 0, 0, 2]], prior="uniform")
        assert alpha[0, 4] / alpha.sum() == pytest.approx(3 / 7)

    def test_float_and_array_priors(self):
        n = np.array([[1, 0], [0, 3]])
        np.testing.assert_array_equal(dirichlet(n, prior=2.0), n + 2.0)
        np.testing.assert_array_equal(dirichlet(n, prior=[0.1, 0.9]), n + np.array([0.1, 0.9]))
        full = np.array([[1.0, 2.0], [3.0, 4.0]])
        np.testing.assert_array_equal(dirichlet(n, prior=full), n + full)

    def test_label_counts_and_annotations(self):
        lc = LabelCounts.from_array([[1, 2], [0, 0]], scale=Scale.ordinal(["lo", "hi"]))
        np.testing.assert_array_equal(dirichlet(lc, prior="uniform"), [[2.0, 3.0], [1.0, 1.0]])
        ann = Annotations.from_frame(
            pd.DataFrame({"item": ["a", "a", "b"], "annotator": [1, 2, 1], "label": [0, 1, 1]})
        )
        np.testing.assert_array_equal(dirichlet(ann, prior="uniform"), [[2.0, 2.0], [1.0, 2.0]])

    def test_empirical_uses_fit(self):
        n = np.array([[3, 0], [0, 3], [3, 0], [0, 3], [2, 1]])
        fit = fit_dirichlet_prior(n)
        np.testing.assert_allclose(dirichlet(n, prior="empirical"), n + fit.alpha0)

    @pytest.mark.parametrize("prior", [0.0, -1.0, np.inf, [1.0, 0.0]])
    def test_bad_prior_values(self, prior):
        with pytest.raises(ValueError, match="finite and > 0"):
            dirichlet([[1, 2]], prior=prior)

    def test_bad_prior_name_and_shape(self):
        with pytest.raises(ValueError, match="The 'prior' parameter of dirichlet must be one of"):
            dirichlet([[1, 2]], prior="flat")
        with pytest.raises(ValueError, match="shape"):
            dirichlet([[1, 2]], prior=[1.0, 1.0, 1.0])

    def test_bad_counts(self):
        with pytest.raises(DataError, match="whole numbers"):
            dirichlet([[1.5, 2]])
        with pytest.raises(DataError, match="non-negative"):
            dirichlet([[-1, 2]])

    @given(count_matrices())
    @settings(max_examples=30, deadline=None)
    def test_posterior_positive_and_mean_between(self, n):
        alpha = dirichlet(n)  # the default prior, Jeffreys: half a pseudo-count per class
        assert np.all(alpha > 0)
        np.testing.assert_allclose(alpha.sum(1), n.sum(1) + 0.5 * n.shape[1])


class TestFitDirichletPrior:
    def test_matches_numerical_optimum(self):
        # independent check: minimise the Polya negative log-likelihood with scipy
        rng = np.random.default_rng(7)
        p = rng.dirichlet([0.8, 2.0, 0.4], size=400)
        n = np.array(
            [rng.multinomial(m, pp) for m, pp in zip(rng.integers(2, 12, 400), p, strict=True)]
        )
        fit = fit_dirichlet_prior(n)
        assert fit.converged
        res = optimize.minimize(_polya_nll, np.zeros(3), args=(n,), method="BFGS", tol=1e-12)
        np.testing.assert_allclose(fit.alpha0, np.exp(res.x), rtol=1e-4)
        assert fit.strength == pytest.approx(fit.alpha0.sum())
        assert float(fit) == fit.strength
        np.testing.assert_allclose(fit.mean.sum(), 1.0)

    def test_recovers_generating_prior(self):
        rng = np.random.default_rng(1)
        true = np.array([2.0, 1.0, 0.5, 3.0, 1.5])
        p = rng.dirichlet(true, size=20000)
        sizes = rng.integers(2, 30, 20000)
        n = np.array([rng.multinomial(m, pp) for m, pp in zip(sizes, p, strict=True)])
        fit = fit_dirichlet_prior(n)
        np.testing.assert_allclose(fit.alpha0, true, rtol=0.05)

    def test_log_likelihood_includes_multinomial_coefficient(self):
        n = np.array([[3, 0], [0, 3], [2, 1], [0, 4], [3, 0]])
        fit = fit_dirichlet_prior(n)
        a = fit.alpha0
        ll = sum(stats.dirichlet_multinomial.logpmf(row, a, row.sum()) for row in n)
        assert fit.log_likelihood == pytest.approx(ll, rel=1e-10)

    def test_empty_items_ignored(self):
        n = np.array([[3, 0], [0, 3], [3, 0], [0, 3], [2, 1]])
        with_empty = np.vstack([n, [[0, 0], [0, 0]]])
        np.testing.assert_allclose(
            fit_dirichlet_prior(with_empty).alpha0, fit_dirichlet_prior(n).alpha0
        )

    def test_unused_class_warns_and_floors(self):
        n = np.array([[3, 0, 0], [0, 3, 0], [2, 1, 0], [1, 1, 0]])
        with pytest.warns(PriorFitWarning, match="never used"):
            fit = fit_dirichlet_prior(n)
        assert fit.alpha0[2] > 0
        assert np.all(np.isfinite(dirichlet(n, prior=fit.alpha0)))

    def test_single_annotations_warn(self):
        n = np.array([[1, 0], [0, 1], [1, 0]])
        with pytest.warns(PriorFitWarning, match="not identified"):
            fit = fit_dirichlet_prior(n)
        np.testing.assert_allclose(fit.mean, [2 / 3, 1 / 3])

    def test_no_overdispersion_warns(self):
        rng = np.random.default_rng(3)
        n = rng.multinomial(10, [0.2, 0.3, 0.5], size=300)
        with pytest.warns(PriorFitWarning, match="did not converge"):
            fit = fit_dirichlet_prior(n, max_iter=200)
        assert not fit.converged
        assert fit.strength > 100

    def test_no_annotations(self):
        with pytest.raises(DataError, match="no annotations"):
            fit_dirichlet_prior([[0, 0], [0, 0]])

    def test_repr(self):
        fit = fit_dirichlet_prior([[3, 0], [0, 3], [3, 0], [0, 3], [2, 1]])
        assert isinstance(fit, DirichletPrior)
        assert "strength=0.365" in repr(fit)
        assert "converged" in repr(fit)


class TestSoftLabels:
    def test_empirical(self):
        np.testing.assert_allclose(soft_labels([[1, 3, 0]]), [[0.25, 0.75, 0.0]])

    def test_posterior_mean(self):
        np.testing.assert_allclose(
            soft_labels([[1, 3, 0], [0, 0, 0]], method="posterior_mean", prior="jeffreys"),
            [[1.5 / 5.5, 3.5 / 5.5, 0.5 / 5.5], [1 / 3, 1 / 3, 1 / 3]],
        )

    def test_dawid_skene_equals_the_aggregation_posterior(self):
        from dissensus.aggregation import dawid_skene  # noqa: PLC0415

        df = pd.DataFrame(
            {
                "item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
                "annotator": ["a", "b", "c"] * 4,
                "label": ["x", "x", "y", "y", "y", "y", "x", "x", "x", "y", "y", "x"],
            }
        )
        ann = Annotations.from_frame(df)
        out = soft_labels(ann, method="dawid_skene")
        np.testing.assert_array_equal(out, dawid_skene(ann).posterior.to_numpy())
        np.testing.assert_allclose(out.sum(axis=1), 1.0)
        assert out.shape == ann.counts().values.shape
        # the unanimous item is surer than under the empirical shares
        assert out[1, 1] > soft_labels(ann)[1, 1] - 1e-12

    @pytest.mark.parametrize("method", ["ordinal_dawid_skene", "mace"])
    def test_other_annotator_models_equal_soft_targets(self, method):
        from dissensus.aggregation import soft_targets  # noqa: PLC0415

        df = pd.DataFrame(
            {
                "item": np.repeat(np.arange(8), 3),
                "annotator": list("abc") * 8,
                "label": [1, 1, 2, 2, 2, 3, 3, 3, 3, 1, 2, 1, 2, 2, 2, 3, 3, 2, 1, 1, 1, 2, 3, 3],
            }
        )
        ann = Annotations.from_frame(df, scale=[1, 2, 3])
        out = soft_labels(ann, method=method)
        np.testing.assert_array_equal(out, soft_targets(ann, method).values)
        np.testing.assert_allclose(out.sum(axis=1), 1.0)
        with pytest.raises(DataError, match=rf"method='{method}'.*needs Annotations"):
            soft_labels(ann.counts(), method=method)

    def test_dawid_skene_needs_annotator_ids(self):
        with pytest.raises(DataError, match=r"method='dawid_skene'.*needs Annotations"):
            soft_labels([[1, 2]], method="dawid_skene")

    def test_empty_items_refused(self):
        lc = LabelCounts.from_array([[1, 0], [0, 0]], items=["x", "y"])
        with pytest.raises(DataError, match=r"1 items have no annotations.*'y'"):
            soft_labels(lc)

    def test_gaussian_kernel_by_hand(self):
        # source class 2 of 3 with sigma 1: weights exp(-k^2 / 2) for distances 2, 1, 0
        w = np.exp(-np.array([4.0, 1.0, 0.0]) / 2)
        out = soft_labels([[0, 0, 5]], method="gaussian", sigma=1.0)
        np.testing.assert_allclose(out, [w / w.sum()])

    def test_gaussian_keeps_mass_at_ends(self):
        # mass at an end class stays on the scale: rows sum to one, nothing leaks
        out = soft_labels([[4, 0, 0, 0, 0], [0, 0, 0, 0, 4]], method="gaussian", sigma=2.0)
        np.testing.assert_allclose(out.sum(1), 1.0)
        np.testing.assert_allclose(out[0], out[1][::-1])
        assert out[0, 0] > out[0, 1] > out[0, 2]

    def test_gaussian_is_linear_in_proportions(self):
        a = soft_labels([[1, 0, 0, 0]], method="gaussian")
        b = soft_labels([[0, 0, 1, 0]], method="gaussian")
        ab = soft_labels([[1, 0, 1, 0]], method="gaussian")
        np.testing.assert_allclose(ab, (a + b) / 2)

    def test_gaussian_small_sigma_is_identity(self):
        n = np.array([[1, 2, 3]])
        np.testing.assert_allclose(soft_labels(n, method="gaussian", sigma=1e-3), n / 6)

    def test_gaussian_refuses_nominal(self):
        lc = LabelCounts.from_array([[1, 2]], scale=Scale.nominal(["a", "b"]))
        with pytest.raises(DataError, match="nominal"):
            soft_labels(lc, method="gaussian")
        ordinal = LabelCounts.from_array([[1, 2]], scale=Scale.ordinal(["a", "b"]))
        assert soft_labels(ordinal, method="gaussian").shape == (1, 2)

    def test_bad_options(self):
        with pytest.raises(ValueError, match="The 'method' parameter of soft_labels"):
            soft_labels([[1, 2]], method="smooth")
        with pytest.raises(ValueError, match="sigma"):
            soft_labels([[1, 2]], method="gaussian", sigma=0.0)

    @given(count_matrices(min_n=1))
    @settings(max_examples=30, deadline=None)
    def test_rows_on_simplex(self, n):
        for method in ("empirical", "posterior_mean", "gaussian"):
            out = soft_labels(n, method=method)
            assert np.all(out >= 0)
            np.testing.assert_allclose(out.sum(1), 1.0)


class TestCredibleInterval:
    def test_matches_scipy_beta(self):
        alpha = np.array([[2.0, 3.0, 5.0], [0.5, 0.5, 100.0]])
        interval = credible_interval(alpha, confidence_level=0.8)
        assert isinstance(interval, CredibleInterval)
        b = alpha.sum(1, keepdims=True) - alpha
        np.testing.assert_allclose(interval.low, stats.beta.ppf(0.1, alpha, b), rtol=1e-10)
        np.testing.assert_allclose(interval.high, stats.beta.ppf(0.9, alpha, b), rtol=1e-10)

    def test_uniform(self):
        interval = credible_interval([[1.0, 1.0]], confidence_level=0.9)
        np.testing.assert_allclose(interval.low, 0.05)
        np.testing.assert_allclose(interval.high, 0.95)

    def test_coverage_monte_carlo(self):
        rng = np.random.default_rng(11)
        alpha = np.array([[3.0, 1.0, 6.0]])
        interval = credible_interval(alpha, confidence_level=0.9)
        draws = rng.dirichlet(alpha[0], size=200_000)
        inside = ((draws >= interval.low) & (draws <= interval.high)).mean(0)
        np.testing.assert_allclose(inside, 0.9, atol=0.004)

    def test_huge_dominant_class(self):
        # a0 - alpha_k must not cancel: the small class is Beta(1e-3, 1e9) exactly
        interval = credible_interval([[1e9, 1e-3]])
        assert interval.high[0, 1] == pytest.approx(stats.beta.ppf(0.975, 1e-3, 1e9), rel=1e-8)
        assert interval.low[0, 0] == pytest.approx(stats.beta.ppf(0.025, 1e9, 1e-3), rel=1e-12)

    def test_bad_inputs(self):
        with pytest.raises(DataError, match="finite and > 0"):
            credible_interval([[0.0, 1.0]])
        with pytest.raises(ValueError, match="level"):
            credible_interval([[1.0, 1.0]], confidence_level=95)


class TestMarginalLogLikelihood:
    def test_matches_scipy_dirichlet_multinomial(self):
        rng = np.random.default_rng(5)
        n = rng.multinomial(4, [0.5, 0.3, 0.2], size=30)
        n[:5] = rng.multinomial(7, [0.1, 0.1, 0.8], size=5)
        for prior, alpha in (
            ("uniform", np.ones(3)),
            ("jeffreys", np.full(3, 0.5)),
            (2.0, np.full(3, 2.0)),
        ):
            expected = sum(stats.dirichlet_multinomial.logpmf(row, alpha, row.sum()) for row in n)
            assert marginal_log_likelihood(n, prior=prior) == pytest.approx(expected, rel=1e-12)

    def test_empirical_prior_fits_best(self):
        rng = np.random.default_rng(6)
        p = rng.dirichlet([0.3, 0.3, 0.3], size=200)
        n = np.stack([rng.multinomial(3, q) for q in p])
        best = marginal_log_likelihood(n, prior="empirical")
        assert best >= marginal_log_likelihood(n, prior="uniform")
        assert best >= marginal_log_likelihood(n, prior="jeffreys")

    def test_per_item_prior_refused(self):
        with pytest.raises(ValueError, match="one prior for every item"):
            marginal_log_likelihood([[1, 1], [2, 0]], prior=np.ones((2, 2)))
