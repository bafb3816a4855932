"""Tests of dissensus.agreement._report (report, majority_labels)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dissensus import DataError, DegenerateAgreementWarning, LabelCounts, load_example
from dissensus.agreement import (
    brennan_prediger,
    fleiss_kappa,
    gwet_ac2,
    krippendorff_alpha,
    label_patterns,
    majority_labels,
    report,
    share_unanimous,
)
from dissensus.agreement._report import COLUMNS


class TestReport:
    def test_columns_and_values(self) -> None:
        lc = load_example("course_29")
        t = report(lc)
        assert list(t.columns) == list(COLUMNS)
        v = t.set_index("coefficient")["value"]
        assert v["fleiss_kappa"] == pytest.approx(fleiss_kappa(lc).statistic)
        assert v["observed_agreement"] == pytest.approx(0.5805, abs=1e-4)
        assert v["chance_agreement"] == pytest.approx(0.288, abs=5e-4)
        assert (t["n_items"] == 29).all()

    def test_by_year_one_block_per_group_plus_all(self) -> None:
        lc = load_example("course_reviews")
        t = report(lc, by="year")
        years = sorted(lc.groups("year").unique())
        assert list(t["year"].unique()) == [*years, "all"]
        kappa = t[t["coefficient"] == "fleiss_kappa"].set_index("year")["value"]
        for y in years:
            sub = lc.take((lc.groups("year") == y).to_numpy())
            assert kappa[y] == pytest.approx(fleiss_kappa(sub).statistic)
        assert kappa["all"] == pytest.approx(fleiss_kappa(lc).statistic)

    def test_ordinal_adds_ac2_and_level(self) -> None:
        lc = load_example("course_29")
        t = report(lc, level="ordinal")
        v = t.set_index("coefficient")["value"]
        assert "gwet_ac2_quadratic" in v.index
        assert v["krippendorff_alpha_ordinal"] == pytest.approx(
            krippendorff_alpha(lc, level="ordinal").statistic
        )

    @pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # a small worked example
    def test_ci_columns(self) -> None:
        t = report(load_example("course_29"), confidence_level=0.9, n_resamples=200)
        k = t.set_index("coefficient").loc["fleiss_kappa"]
        assert k["ci_low"] < k["value"] < k["ci_high"]

    @pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # a small worked example
    @pytest.mark.parametrize("ci_method", ["percentile", "bca"])
    def test_intervals_equal_each_coefficients_own(self, ci_method: str) -> None:
        # One weight draw serves every coefficient; with an integer seed it is
        # the draw each coefficient makes on its own.
        lc = load_example("course_reviews")
        t = report(
            lc, level="ordinal", confidence_level=0.9, n_resamples=150, seed=4, method=ci_method
        )
        t = t.set_index("coefficient")
        own = {
            "fleiss_kappa": fleiss_kappa(lc).confidence_interval(
                0.9, n_resamples=150, seed=4, method=ci_method
            ),
            "krippendorff_alpha_ordinal": krippendorff_alpha(
                lc, level="ordinal"
            ).confidence_interval(0.9, n_resamples=150, seed=4, method=ci_method),
            "gwet_ac2_quadratic": gwet_ac2(lc).confidence_interval(
                0.9, n_resamples=150, seed=4, method=ci_method
            ),
            "share_unanimous": share_unanimous(lc).confidence_interval(
                0.9, n_resamples=150, seed=4, method=ci_method
            ),
            "brennan_prediger": brennan_prediger(lc).confidence_interval(
                0.9, n_resamples=150, seed=4, method=ci_method
            ),
        }
        for name, interval in own.items():
            got = (t.loc[name, "ci_low"], t.loc[name, "ci_high"])
            np.testing.assert_allclose(got, tuple(interval), rtol=1e-12, err_msg=name)
        assert (
            t[["ci_low", "ci_high"]]
            .drop(["observed_agreement", "chance_agreement"])
            .notna()
            .all()
            .all()
        )

    @pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # a small worked example
    def test_weights_drawn_once_for_all_coefficients(self) -> None:
        # A Generator seed is consumed by the one draw: every coefficient sees
        # the weights a fresh generator gives to a single coefficient (drawing
        # per coefficient would give the later ones other resamples).
        lc = load_example("course_29")
        t = report(
            lc, confidence_level=0.9, n_resamples=100, seed=np.random.default_rng(7)
        ).set_index("coefficient")
        for name, fn in (("fleiss_kappa", fleiss_kappa), ("brennan_prediger", brennan_prediger)):
            interval = fn(lc).confidence_interval(
                0.9, n_resamples=100, seed=np.random.default_rng(7)
            )
            np.testing.assert_allclose(
                (t.loc[name, "ci_low"], t.loc[name, "ci_high"]), tuple(interval), rtol=1e-12
            )

    @pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # a small worked example
    def test_intervals_per_group(self) -> None:
        lc = load_example("course_reviews")
        t = report(lc, by="year", confidence_level=0.9, n_resamples=100, seed=2)
        k = t[t["coefficient"] == "fleiss_kappa"].set_index("year")
        assert (k["ci_low"] < k["value"]).all()
        assert (k["value"] < k["ci_high"]).all()
        one = lc.take(np.asarray(lc.groups("year") == "2019-20"))
        interval = fleiss_kappa(one).confidence_interval(0.9, n_resamples=100, seed=2)
        assert k.loc["2019-20", "ci_low"] == pytest.approx(interval.low, rel=1e-12)

    def test_bad_ci_options(self) -> None:
        with pytest.raises(ValueError, match="'n_resamples' parameter of report"):
            report(load_example("course_29"), confidence_level=0.9, n_resamples=1)

    def test_degenerate_group_noted_and_warned_once(self) -> None:
        lc = LabelCounts.from_array(
            [[2, 0], [3, 0], [1, 1], [0, 2]],
            meta=pd.DataFrame({"g": ["a", "a", "b", "b"]}),
        )
        with pytest.warns(DegenerateAgreementWarning, match="g=a"):
            t = report(lc, by="g")
        row = t[(t["g"] == "a") & (t["coefficient"] == "fleiss_kappa")].iloc[0]
        assert np.isnan(row["value"])
        assert "chance agreement is 1" in row["note"]

    def test_unknown_group_column(self) -> None:
        with pytest.raises(DataError, match="No item-level column 'year'"):
            report(load_example("course_29"), by="year")


class TestMajorityLabels:
    def test_shows_the_2021_22_anomaly(self) -> None:
        # Seed 002's class judgements: in 2021-22 reviews R2-R4 have the opposite
        # majority of every other year, which no kappa can show (label-permutation
        # invariant per item).
        m = majority_labels(load_example("course_reviews"))
        wide = m.pivot(index="year", columns="review", values="label")
        usual = ["POS", "NEG", "NEG", "POS"]
        for year, row in wide.iterrows():
            if year == "2021-22":
                assert row.tolist() == ["POS", "POS", "POS", "NEG"]
            else:
                assert row.tolist() == usual

    def test_ties_and_empty(self) -> None:
        m = majority_labels([[1, 1], [0, 0], [0, 3]])
        assert m["tie"].tolist() == [True, False, False]
        assert m["label"].iloc[1] is None
        assert np.isnan(m["share"].iloc[1])
        assert m["share"].iloc[2] == 1.0


class TestLabelPatterns:
    def test_flags_the_swapped_year(self) -> None:
        lp = label_patterns(load_example("course_reviews"), by="year")
        assert lp.key == "review"
        assert lp.usual == ("POS", "NEG", "NEG", "POS")
        assert lp.deviations["year"].unique().tolist() == ["2021-22"]
        assert lp.deviations["review"].tolist() == ["R2", "R3", "R4"]
        assert lp.labels.shape == (7, 4)
        assert (lp.shares.to_numpy() > 0.5).all()

    def test_no_deviation_when_groups_agree(self) -> None:
        counts = LabelCounts.from_array(
            [[3, 0], [0, 3], [2, 1], [1, 2]], meta=pd.DataFrame({"g": [1, 1, 2, 2]})
        )
        lp = label_patterns(counts, by="g")
        # no item-level key column: items are matched by position within the group
        assert lp.key == "position"
        assert lp.labels.columns.tolist() == [1, 2]
        assert lp.deviations.empty

    def test_no_usual_pattern_without_a_repeat(self) -> None:
        counts = LabelCounts.from_array(
            [[3, 0], [0, 3], [0, 3], [3, 0]], meta=pd.DataFrame({"g": [1, 1, 2, 2]})
        )
        lp = label_patterns(counts, by="g")
        # two groups, two different patterns: neither is "usual", nothing is flagged
        assert lp.deviations.empty
