"""Tests of dissensus.models._sklearn: A (soft CE), B (smoothed KL), Naive Bayes."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.naive_bayes import MultinomialNB

from dissensus import DataError
from dissensus.models import (
    Marginal,
    SmoothedKL,
    SoftCrossEntropy,
    SoftmaxRegression,
    SoftNaiveBayes,
)
from dissensus.models._sklearn import expand_soft_targets
from dissensus.posterior import soft_labels
from tests.models._synthetic import emd_to_truth, make_data

MODELS = [SoftCrossEntropy, SmoothedKL, SoftNaiveBayes]


class TestSoftCrossEntropy:
    def test_same_optimum_as_our_softmax_regression(self):
        # sklearn on weighted hard rows and our own L-BFGS on soft targets:
        # two implementations of one objective
        split = make_data(n_items=240)
        a = SoftCrossEntropy(C=2.0, tol=1e-7, max_iter=500).fit(split.X_train, split.y_train)
        b = SoftmaxRegression(C=2.0, tol=1e-8, max_iter=500).fit(split.X_train, split.y_train)
        np.testing.assert_allclose(
            a.predict_proba(split.X_test), b.predict_proba(split.X_test), atol=1e-3
        )

    def test_absent_class_gets_zero_column(self):
        Y = np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]] * 3)
        q = SoftCrossEntropy().fit(np.eye(2).repeat(3, axis=0), Y).predict_proba(np.eye(2))
        assert q.shape == (2, 3)
        assert (q[:, 2] == 0).all()


class TestSmoothedKL:
    def test_targets_are_the_gaussian_soft_labels(self):
        split = make_data(n_items=240)
        est = SmoothedKL(sigma=0.8)
        smooth = est._targets(split.y_train.proportions())
        ref = soft_labels(split.y_train, method="gaussian", sigma=0.8)
        np.testing.assert_allclose(smooth, ref, atol=1e-12)


class TestSoftNaiveBayes:
    def test_hard_labels_match_multinomial_nb(self):
        rng = np.random.default_rng(0)
        X = rng.integers(0, 4, size=(40, 6)).astype(float)
        y = rng.integers(0, 3, size=40)
        ref = MultinomialNB().fit(X, y).predict_proba(X)
        ours = SoftNaiveBayes().fit(X, np.eye(3)[y]).predict_proba(X)
        np.testing.assert_allclose(ours, ref)

    def test_refuses_negative_features(self):
        with pytest.raises(DataError, match="non-negative features"):
            SoftNaiveBayes().fit(-np.ones((2, 2)), np.eye(2))


class TestExpand:
    def test_weights_sum_to_one_per_item(self):
        P = np.array([[0.2, 0.8, 0.0], [0.0, 0.0, 1.0]])
        Xe, y, w = expand_soft_targets(np.arange(2.0)[:, None], P)
        assert Xe[:, 0].tolist() == [0.0, 0.0, 1.0]
        assert y.tolist() == [0, 1, 2]
        assert np.bincount([0, 0, 1], weights=w).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("cls", MODELS)
class TestCommon:
    def test_beats_the_marginal(self, cls):
        split = make_data()
        base = emd_to_truth(
            split, Marginal().fit(split.X_train, split.y_train).predict_proba(split.X_test)
        )
        est = cls(C=10.0) if cls is not SoftNaiveBayes else cls()
        assert (
            emd_to_truth(split, est.fit(split.X_train, split.y_train).predict_proba(split.X_test))
            < 0.9 * base
        )

    def test_deterministic(self, cls):
        split = make_data(n_items=240)
        a = cls().fit(split.X_train, split.y_train).predict_proba(split.X_test)
        b = cls().fit(split.X_train, split.y_train).predict_proba(split.X_test)
        assert a.tobytes() == b.tobytes()

    def test_bad_targets(self, cls):
        X = np.ones((2, 2))
        with pytest.raises(DataError, match=r"sums to 1.1"):
            cls().fit(X, [[0.6, 0.5], [0.5, 0.5]])
        with pytest.raises(DataError, match="finite"):
            cls().fit(X, [[np.nan, 1.0], [0.5, 0.5]])
        with pytest.raises(DataError, match="n_classes=3"):
            cls(n_classes=3).fit(X, [[0.5, 0.5], [0.5, 0.5]])
        with pytest.raises(DataError, match="1-D"):
            cls().fit(X, [0, 1])
