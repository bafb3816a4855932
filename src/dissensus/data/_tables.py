"""The table-reading core: a file, read once, as a DataFrame indexed by its place in the file.

The index holds file positions (see ``source`` in :mod:`dissensus.data`) for
:func:`locations`. A column name or JSON key given twice, a row longer than
the header and bytes that are not UTF-8 are refused with their line.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import check_option

PathLike = str | os.PathLike[str]
TableFormat = Literal["csv", "tsv", "parquet", "jsonl"]
TABLE_FORMATS: tuple[str, ...] = ("csv", "tsv", "parquet", "jsonl")
_EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "lewidi",
}
#: Bytes decoded at a time when checking a file's encoding.
_DECODE_SLICE = 1 << 24
#: 10**0 ... 10**18: the number of them <= |n| is the number of digits of n.
_POWERS_OF_TEN = 10 ** np.arange(19, dtype=np.int64)
_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


# -- messages -------------------------------------------------------------------
def py(value: Any) -> Any:
    """Plain Python value for a message (``1``, not ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def in_source(source: str | None) -> str:
    """``" in <file>"`` for a message, or nothing."""
    return f" in {source}" if source else ""


def locations(
    index: pd.Index, positions: npt.NDArray[np.intp], source: str | None, limit: int = 5
) -> str:
    """Name rows for an error message: with a ``source``, file positions of the kind the index name says."""
    labels = [py(v) for v in index[positions[:limit]]]
    more = len(positions) - len(labels)
    tail = f" … ({more} more)" if more > 0 else ""
    plural = "s" if len(labels) > 1 else ""
    if source is not None:
        word = index.name if index.name in ("line", "row", "record") else "line"
        shown = ", ".join(map(repr if word == "record" else str, labels))
        return f"{word}{plural} {shown}{tail}"
    return f"row{plural} {', '.join(map(repr, labels))}{tail}"


def first_repeat(columns: Sequence[Any]) -> tuple[Any, int, int] | None:
    """The first name given twice, with its two 1-based positions, or None.

    Examples
    --------
    >>> first_repeat(["item", "r1", "r2", "r1"])
    ('r1', 2, 4)
    """
    seen: dict[Any, int] = {}
    for position, name in enumerate(columns, start=1):
        if name in seen:
            return name, seen[name], position
        seen[name] = position
    return None


# -- files ------------------------------------------------------------------------
def existing_file(path: PathLike) -> Path:
    """``path`` as a Path, refused when it does not exist or is a directory."""
    p = Path(path)
    if not p.exists():
        msg = f"No such file: '{path}'."
        raise FileNotFoundError(msg)
    if p.is_dir():
        msg = f"'{path}' is a directory; give a file."
        raise IsADirectoryError(msg)
    return p


def open_table(
    path: PathLike, format: str | None, formats: Sequence[str], caller: str
) -> tuple[Path, str]:
    """The existing file and its format: ``format``, or one of ``formats`` by extension."""
    p = existing_file(path)
    if format is None:
        inferred = _EXTENSIONS.get(p.suffix.lower())
        if inferred is None or inferred not in formats:
            msg = f"Cannot tell the format of '{path}' from its extension {p.suffix or '(none)'!r}; pass format= one of {', '.join(map(repr, formats))}."
            raise DataError(msg)
        format = inferred
    check_option(caller, "format", format, tuple(formats))
    return p, format


def check_utf8(raw: bytes, path: PathLike) -> None:
    """Refuse bytes that are not UTF-8, naming the line and column of the first bad byte."""
    # in slices through one incremental decoder: decoding a large file whole
    # would hold a second copy of it as text just to be dropped
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(raw)
    for start in range(0, max(len(raw), 1), _DECODE_SLICE):
        stop = min(start + _DECODE_SLICE, len(raw))
        try:
            decoder.decode(view[start:stop], final=stop == len(raw))
        except UnicodeDecodeError as exc:
            at = _first_bad_byte(raw, start)
            line = raw.count(b"\n", 0, at) + 1
            column = at - (raw.rfind(b"\n", 0, at) + 1) + 1
            msg = f"'{path}' line {line}: byte 0x{raw[at]:02x} at column {column} is not UTF-8; save the file as UTF-8."
            raise DataError(msg) from exc


def _first_bad_byte(raw: bytes, start: int) -> int:
    """Offset of the first invalid UTF-8 byte at or after slice ``start`` (one is known to exist).

    The decoder may have held back up to 3 bytes of a character begun before
    ``start``; everything before is valid, so the first byte in
    ``[start - 3, start]`` that is not a continuation byte starts a character.
    """
    start = max(start - 3, 0)
    while start < len(raw) and raw[start] & 0xC0 == 0x80:
        start += 1
    stop = min(start + _DECODE_SLICE + 8, len(raw))
    try:
        raw[start:stop].decode("utf-8")
    except UnicodeDecodeError as exc:
        return start + exc.start
    return stop  # pragma: no cover  (the caller saw an error in this range)


# -- ids ----------------------------------------------------------------------------
def exact_ids(values: pd.Series) -> pd.Series:
    """Id cells read as text, as exact ids: integers only when that loses nothing.

    ``"7"`` is 7; ``"007"``, ``"+7"``, ``"7.0"``, an integer beyond int64 and a
    column with a missing cell stay text (see :mod:`dissensus.data`).
    """
    if not len(values):
        return values.astype(str)
    # Decided on the distinct ids (an id repeats once per annotation): a
    # million-row column is then converted without a Python object per cell.
    codes, distinct = pd.factorize(values, use_na_sentinel=True)
    if (codes < 0).any():
        return values
    text = pd.Series(distinct).astype(str)
    try:
        ints = text.astype(np.int64).to_numpy()
    except (ValueError, TypeError, OverflowError):  # not all integers, or beyond int64
        return values.astype(str)
    digits = np.searchsorted(_POWERS_OF_TEN, np.abs(ints), side="right") + (ints < 0)
    # canonical iff the text is exactly as long as the integer's own digits
    # (rules out "007", "+7", " 7", "-0")
    if not np.array_equal(text.str.len().to_numpy(dtype=np.int64), np.maximum(digits, 1)):
        return values.astype(str)
    return pd.Series(ints[codes], index=values.index, name=values.name)


# -- delimited text -----------------------------------------------------------------
def _record_lines(raw: bytes, sep: str, n_records: int) -> pd.Index:
    """Physical start line of each data record (header = line 1), by the ``csv`` module if needed.

    Quoted fields span lines and pandas skips blank lines: record ``k`` is not always at ``k + 2``.
    """
    n_lines = raw.count(b"\n") + (0 if raw.endswith(b"\n") or not raw else 1)
    if n_lines == n_records + 1:
        return pd.RangeIndex(2, n_records + 2, name="line")
    if len(sep) != 1:  # a regex separator: the csv module cannot replay it
        return pd.RangeIndex(1, n_records + 1, name="record")
    starts: list[int] = []
    reader = csv.reader(
        io.StringIO(raw.decode("utf-8", errors="replace"), newline=""), delimiter=sep
    )
    previous = 0
    for row in reader:
        blank = not row or (len(row) == 1 and not row[0].strip())  # pandas skips these
        if not blank:
            starts.append(previous + 1)
        previous = reader.line_num
    starts = starts[1:]  # the header
    if len(starts) != n_records:  # a dialect we cannot replay: number the records instead
        return pd.RangeIndex(1, n_records + 1, name="record")
    return pd.Index(starts, name="line")


def _header(raw: bytes, sep: str) -> list[str]:
    """Column names as written in the first record (pandas would rename repeats silently)."""
    if len(sep) == 1:
        # a lazy text stream: only the first record is decoded (a quoted
        # header may span lines), not the whole file
        stream = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", newline="")
        first = next(csv.reader(stream, delimiter=sep), [])
    else:  # a regex separator
        end = raw.find(b"\n")
        line = raw[: end if end >= 0 else len(raw)].decode("utf-8")
        first = re.split(sep, line.rstrip("\r"))
    return [name.lstrip("\ufeff") if i == 0 else name for i, name in enumerate(first)]


def _too_many_fields(path: PathLike, sep: str, line: str, got: str, want: str) -> str:
    return f"'{path}' line {line}: {got} fields but the header has {want}; a row with more fields than the header is ambiguous (a trailing '{sep}'?). Fix the row or the header."


def read_delimited(
    path: Path,
    sep: str,
    *,
    text: bool = False,
    ids: Sequence[str] = (),
    na_values: Sequence[str] = (),
    strip: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Read CSV/TSV with the file's line numbers as the index.

    Columns in ``ids`` become :func:`exact_ids`; pandas infers the others.
    ``strip`` names columns whose text cells lose surrounding whitespace
    (``None``: all but the ids). ``text=True`` keeps every cell as a string
    (``""`` when empty; repeated names renamed ``name.1`` as pandas does), for
    formats whose columns must not be guessed (ConvAbuse turns such as "NA").
    """
    kind = "TSV" if sep == "\t" else "CSV"
    raw = path.read_bytes()
    check_utf8(raw, path)
    header = _header(raw, sep)
    repeated = None if text else first_repeat(header)
    if repeated is not None:
        name, first, second = repeated
        msg = f"'{path}' line 1: column {name!r} appears twice (columns {first} and {second}); rename one so it is clear which one holds the data."
        raise DataError(msg)
    options: dict[str, Any] = {"sep": sep, "keep_default_na": False}
    if text:
        options.update(dtype=str)
    else:
        options.update(dtype={c: str for c in ids if c in header}, na_values=["", *na_values])
    try:
        df: pd.DataFrame = pd.read_csv(io.BytesIO(raw), **options)
    except pd.errors.EmptyDataError:
        msg = f"'{path}' is empty; expected a {kind} file with a header line."
        raise DataError(msg) from None
    except (pd.errors.ParserError, ValueError) as exc:
        detail = " ".join(str(exc).split())
        found = _FIELDS.search(detail)
        if found:
            want, line, got = found.groups()
            raise DataError(_too_many_fields(path, sep, line, got, want)) from None
        msg = f"Cannot read '{path}' as {kind}: {detail}"
        raise DataError(msg) from None
    if not isinstance(df.index, pd.RangeIndex):  # every row one field longer: pandas made an index
        raise DataError(_too_many_fields(path, sep, "2", str(len(header) + 1), str(len(header))))
    if not text:
        for column in df.columns:
            cells = df[column]
            if column in ids:
                df[column] = exact_ids(cells)
            elif (strip is None or column in strip) and not pd.api.types.is_numeric_dtype(cells):
                stripped = cells.str.strip()
                with contextlib.suppress(ValueError, TypeError):  # numbers if every cell is one
                    stripped = pd.to_numeric(stripped)
                df[column] = stripped
    return df.set_axis(_record_lines(raw, sep, len(df)), axis=0)


# -- Parquet and JSON -----------------------------------------------------------------
def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        df = pd.read_parquet(io.BytesIO(path.read_bytes()))
    except Exception as exc:  # pyarrow raises several unrelated types
        detail = " ".join(str(exc).split())
        msg = f"Cannot read '{path}' as Parquet: {detail}"
        raise DataError(msg) from None
    if not isinstance(df.index, pd.RangeIndex):  # a stored index (e.g. item ids) is data
        df = df.reset_index()
    return df.set_axis(pd.RangeIndex(1, len(df) + 1, name="row"), axis=0)


class _RepeatedKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` that refuses a key given twice (json keeps the last silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKeyError(key)
        out[key] = value
    return out


def parse_json(text: str, path: PathLike, line: int | None = None, what: str = "a record") -> Any:
    """``json.loads`` refusing repeated keys; errors name the file and line.

    ``line``: the file line of ``text`` (one JSONL record); ``None``: ``text``
    is the whole file. ``what`` names what the JSON should be.
    """
    at = "" if line is None else f" line {line}"
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        msg = f"'{path}' line {line or exc.lineno}: invalid JSON ({exc.msg} at column {exc.colno})."
    except _RepeatedKeyError as exc:
        if line is None:  # the line of the second occurrence, when the key is found twice
            spots = [m.start() for m in re.finditer(re.escape(json.dumps(exc.key)) + r"\s*:", text)]
            at = f" line {text.count(chr(10), 0, spots[1]) + 1}" if len(spots) == 2 else ""
        msg = f"'{path}'{at}: key {exc.key!r} appears twice in one JSON object; JSON readers keep only the last one, so data would be lost. Make the keys unique."
    except RecursionError:
        msg = f"'{path}'{at}: JSON nested too deeply to be {what}."
    raise DataError(msg)


def _read_jsonl(path: Path) -> pd.DataFrame:
    raw = path.read_bytes()
    check_utf8(raw, path)
    records: list[dict[str, Any]] = []
    lines: list[int] = []
    for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        record = parse_json(line, path, number)
        if not isinstance(record, dict):
            msg = f"'{path}' line {number}: expected a JSON object per line, got {type(record).__name__}."
            raise DataError(msg)
        records.append(record)
        lines.append(number)
    if not records:
        msg = f"'{path}' holds no JSON records."
        raise DataError(msg)
    return pd.DataFrame.from_records(records, index=pd.Index(lines, name="line"))


# -- tables -----------------------------------------------------------------------------
def read_frame(
    path: Path,
    fmt: str,
    sep: str | None = None,
    *,
    ids: Sequence[str] = (),
    na_values: Sequence[str] = (),
    strip: Sequence[str] | None = (),
) -> pd.DataFrame:
    """A table file as a DataFrame indexed by file position (options of :func:`read_delimited`)."""
    if fmt not in ("parquet", "jsonl"):
        sep = sep if sep is not None else ("\t" if fmt == "tsv" else ",")
        return read_delimited(path, sep, ids=ids, na_values=na_values, strip=strip)
    df = _read_parquet(path) if fmt == "parquet" else _read_jsonl(path)
    for column in df.columns if strip is None else strip:
        if column in df.columns and column not in ids:
            df[column] = df[column].map(lambda v: v.strip() if isinstance(v, str) else v)
    if na_values:
        df = df.mask(df.isin(list(na_values)))
    return df


def read_table(path: PathLike, *, format: TableFormat | None = None) -> pd.DataFrame:
    """A table file (CSV, TSV, Parquet or JSONL) as a DataFrame indexed by file line.

    The reader behind :func:`read_annotations`, for tables that are not
    annotations (e.g. a model's predicted labels): nothing is dropped, and
    errors name the file and line. ``format``: see :mod:`dissensus.data`. Raises
    FileNotFoundError, IsADirectoryError, or DataError (unknown extension, malformed row).
    """
    p, fmt = open_table(path, format, TABLE_FORMATS, "read_table")
    return read_frame(p, fmt)
