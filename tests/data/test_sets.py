"""Tests of dissensus.data._sets (SetAnnotations: set-valued labels)."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dissensus import (
    DataDroppedWarning,
    DataError,
    LabelCounts,
    LabelSpellingWarning,
    Scale,
    SetAnnotations,
)
from dissensus.data import read_annotations
from dissensus.data._sets import format_set
from dissensus.metrics import get_metric
from dissensus.metrics.lewidi import multilabel_average_md, multilabel_error_rate

NLI = ["contradiction", "entailment", "neutral"]


def frame(labels: list[object], items: list[object] | None = None) -> pd.DataFrame:
    items = items if items is not None else [1, 1, 2, 2][: len(labels)]
    return pd.DataFrame(
        {"item": items, "annotator": ["a", "b", "a", "b"][: len(labels)], "label": labels}
    )


class TestFromFrame:
    def test_lists_tuples_sets_and_arrays(self) -> None:
        df = frame([["E", "N"], ("N",), {"C"}, np.array(["C", "E"])])
        sets = SetAnnotations.from_frame(df, scale=["C", "E", "N"])
        assert sets.indicators.astype(int).tolist() == [[0, 1, 1], [0, 0, 1], [1, 0, 0], [1, 1, 0]]
        assert sets.n_items == 2
        assert sets.n_annotators == 2
        assert sets.L == 3

    def test_universe_inferred_sorted(self) -> None:
        sets = SetAnnotations.from_frame(frame([["neutral"], ["entailment", "contradiction"]]))
        assert sets.scale.labels == tuple(NLI)
        assert not sets.scale.ordered

    def test_universe_keeps_the_order_given(self) -> None:
        sets = SetAnnotations.from_frame(frame([["x"], ["y", "x"]]), scale=["y", "x"])
        assert sets.indicators.astype(int).tolist() == [[0, 1], [1, 1]]
        assert sets.to_frame()["label"].tolist() == [("x",), ("y", "x")]

    def test_separator(self) -> None:
        sets = SetAnnotations.from_frame(frame(["E|N", "N", "", "C|E"]), label_sep="|")
        assert sets.indicators.astype(int).tolist() == [[0, 1, 1], [0, 0, 1], [0, 0, 0], [1, 1, 0]]

    def test_spaces_after_the_separator_warn_naming_the_variants(self) -> None:
        with pytest.warns(LabelSpellingWarning, match=r"' b' vs 'b'|'b' vs ' b'"):
            sets = SetAnnotations.from_frame(frame(["a, b", "b"]), label_sep=",")
        assert sets.scale.labels == (" b", "a", "b")

    def test_trailing_space_and_nfd_warn_naming_the_variants(self) -> None:
        with pytest.warns(LabelSpellingWarning, match=r"'a ' vs 'a'|'a' vs 'a '"):
            SetAnnotations.from_frame(frame([["a "], ["a"]]))
        nfc, nfd = unicodedata.normalize("NFC", "é"), unicodedata.normalize("NFD", "é")
        with pytest.warns(LabelSpellingWarning, match=f"{nfc!r} vs {nfd!r}"):
            SetAnnotations.from_frame(frame([[nfc], [nfd]]))

    def test_a_number_and_its_text_across_sets_are_refused(self) -> None:
        with pytest.raises(
            DataError, match=r"holds 1 as a number at row 0 and '1' as text at row 1"
        ):
            SetAnnotations.from_frame(frame([[1, 2], ["1"]]))

    def test_json_and_python_list_text(self) -> None:
        sets = SetAnnotations.from_frame(frame(['["E", "N"]', "['N']", "[]", '["C"]']))
        assert sets.indicators.astype(int).tolist() == [[0, 1, 1], [0, 0, 1], [0, 0, 0], [1, 0, 0]]

    def test_numbers_written_as_text_are_numbers(self) -> None:
        sets = SetAnnotations.from_frame(frame(["1|3", "2"]), label_sep="|", scale=[1, 2, 3])
        assert sets.indicators.astype(int).tolist() == [[1, 0, 1], [0, 1, 0]]

    def test_empty_set_is_an_annotation(self) -> None:
        sets = SetAnnotations.from_frame(frame([[], ["E"]]))
        assert sets.n_annotations == 2
        assert sets.indicators.astype(int).tolist() == [[0], [1]]
        assert sets.marginals().tolist() == [[0.5]]

    def test_missing_is_not_the_empty_set(self) -> None:
        df = frame([["E"], None, ["N"], np.nan])
        with pytest.raises(
            DataError, match=r"Missing 'label' values: 2 in rows 1, 3; .*dropna=True"
        ):
            SetAnnotations.from_frame(df)
        with pytest.warns(DataDroppedWarning, match=r"Dropped 2 of 4 rows"):
            sets = SetAnnotations.from_frame(df, dropna=True)
        assert sets.n_annotations == 2
        assert sets.indicators.astype(int).tolist() == [[1, 0], [0, 1]]

    def test_unknown_label_names_item_annotator_and_row(self) -> None:
        df = frame([["E"], ["N"], ["C", "X"], ["E"]])
        with pytest.raises(
            DataError,
            match=r"Set \['C', 'X'\] of item 2 by annotator 'a' at row 2 \(column 'label'\): 'X' is not in the label universe 'C', 'E', 'N'",
        ):
            SetAnnotations.from_frame(df, scale=["C", "E", "N"])

    def test_repeated_label_in_a_set(self) -> None:
        with pytest.raises(
            DataError, match=r"of item 1 by annotator 'b' at row 1 .*label 'N' appears twice"
        ):
            SetAnnotations.from_frame(frame([["E"], ["N", "E", "N"]]))

    def test_text_without_separator(self) -> None:
        with pytest.raises(DataError, match=r"at row 0: cannot read 'E\|N' as a set .*label_sep="):
            SetAnnotations.from_frame(frame(["E|N", ["E"]]))

    def test_scalar_cell(self) -> None:
        with pytest.raises(DataError, match=r"3 \(int\) is not a set of labels"):
            SetAnnotations.from_frame(frame([3, [3]]))

    def test_nested_cell(self) -> None:
        with pytest.raises(DataError, match=r"nests a collection"):
            SetAnnotations.from_frame(frame([[["E"]], ["E"]]))

    def test_repeated_pair_and_file_positions(self) -> None:
        df = frame([["E"], ["N"], ["E"]], items=[1, 1, 1]).assign(annotator=["a", "b", "a"])
        df.index = pd.Index([2, 3, 4], name="line")
        with pytest.raises(
            DataError,
            match=r"1 repeated \(item, annotator\) pairs in f\.csv, e\.g\. item 1 by annotator 'a' at lines 2, 4",
        ):
            SetAnnotations.from_frame(df, source="f.csv")
        with pytest.warns(DataDroppedWarning):
            last = SetAnnotations.from_frame(df, duplicates="last")
        assert last.to_frame()["label"].tolist() == [("N",), ("E",)]

    def test_meta_and_no_annotators(self) -> None:
        df = frame([["E"], ["N"], ["C"], ["E"]]).assign(year=[1, 1, 2, 2])
        sets = SetAnnotations.from_frame(df, annotator=None, meta=["year"])
        assert not sets.has_annotators
        assert sets.meta is not None
        assert sets.meta["year"].tolist() == [1, 2]
        with pytest.raises(DataError, match=r"rater_array needs annotator ids"):
            sets.rater_array()

    def test_not_a_frame(self) -> None:
        with pytest.raises(TypeError, match=r"expects a pandas DataFrame; got list"):
            SetAnnotations.from_frame([["E"]])  # type: ignore[arg-type]


class TestFromIndicators:
    def test_goemotions_layout(self) -> None:
        df = pd.DataFrame(
            {
                "id": ["t1", "t1", "t2"],
                "rater_id": [1, 2, 1],
                "joy": [1, 1, 0],
                "anger": [0, True, 0],
            }
        )
        sets = SetAnnotations.from_indicators(
            df, labels=["joy", "anger"], item="id", annotator="rater_id"
        )
        assert sets.scale == Scale.nominal(["joy", "anger"])
        assert sets.marginals().tolist() == [[1.0, 0.5], [0.0, 0.0]]

    def test_bad_values_and_partly_missing(self) -> None:
        df = pd.DataFrame({"item": [1, 2], "annotator": ["a", "a"], "x": [1, 2], "y": [0, 0]})
        with pytest.raises(DataError, match=r"Indicator column 'x' holds 2 at row 1"):
            SetAnnotations.from_indicators(df, labels=["x", "y"])
        df["x"] = [1.0, np.nan]
        with pytest.raises(DataError, match=r"missing and others not at row 1"):
            SetAnnotations.from_indicators(df, labels=["x", "y"])
        df["y"] = [0.0, np.nan]
        with pytest.warns(DataDroppedWarning):
            sets = SetAnnotations.from_indicators(df, labels=["x", "y"], dropna=True)
        assert sets.n_items == 1


class TestViews:
    @pytest.fixture
    def sets(self) -> SetAnnotations:
        df = pd.DataFrame(
            {
                "item": ["p", "p", "p", "q", "q"],
                "annotator": ["a", "b", "c", "a", "c"],
                "label": [["E", "N"], ["N"], ["E", "N"], ["C"], []],
            }
        )
        return SetAnnotations.from_frame(df, scale=["C", "E", "N"])

    def test_label_counts_and_marginals(self, sets: SetAnnotations) -> None:
        assert sets.label_counts().tolist() == [[0, 2, 3], [1, 0, 0]]
        np.testing.assert_allclose(sets.marginals(), [[0, 2 / 3, 1], [0.5, 0, 0]], atol=1e-15)

    def test_binary_targets_feed_the_lewidi_scorer(self, sets: SetAnnotations) -> None:
        t = sets.binary_targets()
        assert t.shape == (2, 3, 2)
        np.testing.assert_allclose(t.sum(axis=-1), 1.0, atol=1e-15)
        p = np.full_like(t, 0.5)
        # per label, the registry's Manhattan distance on (N, 2) rows; LeWiDi averages over labels
        per_label = np.stack([get_metric("manhattan")(t[:, k], p[:, k]) for k in range(3)], 1)
        assert multilabel_average_md(t, p) == pytest.approx(per_label.mean(), abs=1e-5)

    def test_binary_counts(self, sets: SetAnnotations) -> None:
        c = sets.binary_counts("E")
        assert isinstance(c, LabelCounts)
        assert c.values.tolist() == [[1, 2], [2, 0]]
        assert c.scale == Scale.nominal([0, 1])
        with pytest.raises(DataError, match=r"Label 'X' is not on the scale"):
            sets.binary_counts("X")

    def test_set_counts(self, sets: SetAnnotations) -> None:
        c = sets.set_counts()
        assert c.scale.labels == ('["E", "N"]', '["N"]', '["C"]', "[]")
        assert c.values.tolist() == [[2, 1, 0, 0], [0, 0, 1, 1]]

    def test_rater_array_feeds_the_perspectivist_scorer(self, sets: SetAnnotations) -> None:
        r = sets.rater_array()
        assert r.shape == (2, 3, 3)  # items, labels, annotators a, b, c
        assert np.isnan(r[1, :, 1]).all()  # b did not label q
        assert r[0].tolist() == [[0, 0, 0], [1, 0, 1], [1, 1, 1]]
        assert multilabel_error_rate(r, r) == 0.0

    def test_counts_refused_with_the_choices(self, sets: SetAnnotations) -> None:
        with pytest.raises(TypeError, match=r"set_counts\(\) .* binary_counts\(label\)"):
            sets.counts()

    def test_repr(self, sets: SetAnnotations) -> None:
        assert repr(sets) == (
            "<SetAnnotations: 5 sets of 2 items, 3 annotators, labels ['C', 'E', 'N']>"
        )
        assert len(sets) == 5
        assert sets.annotations_per_item.tolist() == [3, 2]

    def test_format_set(self) -> None:
        assert format_set(("a", 'b"c', 2)) == '["a", "b\\"c", 2]'
        assert json.loads(format_set(("a", 1))) == ["a", 1]


@st.composite
def set_frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 12))
    subsets = st.lists(st.sampled_from(NLI), unique=True, max_size=3)
    cells = draw(st.lists(subsets, min_size=n, max_size=n))
    items = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    return pd.DataFrame({"item": items, "label": cells})


class TestRoundTrip:
    @settings(max_examples=50, deadline=None)
    @given(df=set_frames())
    def test_indicators_hold_the_sets(self, df: pd.DataFrame) -> None:
        sets = SetAnnotations.from_frame(df, annotator=None, scale=NLI)
        back = sets.to_frame()
        assert [set(s) for s in back["label"]] == [set(s) for s in df["label"]]
        assert back["item"].tolist() == df["item"].tolist()
        # marginals are the per-item means of the indicators
        expected = (
            pd.DataFrame(sets.indicators.astype(float), columns=NLI)
            .groupby(df["item"].to_numpy(), sort=False)
            .mean()
        )
        np.testing.assert_allclose(sets.marginals(), expected.to_numpy(), atol=1e-15)
        distinct, codes = sets.distinct_sets()
        assert (distinct[codes] == sets.indicators).all()
        assert len({tuple(r) for r in distinct.tolist()}) == len(distinct)


class TestReadAnnotationsFiles:
    def test_csv_with_json_list_cells(self, tmp_path: Path) -> None:
        # a long CSV whose label column holds JSON lists reads as text, then as sets
        path = tmp_path / "sets.csv"
        path.write_text(
            'item,annotator,label\n1,a,"[""E"", ""N""]"\n1,b,"[""N""]"\n', encoding="utf-8"
        )
        df = pd.read_csv(path)
        sets = SetAnnotations.from_frame(df)
        assert sets.indicators.astype(int).tolist() == [[1, 1], [0, 1]]
        # the single-label reader sees the text as labels, not sets
        assert read_annotations(path).scale.labels == ('["E", "N"]', '["N"]')


class TestNoPhantomOrMergedLabels:
    @pytest.mark.parametrize(
        "labels",
        [[[True, 2], [1]], [[True], [2]], [[np.True_], [1.5]]],
        ids=["same", "apart", "numpy"],
    )
    def test_booleans_among_numbers_are_refused(self, labels) -> None:
        df = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": labels})
        with pytest.raises(DataError, match=r"mixes booleans and numbers.*row 0"):
            SetAnnotations.from_frame(df)

    def test_booleans_alone_are_labels_0_and_1(self) -> None:
        df = pd.DataFrame(
            {"item": [1, 1], "annotator": ["a", "b"], "label": [[True], [False, True]]}
        )
        assert SetAnnotations.from_frame(df).scale.labels == (0, 1)

    @pytest.mark.parametrize("cell", ["a||b", "a|", "|a"])
    def test_stray_separator_is_refused_naming_the_row(self, cell) -> None:
        df = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": ["b", cell]})
        with pytest.raises(
            DataError, match=r"row 1: .* holds an empty label \(a doubled or trailing '\|'\?\)"
        ):
            SetAnnotations.from_frame(df, label_sep="|")

    def test_empty_string_in_a_list_is_refused(self) -> None:
        df = pd.DataFrame({"item": [1], "annotator": ["a"], "label": [["a", " "]]})
        with pytest.raises(DataError, match="holds an empty label"):
            SetAnnotations.from_frame(df)
