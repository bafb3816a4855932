"""Tests of the readers of dissensus.data (fixtures are written by the tests themselves)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance

from dissensus import DataDroppedWarning, DataError, DissensusWarning, Scale, SetAnnotations
from dissensus.agreement import krippendorff_alpha
from dissensus.data import (
    CONVABUSE_SCALE,
    read_annotations,
    read_convabuse,
    read_lewidi,
    read_set_annotations,
)
from dissensus.metrics.lewidi import targets_2023
from tests.conftest import shared_path

LONG_CSV = "item,annotator,label\n1,a,2\n1,b,3\n2,a,3\n2,b,3\n"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


class TestReadAnnotations:
    def test_csv_long(self, tmp_path):
        ann = read_annotations(_write(tmp_path, "a.csv", LONG_CSV))
        assert ann.n_items == 2
        assert ann.n_annotators == 2
        assert ann.scale == Scale.ordinal([2, 3])
        assert ann.counts().values.tolist() == [[1, 1], [0, 2]]

    def test_item_and_label_naming_one_column_is_refused(self, tmp_path):
        path = _write(tmp_path, "a.csv", LONG_CSV)
        with pytest.raises(
            DataError,
            match=r"Column 'item' in .*a\.csv is named as both the item column and the label column",
        ):
            read_annotations(path, item="item", label="item")

    def test_wide_csv_with_a_pandas_index_is_refused(self, tmp_path):
        path = tmp_path / "wide.csv"
        pd.DataFrame({"a": [1, 2], "b": [2, 2]}, index=["i1", "i2"]).to_csv(path)
        with pytest.raises(
            DataError,
            match=r"column 1 has no name \(a pandas index written by to_csv\?\): drop it or name it, e\.g\. item=\.\.\.",
        ):
            read_annotations(path, layout="wide")
        ann = read_annotations(path, layout="wide", item="Unnamed: 0")  # named: the item ids
        assert ann.annotators.tolist() == ["a", "b"]
        assert ann.items.tolist() == ["i1", "i2"]

    def test_wide_csv_with_an_index_besides_the_item_column_is_refused(self, tmp_path):
        path = tmp_path / "wide.csv"
        pd.DataFrame({"item": ["i1", "i2"], "a": [1, 2]}).to_csv(path)
        with pytest.raises(DataError, match=r"column 1 has no name"):
            read_annotations(path, layout="wide")

    def test_tsv_long(self, tmp_path):
        ann = read_annotations(_write(tmp_path, "a.tsv", LONG_CSV.replace(",", "\t")))
        assert ann.counts().values.tolist() == [[1, 1], [0, 2]]

    def test_explicit_format_and_sep(self, tmp_path):
        path = _write(tmp_path, "a.txt", LONG_CSV.replace(",", ";"))
        ann = read_annotations(path, "csv", sep=";")
        assert ann.n_annotations == 4

    def test_parquet_long(self, tmp_path):
        path = tmp_path / "a.parquet"
        pd.DataFrame(
            {"item": [1, 1, 2], "annotator": ["a", "b", "a"], "label": ["x", "y", "x"]}
        ).to_parquet(path)
        ann = read_annotations(path)
        assert ann.scale == Scale.nominal(["x", "y"])
        assert ann.counts().values.tolist() == [[1, 1], [1, 0]]

    def test_parquet_with_stored_index(self, tmp_path):
        path = tmp_path / "a.pq"
        df = pd.DataFrame(
            {"annotator": ["a", "b"], "label": [1, 2]}, index=pd.Index(["i", "i"], name="item")
        )
        df.to_parquet(path)
        assert read_annotations(path).n_items == 1

    def test_parquet_error_names_row(self, tmp_path):
        path = tmp_path / "a.parquet"
        pd.DataFrame(
            {"item": [1, 2, 3], "annotator": ["a", "a", "a"], "label": [1.0, np.nan, 2.0]}
        ).to_parquet(path)
        with pytest.raises(DataError, match=r"Missing 'label' values in .*a\.parquet: 1 in row 2;"):
            read_annotations(path)

    def test_jsonl_long(self, tmp_path):
        lines = [
            json.dumps({"item": "q1", "annotator": "a", "label": "POS"}),
            "",
            '{"item": "q1", "annotator": "b", "label": "NEG"}',
        ]
        ann = read_annotations(_write(tmp_path, "a.jsonl", "\n".join(lines) + "\n"))
        assert ann.counts().values.tolist() == [[1, 1]]

    def test_jsonl_error_names_line_after_blank_lines(self, tmp_path):
        lines = [
            '{"item": 1, "annotator": "a", "label": 1}',
            "",
            '{"item": 1, "annotator": "a", "label": 2}',
        ]
        with pytest.raises(
            DataError,
            match=r"repeated \(item, annotator\) pairs in .*a\.jsonl, .* at lines 1, 3\.",
        ):
            read_annotations(_write(tmp_path, "a.jsonl", "\n".join(lines)))

    def test_jsonl_invalid_json(self, tmp_path):
        text = '{"item": 1, "annotator": "a", "label": 1}\n{"item": 2,\n'
        with pytest.raises(
            DataError, match=r"a\.jsonl' line 2: invalid JSON \(Expecting property name"
        ):
            read_annotations(_write(tmp_path, "a.jsonl", text))

    def test_jsonl_not_an_object(self, tmp_path):
        with pytest.raises(DataError, match=r"line 1: expected a JSON object per line, got list"):
            read_annotations(_write(tmp_path, "a.jsonl", "[1, 2]\n"))

    def test_jsonl_empty(self, tmp_path):
        with pytest.raises(DataError, match=r"is empty \(only whitespace\)"):
            read_annotations(_write(tmp_path, "a.jsonl", "\n\n"))

    def test_label_error_names_file_line(self, tmp_path):
        path = _write(tmp_path, "a.csv", LONG_CSV + "3,a,9\n")
        with pytest.raises(
            DataError,
            match=r"1 labels in .*a\.csv are not on the scale 2, 3: 9 at line 6\.",
        ):
            read_annotations(path, scale=[2, 3])

    def test_line_numbers_with_multiline_quoted_field(self, tmp_path):
        text = 'item,annotator,label,text\n1,a,2,"one\nline two"\n1,b,3,x\n2,a,,y\n'
        with pytest.raises(DataError, match=r"Missing 'label' values in .*a\.csv: 1 in line 5;"):
            read_annotations(_write(tmp_path, "a.csv", text))

    def test_line_numbers_with_blank_lines(self, tmp_path):
        text = "item,annotator,label\n1,a,2\n\n1,a,3\n"
        with pytest.raises(DataError, match=r"in .*a\.csv, .* at lines 2, 4\. Pass duplicates="):
            read_annotations(_write(tmp_path, "a.csv", text))

    def test_malformed_csv(self, tmp_path):
        text = "item,annotator,label\n1,a,2\n1,b,3,4\n"
        with pytest.raises(DataError, match=r"a\.csv' line 3: 4 fields but the header has 3"):
            read_annotations(_write(tmp_path, "a.csv", text))

    def test_empty_csv(self, tmp_path):
        with pytest.raises(
            DataError, match=r"a\.csv' is empty; expected a CSV file with a header line"
        ):
            read_annotations(_write(tmp_path, "a.csv", ""))

    def test_bad_parquet(self, tmp_path):
        with pytest.raises(DataError, match=r"a\.parquet' is not a Parquet file"):
            read_annotations(_write(tmp_path, "a.parquet", "not parquet"))

    def test_missing_file(self, tmp_path):
        with pytest.raises(FileNotFoundError, match=r"No such file: '.*nope\.csv'"):
            read_annotations(tmp_path / "nope.csv")

    def test_directory(self, tmp_path):
        with pytest.raises(IsADirectoryError, match="is a directory"):
            read_annotations(tmp_path)

    def test_unknown_extension(self, tmp_path):
        with pytest.raises(
            DataError,
            match=r"Cannot tell the format of .*a\.xlsx.* from its extension '\.xlsx'; pass format=",
        ):
            read_annotations(_write(tmp_path, "a.xlsx", ""))

    def test_unknown_format(self, tmp_path):
        with pytest.raises(
            ValueError, match="The 'format' parameter of read_annotations must be one of"
        ):
            read_annotations(_write(tmp_path, "a.csv", LONG_CSV), "xlsx")  # type: ignore[arg-type]

    def test_column_options(self, tmp_path):
        text = "task,worker,y,year\nt1,w1,a,2020\nt1,w2,b,2020\n"
        ann = read_annotations(
            _write(tmp_path, "a.csv", text),
            item="task",
            annotator="worker",
            label="y",
            meta=["year"],
        )
        assert list(ann.items) == ["t1"]
        assert ann.meta is not None
        assert ann.meta["year"].tolist() == [2020]

    def test_no_annotator(self, tmp_path):
        ann = read_annotations(_write(tmp_path, "a.csv", "item,label\n1,2\n1,2\n"), annotator=None)
        assert not ann.has_annotators
        assert ann.counts().values.tolist() == [[2]]

    def test_dropna_and_duplicates_pass_through(self, tmp_path):
        text = LONG_CSV + "2,a,2\n3,b,\n"
        with pytest.warns(DataDroppedWarning) as record:
            ann = read_annotations(_write(tmp_path, "a.csv", text), dropna=True, duplicates="last")
        messages = " ".join(str(w.message) for w in record)
        assert "Dropped 1 of 6 rows with missing values" in messages
        assert "Dropped 1 repeated (item, annotator) annotations" in messages
        assert ann.counts().values.tolist() == [[1, 1], [1, 1]]

    def test_wide(self, tmp_path):
        text = "item,r1,r2,r3\nx,1,2,\ny,,2,2\n"
        ann = read_annotations(_write(tmp_path, "w.csv", text), layout="wide")
        assert list(ann.annotators) == ["r1", "r2", "r3"]
        assert ann.counts().values.tolist() == [[1, 1], [0, 2]]

    def test_wide_names_the_line_of_a_bad_label(self, tmp_path):
        text = "item,r1,r2\nx,1,2\ny,7,2\n"
        with pytest.raises(DataError, match=r"in .*w\.csv .* at line 3\."):
            read_annotations(
                _write(tmp_path, "w.csv", text),
                layout="wide",
                scale=[1, 2],
                annotators=["r1", "r2"],
            )

    def test_wide_refuses_long_options(self, tmp_path):
        with pytest.raises(ValueError, match="dropna and duplicates apply to the long layout"):
            read_annotations(
                _write(tmp_path, "w.csv", "item,r1\nx,1\n"), layout="wide", dropna=True
            )

    def test_annotators_need_wide_layout(self, tmp_path):
        with pytest.raises(
            ValueError, match=r"names the annotator columns of a wide table; pass layout='wide'"
        ):
            read_annotations(_write(tmp_path, "a.csv", LONG_CSV), annotators=["a"])

    def test_bad_layout(self, tmp_path):
        with pytest.raises(ValueError, match="The 'layout' parameter of read_annotations"):
            read_annotations(_write(tmp_path, "a.csv", LONG_CSV), layout="tall")  # type: ignore[arg-type]

    def test_fixed_formats_refuse_column_options(self, tmp_path):
        path = _write(tmp_path, "a.csv", LONG_CSV)
        with pytest.raises(
            ValueError, match=r"The convabuse format has fixed columns; the option\(s\) item, label"
        ):
            read_annotations(path, "convabuse", item="x", label="y")

    def test_convabuse_refuses_a_scale(self, tmp_path):
        with pytest.raises(ValueError, match="fixed scale"):
            read_annotations(_write(tmp_path, "a.csv", LONG_CSV), "convabuse", scale=[1, 2])

    def test_json_dispatches_to_lewidi(self, tmp_path):
        path = _write(
            tmp_path, "d.json", json.dumps({"1": {"annotations": "1,0", "annotators": "A,B"}})
        )
        assert read_annotations(path).counts().values.tolist() == [[1, 1]]


# -- ConvAbuse ------------------------------------------------------------------
FULL_HEAD = (
    "example_no,annotator_id,conv_id,prev_agent,prev_user,agent,user,bot,"
    "is_abuse.1,is_abuse.0,is_abuse.-1,is_abuse.-2,is_abuse.-3,type.sexist\n"
)


def _full_row(no: int, annotator: str, conv: str, user: str, level: int, bot: str = "E") -> str:
    onehot = ",".join("1" if k == level else "0" for k in (1, 0, -1, -2, -3))
    return f'{no},{annotator},{conv},Hi,"hey, you",How are you?,{user},{bot},{onehot},0\n'


def _full_file(tmp_path: Path) -> Path:
    rows = [
        _full_row(0, "Annotator1", "c1", "null", -1),
        _full_row(1, "Annotator2", "c1", "null", 1),
        _full_row(2, "Annotator1", "c1", "you are dumb", -2, bot="E"),
        _full_row(3, "Annotator1", "c1", "null", 0),  # a repeat of (turn 0, Annotator1)
        _full_row(4, "Annotator3", "c2", "null", 1, bot="Carbon"),
    ]
    return _write(tmp_path, "full.csv", FULL_HEAD + "".join(rows))


class TestReadConvAbuseFull:
    def test_items_annotators_and_repeat_rule(self, tmp_path):
        with pytest.warns(
            DataDroppedWarning, match=r"Dropped 1 repeated .*full\.csv .*first: line 5\."
        ):
            ann = read_convabuse(_full_file(tmp_path))
        assert ann.scale == CONVABUSE_SCALE
        # an item is a turn: same conv and context but another user turn is another item,
        # and the same text in another conversation is another item
        assert list(ann.items) == [0, 2, 4]
        assert list(ann.annotators) == ["Annotator1", "Annotator2", "Annotator3"]
        frame = ann.to_frame()
        first = frame[(frame["item"] == 0) & (frame["annotator"] == "Annotator1")]["label"].tolist()
        assert first == [-1]  # the first response is kept
        assert ann.counts().values.tolist() == [[0, 0, 1, 0, 1], [0, 1, 0, 0, 0], [0, 0, 0, 0, 1]]
        assert ann.meta is not None
        assert ann.meta["bot"].tolist() == ["E", "E", "Carbon"]
        assert ann.meta["conv_id"].tolist() == ["c1", "c1", "c2"]

    def test_text_is_not_turned_into_missing(self, tmp_path):
        with pytest.warns(DataDroppedWarning):
            ann = read_convabuse(_full_file(tmp_path), meta=["user"])
        assert ann.meta is not None
        assert ann.meta["user"].iloc[0] == "null"

    def test_last(self, tmp_path):
        with pytest.warns(DataDroppedWarning, match="duplicates='last'"):
            ann = read_convabuse(_full_file(tmp_path), duplicates="last")
        frame = ann.to_frame()
        assert frame[(frame["item"] == 0) & (frame["annotator"] == "Annotator1")][
            "label"
        ].tolist() == [0]

    def test_keep(self, tmp_path):
        ann = read_convabuse(_full_file(tmp_path), duplicates="keep")
        assert ann.n_annotations == 5
        assert ann.annotations_per_item.tolist() == [3, 1, 1]

    def test_error(self, tmp_path):
        with pytest.raises(
            DataError,
            match=r"1 repeated \(item, annotator\) pairs in .*full\.csv, e\.g\. item 0 by annotator 'Annotator1' at lines 2, 5",
        ):
            read_convabuse(_full_file(tmp_path), duplicates="error")

    def test_bad_duplicates_option(self, tmp_path):
        with pytest.raises(ValueError, match="The 'duplicates' parameter of read_convabuse"):
            read_convabuse(_full_file(tmp_path), duplicates="drop")  # type: ignore[arg-type]

    def test_no_severity_marked(self, tmp_path):
        text = (
            FULL_HEAD
            + _full_row(0, "Annotator1", "c", "u", 1)
            + "1,Annotator1,c,a,b,c,d,E,0,0,0,0,0,0\n"
        )
        with pytest.raises(
            DataError,
            match=r"full\.csv' line 3: the response has 0 severities marked .*exactly one is expected",
        ):
            read_convabuse(_write(tmp_path, "full.csv", text))

    def test_several_severities_marked(self, tmp_path):
        text = FULL_HEAD + "0,Annotator1,c,a,b,c,d,E,1,1,0,0,0,0\n"
        with pytest.raises(DataError, match=r"line 2: the response has 2 severities marked"):
            read_convabuse(_write(tmp_path, "full.csv", text))

    def test_cell_not_zero_or_one(self, tmp_path):
        text = FULL_HEAD + "0,Annotator1,c,a,b,c,d,E,yes,0,0,0,0,0\n"
        with pytest.raises(
            DataError,
            match=r"line 2: the response column 'is_abuse\.1' is 'yes'; one-hot severity cells must be 0 or 1",
        ):
            read_convabuse(_write(tmp_path, "full.csv", text))

    def test_missing_column(self, tmp_path):
        text = FULL_HEAD.replace(",bot", "") + "0,Annotator1,c,a,b,c,d,1,0,0,0,0,0\n"
        with pytest.raises(
            DataError, match=r"does not look like a ConvAbuse full file: no column\(s\) 'bot'"
        ):
            read_convabuse(_write(tmp_path, "full.csv", text))

    def test_not_convabuse(self, tmp_path):
        with pytest.raises(
            DataError, match=r"is not a ConvAbuse file: expected an annotator_id column"
        ):
            read_convabuse(_write(tmp_path, "a.csv", LONG_CSV))

    def test_through_read_annotations(self, tmp_path):
        with pytest.warns(DataDroppedWarning):
            ann = read_annotations(_full_file(tmp_path), "convabuse")
        assert ann.n_items == 3
        ann = read_annotations(_full_file(tmp_path), "convabuse", duplicates="keep")
        assert ann.n_annotations == 5


def _split_file(tmp_path: Path, cells: dict[str, list[str]]) -> Path:
    head = ["example_id", "conv_id", "prev_agent", "prev_user", "agent", "user", "bot"]
    cols = [f"Annotator{a}_is_abuse.{k}" for a in (1, 2) for k in (1, 0, -1, -2, -3)]
    # the published header has typos in other columns (e.g. Annotator7_… before Annotator6_transphobic)
    extra = ["Annotator1_sexist", "Annotator6_transphobic"]
    rows = [",".join(head + cols + extra)]
    for i, (eid, values) in enumerate(cells.items()):
        rows.append(
            ",".join(
                [
                    eid,
                    f"c{i}",
                    "a",
                    "b",
                    "c",
                    "d",
                    "E",
                    *[f'"{v}"' if "," in v else v for v in values],
                    "",
                    "",
                ]
            )
        )
    return _write(tmp_path, "train.csv", "\n".join(rows) + "\n")


class TestReadConvAbuseSplit:
    def test_items_and_multi_response_cells(self, tmp_path):
        path = _split_file(
            tmp_path,
            {
                "10.0": ["1", "0", "0", "0", "0", "0, 1", "1, 0", "0, 0", "0, 0", "0, 0"],
                "11.0": ["0", "0", "0", "0", "1", "", "", "", "", ""],
            },
        )
        with pytest.warns(
            DataDroppedWarning, match=r"Dropped 1 repeated .*train\.csv .*first: line 2\."
        ):
            ann = read_convabuse(path)
        assert list(ann.items) == [10, 11]
        assert list(ann.annotators) == ["Annotator1", "Annotator2"]
        # Annotator2 answered item 10 twice: first 0 (ambiguous), then 1
        assert ann.counts().values.tolist() == [[0, 0, 0, 1, 1], [1, 0, 0, 0, 0]]
        with pytest.warns(DataDroppedWarning):
            last = read_convabuse(path, duplicates="last")
        assert last.counts().values.tolist() == [[0, 0, 0, 0, 2], [1, 0, 0, 0, 0]]
        keep = read_convabuse(path, duplicates="keep")
        assert keep.annotations_per_item.tolist() == [3, 1]

    def test_uneven_cells(self, tmp_path):
        path = _split_file(tmp_path, {"1": ["1", "0", "0", "0", "0", "0, 1", "1", "0", "0", "0"]})
        with pytest.raises(
            DataError,
            match=r"train\.csv' line 2: Annotator2's severity cells list different numbers of responses",
        ):
            read_convabuse(path)

    def test_bad_one_hot(self, tmp_path):
        path = _split_file(tmp_path, {"1": ["1", "1", "0", "0", "0", "", "", "", "", ""]})
        with pytest.raises(
            DataError, match=r"line 2: Annotator1's response has 2 severities marked"
        ):
            read_convabuse(path)

    def test_bad_example_id(self, tmp_path):
        path = _split_file(tmp_path, {"x": ["1", "0", "0", "0", "0", "", "", "", "", ""]})
        with pytest.raises(DataError, match=r"line 2: example_id 'x' is not a number"):
            read_convabuse(path)

    def test_no_annotations(self, tmp_path):
        path = _split_file(tmp_path, {"1": [""] * 10})
        with pytest.raises(DataError, match="has no ConvAbuse severity annotations"):
            read_convabuse(path)


class TestReadConvAbuseShared:
    """The published files in ../shared/data/convabuse (skipped when absent)."""

    def test_full_file(self):
        path = shared_path("data", "convabuse", "ConvAbuseEMNLPfull.csv")
        with pytest.warns(DataDroppedWarning, match=r"Dropped 357 repeated"):
            ann = read_convabuse(path)
        assert ann.n_items == 4185
        assert ann.n_annotators == 8
        assert ann.n_annotations == 12768 - 357
        per_item = ann.annotations_per_item
        assert (per_item.min(), per_item.max()) == (2, 7)
        assert ann.meta is not None
        assert set(ann.meta.columns) == {"conv_id", "bot"}
        kept = read_convabuse(path, duplicates="keep")
        assert kept.n_annotations == 12768

    def test_splits_hold_the_same_annotations(self):
        full_path = shared_path("data", "convabuse", "ConvAbuseEMNLPfull.csv")
        with pytest.warns(DataDroppedWarning):
            full = read_convabuse(full_path)
        totals = np.zeros(5, dtype=np.int64)
        n_items = 0
        dropped = 0
        for split in ("train", "valid", "test"):
            path = shared_path("data", "convabuse", f"ConvAbuseEMNLP{split}.csv")
            with warnings.catch_warnings(record=True) as record:
                warnings.simplefilter("always", DissensusWarning)
                ann = read_convabuse(path)
            dropped += sum(int(str(w.message).split()[1]) for w in record)
            totals += ann.counts().values.sum(axis=0)
            n_items += ann.n_items
        assert n_items == full.n_items
        assert dropped == 357
        np.testing.assert_array_equal(totals, full.counts().values.sum(axis=0))


# -- LeWiDi ---------------------------------------------------------------------
def _lewidi(tmp_path: Path, data: object) -> Path:
    return _write(tmp_path, "lewidi.json", json.dumps(data, indent=1))


LEWIDI_2023 = {
    "1": {
        "text": "t1",
        "annotation task": "hate speech detection",
        "number of annotations": 4,
        "annotations": "1,0,0,1",
        "annotators": "Ann1,Ann2,Ann3,Ann4",
        "lang": "en",
        "hard_label": "0",
        "soft_label": {"0": 0.5, "1": 0.5},
        "split": "train",
    },
    "2": {
        "text": "t2",
        "number of annotations": 3,
        "annotations": "0,0,0",
        "annotators": "Ann1,Ann2,Ann5",
        "lang": "en",
        "soft_label": {"0": 1.0, "1": 0.0},
        "split": "train",
    },
}

LEWIDI_2025 = {
    "100": {
        "text": {"context": "c", "response": "r"},
        "number of annotators": 3,
        "annotators": "Ann1,Ann2,Ann3",
        "annotations": {"Ann1": "3", "Ann2": "4.0", "Ann3": "3.0"},
        "soft_label": {
            "1.0": 0.0,
            "2.0": 0.0,
            "3.0": 0.6666666666666666,
            "4.0": 0.3333333333333333,
        },
        "split": "dev",
        "lang": "en",
    },
    "101": {
        "annotators": "Ann1,Ann2",
        "annotations": {"Ann1": "1.0", "Ann2": "1"},
        "soft_label": {"1.0": 1.0},
        "split": "dev",
        "lang": "en",
    },
}


class TestReadLewidi:
    def test_2023(self, tmp_path):
        ann = read_lewidi(_lewidi(tmp_path, LEWIDI_2023))
        assert list(ann.items) == ["1", "2"]
        assert ann.scale.labels == (0, 1)
        assert ann.n_annotators == 5
        assert ann.counts().values.tolist() == [[2, 2], [3, 0]]
        assert ann.meta is not None
        assert list(ann.meta.columns) == ["split", "lang"]

    def test_2025_zero_point_zero_keys_are_one_label(self, tmp_path):
        ann = read_lewidi(_lewidi(tmp_path, LEWIDI_2025))
        assert ann.scale == Scale.ordinal([1, 3, 4])
        assert ann.counts().values.tolist() == [[0, 2, 1], [2, 0, 0]]
        assert ann.meta["split"].tolist() == ["dev", "dev"]

    def test_scale_with_unchosen_labels(self, tmp_path):
        ann = read_lewidi(_lewidi(tmp_path, LEWIDI_2025), scale=Scale.ordinal([1, 2, 3, 4]))
        assert ann.counts().values.tolist() == [[0, 0, 2, 1], [2, 0, 0, 0]]

    def test_string_labels_and_lists(self, tmp_path):
        data = {"a": {"annotations": ["entailment", "neutral"], "annotators": ["A", "B"]}}
        ann = read_lewidi(_lewidi(tmp_path, data))
        assert ann.scale == Scale.nominal(["entailment", "neutral"])

    def test_soft_label_is_recomputed_and_a_wrong_one_reported(self, tmp_path):
        data = json.loads(json.dumps(LEWIDI_2023))
        data["1"]["soft_label"] = {"0": 0.75, "1": 0.25}
        with pytest.warns(
            DissensusWarning,
            match=r"soft_label disagrees with the annotations in 1 of 2 records \(largest difference 0\.25; records '1'\)",
        ):
            ann = read_lewidi(_lewidi(tmp_path, data))
        np.testing.assert_allclose(ann.counts().proportions()[0], [0.5, 0.5])

    def test_soft_label_with_a_label_nobody_chose(self, tmp_path):
        data = {
            "1": {"annotations": "0,0", "annotators": "A,B", "soft_label": {"0": 0.5, "2": 0.5}}
        }
        with pytest.warns(DissensusWarning, match="largest difference 1"):
            read_lewidi(_lewidi(tmp_path, data))

    def test_rounded_soft_label_is_not_a_disagreement(self, tmp_path):
        # LeWiDi 2025 CSC prints soft labels with two decimals (README example: 0.33, 0.17)
        data = {
            "1": {
                "annotations": {"A": "2", "B": "5", "C": "3", "D": "3", "E": "2", "F": "6"},
                "soft_label": {
                    "0": 0.0,
                    "1": 0.0,
                    "2": 0.33,
                    "3": 0.33,
                    "4": 0.0,
                    "5": 0.17,
                    "6": 0.17,
                },
            }
        }
        with warnings.catch_warnings():
            warnings.simplefilter("error", DissensusWarning)
            read_lewidi(_lewidi(tmp_path, data))
        data["1"]["soft_label"]["3"] = 0.5
        data["1"]["soft_label"]["2"] = 0.16
        with pytest.warns(
            DissensusWarning, match=r"disagrees with the annotations in 1 of 1 records"
        ):
            read_lewidi(_lewidi(tmp_path, data))

    def test_nested_soft_label_makes_a_multilabel_file(self, tmp_path):
        # VariErrNLI stores per-label marginals: the file is read as sets, and they are compared
        data = {
            "1": {
                "annotators": "Ann1,Ann3",
                "annotations": {"Ann1": "contradiction", "Ann3": "entailment"},
                "soft_label": {
                    "contradiction": {"0": 0.5, "1": 0.5},
                    "neutral": {"0": 1.0, "1": 0.0},
                },
            }
        }
        with warnings.catch_warnings():
            warnings.simplefilter("error", DissensusWarning)
            sets = read_lewidi(_lewidi(tmp_path, data))
        assert isinstance(sets, SetAnnotations)
        assert sets.scale.labels == ("contradiction", "entailment", "neutral")
        single = read_lewidi(_lewidi(tmp_path, data), multilabel=False)
        assert single.scale == Scale.nominal(["contradiction", "entailment"])

    def test_stated_count_mismatch_reported(self, tmp_path):
        data = json.loads(json.dumps(LEWIDI_2023))
        data["2"]["number of annotations"] = 5
        with pytest.warns(
            DissensusWarning,
            match=r"stated number of annotations differs .* in 1 records \(e\.g\. '2'\)",
        ):
            read_lewidi(_lewidi(tmp_path, data))

    def test_multi_label_list_refused_as_single_label(self, tmp_path):
        data = {"7": {"annotations": {"Ann1": ["entailment", "neutral"]}}}
        with pytest.raises(
            DataError,
            match=r"lewidi\.json' record '7': multi-label annotation \['entailment', 'neutral'\] in a file read as single-label; read it with read_lewidi\(path\)",
        ):
            read_lewidi(_lewidi(tmp_path, data), multilabel=False)
        assert isinstance(read_lewidi(_lewidi(tmp_path, data)), SetAnnotations)

    def test_multi_label_comma_string_refused_as_single_label(self, tmp_path):
        data = {"7": {"annotations": {"Ann1": "entailment,neutral"}}}
        with pytest.raises(
            DataError, match=r"record '7': multi-label annotation 'entailment,neutral' in a file"
        ):
            read_lewidi(_lewidi(tmp_path, data), multilabel=False)

    def test_read_annotations_keeps_single_labels(self, tmp_path):
        data = {"7": {"annotations": {"Ann1": "entailment,neutral"}}}
        with pytest.raises(DataError, match=r"multilabel=True, which gives SetAnnotations"):
            read_annotations(_lewidi(tmp_path, data))

    def test_annotator_count_mismatch(self, tmp_path):
        data = {"3": {"annotations": "1,0,1", "annotators": "Ann1,Ann2"}}
        with pytest.raises(DataError, match=r"record '3': 3 annotations but 2 annotators"):
            read_lewidi(_lewidi(tmp_path, data))

    def test_repeated_annotator(self, tmp_path):
        data = {"3": {"annotations": "1,0", "annotators": "Ann1,Ann1"}}
        with pytest.raises(
            DataError,
            match=r"1 repeated \(item, annotator\) pairs .* item '3' by annotator 'Ann1' at records '3', '3'",
        ):
            read_lewidi(_lewidi(tmp_path, data))
        ann = read_lewidi(_lewidi(tmp_path, data), duplicates="keep")
        assert ann.n_annotations == 2

    def test_records_without_annotations(self, tmp_path):
        data = {
            "1": {"annotations": "1,0", "annotators": "A,B"},
            "2": {"annotations": "", "annotators": ""},
        }
        with pytest.raises(
            DataError, match=r"1 of 2 records have no annotations \(records '2'\).*dropna=True"
        ):
            read_lewidi(_lewidi(tmp_path, data))
        with pytest.warns(DataDroppedWarning, match=r"Skipped 1 of 2 records without annotations"):
            ann = read_lewidi(_lewidi(tmp_path, data), dropna=True)
        assert list(ann.items) == ["1"]

    def test_unlabelled_test_file_is_refused(self, tmp_path):
        # LeWiDi *_test_clear.json: annotations are empty strings. The old reader loaded
        # the 2025 shape as one label "" (and the 2023 shape with commas likewise).
        clear_2023 = {
            "1": {"annotations": "", "annotators": "Ann1,Ann2", "soft_label": {"0": "", "1": ""}},
            "2": {"annotations": ",", "annotators": "Ann1,Ann3", "hard_label": ""},
        }
        clear_2025 = {"7": {"annotations": {"Ann1": "", "Ann2": ""}, "soft_label": ""}}
        for data in (clear_2023, clear_2025):
            for dropna in (False, True):
                with pytest.raises(DataError, match=r"is an unlabelled file: none of its"):
                    read_lewidi(_lewidi(tmp_path, data), dropna=dropna)

    def test_dropna_skips_records_with_only_empty_annotations(self, tmp_path):
        data = {
            "1": {"annotations": {"A": "1", "B": "2"}},
            "2": {"annotations": {"A": "", "B": ""}},
        }
        with pytest.raises(DataError, match=r"1 of 2 records have no annotations \(records '2'\)"):
            read_lewidi(_lewidi(tmp_path, data))
        with pytest.warns(DataDroppedWarning, match=r"Skipped 1 of 2 records without annotations"):
            ann = read_lewidi(_lewidi(tmp_path, data), dropna=True)
        assert list(ann.items) == ["1"]
        assert list(ann.scale) == [1, 2]

    def test_empty_annotations_within_a_record(self, tmp_path):
        data = {
            "1": {"annotations": "1,,0", "annotators": "A,B,C", "number of annotations": 3},
            "2": {"annotations": "0,1", "annotators": "A,B"},
        }
        with pytest.raises(
            DataError, match=r"1 records have some empty annotations \(records '1'\)"
        ):
            read_lewidi(_lewidi(tmp_path, data))
        with pytest.warns(DataDroppedWarning, match=r"Skipped the empty annotations of 1 records"):
            ann = read_lewidi(_lewidi(tmp_path, data), dropna=True)
        assert ann.n_annotations == 4
        assert list(ann.scale) == [0, 1]
        frame = ann.to_frame()
        assert sorted(frame.loc[frame["item"] == "1", "annotator"]) == ["A", "C"]

    def test_convabuse_2023_binary_soft_label(self, tmp_path):
        # the 2023 ConvAbuse JSON annotates severities -3..1 and prints the binary
        # (abusive: severity < 0) distribution, rounded to 3 decimals, as soft_label; the
        # old reader compared it with the five-label proportions and warned on ~all records
        severities = ["-1,0,1", "0,0,1", "-3,-2,1", "1,1,1,-1,0,0", "-2,0,-1"]
        data = {}
        for i, ann in enumerate(severities):
            labels = [int(v) for v in ann.split(",")]
            p1 = sum(v < 0 for v in labels) / len(labels)
            data[str(i)] = {
                "annotations": ann,
                "annotators": ",".join(f"Ann{j}" for j in range(len(labels))),
                "soft_label": {"0": round(1 - p1, 3), "1": round(p1, 3)},
                "hard_label": str(int(p1 > 0.5)),
            }
        ann = read_lewidi(_lewidi(tmp_path, data), scale=CONVABUSE_SCALE)  # no warning
        targets = targets_2023(ann)
        given = np.array([[r["soft_label"]["0"], r["soft_label"]["1"]] for r in data.values()])
        np.testing.assert_allclose(targets, given, atol=5e-4)
        # a soft label that disagrees with the binarised annotations is still reported
        data["2"]["soft_label"] = {"0": 0.9, "1": 0.1}
        with pytest.warns(DissensusWarning, match=r"disagrees with the annotations in 1 of 5"):
            read_lewidi(_lewidi(tmp_path, data), scale=CONVABUSE_SCALE)

    def test_without_annotators(self, tmp_path):
        data = {"1": {"annotations": "1,0"}, "2": {"annotations": "1"}}
        ann = read_lewidi(_lewidi(tmp_path, data))
        assert not ann.has_annotators

    def test_annotators_in_some_records_only(self, tmp_path):
        data = {"1": {"annotations": "1,0", "annotators": "A,B"}, "2": {"annotations": "1"}}
        with pytest.raises(
            DataError, match=r"some records list annotators and some do not \(e\.g\. record '2'\)"
        ):
            read_lewidi(_lewidi(tmp_path, data))

    def test_record_not_an_object(self, tmp_path):
        with pytest.raises(DataError, match=r"record '1': expected a JSON object, got list"):
            read_lewidi(_lewidi(tmp_path, {"1": [1, 0]}))

    def test_not_a_mapping(self, tmp_path):
        with pytest.raises(
            DataError,
            match=r"is not a LeWiDi file: expected a JSON object mapping item ids to records, got list",
        ):
            read_lewidi(_lewidi(tmp_path, [1, 2]))

    def test_invalid_json(self, tmp_path):
        with pytest.raises(DataError, match=r"lewidi\.json' line 2: invalid JSON"):
            read_lewidi(_write(tmp_path, "lewidi.json", '{"1":\n {"annotations": }\n}'))

    def test_meta_field_absent(self, tmp_path):
        with pytest.raises(DataError, match=r"has no field 'genre' in any annotated record"):
            read_lewidi(_lewidi(tmp_path, LEWIDI_2023), meta=["genre"])

    def test_bad_label_type(self, tmp_path):
        data = {"1": {"annotations": {"A": None}}}
        with pytest.raises(DataError, match=r"record '1': label None is not a number or a string"):
            read_lewidi(_lewidi(tmp_path, data))


VARIERR = {
    "49807": {
        "context": "c",
        "statement": "s",
        "annotators": "Ann1,Ann2,Ann3,Ann4",
        "number of annotators": 4,
        "annotations": {
            "Ann1": "entailment",
            "Ann2": "entailment,neutral",
            "Ann3": "neutral",
            "Ann4": "neutral,entailment",
        },
        "soft_label": {
            "contradiction": {"0": 1.0, "1": 0.0},
            "entailment": {"0": 0.25, "1": 0.75},
            "neutral": {"0": 0.25, "1": 0.75},
        },
        "split": "dev",
    },
    "50001": {
        "annotators": "Ann1,Ann2,Ann3,Ann4",
        "number of annotators": 4,
        "annotations": {
            "Ann1": "contradiction",
            "Ann2": "contradiction",
            "Ann3": "contradiction,neutral",
            "Ann4": "neutral",
        },
        "soft_label": {
            "contradiction": {"0": 0.25, "1": 0.75},
            "entailment": {"0": 1.0, "1": 0.0},
            "neutral": {"0": 0.5, "1": 0.5},
        },
        "split": "dev",
    },
}


class TestReadLewidiMultilabel:
    def test_varierrnli_records(self, tmp_path):
        with warnings.catch_warnings():
            warnings.simplefilter("error", DissensusWarning)
            sets = read_lewidi(_lewidi(tmp_path, VARIERR))
        assert isinstance(sets, SetAnnotations)
        # the order of the official files and scorer (soft_label keys): settled earlier
        assert sets.scale.labels == ("contradiction", "entailment", "neutral")
        assert sets.items.tolist() == ["49807", "50001"]
        assert sets.annotators is not None
        assert sets.annotators.tolist() == ["Ann1", "Ann2", "Ann3", "Ann4"]
        assert sets.indicators.astype(int).tolist() == [
            [0, 1, 0], [0, 1, 1], [0, 0, 1], [0, 1, 1],
            [1, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1],
        ]  # fmt: skip
        # the gold soft labels of the file, rebuilt from the annotations
        gold = [[[v["0"], v["1"]] for v in r["soft_label"].values()] for r in VARIERR.values()]
        np.testing.assert_allclose(sets.binary_targets(), gold, atol=1e-15)
        assert sets.meta is not None
        assert sets.meta["split"].tolist() == ["dev", "dev"]

    def test_universe_from_soft_label_keys_when_a_label_is_never_chosen(self, tmp_path):
        data = {"1": dict(VARIERR["49807"])}  # nobody chose contradiction
        sets = read_lewidi(_lewidi(tmp_path, data))
        assert sets.scale.labels == ("contradiction", "entailment", "neutral")
        assert sets.marginals().tolist() == [[0.0, 0.75, 0.75]]

    def test_soft_label_disagreement_reported(self, tmp_path):
        data = json.loads(json.dumps(VARIERR))
        data["50001"]["soft_label"]["neutral"] = {"0": 0.75, "1": 0.25}
        with pytest.warns(
            DissensusWarning,
            match=r"per-label soft_label disagrees with the annotations in 1 of 2 records \(largest difference 0\.25; records '50001'\)",
        ):
            read_lewidi(_lewidi(tmp_path, data))

    def test_json_lists_empty_set_and_blank(self, tmp_path):
        data = {
            "1": {"annotations": {"A": ["x", "y"], "B": [], "C": ""}},
            "2": {"annotations": {"A": "y", "B": ["x"]}},
        }
        with pytest.raises(DataError, match=r"1 records have some empty annotations"):
            read_lewidi(_lewidi(tmp_path, data))
        with pytest.warns(DataDroppedWarning, match=r"Skipped the empty annotations of 1 records"):
            sets = read_lewidi(_lewidi(tmp_path, data), dropna=True)
        assert sets.indicators.astype(int).tolist() == [[1, 1], [0, 0], [0, 1], [1, 0]]

    def test_forced_multilabel_on_single_labels(self, tmp_path):
        data = {"1": {"annotations": {"A": "1", "B": "0"}}, "2": {"annotations": {"A": "1"}}}
        sets = read_lewidi(_lewidi(tmp_path, data), multilabel=True, scale=[0, 1])
        assert sets.indicators.astype(int).tolist() == [[0, 1], [1, 0], [0, 1]]
        assert read_lewidi(_lewidi(tmp_path, data)).counts().values.tolist() == [[1, 1], [0, 1]]

    def test_unknown_label_named(self, tmp_path):
        with pytest.raises(
            DataError,
            match=r"Set \['entailment', 'maybe'\] of item '7' by annotator 'A' in .*lewidi\.json at record '7' \(column 'label'\): 'maybe' is not in the label universe",
        ):
            read_lewidi(
                _lewidi(tmp_path, {"7": {"annotations": {"A": "entailment,maybe"}}}),
                scale=["contradiction", "entailment", "neutral"],
            )

    def test_repeated_label_and_stray_comma(self, tmp_path):
        with pytest.raises(DataError, match=r"label 'neutral' appears twice in one set"):
            read_lewidi(_lewidi(tmp_path, {"7": {"annotations": {"A": "neutral,neutral"}}}))
        with pytest.raises(DataError, match=r"record '7': empty label in the set 'neutral,'"):
            read_lewidi(_lewidi(tmp_path, {"7": {"annotations": {"A": "neutral,"}}}))

    def test_alpha_on_the_file(self, tmp_path):
        sets = read_lewidi(_lewidi(tmp_path, VARIERR))
        task = AnnotationTask(
            data=[
                (a, i, frozenset(v.split(",")))
                for i, r in VARIERR.items()
                for a, v in r["annotations"].items()
            ],
            distance=masi_distance,
        )
        got = krippendorff_alpha(sets, distance="masi").statistic
        assert got == pytest.approx(task.alpha(), abs=1e-12)


class TestReadSetAnnotations:
    def test_csv_with_label_separator(self, tmp_path):
        path = _write(tmp_path, "s.csv", "item,annotator,label\n007,a,E|N\n7,a,N\n")
        sets = read_set_annotations(path, label_sep="|")
        assert sets.items.tolist() == ["007", "7"]  # ids read exactly
        assert sets.indicators.astype(int).tolist() == [[1, 1], [0, 1]]

    def test_jsonl_with_list_cells_and_empty_set(self, tmp_path):
        lines = [
            {"item": 1, "annotator": "a", "label": ["E", "N"]},
            {"item": 1, "annotator": "b", "label": []},
            {"item": 2, "annotator": "a", "label": ["C"]},
        ]
        path = _write(tmp_path, "s.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
        sets = read_set_annotations(path)
        assert sets.indicators.astype(int).tolist() == [[0, 1, 1], [0, 0, 0], [1, 0, 0]]

    def test_parquet_with_list_cells(self, tmp_path):
        df = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": [["x", "y"], ["y"]]})
        path = tmp_path / "s.parquet"
        df.to_parquet(path)
        assert read_set_annotations(path).marginals().tolist() == [[0.5, 1.0]]

    def test_error_names_file_and_line(self, tmp_path):
        path = _write(tmp_path, "s.csv", "item,annotator,label\n1,a,E|N\n1,b,E|E\n")
        with pytest.raises(
            DataError,
            match=r"Set \['E', 'E'\] of item '?1'? by annotator 'b' in .*s\.csv at line 3 \(column 'label'\): label 'E' appears twice",
        ):
            read_set_annotations(path, label_sep="|")

    def test_lewidi_and_refused_formats(self, tmp_path):
        sets = read_set_annotations(_lewidi(tmp_path, VARIERR))
        assert sets.scale.labels == ("contradiction", "entailment", "neutral")
        with pytest.raises(ValueError, match=r"'format' parameter of read_set_annotations"):
            read_set_annotations(_lewidi(tmp_path, VARIERR), "convabuse")  # type: ignore[arg-type]
