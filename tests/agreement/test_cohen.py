"""Tests of dissensus.agreement._cohen (Cohen, Scott, Conger, Light)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from irrCAC.raw import CAC
from sklearn.metrics import cohen_kappa_score

from dissensus import Annotations, DataError, DegenerateAgreementWarning, LabelCounts
from dissensus.agreement import (
    cohen_kappa,
    conger_kappa,
    contingency_to_counts,
    fleiss_kappa,
    light_kappa,
    scott_pi,
)
from tests.strategies import rater_matrices

GWET_3X3 = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]  # irrCAC cont3x3abstractors


class TestCohenKappa:
    @pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
    @settings(max_examples=40, deadline=None)
    @given(vals=rater_matrices(max_items=30, max_raters=2, max_k=5))
    def test_equals_sklearn(self, vals: np.ndarray, weights: str | None) -> None:
        a, b = vals[0], vals[1]
        both = np.isfinite(a) & np.isfinite(b)
        assume(both.sum() >= 2)
        labels = sorted(set(a[both]) | set(b[both]))
        # sklearn weights label positions, dissensus label values (Gwet, irrCAC):
        # recode to positions, where the two conventions agree
        a = np.where(np.isfinite(a), np.searchsorted(labels, a), np.nan)
        b = np.where(np.isfinite(b), np.searchsorted(labels, b), np.nan)
        labels = list(range(len(labels)))
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sklearn warns on undefined kappa
            ref = cohen_kappa_score(a[both], b[both], labels=labels, weights=weights)
        if not np.isfinite(ref):
            with pytest.warns(DegenerateAgreementWarning):
                assert np.isnan(cohen_kappa(a, b, weights=weights, labels=labels).statistic)
            return
        r = cohen_kappa(a, b, weights=weights, labels=labels)
        assert r.statistic == pytest.approx(ref, abs=1e-10)
        assert r.n_items == both.sum()
        assert r.n_items_excluded == (~both).sum()

    def test_table_equals_sequences(self) -> None:
        T = np.array(GWET_3X3)
        a = np.repeat(np.arange(3), T.sum(axis=1))
        b = np.concatenate([np.repeat(np.arange(3), row) for row in T])
        r1 = cohen_kappa(a, b, weights="quadratic")
        r2 = cohen_kappa(table=T, weights="quadratic")
        assert r1.statistic == pytest.approx(r2.statistic)
        assert r1.standard_error == pytest.approx(r2.standard_error)

    def test_none_and_nan_are_missing(self) -> None:
        r = cohen_kappa(["x", None, "y", "x", "y"], ["x", "y", float("nan"), "x", "y"])
        assert r.n_items == 3
        assert r.n_items_excluded == 2

    def test_string_labels_and_unknown_label(self) -> None:
        with pytest.raises(DataError, match="not in `labels`"):
            cohen_kappa(["a", "b"], ["a", "c"], labels=["a", "b"])

    def test_length_mismatch(self) -> None:
        with pytest.raises(DataError, match="same length; got 2 and 3"):
            cohen_kappa([1, 2], [1, 2, 3])

    def test_needs_input(self) -> None:
        with pytest.raises(TypeError, match="needs two label sequences"):
            cohen_kappa([1, 2])
        with pytest.raises(TypeError, match="not both"):
            cohen_kappa([1], [1], table=[[1]])

    def test_bad_table(self) -> None:
        with pytest.raises(DataError, match="square"):
            cohen_kappa(table=[[1, 2, 3]])
        with pytest.raises(DataError, match="whole counts"):
            cohen_kappa(table=[[1.5, 0], [0, 1]])

    def test_single_category_is_nan(self) -> None:
        with pytest.warns(DegenerateAgreementWarning, match="chance agreement is 1"):
            r = cohen_kappa(["a", "a"], ["a", "a"])
        assert np.isnan(r.statistic)

    def test_se_against_simulation(self) -> None:
        # The large-sample SE matches the bootstrap spread on a big table.
        T = np.array(GWET_3X3) * 5
        r = cohen_kappa(table=T)
        assert r.confidence_interval(0.6827, n_resamples=2000, seed=2) is not None
        assert (
            r.confidence_interval(0.6827, n_resamples=2000, seed=2).high
            - r.confidence_interval(0.6827, n_resamples=2000, seed=2).low
        ) / 2 == pytest.approx(r.standard_error, rel=0.1)

    def test_ci_methods(self) -> None:
        for method in ("percentile", "bca"):
            r = cohen_kappa(table=GWET_3X3)
            assert r.confidence_interval(0.95, n_resamples=400, method=method) is not None
            assert (
                r.confidence_interval(0.95, n_resamples=400, method=method).low
                < r.statistic
                < r.confidence_interval(0.95, n_resamples=400, method=method).high
            )


class TestScottPi:
    @settings(max_examples=30, deadline=None)
    @given(vals=rater_matrices(max_items=30, max_raters=2, max_k=4, missing=False))
    def test_equals_fleiss_for_two_raters(self, vals: np.ndarray) -> None:
        a, b = vals[0].astype(int) - 1, vals[1].astype(int) - 1
        T = np.zeros((4, 4))
        np.add.at(T, (a, b), 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateAgreementWarning)
            s = scott_pi(table=T).statistic
            f = fleiss_kappa(contingency_to_counts(T)).statistic
        assert s == pytest.approx(f, abs=1e-12, nan_ok=True)

    def test_ci(self) -> None:
        r = scott_pi(table=GWET_3X3)
        assert r.confidence_interval(0.9, n_resamples=300) is not None
        assert (
            r.confidence_interval(0.9, n_resamples=300).low
            < r.statistic
            < r.confidence_interval(0.9, n_resamples=300).high
        )


class TestContingencyToCounts:
    def test_rows(self) -> None:
        lc = contingency_to_counts([[2, 1], [0, 1]], scale=["p", "n"])
        assert isinstance(lc, LabelCounts)
        assert lc.values.tolist() == [[2, 0], [2, 0], [1, 1], [0, 2]]
        assert lc.scale.labels == ("p", "n")


class TestCongerKappa:
    @settings(max_examples=25, deadline=None)
    @given(vals=rater_matrices(max_items=20, max_raters=5, max_k=4))
    def test_equals_irrcac_with_missing(self, vals: np.ndarray) -> None:
        R = vals.T
        R = R[np.isfinite(R).sum(axis=1) >= 2]
        assume(len(R) >= 2)
        assume(np.isfinite(R).any(axis=0).all())
        ref = CAC(pd.DataFrame(R), categories=[1, 2, 3, 4]).conger()["est"]["coefficient_value"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateAgreementWarning)
            got = conger_kappa(R - 1.0).statistic
        assume(np.isfinite(ref) and np.isfinite(got))
        # irrCAC rounds to 5 decimals.
        assert got == pytest.approx(ref, abs=1e-5 + 1e-12)

    @settings(max_examples=25, deadline=None)
    @given(vals=rater_matrices(max_items=20, max_raters=2, max_k=4, missing=False))
    def test_two_raters_is_cohen(self, vals: np.ndarray) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateAgreementWarning)
            c = conger_kappa(vals.T - 1.0).statistic
            k = cohen_kappa(vals[0] - 1, vals[1] - 1, labels=[0, 1, 2, 3]).statistic
        assert c == pytest.approx(k, abs=1e-12, nan_ok=True)

    def test_from_annotations(self) -> None:
        df = pd.DataFrame(
            {
                "item": [1, 1, 1, 2, 2, 2, 3, 3, 3],
                "annotator": list("abc") * 3,
                "label": ["x", "x", "y", "y", "y", "y", "x", "y", "x"],
            }
        )
        ann = Annotations.from_frame(df)
        R = ann.rater_matrix()
        assert conger_kappa(ann).statistic == pytest.approx(conger_kappa(R).statistic)

    def test_counts_refused(self) -> None:
        with pytest.raises(TypeError, match="cannot tell apart"):
            conger_kappa(LabelCounts.from_array([[1, 1]]))

    def test_codes_checked(self) -> None:
        with pytest.raises(DataError, match="label codes"):
            conger_kappa([[0.5, 1.0]])
        with pytest.raises(DataError, match="build Annotations first"):
            conger_kappa(pd.DataFrame({"a": ["x", "y"], "b": ["x", "x"]}))

    def test_ci(self) -> None:
        rng = np.random.default_rng(0)
        R = rng.integers(0, 3, size=(60, 4)).astype(float)
        R[:30, 1] = R[:30, 0]
        r = conger_kappa(R)
        assert r.confidence_interval(0.9, n_resamples=300) is not None
        assert (
            r.confidence_interval(0.9, n_resamples=300).low
            < r.statistic
            < r.confidence_interval(0.9, n_resamples=300).high
        )


class TestLightKappa:
    @settings(max_examples=25, deadline=None)
    @given(vals=rater_matrices(max_items=20, max_raters=5, max_k=4))
    def test_mean_of_pairwise_sklearn(self, vals: np.ndarray) -> None:
        R = vals.T
        R = R[np.isfinite(R).sum(axis=1) >= 2]
        assume(len(R) >= 2)
        kappas = []
        for i, j in itertools.combinations(range(R.shape[1]), 2):
            both = np.isfinite(R[:, i]) & np.isfinite(R[:, j])
            if both.sum() == 0:
                continue
            with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # sklearn warns on undefined kappa
                k = cohen_kappa_score(R[both, i], R[both, j], labels=[1, 2, 3, 4])
            if np.isfinite(k):
                kappas.append(k)
        assume(kappas)
        R = R[:, np.isfinite(R).any(axis=0)]
        assert light_kappa(R - 1.0).statistic == pytest.approx(np.mean(kappas), abs=1e-10)

    def test_ci(self) -> None:
        rng = np.random.default_rng(0)
        R = rng.integers(0, 3, size=(50, 3)).astype(float)
        R[:25, 1] = R[:25, 0]
        r = light_kappa(R)
        assert r.confidence_interval(0.9, n_resamples=200, method="bca") is not None
        assert (
            r.confidence_interval(0.9, n_resamples=200, method="bca").low
            < r.statistic
            < r.confidence_interval(0.9, n_resamples=200, method="bca").high
        )

    def test_single_rater_degenerate(self) -> None:
        with (
            pytest.warns(DegenerateAgreementWarning, match="2 of 2 items have fewer than 2"),
            pytest.warns(DegenerateAgreementWarning, match="fewer than two raters"),
        ):
            r = light_kappa([[0.0], [1.0]])
        assert np.isnan(r.statistic)


class TestCohenNullTest:
    def test_se0_reduces_to_classic_formula(self) -> None:
        # Fleiss, Cohen & Everitt (1969), unweighted: var0 = (pe + pe^2 - sum p_k. p_.k (p_k. + p_.k))
        # / (n (1 - pe)^2).
        T = np.array(GWET_3X3, dtype=float)
        n = T.sum()
        p = T / n
        row, col = p.sum(axis=1), p.sum(axis=0)
        pe = row @ col
        ref = np.sqrt((pe + pe**2 - (row * col * (row + col)).sum()) / (n * (1 - pe) ** 2))
        r = cohen_kappa(table=T)
        assert r.parts["se0"] == pytest.approx(ref)
        assert r.z == pytest.approx(r.statistic / ref)

    def test_z_is_standard_normal_under_independence(self) -> None:
        # Seeded simulation: independent raters, 300 tables of 200 items.
        rng = np.random.default_rng(11)
        z = np.array(
            [
                cohen_kappa(rng.integers(0, 3, 200), rng.integers(0, 3, 200), weights=w).z
                for w in (None, "quadratic")
                for _ in range(150)
            ]
        )
        assert abs(z.mean()) < 0.2
        assert 0.85 < z.std() < 1.15
