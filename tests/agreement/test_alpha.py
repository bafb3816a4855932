"""Tests of dissensus.agreement._alpha (krippendorff_alpha)."""

from __future__ import annotations

import tracemalloc
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings

from dissensus import Annotations, DegenerateAgreementWarning, LabelCounts, Scale
from dissensus.agreement import krippendorff_alpha
from dissensus.agreement._alpha import _make_core, quadratic_forms
from dissensus.agreement._common import patterns
from tests.strategies import rater_matrices

LEVELS = ["nominal", "ordinal", "interval", "ratio"]


def _counts(vals: np.ndarray, k: int) -> np.ndarray:
    return np.stack([(vals == v).sum(axis=0) for v in range(1, k + 1)], axis=1)


class TestKrippendorffAlpha:
    @pytest.mark.parametrize("level", LEVELS)
    @settings(max_examples=40, deadline=None)
    @given(vals=rater_matrices(max_items=20, max_raters=6, max_k=5))
    def test_equals_krippendorff_package(self, vals: np.ndarray, level: str) -> None:
        k = int(np.nanmax(vals)) if np.isfinite(vals).any() else 1
        X = _counts(vals, max(k, 2))
        X = X[X.sum(axis=1) >= 2]
        assume(len(X) > 0 and (X.sum(axis=0) > 0).sum() >= 2)
        lc = LabelCounts.from_array(X, scale=list(range(1, X.shape[1] + 1)))
        got = krippendorff_alpha(lc, level=level).statistic
        ref = krippendorff.alpha(
            reliability_data=vals,
            level_of_measurement=level,
            value_domain=list(range(1, X.shape[1] + 1)),
        )
        assert got == pytest.approx(ref, abs=1e-10)

    def test_array_labels_are_positions(self) -> None:
        # For an array the labels are 0..K-1: interval distance between columns 0 and 2 is 4.
        X = np.array([[1, 0, 1], [2, 0, 0], [0, 0, 2], [0, 2, 0]])
        lc = LabelCounts.from_array(X, scale=[0, 1, 2])
        assert krippendorff_alpha(X, level="interval").statistic == pytest.approx(
            krippendorff_alpha(lc, level="interval").statistic
        )

    def test_ordinal_uses_scale_order_not_values(self) -> None:
        X = np.array([[1, 1, 0], [0, 1, 1], [2, 0, 0], [0, 0, 2], [0, 2, 0]])
        a = krippendorff_alpha(
            LabelCounts.from_array(X, scale=Scale.ordinal([1, 2, 3])), level="ordinal"
        )
        b = krippendorff_alpha(
            LabelCounts.from_array(X, scale=Scale.ordinal([1, 10, 100])), level="ordinal"
        )
        assert a.statistic == pytest.approx(b.statistic)

    def test_string_labels_refused_for_interval(self) -> None:
        lc = LabelCounts.from_array([[1, 1], [2, 0]], scale=["lo", "hi"])
        with pytest.raises(TypeError, match="needs numeric labels"):
            krippendorff_alpha(lc, level="interval")

    def test_bad_level(self) -> None:
        with pytest.raises(ValueError, match="'level' parameter of krippendorff_alpha"):
            krippendorff_alpha([[1, 1]], level="cardinal")  # type: ignore[arg-type]

    def test_one_category_is_nan_with_reason(self) -> None:
        with pytest.warns(DegenerateAgreementWarning, match="expected disagreement is 0"):
            r = krippendorff_alpha([[3, 0], [2, 0]])
        assert np.isnan(r.statistic)
        assert "expected disagreement is 0" in r.note

    def test_single_rated_items_excluded_and_counted(self) -> None:
        with pytest.warns(DegenerateAgreementWarning, match="1 of 3 items have fewer than 2"):
            r = krippendorff_alpha([[1, 1], [0, 2], [1, 0]])
        assert r.n_items == 2
        assert r.n_items_excluded == 1
        assert r.n_annotations == 4

    def test_nothing_pairable(self) -> None:
        with (
            pytest.warns(DegenerateAgreementWarning, match="fewer than 2"),
            pytest.warns(DegenerateAgreementWarning, match="nothing is pairable"),
        ):
            r = krippendorff_alpha([[1, 0], [0, 1]])
        assert np.isnan(r.statistic)

    def test_from_annotations(self) -> None:
        df = {
            "item": [1, 1, 2, 2, 3, 3, 3],
            "annotator": ["a", "b", "a", "b", "a", "b", "c"],
            "label": [1, 1, 2, 3, 3, 3, 1],
        }
        ann = Annotations.from_frame(pd.DataFrame(df))
        ref = krippendorff.alpha(
            reliability_data=[[1, 2, 3], [1, 3, 3], [np.nan, np.nan, 1]],
            level_of_measurement="interval",
        )
        assert krippendorff_alpha(ann, level="interval").statistic == pytest.approx(ref, abs=1e-12)

    def test_memory_two_raters_200_continuous_values(self) -> None:
        # The bound: 2 raters x 200 distinct interval values under 50 MB.
        rng = np.random.default_rng(0)
        a = rng.normal(size=200).round(6)
        b = (a + rng.normal(scale=0.3, size=200)).round(6)
        df = pd.DataFrame(
            {
                "item": np.tile(np.arange(200), 2),
                "annotator": np.repeat(["a", "b"], 200),
                "label": np.concatenate([a, b]),
            }
        )
        ann = Annotations.from_frame(df)
        tracemalloc.start()
        r = krippendorff_alpha(ann, level="interval")
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < 50 * 2**20
        ref = krippendorff.alpha(
            reliability_data=np.vstack([a, b]), level_of_measurement="interval"
        )
        assert r.statistic == pytest.approx(ref, abs=1e-9)

    @pytest.mark.parametrize("level", LEVELS)
    def test_ci_brackets_estimate_and_is_seeded(self, level: str) -> None:
        rng = np.random.default_rng(3)
        truth = rng.integers(1, 5, size=200)
        R = np.where(rng.random((200, 4)) < 0.8, truth[:, None], rng.integers(1, 5, (200, 4)))
        X = np.stack([(v == R).sum(axis=1) for v in range(1, 5)], axis=1)
        lc = LabelCounts.from_array(X, scale=[1, 2, 3, 4])
        r1 = krippendorff_alpha(lc, level=level)
        r2 = krippendorff_alpha(lc, level=level)
        assert r1.confidence_interval(0.9, n_resamples=300, seed=5) == r2.confidence_interval(
            0.9, n_resamples=300, seed=5
        )
        assert r1.confidence_interval(0.9, n_resamples=300, seed=5) is not None
        assert (
            r1.confidence_interval(0.9, n_resamples=300, seed=5).low
            < r1.statistic
            < r1.confidence_interval(0.9, n_resamples=300, seed=5).high
        )
        rb = krippendorff_alpha(lc, level=level)
        assert rb.confidence_interval(0.9, n_resamples=300, seed=5, method="bca") is not None
        assert (
            rb.confidence_interval(0.9, n_resamples=300, seed=5, method="bca").low
            < rb.statistic
            < rb.confidence_interval(0.9, n_resamples=300, seed=5, method="bca").high
        )

    def test_bootstrap_matches_explicit_resampling(self) -> None:
        # One resample through the weights equals alpha of the resampled items.
        rng = np.random.default_rng(1)
        X = rng.integers(0, 3, size=(40, 4))
        X = X[X.sum(axis=1) >= 2]
        rows, _, inverse = patterns(X)
        idx = rng.integers(0, len(X), size=len(X))
        w_items = np.bincount(idx, minlength=len(X))
        w = np.bincount(inverse, weights=w_items, minlength=len(rows))
        for level in ("nominal", "ordinal", "interval"):
            v = np.arange(4.0)
            core = _make_core(level, None if level == "ordinal" else v)
            got = core(rows.astype(float), w[None, :].astype(float))[0]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateAgreementWarning)
                ref = krippendorff_alpha(X[idx], level=level).statistic
            assert got == pytest.approx(ref, abs=1e-12)

    @pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
    def test_core_reused_on_new_rows_is_not_stale(self, level) -> None:
        # the old core cached per-row quantities by id(P): a new array allocated where a
        # freed one lived got the freed array's alpha (reproduced 500/500)
        v = np.arange(4.0)
        core = _make_core(level, None if level == "ordinal" else v)
        rng = np.random.default_rng(2)
        W = np.ones((1, 30))
        for _ in range(20):
            P = rng.integers(0, 4, size=(30, 4)).astype(float)
            P[:, 0] += 2  # at least two ratings per row
            fresh = _make_core(level, None if level == "ordinal" else v)(P, W)
            np.testing.assert_array_equal(core(P, W), fresh)
            del P


