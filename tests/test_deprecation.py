"""Old documented names keep working until 1.0 with a DeprecationWarning (issue 8)."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

from dissensus import Annotations
from dissensus._deprecation import keyword_only_options, renamed_parameters
from dissensus.agreement import fleiss_kappa, icc, krippendorff_alpha, pairwise
from dissensus.posterior import credible_interval
from dissensus.stats import bootstrap_test

COUNTS = [[3, 0, 0], [2, 1, 0], [0, 3, 0], [0, 1, 2], [1, 1, 1], [0, 0, 3]] * 5


class TestRenamedParameters:
    def test_old_keywords_map_to_the_new_ones(self) -> None:
        new = fleiss_kappa(COUNTS, confidence_level=0.9, n_resamples=50, seed=1)
        with pytest.warns(DeprecationWarning, match="'ci' is deprecated.*'confidence_level'"):
            old = fleiss_kappa(COUNTS, ci=0.9, n_resamples=50, seed=1)
        assert old.confidence_interval == new.confidence_interval
        with pytest.warns(DeprecationWarning, match="'n_boot'.*'n_resamples'"):
            old = fleiss_kappa(COUNTS, confidence_level=0.9, n_boot=50, seed=1)
        assert old.confidence_interval == new.confidence_interval

    def test_old_first_argument_name(self) -> None:
        with pytest.warns(DeprecationWarning, match="'data'.*'annotations'"):
            assert krippendorff_alpha(data=COUNTS).statistic == krippendorff_alpha(COUNTS).statistic
        ratings = np.array([[1.0, 2.0], [2.0, 2.0], [3.0, 4.0], [4.0, 4.0]])
        with pytest.warns(DeprecationWarning, match="'ratings'.*'annotations'"):
            assert icc(ratings=ratings).statistic == icc(ratings).statistic

    def test_both_names_is_an_error(self) -> None:
        with pytest.raises(TypeError, match=r"got both 'ci'.*and 'confidence_level'"):
            fleiss_kappa(COUNTS, ci=0.9, confidence_level=0.9)

    def test_level_as_coverage(self) -> None:
        with pytest.warns(DeprecationWarning, match="'level'"):
            old = credible_interval([[1.0, 1.0]], level=0.9)
        assert np.allclose(old.low, credible_interval([[1.0, 1.0]], confidence_level=0.9).low)
        with pytest.warns(DeprecationWarning, match="'level'"):
            bootstrap_test([0.1, 0.4, 0.3], [0.0, 0.1, 0.2], level=0.8, n_resamples=99)

    def test_the_warning_points_at_the_caller(self) -> None:
        with pytest.warns(DeprecationWarning, match="n_boot") as record:
            fleiss_kappa(COUNTS, n_boot=10)
        assert record[0].filename == __file__


class TestDeprecatedAttributes:
    def test_agreement_result(self) -> None:
        r = fleiss_kappa(COUNTS, confidence_level=0.9, n_resamples=20)
        for old, new in (
            ("value", "statistic"),
            ("ci", "confidence_interval"),
            ("ci_level", "confidence_level"),
            ("p_value", "pvalue"),
        ):
            with pytest.warns(DeprecationWarning, match=rf"AgreementResult\.{old} .*\.{new}"):
                assert getattr(r, old) == getattr(r, new) or np.isnan(getattr(r, new))

    def test_pairwise_and_paired_test(self) -> None:
        pw = pairwise(_annotations())
        with pytest.warns(DeprecationWarning, match=r"\.value .*\.statistic"):
            assert pw.value is pw.statistic
        res = bootstrap_test([0.1, 0.4, 0.3], [0.0, 0.1, 0.2], n_resamples=99)
        with pytest.warns(DeprecationWarning, match=r"\.value .*\.pvalue"):
            assert res.value == res.pvalue
        with pytest.warns(DeprecationWarning, match=r"\.ci .*\.confidence_interval"):
            assert res.ci == res.confidence_interval


class TestKeywordOnlyOptions:
    def test_positional_options_still_work_with_a_warning(self) -> None:
        @keyword_only_options(1)
        def f(x: int, *, a: int = 0) -> int:
            return x + a

        with pytest.warns(DeprecationWarning, match="pass a by keyword"):
            assert f(1, 2) == f(1, a=2)

    def test_too_many_positionals(self) -> None:
        @keyword_only_options(1)
        def f(x: int, *, a: int = 0) -> int:
            return x + a

        with pytest.raises(TypeError, match="takes 1 positional"):
            f(1, 2, 3)
        with pytest.raises(TypeError, match="multiple values for 'a'"):
            f(1, 2, a=3)

    def test_decorators_keep_the_signature(self) -> None:
        @renamed_parameters(old="new")
        def g(*, new: int = 1) -> int:
            return new

        assert list(inspect.signature(g).parameters) == ["new"]


def _annotations() -> Annotations:
    df = pd.DataFrame(
        {
            "item": [1, 1, 2, 2, 3, 3, 4, 4] * 2,
            "annotator": ["a", "b"] * 8,
            "label": [
                "x",
                "x",
                "y",
                "y",
                "x",
                "y",
                "y",
                "y",
                "x",
                "x",
                "y",
                "x",
                "x",
                "x",
                "y",
                "y",
            ],
        }
    )
    df["item"] = df["item"] + np.repeat([0, 10], 8)
    return Annotations.from_frame(df)
