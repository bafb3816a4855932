"""Tests of dissensus.data._counts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

from dissensus import Annotations, DataError, LabelCounts, Scale
from dissensus.data import _counts, as_label_counts
from tests.strategies import count_matrices


class TestFromArray:
    def test_defaults(self):
        c = LabelCounts.from_array([[3, 1], [0, 4]])
        assert c.values.dtype == np.int64
        assert list(c.items) == [0, 1]
        assert c.items.name == "item"
        assert c.scale == Scale.nominal([0, 1])
        assert c.n.tolist() == [4, 4]
        assert (c.N, c.K, len(c)) == (2, 2, 2)

    def test_integral_floats_accepted(self):
        c = LabelCounts.from_array(np.array([[2.0, 0.0]]))
        assert c.values.tolist() == [[2, 0]]
        assert c.values.dtype == np.int64

    def test_scale_as_sequence(self):
        c = LabelCounts.from_array([[1, 2, 3]], scale=["a", "b", "c"], items=["i1"])
        assert c.scale == Scale.nominal(["a", "b", "c"])
        assert list(c.items) == ["i1"]

    def test_negative_count(self):
        with pytest.raises(
            DataError,
            match=r"`values` row 1 \(item 'b'\) column 0 is -1; counts must be non-negative",
        ):
            LabelCounts.from_array([[1, 2], [-1, 3]], items=["a", "b"])

    def test_fractional_count(self):
        with pytest.raises(
            DataError,
            match=r"`values` row 0 \(item 0\) column 1 is 0.5; counts must be whole numbers",
        ):
            LabelCounts.from_array([[1, 0.5]])

    def test_nan_count(self):
        with pytest.raises(
            DataError,
            match=r"`values` row 0 \(item 0\) column 0 is nan; counts must be finite. Fill missing counts with 0",
        ):
            LabelCounts.from_array([[np.nan, 1]])

    def test_text_counts(self):
        with pytest.raises(DataError, match="must hold numbers"):
            LabelCounts.from_array(np.array([["a", "b"]], dtype=object))

    def test_one_dimensional(self):
        with pytest.raises(
            DataError, match=r"must be a 2-D \(N items, K categories\) array; got 1-D of length 3"
        ):
            LabelCounts.from_array([1, 2, 3])

    def test_items_wrong_length(self):
        with pytest.raises(DataError, match=r"`items` has 1 ids but `values` has 2 rows"):
            LabelCounts.from_array([[1], [2]], items=["a"])

    def test_items_repeated(self):
        with pytest.raises(DataError, match=r"`items` must be unique; repeated ids: 'a'"):
            LabelCounts.from_array([[1], [2]], items=["a", "a"])

    def test_scale_wrong_size(self):
        with pytest.raises(
            DataError, match=r"The scale has 3 labels 1, 2, 3 but the data has 2 columns"
        ):
            LabelCounts.from_array([[1, 2]], scale=Scale.ordinal([1, 2, 3]))

    def test_meta_wrong_length(self):
        with pytest.raises(DataError, match=r"`meta` has 1 rows but there are 2 items"):
            LabelCounts.from_array([[1], [2]], meta=pd.DataFrame({"g": [1]}))


class TestMethods:
    def test_proportions_and_empty_rows(self):
        c = LabelCounts.from_array([[3, 1], [0, 0]])
        p = c.proportions()
        np.testing.assert_allclose(p[0], [0.75, 0.25])
        assert np.isnan(p[1]).all()

    def test_to_frame(self):
        c = LabelCounts.from_array([[3, 1]], scale=Scale.nominal(["POS", "NEG"]), items=["r1"])
        df = c.to_frame()
        assert list(df.columns) == ["POS", "NEG", "n"]
        assert df.loc["r1"].tolist() == [3, 1, 4]

    def test_take_and_meta(self):
        meta = pd.DataFrame({"g": ["u", "v", "u"]})
        c = LabelCounts.from_array([[1, 0], [0, 1], [2, 2]], items=["a", "b", "c"], meta=meta)
        sub = c.take([2, 0])
        assert list(sub.items) == ["c", "a"]
        assert sub.values.tolist() == [[2, 2], [1, 0]]
        assert sub.groups("g").tolist() == ["u", "u"]
        masked = c.take(np.array([False, True, False]))
        assert list(masked.items) == ["b"]

    def test_groups_without_column(self):
        c = LabelCounts.from_array([[1, 0]])
        with pytest.raises(
            DataError, match=r"No item-level column 'year' to group by \(have: none\)"
        ):
            c.groups("year")

    def test_repr(self):
        c = LabelCounts.from_array([[1, 0], [2, 2]])
        assert repr(c).startswith("<LabelCounts: 2 items × 2 labels")
        assert "annotations per item 1–4" in repr(c)

    @given(count_matrices())
    @settings(max_examples=50, deadline=None)
    def test_round_trip(self, arr):
        c = LabelCounts.from_array(arr)
        np.testing.assert_array_equal(c.values, arr)
        np.testing.assert_array_equal(c.n, arr.sum(axis=1))
        np.testing.assert_array_equal(c.to_frame().drop(columns="n").to_numpy(), arr)


class TestAsLabelCounts:
    def test_passes_label_counts_through(self):
        c = LabelCounts.from_array([[1, 2]])
        assert as_label_counts(c) is c

    def test_annotations(self):
        df = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": ["x", "y"]})
        c = as_label_counts(Annotations.from_frame(df))
        assert c.values.tolist() == [[1, 1]]

    def test_array(self):
        assert as_label_counts(np.array([[1, 2]])).values.tolist() == [[1, 2]]

    def test_dataframe_refused(self):
        with pytest.raises(TypeError, match=r"`annotations` is a DataFrame; say what it holds"):
            as_label_counts(pd.DataFrame({"a": [1]}))


class TestItemTotals:
    """Issue 23: row sums beyond int64 wrapped to negative; refused, naming the item."""

    def test_sum_beyond_2_53_refused_naming_the_item(self):
        big = 2**53
        with pytest.raises(DataError, match=r"row 1 \(item 'b'\) sums to 18,014,398,509,481,984"):
            LabelCounts.from_array(np.array([[1, 2], [big, big]]), items=["a", "b"])

    def test_sum_that_would_wrap_int64_refused(self):
        values = np.full((2, 1100), 2**53, dtype=np.int64)  # 1100 * 2**53 > 2**63
        values[0] = 1
        assert int(values.sum(axis=1)[1]) < 0  # what int64 would have said
        with pytest.raises(DataError, match=r"row 1 \(item 1\)"):
            LabelCounts.from_array(values)

    def test_sum_at_the_limit_accepted(self):
        c = LabelCounts.from_array(np.array([[2**52, 2**52], [1, 0]]))
        assert c.n.tolist() == [2**53, 1]

    def test_negative_and_fractional_still_refused(self):
        with pytest.raises(DataError, match="non-negative"):
            LabelCounts.from_array([[1, -1]])
        with pytest.raises(DataError, match="whole numbers"):
            LabelCounts.from_array([[1, 0.5]])


class TestWideItemColumn:
    """Issue 23: a column named `item` in a wide table was counted as a rater."""

    def test_item_column_is_the_ids(self):
        df = pd.DataFrame({"item": [10, 20, 30], "a": [1, 2, 1], "b": [1, 2, 2]})
        c = LabelCounts.from_wide(df)
        assert c.items.tolist() == [10, 20, 30]
        assert c.values.tolist() == [[2, 0], [0, 2], [1, 1]]
        assert c.n.tolist() == [2, 2, 2]

    def test_item_named_explicitly_or_not_at_all(self):
        df = pd.DataFrame({"key": ["x", "y"], "a": [1, 2], "b": [2, 2]})
        assert LabelCounts.from_wide(df, item="key").items.tolist() == ["x", "y"]
        ids_as_rater = pd.DataFrame({"item": [1, 2], "a": [1, 2]})
        assert LabelCounts.from_wide(ids_as_rater, item=None).n.tolist() == [2, 2]
        with pytest.raises(DataError, match="no item column 'nope'"):
            LabelCounts.from_wide(df, item="nope")

    def test_text_id_column_detected(self):
        df = pd.DataFrame({"id": ["x", "y"], "a": [1, 2], "b": [2, 2]})
        assert LabelCounts.from_wide(df).items.tolist() == ["x", "y"]

    def test_numeric_id_column_is_ambiguous(self):
        df = pd.DataFrame({"item_id": [1, 2], "a": [1, 2], "b": [2, 2]})
        with pytest.raises(DataError, match=r"item='<column>'.*item=None"):
            LabelCounts.from_wide(df)


class TestCountTableSize:
    """Issue 23: a label column that is really an id asked for an N x K table of 74.5 GiB."""

    @staticmethod
    def _ids_as_labels(n: int) -> pd.DataFrame:
        return pd.DataFrame(
            {"item": np.arange(n), "annotator": "a", "label": [f"id{i}" for i in range(n)]}
        )

    def test_the_real_size_is_refused_before_allocating(self):
        with pytest.raises(DataError) as info:
            _counts.check_count_table(100_000, 100_000)
        text = str(info.value)
        for part in ("100,000 distinct labels (K)", "100,000 items (N)", "74.5 GiB", "--label"):
            assert part in text

    def test_too_many_labels_in_long_annotations(self, monkeypatch):
        monkeypatch.setattr(_counts, "MAX_LABELS", 20)
        ann = Annotations.from_frame(self._ids_as_labels(30))
        with pytest.raises(DataError, match=r"30 distinct labels \(K\) over 30 items \(N\)"):
            ann.counts()
        assert Annotations.from_frame(self._ids_as_labels(20)).counts().K == 20

    def test_too_many_bytes(self, monkeypatch):
        monkeypatch.setattr(_counts, "MAX_COUNT_BYTES", 30 * 30 * 8 - 1)
        with pytest.raises(DataError, match=r"7,200 bytes .* Is the label column"):
            Annotations.from_frame(self._ids_as_labels(30)).counts()

    def test_wide_tables_of_labels_and_of_numbers(self, monkeypatch):
        monkeypatch.setattr(_counts, "MAX_LABELS", 5)
        words = pd.DataFrame({"a": [f"w{i}" for i in range(6)], "b": ["w0"] * 6})
        with pytest.raises(DataError, match="6 distinct labels"):
            LabelCounts.from_wide(words)
        numbers = pd.DataFrame({"item": range(6), "a": range(6), "b": range(6)})
        with pytest.raises(DataError, match="6 distinct labels"):
            LabelCounts.from_wide(numbers)


def test_ragged_rows_are_refused_by_name() -> None:
    # numpy's own words ("inhomogeneous shape after 1 dimensions") told nothing
    with pytest.raises(DataError, match=r"`values` has rows of different lengths \(1, 2\)"):
        LabelCounts.from_array([[1, 2], [1]])
