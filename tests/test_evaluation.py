"""Tests of dissensus.evaluation: evaluate() and the Evaluation tables."""

from __future__ import annotations

import json
import re
import sys

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

import dissensus.audit
from dissensus import (
    Annotations,
    DataDroppedWarning,
    DataError,
    DegenerateAgreementWarning,
    FewItemsWarning,
    LabelCounts,
    MissingExtraError,
    Predictions,
    PriorDominanceWarning,
    Scale,
)
from dissensus.aggregation import soft_targets
from dissensus.audit import PROPERTIES
from dissensus.evaluation import (
    DEFAULT_METRICS,
    REPORT_AUDIT_TRIALS,
    Evaluation,
    ReportData,
    annotation_bins,
    evaluate,
)
from dissensus.evaluation._data import REQUIRED_COLUMNS
from dissensus.metrics import get_metric
from dissensus.metrics.debiased import inverse_variance_mean, jackknife_variance
from dissensus.posterior import dirichlet, marginal_log_likelihood
from dissensus.report import FullFrame, Paragraph, Section
from dissensus.stats._ranking import order_reversals

# ----------------------------------------------------------------------------- fixtures


def _reversal_data(seed: int = 0):
    """Items with 2 annotations (300) and with 50 (100), binary ordered scale.

    * ``sharp`` predicts the empirical distribution p everywhere: perfect under the
      empirical metric, over-confident on 2-annotation items under the expected one.
    * ``smooth`` predicts the posterior mean (uniform prior) on 2-annotation items,
      and p plus a small error on 50-annotation items: the better model where
      annotations are few, the worse where they are many.
    * ``uniform`` predicts (0.5, 0.5): worst under both.
    Under manhattan, sharp < smooth (sharp is exact); under E[manhattan], smooth wins
    on the many few-annotation items. That pair of metrics and models is the one
    reversal.
    """
    rng = np.random.default_rng(seed)
    few = rng.binomial(2, 0.8, size=300)
    many = rng.binomial(50, 0.7, size=100)
    counts = np.vstack(
        [np.column_stack([few, 2 - few]), np.column_stack([many, 50 - many])]
    ).astype(np.int64)
    n = counts.sum(axis=1, keepdims=True)
    p = counts / n
    post = (counts + 1.0) / (n + 2.0)
    smooth = post.copy()
    shift = np.where(p[300:, 0] > 0.5, -0.08, 0.08)
    smooth[300:, 0] = p[300:, 0] + shift
    smooth[300:, 1] = 1 - smooth[300:, 0]
    items = [f"i{k}" for k in range(400)]
    lc = LabelCounts.from_array(counts, items=items, scale=Scale.ordinal([1, 2]))
    preds = {
        "sharp": Predictions.from_array(p, items=items),
        "smooth": Predictions.from_array(smooth, items=items),
        "uniform": Predictions.from_array(np.full((400, 2), 0.5), items=items),
    }
    return lc, preds


@pytest.fixture(scope="module")
def reversal_eval() -> Evaluation:
    lc, preds = _reversal_data()
    # the reversal is constructed under the uniform prior
    return evaluate(lc, preds, metrics=["manhattan", "E[manhattan]"], prior="uniform", seed=0)


def _small(seed: int = 1, n_items: int = 60, K: int = 4, J: int = 3):
    rng = np.random.default_rng(seed)
    n = rng.integers(2, 9, size=n_items)
    counts = np.stack([rng.multinomial(k, rng.dirichlet(np.ones(K))) for k in n])
    items = [f"it{k}" for k in range(n_items)]
    lc = LabelCounts.from_array(counts, items=items, scale=Scale.ordinal(list(range(1, K + 1))))
    preds = {
        f"m{j}": Predictions.from_array(
            rng.dirichlet(np.ones(K) * (j + 1), size=n_items), items=items
        )
        for j in range(J)
    }
    return lc, preds


# ----------------------------------------------------------------------------- evaluate


class TestEvaluate:
    def test_default_metrics_ordinal(self):
        lc, preds = _small()
        ev = evaluate(lc, preds)
        expected = [*DEFAULT_METRICS, *(f"E[{m}]" for m in DEFAULT_METRICS)]
        assert ev.metrics == [*expected, *(f"debiased[{m}]" for m in DEFAULT_METRICS)]
        assert ev.values.shape == (3 * len(DEFAULT_METRICS), 3, 60)
        assert not ev.values.flags.writeable

    def test_default_metrics_nominal_drop_emd(self):
        lc = LabelCounts.from_array([[2, 1], [0, 3]], scale=Scale.nominal(["a", "b"]))
        ev = evaluate(lc, {"m": [[0.5, 0.5], [0.1, 0.9]]})
        assert "emd" not in ev.metrics
        assert "E[emd]" not in ev.metrics
        assert not {"rps", "E[rps]", "debiased[rps]"} & set(ev.metrics)
        assert "E[cross_entropy]" in ev.metrics

    def test_emd_on_nominal_refused(self):
        lc = LabelCounts.from_array([[2, 1]], scale=Scale.nominal(["a", "b"]))
        with pytest.raises(ValueError, match="'emd' needs ordered labels"):
            evaluate(lc, {"m": [[0.5, 0.5]]}, metrics=["emd"])

    def test_models_named_alike_as_text_are_refused(self):
        # 1 and "1" are two keys of the mapping but one name in every table
        lc, preds = _small()
        first, second = list(preds.values())[:2]
        with pytest.raises(ValueError, match="the models 1 and '1' are both named '1'"):
            evaluate(lc, {1: first, "1": second})

    def test_unknown_and_repeated_metrics(self):
        lc, preds = _small()
        with pytest.raises(ValueError, match="Unknown metric 'nope'"):
            evaluate(lc, preds, metrics=["nope"])
        with pytest.raises(ValueError, match="repeats 'emd'"):
            evaluate(lc, preds, metrics=["emd", "emd"])
        with pytest.raises(ValueError, match="target only"):
            evaluate(lc, preds, metrics=["entropy"])

    def test_scores_match_the_metric_functions(self):
        lc, preds = _small()
        ev = evaluate(lc, preds, metrics=["emd", "E[cross_entropy]"], prior="jeffreys")
        q = preds["m1"].values
        np.testing.assert_array_equal(ev.values[0, 1], get_metric("emd").func(lc.proportions(), q))
        alpha = dirichlet(lc, prior="jeffreys")
        np.testing.assert_array_equal(
            ev.values[1, 1], get_metric("E[cross_entropy]").func(alpha, q)
        )
        assert ev.dataset_info()["prior"] == "jeffreys"

    def test_predictions_aligned_by_item_id(self):
        lc, preds = _small()
        shuffled = {
            name: Predictions.from_array(p.values[::-1], items=list(p.items[::-1]))
            for name, p in preds.items()
        }
        a = evaluate(lc, preds, metrics=["manhattan"])
        b = evaluate(lc, shuffled, metrics=["manhattan"])
        np.testing.assert_array_equal(a.values, b.values)

    def test_dataframe_and_array_predictions(self):
        lc, preds = _small(J=1)
        frame = preds["m0"].to_frame().reset_index(names="item")
        frame.columns = ["item", *[str(c) for c in lc.scale.labels]]
        a = evaluate(lc, {"m": frame}, metrics=["manhattan"])
        b = evaluate(lc, {"m": preds["m0"].values}, metrics=["manhattan"])
        np.testing.assert_allclose(a.values, b.values)

    def test_missing_items_are_an_error_not_a_join(self):
        lc, preds = _small()
        cut = preds["m1"]
        preds["m1"] = Predictions.from_array(cut.values[1:], items=list(cut.items[1:]))
        with pytest.raises(
            DataError, match=r"`m1` and the annotations cover different items: 1 of 60"
        ):
            evaluate(lc, preds, metrics=["manhattan"])

    def test_inner_keeps_common_items_with_a_warning(self):
        lc, preds = _small()
        cut = preds["m1"]
        preds["m1"] = Predictions.from_array(cut.values[2:], items=list(cut.items[2:]))
        with pytest.warns(DataDroppedWarning, match="dropped 2 annotated items"):
            ev = evaluate(lc, preds, metrics=["manhattan"], how="inner")
        assert ev.counts.N == 58
        assert list(ev.counts.items[:2]) == ["it2", "it3"]
        full = evaluate(lc, _small()[1], metrics=["manhattan"])
        np.testing.assert_array_equal(ev.values, full.values[:, :, 2:])

    def test_wrong_label_count(self):
        lc, _ = _small()
        with pytest.raises(DataError, match="has 2 columns"):
            evaluate(lc, {"m": np.full((60, 2), 0.5)}, metrics=["manhattan"])

    def test_predictions_must_be_a_mapping(self):
        lc, preds = _small()
        with pytest.raises(TypeError, match="must map model names"):
            evaluate(lc, [preds["m0"]])  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="empty"):
            evaluate(lc, {})

    def test_unannotated_items_refused_for_empirical_metrics(self):
        lc = LabelCounts.from_array(
            [[1, 1], [0, 0], [2, 0]], items=["a", "b", "c"], scale=Scale.ordinal([0, 1])
        )
        q = np.full((3, 2), 0.5)
        with pytest.raises(DataError, match=r"1 items have no annotation \('b'\).*'manhattan'"):
            evaluate(lc, {"m": q}, metrics=["manhattan", "E[manhattan]"])
        ev = evaluate(lc, {"m": q}, metrics=["E[manhattan]"])
        assert np.isfinite(ev.values).all()

    @pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # tiny on purpose
    def test_infinite_scores_are_reported_not_dropped(self):
        lc = LabelCounts.from_array([[2, 1], [0, 3]], scale=Scale.ordinal([0, 1]))
        ev = evaluate(
            lc,
            {"zero": [[1.0, 0.0], [0.5, 0.5]], "ok": [[0.6, 0.4], [0.2, 0.8]]},
            metrics=["cross_entropy"],
        )
        s = ev.summary(n_resamples=100)
        assert s.loc[0, "mean"] == np.inf
        assert np.isnan(s.loc[0, ["standard_error", "ci_low", "ci_high"]].astype(float)).all()
        assert s["best"].tolist() == [False, True]
        assert ev.rankings()["rank"].tolist() == [2, 1]
        d = ev.differences(n_resamples=100).iloc[0]
        assert d["diff"] == np.inf
        assert d["better"] is None


