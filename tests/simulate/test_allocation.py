import pytest

from dissensus.simulate import allocation_study


class TestAllocationStudy:
    def test_curve_shape_and_common_start(self):
        curve = allocation_study(60, 3, replicates=3, rounds=3, metric="E[manhattan]", seed=0)
        assert set(curve["strategy"]) == {"expected_gain", "uniform", "random"}
        start = curve[curve["round"] == 0]
        assert start.groupby("estimator")["p_pairs_correct"].nunique().max() == 1
        assert curve["spent"].max() == 120

    def test_gain_beats_random_with_a_fitted_prior(self):
        curve = allocation_study(
            200, 5, replicates=12, rounds=4, prior="empirical", metric="E[emd]", seed=1
        )
        e = curve[(curve["estimator"] == "expected") & (curve["round"] == 1)].set_index("strategy")
        assert e.loc["expected_gain", "p_pairs_correct"] > e.loc["random", "p_pairs_correct"]

    def test_bad_budget(self):
        with pytest.raises(ValueError, match="budget / rounds"):
            allocation_study(10, 3, replicates=2, budget=100, rounds=2)
        with pytest.raises(ValueError, match="expected metric"):
            allocation_study(10, 3, replicates=2, metric="emd")
