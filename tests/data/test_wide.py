"""Tests of dissensus.data._counts (wide tables): numeric wide tables straight to codes and counts.

The fast path must give exactly what the general path (long table through
``Annotations.from_frame``) gives; the general path is reached by casting the
annotator columns to ``object``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dissensus import Annotations, DataDroppedWarning, DataError, LabelCounts, Scale
from dissensus.data._counts import encode_wide, numeric_wide


def _same(a: Annotations, b: Annotations) -> None:
    for f in ("item_codes", "label_codes", "annotator_codes"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)
        assert getattr(a, f).dtype == np.int64
    pd.testing.assert_index_equal(a.items, b.items)
    assert a.annotators is not None
    assert b.annotators is not None
    pd.testing.assert_index_equal(a.annotators, b.annotators)
    assert a.scale == b.scale
    if a.meta is None:
        assert b.meta is None
    else:
        pd.testing.assert_frame_equal(a.meta, b.meta)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataDroppedWarning)
        return fn(*args, **kwargs)


@st.composite
def wide_tables(draw: st.DrawFn) -> np.ndarray:
    """(N, M) float tables: whole or half-step labels, some negative, NaN gaps."""
    n = draw(st.integers(1, 15))
    m = draw(st.integers(1, 6))
    step = draw(st.sampled_from([1.0, 0.5, 0.25]))
    shift = draw(st.integers(-3, 3))
    cells = draw(hnp.arrays(np.float64, (n, m), elements=st.sampled_from([np.nan, 0, 1, 2, 3, 7])))
    cells[0, 0] = 1.0  # at least one label
    return cells * step + shift


class TestNumericWide:
    def test_frame_is_read_annotator_major(self):
        df = pd.DataFrame({"a": [1.0, 2.0], "b": [3, 4]})
        VT = numeric_wide(df)
        assert VT is not None
        np.testing.assert_array_equal(VT, [[1, 2], [3, 4]])
        assert VT.flags.c_contiguous

    @pytest.mark.parametrize(
        "column",
        [["x", "y"], [True, False], pd.Categorical([1, 2]), [1, "y"]],
        ids=["strings", "bools", "categorical", "mixed"],
    )
    def test_non_numbers_take_the_general_path(self, column):
        assert numeric_wide(pd.DataFrame({"a": [1.0, 2.0], "b": column})) is None

    def test_nullable_integers_are_numbers(self):
        df = pd.DataFrame({"a": pd.array([1, None], dtype="Int64")})
        VT = numeric_wide(df)
        assert VT is not None
        np.testing.assert_array_equal(VT, [[1, np.nan]])


class TestEncodeWide:
    def test_codes_empty_and_off_scale(self):
        VT = np.array([[1.0, np.nan, 9.0]])
        wc = encode_wide(VT, Scale.ordinal([1, 2]))
        assert wc.codes.tolist() == [[0, 2, 3]]  # K = 2 empty, K + 1 off the scale
        assert wc.codes.dtype == np.int8
        with pytest.raises(
            DataError, match=r"^1 labels .*\(first in column 'c0'\) at rows \[2\]\."
        ):
            wc.check_on_scale(VT, ["c0"], "", lambda rows: f"rows {rows.tolist()}")

    def test_scale_order_is_kept(self):
        wc = encode_wide(np.array([[3.0, 1.0, 2.0]]), Scale.ordinal([3, 2, 1]))
        assert wc.codes.tolist() == [[0, 2, 1]]

    @pytest.mark.parametrize("values", [[0.5, 1.5, 1.0], [1.0, 1e6, 2.0]], ids=["halves", "wide"])
    def test_non_lattice_numbers_use_the_sorted_path(self, values):
        wc = encode_wide(np.array([values]), None)
        assert wc.scale == Scale.ordinal(sorted(values))
        assert wc.codes.tolist() == [list(np.argsort(np.argsort(values)))]

    def test_counts_above_the_comparison_limit(self):
        VT = np.array([np.arange(40.0), np.arange(40.0)])
        wc = encode_wide(VT, None)
        np.testing.assert_array_equal(wc.counts_t(), 2 * np.eye(40, dtype=np.int64))

    def test_infinite_values_are_refused(self):
        with pytest.raises(DataError, match="holds infinite values; a label cannot be inf"):
            encode_wide(np.array([[1.0, np.inf]]), None)

    def test_all_empty_needs_a_scale(self):
        with pytest.raises(DataError, match="Cannot infer a scale: the wide table has no labels"):
            encode_wide(np.full((2, 2), np.nan), None)
        wc = encode_wide(np.full((2, 2), np.nan), Scale.ordinal([1, 2]))
        assert wc.counts_t().tolist() == [[0, 0], [0, 0]]

    def test_string_scale_matches_no_number(self):
        wc = encode_wide(np.array([[1.0, np.nan]]), Scale.nominal(["a", "b"]))
        assert wc.codes.tolist() == [[3, 2]]


class TestAnnotationsFromWideFastPath:
    @given(wide_tables(), st.booleans())
    @settings(max_examples=80, deadline=None)
    def test_equals_general_path(self, cells, as_frame):
        data = pd.DataFrame(cells, columns=[f"r{j}" for j in range(cells.shape[1])])
        fast_in = data if as_frame else cells
        slow_in = data.astype(object) if as_frame else cells.astype(object)
        _same(
            _quiet(Annotations.from_wide, fast_in, item=None),
            _quiet(Annotations.from_wide, slow_in, item=None),
        )

    @given(wide_tables())
    @settings(max_examples=40, deadline=None)
    def test_counts_equal_label_counts_from_wide(self, cells):
        ann = _quiet(Annotations.from_wide, cells)
        lc = LabelCounts.from_wide(cells)
        assert lc.scale == ann.scale
        full = np.zeros_like(lc.values)
        full[ann.items.to_numpy()] = ann.counts().values
        np.testing.assert_array_equal(lc.values, full)

    def test_item_column_meta_and_given_scale(self):
        df = pd.DataFrame(
            {
                "id": ["p", "q", "r"],
                "g": [1, 2, 3],
                "a": [1, np.nan, np.nan],
                "b": [2, np.nan, 1],
            }
        )
        with pytest.warns(DataDroppedWarning, match=r"1 items have no annotations at all.*'q'"):
            fast = Annotations.from_wide(df, item="id", meta=["g"], scale=[2, 1])
        with pytest.warns(DataDroppedWarning):
            slow = Annotations.from_wide(
                df.astype({"a": object, "b": object}), item="id", meta=["g"], scale=[2, 1]
            )
        _same(fast, slow)
        assert fast.counts().values.tolist() == [[1, 1], [0, 1]]
        assert fast.meta is not None
        assert fast.meta["g"].tolist() == [1, 3]

    def test_annotators_in_order_of_first_appearance(self):
        wide = np.array([[np.nan, 1.0, np.nan], [2.0, np.nan, 1.0]])
        ann = Annotations.from_wide(wide)
        assert ann.annotators is not None
        assert list(ann.annotators) == [1, 0, 2]
        np.testing.assert_array_equal(ann.rater_matrix(), [[0, np.nan, np.nan], [np.nan, 1, 0]])

    def test_off_scale_names_file_lines_and_column(self):
        df = pd.DataFrame({"item": ["x", "y"], "a": [1, 5], "b": [5, 2]}, index=[2, 3])
        df.index.name = "line"
        with pytest.raises(
            DataError,
            match=r"2 labels in f\.csv are not on the scale 1, 2: 5\.0 \(first in column 'b'\) "
            r"at lines 2, 3\.",
        ):
            Annotations.from_wide(df, scale=[1, 2], source="f.csv")

    def test_array_refuses_item_and_meta(self):
        with pytest.raises(TypeError, match="An array has no item or meta columns"):
            Annotations.from_wide(np.ones((2, 2)), item="id")
        with pytest.raises(TypeError, match=r"2-D \(N items, M annotators\) array"):
            Annotations.from_wide(np.ones(3))


class TestLabelCountsFromWide:
    def test_frame_index_gives_items_and_empty_rows_stay(self):
        df = pd.DataFrame(
            {"a": [1, np.nan, 2], "b": [1, np.nan, np.nan]}, index=pd.Index(["u", "v", "w"])
        )
        lc = LabelCounts.from_wide(df)
        assert list(lc.items) == ["u", "v", "w"]
        assert lc.values.tolist() == [[2, 0], [0, 0], [0, 1]]

    def test_strings_take_the_general_path(self):
        df = pd.DataFrame({"a": ["POS", None, "NEG"], "b": ["POS", None, None]})
        lc = LabelCounts.from_wide(df)
        assert lc.scale == Scale.nominal(["NEG", "POS"])
        assert lc.values.tolist() == [[0, 2], [0, 0], [1, 0]]

    def test_repeated_item_ids_are_refused(self):
        df = pd.DataFrame({"a": [1, 2]}, index=["u", "u"])
        with pytest.raises(DataError, match="`items` must be unique; repeated ids: 'u'"):
            LabelCounts.from_wide(df)

    def test_off_scale_names_rows(self):
        with pytest.raises(
            DataError,
            match=r"1 labels are not on the scale 1, 2: 3\.0 \(first in column 0\) at rows 1\.",
        ):
            LabelCounts.from_wide(np.array([[1.0], [3.0]]), scale=[1, 2])

    def test_ordered_false(self):
        assert LabelCounts.from_wide([[1, 2]], ordered=False).scale == Scale.nominal([1, 2])

    def test_agreement_equals_the_long_route(self):
        from dissensus.agreement import fleiss_kappa, krippendorff_alpha  # noqa: PLC0415

        rng = np.random.default_rng(3)
        cells = rng.integers(1, 5, size=(60, 5)).astype(float)
        cells[rng.random(cells.shape) < 0.3] = np.nan
        cells[:, :2] = np.nan_to_num(cells[:, :2], nan=1.0)  # two ratings per item
        long = _quiet(Annotations.from_wide, pd.DataFrame(cells).astype(object), item=None)
        wide = LabelCounts.from_wide(cells)
        assert float(fleiss_kappa(wide)) == pytest.approx(float(fleiss_kappa(long)), abs=1e-14)
        for level in ("nominal", "ordinal", "interval"):
            assert float(krippendorff_alpha(wide, level=level)) == pytest.approx(
                float(krippendorff_alpha(long, level=level)), abs=1e-14
            )


def test_ordered_categorical_columns_keep_their_order() -> None:
    dtype = pd.CategoricalDtype(["low", "mid", "high"], ordered=True)
    wide = pd.DataFrame(
        {
            "item": [1, 2],
            "r1": pd.Series(["high", "low"], dtype=dtype),
            "r2": pd.Series(["mid", None], dtype=dtype),
        }
    )
    ann = Annotations.from_wide(wide)
    assert ann.scale == Scale.ordinal(["low", "mid", "high"])
    assert ann.counts().values.tolist() == [[0, 1, 1], [1, 0, 0]]
