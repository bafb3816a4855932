"""Readers: annotation files (CSV, TSV, Parquet, JSONL, LeWiDi JSON, ConvAbuse CSV).

Every reader returns :class:`~dissensus.data.Annotations` (set-valued labels:
:class:`~dissensus.data.SetAnnotations`, from :func:`read_set_annotations` or a
multi-label LeWiDi file) and names the file and the line (or record) in its
errors. Frames read from a file carry the
file position in their index (``"line"``: physical line, header = line 1;
``"row"``: 1-based Parquet row; ``"record"``: the item id of a JSON record),
so :meth:`Annotations.from_frame` can point at the offending input.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataDroppedWarning, DataError, DissensusWarning
from dissensus._validation import check_option, examples
from dissensus.data._annotations import Annotations, Duplicates
from dissensus.data._scale import Label, Scale, text_label
from dissensus.data._sets import SetAnnotations
from dissensus.data._wide import first_repeat

__all__ = [
    "CONVABUSE_SCALE",
    "Format",
    "exact_ids",
    "read_annotations",
    "read_convabuse",
    "read_lewidi",
    "read_set_annotations",
]

Format = Literal["csv", "tsv", "parquet", "jsonl", "lewidi", "convabuse"]
Layout = Literal["long", "wide"]
PathLike = str | os.PathLike[str]

_FORMATS: tuple[str, ...] = ("csv", "tsv", "parquet", "jsonl", "lewidi", "convabuse")
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

#: ConvAbuse severity, most abusive first: −3 (very strongly) … 0 (ambiguous) … 1 (not abusive).
CONVABUSE_SCALE = Scale.ordinal([-3, -2, -1, 0, 1])
#: The one-hot columns' suffixes, in file order.
_CONVABUSE_LEVELS = (1, 0, -1, -2, -3)
#: What identifies a conversation turn (an item) in the full ConvAbuse file.
_CONVABUSE_TURN = ("conv_id", "prev_agent", "prev_user", "agent", "user")
_SPLIT_COLUMN = re.compile(r"^Annotator(\d+)_is_abuse\.1$")

#: Smallest tolerance when comparing a LeWiDi file's ``soft_label`` with the recomputed one.
_SOFT_LABEL_ATOL = 1e-6


# -- files --------------------------------------------------------------------
def _existing_file(path: PathLike) -> Path:
    p = Path(path)
    if not p.exists():
        msg = f"No such file: '{path}'."
        raise FileNotFoundError(msg)
    if p.is_dir():
        msg = f"'{path}' is a directory; give an annotation file."
        raise IsADirectoryError(msg)
    return p


def _infer_format(path: Path) -> str:
    fmt = _EXTENSIONS.get(path.suffix.lower())
    if fmt is None:
        msg = (
            f"Cannot tell the format of '{path}' from its extension {path.suffix or '(none)'!r}; "
            f"pass format= one of {', '.join(map(repr, _FORMATS))}."
        )
        raise DataError(msg)
    return fmt


def _read_bytes(path: Path) -> bytes:
    """The whole file, read once: a FIFO or another pipe cannot be read twice."""
    with path.open("rb") as fh:
        return fh.read()


def _check_utf8(raw: bytes, path: PathLike) -> None:
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
            msg = (
                f"'{path}' line {line}: byte 0x{raw[at]:02x} at column {column} is not UTF-8; "
                "save the file as UTF-8."
            )
            raise DataError(msg) from exc


#: Bytes decoded at a time when checking a file's encoding.
_DECODE_SLICE = 1 << 24


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


def _record_lines(raw: bytes, sep: str, n_records: int) -> pd.Index:
    """Physical start line of each data record (header = line 1).

    A quoted field may span lines and pandas skips blank lines, so the line
    of record ``k`` is not always ``k + 2``: when the line count says so, the
    ``csv`` module finds the start lines.
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


#: An integer written the one way ``str(int)`` writes it: no sign "+", no leading zero.
_CANONICAL_INT = r"-?(?:0|[1-9][0-9]*)"


