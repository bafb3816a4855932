"""Tests of dissensus.stats._ranking: competition ranks, Kendall's tau-b, reversals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats as sps

from dissensus.stats._ranking import (
    competition_ranks,
    kendall_tau_b,
    order_reversals,
    rank_agreement,
)


class TestCompetitionRanks:
    def test_ties_share_the_smallest_rank(self):
        ranks, tied = competition_ranks([0.5, 0.2, 0.5, 0.2, 0.9])
        assert ranks.tolist() == [[3.0, 1.0, 3.0, 1.0, 5.0]]
        assert tied.tolist() == [[True, True, True, True, False]]

    def test_direction_per_metric(self):
        ranks, _ = competition_ranks([[0.1, 0.2], [0.1, 0.2]], lower_is_better=[True, False])
        assert ranks.tolist() == [[1.0, 2.0], [2.0, 1.0]]

    def test_nan_is_not_ranked(self):
        ranks, tied = competition_ranks([np.nan, 0.3, 0.1, np.nan])
        assert np.isnan(ranks[0, 0])
        assert np.isnan(ranks[0, 3])
        assert ranks[0, 1:3].tolist() == [2.0, 1.0]
        assert not tied.any()

    def test_inf_ranks_last(self):
        ranks, _ = competition_ranks([np.inf, 0.3])
        assert ranks.tolist() == [[2.0, 1.0]]

    @settings(max_examples=50, deadline=None)
    @given(
        hnp.arrays(np.float64, st.integers(1, 8), elements=st.sampled_from([0.1, 0.2, 0.3, 0.7]))
    )
    def test_equals_scipy_rankdata_min(self, x):
        ranks, _ = competition_ranks(x)
        np.testing.assert_array_equal(ranks[0], sps.rankdata(x, method="min"))

    def test_bad_shape(self):
        with pytest.raises(ValueError, match="1-D"):
            competition_ranks(np.zeros((2, 2, 2)))


class TestKendallTauB:
    @settings(max_examples=60, deadline=None)
    @given(
        st.integers(2, 9).flatmap(
            lambda n: st.tuples(
                hnp.arrays(np.float64, n, elements=st.integers(1, 4).map(float)),
                hnp.arrays(np.float64, n, elements=st.integers(1, 4).map(float)),
            )
        )
    )
    def test_equals_scipy_kendalltau(self, xy):
        x, y = xy
        expected = sps.kendalltau(x, y).statistic  # tau-b, scipy's default variant
        got = kendall_tau_b(x, y)
        if np.isnan(expected):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(expected, abs=1e-12)

    def test_identical_and_reversed(self):
        assert kendall_tau_b([1, 2, 3], [1, 2, 3]) == 1.0
        assert kendall_tau_b([1, 2, 3], [3, 2, 1]) == -1.0

    def test_constant_is_nan(self):
        assert np.isnan(kendall_tau_b([1, 1, 1], [1, 2, 3]))
        assert np.isnan(kendall_tau_b([1], [1]))

    def test_length_mismatch(self):
        with pytest.raises(ValueError, match="same length"):
            kendall_tau_b([1, 2], [1, 2, 3])


class TestOrderReversals:
    def test_finds_the_one_swapped_pair(self):
        # metric 0 orders A < B < C, metric 1 orders B < A < C, metric 2 like 0
        scores = [[0.1, 0.2, 0.3], [0.2, 0.1, 0.3], [1.0, 2.0, 3.0]]
        rev = order_reversals(scores)
        assert rev.tolist() == [[0, 1, 0, 1], [1, 2, 0, 1]]

    def test_direction_is_respected(self):
        # same numbers, but metric 1 is higher-is-better: every pair reverses
        rev = order_reversals([[0.1, 0.2], [0.1, 0.2]], lower_is_better=[True, False])
        assert rev.tolist() == [[0, 1, 0, 1]]

    def test_ties_and_nan_are_not_reversals(self):
        assert order_reversals([[0.1, 0.1], [0.2, 0.1]]).size == 0
        assert order_reversals([[np.nan, 0.1], [0.2, 0.1]]).size == 0

    def test_no_reversal(self):
        assert order_reversals([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]]).shape == (0, 4)


class TestRankAgreement:
    def test_table2_quantities(self):
        # positions 1..5 vs a ranking that swaps the first two and moves the last up by two
        r1 = np.array([1, 2, 3, 4, 5])
        r2 = np.array([2, 1, 4, 5, 3])
        res = rank_agreement(r1, r2)
        change = np.abs(r1 - r2)
        assert res.share_reranked == 1.0
        assert res.mean_abs_change == pytest.approx(change.mean())
        assert res.sd_abs_change == pytest.approx(change.std(ddof=0))
        assert res.kendall_tau == pytest.approx(sps.kendalltau(r1, r2).statistic)

    def test_identical_rankings(self):
        res = rank_agreement([1, 2, 2, 4], [1, 2, 2, 4])
        assert (res.share_reranked, res.mean_abs_change, res.sd_abs_change) == (0.0, 0.0, 0.0)
        assert res.kendall_tau == pytest.approx(1.0)

    def test_nan_positions(self):
        res = rank_agreement([1, np.nan], [1, 2])
        assert all(np.isnan(v) for v in res)

    def test_length_mismatch(self):
        with pytest.raises(ValueError, match="same length"):
            rank_agreement([1, 2], [1])
