"""Tests of dissensus.data._annotations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dissensus import Annotations, DataDroppedWarning, DataError, LabelSpellingWarning, Scale
from dissensus.data import read_annotations
from dissensus.data._annotations import _repeated


def _long() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item": ["x", "x", "x", "y", "y", "z"],
            "annotator": ["a", "b", "c", "a", "b", "c"],
            "label": [1, 2, 2, 3, 3, 1],
            "year": [2020, 2020, 2020, 2021, 2021, 2021],
        }
    )


class TestFromFrame:
    def test_basic(self):
        ann = Annotations.from_frame(_long())
        assert ann.n_items == 3
        assert ann.n_annotators == 3
        assert ann.n_annotations == 6
        assert len(ann) == 6
        assert ann.has_annotators
        assert ann.scale == Scale.ordinal([1, 2, 3])
        assert list(ann.items) == ["x", "y", "z"]
        assert ann.annotations_per_item.tolist() == [3, 2, 1]
        assert ann.counts().values.tolist() == [[1, 2, 0], [0, 0, 2], [1, 0, 0]]
        assert "6 annotations of 3 items, 3 annotators" in repr(ann)

    def test_custom_columns_and_meta(self):
        df = _long().rename(columns={"item": "tid", "annotator": "wid", "label": "y"})
        ann = Annotations.from_frame(df, item="tid", annotator="wid", label="y", meta=["year"])
        assert ann.items.name == "tid"
        assert ann.meta is not None
        assert ann.meta["year"].tolist() == [2020, 2021, 2021]
        assert ann.counts().groups("year").tolist() == [2020, 2021, 2021]

    def test_scale_as_sequence_is_ordinal(self):
        ann = Annotations.from_frame(_long(), scale=[3, 2, 1])
        assert ann.scale == Scale.ordinal([3, 2, 1])
        assert ann.counts().values[0].tolist() == [0, 2, 1]

    def test_scale_with_unused_labels(self):
        ann = Annotations.from_frame(_long(), scale=Scale.ordinal([0, 1, 2, 3, 4]))
        assert ann.counts().values.shape == (3, 5)

    def test_ordered_overrides_a_given_scale(self):
        ann = Annotations.from_frame(_long(), scale=Scale.ordinal([1, 2, 3]), ordered=False)
        assert not ann.scale.ordered

    def test_without_annotators(self):
        ann = Annotations.from_frame(_long().drop(columns="annotator"), annotator=None)
        assert not ann.has_annotators
        assert ann.annotators is None
        assert "no annotator ids" in repr(ann)
        assert ann.counts().n.tolist() == [3, 2, 1]
        with pytest.raises(
            DataError, match=r"n_annotators needs annotator ids.*annotator='<column>'"
        ):
            _ = ann.n_annotators
        with pytest.raises(DataError, match="rater_matrix needs annotator ids"):
            ann.rater_matrix()

    def test_not_a_frame(self):
        with pytest.raises(TypeError, match="expects a pandas DataFrame; got dict"):
            Annotations.from_frame({"item": [1]})  # type: ignore[arg-type]

    def test_bad_duplicates_option(self):
        with pytest.raises(
            ValueError, match=r"The 'duplicates' parameter of Annotations.from_frame"
        ):
            Annotations.from_frame(_long(), duplicates="drop")  # type: ignore[arg-type]

    def test_missing_item_column(self):
        with pytest.raises(
            DataError, match=r"No item column 'task'.*name the column with item=\.\.\."
        ):
            Annotations.from_frame(_long(), item="task")

    @pytest.mark.parametrize(
        ("roles", "first", "second"),
        [
            ({"item": "item", "label": "item"}, "item", "label"),
            ({"annotator": "label"}, "annotator", "label"),
            ({"item": "annotator"}, "item", "annotator"),
        ],
    )
    def test_one_column_in_two_roles_is_refused(self, roles, first, second):
        column = next(iter(roles.values()))
        with pytest.raises(
            DataError,
            match=rf"Column '{column}' is named as both the {first} column and the {second} column;.*{first}=\.\.\. or {second}=\.\.\.",
        ):
            Annotations.from_frame(_long(), **roles)

    def test_missing_annotator_column(self):
        with pytest.raises(DataError, match=r"No annotator column 'worker'.*pass annotator=None"):
            Annotations.from_frame(_long(), annotator="worker")

    def test_missing_meta_column(self):
        with pytest.raises(
            DataError, match=r"No meta column 'split'.*name the column with meta=\.\.\."
        ):
            Annotations.from_frame(_long(), meta=["split"])

    def test_missing_label_values(self):
        df = _long()
        df.loc[4, "label"] = np.nan
        with pytest.raises(
            DataError, match=r"Missing 'label' values: 1 in row 4; fill them, or pass dropna=True"
        ):
            Annotations.from_frame(df)

    def test_missing_values_named_by_file_line(self):
        df = _long().set_axis(pd.RangeIndex(2, 8, name="line"))
        df.loc[3, "item"] = None
        with pytest.raises(DataError, match=r"Missing 'item' values in f\.csv: 1 in line 3;"):
            Annotations.from_frame(df, source="f.csv")

    def test_dropna_reports_what_it_dropped(self):
        df = _long()
        df.loc[[1, 4], "label"] = np.nan
        with pytest.warns(
            DataDroppedWarning, match=r"Dropped 2 of 6 rows with missing values \(label: 2\)"
        ):
            ann = Annotations.from_frame(df, dropna=True)
        assert ann.n_annotations == 4

    def test_dropna_with_repeated_index_drops_by_position(self):
        df = _long().set_axis([0, 0, 0, 1, 1, 1])
        df.iloc[0, 2] = np.nan
        with pytest.warns(DataDroppedWarning):
            ann = Annotations.from_frame(df, dropna=True)
        assert ann.n_annotations == 5

    def test_labels_off_scale(self):
        with pytest.raises(
            DataError,
            match=r"2 labels are not on the scale 1, 2: 3 at rows 3, 4\. Fix the labels or pass a scale",
        ):
            Annotations.from_frame(_long(), scale=Scale.ordinal([1, 2]))

    def test_labels_off_scale_show_file_lines(self):
        df = _long().set_axis(pd.RangeIndex(2, 8, name="line"))
        with pytest.raises(DataError, match=r"in a\.csv are not on the scale.* at lines 5, 6"):
            Annotations.from_frame(df, scale=[1, 2], source="a.csv")

    def test_string_labels_against_numeric_scale(self):
        df = _long().assign(label=lambda d: d["label"].astype(str))
        with pytest.raises(
            DataError, match=r"6 labels are not on the scale 1, 2, 3: '1', '2', '3'"
        ):
            Annotations.from_frame(df, scale=[1, 2, 3])

    def test_duplicate_pairs_refused(self):
        df = pd.concat([_long(), _long().iloc[[0]]], ignore_index=True)
        with pytest.raises(
            DataError,
            match=r"1 repeated \(item, annotator\) pairs, e\.g\. item 'x' by annotator 'a' at rows 0, 6\. "
            r"Pass duplicates='first', 'last' or 'keep'",
        ):
            Annotations.from_frame(df)

    @pytest.mark.parametrize(("rule", "label"), [("first", 1), ("last", 3)])
    def test_duplicates_first_last(self, rule, label):
        extra = pd.DataFrame({"item": ["x"], "annotator": ["a"], "label": [3], "year": [2020]})
        df = pd.concat([_long(), extra], ignore_index=True)
        with pytest.warns(DataDroppedWarning, match=rf"Dropped 1 repeated.*duplicates='{rule}'"):
            ann = Annotations.from_frame(df, duplicates=rule)
        frame = ann.to_frame()
        got = frame[(frame["item"] == "x") & (frame["annotator"] == "a")]["label"].tolist()
        assert got == [label]
        assert ann.n_annotations == 6

    def test_duplicates_keep_counts_every_annotation(self):
        df = pd.concat([_long(), _long().iloc[[0]]], ignore_index=True)
        ann = Annotations.from_frame(df, duplicates="keep")
        assert ann.counts().n.tolist() == [4, 2, 1]
        with pytest.raises(DataError, match=r"labelled an item more than once.*duplicates='first'"):
            ann.rater_matrix()

    def test_meta_missing_values(self):
        df = _long().astype({"year": float})
        df.loc[[3, 4], "year"] = np.nan  # item y: missing throughout is a (missing) value
        ann = Annotations.from_frame(df, meta=["year"])
        assert ann.meta is not None
        assert ann.meta["year"].dtype == np.float64
        assert ann.meta["year"].isna().tolist() == [False, True, False]
        df.loc[3, "year"] = 2021.0  # missing in one row only: varies
        with pytest.raises(DataError, match="meta column 'year' varies within item 'y'"):
            Annotations.from_frame(df, meta=["year"])

    def test_meta_after_dropping_duplicates(self):
        extra = pd.DataFrame({"item": ["z"], "annotator": ["c"], "label": [2], "year": [2021]})
        df = pd.concat([_long(), extra], ignore_index=True)
        with pytest.warns(DataDroppedWarning):
            ann = Annotations.from_frame(df, meta=["year"], duplicates="last")
        assert ann.meta["year"].tolist() == [2020, 2021, 2021]
        assert ann.counts().values.tolist() == [[1, 2, 0], [0, 0, 2], [0, 1, 0]]

    def test_meta_must_be_constant_per_item(self):
        df = _long()
        df.loc[1, "year"] = 1999
        with pytest.raises(DataError, match="meta column 'year' varies within item 'x'"):
            Annotations.from_frame(df, meta=["year"])


class TestFromWide:
    def test_basic(self):
        wide = pd.DataFrame({"item": ["x", "y"], "a": [1, np.nan], "b": [2, 2], "c": [np.nan, 1]})
        ann = Annotations.from_wide(wide, annotators=["a", "b", "c"])
        assert ann.counts().values.tolist() == [[1, 1], [1, 1]]
        assert list(ann.annotators) == ["a", "b", "c"]
        np.testing.assert_array_equal(ann.rater_matrix(), [[0, 1, np.nan], [np.nan, 1, 0]])

    def test_default_columns_exclude_item_and_meta(self):
        wide = pd.DataFrame({"item": [1, 2], "g": ["u", "v"], "r1": [1, 2], "r2": [2, 2]})
        ann = Annotations.from_wide(wide, meta=["g"])
        assert list(ann.annotators) == ["r1", "r2"]
        assert ann.meta["g"].tolist() == ["u", "v"]

    def test_index_as_item(self):
        wide = pd.DataFrame({"r1": [1, 2], "r2": [2, 2]}, index=pd.Index(["p", "q"], name="id"))
        ann = Annotations.from_wide(wide, item=None)
        assert list(ann.items) == ["p", "q"]

    def test_missing_item_ids(self):
        wide = pd.DataFrame({"item": ["x", None], "a": [1, 2]})
        with pytest.raises(DataError, match=r"Missing item ids at row 1"):
            Annotations.from_wide(wide)

    def test_repeated_item_ids(self):
        wide = pd.DataFrame({"item": ["x", "x"], "a": [1, 2]})
        with pytest.raises(
            DataError, match=r"Item ids repeat in a wide table \('x' at rows 0, 1\)"
        ):
            Annotations.from_wide(wide)

    def test_missing_annotator_column(self):
        wide = pd.DataFrame({"item": ["x"], "a": [1]})
        with pytest.raises(
            DataError, match=r"No annotator column 'zz'.*name the column with annotators=\.\.\."
        ):
            Annotations.from_wide(wide, annotators=["a", "zz"])

    def test_no_annotator_columns(self):
        wide = pd.DataFrame({"item": ["x"]})
        with pytest.raises(DataError, match=r"No annotator columns in the wide table; name them"):
            Annotations.from_wide(wide)

    def test_items_without_annotations_are_reported(self):
        wide = pd.DataFrame({"item": ["x", "y"], "a": [1, np.nan]})
        with pytest.warns(DataDroppedWarning, match=r"1 items have no annotations at all.*'y'"):
            ann = Annotations.from_wide(wide)
        assert list(ann.items) == ["x"]


class TestConversions:
    def test_to_frame_round_trip(self):
        ann = Annotations.from_frame(_long())
        back = Annotations.from_frame(ann.to_frame())
        np.testing.assert_array_equal(back.counts().values, ann.counts().values)
        assert list(back.items) == list(ann.items)

    def test_rater_matrix_codes(self):
        ann = Annotations.from_frame(_long())
        np.testing.assert_array_equal(
            ann.rater_matrix(), [[0, 1, 1], [2, 2, np.nan], [np.nan, np.nan, 0]]
        )


@st.composite
def _long_tables(draw: st.DrawFn) -> pd.DataFrame:
    """Long tables with unique (item, annotator) pairs, as from a wide rater matrix."""
    n_items = draw(st.integers(1, 12))
    n_raters = draw(st.integers(1, 5))
    cells = draw(
        hnp.arrays(np.float64, (n_items, n_raters), elements=st.sampled_from([np.nan, 1, 2, 3]))
    )
    cells[:, 0] = np.where(np.isnan(cells[:, 0]), 1.0, cells[:, 0])  # every item labelled
    r, c = np.nonzero(~np.isnan(cells))
    return pd.DataFrame({"item": r * 7, "annotator": [f"w{j}" for j in c], "label": cells[r, c]})


class TestInvariants:
    @given(_long_tables())
    @settings(max_examples=60, deadline=None)
    def test_counts_sum_to_annotations_per_item(self, df):
        ann = Annotations.from_frame(df)
        counts = ann.counts()
        np.testing.assert_array_equal(counts.n, ann.annotations_per_item.to_numpy())
        np.testing.assert_array_equal(counts.n, df.groupby("item", sort=False).size().to_numpy())
        assert counts.values.sum() == len(df)

    @given(_long_tables())
    @settings(max_examples=60, deadline=None)
    def test_wide_equals_long(self, df):
        wide = df.pivot_table(index="item", columns="annotator", values="label", aggfunc="first")
        wide = wide.reset_index()
        raters = [c for c in wide.columns if c != "item"]
        from_wide = Annotations.from_wide(wide, annotators=raters)
        from_long = Annotations.from_frame(df)
        a = from_wide.counts().to_frame().sort_index()
        b = from_long.counts().to_frame().sort_index()
        pd.testing.assert_frame_equal(a, b, check_names=False)

    @given(_long_tables(), st.randoms())
    @settings(max_examples=40, deadline=None)
    def test_row_order_does_not_change_counts(self, df, rnd):
        order = list(range(len(df)))
        rnd.shuffle(order)
        a = Annotations.from_frame(df, scale=[1, 2, 3]).counts().to_frame().sort_index()
        b = Annotations.from_frame(df.iloc[order], scale=[1, 2, 3]).counts().to_frame().sort_index()
        pd.testing.assert_frame_equal(a, b)


class TestRepeatedPairs:
    """The (item, annotator) repeat check sorts instead of hashing (memory); same answer."""

    @given(
        keys=st.lists(st.integers(0, 12), max_size=60),
        keep=st.sampled_from(["first", "last"]),
    )
    def test_matches_pandas_duplicated(self, keys, keep):
        k = np.asarray(keys, dtype=np.int64)
        want = pd.Series(k, dtype=np.int64).duplicated(keep=keep).to_numpy()
        np.testing.assert_array_equal(_repeated(k, keep=keep), want)


class TestIdText:
    """Ids get the label text checks: same refusals, same warnings, the column and rows named."""

    @staticmethod
    def _csv(tmp_path, rows: str):
        path = tmp_path / "a.csv"
        path.write_text("item,annotator,label\n" + rows, encoding="utf-8")
        return path

    @pytest.mark.parametrize(
        ("first", "second"),
        [(" 7", "7"), ("7 ", "7"), ("7\u200b", "7"), ("\ufeff7", "7"), ("caf\u00e9", "cafe\u0301")],
        ids=repr,
    )
    def test_item_variants_warn_naming_both(self, tmp_path, first, second):
        path = self._csv(tmp_path, f"{first},a,pos\n{second},b,pos\n")
        with pytest.warns(LabelSpellingWarning, match="Item ids in column 'item'") as rec:
            ann = read_annotations(path)
        assert repr(first) in str(rec[0].message)
        assert repr(second) in str(rec[0].message)
        assert ann.n_items == 2  # kept as written, but not silently

    def test_annotator_trailing_space_warns(self, tmp_path):
        path = self._csv(tmp_path, "1,a,pos\n1,a ,neg\n")
        with pytest.warns(
            LabelSpellingWarning, match="Annotator ids in column 'annotator'.*line 3"
        ):
            read_annotations(path)

    @pytest.mark.parametrize("bad", ['"1\n"', "1\x00"], ids=repr)
    def test_control_character_in_id_is_refused(self, tmp_path, bad):
        path = self._csv(tmp_path, f"{bad},a,pos\n2,b,pos\n")
        with pytest.raises(DataError, match=r"Item id .* at line 2 contains the control character"):
            read_annotations(path)

    def test_lone_defect_warns_in_a_frame(self):
        df = pd.DataFrame({"item": ["x\u00a0", "y"], "annotator": ["a", "b"], "label": [1, 2]})
        with pytest.warns(LabelSpellingWarning, match="U\\+00A0"):
            Annotations.from_frame(df)

    def test_case_is_not_a_spelling_variant_of_an_id(self):
        df = pd.DataFrame({"item": ["A1", "a1"], "annotator": ["a", "b"], "label": [1, 2]})
        assert Annotations.from_frame(df).n_items == 2  # no warning (warnings are errors here)
