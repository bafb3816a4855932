"""Tests of dissensus.agreement._common: patterns and the item bootstrap."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dissensus import Annotations, DataError, LabelCounts, Scale
from dissensus.agreement import _common as common
from dissensus.agreement import fleiss_kappa, gwet_ac2, krippendorff_alpha, report
from dissensus.agreement._common import BootStatistic, bootstrap_cis, patterns, weight_matrix
from dissensus.agreement._multirater import _core
from dissensus.stats._bootstrap import bca_interval, pattern_bootstrap_weights


class TestPatterns:
    def test_roundtrip(self) -> None:
        rng = np.random.default_rng(0)
        X = rng.integers(0, 3, size=(200, 4))
        rows, mult, inverse = patterns(X)
        np.testing.assert_array_equal(rows[inverse], X)
        assert mult.sum() == 200
        assert len(np.unique(rows, axis=0)) == len(rows)

    def test_wide_rows_fall_back(self) -> None:
        X = np.array([[1000, 0] * 20, [0, 1000] * 20, [1000, 0] * 20])
        rows, mult, inverse = patterns(X)
        assert sorted(mult.tolist()) == [1, 2]
        np.testing.assert_array_equal(rows[inverse], X)


class TestWeightMatrix:
    def test_linear_quadratic(self) -> None:
        np.testing.assert_allclose(weight_matrix("linear", 3, "f")[0], [1, 0.5, 0])
        np.testing.assert_allclose(weight_matrix("quadratic", 3, "f")[0], [1, 0.75, 0])


def _simulate(rng: np.random.Generator, n_items: int, n_raters: int, p_agree: float) -> np.ndarray:
    truth = rng.integers(0, 3, size=n_items)
    noise = rng.integers(0, 3, size=(n_items, n_raters))
    R = np.where(rng.random((n_items, n_raters)) < p_agree, truth[:, None], noise)
    return np.stack([(k == R).sum(axis=1) for k in range(3)], axis=1)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_bootstrap_ci_coverage(method: str) -> None:
    # Seeded simulation: the item bootstrap's 90% interval of Fleiss' kappa and alpha
    # covers the population value (from a very large sample) at about the nominal rate.
    rng = np.random.default_rng(20261125)
    big = _simulate(rng, 200_000, 4, 0.6)
    truth_k = fleiss_kappa(big).statistic
    truth_a = krippendorff_alpha(big).statistic
    hits_k = hits_a = 0
    reps = 60
    for _ in range(reps):
        X = _simulate(rng, 80, 4, 0.6)
        seed = int(rng.integers(1 << 31))
        rk = fleiss_kappa(X)
        ra = krippendorff_alpha(X)
        assert rk.confidence_interval(0.9, n_resamples=400, seed=seed, method=method) is not None
        assert ra.confidence_interval(0.9, n_resamples=400, seed=seed, method=method) is not None
        hits_k += (
            rk.confidence_interval(0.9, n_resamples=400, seed=seed, method=method).low
            <= truth_k
            <= rk.confidence_interval(0.9, n_resamples=400, seed=seed, method=method).high
        )
        hits_a += (
            ra.confidence_interval(0.9, n_resamples=400, seed=seed, method=method).low
            <= truth_a
            <= ra.confidence_interval(0.9, n_resamples=400, seed=seed, method=method).high
        )
    # Binomial(60, 0.9) lies in [47, 59] with probability > 0.99.
    assert 47 <= hits_k <= 60
    assert 47 <= hits_a <= 60


@pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")  # a small worked example
def test_ci_with_scale_values_interval() -> None:
    X = np.array([[2, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 2], [1, 0, 1]] * 5)
    lc = LabelCounts.from_array(X, scale=Scale.ordinal([1, 2, 10]))
    r = krippendorff_alpha(lc, level="interval")
    assert r.confidence_interval(0.9, n_resamples=200) is not None
    assert (
        r.confidence_interval(0.9, n_resamples=200).low
        <= r.statistic
        <= r.confidence_interval(0.9, n_resamples=200).high
    )


class TestBootstrapCi:
    def test_bca_jackknife_equals_explicit_leave_one_out(self) -> None:
        rng = np.random.default_rng(4)
        X = rng.integers(0, 3, size=(60, 3))
        X = X[X.sum(axis=1) >= 2]
        rows, mult, _ = patterns(X)
        core = _core(np.eye(3), "fleiss")
        theta = fleiss_kappa(X).statistic
        got = bootstrap_cis(
            [BootStatistic(core, theta)], rows.astype(float), mult, confidence_level=0.9, n_resamples=300,
            seed=3, method="bca",
        )[0]  # fmt: skip
        boot = core(rows.astype(float), pattern_bootstrap_weights(mult, 300, seed=3).astype(float))
        jack = np.array([fleiss_kappa(np.delete(X, i, axis=0)).statistic for i in range(len(X))])
        lo, hi = bca_interval(boot, theta, jack, confidence_level=0.9)
        assert got.low == pytest.approx(float(lo))
        assert got.high == pytest.approx(float(hi))

    def test_chunking_does_not_change_interval(self, monkeypatch: pytest.MonkeyPatch) -> None:
        X = np.array([[2, 1, 0], [0, 3, 0], [1, 1, 1], [0, 0, 3], [3, 0, 0]] * 8)
        ref = krippendorff_alpha(X, level="ordinal")
        monkeypatch.setattr(common, "_CHUNK_FLOATS", 50)
        small = krippendorff_alpha(X, level="ordinal")
        assert ref.confidence_interval(0.9, n_resamples=100, seed=2) == small.confidence_interval(
            0.9, n_resamples=100, seed=2
        )


class TestOrderNeeded:
    """Order-dependent measures refuse text labels with no known order instead of sorting them."""

    @staticmethod
    def _annotations(scale=None) -> Annotations:
        df = pd.DataFrame(
            {
                "item": np.repeat(np.arange(6), 2),
                "annotator": ["a", "b"] * 6,
                "label": [
                    "low",
                    "mid",
                    "mid",
                    "high",
                    "high",
                    "high",
                    "low",
                    "low",
                    "low",
                    "mid",
                    "mid",
                    "high",
                ],
            }
        )
        return Annotations.from_frame(df, scale=scale)

    @pytest.mark.parametrize(
        "call",
        [
            lambda a: krippendorff_alpha(a, level="ordinal"),
            lambda a: gwet_ac2(a, weights="quadratic"),
            lambda a: fleiss_kappa(a, weights="linear"),
            lambda a: report(a, level="ordinal"),
        ],
        ids=["alpha-ordinal", "ac2-quadratic", "kappa-linear", "report-ordinal"],
    )
    def test_refused_without_order(self, call) -> None:
        with pytest.raises(
            DataError, match=r"needs the order of the labels.*--labels.*ordered pandas Categorical"
        ):
            call(self._annotations())

    def test_given_order_is_used(self) -> None:
        given = krippendorff_alpha(self._annotations(["low", "mid", "high"]), level="ordinal")
        cat = pd.Categorical(
            self._annotations().to_frame()["label"], categories=["low", "mid", "high"], ordered=True
        )
        frame = self._annotations().to_frame().assign(label=cat)
        from_categorical = krippendorff_alpha(Annotations.from_frame(frame), level="ordinal")
        assert float(given) == float(from_categorical)
        alphabetical = krippendorff_alpha(
            self._annotations(["high", "low", "mid"]), level="ordinal"
        )
        assert float(given) == pytest.approx(0.5416666666666667)  # low < mid < high
        assert float(alphabetical) == pytest.approx(-0.14583333333333326)  # high < low < mid

    def test_nominal_measures_need_no_order(self) -> None:
        assert np.isfinite(float(krippendorff_alpha(self._annotations())))

    def test_two_labels_need_no_order(self) -> None:
        lc = LabelCounts.from_array([[1, 1], [2, 0], [0, 2]], scale=Scale.nominal(["pos", "neg"]))
        assert np.isfinite(float(krippendorff_alpha(lc, level="ordinal")))
