"""Tests of dissensus.models._base: the marginal and shrinkage by annotation count."""

from __future__ import annotations

import numpy as np
import pytest

from dissensus import DataError, LabelCounts
from dissensus.models import Marginal, Shrinkage, SoftCrossEntropy
from tests.models._synthetic import emd_to_truth, make_data


class TestMarginal:
    def test_mean_of_targets(self):
        q = (
            Marginal()
            .fit(np.zeros((3, 1)), [[1, 0], [0, 1], [0.5, 0.5]])
            .predict_proba(np.zeros((2, 1)))
        )
        assert q.tolist() == [[0.5, 0.5], [0.5, 0.5]]

    def test_bad_targets(self):
        with pytest.raises(DataError, match=r"sums to 0.5"):
            Marginal().fit(np.zeros((1, 1)), [[0.2, 0.3]])
        with pytest.raises(DataError, match="n_classes=3"):
            Marginal(n_classes=3).fit(np.zeros((1, 1)), [[0.5, 0.5]])
        with pytest.raises(DataError, match="no annotations"):
            Marginal().fit(np.zeros((2, 1)), LabelCounts.from_array([[1, 0], [0, 0]]))


class TestShrinkage:
    def test_weight_is_n_over_n_plus_strength(self):
        split = make_data(n_items=240)
        base = SoftCrossEntropy().fit(split.X_train, split.y_train)
        s = Shrinkage(base, strength=5.0, refit=False).fit(split.X_train, split.y_train)
        n = np.arange(split.X_test.shape[0]) % 7
        q = s.predict_proba(split.X_test, n=n)
        w = (n / (n + 5.0))[:, None]
        expect = w * base.predict_proba(split.X_test) + (1 - w) * s.marginal_
        np.testing.assert_allclose(q, expect)
        assert s.estimator_ is base

    def test_learns_and_is_deterministic(self):
        split = make_data()
        n = np.full(split.X_test.shape[0], 50)
        marg = Marginal().fit(split.X_train, split.y_train).predict_proba(split.X_test)
        a = (
            Shrinkage(SoftCrossEntropy(C=10.0))
            .fit(split.X_train, split.y_train)
            .predict_proba(split.X_test, n=n)
        )
        b = (
            Shrinkage(SoftCrossEntropy(C=10.0))
            .fit(split.X_train, split.y_train)
            .predict_proba(split.X_test, n=n)
        )
        assert a.tobytes() == b.tobytes()
        assert emd_to_truth(split, a) < 0.9 * emd_to_truth(split, marg)

    def test_needs_n_and_refuses_bad_targets(self):
        s = Shrinkage(SoftCrossEntropy()).fit(np.eye(2), np.eye(2))
        with pytest.raises(DataError, match="needs `n`"):
            s.predict_proba(np.eye(2))
        with pytest.raises(DataError, match=r"sums to 0.9"):
            Shrinkage(SoftCrossEntropy()).fit(np.eye(2), [[0.5, 0.4], [0.5, 0.5]])
        with pytest.raises(ValueError, match="already fitted"):
            Shrinkage(SoftCrossEntropy(), refit=False).fit(np.eye(2), np.eye(2))
