"""Tests of dissensus.agreement._pairwise."""

from __future__ import annotations

import itertools
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from scipy.stats import pearsonr
from sklearn.metrics import cohen_kappa_score

from dissensus import Annotations, DegenerateAgreementWarning
from dissensus.agreement import pairwise
from tests.strategies import rater_matrices


class TestPairwise:
    @settings(max_examples=15, deadline=None)
    @given(vals=rater_matrices(max_items=25, max_raters=5, max_k=4))
    def test_matches_sklearn_and_krippendorff_per_pair(self, vals: np.ndarray) -> None:
        R = vals.T - 1.0
        assume(np.isfinite(R).any())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateAgreementWarning)
            pc = pairwise(R, "cohen", min_overlap=2)
            pw = pairwise(R, "weighted_cohen", min_overlap=2, weights="linear")
            pa = pairwise(R, "alpha", min_overlap=2, level="interval")
        K = int(np.nanmax(R)) + 1
        for i, j in itertools.combinations(range(R.shape[1]), 2):
            both = np.isfinite(R[:, i]) & np.isfinite(R[:, j])
            assert pc.overlap.iloc[i, j] == both.sum()
            if both.sum() < 2:
                assert np.isnan(pc.statistic.iloc[i, j])
                continue
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                ref = cohen_kappa_score(R[both, i], R[both, j], labels=list(range(K)))
                refw = cohen_kappa_score(
                    R[both, i], R[both, j], labels=list(range(K)), weights="linear"
                )
            np.testing.assert_allclose(pc.statistic.iloc[i, j], ref, atol=1e-10)
            np.testing.assert_allclose(pw.statistic.iloc[i, j], refw, atol=1e-10)
            a, b = R[both, i], R[both, j]
            if np.unique(np.concatenate([a, b])).size > 1:
                refa = krippendorff.alpha(
                    reliability_data=np.vstack([a, b]), level_of_measurement="interval"
                )
                np.testing.assert_allclose(pa.statistic.iloc[i, j], refa, atol=1e-10)

    def test_symmetric_with_annotator_names(self) -> None:
        df = pd.DataFrame(
            {
                "item": [1, 1, 2, 2, 3, 3, 3, 4, 4],
                "annotator": ["ann", "bob", "ann", "bob", "ann", "bob", "cy", "bob", "cy"],
                "label": ["x", "y", "y", "y", "x", "x", "x", "y", "x"],
            }
        )
        with pytest.warns(DegenerateAgreementWarning, match="1 annotator pairs"):
            p = pairwise(Annotations.from_frame(df))  # ann & cy share one item, both "x"
        assert np.isnan(p.statistic.loc["ann", "cy"])
        assert list(p.statistic.index) == ["ann", "bob", "cy"]
        np.testing.assert_array_equal(p.overlap.to_numpy(), p.overlap.to_numpy().T)
        v = p.statistic.to_numpy()
        np.testing.assert_array_equal(np.isnan(v), np.isnan(v.T))
        np.testing.assert_allclose(v[np.isfinite(v)], v.T[np.isfinite(v.T)])
        assert p.overlap.loc["ann", "cy"] == 1
        assert p.overlap.loc["bob", "bob"] == 4

    def test_min_overlap(self) -> None:
        R = np.array([[0, 0, np.nan], [1, 1, 1], [0, 1, 0], [1, 1, np.nan]])
        p = pairwise(R, min_overlap=3)
        assert np.isnan(p.statistic.iloc[0, 2])
        assert np.isfinite(p.statistic.iloc[0, 1])

    def test_callable(self) -> None:
        R = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 1, 0]], dtype=float)
        p = pairwise(R, lambda a, b: float((a == b).mean()))
        assert p.statistic.iloc[0, 1] == pytest.approx(0.75)
        assert p.measure == "<lambda>"

    def test_degenerate_pair_warns(self) -> None:
        R = np.array([[0, 0], [0, 0], [0, 0]], dtype=float)
        with pytest.warns(DegenerateAgreementWarning, match="undefined coefficient"):
            p = pairwise(R)
        assert np.isnan(p.statistic.iloc[0, 1])

    def test_bad_measure(self) -> None:
        with pytest.raises(ValueError, match="'measure' parameter of pairwise"):
            pairwise([[0, 1]], "kendall")  # type: ignore[arg-type]


class TestPairwisePearson:
    def test_matches_scipy_per_pair_on_numeric_labels(self) -> None:
        rng = np.random.default_rng(3)
        labels = np.array([0.5, 1.0, 2.0, 4.0, 5.0])
        rows = [
            (i, a, float(labels[rng.integers(0, 5)]))
            for i in range(40)
            for a in ("u", "v", "w")
            if rng.random() < 0.8
        ]
        ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
        p = pairwise(ann, "pearson", min_overlap=3)
        wide = pd.DataFrame(rows, columns=["item", "annotator", "label"]).pivot(
            index="item", columns="annotator", values="label"
        )
        for i, j in itertools.combinations(["u", "v", "w"], 2):
            both = wide[[i, j]].dropna()
            ref = pearsonr(both[i], both[j]).statistic
            assert p.statistic.loc[i, j] == pytest.approx(ref, abs=1e-12)

    def test_string_labels_use_scale_positions(self) -> None:
        R = np.array([[0, 0], [1, 2], [2, 1], [2, 2]], dtype=float)
        p = pairwise(R, "pearson")
        assert p.statistic.iloc[0, 1] == pytest.approx(np.corrcoef(R[:, 0], R[:, 1])[0, 1])

    def test_constant_rater_is_nan_with_warning(self) -> None:
        R = np.array([[0, 0], [0, 1], [0, 1]], dtype=float)
        with pytest.warns(DegenerateAgreementWarning):
            p = pairwise(R, "pearson")
        assert np.isnan(p.statistic.iloc[0, 1])


class TestDaskRefused:
    def test_long_dask_frame_is_not_read_as_a_rater_matrix(self) -> None:
        dd = pytest.importorskip("dask.dataframe")
        long = pd.DataFrame(
            {"item": [1, 1, 2, 2], "annotator": ["a", "b"] * 2, "label": [0, 0, 1, 0]}
        )
        with pytest.raises(TypeError, match=r"distributed\.pairwise\(ddf"):
            pairwise(dd.from_pandas(long, npartitions=2))
