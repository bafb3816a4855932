"""Tests of dissensus.agreement._result: the interval of a result from too few items."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dissensus import FewItemsWarning
from dissensus.agreement import fleiss_kappa, icc, krippendorff_alpha
from dissensus.agreement._result import MIN_ITEMS


class TestFewItems:
    """Issue 23: a 95% interval from one item was the point [-0.5, -0.5], without a word."""

    def test_one_item_interval_is_nan_and_warns(self) -> None:
        r = fleiss_kappa([[2, 1]])
        assert r.n_items == 1 < MIN_ITEMS
        with pytest.warns(FewItemsWarning, match=r"at least 2 items; got 1"):
            low, high = r.confidence_interval(n_resamples=50)
        assert math.isnan(low)
        assert math.isnan(high)

    def test_one_item_alpha_interval(self) -> None:
        r = krippendorff_alpha(np.array([[1.0, 2.0]]))
        with pytest.warns(FewItemsWarning):
            assert all(math.isnan(v) for v in r.confidence_interval(n_resamples=50))

    def test_two_items_give_an_interval(self) -> None:
        r = fleiss_kappa([[2, 1], [0, 3]])
        with pytest.warns(FewItemsWarning, match="only 2 item"):
            low, high = r.confidence_interval(n_resamples=50, seed=1)
        assert low <= high

    def test_bootstrap_intervals_under_30_items_warn_as_evaluate_does(self) -> None:
        rows = [[2, 1], [0, 3], [3, 0]] * 9  # 27 items
        with pytest.warns(FewItemsWarning, match="only 27 item.*fewer than 30"):
            fleiss_kappa(rows).confidence_interval(n_resamples=20, seed=1)
        with pytest.warns(FewItemsWarning, match="only 27 item"):
            fleiss_kappa(rows).confidence_interval(n_resamples=20, seed=1, bootstrap="poisson")
        with warnings.catch_warnings():
            warnings.simplefilter("error", FewItemsWarning)
            fleiss_kappa(rows + rows[:3]).confidence_interval(n_resamples=20, seed=1)  # 30

    def test_reml_interval_under_30_items_warns_naming_n(self) -> None:
        x = np.arange(12.0).reshape(6, 2) + np.array([0.0, 0.5])
        with pytest.warns(FewItemsWarning, match="only 6 item"):
            icc(x, method="reml").confidence_interval(n_resamples=20)


class TestFewItemsCoefficient:
    """Issue 23: a coefficient from 2 or 3 items came without a word."""

    def test_a_coefficient_from_fewer_than_the_minimum_warns_naming_n(self) -> None:
        with pytest.warns(FewItemsWarning, match=r"only 2 item\(s\); below 10 items"):
            krippendorff_alpha([[1, 1, 2], [2, 2, 2]])

    def test_from_the_minimum_on_no_warning(self) -> None:
        rows = [[2, 1], [0, 3], [3, 0]] * 4  # 12 items
        with warnings.catch_warnings():
            warnings.simplefilter("error", FewItemsWarning)
            fleiss_kappa(rows[:10])
