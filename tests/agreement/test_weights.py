"""Gwet's named weight schemes and the weighted coefficients, against irrCAC.

irrCAC (``irrCAC.raw.CAC``, ``irrCAC.weights.Weights``) is the reference
implementation of Gwet's (2014) weighted coefficients; ``digits=13`` keeps its
rounding below the tolerances used here.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC
from irrCAC.weights import Weights

from dissensus import Annotations, DataDroppedWarning, LabelCounts, Scale
from dissensus.agreement import (
    agreement_weights,
    brennan_prediger,
    cohen_kappa,
    conger_kappa,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
)

SCHEMES = ["identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"]
CATEGORY_SETS = [[1, 2, 3, 4, 5], [1, 2, 5, 7], [0.5, 1.0, 1.5, 2.0, 2.5]]


def _ratings(seed: int, categories: list[float], *, n: int = 40, r: int = 4) -> np.ndarray:
    """(N items, R raters) label values, some missing, every item rated at least twice.

    Items with a single rating are left out on purpose: irrCAC keeps them in the
    category shares, dissensus excludes them (with a warning) everywhere.
    """
    rng = np.random.default_rng(seed)
    cats = np.asarray(categories, dtype=float)
    truth = rng.integers(0, cats.size, n)
    noise = rng.integers(0, cats.size, (n, r))
    codes = np.where(rng.random((n, r)) < 0.6, truth[:, None], noise)
    R = cats[codes]
    R[rng.random((n, r)) < 0.2] = np.nan
    R[:, :2] = cats[codes[:, :2]]  # two ratings per item at least
    return R


def _irr(R: np.ndarray, categories: list[float], scheme: str) -> CAC:
    return CAC(pd.DataFrame(R), weights=scheme, categories=list(categories), digits=13)


def _counts(R: np.ndarray, categories: list[float]) -> LabelCounts:
    return LabelCounts.from_wide(R, scale=Scale.ordinal(categories))


class TestAgreementWeights:
    @pytest.mark.parametrize("categories", [*CATEGORY_SETS, ["a", "b", "c"]])
    @pytest.mark.parametrize("scheme", SCHEMES)
    def test_equals_irrcac(self, scheme: str, categories: list) -> None:
        ours = agreement_weights(scheme, categories)  # type: ignore[arg-type]
        np.testing.assert_allclose(ours.to_numpy(), Weights(categories)[scheme], atol=1e-14)
        assert list(ours.index) == list(ours.columns) == list(Scale.ordinal(categories).labels)

    @pytest.mark.parametrize("scheme", SCHEMES)
    def test_unit_diagonal_symmetric_at_most_one(self, scheme: str) -> None:
        W = agreement_weights(scheme, [1, 2, 4, 8, 9]).to_numpy()  # type: ignore[arg-type]
        np.testing.assert_allclose(np.diag(W), 1.0)
        np.testing.assert_allclose(W, W.T)
        assert (W <= 1.0 + 1e-15).all()

    def test_int_means_codes(self) -> None:
        assert agreement_weights("linear", 3).to_numpy().tolist() == [
            [1.0, 0.5, 0.0],
            [0.5, 1.0, 0.5],
            [0.0, 0.5, 1.0],
        ]

    def test_ratio_needs_positive_values(self) -> None:
        with pytest.raises(ValueError, match=r"Ratio weights of agreement_weights need positive"):
            agreement_weights("ratio", [0, 1, 2])

    def test_unknown_scheme(self) -> None:
        with pytest.raises(ValueError, match="'scheme' parameter of agreement_weights must be"):
            agreement_weights("cubic", 3)  # type: ignore[arg-type]


@pytest.mark.parametrize("categories", CATEGORY_SETS, ids=["1-5", "unequal", "halves"])
@pytest.mark.parametrize("scheme", SCHEMES)
class TestWeightedAgainstIrrCAC:
    def test_fleiss(self, scheme: str, categories: list[float]) -> None:
        R = _ratings(1, categories)
        ref = _irr(R, categories, scheme).fleiss()["est"]
        ours = fleiss_kappa(_counts(R, categories), weights=scheme)  # type: ignore[arg-type]
        assert ours.name == "weighted_fleiss_kappa"
        assert ours.statistic == pytest.approx(ref["coefficient_value"], abs=1e-11)
        assert ours.parts["observed_agreement"] == pytest.approx(ref["pa"], abs=1e-11)
        assert ours.parts["chance_agreement"] == pytest.approx(ref["pe"], abs=1e-11)
        assert ours.standard_error == pytest.approx(ref["se"], abs=1e-11)

    def test_gwet_ac2(self, scheme: str, categories: list[float]) -> None:
        R = _ratings(2, categories)
        ref = _irr(R, categories, scheme).gwet()["est"]
        ours = gwet_ac2(_counts(R, categories), weights=scheme)  # type: ignore[arg-type]
        assert ours.statistic == pytest.approx(ref["coefficient_value"], abs=1e-11)
        assert ours.parts["chance_agreement"] == pytest.approx(ref["pe"], abs=1e-11)
        assert ours.standard_error == pytest.approx(ref["se"], abs=1e-11)

    def test_brennan_prediger(self, scheme: str, categories: list[float]) -> None:
        R = _ratings(3, categories)
        ref = _irr(R, categories, scheme).bp()["est"]
        ours = brennan_prediger(_counts(R, categories), weights=scheme)  # type: ignore[arg-type]
        assert ours.statistic == pytest.approx(ref["coefficient_value"], abs=1e-11)
        assert ours.parts["chance_agreement"] == pytest.approx(ref["pe"], abs=1e-11)
        assert ours.standard_error == pytest.approx(ref["se"], abs=1e-11)

    def test_conger(self, scheme: str, categories: list[float]) -> None:
        R = _ratings(4, categories)
        ref = _irr(R, categories, scheme).conger()["est"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataDroppedWarning)
            ann = Annotations.from_wide(R, scale=Scale.ordinal(categories))
        ours = conger_kappa(ann, weights=scheme)  # type: ignore[arg-type]
        assert ours.statistic == pytest.approx(ref["coefficient_value"], abs=1e-11)
        assert ours.parts["chance_agreement"] == pytest.approx(ref["pe"], abs=1e-11)


class TestWeightedFleiss:
    def test_identity_matrix_is_unweighted(self) -> None:
        R = _ratings(5, [1, 2, 3])
        X = _counts(R, [1, 2, 3])
        plain, weighted = fleiss_kappa(X), fleiss_kappa(X, weights=np.eye(3))
        assert weighted.statistic == pytest.approx(plain.statistic, abs=1e-14)
        assert weighted.standard_error == pytest.approx(plain.standard_error, abs=1e-14)
        assert "se0" in plain.parts
        assert "se0" not in weighted.parts
        assert weighted.z == pytest.approx(weighted.statistic / weighted.standard_error)

    def test_quadratic_two_raters_is_weighted_scott_pi(self) -> None:
        # Fleiss' kappa for two raters is Scott's pi, weighted or not.
        from dissensus.agreement import scott_pi  # noqa: PLC0415

        T = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])  # irrCAC cont3x3abstractors
        from dissensus.agreement import contingency_to_counts  # noqa: PLC0415

        ours = fleiss_kappa(contingency_to_counts(T), weights="quadratic")
        assert ours.statistic == pytest.approx(
            scott_pi(table=T, weights="quadratic").statistic, abs=1e-14
        )

    def test_bootstrap_interval_brackets_the_estimate(self) -> None:
        X = _counts(_ratings(6, [1, 2, 3, 4]), [1, 2, 3, 4])
        r = fleiss_kappa(X, weights="linear")
        assert r.confidence_interval(0.9, n_resamples=200, seed=3) is not None
        assert (
            r.confidence_interval(0.9, n_resamples=200, seed=3).low
            < r.statistic
            < r.confidence_interval(0.9, n_resamples=200, seed=3).high
        )


class TestWeightsUseLabelValues:
    def test_unequal_spacing_differs_from_positions(self) -> None:
        a = [1, 2, 7, 7, 2, 1]
        b = [1, 7, 7, 2, 2, 2]
        on_values = cohen_kappa(a, b, weights="linear").statistic
        on_positions = cohen_kappa(
            np.searchsorted([1, 2, 7], a), np.searchsorted([1, 2, 7], b), weights="linear"
        ).statistic
        assert on_values != pytest.approx(on_positions)
        # irrCAC (values) agrees with the values; its Cohen is conger for two raters
        ref = CAC(pd.DataFrame({"a": a, "b": b}), weights="linear", digits=13).conger()["est"]
        assert on_values == pytest.approx(ref["coefficient_value"], abs=1e-11)


class TestFinitePopulationCorrection:
    @pytest.mark.parametrize(
        ("ours", "theirs"),
        [
            (fleiss_kappa, "fleiss"),
            (gwet_ac2, "gwet"),
            (brennan_prediger, "bp"),
        ],
    )
    @pytest.mark.parametrize("population", [60.0, 200.0, math.inf])
    def test_equals_irrcac(self, ours, theirs: str, population: float) -> None:
        cats = [1, 2, 3, 4]
        R = _ratings(7, cats, n=50)
        ref = getattr(
            CAC(pd.DataFrame(R), weights="linear", categories=cats, N=population, digits=13),
            theirs,
        )()["est"]
        r = ours(_counts(R, cats), weights="linear", population_size=population)
        assert r.standard_error == pytest.approx(ref["se"], abs=1e-11)

    def test_whole_population_has_no_sampling_error(self) -> None:
        R = _ratings(8, [1, 2, 3], n=30)
        assert gwet_ac1(_counts(R, [1, 2, 3]), population_size=30).standard_error == 0.0

    def test_population_smaller_than_sample(self) -> None:
        R = _ratings(9, [1, 2, 3], n=30)
        with pytest.raises(ValueError, match="'population_size' parameter of fleiss_kappa must be"):
            fleiss_kappa(_counts(R, [1, 2, 3]), population_size=10)


class TestCongerStandardError:
    @pytest.mark.parametrize("scheme", ["identity", "linear", "quadratic", "ordinal"])
    @pytest.mark.parametrize("seed", [10, 11])
    def test_equals_irrcac(self, scheme: str, seed: int) -> None:
        cats = [1, 2, 3, 4]
        R = _ratings(seed, cats, n=40, r=5)
        ref = _irr(R, cats, scheme).conger()["est"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataDroppedWarning)
            ann = Annotations.from_wide(R, scale=Scale.ordinal(cats))
        ours = conger_kappa(ann, weights=scheme)  # type: ignore[arg-type]
        assert ours.statistic == pytest.approx(ref["coefficient_value"], abs=1e-11)
        assert ours.standard_error == pytest.approx(ref["se"], abs=1e-11)