def exact_ids(values: pd.Series) -> pd.Series:
    """Id cells read as text, as exact ids: integers only when that loses nothing.

    ``"7"`` becomes the integer 7; ``"007"``, ``"+7"``, ``"7.0"`` and an
    integer beyond int64 stay strings (so ``"007"`` and ``"7"`` are two ids,
    and a 19-digit id is never rounded through a float). A column with a
    missing cell stays text too.
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
    magnitude = np.abs(ints)
    digits = np.searchsorted(_POWERS_OF_TEN, magnitude, side="right") + (ints < 0)
    digits = np.maximum(digits, 1)
    # canonical iff the text is exactly as long as the integer's own digits
    # (rules out "007", "+7", " 7", "-0")
    if not np.array_equal(text.str.len().to_numpy(dtype=np.int64), digits):
        return values.astype(str)
    return pd.Series(ints[codes], index=values.index, name=values.name)


#: 10**0 ... 10**18: the number of them <= |n| is the number of digits of n.
_POWERS_OF_TEN = 10 ** np.arange(19, dtype=np.int64)


def _infer_column(values: pd.Series) -> pd.Series:
    """A column read as text: numbers when every cell is a number (as pandas infers), else text."""
    try:
        return pd.to_numeric(values)
    except (ValueError, TypeError):
        return values


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
    return (
        f"'{path}' line {line}: {got} fields but the header has {want}; a row with more "
        f"fields than the header is ambiguous (a trailing '{sep}'?). Fix the row or the header."
    )


_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _read_delimited(
    path: Path,
    sep: str,
    *,
    text: bool = False,
    ids: Sequence[str] = (),
    na_values: Sequence[str] = (),
    strip: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Read CSV/TSV with the file's line numbers as the index.

    Only an empty cell (and the strings in ``na_values``) is missing, so an
    item or label literally named ``NA``, ``None``, ``null`` or ``n/a`` is
    data. Columns in ``ids`` are read as text and become :func:`exact_ids`;
    pandas infers the others (numbers when every cell is one). ``strip``
    names columns whose text cells lose surrounding whitespace (``[]``:
    none; ``None``: every column but the ids).

    ``text=True`` keeps every cell as a string (empty cells as ``""``), for
    formats whose columns must not be guessed (ConvAbuse's free text has
    turns such as "null" and "NA"); repeated column names are then renamed
    ``name.1``, ... as pandas does, since such a format's reader picks its
    columns by name.

    Ambiguous structure is refused with its line: repeated column names,
    and rows with more fields than the header (a trailing separator on every
    row would otherwise shift every column by one).
    """
    kind = "TSV" if sep == "\t" else "CSV"
    raw = _read_bytes(path)
    _check_utf8(raw, path)
    header = _header(raw, sep)
    repeated = None if text else first_repeat(header)
    if repeated is not None:
        name, first, second = repeated
        msg = (
            f"'{path}' line 1: column {name!r} appears twice (columns {first} and "
            f"{second}); rename one so it is clear which one holds the data."
        )
        raise DataError(msg)
    # ConvAbuse's split files repeat columns the reader never uses
    # (Annotator6_transphobic): in text mode pandas names them "name.1".
    options: dict[str, Any] = {"sep": sep}
    if text:
        options.update(dtype=str, keep_default_na=False)
    else:
        options.update(
            dtype={c: str for c in ids if c in header},
            keep_default_na=False,
            na_values=["", *na_values],
        )
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
                df[column] = _infer_column(cells.str.strip())
    return df.set_axis(_record_lines(raw, sep, len(df)), axis=0)


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        df = pd.read_parquet(io.BytesIO(_read_bytes(path)))
    except Exception as exc:  # pyarrow raises several unrelated types
        detail = " ".join(str(exc).split())
        msg = f"Cannot read '{path}' as Parquet: {detail}"
        raise DataError(msg) from None
    if not isinstance(df.index, pd.RangeIndex):  # a stored index (e.g. item ids) is data
        df = df.reset_index()
    return df.set_axis(pd.RangeIndex(1, len(df) + 1, name="row"), axis=0)


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` that refuses a key given twice (json keeps the last silently)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKeyError(key)
        out[key] = value
    return out


class _RepeatedKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _read_jsonl(path: Path) -> pd.DataFrame:
    raw = _read_bytes(path)
    _check_utf8(raw, path)
    records: list[dict[str, Any]] = []
    lines: list[int] = []
    for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line, object_pairs_hook=_no_repeated_keys)
        except json.JSONDecodeError as exc:
            msg = f"'{path}' line {number}: invalid JSON ({exc.msg} at column {exc.colno})."
            raise DataError(msg) from None
        except _RepeatedKeyError as exc:
            msg = f"'{path}' line {number}: key {exc.key!r} appears twice in one object."
            raise DataError(msg) from None
        except RecursionError:
            msg = f"'{path}' line {number}: JSON nested too deeply to be a record."
            raise DataError(msg) from None
        if not isinstance(record, dict):
            msg = (
                f"'{path}' line {number}: expected a JSON object per line, got "
                f"{type(record).__name__}."
            )
            raise DataError(msg)
        records.append(record)
        lines.append(number)
    if not records:
        msg = f"'{path}' holds no JSON records."
        raise DataError(msg)
    return pd.DataFrame.from_records(records, index=pd.Index(lines, name="line"))


def read_table(path: PathLike, *, format: str | None = None) -> pd.DataFrame:
    """A table file (CSV, TSV, Parquet or JSONL) as a DataFrame indexed by file line.

    The reader behind :func:`read_annotations`, for tables that are not
    annotations (e.g. a model's predicted labels): ids and labels are read as
    text, nothing is dropped, and errors name the file and line.

    Parameters
    ----------
    path : str or Path
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Default: from the extension.

    Raises
    ------
    FileNotFoundError, IsADirectoryError, DataError
        A missing file, a directory, an unknown extension or a malformed row.
    """
    p = _existing_file(path)
    return _read_table(p, format or _infer_format(p), None)


def _read_table(
    path: Path,
    fmt: str,
    sep: str | None,
    *,
    ids: Sequence[str] = (),
    na_values: Sequence[str] = (),
    strip: Sequence[str] | None = (),
) -> pd.DataFrame:
    """A table file as a DataFrame indexed by file position (see :func:`_read_delimited`)."""
    if fmt == "parquet":
        df = _read_parquet(path)
    elif fmt == "jsonl":
        df = _read_jsonl(path)
    else:
        return _read_delimited(
            path,
            sep if sep is not None else ("\t" if fmt == "tsv" else ","),
            ids=ids,
            na_values=na_values,
            strip=strip,
        )
    for column in df.columns if strip is None else strip:
        if column in df.columns and column not in ids:
            df[column] = df[column].map(lambda v: v.strip() if isinstance(v, str) else v)
    if na_values:
        df = df.mask(df.isin(list(na_values)))
    return df


def read_set_annotations(
    path: PathLike,
    format: Format | None = None,
    *,
    item: str = "item",
    annotator: str | None = "annotator",
    label: str = "label",
    label_sep: str | None = None,
    scale: Scale | Sequence[Any] | None = None,
    meta: Sequence[str] = (),
    dropna: bool = False,
    duplicates: Duplicates = "error",
    sep: str | None = None,
    na_values: Sequence[str] = (),
) -> SetAnnotations:
    r"""Read set-valued annotations (several labels per annotation) from a long file.

    Parameters
    ----------
    path : str or path-like
        The file.
    format : {"csv", "tsv", "parquet", "jsonl", "lewidi"}, optional
        Default: from the extension, as :func:`read_annotations`. A LeWiDi
        file goes to :func:`read_lewidi` with ``multilabel=True``.
    item, annotator, label : str
        Columns; ``annotator=None`` when there are no annotator ids.
    label_sep : str, optional
        Separator of the labels within a cell, e.g. ``"|"`` for
        ``entailment|neutral``. Default: cells are JSON lists
        (``["entailment", "neutral"]``, ``[]`` for the empty set; in a CSV
        the cell is quoted and its quotes doubled), or real lists in JSONL
        and Parquet. An empty cell is a missing annotation, so with
        ``label_sep`` the empty set cannot be written: use JSON lists.
    scale, meta, dropna, duplicates
        As in :meth:`SetAnnotations.from_frame`.
    sep, na_values
        As in :func:`read_annotations` (``sep`` separates columns, not labels).

    Returns
    -------
    SetAnnotations

    Raises
    ------
    DataError
        As :meth:`SetAnnotations.from_frame`, naming the file and line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "sets.csv"
    >>> _ = f.write_text("item,annotator,label\n1,a,E|N\n1,b,N\n")
    >>> read_set_annotations(f, label_sep="|").marginals()
    array([[0.5, 1. ]])
    """
    p = _existing_file(path)
    fmt = _infer_format(p) if format is None else format
    check_option(
        "read_set_annotations", "format", fmt, ("csv", "tsv", "parquet", "jsonl", "lewidi")
    )
    if fmt == "lewidi":
        return read_lewidi(
            p,
            scale=scale,
            meta=tuple(meta) if meta else None,
            dropna=dropna,
            duplicates=duplicates,
            multilabel=True,
        )
    ids = [c for c in (item, annotator) if c is not None]
    df = _read_table(p, fmt, sep, ids=ids, na_values=na_values)
    return SetAnnotations.from_frame(
        df,
        item=item,
        annotator=annotator,
        label=label,
        scale=scale,
        label_sep=label_sep,
        meta=meta,
        dropna=dropna,
        duplicates=duplicates,
        source=str(path),
    )


# -- generic tables -----------------------------------------------------------
def read_annotations(
    path: PathLike,
    format: Format | None = None,
    *,
    layout: Layout = "long",
    item: str = "item",
    annotator: str | None = "annotator",
    label: str = "label",
    annotators: Sequence[str] | None = None,
    scale: Scale | Sequence[Any] | None = None,
    ordered: bool | None = None,
    meta: Sequence[str] = (),
    dropna: bool = False,
    duplicates: Duplicates | None = None,
    sep: str | None = None,
    na_values: Sequence[str] = (),
    strip_labels: bool = False,
) -> Annotations:
    r"""Read annotations from a file.

    Parameters
    ----------
    path : str or path-like
        The file.
    format : {"csv", "tsv", "parquet", "jsonl", "lewidi", "convabuse"}, optional
        Default: from the extension (``.csv``, ``.tsv``/``.tab``,
        ``.parquet``/``.pq``, ``.jsonl``/``.ndjson``, ``.json`` = LeWiDi).
        ``"lewidi"`` and ``"convabuse"`` call :func:`read_lewidi` and
        :func:`read_convabuse`, whose columns are fixed.
    layout : {"long", "wide"}
        ``"long"``: one row per annotation (item, annotator, label).
        ``"wide"``: one row per item, one column per annotator (an empty
        cell = not labelled); see :meth:`Annotations.from_wide`.
    item, annotator, label : str
        Column names (long layout); ``annotator=None`` when the file has no
        annotator ids. ``item`` is also the item column of the wide layout.
    annotators : sequence of str, optional
        Wide layout: the annotator columns (default: all but ``item`` and
        ``meta``).
    scale : Scale or sequence of labels, optional
        The label set, in order (default: inferred, see :meth:`Scale.infer`).
    ordered : bool, optional
        Whether the labels are ordered.
    meta : sequence of str
        Item-level columns to keep (constant within an item).
    dropna : bool
        Long layout: drop rows with a missing item, annotator or label, with
        a :class:`DataDroppedWarning`, instead of raising.
    duplicates : {"error", "first", "last", "keep"}, optional
        Repeated (item, annotator) pairs: raise, keep the first / last, or
        keep all. Default: ``"error"``, except ``"first"`` for ConvAbuse (see
        :func:`read_convabuse`).
    sep : str, optional
        Field separator of a delimited file (default ``","`` for CSV,
        tab for TSV).
    na_values : sequence of str
        Cell texts that mean "missing" besides an empty cell. By default an
        item, annotator or label literally named ``NA``, ``None``, ``null``
        or ``n/a`` is data, not a missing value; pass e.g.
        ``na_values=["NA"]`` when the file uses it for missing.
    strip_labels : bool
        Remove whitespace around labels (``' pos'`` and ``'pos '`` become
        ``'pos'``). Without it, labels that differ only by whitespace or
        letter case raise a :class:`~dissensus.LabelSpellingWarning`.

    Returns
    -------
    Annotations

    Notes
    -----
    Ids are read exactly: an id column is a column of integers only when
    every id is written as one (``7``, not ``007`` or ``7.0``) and fits in
    int64; otherwise the ids are strings, so ``007`` and ``7`` are two items
    and a 19-digit id is never rounded. Labels are numbers when every label
    is a number, else strings.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    DataError
        If the file cannot be parsed, or for any bad input listed in
        :meth:`Annotations.from_frame`; messages name the file and line
        (Parquet: row; LeWiDi: record).
    ValueError
        For an unknown ``format`` or ``layout``, or column options given for
        a format whose columns are fixed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.csv").write_text("item,annotator,label\n1,ann1,2\n1,ann2,3\n2,ann1,3\n")
    >>> ann = read_annotations(d / "a.csv")
    >>> ann.n_items, ann.n_annotators, ann.scale
    (2, 2, Scale.ordinal([2, 3]))
    """
    p = _existing_file(path)
    fmt = _infer_format(p) if format is None else format
    check_option("read_annotations", "format", fmt, _FORMATS)
    check_option("read_annotations", "layout", layout, ("long", "wide"))
    if fmt in ("lewidi", "convabuse"):
        given = {
            "layout": (layout, "long"),
            "item": (item, "item"),
            "annotator": (annotator, "annotator"),
            "label": (label, "label"),
            "annotators": (annotators, None),
            "sep": (sep, None),
            "na_values": (tuple(na_values), ()),
            "strip_labels": (strip_labels, False),
        }
        fixed = [name for name, (value, default) in given.items() if value != default]
        if fixed:
            msg = (
                f"The {fmt} format has fixed columns; the option(s) {', '.join(fixed)} of "
                f"read_annotations do not apply to it. Drop them, or read the file with "
                f"format='csv' / 'jsonl' to choose the columns yourself."
            )
            raise ValueError(msg)
        if fmt == "convabuse":
            if scale is not None or ordered is not None:
                msg = (
                    "The convabuse format has a fixed scale (−3 … 1, ordinal); drop scale/ordered."
                )
                raise ValueError(msg)
            return read_convabuse(
                p, duplicates=duplicates or "first", meta=tuple(meta) or ("conv_id", "bot")
            )
        # single labels only: a multi-label file gives SetAnnotations, from read_lewidi
        return read_lewidi(
            p,
            scale=scale,
            ordered=ordered,
            dropna=dropna,
            duplicates=duplicates or "error",
            meta=tuple(meta) if meta else None,
            multilabel=False,
        )
    if layout == "wide":
        ids: list[str] = [item]
        strip: list[str] | None = (list(annotators) if annotators else None) if strip_labels else []
    else:
        ids = [c for c in (item, annotator) if c is not None]
        strip = [label] if strip_labels else []
    df = _read_table(p, fmt, sep, ids=ids, na_values=na_values, strip=strip)
    source = str(path)
    if layout == "wide":
        if dropna or duplicates not in (None, "error"):
            msg = (
                "dropna and duplicates apply to the long layout; a wide table has one cell per "
                "(item, annotator) and an empty cell is simply not an annotation."
            )
            raise ValueError(msg)
        return Annotations.from_wide(
            df,
            item=item,
            annotators=annotators,
            scale=scale,
            ordered=ordered,
            meta=meta,
            source=source,
        )
    if annotators is not None:
        msg = "annotators=[...] names the annotator columns of a wide table; pass layout='wide'."
        raise ValueError(msg)
    return Annotations.from_frame(
        df,
        item=item,
        annotator=annotator,
        label=label,
        scale=scale,
        ordered=ordered,
        meta=meta,
        dropna=dropna,
        duplicates=duplicates or "error",
        source=source,
    )


# -- ConvAbuse ------------------------------------------------------------------
def _one_hot_labels(
    block: pd.DataFrame, path: PathLike, lines: pd.Index, what: str
) -> npt.NDArray[np.int64]:
    """ConvAbuse severities from one-hot ``is_abuse.<k>`` cells (text "0"/"1")."""
    values = block.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isin(values, (0.0, 1.0))
    if bad.any():
        r, c = np.argwhere(bad)[0]
        msg = (
            f"'{path}' line {lines[r]}: {what} column {block.columns[c]!r} is "
            f"{block.iloc[r, c]!r}; one-hot severity cells must be 0 or 1."
        )
        raise DataError(msg)
    ones = values.sum(axis=1)
    off = np.flatnonzero(ones != 1)
    if off.size:
        shown = ", ".join(str(v) for v in lines[off[:5]])
        msg = (
            f"'{path}' line{'s' if off.size > 1 else ''} {shown}"
            f"{f' … ({off.size - 5} more)' if off.size > 5 else ''}: {what} has "
            f"{int(ones[off[0]])} severities marked (columns {', '.join(block.columns)}); "
            "exactly one is expected per response."
        )
        raise DataError(msg)
    levels = np.asarray(_CONVABUSE_LEVELS, dtype=np.int64)
    out: npt.NDArray[np.int64] = levels[values.argmax(axis=1)]
    return out


def _require(df: pd.DataFrame, columns: Sequence[str], path: PathLike, kind: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        msg = (
            f"'{path}' does not look like a ConvAbuse {kind} file: no column(s) "
            f"{examples(missing)} (columns: {examples(list(df.columns), 10)})."
        )
        raise DataError(msg)


def _convabuse_full(
    df: pd.DataFrame, path: PathLike, duplicates: Duplicates, meta: Sequence[str]
) -> Annotations:
    cols = [f"is_abuse.{k}" for k in _CONVABUSE_LEVELS]
    _require(df, ["example_no", "annotator_id", *_CONVABUSE_TURN, *cols, *meta], path, "full")
    labels = _one_hot_labels(df[cols], path, df.index, "the response")
    # A turn is its conversation and its context: conv_id alone is not enough
    # (spreadsheet-mangled ids such as "2.6896E+15" stand for several
    # conversations), and one conversation has many judged turns.
    turn = df.groupby(list(_CONVABUSE_TURN), sort=False, dropna=False).ngroup().to_numpy()
    example_no = pd.to_numeric(df["example_no"], errors="coerce")
    if example_no.isna().any():
        r = int(np.flatnonzero(example_no.isna().to_numpy())[0])
        msg = (
            f"'{path}' line {df.index[r]}: example_no {df['example_no'].iloc[r]!r} is not a number."
        )
        raise DataError(msg)
    first_example = example_no.groupby(turn).transform("min").to_numpy()
    long = pd.DataFrame(
        {
            "item": first_example.astype(np.int64),
            "annotator": df["annotator_id"].replace("", np.nan).to_numpy(),
            "label": labels,
        },
        index=df.index,
    )
    for m in meta:
        long[m] = df[m].to_numpy()
    return Annotations.from_frame(
        long, scale=CONVABUSE_SCALE, meta=meta, duplicates=duplicates, source=str(path)
    )


def _convabuse_split(
    df: pd.DataFrame, path: PathLike, duplicates: Duplicates, meta: Sequence[str]
) -> Annotations:
    _require(df, ["example_id", *meta], path, "split")
    numbers = sorted(int(m.group(1)) for c in df.columns if (m := _SPLIT_COLUMN.match(c)))
    ids = pd.to_numeric(df["example_id"], errors="coerce")
    if ids.isna().any():
        r = int(np.flatnonzero(ids.isna().to_numpy())[0])
        msg = (
            f"'{path}' line {df.index[r]}: example_id {df['example_id'].iloc[r]!r} is not a number."
        )
        raise DataError(msg)
    item_ids = ids.astype(np.int64) if (ids % 1 == 0).all() else ids
    parts: list[pd.DataFrame] = []
    for a in numbers:  # a loop over the (eight) annotators, not over items
        name = f"Annotator{a}"
        cols = [f"{name}_is_abuse.{k}" for k in _CONVABUSE_LEVELS]
        _require(df, cols, path, "split")
        # A cell lists every response of the annotator to the item ("0, 1"
        # = answered twice): the split files' way of keeping repeats.
        split = df[cols].apply(lambda s: s.str.strip().str.split(r"\s*,\s*", regex=True))
        sizes = split.apply(lambda s: s.map(lambda v: 0 if v == [""] else len(v)))
        size = sizes.to_numpy()
        uneven = np.flatnonzero((size != size[:, :1]).any(axis=1))
        if uneven.size:
            r = int(uneven[0])
            msg = (
                f"'{path}' line {df.index[r]}: {name}'s severity cells list different numbers of "
                f"responses ({', '.join(f'{c}={df[c].iloc[r]!r}' for c in cols)})."
            )
            raise DataError(msg)
        has = size[:, 0] > 0
        if not has.any():
            continue
        exploded = split[has].explode(cols)
        rows = np.flatnonzero(has).repeat(size[has, 0])
        lines = df.index[rows]
        labels = _one_hot_labels(exploded, path, lines, f"{name}'s response")
        part = pd.DataFrame(
            {
                "item": item_ids.to_numpy()[rows],
                "annotator": name,
                "label": labels,
                "_row": rows,
                "_a": a,
            },
            index=lines,
        )
        for column in meta:
            part[column] = df[column].to_numpy()[rows]
        parts.append(part)
    if not parts:
        msg = f"'{path}' has no ConvAbuse severity annotations (columns AnnotatorN_is_abuse.K)."
        raise DataError(msg)
    # file order, then annotator, then response order: "first" is the first listed
    long = pd.concat(parts).sort_values(["_row", "_a"], kind="stable")
    return Annotations.from_frame(
        long.drop(columns=["_row", "_a"]),
        scale=CONVABUSE_SCALE,
        meta=meta,
        duplicates=duplicates,
        source=str(path),
    )


def read_convabuse(
    path: PathLike,
    *,
    duplicates: Duplicates = "first",
    meta: Sequence[str] = ("conv_id", "bot"),
) -> Annotations:
    r"""Read a ConvAbuse CSV (Cercas Curry et al., 2021): the full file or a split.

    The severity of abuse is one-hot in ``is_abuse.1`` (not abusive),
    ``is_abuse.0`` (ambiguous), ``is_abuse.-1``, ``is_abuse.-2``,
    ``is_abuse.-3`` (very strongly abusive); it becomes one label on the
    ordinal scale :data:`CONVABUSE_SCALE` (−3 < −2 < −1 < 0 < 1).
    Annotator ids (``Annotator1`` … ``Annotator8``) are kept.

    Two layouts are recognised from the header:

    - the full file ``ConvAbuseEMNLPfull.csv``: one row per annotator
      response. An item is a conversation turn, identified by
      (``conv_id``, ``prev_agent``, ``prev_user``, ``agent``, ``user``);
      its id is the smallest ``example_no`` among its rows.
    - the split files ``ConvAbuseEMNLP{train,valid,test}.csv``: one row per
      item (id ``example_id``), severity columns ``AnnotatorN_is_abuse.K``;
      a cell such as ``"0, 1"`` lists several responses of that annotator.

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    duplicates : {"first", "last", "keep", "error"}
        The rule for repeated annotations. The data set asked some
        annotators to label the same turn again (to measure intra-annotator
        agreement), so an (item, annotator) pair can have several responses.
        The default ``"first"`` keeps each annotator's first response (the
        earliest row of the full file, the first value listed in a split
        file's cell) and reports how many were dropped with a
        :class:`DataDroppedWarning`; ``"last"`` keeps the last; ``"keep"``
        counts every response; ``"error"`` refuses.
    meta : sequence of str
        Item-level columns to keep (constant per item); any of ``conv_id``,
        ``bot``, ``prev_agent``, ``prev_user``, ``agent``, ``user``.

    Returns
    -------
    Annotations

    Raises
    ------
    DataError
        A missing column, a one-hot row with no or several severities marked,
        a non-0/1 cell, or split cells listing different numbers of
        responses; messages name the file and line.

    Warns
    -----
    DataDroppedWarning
        With ``duplicates="first"`` or ``"last"``, when repeats were dropped.

    Notes
    -----
    On the published files the full file has 12,768 responses to 4,185
    turns; 357 of them repeat an (item, annotator) pair and are dropped by
    the default rule. The three split files hold the same 4,185 turns and
    the same responses (the repeats appear as multi-valued cells).

    References
    ----------
    A. Cercas Curry, G. Abercrombie, V. Rieser. "ConvAbuse: Data, Analysis,
    and Benchmarks for Nuanced Abuse Detection in Conversational AI".
    EMNLP 2021, 7388–7403. :doi:`10.18653/v1/2021.emnlp-main.587`

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "full.csv"
    >>> head = "example_no,annotator_id,conv_id,prev_agent,prev_user,agent,user,bot,"
    >>> head += "is_abuse.1,is_abuse.0,is_abuse.-1,is_abuse.-2,is_abuse.-3\n"
    >>> rows = ["0,Annotator1,7,Hi,hey,How are you?,bad,E,0,0,1,0,0",
    ...         "1,Annotator2,7,Hi,hey,How are you?,bad,E,1,0,0,0,0"]
    >>> _ = f.write_text(head + "\n".join(rows) + "\n")
    >>> ann = read_convabuse(f)
    >>> ann.counts().to_frame()
    label  -3  -2  -1  0  1  n
    item
    0       0   0   1  0  1  2
    """
    p = _existing_file(path)
    check_option("read_convabuse", "duplicates", duplicates, ("first", "last", "keep", "error"))
    df = _read_delimited(p, ",", text=True)
    meta = list(meta)
    if "annotator_id" in df.columns:
        return _convabuse_full(df, path, duplicates, meta)
    if any(_SPLIT_COLUMN.match(c) for c in df.columns):
        return _convabuse_split(df, path, duplicates, meta)
    msg = (
        f"'{path}' is not a ConvAbuse file: expected an annotator_id column and is_abuse.K "
        f"columns (full file) or AnnotatorN_is_abuse.K columns (split files); columns: "
        f"{examples(list(df.columns), 10)}."
    )
    raise DataError(msg)


# -- LeWiDi ---------------------------------------------------------------------
def _lewidi_label(value: Any, where: str) -> Label:
    """One LeWiDi label: ``"0.0"``, ``"0"``, ``0`` and ``0.0`` are the same label."""
    if isinstance(value, list | dict):
        msg = (
            f"{where}: multi-label annotation {value!r} in a file read as single-label; read it "
            "with read_lewidi(path) or multilabel=True, which gives SetAnnotations."
        )
        raise DataError(msg)
    if isinstance(value, bool):
        msg = (
            f"{where}: label {json.dumps(value)} is a JSON boolean; it would merge with 1/0. "
            "Write labels as numbers or strings."
        )
        raise DataError(msg)
    if isinstance(value, str):
        return text_label(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value) if value.is_integer() else value
    msg = f"{where}: label {value!r} is not a number or a string."
    raise DataError(msg)


def _split_field(value: Any) -> list[Any]:
    """A LeWiDi list field: a comma-separated string (2023) or a JSON list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [] if not value.strip() else [v.strip() for v in value.split(",")]
    if isinstance(value, list):
        return value
    return [value]


def _blank(value: Any) -> bool:
    """An annotation left empty: ``""``, as in the unlabelled test files."""
    return isinstance(value, str) and not value.strip()


def _lewidi_record(
    item_id: str, record: Any, where: str
) -> tuple[list[Any], list[Any] | None, int | None, int]:
    """Raw annotations, annotators (or None), the stated count and the number of blank ones.

    Blank annotations (``""``, as in the unlabelled ``*_test_clear.json``
    files) are not labels: they are left out here and counted. The values
    are returned as written; :func:`_lewidi_label` or :func:`_lewidi_set`
    reads them.
    """
    if not isinstance(record, dict):
        msg = f"{where}: expected a JSON object, got {type(record).__name__}."
        raise DataError(msg)
    raw = record.get("annotations")
    annotators: list[Any] | None
    if isinstance(raw, dict):  # LeWiDi 2025: {annotator: label}
        blank = sum(map(_blank, raw.values()))
        values = [v for v in raw.values() if not _blank(v)]
        annotators = [str(a) for a, v in raw.items() if not _blank(v)]
    else:  # LeWiDi 2023: "1,0,0,1" with "Ann1,Ann2,Ann3,Ann4"
        listed_values = _split_field(raw)
        blank = sum(map(_blank, listed_values))
        listed = _split_field(record.get("annotators"))
        annotators = [str(a) for a in listed] if "annotators" in record else None
        if (
            annotators is not None
            and len(listed_values) > blank
            and len(annotators) != len(listed_values)
        ):
            msg = (
                f"{where}: {len(listed_values)} annotations but {len(annotators)} annotators; the "
                "two lists must pair up one to one."
            )
            raise DataError(msg)
        if annotators is not None and blank:
            annotators = [
                a for a, v in zip(annotators, listed_values, strict=False) if not _blank(v)
            ]
        values = [v for v in listed_values if not _blank(v)]
    stated = record.get("number of annotations", record.get("number of annotators"))
    count = stated if isinstance(stated, int) and not isinstance(stated, bool) else None
    return values, annotators, count, blank


def _is_multilabel(record: Any) -> bool:
    """Whether a record holds set-valued annotations or VariErrNLI's per-label soft label.

    A 2025 record's annotation with a comma (``"entailment,neutral"``), a
    JSON list as an annotation, or a ``soft_label`` of per-label ``{"0": …,
    "1": …}`` marginals. (A 2023 record's commas separate annotators.)
    """
    if not isinstance(record, dict):
        return False
    raw = record.get("annotations")
    values = list(raw.values()) if isinstance(raw, dict) else _split_field(raw)
    if any(isinstance(v, list) for v in values):
        return True
    if isinstance(raw, dict) and any(isinstance(v, str) and "," in v for v in values):
        return True
    soft = record.get("soft_label")
    return isinstance(soft, dict) and any(isinstance(v, dict) for v in soft.values())


def _lewidi_set(value: Any, where: str) -> tuple[Label, ...]:
    """One set-valued LeWiDi annotation: ``"entailment,neutral"``, a JSON list, or one label."""
    if isinstance(value, list):
        parts: list[Any] = value
    elif isinstance(value, str):
        parts = value.split(",")
    else:
        parts = [value]
    out = []
    for v in parts:
        if isinstance(v, str) and not v.strip():
            msg = f"{where}: empty label in the set {value!r} (a stray comma?)."
            raise DataError(msg)
        out.append(_lewidi_label(v, where))
    return tuple(out)


def _single_label(value: Any, where: str) -> Label:
    if isinstance(value, str) and "," in value:
        msg = (
            f"{where}: multi-label annotation {value!r} in a file read as single-label; read it "
            "with read_lewidi(path) or multilabel=True, which gives SetAnnotations."
        )
        raise DataError(msg)
    return _lewidi_label(value, where)


@overload
def read_lewidi(
    path: PathLike,
    *,
    scale: Scale | Sequence[Any] | None = ...,
    ordered: bool | None = ...,
    meta: Sequence[str] | None = ...,
    dropna: bool = ...,
    duplicates: Duplicates = ...,
    multilabel: Literal[False],
) -> Annotations: ...
@overload
def read_lewidi(
    path: PathLike,
    *,
    scale: Scale | Sequence[Any] | None = ...,
    ordered: bool | None = ...,
    meta: Sequence[str] | None = ...,
    dropna: bool = ...,
    duplicates: Duplicates = ...,
    multilabel: Literal[True],
) -> SetAnnotations: ...
@overload
def read_lewidi(
    path: PathLike,
    *,
    scale: Scale | Sequence[Any] | None = ...,
    ordered: bool | None = ...,
    meta: Sequence[str] | None = ...,
    dropna: bool = ...,
    duplicates: Duplicates = ...,
    multilabel: bool | None = ...,
) -> Annotations | SetAnnotations: ...
def read_lewidi(
    path: PathLike,
    *,
    scale: Scale | Sequence[Any] | None = None,
    ordered: bool | None = None,
    meta: Sequence[str] | None = None,
    dropna: bool = False,
    duplicates: Duplicates = "error",
    multilabel: bool | None = None,
) -> Annotations | SetAnnotations:
    """Read a LeWiDi shared-task JSON file (2023 or 2025 editions).

    The file maps item ids to records. Two record shapes are understood:

    - 2023 (HS-Brexit, ArMIS, MD-Agreement, ConvAbuse): ``"annotations":
      "1,0,0,1"`` with ``"annotators": "Ann1,Ann2,Ann3,Ann4"`` (comma
      separated strings, paired by position; JSON lists work too).
    - 2025 (perspectivist: CSC, MP, Paraphrase, VariErrNLI):
      ``"annotations": {"Ann1": "3", "Ann2": "4"}`` (annotator → label).
      VariErrNLI annotators may choose several labels:
      ``{"Ann1": "entailment,neutral", "Ann2": "neutral"}``; such files
      are read as :class:`~dissensus.SetAnnotations` (see ``multilabel``).

    Labels that read as numbers become numbers, so ``"0.0"``, ``"0"``,
    ``0`` and ``0.0`` are one label; other labels stay strings.

    The soft label is recomputed from the annotations (the proportion of
    each label). The file's ``soft_label`` is never used; it is only
    compared with the recomputed one, and a disagreement larger than its
    printed precision (half a unit in the last decimal printed, at least
    1e-6: the 2025 files print 1/3 as 0.33) is reported with a
    :class:`DissensusWarning` as a data-quality signal. For a multi-label
    file the nested soft label (VariErrNLI: for each label, the shares
    ``"0"`` / ``"1"`` of annotators who left it out / chose it) is compared
    with :meth:`SetAnnotations.binary_targets`. The 2023 ConvAbuse
    file annotates severities -3..1 but prints the binary abusive/not
    distribution (severity < 0) as its soft label: that is compared with
    the binarised annotations, and
    :func:`dissensus.metrics.lewidi.targets_2023` gives those targets.

    Unlabelled files (the ``*_test_clear.json`` files, whose annotations
    are empty strings) are refused with a :class:`DataError`. Empty
    annotations are never read as a label: a record with only empty ones
    has no annotations, one with some is refused unless ``dropna=True``
    skips them.

    Parameters
    ----------
    path : str or path-like
        The JSON file.
    scale : Scale or sequence of labels, optional
        The label set, in order. Default: inferred from the annotations
        (numbers ordered, strings nominal); labels nobody chose are then
        absent, so give the scale for an ordinal task.
    ordered : bool, optional
        Whether the labels are ordered.
    meta : sequence of str, optional
        Record fields to keep as item-level columns. Default: those of
        ``"split"`` and ``"lang"`` present in the file.
    dropna : bool
        Skip records without annotations, and empty annotations within a
        record, with a :class:`DataDroppedWarning` (saying how many and
        which records) instead of raising.
    duplicates : {"error", "first", "last", "keep"}
        An annotator listed twice on one record.
    multilabel : bool, optional
        Read every annotation as a set of labels (comma separated, or a
        JSON list; one label is a set of one). Default: when some record
        is multi-label (an annotation with a comma or a JSON list, or a
        VariErrNLI-style per-label ``soft_label``). The label universe is
        then ``scale`` if given, else the labels present together with the
        ``soft_label`` keys, sorted: for VariErrNLI contradiction,
        entailment, neutral, the order of the official files and scorer.
        ``[]`` is the empty set; ``""`` is a blank annotation as above.

    Returns
    -------
    Annotations or SetAnnotations
        Item ids are the file's keys (strings). :class:`SetAnnotations`
        for a multi-label file.

    Raises
    ------
    DataError
        Invalid JSON (with its line), a record that is not an object,
        annotation and annotator lists of different lengths, multi-label
        annotations with ``multilabel=False``, labels repeated within a set,
        records without annotations or with
        empty ones (unless ``dropna``), a file with no annotation at all (an
        unlabelled test file); messages name the file and the record.

    Warns
    -----
    DissensusWarning
        When the file's ``soft_label`` or stated number of annotations
        disagrees with the annotations.
    DataDroppedWarning
        When ``dropna=True`` skipped records.

    References
    ----------
    E. Leonardelli et al. "SemEval-2023 Task 11: Learning with
    Disagreements (LeWiDi)". SemEval 2023. :doi:`10.18653/v1/2023.semeval-1.314`

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "lewidi.json"
    >>> _ = f.write_text(json.dumps({
    ...     "1": {"annotations": "1,0,0", "annotators": "Ann1,Ann2,Ann3",
    ...           "soft_label": {"0": 0.6666666666666666, "1": 0.3333333333333333}},
    ...     "2": {"annotations": {"Ann1": "1.0", "Ann3": "1"}, "soft_label": {"1.0": 1.0}}}))
    >>> read_lewidi(f).counts().to_frame()
    label  0  1  n
    item
    1      2  1  3
    2      0  2  2
    """
    p = _existing_file(path)
    check_option("read_lewidi", "duplicates", duplicates, ("error", "first", "last", "keep"))
    raw = _read_bytes(p)
    _check_utf8(raw, path)
    try:
        data = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_repeated_keys)
    except json.JSONDecodeError as exc:
        msg = f"'{path}' line {exc.lineno}: invalid JSON ({exc.msg} at column {exc.colno})."
        raise DataError(msg) from None
    except _RepeatedKeyError as exc:
        text = raw.decode("utf-8")
        spots = [m.start() for m in re.finditer(re.escape(json.dumps(exc.key)) + r"\s*:", text)]
        line = f" line {text.count(chr(10), 0, spots[1]) + 1}" if len(spots) == 2 else ""
        msg = (
            f"'{path}'{line}: key {exc.key!r} appears twice in one JSON object; JSON readers keep only "
            "the last one, so a record would be lost. Make the keys unique."
        )
        raise DataError(msg) from None
    except RecursionError:
        msg = f"'{path}' is nested too deeply to be a LeWiDi file (a record is one or two levels deep)."
        raise DataError(msg) from None
    if not isinstance(data, dict) or not data:
        msg = (
            f"'{path}' is not a LeWiDi file: expected a JSON object mapping item ids to records, "
            f"got {'an empty object' if isinstance(data, dict) else type(data).__name__}."
        )
        raise DataError(msg)

    keep = (
        [f for f in ("split", "lang") if any(isinstance(r, dict) and f in r for r in data.values())]
        if meta is None
        else list(meta)
    )
    rec_ids: list[str] = []
    item_col: list[str] = []
    annotator_col: list[Any] = []
    multi = any(map(_is_multilabel, data.values())) if multilabel is None else multilabel
    label_col: list[Any] = []
    meta_cols: dict[str, list[Any]] = {m: [] for m in keep}
    no_annotators: list[str] = []
    empty: list[str] = []
    miscounted: list[str] = []
    partly_blank: list[str] = []
    soft: dict[str, tuple[dict[Label, float], float]] = {}
    set_soft: dict[str, tuple[dict[Label, tuple[float, float]], float]] = {}
    for key, record in data.items():
        item_id = str(key)
        where = f"'{path}' record {item_id!r}"
        values, annotators, stated, blank = _lewidi_record(item_id, record, where)
        read_one = _lewidi_set if multi else _single_label
        labels = [read_one(v, where) for v in values]
        if not labels:
            empty.append(item_id)
            continue
        if blank:
            partly_blank.append(item_id)
            stated = None if stated is None else stated - blank
        if annotators is None:
            no_annotators.append(item_id)
            annotators = [None] * len(labels)
        if stated is not None and stated != len(labels):
            miscounted.append(item_id)
        n = len(labels)
        rec_ids.extend([item_id] * n)
        item_col.extend([item_id] * n)
        annotator_col.extend(annotators)
        label_col.extend(labels)
        for m in keep:
            meta_cols[m].extend([record.get(m)] * n)
        file_soft = record.get("soft_label")
        if multi:
            nested = _nested_soft_label(file_soft, where)
            if nested is not None:
                set_soft[item_id] = nested
        # Only a flat distribution is comparable with single labels; VariErrNLI's
        # nested per-label marginals ({"entailment": {"0": .5, "1": .5}, ...}) are not.
        elif isinstance(file_soft, dict) and file_soft and all(map(_is_number, file_soft.values())):
            soft[item_id] = (
                {_lewidi_label(k, where): float(v) for k, v in file_soft.items()},
                _printed_precision(file_soft.values()),
            )
    for m in keep:
        if not any(v is not None for v in meta_cols[m]) and meta is not None:
            msg = f"'{path}' has no field {m!r} in any annotated record; cannot keep it as meta."
            raise DataError(msg)
    if len(empty) == len(data):
        msg = (
            f"'{path}' is an unlabelled file: none of its {len(data)} records has an annotation "
            "(empty annotations, as in the LeWiDi *_test_clear.json files). Read the annotated "
            "train or dev file instead."
        )
        raise DataError(msg)
    if partly_blank:
        if not dropna:
            msg = (
                f"'{path}': {len(partly_blank)} records have some empty annotations (records "
                f"{examples(partly_blank)}); pass dropna=True to skip the empty ones."
            )
            raise DataError(msg)
        warnings.warn(
            f"Skipped the empty annotations of {len(partly_blank)} records in '{path}' "
            f"(records {examples(partly_blank)}).",
            DataDroppedWarning,
            stacklevel=2,
        )
    if empty:
        if not dropna:
            msg = (
                f"'{path}': {len(empty)} of {len(data)} records have no annotations "
                f"(records {examples(empty)}), e.g. an unlabelled test file; pass dropna=True "
                "to skip them."
            )
            raise DataError(msg)
        warnings.warn(
            f"Skipped {len(empty)} of {len(data)} records without annotations in '{path}' "
            f"(records {examples(empty)}).",
            DataDroppedWarning,
            stacklevel=2,
        )
    if not label_col:
        msg = f"'{path}' has no annotations at all."
        raise DataError(msg)
    if no_annotators and len(no_annotators) != len(set(item_col)):
        msg = (
            f"'{path}': some records list annotators and some do not (e.g. record "
            f"{no_annotators[0]!r}); give annotators for every record or for none."
        )
        raise DataError(msg)
    has_annotators = not no_annotators
    long = pd.DataFrame(
        {"item": item_col, "annotator": annotator_col, "label": _object_array(label_col)},
        index=pd.Index(rec_ids, name="record"),
    )
    for m in keep:
        long[m] = meta_cols[m]
    if multi:
        if scale is None:
            named = [k for dist, _ in set_soft.values() for k in dist]
            present = [v for cell in label_col for v in cell] + named
            scale = Scale.infer(present, ordered=bool(ordered)) if present else None
        elif not isinstance(scale, Scale):
            scale = Scale(tuple(scale), ordered=bool(ordered))
        sets = SetAnnotations.from_frame(
            long,
            annotator="annotator" if has_annotators else None,
            scale=scale,
            meta=keep,
            dropna=False,
            duplicates=duplicates,
            source=str(path),
        )
        _warn_miscounted(miscounted, path)
        _check_set_soft_labels(sets, set_soft, path)
        return sets
    ann = Annotations.from_frame(
        long,
        annotator="annotator" if has_annotators else None,
        scale=scale,
        ordered=ordered,
        meta=keep,
        dropna=False,
        duplicates=duplicates,
        source=str(path),
    )
    _warn_miscounted(miscounted, path)
    _check_soft_labels(ann, soft, path)
    return ann


def _warn_miscounted(miscounted: list[str], path: PathLike) -> None:
    if miscounted:
        warnings.warn(
            f"'{path}': the stated number of annotations differs from the annotations listed in "
            f"{len(miscounted)} records (e.g. {examples(miscounted)}); the listed ones are used.",
            DissensusWarning,
            stacklevel=3,
        )


def _nested_soft_label(
    file_soft: Any, where: str
) -> tuple[dict[Label, tuple[float, float]], float] | None:
    """VariErrNLI's soft label ``{label: {"0": q, "1": p}}`` as ``{label: (q, p)}`` and its precision."""
    if not isinstance(file_soft, dict) or not file_soft:
        return None
    out: dict[Label, tuple[float, float]] = {}
    printed: list[float] = []
    for key, dist in file_soft.items():
        if not isinstance(dist, dict) or not all(map(_is_number, dist.values())):
            return None
        shares = {_lewidi_label(k, where): float(v) for k, v in dist.items()}
        if not set(shares) <= {0, 1}:
            return None
        out[_lewidi_label(key, where)] = (shares.get(0, 0.0), shares.get(1, 0.0))
        printed.extend(dist.values())
    return out, _printed_precision(printed)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _printed_precision(values: Any) -> float:
    """Half a unit in the last decimal the file prints (0.33 → 0.005), at least 1e-6.

    LeWiDi 2025 files round soft labels to two decimals (1/3 printed as
    0.33); a difference within that rounding is not a disagreement.
    """
    decimals = 0
    for v in values:
        text = repr(float(v))
        if "e" in text or "E" in text:
            return _SOFT_LABEL_ATOL
        decimals = max(decimals, len(text.split(".")[1]) if "." in text else 0)
    return max(_SOFT_LABEL_ATOL, 0.5 * 10.0**-decimals + 1e-12)


def _check_soft_labels(
    ann: Annotations, soft: dict[str, tuple[dict[Label, float], float]], path: PathLike
) -> None:
    """Warn when the file's soft labels disagree with the annotations.

    A 2023 ConvAbuse file (severities -3..1) prints the binary abusive/not
    distribution (:func:`dissensus.metrics.lewidi.targets_2023`) as its soft
    label: it is compared with that, not with the five-label proportions.
    """
    if not soft:
        return
    recomputed = ann.counts().proportions()
    scale = ann.scale
    binary_keys = all(set(dist) <= {0, 1} for dist, _ in soft.values())
    if binary_keys and scale.is_numeric and (scale.values < 0).any():  # noqa: PD011 - a Scale
        abusive = recomputed[:, scale.values < 0].sum(axis=1)  # noqa: PD011 - a Scale
        recomputed = np.column_stack([1.0 - abusive, abusive])
        scale = Scale.nominal([0, 1])
    given = np.zeros_like(recomputed)
    extra = np.zeros(len(recomputed))
    atol = np.full(len(recomputed), _SOFT_LABEL_ATOL)
    rows = ann.items.get_indexer(pd.Index(list(soft), dtype=object))
    for row, (dist, tol) in zip(rows, soft.values(), strict=True):  # records, one by one
        if row < 0:
            continue
        atol[row] = tol
        for label, value in dist.items():
            if label in scale:
                given[row, scale.index(label)] = value
            else:
                extra[row] += abs(value)
    checked = np.zeros(len(recomputed), dtype=bool)
    checked[rows[rows >= 0]] = True
    diff = np.abs(given - recomputed).max(axis=1) + extra
    bad = np.flatnonzero(checked & (diff > atol))
    if bad.size:
        warnings.warn(
            f"'{path}': the file's soft_label disagrees with the annotations in {bad.size} of "
            f"{int(checked.sum())} records (largest difference {diff[bad].max():.3g}; records "
            f"{examples(ann.items[bad].tolist())}); dissensus uses the label proportions "
            "recomputed from the annotations.",
            DissensusWarning,
            stacklevel=3,
        )


def _check_set_soft_labels(
    sets: SetAnnotations,
    soft: dict[str, tuple[dict[Label, tuple[float, float]], float]],
    path: PathLike,
) -> None:
    """Warn when a multi-label file's per-label soft labels disagree with the annotations."""
    if not soft:
        return
    recomputed = sets.binary_targets()  # (N, L, 2)
    rows = sets.items.get_indexer(pd.Index(list(soft), dtype=object))
    given = np.zeros_like(recomputed)
    stated = np.zeros(recomputed.shape[:2], dtype=bool)
    extra = np.zeros(len(recomputed))
    atol = np.full(len(recomputed), _SOFT_LABEL_ATOL)
    for row, (dist, tol) in zip(rows, soft.values(), strict=True):  # records, one by one
        if row < 0:
            continue
        atol[row] = tol
        for label, (q, p) in dist.items():
            if label in sets.scale:
                col = sets.scale.index(label)
                given[row, col] = (q, p)
                stated[row, col] = True
            else:
                extra[row] += abs(p)
    checked = np.zeros(len(recomputed), dtype=bool)
    checked[rows[rows >= 0]] = True
    # labels a record's soft label leaves out are not compared
    diff = np.where(stated[..., None], np.abs(given - recomputed), 0.0).max(axis=(1, 2)) + extra
    bad = np.flatnonzero(checked & (diff > atol))
    if bad.size:
        warnings.warn(
            f"'{path}': the file's per-label soft_label disagrees with the annotations in "
            f"{bad.size} of {int(checked.sum())} records (largest difference {diff[bad].max():.3g}; "
            f"records {examples(sets.items[bad].tolist())}); dissensus uses the shares "
            "recomputed from the annotations.",
            DissensusWarning,
            stacklevel=3,
        )


def _object_array(values: list[Any]) -> npt.NDArray[np.object_]:
    """Keep labels as they are (no int/float/str coercion by NumPy; tuples stay whole)."""
    return np.fromiter(values, dtype=object, count=len(values))
