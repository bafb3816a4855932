"""The table-reading core: a file, read once, as a DataFrame indexed by its place in the file.

The index holds file positions (see ``source`` in :mod:`dissensus.data`) for
:func:`locations`. A column name or JSON key given twice, a row longer than
the header and bytes that are not UTF-8 are refused with their line.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import decimal
import io
import json
import math
import os
import re
import reprlib
import stat
import zipfile
from collections.abc import Callable, Sequence
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
#: Given a table's column names, before its cells are parsed: its id columns and the columns
#: to strip (see :func:`read_frame`), for a caller that chooses its columns from the header.
ColumnsOf = Callable[[list[Any]], tuple[Sequence[str], Sequence[str] | None]]
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
#: From 2**53 on, float64 does not hold every integer: ids stored as floats there are not exact.
_EXACT_FLOAT = 2.0**53
_UNCLOSED = re.compile(r"EOF inside string starting at row (\d+)")
#: Most bytes read from a pipe: a stream that never ends is refused within seconds, not read
#: until memory runs out. A pipe is held in memory whole (and parsed into a second copy), so
#: data larger than this belongs in a file (read in place) or on the Dask engine.
MAX_PIPE_BYTES = 1 << 30
#: Bytes read from a pipe at a time (the limit is never preallocated).
_PIPE_CHUNK = 1 << 20
_BOM = b"\xef\xbb\xbf"
_EXPORT = "export the sheet as CSV (UTF-8)"
#: (magic bytes, what the file is, how to read it), checked against the first bytes of a text file.
_MAGIC: tuple[tuple[bytes, str, str], ...] = (
    (b"PAR1", "a Parquet file", "read it as Parquet (format='parquet', or name it .parquet)"),
    (b"\x1f\x8b", "gzip-compressed", "decompress it first (gunzip)"),
    (b"BZh", "bzip2-compressed", "decompress it first (bunzip2)"),
    (b"\xfd7zXZ\x00", "xz-compressed", "decompress it first (unxz)"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed", "decompress it first (unzstd)"),
    (b"PK\x03\x04", "a zip archive", "extract the file from it first (unzip)"),
    (b"PK\x05\x06", "an empty zip archive", "extract the file from it first (unzip)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Excel (.xls) or other OLE document", _EXPORT),
    (b"SQLite format 3\x00", "an SQLite database", "export the table as CSV"),
    (b"\x89PNG", "a PNG image", "give the data file instead"),
    (b"%PDF", "a PDF document", "give the data file instead"),
)


# -- messages -------------------------------------------------------------------
def py(value: Any) -> Any:
    """Plain Python value for a message (``1``, not ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxlist, _SHOWN.maxdict, _SHOWN.maxstring = 3, 4, 4, 40


def shown(value: Any) -> str:
    """A short ``repr`` of a cell for a message, bounded in length and depth (a deep list too)."""
    return _SHOWN.repr(value.tolist() if isinstance(value, np.ndarray) else value)


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
    """``path`` as a Path, refused unless it is a regular file or a pipe.

    A device (``/dev/zero``, ``/dev/urandom``), a socket or a directory is
    refused by its kind: reading one would not end, or would not be data.
    """
    p = Path(path)
    if not p.exists():
        msg = f"No such file: '{path}'."
        raise FileNotFoundError(msg)
    if p.is_dir():
        msg = f"'{path}' is a directory; give a file."
        raise IsADirectoryError(msg)
    mode = p.stat().st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        kind = (
            "a character device"
            if stat.S_ISCHR(mode)
            else "a block device"
            if stat.S_ISBLK(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "not a regular file"
        )
        msg = f"'{path}' is {kind}, not a data file; give a regular file (or a pipe)."
        raise DataError(msg)
    return p


def read_input(path: Path, expected: str) -> bytes:
    """The bytes of ``path`` (see :func:`existing_file`), refused when empty.

    A pipe is read in chunks of :data:`_PIPE_CHUNK` bytes up to
    :data:`MAX_PIPE_BYTES` and refused beyond, so an endless stream ends in a
    clear error instead of exhausting memory (one ``read(MAX_PIPE_BYTES + 1)``
    would preallocate the whole limit). Running out of memory while reading
    any input is a :class:`DataError` pointing to the out-of-core engine.
    ``expected`` names the format for the message (``"a CSV file with a header line"``).
    """
    p = existing_file(path)
    try:
        raw = _read_pipe(p, path) if stat.S_ISFIFO(p.stat().st_mode) else p.read_bytes()
    except MemoryError:
        size = "" if stat.S_ISFIFO(p.stat().st_mode) else f" ({p.stat().st_size:,} bytes)"
        msg = (
            f"The input is too large to read into memory: '{path}'{size}; "
            "use --engine dask for larger-than-memory data."
        )
        raise DataError(msg) from None
    if not raw.strip():
        msg = f"'{path}' is empty{'' if not raw else ' (only whitespace)'}; expected {expected}."
        raise DataError(msg)
    return raw


def _read_pipe(p: Path, path: Path) -> bytes:
    """All bytes of the pipe ``p``, refused once more than :data:`MAX_PIPE_BYTES` arrived."""
    chunks: list[bytes] = []
    total = 0
    with p.open("rb") as fh:
        while chunk := fh.read(_PIPE_CHUNK):
            total += len(chunk)
            if total > MAX_PIPE_BYTES:
                msg = (
                    f"'{path}' is a pipe that sent more than {MAX_PIPE_BYTES:,} bytes; "
                    "save the data to a file and read the file."
                )
                raise DataError(msg)
            chunks.append(chunk)
    return b"".join(chunks)


def refuse_binary(raw: bytes, path: PathLike, kind: str) -> None:
    """Refuse a compressed, archived or binary file given as text ``kind``, saying what it is.

    Checked on the magic bytes at the start of the file, before any decoding,
    so that a gzip file named ``.csv`` is not reported as "not UTF-8".
    """
    for magic, what, how in _MAGIC:
        if raw.startswith(magic):
            xlsx = magic == b"PK\x03\x04" and _is_xlsx(raw)
            is_, fix = ("an Excel workbook (.xlsx)", _EXPORT) if xlsx else (what, how)
            msg = f"'{path}' is {is_}, not {kind}; {fix}."
            raise DataError(msg)


def _is_xlsx(raw: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            return any(name.startswith("xl/") for name in archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False


def text_input(path: Path, kind: str, expected: str) -> bytes:
    """:func:`read_input` for a text format: no known binary format, UTF-8, a leading BOM dropped."""
    raw = read_input(path, expected)
    refuse_binary(raw, path, kind)
    check_utf8(raw, path)
    return raw.removeprefix(_BOM)


def open_table(
    path: PathLike, format: str | None, formats: Sequence[str], caller: str
) -> tuple[Path, str]:
    """The existing file and its format: ``format``, or one of ``formats`` by extension."""
    p = existing_file(path)
    if format is None:
        inferred = _EXTENSIONS.get(p.suffix.lower())
        if inferred is None or inferred not in formats:
            msg = f"Cannot tell the format of '{path}' from its extension {p.suffix or '(none)'!r}; pass format='...', one of {', '.join(map(repr, formats))}."
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
    columns_of: ColumnsOf | None = None,
) -> pd.DataFrame:
    """Read CSV/TSV with the file's line numbers as the index.

    Columns in ``ids`` become :func:`exact_ids`; pandas infers the others.
    ``strip`` names columns whose text cells lose surrounding whitespace
    (``None``: all but the ids); ``columns_of`` gives both from the header
    instead (see :func:`read_frame`). ``text=True`` keeps every cell as a string
    (``""`` when empty; repeated names renamed ``name.1`` as pandas does), for
    formats whose columns must not be guessed (ConvAbuse turns such as "NA").
    """
    kind = "TSV" if sep == "\t" else "CSV"
    raw = text_input(path, kind, f"a {kind} file with a header line")
    header = _header(raw, sep)
    repeated = None if text else first_repeat(header)
    if repeated is not None:
        name, first, second = repeated
        msg = f"'{path}' line 1: column {name!r} appears twice (columns {first} and {second}); rename one so it is clear which one holds the data."
        raise DataError(msg)
    if columns_of is not None:
        ids, strip = columns_of(header)
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
        unclosed = _UNCLOSED.search(detail)
        if unclosed:
            msg = f"'{path}': a quoted field opened on line {int(unclosed[1]) + 1} is never closed, so the rest of the file would be one cell; close the quote, or double a quote that is part of the text (\"\")."
            raise DataError(msg) from None
        msg = f"Cannot read '{path}' as {kind}: {detail}"
        raise DataError(msg) from None
    if not isinstance(df.index, pd.RangeIndex):  # every row one field longer: pandas made an index
        raise DataError(_too_many_fields(path, sep, "2", str(len(header) + 1), str(len(header))))
    if df.empty:
        _refuse_no_rows(path, list(df.columns))
    if not text:
        # replaced all at once: one assignment per column fragments a wide
        # frame, and pandas then warns about its own internals
        changed: dict[str, pd.Series] = {}
        for column in df.columns:
            cells = df[column]
            if column in ids:
                changed[column] = exact_ids(cells)
            elif (strip is None or column in strip) and not pd.api.types.is_numeric_dtype(cells):
                stripped = cells.str.strip()
                with contextlib.suppress(ValueError, TypeError):  # numbers if every cell is one
                    stripped = pd.to_numeric(stripped)
                changed[column] = stripped
        if changed:
            df = pd.concat([df.drop(columns=list(changed)), pd.DataFrame(changed)], axis=1)[
                df.columns
            ]
    return df.set_axis(_record_lines(raw, sep, len(df)), axis=0)


def _refuse_no_rows(path: PathLike, columns: Sequence[Any]) -> None:
    msg = f"'{path}' has a header but no rows: there is nothing to read (columns: {', '.join(map(shown, columns[:10]))}{' …' if len(columns) > 10 else ''}). Add the data rows below the header."
    raise DataError(msg)


# -- Parquet and JSON -----------------------------------------------------------------
def _read_parquet(path: Path) -> pd.DataFrame:
    import pyarrow as pa  # type: ignore[import-untyped]  # noqa: PLC0415 - only Parquet needs it
    import pyarrow.parquet as pq  # type: ignore[import-untyped]  # noqa: PLC0415

    raw = read_input(path, "a Parquet file")
    if not raw.startswith(b"PAR1"):
        msg = f"'{path}' is not a Parquet file (it does not start with the bytes PAR1)"
        try:
            refuse_binary(raw, path, "a Parquet file")
        except DataError as exc:
            msg = str(exc).removesuffix(".")
        text = raw[:4096].removeprefix(_BOM).lstrip()
        if text.startswith(b"{"):
            msg += "; it looks like JSON Lines: pass format='jsonl' or name it .jsonl"
        elif b"," in text.split(b"\n", 1)[0]:
            msg += "; it looks like CSV: pass format='csv' or name it .csv"
        raise DataError(msg + ".")
    try:
        # integer_object_nulls: an integer column with a null keeps exact
        # Python ints instead of becoming float64 (2**53 + 1 would be 2**53)
        df: pd.DataFrame = pq.read_table(pa.BufferReader(raw)).to_pandas(integer_object_nulls=True)
    except Exception as exc:  # pyarrow raises several unrelated types
        detail = " ".join(str(exc).split())
        msg = f"Cannot read '{path}' as Parquet: {detail}"
        raise DataError(msg) from None
    if not isinstance(df.index, pd.RangeIndex):  # a stored index (e.g. item ids) is data
        df = df.reset_index()
    if df.empty:
        _refuse_no_rows(path, list(df.columns))
    return df.set_axis(pd.RangeIndex(1, len(df) + 1, name="row"), axis=0)


def exact_id_column(values: pd.Series) -> pd.Series:
    """An id column from JSON or Parquet with no id turned into a float.

    Whole numbers are int64 when every id is one and none is missing, else the
    ids stay Python objects (exact at any size; a missing one stays missing for
    the caller to refuse). pandas' own inference would make ``[2**53 + 1, None]``
    float64 and merge ``2**53 + 1`` with ``2**53``.
    """
    if pd.api.types.is_extension_array_dtype(values.dtype) and pd.api.types.is_integer_dtype(
        values.dtype
    ):  # nullable Int64 and its kin: Python ints, None where missing
        values = values.astype(object).where(values.notna(), None)
    if values.dtype != object:
        return values
    cells = values.to_numpy()
    if any(isinstance(v, decimal.Decimal) for v in cells):  # 1.10 == 1.1: keep the text
        return values.map(lambda v: str(v) if isinstance(v, decimal.Decimal) else v)
    whole = np.fromiter(
        (isinstance(v, int) and not isinstance(v, bool) for v in cells), bool, len(cells)
    )
    if whole.all():
        with contextlib.suppress(OverflowError):  # beyond int64: exact Python ints
            return pd.Series(cells.astype(np.int64), index=values.index, name=values.name)
    return values


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


class _NotANumberError(ValueError):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _json_constant(text: str) -> float:
    """``NaN`` is read as missing (as pandas writes it); ``Infinity`` is refused."""
    if text == "NaN":
        return math.nan
    raise _NotANumberError(text)


def _json_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # 1e400: beyond float64
        raise _NotANumberError(text if len(text) <= 40 else text[:37] + "...")
    return value


def parse_json(text: str, path: PathLike, line: int | None = None, what: str = "a record") -> Any:
    """``json.loads`` refusing repeated keys; errors name the file and line.

    ``line``: the file line of ``text`` (one JSONL record); ``None``: ``text``
    is the whole file. ``what`` names what the JSON should be.
    """
    at = "" if line is None else f" line {line}"
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_json_constant,
            parse_float=_json_float,
        )
    except _NotANumberError as exc:
        msg = f"'{path}'{at}: {exc.text} is not a finite number (JSON has no infinity); write the value as text, or leave the cell null if it is missing."
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


def _read_jsonl(
    path: Path, ids: Sequence[str] = (), columns_of: ColumnsOf | None = None
) -> tuple[pd.DataFrame, Sequence[str], Sequence[str] | None]:
    """JSON Lines as a DataFrame indexed by line; ``ids`` columns keep their values exactly.

    Returns the frame, its id columns and the columns to strip: with
    ``columns_of``, those it gives for the records' keys (else ``ids`` and None).
    """
    raw = text_input(path, "JSON Lines", "one JSON object per line")
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
    index = pd.Index(lines, name="line")
    df = pd.DataFrame.from_records(records, index=index)
    strip = None
    if columns_of is not None:
        ids, strip = columns_of(list(df.columns))
    for column in ids:
        if column in df.columns:  # built from the records, not from pandas' float64 guess
            cells = np.fromiter((r.get(column) for r in records), object, len(records))
            df[column] = exact_id_column(pd.Series(cells, index=index, name=column))
    return df, ids, strip


# -- tables -----------------------------------------------------------------------------
def nested_cells(values: pd.Series, *, dicts_only: bool = False) -> npt.NDArray[np.intp]:
    """Positions of cells holding a list, a dict or an array (JSON lists, Parquet list columns)."""
    if values.dtype != object:
        return np.empty(0, dtype=np.intp)
    cells = values.to_numpy()
    kinds = dict if dicts_only else list | dict | tuple | np.ndarray
    nested = np.fromiter((isinstance(v, kinds) for v in cells), bool, len(cells))
    return np.flatnonzero(nested)


def refuse_nested(
    df: pd.DataFrame, columns: Sequence[str], path: PathLike, role: str, *, sets: bool = False
) -> None:
    """Refuse list/dict cells in ``columns``, where one value is expected, naming the line.

    ``role`` ends the message: what the cell should be, and the fix. ``sets``:
    a list is a set of labels, only a dict (a JSON object) is refused.
    """
    for column in columns:
        if column not in df.columns:
            continue
        bad = nested_cells(df[column], dicts_only=sets)
        if bad.size:
            value = df[column].iloc[bad[0]]
            kind = "list" if isinstance(value, np.ndarray) else type(value).__name__
            msg = f"'{path}': column {column!r} holds a {kind} {shown(value)} at {locations(df.index, bad, str(path))}; {role}."
            raise DataError(msg)


def refuse_all_empty(df: pd.DataFrame, columns: Sequence[str], path: PathLike, what: str) -> None:
    """Refuse a table whose ``columns`` exist and hold no value at all (nothing to count)."""
    present = [c for c in columns if c in df.columns]
    if present and len(df) and df[present].isna().all(axis=None):
        where = (
            f"column {present[0]!r}"
            if len(present) == 1
            else f"columns {', '.join(map(repr, present[:5]))}{' …' if len(present) > 5 else ''}"
        )
        msg = f"'{path}': all {len(df) * len(present)} {what} in {where} are empty, so there are no annotations. Fill them in, or name the column that holds them."
        raise DataError(msg)


def refuse_merging_ids(df: pd.DataFrame, ids: Sequence[str], path: PathLike) -> None:
    """Refuse typed ids (JSON, Parquet) that differ but compare equal: ``true``/``1``, ``1.0``/``1``.

    CSV ids are text, so ``"1.0"`` and ``"1"`` stay two ids; a JSON reader
    would otherwise merge them without a word. Floating-point ids of 2**53 or
    more are refused too: the file cannot tell 2**53 + 1 from 2**53 any more.
    """
    for column in ids:
        if column in df.columns and df[column].dtype.kind == "f":
            big = np.flatnonzero(np.abs(df[column].to_numpy()) >= _EXACT_FLOAT)
            if big.size:
                msg = f"'{path}': column {column!r} stores ids as floating-point numbers, and the ids at {locations(df.index, big, str(path))} (e.g. {py(df[column].iloc[big[0]])!r}) are 2**53 or more, where neighbouring ids are one number (2**53 + 1 == 2**53); the ids may already be merged. Write the ids as integers or as text."
                raise DataError(msg)
        if column not in df.columns or df[column].dtype != object:
            continue
        cells = [v for v in df[column].to_numpy() if v is not None and v == v]  # noqa: PLR0124 - NaN
        typed = {(type(v), v) for v in cells}
        if len(typed) == len(set(cells)):
            continue
        first: dict[Any, Any] = {}
        for value in cells:  # in file order, so that the message names the first clash
            other = first.setdefault(value, value)
            if type(other) is not type(value):
                msg = f"'{path}': column {column!r} holds the ids {shown(other)} and {shown(value)}, different JSON values that would count as one item (true == 1, 1.0 == 1); write the ids as strings, or as integers only."
                raise DataError(msg)


def read_frame(
    path: Path,
    fmt: str,
    sep: str | None = None,
    *,
    ids: Sequence[str] = (),
    na_values: Sequence[str] = (),
    strip: Sequence[str] | None = (),
    columns_of: ColumnsOf | None = None,
) -> pd.DataFrame:
    """A table file as a DataFrame indexed by file position (options of :func:`read_delimited`).

    ``columns_of``: called once with the column names before the cells are
    parsed (ids read as text must be known then); it returns ``(ids, strip)``,
    which replace the given ones.
    """
    if fmt not in ("parquet", "jsonl"):
        sep = sep if sep is not None else ("\t" if fmt == "tsv" else ",")
        return read_delimited(
            path, sep, ids=ids, na_values=na_values, strip=strip, columns_of=columns_of
        )
    if fmt == "parquet":
        df = _read_parquet(path)
        if columns_of is not None:
            ids, strip = columns_of(list(df.columns))
        for column in ids:
            if column in df.columns:
                df[column] = exact_id_column(df[column])
    else:
        df, ids, chosen = _read_jsonl(path, ids, columns_of)
        strip = strip if columns_of is None else chosen
    refuse_nested(df, ids, path, "an id must be one value (a string or a number) per row")
    refuse_merging_ids(df, ids, path)
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
