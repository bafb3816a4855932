"""Tests of dissensus.agreement._multirater (Fleiss family, AC1/AC2, Brennan-Prediger)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from irrCAC.raw import CAC
from scipy import stats
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from dissensus import DegenerateAgreementWarning, LabelCounts, load_example
from dissensus.agreement import (
    brennan_prediger,
    chance_agreement,
    fleiss_category_kappa,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    observed_agreement,
    share_unanimous,
)
from dissensus.agreement._common import patterns
from dissensus.agreement._multirater import _pa_core, _pe_core, count_core
from tests.strategies import rater_matrices


# irrCAC rounds its estimates to 5 decimals, hence the 1e-5 tolerances.
def _irrcac(R: np.ndarray, k: int) -> object:
    return CAC(pd.DataFrame(R), categories=list(range(1, k + 1)))


class TestFleissKappa:
    def test_seed_worked_example(self) -> None:
        # MLRD lecture notes (seed 002): P_a .5804, P_e .288, kappa .41.
        r = fleiss_kappa(load_example("course_29"))
        assert r.parts["observed_agreement"] == pytest.approx(
            0.5804, abs=1e-4
        )  # .58046, printed truncated
        assert r.parts["chance_agreement"] == pytest.approx(0.288, abs=5e-4)
        assert float(r) == pytest.approx(0.41, abs=5e-3)
        assert r.n_items == 29
        assert r.n_annotations == 116

    @settings(max_examples=60, deadline=None)
    @given(vals=rater_matrices(max_items=25, max_raters=8, max_k=5, missing=False))
    def test_equals_statsmodels_on_complete_data(self, vals: np.ndarray) -> None:
        k = 5
        X = np.stack([(v == vals.T).sum(axis=1) for v in range(1, k + 1)], axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            ref = sm_fleiss(X, method="fleiss")
        if np.isfinite(ref):
            assert fleiss_kappa(X).statistic == pytest.approx(ref, abs=1e-10)
        else:
            with pytest.warns(DegenerateAgreementWarning):
                assert np.isnan(fleiss_kappa(X).statistic)

    @settings(max_examples=25, deadline=None)
    @given(vals=rater_matrices(max_items=20, max_raters=6, max_k=4))
    def test_equals_irrcac_with_missing_ratings(self, vals: np.ndarray) -> None:
        R = vals.T
        R = R[np.isfinite(R).sum(axis=1) >= 2]
        k = 4
        X = np.stack([(v == R).sum(axis=1) for v in range(1, k + 1)], axis=1)
        assume(len(X) >= 2 and (X.sum(axis=0) > 0).sum() >= 2)
        got = fleiss_kappa(X)
        ref = _irrcac(R, k).fleiss()["est"]  # type: ignore[attr-defined]
        assert got.statistic == pytest.approx(ref["coefficient_value"], abs=1e-5 + 1e-12)
        assert got.standard_error == pytest.approx(ref["se"], abs=1e-5 + 1e-12)

    def test_single_rated_items_excluded_with_warning(self) -> None:
        with pytest.warns(DegenerateAgreementWarning, match="1 of 3 items"):
            r = fleiss_kappa([[2, 1], [1, 0], [0, 3]])
        assert r.n_items_excluded == 1
        assert r.n_items == 2

    def test_one_category_everywhere_is_nan(self) -> None:
        with pytest.warns(DegenerateAgreementWarning, match="chance agreement is 1"):
            r = fleiss_kappa([[3, 0], [4, 0]])
        assert np.isnan(float(r))
        assert "expected disagreement is 0" in r.note

    def test_single_annotator_is_nan(self) -> None:
        with (
            pytest.warns(DegenerateAgreementWarning, match="3 of 3 items have fewer than 2"),
            pytest.warns(DegenerateAgreementWarning, match="no item has two or more ratings"),
        ):
            r = fleiss_kappa([[1, 0], [0, 1], [1, 0]])
        assert np.isnan(r.statistic)
        assert r.n_items == 0
        assert r.n_items_excluded == 3

    def test_z_test_two_sided(self) -> None:
        r = fleiss_kappa(load_example("course_29"))
        assert r.z == pytest.approx(r.statistic / r.parts["se0"])
        assert r.pvalue == pytest.approx(2 * stats.norm.sf(abs(r.z)))

    def test_variable_raters_reduce_to_fixed(self) -> None:
        # With the same number of raters on every item, the variable-raters form (per-item
        # n_i) is Fleiss' fixed-raters formula (statsmodels'), here with n = 4 and n = 8:
        # doubling every count keeps the category shares (so P_e) but changes P_a.
        X = load_example("course_29").values
        assert len(set(X.sum(axis=1))) == 1
        for table in (X, 2 * X):
            n = table.sum(axis=1)[0]
            r = fleiss_kappa(table)
            assert r.statistic == pytest.approx(sm_fleiss(table, method="fleiss"), abs=1e-12)
            p_a = ((table * (table - 1)).sum(axis=1) / (n * (n - 1))).mean()
            assert r.parts["observed_agreement"] == pytest.approx(p_a, abs=1e-12)
        one, two = fleiss_kappa(X), fleiss_kappa(2 * X)
        assert two.parts["chance_agreement"] == pytest.approx(one.parts["chance_agreement"])
        assert two.parts["observed_agreement"] > one.parts["observed_agreement"]

    @pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # a small worked example
    def test_ci_and_float(self) -> None:
        r = fleiss_kappa(load_example("course_29"))
        low, high = r.confidence_interval(0.95, n_resamples=500, seed=1)
        assert low < float(r) < high
        assert "fleiss_kappa=0.4103" in repr(r)

    def test_bad_ci_method(self) -> None:
        with pytest.raises(
            ValueError, match=r"'method' parameter of fleiss_kappa\.confidence_interval"
        ):
            fleiss_kappa([[1, 1]]).confidence_interval(0.9, method="normal")  # type: ignore[arg-type]

    def test_bad_ci_level(self) -> None:
        with pytest.raises(
            ValueError,
            match=r"'confidence_level' parameter of fleiss_kappa\.confidence_interval must be in",
        ):
            fleiss_kappa([[1, 1]]).confidence_interval(95)

    def test_dataframe_refused_with_advice(self) -> None:
        with pytest.raises(TypeError, match="say what it holds"):
            fleiss_kappa(pd.DataFrame([[1, 1]]))

    def test_label_permutation_invariant(self) -> None:
        X = load_example("course_29").values
        assert fleiss_kappa(X[:, ::-1]).statistic == pytest.approx(fleiss_kappa(X).statistic)


class TestFleissCategoryKappa:
    def test_weighted_mean_is_overall_kappa(self) -> None:
        # Fleiss (1971): kappa = sum_j p_j q_j kappa_j / sum_j p_j q_j (fixed m).
        lc = load_example("course_29")
        kj = fleiss_category_kappa(lc).to_numpy()
        p = lc.values.sum(axis=0) / lc.values.sum()
        pq = p * (1 - p)
        assert (pq * kj).sum() / pq.sum() == pytest.approx(fleiss_kappa(lc).statistic)

    def test_indexed_by_label(self) -> None:
        s = fleiss_category_kappa(LabelCounts.from_array([[1, 1], [2, 0]], scale=["x", "y"]))
        assert s.index.tolist() == ["x", "y"]


class TestObservedAgreement:
    @pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # a small worked example
    def test_equals_fleiss_part_and_has_ci(self) -> None:
        lc = load_example("course_29")
        r = observed_agreement(lc)
        assert r.statistic == pytest.approx(fleiss_kappa(lc).parts["observed_agreement"])
        assert r.confidence_interval(0.9, n_resamples=300) is not None
        assert (
            r.confidence_interval(0.9, n_resamples=300).low
            < r.statistic
            < r.confidence_interval(0.9, n_resamples=300).high
        )

    def test_seed_five_raters(self) -> None:
        # Seed 002: 5 raters split 3/2 -> 4 of 10 pairs agree.
        assert float(observed_agreement([[3, 2]])) == pytest.approx(0.4)

    def test_nan_without_pairs(self) -> None:
        with (
            pytest.warns(DegenerateAgreementWarning, match="fewer than 2"),
            pytest.warns(DegenerateAgreementWarning, match="no item has two"),
        ):
            assert np.isnan(observed_agreement([[1, 0]]).statistic)


class TestChanceAgreement:
    @pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # a small worked example
    def test_equals_fleiss_part_and_has_ci(self) -> None:
        lc = load_example("course_29")
        r = chance_agreement(lc)
        assert r.statistic == pytest.approx(fleiss_kappa(lc).parts["chance_agreement"])
        assert r.confidence_interval(0.9, n_resamples=300, method="bca") is not None
        assert (
            r.confidence_interval(0.9, n_resamples=300, method="bca").low
            < r.statistic
            < r.confidence_interval(0.9, n_resamples=300, method="bca").high
        )

    @pytest.mark.parametrize(
        ("shares", "expected"),
        # Seed 002's three examples of P_e.
        [([0.5, 0.5], 0.5), ([0.95, 0.05], 0.905), ([0.25] * 4, 0.25)],
    )
    def test_seed_examples(self, shares: list[float], expected: float) -> None:
        X = np.round(np.asarray(shares) * 100).astype(int)[None, :]
        assert float(chance_agreement(X)) == pytest.approx(expected)


class TestShareUnanimous:
    def test_unanimous_share(self) -> None:
        r = share_unanimous([[3, 0], [2, 1], [0, 3], [1, 1]])
        assert float(r) == pytest.approx(0.5)
        assert r.standard_error == pytest.approx(np.sqrt(0.25 / 4))
        assert r.name == "share_unanimous"

    @pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # a small worked example
    def test_ci(self) -> None:
        r = share_unanimous(load_example("course_29"))
        assert r.confidence_interval(0.9, n_resamples=200) is not None
        assert (
            r.confidence_interval(0.9, n_resamples=200).low
            <= r.statistic
            <= r.confidence_interval(0.9, n_resamples=200).high
        )


class TestGwetAc1:
    @settings(max_examples=20, deadline=None)
    @given(vals=rater_matrices(max_items=20, max_raters=5, max_k=4, missing=False))
    def test_equals_irrcac_on_complete_data(self, vals: np.ndarray) -> None:
        # irrCAC (python) counts NaN as a category, so compare on complete data.
        R = vals.T
        k = 4
        X = np.stack([(v == R).sum(axis=1) for v in range(1, k + 1)], axis=1)
        got = gwet_ac1(X)
        ref = _irrcac(R, k).gwet()["est"]  # type: ignore[attr-defined]
        assume(np.isfinite(ref["coefficient_value"]))
        assert got.statistic == pytest.approx(ref["coefficient_value"], abs=1e-5 + 1e-12)
        assert got.standard_error == pytest.approx(ref["se"], abs=1e-5 + 1e-12)

    def test_wald_test_two_sided(self) -> None:
        # Gwet 3x3 table: z = AC1 / se, two-sided p (irrCAC reports a one-sided value).
        r = gwet_ac1(table=[[13, 0, 0], [0, 20, 7], [0, 4, 56]])
        assert r.z == pytest.approx(r.statistic / r.standard_error)
        assert r.pvalue == pytest.approx(2 * stats.norm.sf(abs(r.z)))

    def test_table_and_data_exclusive(self) -> None:
        with pytest.raises(TypeError, match="either `annotations` or `table=`"):
            gwet_ac1([[1, 1]], table=[[1, 0], [0, 1]])
        with pytest.raises(TypeError, match="needs `annotations`"):
            gwet_ac1()

    def test_high_agreement_paradox(self) -> None:
        # Skewed prevalence: kappa collapses, AC1 stays high (Gwet 2008's motivation).
        X = np.array([[2, 0]] * 95 + [[1, 1]] * 4 + [[0, 2]] * 1)
        assert gwet_ac1(X).statistic > 0.9
        assert fleiss_kappa(X).statistic < 0.4


class TestGwetAc2:
    def test_identity_weights_give_ac1(self) -> None:
        X = load_example("course_29")
        assert gwet_ac2(X, weights=np.eye(5)).statistic == pytest.approx(gwet_ac1(X).statistic)

    @settings(max_examples=15, deadline=None)
    @given(vals=rater_matrices(max_items=15, max_raters=4, max_k=4, missing=False))
    def test_equals_irrcac_quadratic(self, vals: np.ndarray) -> None:
        R = vals.T
        k = 4
        X = np.stack([(v == R).sum(axis=1) for v in range(1, k + 1)], axis=1)
        ref = CAC(pd.DataFrame(R), categories=[1, 2, 3, 4], weights="quadratic").gwet()["est"]
        assume(np.isfinite(ref["coefficient_value"]))
        assert gwet_ac2(X, weights="quadratic").statistic == pytest.approx(
            ref["coefficient_value"], abs=1e-5 + 1e-12
        )

    def test_bad_weights(self) -> None:
        with pytest.raises(ValueError, match="'weights' parameter of gwet_ac2"):
            gwet_ac2([[1, 1]], weights="cubic")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=r"a \(2, 2\) matrix"):
            gwet_ac2([[1, 1]], weights=np.eye(3))


class TestBrennanPrediger:
    def test_chance_is_one_over_k(self) -> None:
        r = brennan_prediger(load_example("course_29"))
        assert r.parts["chance_agreement"] == pytest.approx(0.2)

    @settings(max_examples=15, deadline=None)
    @given(vals=rater_matrices(max_items=20, max_raters=5, max_k=4, missing=False))
    def test_equals_irrcac(self, vals: np.ndarray) -> None:
        R = vals.T
        X = np.stack([(v == R).sum(axis=1) for v in range(1, 5)], axis=1)
        ref = _irrcac(R, 4).bp()["est"]  # type: ignore[attr-defined]
        got = brennan_prediger(X)
        assert got.statistic == pytest.approx(ref["coefficient_value"], abs=1e-5 + 1e-12)
        assert got.standard_error == pytest.approx(ref["se"], abs=1e-5 + 1e-12)


class TestOneImplementation:
    """The point estimates and the bootstrap cores share P_a and P_e (one formula each)."""

    @pytest.mark.parametrize(
        ("func", "chance", "weights"),
        [
            (fleiss_kappa, "fleiss", None),
            (gwet_ac1, "gwet", None),
            (brennan_prediger, "uniform", None),
            (gwet_ac2, "gwet", "linear"),
        ],
    )
    def test_core_at_the_observed_weights_is_the_point_estimate(self, func, chance, weights):
        X = load_example("course_29").values
        rows, mult, _ = patterns(X)
        K = X.shape[1]
        core = count_core(weights, chance, K, "t")
        kw = {} if weights is None else {"weights": weights}
        got = core(rows.astype(float), mult[None, :].astype(float))[0]
        assert got == pytest.approx(func(X, **kw).statistic, abs=1e-12)

    def test_parts_match_the_plain_statistics(self):
        X = load_example("course_29").values
        r = fleiss_kappa(X)
        assert observed_agreement(X).statistic == r.parts["observed_agreement"]
        assert chance_agreement(X).statistic == pytest.approx(
            r.parts["chance_agreement"], abs=1e-15
        )
        rows, mult, _ = patterns(X)
        W = mult[None, :].astype(float)
        P = rows.astype(float)
        assert _pa_core(P, W)[0] == pytest.approx(r.parts["observed_agreement"], abs=1e-15)
        assert _pe_core(P, W)[0] == pytest.approx(r.parts["chance_agreement"], abs=1e-15)


class TestPoissonBootstrap:
    def _counts(self) -> LabelCounts:
        X = np.random.default_rng(4).integers(1, 4, (150, 3))
        return LabelCounts.from_array(X, items=[f"i{k}" for k in range(150)])

    def test_interval_follows_items_not_rows(self) -> None:
        c = self._counts()
        perm = np.random.default_rng(0).permutation(c.N)
        a = fleiss_kappa(c)
        b = fleiss_kappa(c.take(perm))
        assert a.statistic == pytest.approx(b.statistic, abs=1e-12)
        assert a.confidence_interval(
            0.9, n_resamples=200, seed=1, bootstrap="poisson"
        ) == pytest.approx(
            b.confidence_interval(0.9, n_resamples=200, seed=1, bootstrap="poisson"), abs=1e-12
        )
        assert (
            a.confidence_interval(0.9, n_resamples=200, seed=1, bootstrap="poisson").low
            < a.statistic
            < a.confidence_interval(0.9, n_resamples=200, seed=1, bootstrap="poisson").high
        )

    def test_close_to_the_multinomial_interval(self) -> None:
        c = self._counts()
        p = gwet_ac1(c).confidence_interval(0.95, n_resamples=1000, seed=1, bootstrap="poisson")
        m = gwet_ac1(c).confidence_interval(0.95, n_resamples=1000, seed=1)
        assert p is not None
        assert m is not None
        assert p.high - p.low == pytest.approx(m.high - m.low, rel=0.2)

    def test_bca_and_generator_seed_refused(self) -> None:
        c = self._counts()
        with pytest.raises(ValueError, match="percentile"):
            fleiss_kappa(c).confidence_interval(0.9, method="bca", bootstrap="poisson")
        with pytest.raises(TypeError, match="int seed"):
            fleiss_kappa(c).confidence_interval(
                0.9, seed=np.random.default_rng(0), bootstrap="poisson"
            )
        with pytest.raises(ValueError, match="bootstrap"):
            fleiss_kappa(c).confidence_interval(0.9, bootstrap="bayes")  # type: ignore[arg-type]