# ----------------------------------------------------------------------------- bins


class TestAnnotationBins:
    def test_convabuse_style(self):
        codes, labels = annotation_bins([2, 3, 4, 5, 6, 8, 2])
        assert labels == ["2–3", "4–5", "6–8"]  # closed at the largest count
        assert codes.tolist() == [0, 0, 1, 1, 2, 2, 0]

    def test_product_review_style(self):
        codes, labels = annotation_bins([5, 6, 10, 11, 20, 21, 50, 51, 100, 101, 4000])
        assert labels == ["5", "6–10", "11–20", "21–50", "51–100", "101+"]
        assert codes.tolist() == [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]

    def test_single_value_and_zero(self):
        assert annotation_bins([3, 3]) == (pytest.approx([0, 0]), ["3"])
        assert annotation_bins([0, 1, 3])[1] == ["0", "1", "2–3"]

    def test_explicit_edges(self):
        codes, labels = annotation_bins([2, 4, 7, 30], [2, 4, 11])
        assert labels == ["2–3", "4–10", "11+"]
        assert codes.tolist() == [0, 1, 1, 2]

    def test_none_is_one_bin(self):
        assert annotation_bins([1, 5], None)[1] == ["all"]

    def test_items_below_first_edge(self):
        with pytest.raises(DataError, match="1 items have fewer than 3 annotations"):
            annotation_bins([2, 5], [3, 6])

    def test_bad_edges(self):
        with pytest.raises(ValueError, match="increasing integers"):
            annotation_bins([2, 5], [4, 3])
        with pytest.raises(ValueError, match="'bins' parameter of annotation_bins"):
            annotation_bins([2, 5], "quantiles")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- tables


class TestSummary:
    def test_schema_and_order(self):
        lc, preds = _small()
        ev = evaluate(lc, preds, metrics=["manhattan", "E[emd]"])
        s = ev.summary(n_resamples=200)
        assert list(s.columns) == [
            "model", "metric", "mean", "standard_error", "ci_low", "ci_high", "n_items",
            "lower_is_better", "best", "n_infinite",
        ]  # fmt: skip
        assert s["metric"].tolist() == ["manhattan"] * 3 + ["E[emd]"] * 3
        assert s["model"].tolist() == ["m0", "m1", "m2"] * 2
        np.testing.assert_allclose(s["mean"], ev.values.mean(axis=2).ravel())
        np.testing.assert_allclose(
            s["standard_error"], ev.values.std(axis=2, ddof=1).ravel() / np.sqrt(60)
        )
        assert (s["ci_low"] < s["mean"]).all()
        assert (s["mean"] < s["ci_high"]).all()
        assert (s.groupby("metric")["best"].sum() == 1).all()

    def test_ties_all_marked_best(self):
        lc, preds = _small(J=1)
        ev = evaluate(lc, {"a": preds["m0"], "b": preds["m0"]}, metrics=["manhattan"])
        assert ev.summary(n_resamples=50)["best"].tolist() == [True, True]
        r = ev.rankings()
        assert r["rank"].tolist() == [1, 1]
        assert r["tied"].tolist() == [True, True]
        d = ev.differences(n_resamples=50)
        assert d["better"].tolist() == ["tie"]

    def test_same_seed_byte_identical_summary_csv(self, tmp_path):
        lc, preds = _small()
        paths = [
            evaluate(lc, preds, metrics=["manhattan", "E[emd]"], seed=5).save(
                tmp_path / d, n_resamples=300
            )["summary"]
            for d in ("a", "b")
        ]
        assert paths[0].read_bytes() == paths[1].read_bytes()
        other = evaluate(lc, preds, metrics=["manhattan", "E[emd]"], seed=6).save(
            tmp_path / "c", n_resamples=300
        )
        assert other["summary"].read_bytes() != paths[0].read_bytes()

    def test_model_order_does_not_change_numbers(self):
        lc, preds = _small()
        a = evaluate(lc, preds, metrics=["manhattan", "js_divergence"]).summary(n_resamples=300)
        rev = dict(reversed(list(preds.items())))
        b = evaluate(lc, rev, metrics=["manhattan", "js_divergence"]).summary(n_resamples=300)
        key = ["metric", "model"]
        pd.testing.assert_frame_equal(
            a.sort_values(key).reset_index(drop=True), b.sort_values(key).reset_index(drop=True)
        )

    @settings(max_examples=15, deadline=None)
    @given(st.permutations(list(range(30))))
    def test_permuting_items_leaves_means_unchanged(self, perm):
        lc, preds = _small(n_items=30)
        perm = np.asarray(perm)
        lc2 = LabelCounts.from_array(lc.values[perm], items=list(lc.items[perm]), scale=lc.scale)
        a = evaluate(lc, preds, metrics=["manhattan", "E[emd]"]).summary(n_resamples=20)
        b = evaluate(lc2, preds, metrics=["manhattan", "E[emd]"]).summary(n_resamples=20)
        np.testing.assert_allclose(a["mean"], b["mean"], rtol=1e-12)
        np.testing.assert_allclose(a["standard_error"], b["standard_error"], rtol=1e-9)

    def test_bad_ci(self):
        lc, preds = _small()
        with pytest.raises(ValueError, match="'confidence_level' parameter"):
            evaluate(lc, preds, metrics=["manhattan"]).summary(confidence_level=95)


