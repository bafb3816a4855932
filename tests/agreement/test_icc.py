"""Tests of dissensus.agreement._icc."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pingouin
import pytest
from scipy import stats

from dissensus import Annotations, DataError
from dissensus.agreement import icc

# Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges.
SF = np.array(
    [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
    dtype=float,
)


@pytest.fixture(scope="module")
def pingouin_sf() -> pd.DataFrame:
    long = pd.DataFrame(
        [(i, j, SF[i, j]) for i in range(SF.shape[0]) for j in range(SF.shape[1])],
        columns=["target", "rater", "rating"],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pingouin's deprecated pandas calls, not ours
        out = pingouin.intraclass_corr(long, targets="target", raters="rater", ratings="rating")
    return out.set_index("Type")


class TestIcc:
    @pytest.mark.parametrize(
        ("kind", "expected"),
        # Shrout & Fleiss (1979), Table 4.
        [("1,1", 0.17), ("A,1", 0.29), ("C,1", 0.71), ("1,k", 0.44), ("A,k", 0.62), ("C,k", 0.91)],
    )
    def test_shrout_fleiss(self, kind: str, expected: float) -> None:
        assert float(icc(SF, kind=kind)) == pytest.approx(expected, abs=0.005)

    @pytest.mark.parametrize(
        ("alias", "kind"), [("ICC1", "1,1"), ("ICC2k", "A,k"), ("ICC(3,1)", "C,1")]
    )
    def test_aliases(self, alias: str, kind: str) -> None:
        assert icc(SF, kind=alias).statistic == icc(SF, kind=kind).statistic

    def test_one_way_f_equals_anova(self) -> None:
        r = icc(SF, kind="1,1")
        ref = stats.f_oneway(*SF)
        assert r.parts["F"] == pytest.approx(ref.statistic)
        assert r.pvalue == pytest.approx(ref.pvalue)

    @pytest.mark.parametrize("kind", ["1,1", "A,1", "C,1", "1,k", "A,k", "C,k"])
    def test_ci_contains_estimate(self, kind: str) -> None:
        r = icc(SF, kind=kind)
        assert r.confidence_interval(0.95) is not None
        assert r.confidence_interval(0.95).low < r.statistic < r.confidence_interval(0.95).high

    @pytest.mark.parametrize("kind", ["1,1", "A,1", "C,1", "1,k", "A,k", "C,k"])
    def test_ci_equals_pingouin(self, kind: str, pingouin_sf: pd.DataFrame) -> None:
        # pingouin's intraclass_corr (McGraw & Wong's F intervals, as R's irr::icc) prints
        # its CI95 rounded to 2 decimals, hence abs=0.005; the ICC itself is not rounded
        ref = pingouin_sf.loc[f"ICC({kind})"]
        r = icc(SF, kind=kind)
        assert r.statistic == pytest.approx(ref["ICC"], abs=1e-12)
        assert r.confidence_interval(0.95) is not None
        assert [r.confidence_interval(0.95).low, r.confidence_interval(0.95).high] == pytest.approx(
            list(ref["CI95"]), abs=0.005 + 1e-12
        )

    def test_icc3_ci_published(self) -> None:
        # McGraw & Wong (1996) exact F interval for ICC(C,1) on Shrout-Fleiss data:
        # F = MS_R/MS_E = 11.03 with (5, 15) df.
        r = icc(SF, kind="C,1")
        F = r.parts["F"]
        lo = F / stats.f.ppf(0.975, 5, 15)
        assert r.confidence_interval(0.95) is not None
        assert r.confidence_interval(0.95).low == pytest.approx((lo - 1) / (lo + 3))

    def test_unbalanced_refused_with_advice(self) -> None:
        x = SF.copy()
        x[2, 1] = np.nan
        with pytest.raises(DataError, match="nan_policy='omit'"):
            icc(x)
        r = icc(x, nan_policy="omit")
        assert r.n_items == 5
        assert r.n_items_excluded == 1

    def test_dataframe_and_annotations(self) -> None:
        df = pd.DataFrame(SF, columns=list("abcd"))
        long = df.reset_index(names="item").melt(
            id_vars="item", var_name="annotator", value_name="label"
        )
        ann = Annotations.from_frame(long)
        assert icc(df).statistic == pytest.approx(icc(SF).statistic)
        assert icc(ann).statistic == pytest.approx(icc(SF).statistic)

    def test_bad_kind(self) -> None:
        with pytest.raises(ValueError, match="'kind' parameter of icc"):
            icc(SF, kind="ICC4")

    def test_too_small(self) -> None:
        with pytest.raises(DataError, match="at least 2 complete targets"):
            icc([[1.0, 2.0]])

    def test_scale_invariance(self) -> None:
        for kind in ("1,1", "A,1", "C,k"):
            assert icc(3 * SF + 7, kind=kind).statistic == pytest.approx(
                icc(SF, kind=kind).statistic
            )


class TestWideItemColumn:
    """Issue 23: `icc` on a wide frame counted a column named `item` as a rater."""

    def test_item_column_is_not_a_rater(self):
        df = pd.DataFrame(SF, columns=["j1", "j2", "j3", "j4"])
        with_ids = df.assign(item=np.arange(100, 106))[["item", "j1", "j2", "j3", "j4"]]
        for kind in ("1,1", "A,1", "C,k"):
            got = icc(with_ids, kind=kind)
            assert got.n_annotations == SF.size
            assert got.statistic == pytest.approx(icc(SF, kind=kind).statistic, abs=1e-12)
        reml = icc(with_ids, kind="A,1", method="reml")
        assert reml.n_annotations == SF.size

    def test_item_by_name_and_ambiguous_id(self):
        df = pd.DataFrame(SF, columns=["j1", "j2", "j3", "j4"]).assign(target=list("abcdef"))
        assert icc(df, item="target").n_items == 6
        with pytest.raises(DataError, match="may hold item ids"):
            icc(pd.DataFrame(SF, columns=["id", "j2", "j3", "j4"]))
        assert (
            icc(pd.DataFrame(SF, columns=["id", "j2", "j3", "j4"]), item=None).n_annotations == 24
        )
