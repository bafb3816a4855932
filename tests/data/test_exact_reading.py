"""Ids and labels are read exactly; ambiguous structure is refused with its line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dissensus import (
    DataError,
    LabelCounts,
    LabelSpellingWarning,
    read_annotations,
    read_lewidi,
    read_predictions,
)
from dissensus.data import _tables
from dissensus.data._tables import exact_ids

SRC = Path(__file__).resolve().parents[2] / "src"


def _write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


class TestIds:
    def test_007_and_7_are_two_items(self, tmp_path):
        text = "item,annotator,label\n007,a,1\n007,b,2\n7,a,1\n7,b,1\n"
        ann = read_annotations(_write(tmp_path, "a.csv", text))
        assert ann.items.tolist() == ["007", "7"]
        assert ann.annotations_per_item.tolist() == [2, 2]

    def test_canonical_integers_stay_integers(self, tmp_path):
        text = "item,annotator,label\n1,a,1\n2,a,2\n"
        ann = read_annotations(_write(tmp_path, "a.csv", text))
        assert ann.items.tolist() == [1, 2]

    def test_19_digit_ids_are_exact(self, tmp_path):
        big = "1234567890123456789"
        ann = read_annotations(
            _write(tmp_path, "a.csv", f"item,annotator,label\n{big},a,1\n{big}1,a,2\n")
        )
        # the second id does not fit int64: both stay exact strings
        assert ann.items.tolist() == [big, big + "1"]
        pred = read_predictions(
            _write(tmp_path, "p.csv", f"item,1,2\n{big},0.5,0.5\n{int(big) + 1},0.2,0.8\n")
        )
        assert pred.items.tolist() == [int(big), int(big) + 1]

    def test_prediction_ids_007_and_7(self, tmp_path):
        pred = read_predictions(_write(tmp_path, "p.csv", "item,1,2\n007,0.5,0.5\n7,0.2,0.8\n"))
        assert pred.items.tolist() == ["007", "7"]

    def test_jsonl_string_ids_match_across_files(self, tmp_path):
        rows = [{"item": "000", "annotator": a, "label": lab} for a, lab in (("x", 1), ("y", 2))]
        rows += [{"item": "001", "annotator": "x", "label": 2}]
        ann_path = _write(tmp_path, "a.jsonl", "\n".join(map(json.dumps, rows)) + "\n")
        preds = [{"item": "000", "1": 0.4, "2": 0.6}, {"item": "001", "1": 0.1, "2": 0.9}]
        pred_path = _write(tmp_path, "p.jsonl", "\n".join(map(json.dumps, preds)) + "\n")
        counts = read_annotations(ann_path).counts()
        pred = read_predictions(pred_path)
        assert pred.items.tolist() == ["000", "001"]
        aligned, _ = pred.align(counts)
        np.testing.assert_allclose(aligned.values, [[0.4, 0.6], [0.1, 0.9]])

    def test_exact_ids_helper(self):
        assert exact_ids(pd.Series(["1", "-2", "0"])).tolist() == [1, -2, 0]
        assert exact_ids(pd.Series(["1", "+2"])).tolist() == ["1", "+2"]
        assert exact_ids(pd.Series(["1", "2.0"])).tolist() == ["1", "2.0"]


class TestMissingValues:
    @pytest.mark.parametrize("word", ["NA", "None", "null", "n/a"])
    def test_words_that_look_missing_are_data(self, tmp_path, word):
        text = f"item,annotator,label\n{word},a,pos\n{word},b,{word}\n"
        ann = read_annotations(_write(tmp_path, "a.csv", text))
        assert ann.items.tolist() == [word]
        assert word in ann.scale

    def test_na_values_option(self, tmp_path):
        text = "item,annotator,label\n1,a,pos\n1,b,NA\n"
        with pytest.raises(DataError, match="Missing 'label' values"):
            read_annotations(_write(tmp_path, "a.csv", text), na_values=["NA"])


class TestLabels:
    def test_whitespace_variants_warn(self, tmp_path):
        text = "item,annotator,label\n1,a, pos\n1,b,pos \n2,a,pos\n"
        path = _write(tmp_path, "a.csv", text)
        with pytest.warns(LabelSpellingWarning, match="' pos' vs 'pos ' vs 'pos'"):
            ann = read_annotations(path)
        assert ann.scale.K == 3

    def test_strip_labels(self, tmp_path):
        text = "item,annotator,label\n1,a, pos\n1,b,pos \n2,a,neg\n"
        ann = read_annotations(_write(tmp_path, "a.csv", text), strip_labels=True)
        assert ann.scale.labels == ("neg", "pos")

    def test_case_variants_warn(self, tmp_path):
        text = "item,annotator,label\n1,a,Pos\n1,b,pos\n"
        with pytest.warns(LabelSpellingWarning, match="'Pos' vs 'pos'"):
            read_annotations(_write(tmp_path, "a.csv", text))

    def test_nul_is_refused_with_its_line(self, tmp_path):
        text = "item,annotator,label\n1,a,pos\n1,b,p\x00os\n"
        with pytest.raises(DataError, match=r"line 3 contains the control character U\+0000"):
            read_annotations(_write(tmp_path, "a.csv", text))

    def test_json_true_does_not_merge_with_1(self, tmp_path):
        rows = [{"item": "i", "annotator": "a", "label": 1}]
        rows += [{"item": "i", "annotator": "b", "label": True}]
        path = _write(tmp_path, "a.jsonl", "\n".join(map(json.dumps, rows)) + "\n")
        with pytest.raises(DataError, match=r"Label True .* at line 2 is a boolean"):
            read_annotations(path)

    def test_lewidi_boolean_is_refused(self, tmp_path):
        path = _write(tmp_path, "l.json", json.dumps({"1": {"annotations": {"a": True, "b": 1}}}))
        with pytest.raises(DataError, match="record '1': label true is a JSON boolean"):
            read_lewidi(path)

    def test_a_bad_label_on_the_last_line_is_located(self, tmp_path):
        rows = [{"item": f"i{i}", "annotator": "a", "label": i % 3} for i in range(2000)]
        rows.append({"item": "last", "annotator": "a", "label": "x"})
        path = _write(tmp_path, "a.jsonl", "\n".join(map(json.dumps, rows)) + "\n")
        with pytest.raises(DataError, match=r"string label 'x' at line 2001 among numbers"):
            read_annotations(path)


class TestStructure:
    def test_duplicate_columns(self, tmp_path):
        text = "item,annotator,label,label\n1,a,pos,neg\n"
        with pytest.raises(
            DataError, match=r"line 1: column 'label' appears twice \(columns 3 and 4\)"
        ):
            read_annotations(_write(tmp_path, "a.csv", text))

    def test_duplicate_wide_column_is_not_a_phantom_annotator(self, tmp_path):
        text = "item,r1,r2,r1\n1,1,2,2\n"
        with pytest.raises(DataError, match="column 'r1' appears twice"):
            read_annotations(_write(tmp_path, "a.csv", text), layout="wide")

    def test_trailing_comma_on_every_row(self, tmp_path):
        text = "item,annotator,label\n1,a,pos,\n1,b,neg,\n"
        with pytest.raises(DataError, match=r"line 2: 4 fields but the header has 3.*trailing ','"):
            read_annotations(_write(tmp_path, "a.csv", text))

    def test_lewidi_repeated_record_key(self, tmp_path):
        text = (
            '{"1": {"annotations": "1,0", "annotators": "a,b"},\n'
            ' "1": {"annotations": "1,1", "annotators": "a,b"}}'
        )
        with pytest.raises(DataError, match=r"line 2: key '1' appears twice"):
            read_lewidi(_write(tmp_path, "l.json", text))

    def test_jsonl_repeated_key(self, tmp_path):
        text = '{"item": 1, "annotator": "a", "label": 1, "label": 2}\n'
        with pytest.raises(DataError, match="line 1: key 'label' appears twice"):
            read_annotations(_write(tmp_path, "a.jsonl", text))

    def test_lewidi_nested_100k_deep(self, tmp_path):
        path = _write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
        with pytest.raises(DataError, match="nested too deeply"):
            read_lewidi(path)

    def test_counts_that_overflow_int64(self):
        with pytest.raises(DataError, match=r"1e\+20; counts must be at most 2\*\*53"):
            LabelCounts.from_array([[1e20, 1.0]])


class TestErrorsCarryTheLine:
    def test_invalid_utf8(self, tmp_path):
        path = _write(tmp_path, "a.csv", b"item,annotator,label\n1,a,x\n1,b,\xff\n")
        with pytest.raises(DataError, match=r"a\.csv' line 3: byte 0xff at column 5 is not UTF-8"):
            read_annotations(path)

    def test_invalid_utf8_in_lewidi(self, tmp_path):
        path = _write(tmp_path, "l.json", b'{"1":\n {"annotations": "\xff"}}')
        with pytest.raises(DataError, match=r"line 2: byte 0xff"):
            read_lewidi(path)

    def test_truncated_jsonl_predictions(self, tmp_path):
        text = '{"item": "a", "1": 0.5, "2": 0.5}\n{"item": "b", "1": 0.'
        with pytest.raises(DataError, match=r"p\.jsonl' line 2: invalid JSON"):
            read_predictions(_write(tmp_path, "p.jsonl", text))

    def test_long_predictions_read_as_wide_hint(self, tmp_path):
        text = "item,label,prob\na,1,0.4\na,2,0.6\n"
        with pytest.raises(DataError, match="--pred-layout long"):
            read_predictions(_write(tmp_path, "p.csv", text), layout="wide")


def _feed_fifo(path: Path, data: bytes) -> threading.Thread:
    def run() -> None:
        with path.open("wb") as fh:  # blocks until the reader opens the FIFO
            fh.write(data)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need a POSIX system")
@pytest.mark.parametrize(
    ("reader", "name", "data"),
    [
        ("read_annotations", "a.csv", b"item,annotator,label\n1,a,1\n1,b,2\n"),
        ("read_predictions", "p.csv", b"item,1,2\na,0.5,0.5\n"),
    ],
)
def test_a_fifo_is_read_once(tmp_path, reader, name, data):
    # A reader that opened the file twice would wait forever for a second
    # writer: run it in a child process with a timeout (generous: importing dissensus
    # on a loaded 2-core machine has taken over 20 s, and a hung reader never returns).
    fifo = tmp_path / name
    os.mkfifo(fifo)
    script = (
        "from dissensus import read_annotations, read_predictions\n"
        f"print({reader}({str(fifo)!r}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen(
        [sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    writer = _feed_fifo(fifo, data)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail("the reader hung on a FIFO (it opened the file a second time)")
    writer.join(timeout=5)
    assert proc.returncode == 0, err.decode()
    assert b"<" in out


class TestUtf8CheckInSlices:
    """The encoding check decodes in slices; a character may straddle two of them."""

    @pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 7])
    def test_valid_text_passes_for_any_slice(self, monkeypatch, size):
        monkeypatch.setattr(_tables, "_DECODE_SLICE", size)
        _tables.check_utf8("é€𝄞x\nab€\n".encode() * 3, "f.csv")

    @pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 7, 1 << 24])
    @pytest.mark.parametrize(
        ("raw", "line", "byte", "column"),
        [
            (b"ab\xc3\xa9cd\xffxx", 1, "0xff", 7),
            (b"a\nb\xe2\x82", 2, "0xe2", 2),  # truncated at the end of the file
            ("é€𝄞x".encode() * 3 + b"\n\x80", 2, "0x80", 1),
            (b"x\n\xe2\x82\xac\xe2(\xa1", 2, "0xe2", 4),
        ],
    )
    def test_the_first_bad_byte_is_named_for_any_slice(
        self, monkeypatch, size, raw, line, byte, column
    ):
        monkeypatch.setattr(_tables, "_DECODE_SLICE", size)
        with pytest.raises(DataError, match=rf"line {line}: byte {byte} at column {column} "):
            _tables.check_utf8(raw, "f.csv")
