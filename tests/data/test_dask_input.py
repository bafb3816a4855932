"""The in-memory constructors given a Dask DataFrame: computed once, then the pandas path."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dissensus import DataError
from dissensus.data import Annotations, LabelCounts, Predictions, SetAnnotations, as_label_counts

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")


@pytest.fixture(autouse=True)
def synchronous() -> Iterator[None]:
    with dask.config.set(scheduler="synchronous"):
        yield


def _same(got: Any, want: Any) -> None:
    """Every field equal: arrays, indexes, frames, scales."""
    assert type(got) is type(want)
    for field in dataclasses.fields(want):
        a, b = getattr(got, field.name), getattr(want, field.name)
        if isinstance(b, np.ndarray):
            np.testing.assert_array_equal(a, b)
        elif isinstance(b, pd.Index):
            pd.testing.assert_index_equal(a, b, exact=False)
        elif isinstance(b, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b, check_index_type=False)
        else:
            assert a == b, field.name


@pytest.fixture
def long() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    item = np.repeat(np.arange(40), 3)
    return pd.DataFrame(
        {
            "item": item,
            "annotator": np.tile(["a", "b", "c"], 40),
            "label": rng.choice(["neg", "neu", "pos"], item.size),
            "year": item % 2 + 2020,
        },
        index=pd.RangeIndex(100, 100 + item.size),
    )


class TestAnnotationsFromFrame:
    def test_equals_the_pandas_path(self, long: pd.DataFrame) -> None:
        ddf = dd.from_pandas(long, npartitions=4)
        got = Annotations.from_frame(ddf, meta=["year"])
        want = Annotations.from_frame(long, meta=["year"])
        _same(got, want)
        _same(got.counts(), want.counts())

    def test_errors_name_the_same_rows(self, long: pd.DataFrame) -> None:
        bad = long.copy()
        bad.loc[205, "label"] = "pso"  # in the last partition
        bad.loc[210, "annotator"] = None
        ddf = dd.from_pandas(bad, npartitions=4)
        for frame in (bad, ddf):
            with pytest.raises(DataError, match=r"Missing 'annotator' values: 1 in row 210;"):
                Annotations.from_frame(frame, scale=["neg", "neu", "pos"])
            with pytest.raises(DataError, match=r"'pso' at row 205\. Fix the labels"):
                Annotations.from_frame(frame.dropna(), scale=["neg", "neu", "pos"])
        dup = pd.concat([long.iloc[:5], long.iloc[[2]]])
        with pytest.raises(DataError, match=r"item 0 by annotator 'c' at rows 102, 102"):
            Annotations.from_frame(dd.from_pandas(dup, npartitions=2))

    def test_from_wide(self) -> None:
        wide = pd.DataFrame({"item": ["x", "y", "z"], "r1": [1, 2, np.nan], "r2": [2.0, 2.0, 1.0]})
        got = Annotations.from_wide(dd.from_pandas(wide, npartitions=2))
        _same(got, Annotations.from_wide(wide))


class TestSetAnnotationsFromFrame:
    def test_text_sets(self) -> None:
        df = pd.DataFrame(
            {
                "item": [1, 1, 2, 2, 3],
                "annotator": ["a", "b", "a", "b", "a"],
                "label": ["E|N", "N", "", "C", "C|E"],
            }
        )
        got = SetAnnotations.from_frame(dd.from_pandas(df, npartitions=2), label_sep="|")
        _same(got, SetAnnotations.from_frame(df, label_sep="|"))

    def test_indicators(self) -> None:
        df = pd.DataFrame(
            {"item": ["t1", "t1", "t2"], "annotator": ["a", "b", "a"], "joy": [1, 1, 0],
             "anger": [0, 1, 1]}
        )  # fmt: skip
        got = SetAnnotations.from_indicators(
            dd.from_pandas(df, npartitions=2), labels=["joy", "anger"]
        )
        _same(got, SetAnnotations.from_indicators(df, labels=["joy", "anger"]))


class TestLabelCountsFromWide:
    def test_equals_the_pandas_path(self) -> None:
        wide = pd.DataFrame(
            {"r1": [1, 2, np.nan, 3], "r2": [2, 2, 1, np.nan]}, index=["a", "b", "c", "d"]
        )
        got = LabelCounts.from_wide(dd.from_pandas(wide, npartitions=2), scale=[1, 2, 3])
        _same(got, LabelCounts.from_wide(wide, scale=[1, 2, 3]))

    def test_off_scale_rows_named(self) -> None:
        wide = pd.DataFrame({"r1": [1, 2, 7], "r2": [2, 2, 1]}, index=["a", "b", "c"])
        with pytest.raises(DataError, match=r"rows 'c'"):
            LabelCounts.from_wide(dd.from_pandas(wide, npartitions=2), scale=[1, 2, 3])

    def test_as_label_counts_refuses_dask(self, long: pd.DataFrame) -> None:
        with pytest.raises(TypeError, match=r"Dask collection.*distributed\.label_counts"):
            as_label_counts(dd.from_pandas(long, npartitions=2))


class TestPredictionsFromFrame:
    def test_wide(self) -> None:
        df = pd.DataFrame({"item": [3, 1, 2], "a": [0.2, 0.5, 1.0], "b": [0.8, 0.5, 0.0]})
        got = Predictions.from_frame(dd.from_pandas(df, npartitions=2))
        _same(got, Predictions.from_frame(df))

    def test_long(self) -> None:
        df = pd.DataFrame(
            {"item": [3, 3, 1, 1], "label": ["a", "b", "a", "b"], "prob": [0.2, 0.8, 0.5, 0.5]}
        )
        got = Predictions.from_frame(dd.from_pandas(df, npartitions=2), layout="long")
        _same(got, Predictions.from_frame(df, layout="long"))

    def test_bad_rows_named_by_item(self) -> None:
        df = pd.DataFrame({"item": [3, 1, 2], "a": [0.2, 0.5, 1.0], "b": [0.8, 0.5, 0.5]})
        with pytest.raises(DataError, match=r"item 2"):
            Predictions.from_frame(dd.from_pandas(df, npartitions=2))
