"""A corpus of bad and tricky input files: every reader refuses each clearly, and ids stay exact.

Each case is a file (name and bytes) and a fragment of the expected refusal. It
goes through the library readers (:class:`DataError`, never a raw NumPy/pandas
error) and through the CLI (``info``, ``agreement``, ``evaluate``: exit code 2,
the same fragment, no "internal error", no Python parameter where a flag is meant).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import re
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dissensus import DataError
from dissensus.cli import EXIT_BAD_INPUT, main
from dissensus.data import (
    _tables,
    read_annotations,
    read_lewidi,
    read_predictions,
    read_set_annotations,
)
from dissensus.metrics.lewidi import read_lewidi_predictions

Content = bytes | Callable[[], bytes]

#: A keyword argument hint (``format='jsonl'``, ``item=None``) left in a CLI message.
PYTHON_HINT = re.compile(r"\b[a-z_]+=(?:'|\[|\.\.\.|True\b|False\b|None\b)")
DEEP = "[" * 50_000 + "]" * 50_000


def _jsonl(*records: object) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _parquet(df: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    df.to_parquet(buffer)
    return buffer.getvalue()


def _zip(*names: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in names:
            archive.writestr(name, "<x/>")
    return buffer.getvalue()


_LONG = b"item,annotator,label\n1,a,1\n1,b,2\n2,a,1\n"
_ANNOTATIONS = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": [1, 2]})

#: (case, file name, content, fragment of the refusal) for annotation files.
ANNOTATION_CASES: list[tuple[str, str, Content, str]] = [
    ("empty", "a.csv", b"", "is empty; expected a CSV file"),
    ("only_whitespace", "a.csv", b"  \n\n", "is empty (only whitespace)"),
    ("empty_jsonl", "a.jsonl", b"", "is empty; expected one JSON object per line"),
    ("empty_lewidi", "a.json", b"", "is empty; expected a LeWiDi JSON file"),
    ("empty_parquet", "a.parquet", b"", "is empty; expected a Parquet file"),
    ("header_only", "a.csv", b"item,annotator,label\n", "has a header but no rows"),
    ("header_only_tsv", "a.tsv", b"item\tannotator\tlabel\n", "has a header but no rows"),
    (
        "header_only_parquet",
        "a.parquet",
        lambda: _parquet(_ANNOTATIONS.iloc[:0]),
        "has a header but no rows",
    ),
    (
        "all_labels_empty",
        "a.csv",
        b"item,annotator,label\n1,a,\n2,b,\n",
        "all 2 labels in column 'label' are empty",
    ),
    (
        "all_labels_null_jsonl",
        "a.jsonl",
        _jsonl({"item": 1, "annotator": "a", "label": None}),
        "all 1 labels in column 'label'",
    ),
    ("gzip_as_csv", "a.csv", lambda: gzip.compress(_LONG), "is gzip-compressed, not CSV"),
    ("gzip_as_jsonl", "a.jsonl", lambda: gzip.compress(b"{}\n"), "is gzip-compressed"),
    ("parquet_as_csv", "a.csv", lambda: _parquet(_ANNOTATIONS), "is a Parquet file, not CSV"),
    ("parquet_as_lewidi", "a.json", lambda: _parquet(_ANNOTATIONS), "is a Parquet file"),
    ("zip_as_csv", "a.csv", lambda: _zip("a.csv"), "is a zip archive, not CSV"),
    (
        "xlsx_as_csv",
        "a.csv",
        lambda: _zip("[Content_Types].xml", "xl/workbook.xml"),
        "is an Excel workbook (.xlsx)",
    ),
    ("xls_as_csv", "a.csv", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64), "old Excel (.xls)"),
    ("bzip2_as_tsv", "a.tsv", b"BZh91AY&SY" + bytes(32), "is bzip2-compressed, not TSV"),
    ("binary_garbage", "a.csv", bytes(range(128, 256)) * 4, "is not UTF-8"),
    ("csv_as_parquet", "a.parquet", _LONG, "it looks like CSV"),
    ("jsonl_as_parquet", "a.parquet", _jsonl({"item": 1}), "it looks like JSON Lines"),
    (
        "jsonl_as_json",
        "a.json",
        _jsonl(
            {"item": 1, "annotator": "a", "label": 1}, {"item": 2, "annotator": "a", "label": 1}
        ),
        "is JSON Lines (one JSON object per line), not a LeWiDi JSON file",
    ),
    (
        "unclosed_quote",
        "a.csv",
        b'item,annotator,label\n1,a,"1\n2,b,1\n',
        "a quoted field opened on line 2 is never closed",
    ),
    (
        "row_longer_than_header",
        "a.csv",
        b"item,annotator,label\n1,a,1,5\n",
        "line 2: 4 fields but the header has 3",
    ),
    (
        "deep_jsonl",
        "a.jsonl",
        f'{{"item": 1, "annotator": "a", "label": {DEEP}}}\n'.encode(),
        "line 1: JSON nested too deeply",
    ),
    (
        "deep_lewidi",
        "a.json",
        f'{{"1": {{"annotations": {{"A": {DEEP}}}}}}}'.encode(),
        "JSON nested too deeply",
    ),
    (
        "nested_lewidi_label",
        "a.json",
        f'{{"1": {{"annotations": {{"A": {"[" * 900 + "]" * 900}}}}}}}'.encode(),
        "record '1': multi-label annotation [[[[...]]]]",
    ),
    (
        "list_label",
        "a.jsonl",
        _jsonl({"item": 1, "annotator": "a", "label": [1, 2]}),
        "column 'label' holds a list [1, 2] at line 1",
    ),
    (
        "dict_label",
        "a.jsonl",
        _jsonl({"item": 1, "annotator": "a", "label": {"x": 1}}),
        "column 'label' holds a dict {'x': 1} at line 1",
    ),
    (
        "list_id",
        "a.jsonl",
        _jsonl({"item": [1], "annotator": "a", "label": 1}),
        "column 'item' holds a list [1] at line 1",
    ),
    (
        "list_annotator",
        "a.jsonl",
        _jsonl({"item": 1, "annotator": {"a": 1}, "label": 1}),
        "column 'annotator' holds a dict",
    ),
    (
        "bool_id_merges_with_1",
        "a.jsonl",
        _jsonl(
            {"item": True, "annotator": "a", "label": 1}, {"item": 1, "annotator": "b", "label": 2}
        ),
        "holds the ids True and 1",
    ),
    (
        "float_id_merges_with_int",
        "a.jsonl",
        b'{"item": 1.0, "annotator": "a", "label": 1}\n{"item": 1, "annotator": "b", "label": 2}\n',
        "holds the ids 1.0 and 1",
    ),
    (
        "infinity_label",
        "a.jsonl",
        b'{"item": 1, "annotator": "a", "label": Infinity}\n',
        "line 1: Infinity is not a finite number",
    ),
    (
        "overflowing_label",
        "a.jsonl",
        b'{"item": 1, "annotator": "a", "label": 1e400}\n',
        "line 1: 1e400 is not a finite number",
    ),
    ("jsonl_not_objects", "a.jsonl", b"1\n2\n", "line 1: expected a JSON object per line"),
    ("lewidi_list", "a.json", b"[1, 2]", "is not a LeWiDi file"),
    (
        "lewidi_meta_list",
        "a.json",
        json.dumps({"1": {"annotations": "1,0", "annotators": "A,B", "split": ["x"]}}).encode(),
        "field 'split' is ['x']",
    ),
    (
        "lewidi_annotator_object",
        "a.json",
        json.dumps({"1": {"annotations": "1,0", "annotators": [{"a": 1}, "B"]}}).encode(),
        "annotator {'a': 1} is not an id",
    ),
]


def _write(tmp_path: Path, name: str, content: Content) -> Path:
    path = tmp_path / name
    path.write_bytes(content() if callable(content) else content)
    return path


def _cli(*args: str | Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main([str(a) for a in args])
    return code, " ".join(capsys.readouterr().err.split())


def _assert_clear(code: int, err: str, fragment: str) -> None:
    assert code == EXIT_BAD_INPUT, err
    assert "internal error" not in err
    assert fragment in err, err
    assert not PYTHON_HINT.search(err), f"a Python parameter in a CLI message: {err}"


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [c[1:] for c in ANNOTATION_CASES],
    ids=[c[0] for c in ANNOTATION_CASES],
)
class TestBadAnnotationFiles:
    def test_read_annotations_refuses(self, tmp_path, name, content, fragment):
        path = _write(tmp_path, name, content)
        with pytest.raises(DataError) as info:
            read_annotations(path)
        assert fragment in str(info.value)

    @pytest.mark.parametrize("command", ["info", "agreement"])
    def test_cli_refuses_with_exit_2(self, tmp_path, capsys, name, content, fragment, command):
        path = _write(tmp_path, name, content)
        _assert_clear(*_cli(command, path, capsys=capsys), fragment)

    def test_evaluate_refuses_with_exit_2(self, tmp_path, capsys, name, content, fragment):
        path = _write(tmp_path, name, content)
        pred = _write(tmp_path, "p.csv", b"item,1,2\n1,0.5,0.5\n2,0.5,0.5\n")
        out = tmp_path / "out"
        code, err = _cli("evaluate", path, "--pred", f"m={pred}", "--out", out, capsys=capsys)
        _assert_clear(code, err, fragment)


#: (case, file name, content, fragment) for prediction files (wide: item, then one column per label).
PREDICTION_CASES: list[tuple[str, str, Content, str]] = [
    ("empty", "p.csv", b"", "is empty"),
    ("header_only", "p.csv", b"item,1,2\n", "has a header but no rows"),
    ("gzip_as_csv", "p.csv", lambda: gzip.compress(b"item,1,2\n1,1,0\n"), "is gzip-compressed"),
    (
        "parquet_as_csv",
        "p.csv",
        lambda: _parquet(pd.DataFrame({"item": [1], "1": [1.0]})),
        "is a Parquet file, not CSV",
    ),
    (
        "list_probability",
        "p.jsonl",
        _jsonl({"item": 1, "1": [0.5], "2": 0.5}),
        "column '1' holds [0.5] at line 1",
    ),
    (
        "list_id",
        "p.jsonl",
        _jsonl({"item": [1], "1": 0.5, "2": 0.5}),
        "column 'item' holds a list [1] at line 1",
    ),
    (
        "no_item_column",
        "p.jsonl",
        _jsonl({"key": 1, "1": 0.5, "2": 0.5}),
        "no column named like an item id",
    ),
    ("deep", "p.jsonl", f'{{"item": 1, "1": {DEEP}}}\n'.encode(), "JSON nested too deeply"),
    ("infinity", "p.jsonl", b'{"item": 1, "1": Infinity, "2": 0}\n', "is not a finite number"),
]


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [c[1:] for c in PREDICTION_CASES],
    ids=[c[0] for c in PREDICTION_CASES],
)
class TestBadPredictionFiles:
    def test_read_predictions_refuses(self, tmp_path, name, content, fragment):
        with pytest.raises(DataError) as info:
            read_predictions(_write(tmp_path, name, content))
        assert fragment in str(info.value)

    def test_evaluate_refuses_with_exit_2(self, tmp_path, capsys, name, content, fragment):
        ann = _write(tmp_path, "a.csv", b"item,annotator,label\n1,a,1\n1,b,2\n2,a,1\n2,b,1\n")
        pred = _write(tmp_path, name, content)
        out = tmp_path / "out"
        code, err = _cli("evaluate", ann, "--pred", f"m={pred}", "--out", out, capsys=capsys)
        _assert_clear(code, err, fragment)


#: (case, file name, content, fragment) for files of sets of labels.
SET_CASES: list[tuple[str, str, Content, str]] = [
    ("header_only", "s.csv", b"item,annotator,label\n", "has a header but no rows"),
    ("all_labels_empty", "s.csv", b"item,annotator,label\n1,a,\n", "all 1 labels"),
    ("gzip_as_csv", "s.csv", lambda: gzip.compress(_LONG), "is gzip-compressed"),
    (
        "dict_label",
        "s.jsonl",
        _jsonl({"item": 1, "annotator": "a", "label": {"x": 1}}),
        "column 'label' holds a dict {'x': 1} at line 1",
    ),
    ("deep_cell", "s.csv", f'item,annotator,label\n1,a,"{DEEP}"\n'.encode(), "cannot read"),
    (
        "deep_jsonl",
        "s.jsonl",
        f'{{"item": 1, "annotator": "a", "label": {DEEP}}}\n'.encode(),
        "JSON nested too deeply",
    ),
]


@pytest.mark.parametrize(
    ("name", "content", "fragment"), [c[1:] for c in SET_CASES], ids=[c[0] for c in SET_CASES]
)
class TestBadSetFiles:
    def test_read_set_annotations_refuses(self, tmp_path, name, content, fragment):
        with pytest.raises(DataError) as info:
            read_set_annotations(_write(tmp_path, name, content))
        assert fragment in str(info.value)

    def test_agreement_sets_refuses_with_exit_2(self, tmp_path, capsys, name, content, fragment):
        path = _write(tmp_path, name, content)
        code, err = _cli("agreement", "--sets", path, capsys=capsys)
        _assert_clear(code, err, fragment)
        assert len(err) < 2000


class TestFlagsNotParameters:
    def test_missing_prediction_item_column_names_the_flag(self, tmp_path, capsys):
        ann = _write(tmp_path, "a.csv", b"item,annotator,label\n1,a,1\n1,b,2\n")
        pred = _write(tmp_path, "p.csv", b"key,1,2\n1,0.5,0.5\n")
        code, err = _cli(
            "evaluate", ann, "--pred", f"m={pred}", "--out", tmp_path / "o", capsys=capsys
        )
        _assert_clear(code, err, "--pred-item COLUMN")

    def test_unknown_extension_names_the_format_flag(self, tmp_path, capsys):
        code, err = _cli("info", _write(tmp_path, "a.txt", _LONG), capsys=capsys)
        _assert_clear(code, err, "pass --format FORMAT, one of 'csv'")

    def test_jsonl_named_json_names_the_format_flag(self, tmp_path, capsys):
        path = _write(tmp_path, "a.json", _jsonl({"item": 1}, {"item": 2}))
        _assert_clear(*_cli("info", path, capsys=capsys), "read it with --format jsonl")

    def test_fixed_columns_name_the_flags(self, tmp_path, capsys):
        path = _write(tmp_path, "a.json", json.dumps({"1": {"annotations": "1,0"}}).encode())
        code, err = _cli("info", path, "--na-values", "NA", "--layout", "wide", capsys=capsys)
        _assert_clear(code, err, "the option(s) --layout, --na-values do not apply")


# -- files that are not regular files -------------------------------------------------
@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
class TestEndlessInputs:
    def test_device_is_refused_by_every_reader(self):
        for read in (read_annotations, read_predictions, read_lewidi):
            with pytest.raises(DataError, match=r"'/dev/zero' is a character device"):
                read("/dev/zero", format="csv") if read is not read_lewidi else read("/dev/zero")

    def test_device_as_submission_is_refused(self):
        with pytest.raises(DataError, match="not a regular file"):
            read_lewidi_predictions("/dev/zero", year=2025)

    def test_cli_info_on_a_device_exits_2(self, capsys):
        _assert_clear(
            *_cli("info", "/dev/zero", "--format", "csv", capsys=capsys), "is a character device"
        )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
class TestPipes:
    @staticmethod
    def _pipe(tmp_path: Path, content: bytes) -> Path:
        path = tmp_path / "a.csv"
        os.mkfifo(path)

        def feed() -> None:
            with path.open("wb") as fh:
                fh.write(content)

        threading.Thread(target=feed, daemon=True).start()
        return path

    def test_a_pipe_is_read(self, tmp_path):
        ann = read_annotations(self._pipe(tmp_path, _LONG))
        assert ann.n_items == 2

    def test_a_pipe_beyond_the_limit_is_refused(self, tmp_path, monkeypatch):
        monkeypatch.setattr(_tables, "MAX_PIPE_BYTES", 16)
        with pytest.raises(DataError, match=r"is a pipe that sent more than 16 bytes"):
            read_annotations(self._pipe(tmp_path, _LONG))

    def test_a_pipe_is_read_in_chunks(self, tmp_path, monkeypatch):
        monkeypatch.setattr(_tables, "_PIPE_CHUNK", 3)
        assert read_annotations(self._pipe(tmp_path, _LONG)).n_items == 2

    def test_info_reads_a_pipe(self, tmp_path, capsys):
        assert main(["info", str(self._pipe(tmp_path, _LONG))]) == 0
        assert "MemoryError" not in capsys.readouterr().err

    def test_an_endless_pipe_is_refused_at_the_limit(self, tmp_path, monkeypatch):
        monkeypatch.setattr(_tables, "MAX_PIPE_BYTES", 1000)
        monkeypatch.setattr(_tables, "_PIPE_CHUNK", 64)
        path = tmp_path / "endless.csv"
        os.mkfifo(path)

        def feed() -> None:
            # Writes until the reader closes the pipe (BrokenPipeError).
            with contextlib.suppress(BrokenPipeError), path.open("wb") as fh:
                fh.write(b"item,annotator,label\n")
                while True:
                    fh.write(b"1,a,x\n" * 100)

        threading.Thread(target=feed, daemon=True).start()
        with pytest.raises(DataError, match=r"is a pipe that sent more than 1,000 bytes"):
            read_annotations(path)


class TestOutOfMemory:
    def test_memory_error_while_reading_is_a_data_error(self, tmp_path, monkeypatch):
        path = _write(tmp_path, "a.csv", _LONG)

        def exhausted(self: Path) -> bytes:
            raise MemoryError

        monkeypatch.setattr(Path, "read_bytes", exhausted)
        with pytest.raises(DataError, match=r"too large to read into memory: .*--engine dask"):
            read_annotations(path)


class TestDirectory:
    def test_directory_is_refused(self, tmp_path):
        with pytest.raises(IsADirectoryError, match="is a directory"):
            read_annotations(tmp_path, format="csv")


# -- a UTF-8 BOM is accepted everywhere and never becomes part of an id ------------------
_BOM = b"\xef\xbb\xbf"


class TestByteOrderMark:
    def test_csv(self, tmp_path):
        ann = read_annotations(_write(tmp_path, "a.csv", _BOM + _LONG))
        assert list(ann.items) == [1, 2]

    def test_jsonl(self, tmp_path):
        content = _BOM + _jsonl({"item": "x", "annotator": "a", "label": 1})
        assert list(read_annotations(_write(tmp_path, "a.jsonl", content)).items) == ["x"]

    def test_lewidi(self, tmp_path):
        record = {"x": {"annotations": {"A": "1", "B": "0"}}}
        ann = read_lewidi(_write(tmp_path, "a.json", _BOM + json.dumps(record).encode()))
        assert list(ann.items) == ["x"]

    def test_submission(self, tmp_path):
        path = _write(tmp_path, "s.tsv", _BOM + b"x\t[0.5, 0.5]\n")
        assert read_lewidi_predictions(path, year=2025).items == ("x",)


class TestSubmissionRefusals:
    def test_deep_list(self, tmp_path):
        path = _write(tmp_path, "s.tsv", f"x\t{DEEP}\n".encode())
        with pytest.raises(DataError, match=r"line 1: cannot read"):
            read_lewidi_predictions(path, year=2025)

    def test_binary(self, tmp_path):
        path = _write(tmp_path, "s.tsv", gzip.compress(b"x\t[1]\n"))
        with pytest.raises(DataError, match="is not UTF-8"):
            read_lewidi_predictions(path, year=2025)


# -- ids exact on every reader --------------------------------------------------------
#: Ids that float64 merges with a neighbour: 2**53 + 1 == 2**53 and 2**63 - 1 == 2**63 - 2 there.
BIG_IDS = [2**63 - 1, 2**63 - 2, 2**53 + 1, 2**53, -(2**63), 7]


def _long(ids: list[int | None]) -> pd.DataFrame:
    return pd.DataFrame({"annotator": "a", "label": [1 + i % 2 for i in range(len(ids))]}).assign(
        item=pd.array(ids, dtype="Int64")
    )


class TestExactIds:
    @pytest.mark.parametrize("sep", [",", "\t"])
    def test_delimited(self, tmp_path, sep):
        text = "".join(f"{i}{sep}a{sep}1\n" for i in BIG_IDS)
        path = _write(
            tmp_path,
            "a.tsv" if sep == "\t" else "a.csv",
            f"item{sep}annotator{sep}label\n{text}".encode(),
        )
        assert [int(i) for i in read_annotations(path).items] == BIG_IDS

    def test_jsonl(self, tmp_path):
        path = _write(
            tmp_path,
            "a.jsonl",
            _jsonl(*({"item": i, "annotator": "a", "label": 1} for i in BIG_IDS)),
        )
        assert [int(i) for i in read_annotations(path).items] == BIG_IDS

    def test_jsonl_with_a_missing_id(self, tmp_path):
        records = [{"item": i, "annotator": "a", "label": 1} for i in [*BIG_IDS, None]]
        path = _write(tmp_path, "a.jsonl", _jsonl(*records))
        with pytest.warns(UserWarning, match="Dropped 1"):
            ann = read_annotations(path, dropna=True)
        assert [int(i) for i in ann.items] == BIG_IDS

    def test_jsonl_beyond_int64(self, tmp_path):
        ids = [2**64 + 1, 2**64, 1]
        path = _write(
            tmp_path, "a.jsonl", _jsonl(*({"item": i, "annotator": "a", "label": 1} for i in ids))
        )
        assert [int(i) for i in read_annotations(path).items] == ids

    def test_parquet_nullable_with_na(self, tmp_path):
        path = tmp_path / "a.parquet"
        _long([*BIG_IDS, None]).to_parquet(path)
        with pytest.warns(UserWarning, match="Dropped 1"):
            ann = read_annotations(path, dropna=True)
        assert [int(i) for i in ann.items] == BIG_IDS

    def test_parquet_without_pandas_metadata(self, tmp_path):
        # as written by Spark, polars or Arrow itself: an int64 column with a null
        path = tmp_path / "a.parquet"
        table = pa.table(
            {
                "item": pa.array([*BIG_IDS, None], pa.int64()),
                "annotator": ["a"] * 7,
                "label": [1] * 7,
            }
        )
        pq.write_table(table, path)
        with pytest.warns(UserWarning, match="Dropped 1"):
            ann = read_annotations(path, dropna=True)
        assert [int(i) for i in ann.items] == BIG_IDS

    def test_parquet_uint64(self, tmp_path):
        path = tmp_path / "a.parquet"
        ids = [2**64 - 1, 2**64 - 2]
        pq.write_table(
            pa.table(
                {"item": pa.array(ids, pa.uint64()), "annotator": ["a", "a"], "label": [1, 1]}
            ),
            path,
        )
        assert [int(i) for i in read_annotations(path).items] == ids

    def test_float_ids_beyond_2_53_are_refused(self, tmp_path):
        path = tmp_path / "a.parquet"
        ids = [2.0**53, 1.0]
        pd.DataFrame({"item": ids, "annotator": "a", "label": [1, 2]}).to_parquet(path)
        with pytest.raises(DataError, match=r"ids as floating-point numbers, and the ids at row 1"):
            read_annotations(path)

    def test_small_float_ids_are_read(self, tmp_path):
        path = tmp_path / "a.parquet"
        pd.DataFrame({"item": [1.5, 2.0], "annotator": "a", "label": [1, 2]}).to_parquet(path)
        assert list(read_annotations(path).items) == [1.5, 2.0]

    def test_predictions_jsonl_and_parquet(self, tmp_path):
        records = [{"item": i, "1": 0.5, "2": 0.5} for i in BIG_IDS]
        jsonl = read_predictions(_write(tmp_path, "p.jsonl", _jsonl(*records)))
        assert jsonl.items is not None
        assert [int(i) for i in jsonl.items] == BIG_IDS
        path = tmp_path / "p.parquet"
        frame = pd.DataFrame({"item": pd.array(BIG_IDS, dtype="Int64"), "1": 0.5, "2": 0.5})
        frame.to_parquet(path)
        parquet = read_predictions(path)
        assert parquet.items is not None
        assert [int(i) for i in parquet.items] == BIG_IDS

    def test_lewidi_keys_stay_text(self, tmp_path):
        records = {str(i): {"annotations": {"A": "1", "B": "0"}} for i in BIG_IDS}
        ann = read_lewidi(_write(tmp_path, "a.json", json.dumps(records).encode()))
        assert list(ann.items) == [str(i) for i in BIG_IDS]
