"""Benchmark scales and Gwet's benchmarking procedure, against irrCAC's Benchmark."""

from __future__ import annotations

import math

import numpy as np
import pytest
from irrCAC.benchmark import Benchmark

from dissensus import load_example
from dissensus.agreement import (
    BENCHMARK_SCALES,
    benchmark_agreement,
    fleiss_kappa,
    interpret_agreement,
    krippendorff_alpha,
)

IRRCAC_METHOD = {"landis_koch": "landis_koch", "fleiss": "fleiss", "altman": "altman"}


class TestInterpretAgreement:
    @pytest.mark.parametrize(
        ("value", "scale", "label"),
        [
            (0.41, "landis_koch", "moderate"),
            (0.6, "landis_koch", "substantial"),  # closed below
            (-0.1, "landis_koch", "poor"),
            (0.81, "altman", "very good"),
            (0.74, "fleiss", "intermediate to good"),
            (0.75, "fleiss", "excellent"),
            (-2.0, "altman", "poor"),
        ],
    )
    def test_labels(self, value: float, scale: str, label: str) -> None:
        assert interpret_agreement(value, scale=scale) == label  # type: ignore[arg-type]

    def test_nan_and_results(self) -> None:
        assert interpret_agreement(math.nan) == "undefined"
        assert interpret_agreement(fleiss_kappa(load_example("course_29"))) == "moderate"

    def test_unknown_scale(self) -> None:
        with pytest.raises(ValueError, match="'scale' parameter of interpret_agreement"):
            interpret_agreement(0.5, scale="cohen")  # type: ignore[arg-type]


class TestBenchmarkAgreement:
    @pytest.mark.parametrize("scale", list(BENCHMARK_SCALES))
    @pytest.mark.parametrize(("value", "se"), [(0.67, 0.15), (0.41, 0.05), (0.9, 0.02), (0.1, 0.3)])
    def test_equals_irrcac(self, scale: str, value: float, se: float) -> None:
        ref = getattr(Benchmark(coeff=value, se=se), IRRCAC_METHOD[scale])()
        ours = benchmark_agreement(value, standard_error=se, scale=scale)  # type: ignore[arg-type]
        np.testing.assert_allclose(ours.table["cumulative"], ref["CumProb"], atol=5e-6)
        assert list(zip(ours.table["low"], ours.table["high"], strict=True)) == ref["scale"]
        first = int(np.argmax(np.asarray(ref["CumProb"]) >= 0.95))
        labels = next(v for k, v in ref.items() if k not in ("scale", "CumProb"))
        assert ours.label == labels[first].lower()

    def test_uses_the_result_se(self) -> None:
        r = fleiss_kappa(load_example("course_29"))
        b = benchmark_agreement(r)
        assert b.standard_error == r.standard_error
        assert b.table["probability"].sum() == pytest.approx(1.0)
        assert str(b) == b.label

    def test_large_se_retains_a_lower_benchmark(self) -> None:
        sure = benchmark_agreement(0.85, standard_error=0.01)
        unsure = benchmark_agreement(0.85, standard_error=0.2)
        assert sure.label == "almost perfect"
        assert unsure.label in ("moderate", "fair")

    def test_needs_an_se(self) -> None:
        alpha = krippendorff_alpha(load_example("course_29"), level="ordinal")  # no analytic se
        with pytest.raises(ValueError, match="needs a finite positive standard error"):
            benchmark_agreement(alpha)
        b = benchmark_agreement(alpha, standard_error=0.05)  # e.g. a bootstrap standard error
        assert b.statistic == alpha.statistic
        assert b.table["cumulative"].iloc[-1] == pytest.approx(1.0)

    def test_nan_value(self) -> None:
        with pytest.raises(ValueError, match="the coefficient is NaN"):
            benchmark_agreement(math.nan, standard_error=0.1)