class TestDifferences:
    def test_paired_interval_is_narrower_than_unpaired(self):
        # shared item difficulty: the paired interval of the difference is much
        # narrower than the two marginal intervals suggest
        lc, preds = _small(n_items=200)
        ev = evaluate(lc, preds, metrics=["manhattan"])
        s = ev.summary(n_resamples=500)
        d = ev.differences(n_resamples=500)
        assert list(d.columns) == [
            "metric",
            "model_a",
            "model_b",
            "diff",
            "ci_low",
            "ci_high",
            "better",
        ]
        assert d[["model_a", "model_b"]].to_numpy().tolist() == [
            ["m0", "m1"],
            ["m0", "m2"],
            ["m1", "m2"],
        ]
        means = s.set_index("model")["mean"]
        np.testing.assert_allclose(
            d["diff"], [means.m0 - means.m1, means.m0 - means.m2, means.m1 - means.m2]
        )
        for _, row in d.iterrows():
            assert row.ci_low <= row["diff"] <= row.ci_high
            expected = (
                "tie"
                if row.ci_low <= 0 <= row.ci_high
                else (row.model_a if row.ci_high < 0 else row.model_b)
            )
            assert row.better == expected
        # the widths themselves, on models whose per-item scores share the items'
        # difficulty (b is a slightly smoothed a): the paired interval of a - b is far
        # narrower than the sqrt(w_a^2 + w_b^2) of two independent samples
        rng = np.random.default_rng(4)
        q = rng.dirichlet(np.ones(4), size=200)
        shared = {"a": q, "b": 0.9 * q + 0.1 / 4}
        ev = evaluate(lc, shared, metrics=["manhattan"])
        s = ev.summary(n_resamples=500).set_index("model")
        w_a, w_b = (s.loc[m, "ci_high"] - s.loc[m, "ci_low"] for m in ("a", "b"))
        d = ev.differences(n_resamples=500).iloc[0]
        paired = d.ci_high - d.ci_low
        assert paired < 0.25 * np.hypot(w_a, w_b)

    def test_higher_is_better_direction(self):
        lc, preds = _reversal_data()
        ev = evaluate(lc, preds, metrics=["intersection"])
        d = ev.differences(n_resamples=200).set_index(["model_a", "model_b"])
        assert d.loc[("sharp", "uniform"), "better"] == "sharp"


class TestByBin:
    def test_equals_groupby_of_scores(self):
        lc, preds = _small()
        ev = evaluate(lc, preds, metrics=["manhattan", "E[emd]"])
        bb = ev.by_bin()
        assert list(bb.columns) == ["bin", "model", "metric", "mean", "n_items"]
        assert bb["bin"].cat.ordered
        exp = ev.scores.groupby(["bin", "metric", "model"], observed=True)["value"].agg(
            ["mean", "size"]
        )
        got = bb.set_index(["bin", "metric", "model"])
        for key, row in exp.iterrows():
            assert got.loc[key, "mean"] == pytest.approx(row["mean"])
            assert got.loc[key, "n_items"] == row["size"]
        assert bb.groupby("bin", observed=True)["n_items"].first().sum() == 60

    def test_other_bins_and_empty_bins_dropped(self):
        lc, preds = _small()
        bb = evaluate(lc, preds, metrics=["manhattan"]).by_bin([2, 5, 100])
        assert list(bb["bin"].cat.categories) == ["2–4", "5–99", "100+"]
        assert set(bb["bin"].astype(str)) == {"2–4", "5–99"}

    def test_reversal_lives_in_the_few_annotation_bin(self, reversal_eval):
        bb = reversal_eval.by_bin().set_index(["bin", "metric", "model"])["mean"]
        assert reversal_eval.bins == ["2–3", "4–5", "6–10", "11–20", "21–50"]
        # few annotations: smooth wins in expectation; many: sharp wins under both
        assert bb[("2–3", "E[manhattan]", "smooth")] < bb[("2–3", "E[manhattan]", "sharp")]
        assert bb[("21–50", "E[manhattan]", "sharp")] < bb[("21–50", "E[manhattan]", "smooth")]


class TestScores:
    def test_tidy_columns(self):
        lc, preds = _small(n_items=10)
        ev = evaluate(lc, preds, metrics=["manhattan", "E[emd]"])
        sc = ev.scores
        assert list(sc.columns) == ["item", "model", "metric", "value", "n_annotations", "bin"]
        assert len(sc) == 2 * 3 * 10
        row = sc.iloc[10 * 3 + 10 + 4]  # metric 1, model 1, item 4
        assert (row["metric"], row["model"], row["item"]) == ("E[emd]", "m1", "it4")
        assert row["value"] == ev.values[1, 1, 4]
        assert row["n_annotations"] == lc.n[4]
        assert isinstance(sc["model"].dtype, pd.CategoricalDtype)
        assert ev.scores is sc  # built once


class TestRankings:
    def test_schema_and_values(self):
        lc, preds = _small()
        ev = evaluate(lc, preds, metrics=["manhattan", "cosine"])
        r = ev.rankings()
        assert list(r.columns) == ["metric", "model", "mean", "rank", "tied"]
        cos = r[r.metric == "cosine"]
        assert cos.sort_values("mean", ascending=False)["rank"].tolist() == [1, 2, 3]
        man = r[r.metric == "manhattan"]
        assert man.sort_values("mean")["rank"].tolist() == [1, 2, 3]


class TestReversals:
    def test_finds_exactly_the_constructed_reversal(self, reversal_eval):
        rev = reversal_eval.reversals(n_resamples=1000)
        assert len(rev) == 1
        row = rev.iloc[0]
        assert (row.metric_1, row.metric_2) == ("manhattan", "E[manhattan]")
        assert (row.model_a, row.model_b) == ("sharp", "smooth")
        assert (row.better_1, row.better_2) == ("sharp", "smooth")
        assert row.diff_1 < 0 < row.diff_2
        assert row.significant_1
        assert row.significant_2
        assert row.ci_high_1 < 0 < row.ci_low_2

    def test_same_resamples_as_differences(self, reversal_eval):
        rev = reversal_eval.reversals(n_resamples=1000).iloc[0]
        d = reversal_eval.differences(n_resamples=1000).set_index(["metric", "model_a", "model_b"])
        assert d.loc[("manhattan", "sharp", "smooth"), "ci_low"] == rev.ci_low_1
        assert d.loc[("E[manhattan]", "sharp", "smooth"), "ci_high"] == rev.ci_high_2

    def test_no_reversal_gives_empty_table_with_columns(self):
        lc, preds = _small()
        ev = evaluate(lc, preds, metrics=["manhattan", "euclidean"])
        rev = ev.reversals(n_resamples=50)
        ranks = ev.rankings().pivot(index="model", columns="metric", values="rank")
        if (ranks["manhattan"] == ranks["euclidean"]).all():
            assert rev.empty
        assert "significant_2" in rev.columns


class TestMetricAgreement:
    def test_table2_format_and_kendall_equals_scipy(self):
        lc, preds = _small(J=5)
        ev = evaluate(lc, preds, metrics=["manhattan", "E[emd]", "cross_entropy"])
        ma = ev.metric_agreement()
        assert list(ma.columns) == [
            "metric_1", "metric_2", "share_reranked", "mean_abs_change", "sd_abs_change", "kendall_tau",
        ]  # fmt: skip
        assert len(ma) == 3
        ranks = ev.rankings().pivot(index="model", columns="metric", values="rank").astype(float)
        for _, row in ma.iterrows():
            r1, r2 = ranks[row.metric_1].to_numpy(), ranks[row.metric_2].to_numpy()
            change = np.abs(r1 - r2)
            assert row.share_reranked == pytest.approx(np.mean(change > 0))
            assert row.mean_abs_change == pytest.approx(change.mean())
            assert row.sd_abs_change == pytest.approx(change.std())
            assert row.kendall_tau == pytest.approx(sps.kendalltau(r1, r2).statistic)

    def test_reversal_example(self, reversal_eval):
        ma = reversal_eval.metric_agreement().iloc[0]
        # sharp and smooth swap positions 1 and 2; uniform stays third
        assert ma.share_reranked == pytest.approx(2 / 3)
        assert ma.mean_abs_change == pytest.approx(2 / 3)
        assert ma.kendall_tau == pytest.approx(1 / 3)


