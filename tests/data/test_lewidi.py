"""Tests of dissensus.data._lewidi: the LeWiDi 2023 gold soft labels."""

from __future__ import annotations

import numpy as np
import pytest

from dissensus import DataError, LabelCounts, Scale
from dissensus.data import CONVABUSE_SCALE
from dissensus.metrics.lewidi import cross_entropy_2023, targets_2023


class TestTargets2023:
    def test_binary_tasks_are_the_proportions(self):
        lc = LabelCounts.from_array([[3, 1], [0, 2]], scale=Scale.nominal([0, 1]))
        np.testing.assert_array_equal(targets_2023(lc), lc.proportions())

    def test_convabuse_is_abusive_or_not(self):
        # columns -3 -2 -1 0 1: abusive = severity < 0
        lc = LabelCounts.from_array([[1, 0, 2, 0, 1], [0, 0, 0, 1, 3]], scale=CONVABUSE_SCALE)
        np.testing.assert_array_equal(targets_2023(lc), [[0.25, 0.75], [1.0, 0.0]])

    def test_scores_with_the_official_cross_entropy(self):
        lc = LabelCounts.from_array([[0, 0, 1, 1, 0]], scale=CONVABUSE_SCALE)
        got = cross_entropy_2023(targets_2023(lc), [[0.5, 0.5]])
        assert got == pytest.approx(-np.log(0.5 + 1e-9))

    def test_refuses_other_scales_and_empty_items(self):
        with pytest.raises(DataError, match="binary labels"):
            targets_2023(LabelCounts.from_array([[1, 1]], scale=Scale.nominal(["a", "b"])))
        with pytest.raises(DataError, match="binary labels"):
            targets_2023(LabelCounts.from_array([[1, 1, 1]], scale=Scale.ordinal([1, 2, 3])))
        with pytest.raises(DataError, match="1 items have no annotations"):
            targets_2023(LabelCounts.from_array([[0, 0], [1, 0]], scale=Scale.nominal([0, 1])))
