"""Old documented names keep working until 1.0 with a DeprecationWarning (issue 8)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from dissensus._deprecation import keyword_only_options, renamed_parameters
from dissensus.posterior import credible_interval


class TestRenamedParameters:
    def test_level_as_coverage(self) -> None:
        with pytest.warns(DeprecationWarning, match="'level'"):
            old = credible_interval([[1.0, 1.0]], level=0.9)
        assert np.allclose(old.low, credible_interval([[1.0, 1.0]], confidence_level=0.9).low)

    def test_the_warning_points_at_the_caller(self) -> None:
        @renamed_parameters(n_boot="n_resamples")
        def f(*, n_resamples: int = 1) -> int:
            return n_resamples

        with pytest.warns(DeprecationWarning, match="n_boot") as record:
            f(n_boot=10)
        assert record[0].filename == __file__


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