class TestFamilyVerdict:
    """ReportData.family_verdict: the per-family, per-bin, per-prior rankings of the report's detail."""

    def test_is_the_reports_family_table(self, reversal_eval):
        data = reversal_eval.report_data(n_resamples=200, agreement_ci=False, audit=False)
        assert list(data.family_verdict["scope"].unique()) == ["overall", "bin", "prior"]
        pd.testing.assert_frame_equal(reversal_eval.verdict(), data.verdict)

    def test_metric_rows_follow_summary_and_differences(self, reversal_eval):
        data = reversal_eval.report_data(
            n_resamples=200, agreement_ci=False, audit=False, priors=()
        )
        table = data.family_verdict
        summary = reversal_eval.summary(n_resamples=200)
        rows = table[(table["scope"] == "overall") & table["metric"].notna()].set_index("metric")
        diffs = reversal_eval.differences(n_resamples=200)
        for metric in reversal_eval.metrics:
            best = summary[(summary["metric"] == metric) & summary["best"]]["model"].tolist()
            assert rows.loc[metric, "best"] == " = ".join(best)
            d = diffs[diffs["metric"] == metric]
            pair = {best[0], rows.loc[metric, "runner_up"]}
            hit = d[d["model_a"].isin(pair) & d["model_b"].isin(pair)].iloc[0]
            assert abs(rows.loc[metric, "lead"]) == pytest.approx(abs(hit["diff"]))
            assert rows.loc[metric, "significant"] == (hit["ci_low"] > 0 or hit["ci_high"] < 0)
        # sharp wins the pointwise metric, smooth the expected one: one family each
        families = table[(table["scope"] == "overall") & table["metric"].isna()]
        assert families.set_index("family")["best"].to_dict() == {
            "pointwise": "sharp",
            "expected": "smooth",
        }
        assert (families["wins"] == 1).all()
        assert (families["n_metrics"] == 1).all()

    def test_prior_rows_read_prior_sensitivity(self, reversal_eval):
        data = reversal_eval.report_data(
            n_resamples=100, agreement_ci=False, audit=False, priors=("jeffreys",)
        )
        table = data.family_verdict
        sens = reversal_eval.prior_sensitivity(("jeffreys",), n_resamples=100)
        rows = table[(table["scope"] == "prior") & table["metric"].notna()]
        assert list(rows["prior"]) == ["uniform", "jeffreys"]
        for r in rows.itertuples():
            best = sens[(sens["prior"] == r.prior) & (sens["metric"] == r.metric) & sens["best"]]
            assert r.best == " = ".join(best["model"])
            assert r.significant == bool(best["significant"].all())


class TestVerdict:
    """Evaluation.verdict(): one answer per metric, on the evidence that supports it."""

    def test_one_answer_per_pointwise_metric(self, reversal_eval):
        table = reversal_eval.verdict(n_replicas=40)
        # manhattan and E[manhattan] are two estimators of one metric: one answer
        assert table["metric"].tolist() == ["manhattan"]
        row = table.iloc[0]
        assert row["basis"] == "selection"
        # the fixed rule docs/estimator_selection.md supports, whatever the bootstrap prefers;
        # the bootstrap's measurements of that estimator are reported with it
        assert row["estimator"] == "debiased"
        assert row["form"] == "debiased[manhattan]"
        sel = reversal_eval.estimator_selection(metrics=["manhattan"], n_replicas=40)
        mine = sel[sel["estimator"] == "debiased"].iloc[0]
        assert row["p_best"] == mine["p_best"]
        assert row["p_correct_order"] == mine["p_correct_order"]
        assert "debiased estimator: the best fixed choice in our simulation" in row["sentence"]
        assert row["best"] != row["runner_up"]
        assert row["sentence"].startswith(f"{row['best']} ranks above {row['runner_up']}")
        assert "cannot be estimated without bias" in row["sentence"]

    def test_best_is_the_selected_estimators_best(self, reversal_eval):
        row = reversal_eval.verdict(n_replicas=40).iloc[0]
        form = row["form"]
        if form in reversal_eval.metrics and not form.startswith("E["):
            means = reversal_eval.summary(n_resamples=50).query("metric == @form")
            assert means.sort_values("mean")["model"].iloc[0] == row["best"]

    def test_lines_end_on_the_posterior_view(self, reversal_eval):
        lines = reversal_eval.verdict_lines(n_replicas=40)
        assert len(lines) == 2
        assert "posterior view under the uniform prior" in lines[-1]

    def test_polynomial_metrics_answer_with_the_true_difference(self):
        lc, preds = _small(J=3, n_items=200)
        ev = evaluate(lc, preds, metrics=["rps", "E[rps]", "squared_euclidean", "emd"])
        table = ev.verdict(n_replicas=20).set_index("metric")
        assert table.index.tolist() == ["rps", "squared_euclidean", "emd"]
        true = ev.true_differences()
        for metric in ("rps", "squared_euclidean"):
            row = table.loc[metric]
            assert row["basis"] == "true difference"
            assert row["estimator"] == "unbiased"
            a, b = row["best"], row["runner_up"]
            means = ev.summary(n_resamples=50).query("metric == @metric").set_index("model")["mean"]
            assert means[a] == means.min()
            hit = true[(true["metric"] == metric) & true["model_a"].isin([a, b])
                       & true["model_b"].isin([a, b])].iloc[0]  # fmt: skip
            sign = 1.0 if hit["model_a"] == a else -1.0
            assert row["diff"] == pytest.approx(sign * hit["diff"])
            assert row["diff"] <= 0  # a is better: lower
            told = row["ci_high"] < 0
            assert row["sentence"].startswith(
                f"{a} is better than {b} on the true distribution under {metric}, P = "
                if told
                else f"{a} and {b} cannot be told apart on the true distribution under {metric}"
            )
            assert row["sentence"].endswith("(unbiased estimator).")
        assert table.loc["emd", "basis"] == "selection"
        assert "RPS is the ordinal metric" in table.loc["emd", "sentence"]

    def test_an_infinite_mean_is_not_scored(self):
        lc, preds = _small(J=3)
        zero = preds["m0"].values.copy()
        zero[:5, 0] = 0.0
        zero /= zero.sum(axis=1, keepdims=True)
        counts = lc.values.copy()
        counts[:5, 0] += 1  # an annotation where m0 predicts 0
        lc2 = LabelCounts.from_array(counts, items=lc.items, scale=lc.scale)
        preds["m0"] = Predictions.from_array(zero, items=lc.items)
        ev = evaluate(lc2, preds, metrics=["cross_entropy", "manhattan"])
        table = ev.verdict(n_replicas=20).set_index("metric")
        ce = table.loc["cross_entropy"]
        assert ce["not_scored"] == "m0 (5 items infinite)"
        assert "m0" not in {ce["best"], ce["runner_up"]}
        assert "not scored: m0 (5 items infinite)" in ce["sentence"]
        assert "inf" not in ce["sentence"].replace("infinite", "")
        assert table.loc["manhattan", "not_scored"] == ""


class TestTablesPrintWhole:
    """Every summary-sized table prints without pandas' ``...`` truncation."""

    @pytest.mark.parametrize("method", ["summary", "differences", "reversals", "metric_agreement"])
    def test_no_truncation(self, method):
        lc, preds = _small(J=8)
        ev = evaluate(lc, preds, metrics=["manhattan", "E[emd]", "cross_entropy", "E[manhattan]"])
        kwargs = {} if method == "metric_agreement" else {"n_resamples": 50}
        table = getattr(ev, method)(**kwargs)
        assert isinstance(table, FullFrame)
        assert len(table) > 4  # longer than the display limit below
        with pd.option_context("display.max_rows", 4, "display.max_columns", 3):
            text = repr(table)
            page = table._repr_html_()
        assert "..." not in text
        assert "..." not in page
        assert text == table.to_string()


