"""The numeric fast path of ``from_wide`` applies the general path's checks.

Every case is run twice: on the numeric table (the fast path, straight to
label codes) and on the same table as ``object`` columns (the general path
through :meth:`Annotations.from_frame`); both must give the same error or the
same result.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dissensus import Annotations, DataError, LabelCounts, Scale
from dissensus.data._counts import numeric_wide


def _annotations(df: pd.DataFrame) -> Any:
    return Annotations.from_wide(df, item=None)


def _counts(df: pd.DataFrame) -> Any:
    return LabelCounts.from_wide(df)


READERS: list[Callable[[pd.DataFrame], Any]] = [_annotations, _counts]


def _outcome(reader: Callable[[pd.DataFrame], Any], df: pd.DataFrame) -> Any:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = reader(df)
    counts = result.counts() if isinstance(result, Annotations) else result
    return (
        counts.items.tolist(),
        counts.scale,
        counts.values.tolist(),
        [str(w.message) for w in caught],
    )


def _both(df: pd.DataFrame) -> list[pd.DataFrame]:
    general = df.astype(object)
    assert numeric_wide(general) is None  # the object copy takes the general path
    return [df, general]


ERRORS = {
    "repeated annotator column": (
        pd.DataFrame([[1, 2, 2], [2, 2, 1]], columns=["r1", "r2", "r1"]),
        r"'r1' twice \(columns 1 and 3\)",
    ),
    "missing item id": (
        pd.DataFrame({"r1": [1, 2], "r2": [2, 2]}, index=pd.Index([1.0, np.nan], name="item")),
        r"Missing item ids",
    ),
    "boolean among numbers": (
        pd.DataFrame({"r1": [True, False], "r2": [1, 0]}),
        r"boolean among number labels",
    ),
    "integers beyond 2**53": (
        pd.DataFrame({"r1": [2**62, 2**62 + 1], "r2": [2**62, 2**62]}),
        r"beyond 2\*\*53",
    ),
    "infinite label": (
        pd.DataFrame({"r1": [1.0, np.inf], "r2": [2.0, 2.0]}),
        r"inf",
    ),
    "repeated item id": (
        pd.DataFrame({"r1": [1, 2], "r2": [2, 2]}, index=pd.Index(["a", "a"], name="item")),
        r"'a'",
    ),
}


class TestSameErrorOnBothPaths:
    @pytest.mark.parametrize("reader", READERS)
    @pytest.mark.parametrize("case", list(ERRORS))
    def test_error(self, reader, case):
        df, match = ERRORS[case]
        for table in _both(df):
            with pytest.raises(DataError, match=match):
                reader(table)

    def test_integers_beyond_2_53_would_have_merged(self):
        # the fast path reads through float64, where these two labels are equal
        assert float(2**62) == float(2**62 + 1)
        df = ERRORS["integers beyond 2**53"][0]
        assert numeric_wide(df) is None

    def test_explicit_annotator_list_naming_a_repeated_column(self):
        df = pd.DataFrame([["x", 1, 2, 2]], columns=["item", "r1", "r2", "r1"])
        with pytest.raises(DataError, match=r"column 'r1' twice"):
            Annotations.from_wide(df, annotators=["r1", "r2"])


RESULTS = {
    "empty cells and an empty row": pd.DataFrame(
        {"r1": [1.0, np.nan, 3.0], "r2": [2.0, np.nan, np.nan]}, index=["a", "b", "c"]
    ),
    "exact 19-digit integer ids": pd.DataFrame(
        {"r1": [1, 2], "r2": [2, 2]}, index=pd.Index([10**18 + 1, 10**18 + 2], name="item")
    ),
    "large exact float label": pd.DataFrame({"r1": [1e20, 1.0], "r2": [1e20, 2.0]}),
    "integers just below 2**53": pd.DataFrame({"r1": [2**53 - 1, 1], "r2": [2**53 - 2, 1]}),
}


class TestSameResultOnBothPaths:
    @pytest.mark.parametrize("reader", READERS)
    @pytest.mark.parametrize("case", list(RESULTS))
    def test_result(self, reader, case):
        fast, general = (_outcome(reader, t) for t in _both(RESULTS[case]))
        assert fast == general

    def test_the_empty_row_is_reported_or_kept(self):
        df = RESULTS["empty cells and an empty row"]
        with pytest.warns(UserWarning, match="no annotations at all"):
            ann = Annotations.from_wide(df, item=None)
        assert ann.items.tolist() == ["a", "c"]
        assert LabelCounts.from_wide(df).values.tolist() == [[1, 1, 0], [0, 0, 0], [0, 0, 1]]


class TestScaleRefusesInexactIntegers:
    def test_scale(self):
        with pytest.raises(DataError, match=r"beyond 2\*\*53"):
            Scale.ordinal([2**62 + 1, 2**62 + 3])

    def test_exact_large_integers_are_fine(self):
        assert Scale.ordinal([2**62, 2**53]).K == 2
