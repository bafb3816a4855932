"""fit_hierarchical_prior, prior="hierarchical", prior_strength_check and DEFAULT_PRIOR."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from scipy import optimize, special

from dissensus import PriorDominanceWarning
from dissensus.posterior import (
    DEFAULT_PRIOR,
    PriorFitWarning,
    PriorWarningInfo,
    dirichlet,
    fit_dirichlet_prior,
    fit_hierarchical_prior,
    marginal_log_likelihood,
    prior_strength_check,
)


def _draw(rng: np.random.Generator, alpha: list[float], n_items: int, lo: int, hi: int):
    p = rng.dirichlet(alpha, size=n_items)
    return rng.multinomial(rng.integers(lo, hi, n_items), p)


def _neg_log_posterior(log_alpha: np.ndarray, n: np.ndarray, loc: float, scale: float) -> float:
    # written from the docstring's formula, without the distinct-value trick
    a = np.exp(log_alpha)
    s = a.sum()
    ni = n.sum(1)
    ll = (special.gammaln(s) - special.gammaln(ni + s)).sum() + (
        special.gammaln(n + a) - special.gammaln(a)
    ).sum()
    dev = np.log(s) - np.log(n.shape[1]) - loc
    return float(-(ll - 0.5 * dev**2 / scale**2))


class TestFitHierarchicalPrior:
    def test_matches_numerical_mode(self):
        rng = np.random.default_rng(11)
        n = _draw(rng, [0.8, 2.0, 0.4], 300, 2, 6)
        fit = fit_hierarchical_prior(n, loc=0.5, scale=0.7)
        res = optimize.minimize(
            _neg_log_posterior, np.zeros(3), args=(n, 0.5, 0.7), method="BFGS", tol=1e-12
        )
        assert fit.converged
        np.testing.assert_allclose(fit.alpha0, np.exp(res.x), rtol=1e-4)
        assert fit.log_likelihood == pytest.approx(marginal_log_likelihood(n, prior=fit.alpha0))

    def test_flat_hyperprior_equals_empirical_bayes(self):
        rng = np.random.default_rng(2)
        n = _draw(rng, [0.5, 1.0, 2.0, 0.7], 1500, 2, 20)
        eb = fit_dirichlet_prior(n)
        flat = fit_hierarchical_prior(n, scale=np.inf)
        np.testing.assert_allclose(flat.alpha0, eb.alpha0, rtol=1e-5)

    def test_recovers_known_prior_within_monte_carlo_error(self):
        # 30 independent datasets from Dir(true): the mean fitted strength is within
        # 3 Monte Carlo standard errors of the true strength, the mean within 0.01
        rng = np.random.default_rng(5)
        true = np.array([2.0, 1.0, 0.5, 1.5])
        fits = [fit_hierarchical_prior(_draw(rng, list(true), 1000, 2, 15)) for _ in range(30)]
        s = np.array([f.strength for f in fits])
        se = s.std(ddof=1) / np.sqrt(s.size)
        assert abs(s.mean() - true.sum()) < 3 * se + 0.02 * true.sum()
        m = np.mean([f.mean for f in fits], axis=0)
        np.testing.assert_allclose(m, true / true.sum(), atol=0.01)

    def test_finite_where_maximum_likelihood_diverges(self):
        # multinomial counts with no overdispersion: the MLE strength runs to infinity
        rng = np.random.default_rng(3)
        n = rng.multinomial(10, [0.2, 0.3, 0.5], size=300)
        with pytest.warns(PriorFitWarning, match="did not converge"):
            eb = fit_dirichlet_prior(n, max_iter=200)
        fit = fit_hierarchical_prior(n)
        assert fit.converged
        assert np.all(np.isfinite(fit.alpha0))
        assert 3.0 < fit.strength < eb.strength
        np.testing.assert_allclose(fit.mean, n.sum(0) / n.sum(), atol=1e-3)

    def test_tighter_hyperprior_pulls_towards_its_centre(self):
        rng = np.random.default_rng(4)
        n = rng.multinomial(3, [0.2, 0.3, 0.5], size=200)
        strengths = [fit_hierarchical_prior(n, scale=sc).strength for sc in (4.0, 1.0, 0.01)]
        assert strengths[0] > strengths[1] > strengths[2]
        assert strengths[2] == pytest.approx(3.0, rel=0.05)  # centre log K, K = 3

    def test_single_annotations_take_the_hyperprior_mode(self):
        n = np.array([[1, 0], [0, 1], [1, 0]])
        with pytest.warns(PriorFitWarning, match="hyperprior's mode"):
            fit = fit_hierarchical_prior(n, loc=1.0)
        assert fit.strength == pytest.approx(2 * np.e)
        np.testing.assert_allclose(fit.mean, [2 / 3, 1 / 3])

    def test_unused_class_warns(self):
        n = np.array([[3, 0, 0], [0, 3, 0], [2, 1, 0], [1, 1, 0]])
        with pytest.warns(PriorFitWarning, match="never used"):
            fit = fit_hierarchical_prior(n)
        assert 0 < fit.alpha0[2] < 1e-4

    def test_bad_options(self):
        with pytest.raises(ValueError, match="'scale' parameter"):
            fit_hierarchical_prior([[1, 1]], scale=0.0)
        with pytest.raises(ValueError, match="'loc' parameter"):
            fit_hierarchical_prior([[1, 1]], loc=np.nan)

    def test_prior_name_everywhere(self):
        rng = np.random.default_rng(6)
        n = _draw(rng, [1.0, 2.0, 0.5], 200, 2, 8)
        fit = fit_hierarchical_prior(n)
        np.testing.assert_allclose(dirichlet(n, prior="hierarchical"), n + fit.alpha0)
        assert marginal_log_likelihood(n, prior="hierarchical") == pytest.approx(fit.log_likelihood)


class TestPriorStrengthCheck:
    def test_fires_when_prior_outweighs_annotations(self):
        n = np.array([[2, 0, 0, 0, 1], [0, 3, 0, 0, 0], [0, 0, 0, 1, 1], [6, 0, 0, 0, 0]])
        with pytest.warns(PriorDominanceWarning, match=r"75% of the items.*jeffreys"):
            info = prior_strength_check(n, "uniform")
        assert isinstance(info, PriorWarningInfo)
        # uniform, K = 5: s = 5; items with n <= 5 are 3 of 4
        assert (info.strength, info.n_weak, info.n_items) == (5.0, 3, 4)
        assert float(info) == info.statistic == 0.75
        assert info.median_annotations == 3.0

    def test_quiet_with_enough_annotations(self):
        n = np.array([[20, 10], [5, 25], [1, 1]])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert prior_strength_check(n, "uniform") is None
            assert prior_strength_check(n, 2.0, threshold=0.5) is None

    def test_threshold_and_warn_off(self):
        n = np.array([[20, 10], [1, 0], [1, 1], [30, 0]])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            info = prior_strength_check(n, "uniform", threshold=0.5, warn=False)
        assert info is not None
        assert info.share_weak == 0.5
        assert prior_strength_check(n, "uniform", threshold=0.6) is None
        with pytest.raises(ValueError, match="'threshold' parameter"):
            prior_strength_check(n, "uniform", threshold=0.0)

    def test_per_item_prior_and_number(self):
        n = np.array([[1, 1], [4, 4]])
        per_item = np.array([[1.0, 1.0], [5.0, 5.0]])  # strengths 2 and 10
        info = prior_strength_check(n, per_item, warn=False)
        assert info is not None
        assert (info.n_weak, info.prior) == (2, "array")
        assert prior_strength_check(n, 0.5, warn=False) is None  # s = 1 < both n_i

    def test_hierarchical_message_explains(self):
        rng = np.random.default_rng(3)
        n = rng.multinomial(2, [0.2, 0.3, 0.5], size=300)  # no disagreement beyond sampling
        with pytest.warns(PriorDominanceWarning, match="barely differ"):
            prior_strength_check(n, "hierarchical")


class TestDefaultPrior:
    @pytest.mark.parametrize(
        "func",
        [
            "dissensus.posterior:dirichlet",
            "dissensus.posterior:soft_labels",
            "dissensus.posterior:marginal_log_likelihood",
            "dissensus.posterior:prior_strength_check",
            "dissensus.evaluation:evaluate",
            "dissensus.allocate:next_items",
            "dissensus.leaderboard:leaderboard",
            "dissensus.simulate:allocation_study",
        ],
    )
    def test_public_defaults_use_the_constant(self, func):
        import importlib  # noqa: PLC0415

        module, name = func.split(":")
        f = getattr(importlib.import_module(module), name)
        assert inspect.signature(f).parameters["prior"].default == DEFAULT_PRIOR

    def test_default_is_a_named_prior(self):
        assert DEFAULT_PRIOR in {"uniform", "jeffreys", "empirical", "hierarchical"}
        n = np.array([[2, 1, 0]])
        np.testing.assert_allclose(dirichlet(n), dirichlet(n, prior=DEFAULT_PRIOR))