class TestCompare:
    def test_wilcoxon_equals_scipy(self, reversal_eval):
        res = reversal_eval.compare("sharp", "smooth", "E[manhattan]")
        x, y = reversal_eval.values[1, 0], reversal_eval.values[1, 1]
        exp = sps.wilcoxon(x, y)
        assert res.statistic == exp.statistic
        assert res.pvalue == exp.pvalue
        assert res.diff == pytest.approx(np.mean(x - y))

    def test_bootstrap_and_permutation(self, reversal_eval):
        boot = reversal_eval.compare(
            "sharp", "smooth", "manhattan", test="bootstrap", n_resamples=999
        )
        assert boot.confidence_interval.high < 0
        assert boot.pvalue < 0.01
        perm = reversal_eval.compare(
            "sharp", "uniform", "manhattan", test="permutation", n_resamples=999
        )
        assert perm.pvalue == pytest.approx(2 / 1000)
        again = reversal_eval.compare(
            "sharp", "uniform", "manhattan", test="permutation", n_resamples=999
        )
        assert perm == again

    def test_unknown_names(self, reversal_eval):
        with pytest.raises(ValueError, match="Model 'x' is not in this evaluation"):
            reversal_eval.compare("x", "sharp", "manhattan")
        with pytest.raises(ValueError, match="Metric 'emd' is not in this evaluation"):
            reversal_eval.compare("smooth", "sharp", "emd")
        with pytest.raises(ValueError, match=r"'test' parameter of Evaluation\.compare"):
            reversal_eval.compare("smooth", "sharp", "manhattan", test="t")  # type: ignore[arg-type]


class TestPairwiseTests:
    def test_holm_within_metric(self, reversal_eval):
        pt = reversal_eval.pairwise_tests()
        assert list(pt.columns) == [
            "metric",
            "model_a",
            "model_b",
            "diff",
            "statistic",
            "p",
            "p_adjusted",
            "reject",
        ]
        assert len(pt) == 2 * 3
        for _, block in pt.groupby("metric"):
            np.testing.assert_allclose(
                block["p_adjusted"], multipletests(block["p"], method="holm")[1]
            )
            assert (block["reject"] == (block["p_adjusted"] <= 0.05)).all()

    def test_one_metric_no_correction(self, reversal_eval):
        pt = reversal_eval.pairwise_tests("manhattan", correction=None)
        assert (pt["p"] == pt["p_adjusted"]).all()
        assert set(pt["metric"]) == {"manhattan"}

    def test_nonfinite_scores_give_nan(self):
        lc = LabelCounts.from_array([[2, 1], [0, 3], [1, 1]], scale=Scale.ordinal([0, 1]))
        ev = evaluate(
            lc,
            {
                "zero": [[1.0, 0.0], [0.5, 0.5], [0.5, 0.5]],
                "ok": [[0.6, 0.4], [0.2, 0.8], [0.5, 0.5]],
            },
            metrics=["cross_entropy"],
        )
        pt = ev.pairwise_tests()
        assert np.isnan(pt.loc[0, "p"])
        assert not pt.loc[0, "reject"]

    @pytest.mark.parametrize("test", ["bootstrap", "permutation"])
    def test_bad_n_resamples_raises_like_compare(self, reversal_eval, test):
        # the old code caught every ValueError and returned rows of NaN here
        with pytest.raises(ValueError, match="n_resamples"):
            reversal_eval.compare("sharp", "smooth", "manhattan", test=test, n_resamples=0)
        with pytest.raises(ValueError, match="n_resamples"):
            reversal_eval.pairwise_tests("manhattan", test=test, n_resamples=0)

    def test_other_errors_propagate(self, reversal_eval, monkeypatch):
        def broken(x, y):
            raise ValueError("a bug in the test")

        monkeypatch.setattr("dissensus.evaluation._tables.wilcoxon_test", broken)
        with pytest.raises(ValueError, match="a bug in the test"):
            reversal_eval.pairwise_tests("manhattan")


class TestOutputs:
    def test_tables_follow_the_report_schema(self, reversal_eval):
        # the report's schema is the one definition of these tables' columns
        tables = {
            "summary": reversal_eval.summary(n_resamples=50),
            "differences": reversal_eval.differences(n_resamples=50),
            "by_bin": reversal_eval.by_bin(),
            "rankings": reversal_eval.rankings(),
            "reversals": reversal_eval.reversals(n_resamples=50),
            "metric_agreement": reversal_eval.metric_agreement(),
            "metrics_info": reversal_eval.metrics_info(),
        }
        # the summary adds its count of infinite scores (read by the report when present)
        extra = {"summary": ("n_infinite",)}
        for name, table in tables.items():
            assert tuple(table.columns) == REQUIRED_COLUMNS[name] + extra.get(name, ()), name

    def test_to_json(self, reversal_eval):
        payload = json.loads(reversal_eval.to_json(n_resamples=200))
        assert payload["dataset"]["n_items"] == 400
        assert payload["dataset"]["labels"] == [1, 2]
        assert payload["models"] == ["sharp", "smooth", "uniform"]
        assert len(payload["reversals"]) == 1
        assert {"summary", "differences", "by_bin", "rankings", "metric_agreement"} <= set(payload)

    @pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # tiny on purpose
    def test_json_infinity(self):
        lc = LabelCounts.from_array([[2, 1], [0, 3]], scale=Scale.ordinal([0, 1]))
        ev = evaluate(lc, {"zero": [[1.0, 0.0], [0.5, 0.5]]}, metrics=["cross_entropy"])
        summary = json.loads(ev.to_json(n_resamples=20))["summary"][0]
        assert summary["mean"] == "inf"
        assert summary["ci_low"] is None

    @pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # tiny on purpose
    def test_save_writes_the_files(self, tmp_path):
        lc, preds = _small(n_items=20)
        ev = evaluate(lc, preds, metrics=["manhattan"])
        paths = ev.save(tmp_path, n_resamples=50)
        assert {"summary", "rankings", "scores"} <= set(paths)
        back = pd.read_parquet(paths["scores"])
        assert len(back) == 3 * 20
        assert pd.read_csv(paths["rankings"])["rank"].tolist() == ev.rankings()["rank"].tolist()

    @pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # tiny on purpose
    def test_save_adds_sections_and_files_to_the_set(self, tmp_path):
        lc, preds = _small(n_items=20)
        ev = evaluate(lc, preds, metrics=["manhattan"])
        paths = ev.save(
            tmp_path,
            n_resamples=20,
            scores=False,
            report_sections=[Section("Extra", Paragraph("more"), id="extra")],
            extra_files={"notes.txt": "written with the others\n"},
        )
        page = paths["report"].read_text(encoding="utf-8")
        assert page.index('<section id="extra">\n<h2>Extra</h2>\n<p>more</p>') < page.rindex(
            "</main>"
        )
        assert paths["notes"].read_text(encoding="utf-8") == "written with the others\n"
        assert "notes.txt" in json.loads(paths["manifest"].read_text())["files"]
        with pytest.raises(ValueError, match=r"may not replace \['summary.csv'\]"):
            ev.save(tmp_path / "again", n_resamples=20, extra_files={"summary.csv": ""})
        assert not (tmp_path / "again").exists()

    def test_repr(self, reversal_eval):
        assert repr(reversal_eval).startswith("<Evaluation: 3 models × 2 metrics on 400 items")

    def test_report_data_and_markdown(self, reversal_eval):
        data = reversal_eval.report_data(n_resamples=200)
        assert isinstance(data, ReportData)
        assert data.agreement is not None
        assert {"coefficient", "value", "ci_low"} <= set(data.agreement.columns)
        md = reversal_eval.to_markdown(n_resamples=200)
        assert "E[manhattan]" in md
        assert "smooth" in md

    def test_agreement_without_intervals(self, reversal_eval):
        data = reversal_eval.report_data(n_resamples=100, agreement_ci=False)
        assert data.agreement["ci_low"].isna().all()
        assert data.agreement["value"].notna().any()

    def test_to_html(self, tmp_path):
        lc, preds = _small(n_items=30)
        ev = evaluate(lc, preds, metrics=["manhattan", "E[emd]"])
        html = ev.to_html(tmp_path / "r.html", n_resamples=100)
        assert html.lstrip().lower().startswith("<!doctype html")
        assert (tmp_path / "r.html").read_text(encoding="utf-8") == html


@pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # 20 items keep it fast
class TestWithoutReportExtra:
    """matplotlib blocked: say which extra to install, write nothing."""

    @pytest.fixture
    def no_report_extra(self, monkeypatch):
        # a None entry in sys.modules makes `import name` raise ImportError
        monkeypatch.setitem(sys.modules, "matplotlib", None)

    def test_save_refuses_before_writing(self, tmp_path, no_report_extra):
        lc, preds = _small(n_items=20)
        ev = evaluate(lc, preds, metrics=["manhattan"])
        out = tmp_path / "out"
        with pytest.raises(
            MissingExtraError, match=r"needs matplotlib .*pip install 'dissensus\[report\]'"
        ):
            ev.save(out, n_resamples=20)
        assert not out.exists()

    def test_to_html_refuses(self, tmp_path, no_report_extra):
        lc, preds = _small(n_items=20)
        ev = evaluate(lc, preds, metrics=["manhattan"])
        with pytest.raises(MissingExtraError, match=r"dissensus\[report\]"):
            ev.to_html(tmp_path / "r.html", n_resamples=20)
        assert not (tmp_path / "r.html").exists()

    def test_jinja2_is_not_needed(self, tmp_path, monkeypatch):
        monkeypatch.setitem(sys.modules, "jinja2", None)
        ev = evaluate(*_small(n_items=20), metrics=["manhattan"])
        paths = ev.save(tmp_path, n_resamples=20, scores=False)
        assert paths["report"].read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    def test_markdown_needs_no_extra(self, no_report_extra):
        ev = evaluate(*_small(n_items=20), metrics=["manhattan"])
        assert "manhattan" in ev.to_markdown(n_resamples=20)


@pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # 20 items keep it fast
class TestAgreementTable:
    def test_refused_data_warns_with_the_reason(self, monkeypatch):
        # the old code dropped the table silently
        def refuse(*args, **kwargs):
            raise DataError("every item has one annotation")

        monkeypatch.setattr("dissensus.agreement.report", refuse)
        ev = evaluate(*_small(n_items=20), metrics=["manhattan"])
        with pytest.warns(DegenerateAgreementWarning, match="every item has one annotation"):
            data = ev.report_data(n_resamples=20)
        assert data.agreement is None

    def test_other_errors_propagate(self, monkeypatch):
        def broken(*args, **kwargs):
            raise ValueError("a bug")

        monkeypatch.setattr("dissensus.agreement.report", broken)
        ev = evaluate(*_small(n_items=20), metrics=["manhattan"])
        with pytest.raises(ValueError, match="a bug"):
            ev.report_data(n_resamples=20)


# ----------------------------------------------------------------------------- robustness to the prior


@pytest.fixture(scope="module")
def sparse_eval() -> Evaluation:
    """Issue 12's setting: 5 classes, 2–7 annotations, flat and noisy-observed predictions."""
    rng = np.random.default_rng(12)
    N, K = 150, 5
    n = rng.choice([2, 3, 3, 3, 4, 5, 6, 7], size=N)
    counts = np.stack(
        [rng.multinomial(k, q) for k, q in zip(n, rng.dirichlet(np.full(K, 0.3), N), strict=True)]
    )
    items = [f"it{i}" for i in range(N)]
    lc = LabelCounts.from_array(counts, items=items, scale=Scale.nominal(list("abcde")))
    obs = counts / counts.sum(axis=1, keepdims=True)
    preds = {
        "uniform": np.full((N, K), 1 / K),
        "noisy": 0.7 * obs + 0.3 * rng.dirichlet(np.ones(K), N),
    }
    return evaluate(
        lc,
        preds,
        metrics=["cross_entropy", "manhattan", "E[cross_entropy]", "E[manhattan]"],
        prior="uniform",  # the tests compare the uniform prior (own) with the others
    )


class TestPriorFit:
    def test_strength_share_and_likelihood(self, sparse_eval):
        fit = sparse_eval.prior_fit()
        assert fit["prior"].tolist()[:2] == ["uniform", "jeffreys"]
        assert fit["prior"].iloc[2].startswith("empirical (strength ")
        assert fit["used"].tolist() == [True, False, False]
        assert fit["strength"].tolist()[:2] == [5.0, 2.5]
        n = sparse_eval.n_annotations
        assert fit["share_items_weak"].iloc[0] == pytest.approx(np.mean(n <= 5))
        assert fit["log_likelihood"].iloc[1] == pytest.approx(
            marginal_log_likelihood(sparse_eval.counts, prior="jeffreys")
        )
        assert fit["log_likelihood"].iloc[2] == fit["log_likelihood"].max()


class TestPriorSensitivity:
    def test_own_prior_matches_summary_and_others_match_a_fresh_evaluation(self, sparse_eval):
        table = sparse_eval.prior_sensitivity(n_resamples=100)
        assert set(table["metric"]) == {"E[cross_entropy]", "E[manhattan]"}
        summary = sparse_eval.summary(n_resamples=100).set_index(["metric", "model"])
        own = table[table["prior"] == "uniform"].set_index(["metric", "model"])
        for key, row in own.iterrows():
            assert row["mean"] == summary.loc[key, "mean"]
            assert row["ci_low"] == summary.loc[key, "ci_low"]
        fresh = (
            evaluate(
                sparse_eval.counts,
                {m: sparse_eval.predictions[j] for j, m in enumerate(sparse_eval.models)},
                metrics=["E[cross_entropy]", "E[manhattan]"],
                prior="jeffreys",
            )
            .summary(n_resamples=100)
            .set_index(["metric", "model"])
        )
        jeffreys = table[table["prior"] == "jeffreys"].set_index(["metric", "model"])
        for key, row in jeffreys.iterrows():
            assert row["mean"] == pytest.approx(fresh.loc[key, "mean"], rel=1e-12)
            assert row["ci_low"] == pytest.approx(fresh.loc[key, "ci_low"], rel=1e-12)

    def test_one_best_per_prior_and_metric(self, sparse_eval):
        table = sparse_eval.prior_sensitivity(n_resamples=100)
        assert (table.groupby(["prior", "metric"])["best"].sum() == 1).all()
        assert sparse_eval.prior_sensitivity(n_resamples=100) is table  # computed once

    def test_significance_agrees_with_differences(self, sparse_eval):
        table = sparse_eval.prior_sensitivity(n_resamples=100)
        diffs = sparse_eval.differences(n_resamples=100).set_index("metric")
        own = table[(table["prior"] == "uniform") & table["best"]].set_index("metric")
        for metric, row in own.iterrows():
            d = diffs.loc[metric]
            assert bool(row["significant"]) == bool(d["ci_low"] > 0 or d["ci_high"] < 0)


class TestReversalItems:
    def test_items_push_both_ways(self, sparse_eval):
        items = sparse_eval.reversal_items(n_items=3)
        assert not items.empty
        for name, block in items.groupby("reversal"):
            first = block.iloc[0]
            m1, m2 = first["metric_1"], first["metric_2"]
            a, b = name.split(":")[0].split(" vs ")
            winner_1, winner_2 = first["better_1"], first["better_2"]
            assert {winner_1, winner_2} == {a, b}
            scores = sparse_eval.scores.set_index(["metric", "model", "item"])["value"]
            for item in block["item"].unique():
                # lower is better for both metrics here
                assert (
                    scores[(m1, winner_1, item)]
                    < scores[(m1, {a, b}.difference([winner_1]).pop(), item)]
                )
                assert (
                    scores[(m2, winner_2, item)]
                    < scores[(m2, {a, b}.difference([winner_2]).pop(), item)]
                )
            sums = block.groupby(["item", "series"])["value"].sum()
            np.testing.assert_allclose(sums.to_numpy(), 1.0, atol=1e-9)
            assert set(block["series"]) == {"observed", "posterior mean", *sparse_eval.models}


