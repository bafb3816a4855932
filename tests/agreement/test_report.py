"""Tests of dissensus.agreement._report (report, majority_labels)."""

from __future__ import annotations

import numpy as np
import pytest

from dissensus import DataError, DegenerateAgreementWarning, LabelCounts, load_example
from dissensus.agreement import fleiss_kappa, krippendorff_alpha, majority_labels, report
from dissensus.agreement._report import COLUMNS


class TestReport:
    def test_columns_and_values(self) -> None:
        lc = load_example("course_29")
        t = report(lc)
        assert list(t.columns) == list(COLUMNS)
        v = t.set_index("coefficient")["value"]
        assert v["fleiss_kappa"] == pytest.approx(fleiss_kappa(lc).value)
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
            assert kappa[y] == pytest.approx(fleiss_kappa(sub).value)
        assert kappa["all"] == pytest.approx(fleiss_kappa(lc).value)

    def test_ordinal_adds_ac2_and_level(self) -> None:
        lc = load_example("course_29")
        t = report(lc, level="ordinal")
        v = t.set_index("coefficient")["value"]
        assert "gwet_ac2_quadratic" in v.index
        assert v["krippendorff_alpha_ordinal"] == pytest.approx(
            krippendorff_alpha(lc, level="ordinal").value
        )

    def test_ci_columns(self) -> None:
        t = report(load_example("course_29"), ci=0.9, n_boot=200)
        k = t.set_index("coefficient").loc["fleiss_kappa"]
        assert k["ci_low"] < k["value"] < k["ci_high"]

    def test_degenerate_group_noted_and_warned_once(self) -> None:
        lc = LabelCounts.from_array(
            [[2, 0], [3, 0], [1, 1], [0, 2]],
            meta=__import__("pandas").DataFrame({"g": ["a", "a", "b", "b"]}),
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
