"""Intervals for the difference of true scores (dissensus.evaluation._true, Evaluation.true_differences)."""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt
import pytest
from scipy import stats

from dissensus import LabelCounts, Scale
from dissensus.evaluation import Evaluation, evaluate
from dissensus.evaluation._true import TRUE_DIFFERENCE_COLUMNS, true_differences
from dissensus.metrics import get_metric

FloatArray = npt.NDArray[np.float64]


def _world(seed: int, N: int = 300, K: int = 5) -> tuple[LabelCounts, dict[str, FloatArray]]:
    rng = np.random.default_rng(seed)
    pi = rng.dirichlet(np.full(K, 0.6), N)
    n = rng.integers(1, 4, N)
    C = np.array([rng.multinomial(m, p) for m, p in zip(n, pi, strict=True)])
    counts = LabelCounts.from_array(C, scale=Scale.ordinal(list(range(K))))
    models = {
        "A": 0.8 * pi + 0.2 / K,
        "B": 0.5 * pi + 0.5 * rng.dirichlet(np.ones(K), N),
        "C": np.full((N, K), 1.0 / K),
    }
    return counts, models


@pytest.fixture(scope="module")
def ev() -> Evaluation:
    counts, models = _world(1)
    metrics = [
        "rps",
        "debiased[rps]",
        "emd",
        "E[rps]",
        "cross_entropy",
        "debiased[kl_divergence]",
        "squared_euclidean",
        "debiased[squared_euclidean]",
        "debiased[emd]",
    ]
    with pytest.warns(RuntimeWarning, match="one annotation"):
        return evaluate(counts, models, metrics=metrics)