class TestFewResamplesAndItems:
    def test_one_resample_is_refused(self):
        lc, preds = _small(n_items=40)
        ev = evaluate(lc, preds, metrics=["manhattan"])
        with pytest.raises(ValueError, match="at least 2"):
            ev.summary(n_resamples=1)

    def test_a_single_item_interval_warns(self):
        lc = LabelCounts.from_array([[2, 1]], scale=Scale.ordinal([0, 1]))
        ev = evaluate(lc, {"m": [[0.6, 0.4]]}, metrics=["manhattan"])
        with pytest.warns(FewItemsWarning, match="only 1 item"):
            s = ev.summary(n_resamples=50)
        assert s.loc[0, "ci_low"] == s.loc[0, "ci_high"]  # the zero width the warning is about

    def test_enough_items_do_not_warn(self):
        lc, preds = _small(n_items=40)
        evaluate(lc, preds, metrics=["manhattan"]).summary(n_resamples=50)  # filterwarnings=error


class TestSaveScores:
    def test_row_groups_hold_the_tidy_scores(self, tmp_path):
        lc, preds = _small(n_items=40)
        ev = evaluate(lc, preds, metrics=["manhattan", "emd"])
        paths = ev.save(tmp_path, n_resamples=20)
        back = pd.read_parquet(paths["scores"])
        pd.testing.assert_frame_equal(back.astype(object), ev.scores.astype(object))
        for col in ("item", "model", "metric", "bin"):
            assert isinstance(back[col].dtype, pd.CategoricalDtype)
            assert list(back[col].cat.categories) == list(ev.scores[col].cat.categories)

        assert pq.ParquetFile(paths["scores"]).num_row_groups == 2 * len(preds)

    def test_without_scores(self, tmp_path):
        lc, preds = _small(n_items=40)
        paths = evaluate(lc, preds, metrics=["manhattan"]).save(
            tmp_path, n_resamples=20, scores=False
        )
        assert "scores" not in paths
        assert not (tmp_path / "scores.parquet").exists()


@pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # 30 items keep it fast
class TestMetricAudit:
    """The report's appendix: the property audit of the metrics used, cached per metric and K."""

    METRICS = ("manhattan", "kl_divergence", "E[manhattan]", "debiased[manhattan]")

    def test_statuses_for_the_evaluations_classes(self):
        ev = evaluate(*_small(n_items=30, K=3), metrics=list(self.METRICS))
        table = ev.metric_audit()
        status = table.set_index(["metric", "property"])["status"]
        assert status["manhattan", "P3"] == "holds"
        assert status["kl_divergence", "P3"] == "violated"
        assert status["kl_divergence", "P1"] == "violated"
        # the triangle inequality compares predictions with targets: not for expected metrics
        assert status["E[manhattan]", "P3"] == "not applicable"
        # debiased metrics take counts; the audit refuses them, the appendix leaves them out
        assert set(table["metric"]) == {"manhattan", "kl_divergence", "E[manhattan]"}
        assert set(table["classes"]) == {3}
        assert set(table["n_trials"]) == {REPORT_AUDIT_TRIALS}
        assert table.loc[table["property"] == "P3", "title"].eq("triangle inequality").all()
        violated = table[table["status"] == "violated"]
        assert (violated["counterexample"].str.len() > 0).all()

    def test_no_process_cache(self, monkeypatch):
        # issue 23: a process-global cache keyed by metric name made results depend on
        # which test ran first; every call audits the metrics it is given, afresh
        real = dissensus.audit.audit
        calls: list[tuple[tuple[str, ...], int, int]] = []

        def counting(metric, *, classes, n_trials, seed):
            calls.append((tuple(metric), classes, n_trials))
            return real(metric, classes=classes, n_trials=n_trials, seed=seed)

        monkeypatch.setattr(dissensus.audit, "audit", counting)
        ev = evaluate(*_small(n_items=30, K=3), metrics=["manhattan", "kl_divergence"])
        first = ev.metric_audit(n_trials=300)
        second = ev.metric_audit(n_trials=300)
        assert calls == [(("manhattan", "kl_divergence"), 3, 300)] * 2
        pd.testing.assert_frame_equal(first, second)
        evaluate(*_small(n_items=30, K=4), metrics=["manhattan"]).metric_audit(n_trials=300)
        assert calls[-1] == (("manhattan",), 4, 300)

    def test_html_appendix_and_switch(self):
        ev = evaluate(*_small(n_items=30, K=3), metrics=["manhattan", "kl_divergence"])
        html = ev.to_html(n_resamples=20, agreement_ci=False)
        appendix = html[html.index('<details id="audit-appendix">') :]
        appendix = appendix[: appendix.index("</details>")]
        assert "K = 3 classes" in appendix
        assert "2,000 seeded trials" in appendix
        assert "dissensus audit --classes 3" in appendix
        assert "docs/audit.md" in appendix
        row = appendix[appendix.index('<th scope="row" class="txt">manhattan</th>') :]
        cells = re.findall(r'<td class="mid">(.)</td>', row.split("</tr>")[0])
        assert len(cells) == len(PROPERTIES)
        keys = [p.key for p in PROPERTIES]
        assert cells[keys.index("P3")] == "✓"
        assert "P3 triangle inequality" in appendix
        assert 'id="audit-counterexamples-table"' in appendix
        off = ev.to_html(n_resamples=20, agreement_ci=False, audit=False)
        assert "audit-appendix" not in off
        assert ev.report_data(n_resamples=20, agreement_ci=False, audit=False).metric_audit is None

    def test_markdown_section(self):
        ev = evaluate(*_small(n_items=30, K=3), metrics=["manhattan", "kl_divergence"])
        md = ev.to_markdown(n_resamples=20, agreement_ci=False)
        section = md[md.index("## Appendix: properties of these metrics") :]
        assert "K = 3 classes" in section
        assert "`dissensus audit --classes 3`" in section
        header = next(line for line in section.splitlines() if line.startswith("| Metric | P1"))
        keys = [c.strip() for c in header.strip("|").split("|")]
        p3 = keys.index("P3")
        rows = {
            cells[0]: cells
            for line in section.splitlines()
            if line.startswith("| ")
            and (cells := [c.strip() for c in line.strip("|").split("|")])[0]
            in ("manhattan", "kl_divergence")
            and len(cells) == len(keys)
        }
        assert rows["manhattan"][p3] == "✓"
        assert rows["kl_divergence"][p3] == "✗"
        assert "**The simplest counterexample found for each violation**" in section
        assert "| kl_divergence | P3 triangle inequality | p = [" in section
        off = ev.to_markdown(n_resamples=20, agreement_ci=False, audit=False)
        assert "properties of these metrics" not in off

    def test_only_debiased_metrics_no_appendix(self):
        ev = evaluate(*_small(n_items=30, K=3), metrics=["debiased[manhattan]"])
        assert ev.metric_audit().empty
        assert ev.report_data(n_resamples=20, agreement_ci=False, priors=()).metric_audit is None


