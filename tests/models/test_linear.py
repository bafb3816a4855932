"""Tests of dissensus.models._linear: C (cumulative link), D (EMD loss), E (expected EMD)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from dissensus import DataError, LabelCounts, Scale
from dissensus.metrics import expected, get_metric, gradients
from dissensus.metrics.gradients import softmax
from dissensus.models import (
    CumulativeLink,
    EMDRegression,
    ExpectedEMDRegression,
    Marginal,
    SoftmaxRegression,
    as_targets,
)
from tests.models._synthetic import K, emd_to_truth, make_data

LINEAR = [SoftmaxRegression, CumulativeLink, EMDRegression, ExpectedEMDRegression]


def _fd_grad(f, x, h=1e-6):
    g = np.empty_like(x)
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = h
        g[j] = (f(x + e)[0] - f(x - e)[0]) / (2 * h)
    return g


def _small_problem(seed=0, n=12, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    counts = rng.multinomial(5, np.full(K, 1 / K), size=n)
    y = LabelCounts.from_array(counts, scale=Scale.ordinal(list(range(K))))
    return X, y


class TestGradients:
    """Every analytic gradient (of the summed loss; the L2 penalty is shared) against finite differences."""

    @pytest.mark.parametrize(
        "est",
        [SoftmaxRegression(C=0.7), EMDRegression(C=0.7, power=2), ExpectedEMDRegression(C=0.7)],
        ids=["softmax-CE", "EMD^2", "expected-EMD"],
    )
    def test_softmax_models(self, est):
        X, y = _small_problem()
        state = est._prepare(as_targets(y, X.shape[0]))
        theta = np.random.default_rng(1).normal(scale=0.5, size=X.shape[1] * K + K)
        f = lambda th: est._objective(th, X, X.T, state, K)  # noqa: E731
        np.testing.assert_allclose(f(theta)[1], _fd_grad(f, theta), rtol=1e-5, atol=1e-8)

    def test_emd_power_one_away_from_kinks(self):
        X, y = _small_problem(seed=2)
        est = EMDRegression(C=0.7, power=1)
        state = est._prepare(as_targets(y, X.shape[0]))
        theta = np.random.default_rng(4).normal(scale=0.5, size=X.shape[1] * K + K)
        f = lambda th: est._objective(th, X, X.T, state, K)  # noqa: E731
        np.testing.assert_allclose(f(theta)[1], _fd_grad(f, theta, h=1e-7), rtol=1e-4, atol=1e-7)

    def test_cumulative_link(self):
        X, y = _small_problem(seed=5)
        est = CumulativeLink(C=0.7)
        P = as_targets(y, X.shape[0]).proportions
        params = np.random.default_rng(6).normal(scale=0.5, size=X.shape[1] + K - 1)
        f = lambda th: est._objective(th, X, X.T, P)  # noqa: E731
        np.testing.assert_allclose(f(params)[1], _fd_grad(f, params), rtol=1e-5, atol=1e-8)

    def test_expected_emd_loss_is_the_metric(self):
        X, y = _small_problem(seed=7)
        est = ExpectedEMDRegression(C=1e12)
        alpha, *_ = state = est._prepare(as_targets(y, X.shape[0]))
        theta = np.zeros(X.shape[1] * K + K)
        value, _ = est._objective(theta, X, X.T, state, K)
        uniform = np.full((X.shape[0], K), 1 / K)
        assert value / X.shape[0] == pytest.approx(expected.emd(alpha, uniform).mean(), rel=1e-12)


class TestLearning:
    @pytest.mark.parametrize("cls", LINEAR)
    def test_beats_the_marginal(self, cls):
        split = make_data()
        base = emd_to_truth(
            split, Marginal().fit(split.X_train, split.y_train).predict_proba(split.X_test)
        )
        model = cls(C=10.0).fit(split.X_train, split.y_train)
        assert emd_to_truth(split, model.predict_proba(split.X_test)) < 0.8 * base

    @pytest.mark.parametrize("cls", LINEAR)
    def test_deterministic_and_sparse_equals_dense(self, cls):
        split = make_data(n_items=240)
        a = cls().fit(split.X_train, split.y_train).predict_proba(split.X_test)
        b = cls().fit(split.X_train, split.y_train).predict_proba(split.X_test)
        c = cls().fit(sparse.csr_matrix(split.X_train), split.y_train).predict_proba(split.X_test)
        assert a.tobytes() == b.tobytes()
        np.testing.assert_allclose(a, c, atol=1e-6)
        np.testing.assert_allclose(a.sum(axis=1), 1.0)

    def test_soft_targets_match_counts(self):
        split = make_data(n_items=240)
        y = split.y_train
        a = ExpectedEMDRegression().fit(split.X_train, y).predict_proba(split.X_test)
        b = (
            ExpectedEMDRegression()
            .fit(split.X_train, y.proportions(), n=y.n)
            .predict_proba(split.X_test)
        )
        np.testing.assert_allclose(a, b, atol=1e-12)


class TestBadTargets:
    @pytest.mark.parametrize("cls", LINEAR)
    def test_rows_not_summing_to_one(self, cls):
        X = np.ones((3, 2))
        with pytest.raises(DataError, match=r"`Y` row 1 sums to 0.9"):
            cls().fit(X, [[0.5, 0.5], [0.5, 0.4], [1.0, 0.0]])

    @pytest.mark.parametrize("cls", LINEAR)
    def test_nan(self, cls):
        with pytest.raises(DataError, match="finite"):
            cls().fit(np.ones((2, 2)), [[np.nan, 1.0], [0.5, 0.5]])

    @pytest.mark.parametrize("cls", LINEAR)
    def test_wrong_K(self, cls):
        with pytest.raises(
            DataError, match="has 2 classes but the estimator was built with n_classes=3"
        ):
            cls(n_classes=3).fit(np.ones((2, 2)), [[0.5, 0.5], [0.5, 0.5]])
        with pytest.raises(DataError, match="at least 2 classes"):
            cls().fit(np.ones((2, 2)), [[1.0], [1.0]])

    def test_rows_of_X_and_Y(self):
        with pytest.raises(DataError, match="`Y` has 2 rows but `X` has 3"):
            EMDRegression().fit(np.ones((3, 2)), [[0.5, 0.5], [0.5, 0.5]])

    def test_expected_emd_needs_counts(self):
        with pytest.raises(DataError, match="needs annotation counts"):
            ExpectedEMDRegression().fit(np.ones((2, 2)), [[0.5, 0.5], [0.5, 0.5]])
        with pytest.raises(DataError, match="not whole numbers"):
            ExpectedEMDRegression().fit(np.ones((2, 2)), [[0.3, 0.7], [0.5, 0.5]], n=[2, 2])

    def test_predict_before_fit_and_wrong_width(self):
        with pytest.raises(ValueError, match="not fitted yet"):
            EMDRegression().predict_proba(np.ones((1, 2)))
        est = CumulativeLink().fit(np.eye(3), np.eye(3))
        with pytest.raises(DataError, match="has 2 features but CumulativeLink was fitted with 3"):
            est.predict_proba(np.ones((1, 2)))

    def test_bad_parameters(self):
        with pytest.raises(
            ValueError, match="'C' parameter of EMDRegression must be finite and > 0"
        ):
            EMDRegression(C=0).fit(np.eye(2), np.eye(2))
        with pytest.raises(ValueError, match="'power' parameter"):
            EMDRegression(power=3).fit(np.eye(2), np.eye(2))


class TestObjectivesAreTheMetrics:
    """Each softmax model's summed loss is its metric, summed over the items (one definition)."""

    @pytest.mark.parametrize(
        ("est", "metric"),
        [
            (SoftmaxRegression(), "cross_entropy"),
            (EMDRegression(power=2), "rps"),
            (EMDRegression(power=1), "emd"),
            (ExpectedEMDRegression(), "E[emd]"),
        ],
        ids=["softmax-CE", "EMD^2", "EMD", "expected-EMD"],
    )
    def test_loss_value_and_gradient(self, est, metric):
        X, y = _small_problem(seed=8)
        T = as_targets(y, X.shape[0])
        state = est._prepare(T)
        theta = np.random.default_rng(9).normal(scale=0.5, size=X.shape[1] * K + K)
        Q = softmax(X @ theta[: X.shape[1] * K].reshape(-1, K) + theta[X.shape[1] * K :])
        target = state[0] if metric == "E[emd]" else T.proportions
        value, G = est._loss(Q, state)
        assert value == pytest.approx(get_metric(metric)(target, Q).sum(), rel=1e-12)
        np.testing.assert_array_equal(G, gradients.gradient(metric, target, Q))
