"""Tests of dissensus.data._predictions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dissensus import DataDroppedWarning, DataError, LabelCounts, Predictions, Scale
from tests.strategies import count_matrices, simplex_rows


def _counts() -> LabelCounts:
    return LabelCounts.from_array(
        [[3, 1, 0], [0, 4, 0], [1, 1, 1]], items=["a", "b", "c"], scale=Scale.ordinal([1, 2, 3])
    )


class TestFromArray:
    def test_basic(self):
        p = Predictions.from_array([[0.2, 0.8]], items=["x"], scale=["n", "y"])
        assert (p.N, p.K) == (1, 2)
        assert p.scale == Scale.nominal(["n", "y"])
        assert "1 items × 2 labels" in repr(p)
        assert p.to_frame().loc["x"].tolist() == [0.2, 0.8]

    def test_negative(self):
        with pytest.raises(
            DataError,
            match=r"`predictions` row 0 column 1 is -0.1; probabilities must be non-negative",
        ):
            Predictions.from_array([[1.1, -0.1]])

    def test_nan(self):
        with pytest.raises(
            DataError,
            match=r"`predictions` row 1 \(item 'y'\) column 0 is nan; probabilities must be finite",
        ):
            Predictions.from_array([[0.5, 0.5], [np.nan, 1.0]], items=["x", "y"])

    def test_row_sum(self):
        with pytest.raises(
            DataError,
            match=r"`predictions` row 0 sums to 0.9 \(1 of 2 rows do not sum to 1 within 1e-06\); "
            r"pass `normalize=True` to rescale rows",
        ):
            Predictions.from_array([[0.4, 0.5], [0.5, 0.5]])

    def test_row_sum_within_tolerance(self):
        p = Predictions.from_array([[0.5, 0.5 + 5e-7]])
        assert p.values.shape == (1, 2)

    def test_normalize(self):
        p = Predictions.from_array([[1, 3]], normalize=True)
        np.testing.assert_allclose(p.values, [[0.25, 0.75]])

    def test_normalize_zero_row(self):
        with pytest.raises(DataError, match=r"row 0 sums to 0 and cannot be normalised"):
            Predictions.from_array([[0, 0]], normalize=True)

    def test_scale_size(self):
        with pytest.raises(
            DataError, match=r"The scale has 3 labels but the predictions have 2 columns"
        ):
            Predictions.from_array([[0.5, 0.5]], scale=[1, 2, 3])

    def test_repeated_items(self):
        with pytest.raises(DataError, match=r"`items` must be unique; repeated ids: 'x'"):
            Predictions.from_array([[1.0], [1.0]], items=["x", "x"])


class TestFromFrame:
    def test_wide_numeric_column_names(self):
        df = pd.DataFrame({"item": ["a", "b"], "1": [0.5, 0.0], "2": [0.5, 1.0]})
        p = Predictions.from_frame(df)
        assert p.scale is not None
        assert p.scale.labels == (1, 2)
        assert list(p.items) == ["a", "b"]

    def test_wide_index_as_item(self):
        df = pd.DataFrame({"x": [0.5], "y": [0.5]}, index=["i1"])
        p = Predictions.from_frame(df, item=None)
        assert list(p.items) == ["i1"]

    def test_wide_missing_item_column(self):
        with pytest.raises(
            DataError, match=r"No item column 'item' in the predictions .*item=None"
        ):
            Predictions.from_frame(pd.DataFrame({"x": [1.0]}), item="item")

    def test_wide_missing_label_columns(self):
        df = pd.DataFrame({"item": ["a"], "1": [1.0]})
        with pytest.raises(DataError, match=r"Prediction columns '2' are not in the frame"):
            Predictions.from_frame(df, labels=["1", "2"])

    def test_long(self):
        df = pd.DataFrame(
            {"item": ["b", "b", "a", "a"], "label": [2, 1, 1, 2], "prob": [0.75, 0.25, 1.0, 0.0]}
        )
        p = Predictions.from_frame(df, layout="long")
        assert list(p.items) == ["b", "a"]
        np.testing.assert_allclose(p.values, [[0.25, 0.75], [1.0, 0.0]])

    def test_long_missing_column(self):
        df = pd.DataFrame({"item": ["a"], "label": [1]})
        with pytest.raises(DataError, match=r"No prob column 'prob' in the predictions"):
            Predictions.from_frame(df, layout="long")

    def test_long_repeated_pair(self):
        df = pd.DataFrame({"item": ["a", "a"], "label": [1, 1], "prob": [0.5, 0.5]})
        with pytest.raises(
            DataError, match=r"2 predictions repeat an \(item, label\) pair, e.g. item 'a' label 1"
        ):
            Predictions.from_frame(df, layout="long")

    def test_long_missing_pair(self):
        df = pd.DataFrame({"item": ["a", "a", "b"], "label": [1, 2, 1], "prob": [0.5, 0.5, 1.0]})
        with pytest.raises(
            DataError, match=r"lack item 'b' label 2; give every \(item, label\) pair"
        ):
            Predictions.from_frame(df, layout="long")

    def test_long_labels_off_scale(self):
        df = pd.DataFrame({"item": ["a", "a"], "label": [1, 2], "prob": [0.5, 0.5]})
        with pytest.raises(
            DataError, match=r"Prediction labels 1, 2 do not match the scale 1, 2, 3"
        ):
            Predictions.from_frame(df, layout="long", scale=Scale.ordinal([1, 2, 3]))

    def test_bad_layout(self):
        with pytest.raises(ValueError, match=r"The 'layout' parameter of Predictions.from_frame"):
            Predictions.from_frame(pd.DataFrame(), layout="tall")  # type: ignore[arg-type]


class TestLongWithoutItem:
    def test_long_layout_needs_an_item_column(self):
        df = pd.DataFrame({"label": [0, 1], "prob": [0.5, 0.5]})
        with pytest.raises(DataError, match="Long predictions need an item column"):
            Predictions.from_frame(df, item=None, layout="long")


class TestAlign:
    def test_reorders_items_and_labels(self):
        pred = Predictions.from_array(
            [[0.0, 1.0, 0.0], [0.1, 0.2, 0.7], [0.5, 0.0, 0.5]],
            items=["b", "c", "a"],
            scale=[2, 3, 1],
        )
        p, c = pred.align(_counts())
        assert list(p.items) == ["a", "b", "c"]
        assert p.scale == c.scale
        np.testing.assert_allclose(p.values, [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0], [0.7, 0.1, 0.2]])

    def test_item_sets_differ(self):
        pred = Predictions.from_array(np.full((3, 3), 1 / 3), items=["a", "b", "zz"])
        with pytest.raises(
            DataError,
            match=r"`predictions` and the annotations cover different items: 1 of 3 annotated items have no "
            r"prediction \('c'\); 1 predicted items are not annotated \('zz'\)\. Pass how='inner'",
        ):
            pred.align(_counts())

    def test_inner_keeps_common_items(self):
        pred = Predictions.from_array(np.full((3, 3), 1 / 3), items=["c", "a", "zz"])
        with pytest.warns(
            DataDroppedWarning, match=r"`m1`: kept the common items; 1 of 3 annotated"
        ):
            p, c = pred.align(_counts(), how="inner", name="m1")
        assert list(p.items) == list(c.items) == ["a", "c"]
        assert c.values.tolist() == [[3, 1, 0], [1, 1, 1]]

    def test_inner_with_nothing_in_common(self):
        pred = Predictions.from_array(np.full((1, 3), 1 / 3), items=["q"])
        with pytest.raises(DataError, match="have no item in common"):
            pred.align(_counts(), how="inner")

    def test_item_id_types_differ(self):
        pred = Predictions.from_array(np.full((3, 3), 1 / 3), items=[1, 2, 3])
        with pytest.raises(
            DataError, match=r"the ids are integer in `predictions` but string in the"
        ):
            pred.align(_counts())

    def test_label_sets_differ(self):
        pred = Predictions.from_array(
            np.full((3, 3), 1 / 3), items=["a", "b", "c"], scale=[1, 2, 4]
        )
        with pytest.raises(
            DataError,
            match=r"labels differ from the annotations' labels: only in the predictions 4; only in the "
            r"annotations 3\. Rename the columns",
        ):
            pred.align(_counts())

    def test_without_scale_column_count(self):
        pred = Predictions.from_array(np.full((3, 2), 0.5))
        with pytest.raises(
            DataError, match=r"`predictions` has 2 columns but the annotations have 3 labels"
        ):
            pred.align(_counts())

    def test_without_items_row_count(self):
        pred = Predictions.from_array(np.full((2, 3), 1 / 3))
        with pytest.raises(DataError, match=r"has 2 rows without item ids but there are 3 items"):
            pred.align(_counts())

    def test_without_items_by_position(self):
        pred = Predictions.from_array(np.full((3, 3), 1 / 3))
        p, _ = pred.align(_counts())
        assert list(p.items) == ["a", "b", "c"]

    def test_bad_how(self):
        pred = Predictions.from_array(np.full((3, 3), 1 / 3))
        with pytest.raises(ValueError, match=r"The 'how' parameter of Predictions.align"):
            pred.align(_counts(), how="outer")  # type: ignore[arg-type]

    @given(count_matrices(min_items=1, max_items=15, min_k=3, max_k=3), st.randoms(), st.data())
    @settings(max_examples=50, deadline=None)
    def test_permutation_invariance(self, arr, rnd, data):
        n = arr.shape[0]
        counts = LabelCounts.from_array(arr, items=[f"i{k}" for k in range(n)])
        q = data.draw(simplex_rows(n=n, k=3))
        order = list(range(n))
        rnd.shuffle(order)
        cols = [2, 0, 1]
        shuffled = Predictions.from_array(
            q[np.ix_(order, cols)],
            items=[f"i{k}" for k in order],
            scale=[cols[0], cols[1], cols[2]],
        )
        p, _ = shuffled.align(counts)
        np.testing.assert_allclose(p.values, q)
        assert list(p.items) == list(counts.items)


def test_align_to_the_same_item_index_keeps_the_rows():
    counts = LabelCounts.from_array([[1, 2], [3, 0], [0, 2]], items=["x", "y", "z"])
    values = np.array([[0.2, 0.8], [0.9, 0.1], [0.5, 0.5]])
    pred = Predictions(values, counts.items, counts.scale)
    got, same = pred.align(counts)
    assert same is counts
    np.testing.assert_array_equal(got.values, values)
    # an equal index that is another object goes through the general path, same result
    other = Predictions(values, pd.Index(["x", "y", "z"]), counts.scale)
    np.testing.assert_array_equal(other.align(counts)[0].values, values)
