"""Tests of dissensus.data._scale."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dissensus import Annotations, DataDroppedWarning, DataError, LabelSpellingWarning, Scale
from dissensus.data import read_annotations


class TestConstructors:
    def test_ordinal_keeps_given_order(self):
        s = Scale.ordinal([1, 0, -1, -2, -3])
        assert s.labels == (1, 0, -1, -2, -3)
        assert s.ordered
        assert s.K == 5
        assert len(s) == 5

    def test_nominal(self):
        s = Scale.nominal(["POS", "NEG"])
        assert not s.ordered
        assert list(s) == ["POS", "NEG"]

    def test_integral_floats_become_ints(self):
        s = Scale.ordinal([1.0, 2.0, 2.5])
        assert s.labels == (1, 2, 2.5)
        assert type(s.labels[0]) is int

    def test_numpy_scalars_unwrapped(self):
        s = Scale.nominal(np.array([3, 1]))
        assert s.labels == (3, 1)
        assert all(type(v) is int for v in s.labels)

    def test_bool_labels_are_ints(self):
        assert Scale.nominal([False, True]).labels == (0, 1)

    def test_empty_refused(self):
        with pytest.raises(DataError, match="at least one label"):
            Scale.nominal([])

    def test_repeated_labels_refused(self):
        with pytest.raises(DataError, match=r"must be distinct; repeated: 1"):
            Scale.nominal([1, 2, 1.0])

    def test_mixed_types_refused(self):
        with pytest.raises(DataError, match="mix strings and numbers"):
            Scale.nominal([1, "a"])

    def test_nan_label_refused(self):
        with pytest.raises(DataError, match="cannot be nan"):
            Scale.nominal([1.0, float("nan")])

    def test_unsupported_type_refused(self):
        with pytest.raises(DataError, match=r"ints, floats or strings; got \(1\+2j\)"):
            Scale.nominal([1 + 2j])

    def test_repr(self):
        assert repr(Scale.ordinal([-3, -2])) == "Scale.ordinal([-3, -2])"
        assert repr(Scale.nominal(["a"])) == "Scale.nominal(['a'])"

    def test_equality(self):
        assert Scale.ordinal([1, 2]) == Scale.ordinal([1.0, 2.0])
        assert Scale.ordinal([1, 2]) != Scale.nominal([1, 2])

    def test_with_order(self):
        assert Scale.nominal([1, 2]).with_order(True) == Scale.ordinal([1, 2])


class TestInfer:
    def test_numbers_sorted_and_ordinal(self):
        s = Scale.infer([3, 1, 2, 1, np.nan])
        assert s == Scale.ordinal([1, 2, 3])

    def test_numbers_nominal_when_asked(self):
        assert not Scale.infer([2, 1], ordered=False).ordered

    def test_half_stars(self):
        s = Scale.infer([0.5, 5.0, 4.5, 1.0])
        assert s.labels == (0.5, 1, 4.5, 5)
        np.testing.assert_array_equal(s.values, [0.5, 1.0, 4.5, 5.0])

    def test_strings_sorted_and_nominal(self):
        s = Scale.infer(pd.Series(["POS", "NEG", None, "POS"]))
        assert s == Scale.nominal(["NEG", "POS"])

    def test_ordered_strings_refused(self):
        with pytest.raises(DataError, match=r"Cannot infer the order of string labels.*--labels"):
            Scale.infer(["low", "high"], ordered=True)

    def test_mixed_refused(self):
        with pytest.raises(DataError, match=r"mix strings and numbers.*astype\(str\)"):
            Scale.infer([1, "a"])

    def test_all_missing_refused(self):
        with pytest.raises(DataError, match="no non-missing labels"):
            Scale.infer([np.nan, None])


class TestValuesAndIndex:
    def test_values_numeric(self):
        np.testing.assert_array_equal(Scale.ordinal([-3, 1]).values, [-3.0, 1.0])
        assert Scale.ordinal([-3, 1]).is_numeric

    def test_values_strings_type_error(self):
        with pytest.raises(TypeError, match="are not numbers; interval and ratio"):
            _ = Scale.nominal(["a", "b"]).values

    def test_index(self):
        s = Scale.ordinal([-3, -2, -1, 0, 1])
        assert s.index(0) == 3
        assert s.index(0.0) == 3
        assert s.index(np.int64(-3)) == 0

    def test_index_missing_label(self):
        with pytest.raises(DataError, match=r"Label 7 is not on the scale -3, -2"):
            Scale.ordinal([-3, -2]).index(7)

    def test_contains(self):
        s = Scale.nominal(["a", "b"])
        assert "a" in s
        assert "c" not in s
        assert np.float64("nan") not in s


class TestEncode:
    def test_numeric(self):
        s = Scale.ordinal([1, 2, 3])
        np.testing.assert_array_equal(s.encode([3, 1, 2.0, 4]), [2, 0, 1, -1])

    def test_missing_is_minus_one(self):
        s = Scale.ordinal([1, 2])
        np.testing.assert_array_equal(s.encode(pd.Series([1.0, np.nan, 2.0])), [0, -1, 1])

    def test_object_column_text_never_matches_numbers(self):
        s = Scale.ordinal([1, 2])
        codes = s.encode(pd.Series([1, "2", 2.0, None, True], dtype=object))
        # True is 1, as Scale.nominal([True]) is Scale.nominal([1])
        np.testing.assert_array_equal(codes, [0, -1, 1, -1, 0])

    def test_strings(self):
        s = Scale.nominal(["NEG", "POS"])
        np.testing.assert_array_equal(s.encode(np.array(["POS", "NEG", "x"])), [1, 0, -1])

    def test_string_scale_numbers_do_not_match(self):
        s = Scale.nominal(["1", "2"])
        np.testing.assert_array_equal(s.encode([1, "1"]), [-1, 0])

    def test_pandas_string_dtype(self):
        s = Scale.nominal(["a", "b"])
        ser = pd.Series(["b", None, "a"], dtype="string")
        np.testing.assert_array_equal(s.encode(ser), [1, -1, 0])

    def test_empty(self):
        assert Scale.ordinal([1]).encode([]).shape == (0,)

    @given(st.lists(st.integers(-3, 1), max_size=50))
    @settings(max_examples=50, deadline=None)
    def test_encode_decodes_back(self, values):
        s = Scale.ordinal([-3, -2, -1, 0, 1])
        codes = s.encode(pd.Series(values, dtype=object))
        assert [s.labels[c] for c in codes] == values


class TestLabelText:
    """One check of label text (dissensus._validation) on every reader path."""

    @staticmethod
    def _read(tmp_path, fmt: str, labels: list, **options):
        df = pd.DataFrame(
            {
                "item": [1, 1, 2, 2, 3, 3][: len(labels)],
                "annotator": list("abab" * 2)[: len(labels)],
            }
        )
        df["label"] = labels
        if fmt == "frame":
            return Annotations.from_frame(df, **options)
        path = tmp_path / f"a.{fmt}"
        if fmt == "csv":
            df.to_csv(path, index=False)
        elif fmt == "jsonl":
            df.to_json(path, orient="records", lines=True)
        else:
            df.to_parquet(path)
        return read_annotations(path, **options)

    @pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet", "frame"])
    @pytest.mark.parametrize("stray", ["x", "NA", "True"])
    def test_stray_text_among_numbers_is_refused(self, tmp_path, fmt, stray):
        labels = ["1", "2", "3", stray] if fmt != "csv" else [1, 2, 3, stray]
        with pytest.raises(
            DataError, match=f"except '{stray}' at .*--na-values {stray}\\).*--dropna"
        ):
            self._read(tmp_path, fmt, labels)

    def test_stray_marked_missing_reads_as_numbers(self, tmp_path):
        with pytest.warns(DataDroppedWarning):
            ann = self._read(tmp_path, "csv", [1, 2, 3, "NA"], na_values=["NA"], dropna=True)
        assert ann.scale.labels == (1, 2, 3)

    def test_given_scale_of_text_labels_is_kept(self, tmp_path):
        ann = self._read(tmp_path, "csv", ["0", "1", "unsure", "1"], scale=["0", "1", "unsure"])
        assert ann.scale.labels == ("0", "1", "unsure")

    @pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet", "frame"])
    @pytest.mark.parametrize(
        "variant", ["pos\u200b", "pos\ufeff", "pos\u00a0", "pos ", "po\u0301s"], ids=repr
    )
    def test_invisible_variants_warn_with_both(self, tmp_path, fmt, variant):
        other = "p\u00f3s" if "\u0301" in variant else "pos"
        with pytest.warns(
            LabelSpellingWarning, match=f"{other!r} vs {variant!r}".replace("\\", "\\\\")
        ):
            ann = self._read(tmp_path, fmt, [other, variant, "neg", "neg"])
        assert ann.scale.K == 3  # kept apart, as written, but not silently

    def test_lone_invisible_character_warns(self):
        df = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": ["pos\u200b", "neg"]})
        with pytest.warns(LabelSpellingWarning, match="U\\+200B"):
            Annotations.from_frame(df)

    def test_ordered_categorical_order_is_kept(self):
        cat = pd.Categorical(
            ["low", "high", "mid", "low"], categories=["low", "mid", "high"], ordered=True
        )
        df = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": list("abab"), "label": cat})
        ann = Annotations.from_frame(df)
        assert ann.scale == Scale.ordinal(["low", "mid", "high"])
        assert ann.counts().values.tolist() == [[1, 0, 1], [1, 1, 0]]

    def test_unordered_categorical_is_nominal_in_its_order(self):
        cat = pd.Categorical(["b", "a"], categories=["b", "a"])
        df = pd.DataFrame({"item": [1, 1], "annotator": list("ab"), "label": cat})
        assert Annotations.from_frame(df).scale == Scale.nominal(["b", "a"])


def test_list_labels_point_to_set_annotations() -> None:
    # a list per annotation is a set of labels: "unhashable type: 'list'" said nothing of that
    df = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": [["x", "y"], ["x"]]})
    with pytest.raises(DataError, match=r"hold collections.*SetAnnotations.*--sets"):
        Annotations.from_frame(df)
