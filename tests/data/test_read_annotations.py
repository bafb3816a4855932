"""Tests of dissensus.data._read_annotations: choosing the columns of a long table."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dissensus import DataError
from dissensus._exceptions import ColumnsDetectedWarning
from dissensus.data import read_annotations, read_set_annotations
from dissensus.data._read_annotations import COLUMN_NAMES, ROLES, _folded, detect_columns

DETECT = dict.fromkeys(ROLES)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


class TestDetectColumns:
    def test_no_name_is_in_two_roles(self):
        folded = [{_folded(n) for n in names} for names in COLUMN_NAMES.values()]
        assert all(not (a & b) for i, a in enumerate(folded) for b in folded[i + 1 :])

    def test_default_names_are_used_as_they_are(self):
        choice = detect_columns(["label", "annotator", "item", "rating"], DETECT)
        assert choice.columns == {"item": "item", "annotator": "annotator", "label": "label"}
        assert set(choice.how.values()) == {"default"}
        assert choice.detected == []

    @pytest.mark.parametrize(
        ("columns", "expected"),
        [
            (["item_id", "rater_id", "stars"], ("item_id", "rater_id", "stars")),
            (["Text ID", "worker-id", "RATING"], ("Text ID", "worker-id", "RATING")),
            (["doc_id", "Coder", "Category", "notes"], ("doc_id", "Coder", "Category")),
        ],
    )
    def test_known_names_ignore_case_and_separators(self, columns, expected):
        choice = detect_columns(columns, DETECT)
        assert tuple(choice.columns.values()) == expected

    def test_the_only_column_left_takes_the_last_role(self):
        choice = detect_columns(["sentence", "judge", "score"], DETECT)
        assert choice.columns["item"] == "sentence"
        assert choice.how == {"item": "elimination", "annotator": "name", "label": "name"}

    def test_no_elimination_with_two_columns_left(self):
        choice = detect_columns(["sentence", "judge", "score", "comment"], DETECT)
        assert choice.undecided == ["item"]
        assert choice.candidates == {"item": ("sentence", "comment")}

    def test_no_elimination_while_another_role_is_undecided(self):
        choice = detect_columns(["x", "y", "score"], DETECT)
        assert choice.undecided == ["item", "annotator"]
        assert choice.candidates == {"item": ("x", "y"), "annotator": ("x", "y")}

    def test_two_known_names_are_candidates_not_a_guess(self):
        choice = detect_columns(["id", "text_id", "rater", "label"], DETECT)
        assert choice.columns["item"] is None
        assert choice.how["item"] == "ambiguous"
        assert choice.candidates == {"item": ("id", "text_id")}

    def test_given_columns_win_and_are_not_candidates(self):
        choice = detect_columns(["id", "rater", "score", "rating"], {**DETECT, "label": "rating"})
        assert choice.columns == {"item": "id", "annotator": "rater", "label": "rating"}
        assert choice.how["label"] == "given"

    def test_a_given_column_that_is_absent_is_reported_with_close_names(self):
        choice = detect_columns(["item", "annotator", "label"], {**DETECT, "label": "lable"})
        assert choice.how["label"] == "absent"
        assert choice.candidates["label"] == ("label",)  # close, but never taken in its place

    def test_without_annotator_role_and_excluded_columns(self):
        choice = detect_columns(["id", "score", "user"], {"item": None, "label": None})
        assert choice.columns == {"item": "id", "label": "score"}
        choice = detect_columns(["sentence", "rater", "score", "year"], DETECT, exclude=["year"])
        assert choice.columns["item"] == "sentence"

    @settings(max_examples=60, deadline=None)
    @given(
        columns=st.lists(
            st.sampled_from(
                [n for names in COLUMN_NAMES.values() for n in names] + ["x", "y", "Item ID"]
            ),
            min_size=1,
            max_size=7,
            unique=True,
        ),
        data=st.data(),
    )
    def test_given_columns_are_never_replaced(self, columns, data):
        given = {
            role: data.draw(st.one_of(st.none(), st.sampled_from(columns)), label=role)
            for role in ROLES
        }
        choice = detect_columns(columns, given)
        for role, column in given.items():
            if column is not None:
                assert choice.columns[role] == column
                assert choice.how[role] == "given"
        detected = [choice.columns[r] for r in choice.detected]
        assert not set(detected) & {c for c in given.values() if c is not None}
        assert len(set(detected)) == len(detected)  # one column per detected role


class TestReadAnnotationsDetects:
    def test_synonyms_are_used_and_announced(self, tmp_path):
        path = _write(tmp_path, "r.csv", "item_id,rater_id,stars\nt1,r1,4\nt1,r2,5\nt2,r1,1\n")
        with pytest.warns(
            ColumnsDetectedWarning, match=r"item=item_id, annotator=rater_id, label=stars"
        ):
            ann = read_annotations(path)
        assert (ann.n_items, ann.n_annotators, ann.n_annotations) == (2, 2, 3)
        assert ann.items.name == "item_id"
        assert list(ann.scale.labels) == [1, 4, 5]

    def test_detected_ids_are_read_exactly(self, tmp_path):
        path = _write(tmp_path, "r.csv", "id,worker,label\n007,a,x\n7,a,y\n")
        with pytest.warns(ColumnsDetectedWarning):
            ann = read_annotations(path)
        assert list(ann.items) == ["007", "7"]  # two items, as with --item id

    @pytest.mark.parametrize("suffix", ["jsonl", "parquet"])
    def test_every_table_format(self, tmp_path, suffix):
        if suffix == "parquet":
            pytest.importorskip("pyarrow")
        frame = pd.DataFrame({"TaskID": [1, 1, 2], "User": ["a", "b", "a"], "Answer": [1, 0, 1]})
        path = tmp_path / f"r.{suffix}"
        if suffix == "parquet":
            frame.to_parquet(path)
        else:
            frame.to_json(path, orient="records", lines=True)
        with pytest.warns(
            ColumnsDetectedWarning, match=r"item=TaskID, annotator=User, label=Answer"
        ):
            ann = read_annotations(path)
        assert ann.n_annotations == 3

    def test_exact_names_say_nothing(self, tmp_path, recwarn):
        path = _write(tmp_path, "r.csv", "item,annotator,label,score\n1,a,x,3\n")
        ann = read_annotations(path)
        assert ann.n_annotations == 1
        assert not recwarn.list

    def test_one_error_names_every_missing_role_and_blanks(self, tmp_path):
        path = _write(tmp_path, "r.csv", "id,text_id,who,y\n1,a,x,2\n2,b,z,\n")
        with pytest.raises(DataError) as caught:
            read_annotations(path)
        text = str(caught.value)
        for part in (
            "hold the item, annotator, label",
            "item: 'id', 'text_id' all look like an item id; choose one with item=...",
            "annotator: no column named like an annotator id",
            "pass annotator=None",
            "label: no column named like a label",
            "one of 'who', 'y'",
            "Columns: 'id', 'text_id', 'who', 'y'",
            "1 row with blank cells (y: 1) at line 3",
            "dropna=True",
        ):
            assert part in text

    def test_an_absent_given_column_and_an_unknown_role_in_one_error(self, tmp_path):
        path = _write(tmp_path, "r.csv", "Item,Worker ID,sentiment\n1,a,pos\n")
        with pytest.raises(DataError, match=r"item: no column 'foo'.*label: no column named"):
            read_annotations(path, item="foo")

    def test_no_annotator(self, tmp_path):
        path = _write(tmp_path, "r.csv", "doc_id,value\n1,3\n1,4\n")
        with pytest.warns(ColumnsDetectedWarning, match=r"item=doc_id, label=value"):
            ann = read_annotations(path, annotator=None)
        assert not ann.has_annotators

    def test_sets_too(self, tmp_path):
        path = _write(tmp_path, "s.csv", "item_id,coder,labels\n1,a,x|y\n1,b,y\n")
        with pytest.warns(
            ColumnsDetectedWarning, match=r"label=labels.*label as the only column left"
        ):
            sets = read_set_annotations(path, label_sep="|")
        assert sets.n_items == 1


def test_unknown_roles_are_refused():
    with pytest.raises(ValueError, match="roles are item, annotator, label; got 'text'"):
        detect_columns(["a"], {"text": None})


_NAMES = [n for names in COLUMN_NAMES.values() for n in names] + ["x", "y", "Item ID"]


@settings(max_examples=30, deadline=None)
@given(
    columns=st.lists(st.sampled_from(_NAMES), min_size=3, max_size=6, unique_by=_folded),
    data=st.data(),
)
def test_read_annotations_never_replaces_named_columns(columns, data):
    item, label = data.draw(st.permutations(columns), label="order")[:2]
    annotator = data.draw(st.sampled_from([None, *[c for c in columns if c not in (item, label)]]))
    cells = {c: ["z", "z"] for c in columns}
    cells[item], cells[label] = ["i1", "i2"], [1, 2]
    if annotator is not None:
        cells[annotator] = ["a", "b"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.csv"
        pd.DataFrame(cells).to_csv(path, index=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ColumnsDetectedWarning)
            ann = read_annotations(path, item=item, label=label, annotator=annotator)
    assert ann.items.name == item
    assert list(ann.scale.labels) == [1, 2]
    assert ann.has_annotators == (annotator is not None)
    if annotator is not None:
        assert ann.annotators.name == annotator


class TestWideItemColumn:
    def test_a_known_name_is_the_item_column(self, tmp_path):
        path = _write(tmp_path, "w.csv", "Item ID,r1,r2\n007,1,2\n7,2,\n")
        with pytest.warns(ColumnsDetectedWarning, match=r"item='Item ID' in .*by name"):
            ann = read_annotations(path, layout="wide")
        assert list(ann.items) == ["007", "7"]
        assert list(ann.annotators) == ["r1", "r2"]

    def test_the_column_left_beside_the_named_annotators(self, tmp_path):
        path = _write(tmp_path, "w.csv", "sentence,r1,r2\ns1,1,2\n")
        with pytest.warns(ColumnsDetectedWarning, match=r"item=sentence .*only column left"):
            ann = read_annotations(path, layout="wide", annotators=["r1", "r2"])
        assert list(ann.items) == ["s1"]

    def test_otherwise_the_item_column_is_asked_for(self, tmp_path):
        path = _write(tmp_path, "w.csv", "sentence,r1,r2\ns1,1,2\n")
        with pytest.raises(DataError, match=r"No item column 'item'.*item=\.\.\."):
            read_annotations(path, layout="wide")