class TestTrueDifferences:
    def test_columns_and_rows(self, ev: Evaluation) -> None:
        table = ev.true_differences()
        assert tuple(table.columns) == TRUE_DIFFERENCE_COLUMNS
        # only the metrics whose paired difference has an unbiased estimator, in order
        assert list(dict.fromkeys(table["metric"])) == [
            "rps",
            "debiased[rps]",
            "cross_entropy",
            "debiased[kl_divergence]",
            "squared_euclidean",
            "debiased[squared_euclidean]",
        ]
        assert table[["model_a", "model_b"]].drop_duplicates().values.tolist() == [
            ["A", "B"],
            ["A", "C"],
            ["B", "C"],
        ]
        assert set(table.loc[table["metric"].str.startswith("debiased"), "estimator"]) == {
            "debiased"
        }
        assert set(table.loc[~table["metric"].str.startswith("debiased"), "estimator"]) == {
            "empirical"
        }
        assert (table["n_items"] == ev.counts.N).all()
        assert (table["n_infinite"] == 0).all()

    def test_values_by_hand(self, ev: Evaluation) -> None:
        row = ev.true_differences(confidence_level=0.9).iloc[1]  # rps, A minus C
        scores = ev.scores
        rps = scores[scores["metric"] == "rps"]
        d = (
            rps.loc[rps["model"] == "A", "value"].to_numpy()
            - rps.loc[rps["model"] == "C", "value"].to_numpy()
        )
        N = d.size
        se = d.std(ddof=1) / np.sqrt(N)
        # Hall (1992): g(T) = ((1 + aT)^3 - 1) / (3a) + b, a = skew / (3 sqrt N), b = skew / (6 sqrt N)
        a = stats.skew(d) / (3 * np.sqrt(N))
        b = a / 2
        t = stats.t.ppf(0.95, N - 1)

        def g_inv(y: float) -> float:
            return (np.cbrt(1 + 3 * a * (y - b)) - 1) / a

        g0 = ((1 + a * d.mean() / se) ** 3 - 1) / (3 * a) + b
        assert row["diff"] == pytest.approx(d.mean(), rel=1e-12)
        assert row["standard_error"] == pytest.approx(se, rel=1e-12)
        assert row["ci_low"] == pytest.approx(d.mean() - se * g_inv(t), rel=1e-9)
        assert row["ci_high"] == pytest.approx(d.mean() - se * g_inv(-t), rel=1e-9)
        assert row["p_a_better"] == pytest.approx(stats.t.cdf(-g0, N - 1), rel=1e-9)

    def test_debiased_corrections_cancel_in_the_difference(self, ev: Evaluation) -> None:
        table = ev.true_differences().set_index(["metric", "model_a", "model_b"])
        for base, form in (
            ("rps", "debiased[rps]"),
            ("cross_entropy", "debiased[kl_divergence]"),
            ("squared_euclidean", "debiased[squared_euclidean]"),
        ):
            np.testing.assert_allclose(
                table.loc[form, ["diff", "standard_error"]].to_numpy(),
                table.loc[base, ["diff", "standard_error"]].to_numpy(),
                rtol=1e-9,
            )

    def test_probability_agrees_with_the_interval(self, ev: Evaluation) -> None:
        table = ev.true_differences()
        assert (table.loc[table["ci_high"] < 0, "p_a_better"] > 0.975).all()
        assert (table.loc[table["ci_low"] > 0, "p_a_better"] < 0.025).all()
        assert ((table["ci_low"] < table["diff"]) & (table["diff"] < table["ci_high"])).all()

    def test_identical_models_are_even(self) -> None:
        counts, models = _world(2, N=50)
        models["B"] = models["A"]
        out = evaluate(counts, models, metrics=["rps"]).true_differences()
        row = out.iloc[0]
        assert (row["diff"], row["standard_error"], row["p_a_better"]) == (0.0, 0.0, 0.5)

    def test_infinite_differences_are_counted_not_averaged(self) -> None:
        counts, models = _world(3, N=60, K=3)
        q = models["A"].copy()
        q[:, 0] = 0.0  # a zero prediction where annotations put mass
        models["A"] = q / q.sum(axis=1, keepdims=True)
        out = evaluate(counts, models, metrics=["cross_entropy"]).true_differences()
        ab = out.iloc[0]
        expected = int((counts.values[:, 0] > 0).sum())
        assert ab["n_infinite"] == expected > 0
        assert ab["diff"] == np.inf
        assert np.isnan([ab["standard_error"], ab["ci_low"], ab["ci_high"], ab["p_a_better"]]).all()
        assert out.iloc[2]["n_infinite"] == 0  # B minus C is finite

    def test_items_with_too_few_annotations_are_excluded(self) -> None:
        rng = np.random.default_rng(4)
        values = rng.normal(size=(1, 2, 10))
        n = np.array([1, 1, 1, 2, 2, 3, 3, 3, 4, 5])
        degree2 = dataclasses.replace(get_metric("debiased[rps]"), difference_degree=2)
        out = true_differences(values, [degree2], ["a", "b"], n)
        assert out["n_items"].tolist() == [7]
        d = values[0, 0, 3:] - values[0, 1, 3:]
        assert out["diff"].iloc[0] == pytest.approx(d.mean())

    def test_pointwise_scores_against_other_targets_are_not_used(self) -> None:
        values = np.zeros((2, 2, 5))
        metrics = [get_metric("rps"), get_metric("debiased[rps]")]
        out = true_differences(values, metrics, ["a", "b"], np.full(5, 2), targets="mace")
        assert out["metric"].tolist() == ["debiased[rps]"]

    def test_no_eligible_metric_gives_an_empty_table(self) -> None:
        out = true_differences(np.zeros((1, 2, 5)), [get_metric("emd")], ["a", "b"], np.ones(5))
        assert out.empty
        assert tuple(out.columns) == TRUE_DIFFERENCE_COLUMNS

    @pytest.mark.parametrize("level", [0.0, 1.0, 95])
    def test_bad_confidence_level(self, ev: Evaluation, level: float) -> None:
        with pytest.raises(ValueError, match="'confidence_level' parameter of true_differences"):
            ev.true_differences(confidence_level=level)