class TestMemoryLeanTablesAreTheSame:
    """Tables computed a piece at a time (memory) equal the all-at-once formulas, bit for bit."""

    @pytest.fixture(scope="class")
    @classmethod
    def ev(cls):
        rng = np.random.default_rng(11)
        n = 400
        C = np.stack(
            [rng.multinomial(int(k), rng.dirichlet(np.ones(5))) for k in rng.integers(1, 8, n)]
        )
        counts = LabelCounts.from_array(C, scale=Scale.ordinal([1, 2, 3, 4, 5]))
        p = (C + 0.5) / (C + 0.5).sum(axis=1, keepdims=True)
        sharp = np.eye(5)[C.argmax(axis=1)] * 0.95 + 0.01  # good under L1, bad under CE
        flat = (0.5 * p + 0.1) / (0.5 * p + 0.1).sum(axis=1, keepdims=True)
        mixed = 0.7 * p + 0.3 * rng.dirichlet(np.ones(5), size=n)
        return evaluate(counts, {"sharp": sharp, "flat": flat, "mixed": mixed})

    def test_reversal_item_weights_match_the_block_formula(self, ev):
        table = ev.reversal_items()
        assert not table.empty  # the fixture has reversals
        rev = np.asarray(order_reversals(ev._means, lower_is_better=ev._lower)).reshape(-1, 4)
        oriented = np.where(ev._lower[:, None, None], ev.values, -ev.values)
        adv = oriented[rev[:, 0], rev[:, 3]] - oriented[rev[:, 0], rev[:, 2]]
        adv2 = oriented[rev[:, 1], rev[:, 3]] - oriented[rev[:, 1], rev[:, 2]]
        z1 = np.sign(np.nanmean(adv, axis=1))[:, None] * adv
        z2 = np.sign(np.nanmean(adv2, axis=1))[:, None] * adv2
        z1 = z1 / np.nanstd(z1, axis=1, keepdims=True)
        z2 = z2 / np.nanstd(z2, axis=1, keepdims=True)
        weight = np.nan_to_num(np.minimum(z1, z2), nan=-np.inf, posinf=np.inf)
        items = list(ev.counts.items)
        for name, rows in table.groupby("reversal", sort=False):
            m1, m2 = (
                ev.metrics.index(rows["metric_1"].iloc[0]),
                ev.metrics.index(rows["metric_2"].iloc[0]),
            )
            a, b = (ev.models.index(m) for m in name.split(":")[0].split(" vs "))
            r = int(np.flatnonzero((rev == [m1, m2, a, b]).all(axis=1))[0])
            for item, w in rows.groupby("item", sort=False)["weight"].first().items():
                assert w == weight[r, items.index(item)]

    def test_prior_sensitivity_means_are_the_rescored_means(self, ev):
        table = ev.prior_sensitivity(("uniform", "jeffreys"), n_resamples=50)
        alpha = np.asarray(dirichlet(ev.counts, prior="jeffreys"), dtype=np.float64)
        for row in table[table["prior"].str.startswith("jeffreys")].itertuples():
            j = ev.models.index(row.model)
            want = get_metric(row.metric).func(alpha, ev.predictions[j]).mean()
            assert row.mean == want
        own = table[table["prior"] == table["prior"].iloc[0]]
        for row in own.itertuples():
            m, j = ev.metrics.index(row.metric), ev.models.index(row.model)
            assert row.mean == ev.values[m, j].mean()


class TestPriorDominance:
    def test_evaluate_warns_at_the_callers_line(self):
        rng = np.random.default_rng(0)
        lc = LabelCounts.from_array(rng.multinomial(2, [0.6, 0.2, 0.1, 0.05, 0.05], size=60))
        preds = {"flat": np.full((60, 5), 0.2)}
        with pytest.warns(PriorDominanceWarning, match="prior") as record:
            evaluate(lc, preds, metrics=["E[manhattan]"], prior="uniform")
        assert record[0].filename == __file__

    def test_pointwise_metrics_do_not_check_the_prior(self, recwarn):
        rng = np.random.default_rng(0)
        lc = LabelCounts.from_array(rng.multinomial(2, [0.6, 0.2, 0.1, 0.05, 0.05], size=60))
        evaluate(lc, {"flat": np.full((60, 5), 0.2)}, metrics=["manhattan"], prior="uniform")
        assert not [w for w in recwarn if issubclass(w.category, PriorDominanceWarning)]


class TestTargets:
    @staticmethod
    def _raters(n_items: int = 80, seed: int = 3):
        # three careful annotators and one who answers at random: an annotator model
        # should trust the careful ones
        rng = np.random.default_rng(seed)
        truth = rng.integers(0, 3, n_items)
        rows = []
        for i, t in enumerate(truth):
            for a in range(4):
                lab = t if (a < 3 and rng.random() < 0.9) else rng.integers(0, 3)
                rows.append((f"i{i}", f"a{a}", int(lab)))
        df = pd.DataFrame(rows, columns=["item", "annotator", "label"])
        return Annotations.from_frame(df), truth

    def test_dawid_skene_targets_score_the_pointwise_metrics(self):
        ann, truth = self._raters()
        onehot = np.eye(3)[truth]
        preds = {"truth": onehot, "flat": np.full_like(onehot, 1 / 3)}
        emp = evaluate(ann, preds, metrics=["manhattan", "E[manhattan]"])
        ds = evaluate(ann, preds, metrics=["manhattan", "E[manhattan]"], targets="dawid_skene")
        assert ds.targets == "dawid_skene"
        assert emp.targets == "empirical"
        t = soft_targets(ann, "dawid_skene").values
        np.testing.assert_allclose(ds.values[0, 0], np.abs(t - onehot).sum(axis=1), atol=1e-12)
        # the expected metric models the counts whatever the targets
        np.testing.assert_array_equal(ds.values[1], emp.values[1])
        # the denoised targets are closer to the truth than the raw shares
        assert ds.values[0, 0].mean() < emp.values[0, 0].mean()
        rel = ds.annotator_reliability
        assert rel is not None
        assert rel["accuracy"].idxmin() == "a3"
        assert ds.dataset_info()["targets"] == "dawid_skene"

    def test_user_targets_are_aligned_by_item(self):
        ann, _truth = self._raters(n_items=40)
        counts = ann.counts()
        shares = counts.proportions()
        rev = Predictions.from_array(shares[::-1], items=counts.items[::-1], scale=counts.scale)
        preds = {"flat": np.full((counts.N, 3), 1 / 3)}
        own = evaluate(ann, preds, metrics=["manhattan"], targets=rev)
        emp = evaluate(ann, preds, metrics=["manhattan"])
        np.testing.assert_allclose(own.values, emp.values, atol=1e-15)
        short = Predictions.from_array(shares[1:], items=counts.items[1:], scale=counts.scale)
        with pytest.raises(DataError, match="no row for 1 annotated items"):
            evaluate(ann, preds, metrics=["manhattan"], targets=short)

    def test_annotator_models_need_annotator_ids(self):
        ann, _ = self._raters(n_items=40)
        with pytest.raises(DataError, match="needs Annotations with annotator ids"):
            evaluate(
                ann.counts(), {"f": np.full((40, 3), 1 / 3)}, metrics=["manhattan"], targets="mace"
            )
        with pytest.raises(ValueError, match="'targets' parameter of evaluate"):
            evaluate(ann, {"f": np.full((40, 3), 1 / 3)}, metrics=["manhattan"], targets="vote")

    def test_report_shows_the_annotators(self):
        ann, truth = self._raters(n_items=40)
        ev = evaluate(ann, {"truth": np.eye(3)[truth]}, metrics=["manhattan"], targets="mace")
        page = str(ev.to_html(n_resamples=20, agreement_ci=False, audit=False))
        assert "Pointwise targets" in page
        assert "MACE posterior" in page
        assert 'id="fig-annotators' in page


class TestWeightedSummary:
    def test_inverse_variance_means_of_debiased_metrics(self):
        rng = np.random.default_rng(4)
        C = rng.multinomial(rng.integers(2, 9), [0.5, 0.3, 0.2], size=50)
        lc = LabelCounts.from_array(C)
        preds = {"a": rng.dirichlet([2, 2, 2], size=50), "b": np.full((50, 3), 1 / 3)}
        ev = evaluate(lc, preds, metrics=["manhattan", "debiased[manhattan]"], prior="uniform")
        table = ev.weighted_summary()
        assert table["metric"].unique().tolist() == ["debiased[manhattan]"]
        v = (jackknife_variance(C, preds["a"], metric="manhattan")
             + jackknife_variance(C, preds["b"], metric="manhattan")) / 2  # fmt: skip
        want = inverse_variance_mean(ev.values[1, 0], v)
        row = table.set_index("model").loc["a"]
        assert row["weighted_mean"] == pytest.approx(want.statistic, rel=1e-12)
        assert row["standard_error"] == pytest.approx(want.standard_error, rel=1e-12)
        assert row["mean"] == pytest.approx(ev.values[1, 0].mean(), rel=1e-12)

    def test_no_debiased_metric_gives_an_empty_table(self):
        lc = LabelCounts.from_array([[2, 1], [0, 3], [1, 1]] * 12)
        ev = evaluate(lc, {"a": np.full((36, 2), 0.5)}, metrics=["manhattan"])
        assert ev.weighted_summary().empty