def _lib_metric(fn):
    """A dissensus distance on values as a ``krippendorff`` DistanceMetric."""

    def metric(v1, v2, i1, i2, n_v, dtype=np.float64):
        return np.asarray(fn(v1, v2), dtype=dtype)

    return metric


USER_DISTANCES = {
    "absolute": lambda c, k: np.abs(c - k),
    "cubed": lambda c, k: np.abs(c - k) ** 3,
    "log_ratio": lambda c, k: np.log(c / k) ** 2,
    "threshold": lambda c, k: (np.abs(c - k) > 1).astype(float),
}


class TestUserDistance:
    @pytest.mark.parametrize("name", list(USER_DISTANCES))
    @settings(max_examples=25, deadline=None)
    @given(vals=rater_matrices(max_items=20, max_raters=5, max_k=5))
    def test_equals_krippendorff_package_callable(self, vals: np.ndarray, name: str) -> None:
        fn = USER_DISTANCES[name]
        k = 5
        X = _counts(vals, k)
        counts = LabelCounts.from_array(X, scale=Scale.ordinal([1, 2, 3, 4, 5]))
        assume((X.sum(axis=1) >= 2).sum() >= 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = krippendorff.alpha(
                reliability_data=vals, value_domain=[1, 2, 3, 4, 5],
                level_of_measurement=_lib_metric(fn),
            )  # fmt: skip
            ours = krippendorff_alpha(counts, distance=fn)
        if not np.isfinite(ref):
            assert np.isnan(ours.statistic)
            return
        assert ours.name == "krippendorff_alpha_custom"
        assert ours.statistic == pytest.approx(ref, abs=1e-10)

    def test_matrix_equals_callable_and_levels(self) -> None:
        X = [[2, 0, 1], [1, 2, 0], [0, 1, 2], [0, 0, 3], [3, 0, 0]]
        v = np.array([0.0, 1.0, 2.0])
        D = (v[:, None] - v[None, :]) ** 2
        by_matrix = krippendorff_alpha(X, distance=D)
        assert by_matrix.statistic == pytest.approx(
            krippendorff_alpha(X, level="interval").statistic
        )
        by_nominal = krippendorff_alpha(X, distance=1.0 - np.eye(3))
        assert by_nominal.statistic == pytest.approx(krippendorff_alpha(X).statistic)

    def test_scalar_function_and_text_labels(self) -> None:
        # A distance written for two scalars (no broadcasting) on text labels.
        far = {("low", "high"), ("high", "low")}

        def dist(a: str, b: str) -> float:
            if a == b:
                return 0.0
            return 4.0 if (a, b) in far else 1.0

        scale = Scale.ordinal(["low", "mid", "high"])
        X = LabelCounts.from_array([[2, 1, 0], [0, 2, 1], [1, 0, 2], [0, 0, 3]], scale=scale)
        D = np.array([[0, 1, 4], [1, 0, 1], [4, 1, 0]], dtype=float)
        assert krippendorff_alpha(X, distance=dist).statistic == pytest.approx(
            krippendorff_alpha(X, distance=D).statistic
        )

    def test_bootstrap_equals_the_level_it_reproduces(self) -> None:
        X = np.random.default_rng(0).multinomial(4, [0.5, 0.3, 0.2], size=60)
        squared = krippendorff_alpha(X, distance=lambda c, k: (c - k) ** 2)
        interval = krippendorff_alpha(X, level="interval")
        assert squared.confidence_interval(0.9, n_resamples=200) is not None
        assert interval.confidence_interval(0.9, n_resamples=200) is not None
        assert squared.confidence_interval(0.9, n_resamples=200).low == pytest.approx(
            interval.confidence_interval(0.9, n_resamples=200).low, abs=1e-12
        )
        assert squared.confidence_interval(0.9, n_resamples=200).high == pytest.approx(
            interval.confidence_interval(0.9, n_resamples=200).high, abs=1e-12
        )

    @pytest.mark.parametrize(
        ("distance", "message"),
        [
            (np.ones((2, 2)), "is not 0 between a label and itself"),
            (np.array([[0.0, 1.0], [2.0, 0.0]]), "is not symmetric"),
            (np.array([[0.0, -1.0], [-1.0, 0.0]]), "has negative values"),
            (np.array([[0.0, np.nan], [np.nan, 0.0]]), "has non-finite values"),
            (np.zeros((3, 3)), r"must be \(2, 2\) for the 2 labels"),
        ],
    )
    def test_bad_distances(self, distance: np.ndarray, message: str) -> None:
        with pytest.raises(ValueError, match=message):
            krippendorff_alpha([[1, 1], [2, 0]], distance=distance)

    def test_level_and_distance_are_exclusive(self) -> None:
        with pytest.raises(ValueError, match="takes a level or a distance, not both"):
            krippendorff_alpha([[1, 1]], level="ordinal", distance=np.zeros((2, 2)))


class TestGwetStandardError:
    @pytest.mark.parametrize("level", ["nominal", "interval", "ratio"])
    @pytest.mark.parametrize("seed", [3, 4])
    def test_equals_irrcac(self, level: str, seed: int) -> None:
        # irrCAC's alpha with weights 1 - delta^2 / max delta^2 is Krippendorff's alpha.
        from irrCAC.raw import CAC  # noqa: PLC0415

        from dissensus.agreement._alpha import _delta  # noqa: PLC0415

        cats = [1, 2, 3, 4]
        rng = np.random.default_rng(seed)
        R = rng.integers(1, 5, (40, 4)).astype(float)
        R[rng.random(R.shape) < 0.25] = np.nan
        R[:, :2] = rng.integers(1, 5, (40, 2))  # every item pairable
        d = _delta(level, np.array(cats, dtype=float))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = CAC(pd.DataFrame(R), weights=1 - d / d.max(), categories=cats, digits=13)
            est = ref.krippendorff()["est"]
        ours = krippendorff_alpha(LabelCounts.from_wide(R, scale=Scale.ordinal(cats)), level=level)
        assert ours.statistic == pytest.approx(est["coefficient_value"], abs=1e-11)
        assert ours.standard_error == pytest.approx(est["se"], abs=1e-11)

    def test_user_distance_has_an_se_and_ordinal_none(self) -> None:
        X = [[2, 1, 0], [0, 2, 1], [1, 0, 2], [0, 0, 3], [3, 0, 0]]
        squared = krippendorff_alpha(X, distance=lambda c, k: (c - k) ** 2)
        assert squared.standard_error == pytest.approx(
            krippendorff_alpha(X, level="interval").standard_error
        )
        assert np.isnan(krippendorff_alpha(X, level="ordinal").standard_error)


class TestQuadraticForms:
    @pytest.mark.parametrize(("K", "per_item"), [(5, 3), (40, 2), (300, 5), (300, 60)])
    def test_sparse_and_dense_paths_agree(self, K: int, per_item: int) -> None:
        rng = np.random.default_rng(K + per_item)
        U = 200
        Pt = np.zeros((K, U))
        for _ in range(per_item):  # a few labels per item: sparse columns
            np.add.at(Pt, (rng.integers(K, size=U), np.arange(U)), 1.0)
        Pt[:, :3] = 0.0  # items without counts
        M = rng.random((K, K))
        M = M + M.T
        dense = ((M @ Pt) * Pt).sum(axis=0)
        np.testing.assert_allclose(quadratic_forms(Pt, M), dense, rtol=1e-13, atol=1e-10)
