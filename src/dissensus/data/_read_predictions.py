"""``read_predictions``: predicted label distributions from the files models and pipelines write.

Layouts read without a conversion script (one documented rule each, chosen from the file):

- wide tables, one row per item: columns named after the labels (``1``, ``pos``),
  prefixed (``p_pos``, ``prob_pos``, ``probability_pos``, ``proba_pos``, ``score_pos``),
  or numbered ``p1..pK`` / ``p0..p(K-1)`` (read as the K labels in scale order);
- long tables, one row per (item, label): a label column and a probability column;
- JSON Lines of Hugging Face ``pipeline(..., top_k=None)`` outputs: per line a list
  ``[{"label": ..., "score": ...}, ...]``, bare or in an object beside an item id;
- NumPy ``.npy`` (N, K) arrays with their item ids, one per line, in ``FILE.ids.txt``.

Every problem of a file is listed in one :class:`DataError`, each with its fix.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError, DissensusWarning
from dissensus._validation import PROB_ATOL, check_option, examples
from dissensus.data._predictions import (
    ID_COLUMNS,
    Predictions,
    _label_from_column,
    _strip_all,
    id_column,
)
from dissensus.data._scale import Scale
from dissensus.data._tables import (
    TABLE_FORMATS,
    PathLike,
    exact_ids,
    existing_file,
    first_repeat,
    locations,
    open_table,
    parse_json,
    py,
    read_frame,
    text_input,
)

#: Formats of :func:`read_predictions`: the tables, and NumPy arrays.
PREDICTION_FORMATS: tuple[str, ...] = (*TABLE_FORMATS, "npy")
#: Label and probability columns of a long table when none is named (any letter case).
LABEL_COLUMNS: tuple[str, ...] = ("label", "class", "category")
PROB_COLUMNS: tuple[str, ...] = ("prob", "probability", "proba", "score", "p", "confidence")
#: Columns of a wide table that are never label probabilities unless the scale has that label.
META_COLUMNS = frozenset(
    {"model", "split", "fold", "seed", "epoch", "run", "step", "text", "sentence", "gold"}
    | {"target", "y_true", "pred", "prediction", "predicted", "y_pred", "argmax", "hard"}
)
#: Decimals considered when inferring a file's rounding: fewer count as 2, more as full precision.
MIN_DECIMALS, MAX_DECIMALS = 2, 8
_PREFIXED = re.compile(r"^(?:p|prob|proba|probability|score)_(.+)$", re.IGNORECASE)
_NUMBERED = re.compile(r"^p(\d+)$", re.IGNORECASE)
_HF_LABEL = re.compile(r"^LABEL_(\d+)$")
_LIMIT = 5
_SUMS_LATER = " (The row sums are checked once every label has its column.)"

Layout = Literal["auto", "wide", "long"]


@dataclass
class _Reading:
    """What reading one file found: its problems (one error at the end) and notes."""

    path: str
    #: The annotations' item column, taken as the id column before :data:`ID_COLUMNS`.
    item_like: str | None = None
    columns: list[Any] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def refuse(self) -> None:
        """Raise one DataError listing every problem, with the file's columns."""
        if not self.problems:
            return
        n = len(self.problems)
        shown = f" (columns: {examples(self.columns, 12)})" if self.columns else ""
        listed = " ".join(f"({k}) {p}" for k, p in enumerate(self.problems, start=1))
        read = f" As read: {'; '.join(self.notes)}." if self.notes else ""
        msg = f"'{self.path}' cannot be read as predictions{shown}; {n} problem{'s' if n > 1 else ''}: {listed}{read}"
        raise DataError(msg)


def _named(columns: Sequence[Any], names: Sequence[str]) -> Any:
    """The first column of ``columns`` named one of ``names`` (any letter case), or None."""
    lowered = {c.lower(): c for c in reversed(columns) if isinstance(c, str)}
    return next((lowered[n] for n in names if n in lowered), None)


def read_predictions(
    path: PathLike,
    format: str | None = None,
    *,
    layout: Layout = "auto",
    item: str | None = None,
    annotation_item: str | None = None,
    labels: Sequence[Any] | None = None,
    label: str | None = None,
    prob: str | None = None,
    ids: PathLike | None = None,
    scale: Scale | None = None,
    normalize: bool = False,
    na_values: Sequence[str] = (),
    strip_labels: bool = False,
) -> Predictions:
    r"""Read predicted label distributions from a CSV, TSV, Parquet, JSONL or NumPy file.

    Parameters
    ----------
    path : str or path-like
    format : {"csv", "tsv", "parquet", "jsonl", "npy"}, optional
        Default from the extension. A JSONL file whose lines are lists of
        ``{"label", "score"}`` (Hugging Face ``pipeline(..., top_k=None)``),
        bare or in an object with an item id, is read as such.
    layout : {"auto", "wide", "long"}
        ``"wide"``: one row per item, one column per label; ``"long"``: one row
        per (item, label) with a label and a probability column; ``"auto"``:
        long when the file has both (``label``/``class``/``category`` and
        ``prob``/``probability``/``proba``/``score``/``p``/``confidence``).
    item : str, optional
        Item id column (or JSONL field). Default: the column named like an
        item id (``item``, ``item_id``, ``id``, ...; any letter case), else the
        only text column that is not a label.
    annotation_item : str, optional
        The annotations' item column: without ``item``, a column (or JSONL
        field) of that name holds the ids, before the names above.
    labels : sequence, optional
        Wide layout: the label columns, in scale order. Default: the columns
        ``p1..pK`` or ``p0..p(K-1)`` (the K labels in scale order, ``p1`` the
        first), else the ``p_<label>``/``prob_<label>`` columns, else every
        numeric column but the id and :data:`META_COLUMNS`. Other columns (a
        ``model`` or ``split`` column) are ignored, and a warning says so.
    label, prob : str, optional
        Long layout: the label and probability columns (default: as above).
    ids : path-like, optional
        ``.npy``: the item ids, one per line, no header. Default: ``FILE.ids.txt``
        beside ``FILE.npy``.
    scale : Scale, optional
        The label set the predictions must cover (e.g. the annotations'): label
        columns are matched to it by name, and one that is not on it is an
        error, listed before the row sums are checked. Numbered columns
        (``p1..pK``, ``LABEL_0..``, an array's) are its labels in order.
    normalize : bool
        Rescale every row that does not sum to 1 (how many, and by how much at
        most, is said in a warning and in ``Predictions.notes``).
    na_values, strip_labels
        See :mod:`dissensus.data`; a missing item id or probability is an error
        naming its line. ``strip_labels`` strips the label column names (wide)
        or label cells (long).

    Notes
    -----
    Rows summing to 1 within rounding are accepted and rescaled: with
    :math:`d` the most decimals any probability of the file has (from 2 to 8),
    a row may miss 1 by :math:`\max(10^{-6}, K \cdot 0.5 \cdot 10^{-d})`,
    the most that rounding each of its K probabilities to :math:`d` decimals
    moves their sum (4 decimals and K = 5: 0.00025). How many rows were
    rescaled is said in a warning and in ``Predictions.notes``; a row beyond
    that is an error naming its line and sum. Lines are file lines (the
    header is line 1); rows of an array are numbered from 1.

    Raises
    ------
    FileNotFoundError
        When ``path`` (or the ids file) does not exist.
    DataError
        Listing every problem of the file at once (missing or unknown columns,
        missing ids or probabilities, text cells, repeated items, rows that
        are not distributions), each with the option that fixes it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "p.csv").write_text("item, pos, neg\nNA,0.25,0.75\nb,0.5,0.5\n")
    >>> pred = read_predictions(d / "p.csv", strip_labels=True)
    >>> list(pred.items), pred.scale.labels
    (['NA', 'b'], ('pos', 'neg'))
    """
    check_option("read_predictions", "layout", layout, ("auto", "wide", "long"))
    reading = _Reading(str(path), annotation_item)
    if format == "npy" or (format is None and Path(path).suffix.lower() == ".npy"):
        return _read_npy(existing_file(path), ids, reading, scale=scale, normalize=normalize)
    p, fmt = open_table(path, format, PREDICTION_FORMATS, "read_predictions")
    if fmt == "npy":
        return _read_npy(p, ids, reading, scale=scale, normalize=normalize)
    if fmt == "jsonl" and _is_pipeline_output(p):
        return _read_pipeline(p, reading, item=item, scale=scale, normalize=normalize)
    names = (
        [item]
        if item is not None
        else [
            *ID_COLUMNS,
            *(n.upper() for n in ID_COLUMNS),
            *([annotation_item] if annotation_item else []),
        ]
    )
    strip = [c for c in (label, *LABEL_COLUMNS) if c is not None] if strip_labels else []
    df = read_frame(p, fmt, ids=names, na_values=tuple(na_values), strip=strip)
    reading.columns = list(df.columns)
    label_col = label if label is not None else _named(reading.columns, LABEL_COLUMNS)
    prob_col = prob if prob is not None else _named(reading.columns, PROB_COLUMNS)
    long = layout == "long" or (layout == "auto" and label_col is not None and prob_col is not None)
    if long:
        return _read_long(df, reading, item, label_col, prob_col, scale=scale, normalize=normalize)
    if label_col is not None and prob_col is not None:
        reading.problems.append(
            f"it has {label_col!r} and {prob_col!r} columns, as long predictions (one row per "
            "item and label) have, but is read as wide; pass layout='long' (CLI: --pred-layout long)."
        )
    return _read_wide(
        df, reading, item, labels, scale=scale, normalize=normalize, strip=strip_labels
    )


# -- wide and long tables -----------------------------------------------------------------


def _item_column(df: pd.DataFrame, reading: _Reading, item: str | None) -> str | None:
    """The named item column, or the one named like an id; a problem when a named one is absent."""
    if item is not None:
        if item not in df.columns:
            reading.problems.append(
                f"no item column {item!r}; name the column that holds the item ids with "
                "item='...' (CLI: --pred-item COLUMN)."
            )
            return None
        return item
    found = id_column(list(df.columns), reading.item_like)
    if found is not None and found != "item":
        reading.notes.append(f"item ids read from column {found!r}")
    return found


def _numbers(cells: pd.Series) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.intp]]:
    """The cells as floats (NaN where missing or text), and the positions of text cells."""
    if pd.api.types.is_numeric_dtype(cells) and not pd.api.types.is_bool_dtype(cells):
        return cells.to_numpy(dtype=np.float64), np.array([], dtype=np.intp)
    numbers = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=np.float64)
    text = np.isnan(numbers) & cells.notna().to_numpy()
    if pd.api.types.is_bool_dtype(cells):
        text = np.ones(len(cells), dtype=bool)
    return numbers, np.flatnonzero(text)


def _is_text(cells: pd.Series) -> bool:
    """Whether a column holds text only (a ``model`` column), not numbers with some bad cells."""
    text = _numbers(cells)[1]
    strings = cells.iloc[text].map(lambda v: isinstance(v, str)).all()
    return text.size > 0 and text.size == int(cells.notna().sum()) and bool(strings)


def _label_columns(
    df: pd.DataFrame,
    reading: _Reading,
    rest: list[Any],
    labels: Sequence[Any] | None,
    scale: Scale | None,
) -> tuple[list[Any], list[Any] | None]:
    """(label columns, their labels; None when numbered, i.e. the scale's labels in order)."""
    if labels is not None:
        missing = [c for c in labels if c not in df.columns]
        if missing:
            reading.problems.append(
                f"no label column(s) {examples(missing)}; give the label columns with labels=[...] "
                "(CLI: --pred-labels COL,COL)."
            )
        cols = [c for c in labels if c in df.columns]
        return cols, [_label_from_column(c) for c in cols]
    numbered = {int(m[1]): c for c in rest if isinstance(c, str) and (m := _NUMBERED.match(c))}
    first = min(numbered, default=0)
    if (
        len(numbered) >= 2
        and first in (0, 1)
        and sorted(numbered) == list(range(first, first + len(numbered)))
    ):
        cols = [numbered[k] for k in sorted(numbered)]
        reading.notes.append(
            f"columns {cols[0]}..{cols[-1]} read as the {len(cols)} labels in scale order "
            f"({cols[0]} = the first{_first_label(scale)})"
        )
        return cols, None
    prefixed = {c: m[1] for c in rest if isinstance(c, str) and (m := _PREFIXED.match(c))}
    if len(prefixed) >= 2:
        cols = list(prefixed)
        found = [_label_from_column(prefixed[c]) for c in cols]
        reading.notes.append(f"columns {examples(cols)} read as labels {examples(found)}")
        return cols, found
    in_scale = set() if scale is None else set(scale.labels)
    cols = [
        c
        for c in rest
        if _label_from_column(c) in in_scale
        or not (str(c).lower() in META_COLUMNS | set(ID_COLUMNS) or _is_text(df[c]))
    ]
    return cols, [_label_from_column(c) for c in cols]


def _first_label(scale: Scale | None) -> str:
    return "" if scale is None else f", label {py(scale.labels[0])!r}"


def _read_wide(
    df: pd.DataFrame,
    reading: _Reading,
    item: str | None,
    labels: Sequence[Any] | None,
    *,
    scale: Scale | None,
    normalize: bool,
    strip: bool,
) -> Predictions:
    item_col = _item_column(df, reading, item)
    if strip:  # the label column names
        names = [c if c == item_col or not isinstance(c, str) else c.strip() for c in df.columns]
        repeated = first_repeat(names)
        if repeated is not None:
            name, first, second = repeated
            msg = f"'{reading.path}' line 1: columns {df.columns[first - 1]!r} and {df.columns[second - 1]!r} are the same label {name!r} once whitespace is stripped; rename one."
            raise DataError(msg)
        df = df.set_axis(names, axis=1)
    rest = [c for c in df.columns if c != item_col and not (item is not None and c == item)]
    cols, found = _label_columns(df, reading, rest, labels, scale)
    ignored = [c for c in rest if c not in cols]
    if item_col is None and item is None:
        text = [c for c in ignored if _is_text(df[c]) and df[c].is_unique]
        if len(text) == 1:
            item_col = text[0]
            ignored.remove(item_col)
            reading.notes.append(f"item ids read from column {item_col!r}, its only text column")
        else:
            reading.problems.append(
                f"no column named like an item id ({', '.join(ID_COLUMNS[:4])}, ...); name the "
                "column that holds the item ids with item='...' (CLI: --pred-item COLUMN)."
            )
    if ignored:
        reading.notes.append(
            f"column(s) {examples(ignored)} ignored (not label probabilities; to choose the "
            "label columns, pass labels=[...] (CLI: --pred-labels COL,COL))"
        )
    if not cols:
        reading.problems.append(
            "no label probability columns; name them after the labels, p_<label>, or p1..pK, "
            "or give them with labels=[...] (CLI: --pred-labels COL,COL)."
        )
        reading.refuse()
    items = None
    if item_col is not None:
        items = _ids(df[item_col], item_col, df.index, reading)
    values = np.empty((len(df), len(cols)))
    for k, c in enumerate(cols):
        values[:, k], bad = _numbers(df[c])
        if bad.size:
            reading.problems.append(
                f"column {c!r} holds {py(df[c].iloc[bad[0]])!r} at "
                f"{locations(df.index, bad, reading.path)}; probabilities are numbers (pass "
                "na_values=[...] (CLI: --na-values TEXT) if that text means missing)."
            )
            values[bad, k] = 0.0  # reported; not reported again as missing
    return _finish(
        reading,
        values,
        index=df.index,
        items=items,
        labels=found,
        names=[str(c) for c in cols],
        scale=scale,
        normalize=normalize,
    )


def _ids(cells: pd.Series, column: Any, index: pd.Index, reading: _Reading) -> pd.Index | None:
    """Item ids of a wide table; missing or repeated ids are problems."""
    missing = np.flatnonzero(cells.isna().to_numpy())
    if missing.size:
        reading.problems.append(
            f"{missing.size} missing {column!r} values at "
            f"{locations(index, missing, reading.path)}; every prediction needs its item id."
        )
        return None
    repeated = np.flatnonzero(cells.duplicated(keep=False).to_numpy())
    if repeated.size:
        reading.problems.append(
            f"item ids repeat ({examples(list(pd.unique(cells.iloc[repeated])))}) at "
            f"{locations(index, repeated, reading.path)}; give one row per item."
        )
        return None
    ids: pd.Index = pd.Index(cells.to_numpy(), name="item")
    return ids


def _read_long(
    df: pd.DataFrame,
    reading: _Reading,
    item: str | None,
    label: Any,
    prob: Any,
    *,
    scale: Scale | None,
    normalize: bool,
) -> Predictions:
    item_col = _item_column(df, reading, item)
    if item_col is None and item is None:
        reading.problems.append(
            "long predictions need an item column (one row per item and label); name it with "
            "item='...' (CLI: --pred-item COLUMN)."
        )
    for role, col, flag in (("label", label, "--pred-label"), ("probability", prob, "--pred-prob")):
        if col is None or col not in df.columns:
            reading.problems.append(
                f"no {role} column{'' if col is None else f' {col!r}'}; name it with "
                f"{'prob' if role == 'probability' else role}='...' (CLI: {flag} COLUMN)."
            )
    reading.refuse()
    where = reading.path
    for column in (item_col, label):
        missing = np.flatnonzero(df[column].isna().to_numpy())
        if missing.size:
            needs = "item id" if column == item_col else "label"
            reading.problems.append(
                f"{missing.size} missing {column!r} values at "
                f"{locations(df.index, missing, where)}; every prediction needs its {needs}."
            )
    probs, text = _numbers(df[prob])
    if text.size:
        reading.problems.append(
            f"column {prob!r} holds {py(df[prob].iloc[text[0]])!r} at "
            f"{locations(df.index, text, where)}; probabilities are numbers (pass "
            "na_values=[...] (CLI: --na-values TEXT) if that text means missing)."
        )
        probs[text] = 0.0
    reading.refuse()  # the pairs below need every id and label
    dup = np.flatnonzero(df.duplicated([item_col, label], keep=False).to_numpy())
    if dup.size:
        reading.problems.append(
            f"{dup.size} rows repeat an (item, label) pair, at {locations(df.index, dup, where)}; "
            "give each pair once."
        )
        reading.refuse()
    rows, item_ids = pd.factorize(df[item_col])
    cols, found = pd.factorize(df[label])
    values = np.full((len(item_ids), len(found)), np.nan)
    values[rows, cols] = probs
    # a row of the matrix is an item: named by its first line and its id
    starts = df.index.to_numpy()[np.unique(rows, return_index=True)[1]]
    first_line = pd.Index(
        [f"{line} (item {py(i)!r})" for line, i in zip(starts, item_ids, strict=True)], name="line"
    )
    lacking = np.argwhere(np.isnan(values))
    if lacking.size:
        r, c = lacking[0]
        reading.problems.append(
            f"{len(lacking)} (item, label) pairs are absent, e.g. item {py(item_ids[r])!r} "
            f"label {py(found[c])!r}; give every pair, with 0 where the probability is 0."
        )
        values[np.isnan(values)] = 0.0
    labels = [py(v) for v in found]
    items = pd.Index(item_ids, name="item")
    return _finish(
        reading,
        values,
        index=first_line,
        items=items,
        labels=labels,
        names=[str(v) for v in labels],
        scale=scale,
        normalize=normalize,
    )


# -- Hugging Face pipeline outputs ---------------------------------------------------------


def _scores(value: Any) -> bool:
    """Whether ``value`` is a pipeline output: a list of {"label", "score"} (or one such list in a list)."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        value = value[0]
    return (
        isinstance(value, list)
        and len(value) > 0
        and all(isinstance(d, dict) and "label" in d and "score" in d for d in value)
    )


def _is_pipeline_output(path: Path) -> bool:
    """Whether the first record of a JSONL file is a pipeline output (bare or in an object)."""
    if not path.is_file():
        return False  # a pipe is read once, by the table reader
    with open(path, encoding="utf-8", errors="replace") as fh:
        head = next((line for line in fh if line.strip()), "")
    try:
        record = parse_json(head, path, 1)
    except DataError:
        return False
    values = record.values() if isinstance(record, dict) else [record]
    return any(_scores(v) for v in values)


def _read_pipeline(
    path: Path, reading: _Reading, *, item: str | None, scale: Scale | None, normalize: bool
) -> Predictions:
    """JSON Lines of ``pipeline(..., top_k=None)`` outputs, one item per line."""
    raw = text_input(path, "JSON Lines", "one pipeline output per line")
    lines: list[int] = []
    ids: list[Any] = []
    pairs: list[tuple[int, Any, Any]] = []  # (row, label, score)
    bad: list[int] = []
    id_key = item
    for number, text in enumerate(raw.decode("utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        record = parse_json(text, path, number)
        if isinstance(record, dict):
            id_key = id_key if id_key is not None else id_column(list(record), reading.item_like)
            output = next((v for v in record.values() if _scores(v)), None)
            ids.append(record.get(id_key) if id_key is not None else None)
        else:
            output = record if _scores(record) else None
            ids.append(None)
        if output is None:
            bad.append(number)
            output = []
        elif len(output) == 1 and isinstance(output[0], list):
            output = output[0]
        pairs.extend((len(lines), d["label"], d["score"]) for d in output)
        lines.append(number)
    index = pd.Index(lines, name="line")
    if bad:
        reading.problems.append(
            f'{len(bad)} lines hold no list of {{"label", "score"}} (lines '
            f"{', '.join(map(str, bad[:_LIMIT]))}{' …' if len(bad) > _LIMIT else ''}); run the "
            "pipeline with top_k=None and write one output per line."
        )
    row, names, scores = (list(t) for t in zip(*pairs, strict=True)) if pairs else ([], [], [])
    cols, found = pd.factorize(pd.Series(names, dtype=object))
    values = np.full((len(lines), len(found)), np.nan)
    numbers = pd.to_numeric(pd.Series(scores, dtype=object), errors="coerce").to_numpy(float)
    values[np.asarray(row, dtype=np.intp), cols] = numbers
    found_labels = [py(v) for v in found]
    numbered = [_HF_LABEL.match(v) if isinstance(v, str) else None for v in found_labels]
    labels: list[Any] | None = found_labels
    if found_labels and all(numbered):
        order = np.argsort([int(m[1]) for m in numbered if m])
        values, found_labels = values[:, order], [found_labels[i] for i in order]
        labels = None
        reading.notes.append(
            f"labels {found_labels[0]}..{found_labels[-1]} read as the {len(found_labels)} "
            f"labels in scale order ({found_labels[0]} = the first{_first_label(scale)})"
        )
    items = None
    present = [v is not None for v in ids]
    if id_key is not None and any(present):
        items = _ids(_json_ids(ids), id_key, index, reading)
    else:
        reading.notes.append("no item ids: line i holds the i-th annotated item")
    absent = np.isnan(values)
    if absent.any() and not bad:
        r, c = np.argwhere(absent)[0]
        reading.problems.append(
            f"{int(absent.any(axis=1).sum())} lines lack a label's score, e.g. line {lines[r]} "
            f"label {found_labels[c]!r}; run the pipeline with top_k=None (every label's score)."
        )
    values[absent] = 0.0
    return _finish(
        reading,
        values,
        index=index,
        items=items,
        labels=labels,
        names=list(map(str, found_labels)),
        scale=scale,
        normalize=normalize,
    )


def _json_ids(values: list[Any]) -> pd.Series:
    """Ids from JSON values: integers stay integers, text stays text, a missing id is NaN."""
    return pd.Series([np.nan if v is None else v for v in values], dtype=object)


# -- NumPy arrays ----------------------------------------------------------------------------


def _read_npy(
    path: Path, ids: PathLike | None, reading: _Reading, *, scale: Scale | None, normalize: bool
) -> Predictions:
    """An (N, K) ``.npy`` array; item ids one per line in ``ids`` or ``FILE.ids.txt``."""
    try:
        arr = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        msg = f"'{path}' is not a NumPy .npy array of numbers ({exc}); save it with np.save(path, probs)."
        raise DataError(msg) from None
    if arr.ndim != 2 or arr.dtype.kind not in "fiu":
        msg = f"'{path}' holds a {arr.ndim}-dimensional {arr.dtype} array; predictions are an (N items, K labels) array of numbers."
        raise DataError(msg)
    index = pd.Index(np.arange(1, arr.shape[0] + 1), name="row")
    id_path = Path(ids) if ids is not None else path.with_suffix(".ids.txt")
    items = None
    if not id_path.is_file():
        reading.problems.append(
            f"no item ids: '{id_path}' does not exist; write the ids one per line there, or "
            "name the file with ids='FILE' (CLI: --pred-ids FILE)."
        )
    else:
        text = text_input(id_path, "text", "item ids, one per line").decode("utf-8")
        cells = pd.Series(text.splitlines(), dtype=object).str.strip()
        cells = cells.mask(cells == "")
        if len(cells) != arr.shape[0]:
            reading.problems.append(
                f"'{id_path}' has {len(cells)} lines but the array has {arr.shape[0]} rows; "
                "give one id per row, in the order of the rows."
            )
        else:
            items = _ids(exact_ids(cells), "id", index, reading)
    reading.notes.append(f"the array's {arr.shape[1]} columns read as the labels in scale order")
    names = [f"column {k}" for k in range(arr.shape[1])]
    return _finish(
        reading,
        arr.astype(np.float64),
        index=index,
        items=items,
        labels=None,
        names=names,
        scale=scale,
        normalize=normalize,
    )


# -- checks common to every layout ---------------------------------------------------------


def rounding_tolerance(values: npt.NDArray[np.float64]) -> tuple[float, int | None]:
    """(tolerance of a row sum, decimals): ``max(1e-6, K * 0.5 * 10**-d)``, d the file's decimals.

    ``d`` is the fewest decimals that write every value exactly, at least 2 (so
    that one-hot rows, written with none, are not allowed to miss 1 by K/2),
    None beyond :data:`MAX_DECIMALS` (full precision: tolerance 1e-6).

    Examples
    --------
    >>> rounding_tolerance(np.array([[0.1235, 0.8766]]))
    (0.0001, 4)
    """
    finite = values[np.isfinite(values)]
    for d in range(MIN_DECIMALS, MAX_DECIMALS + 1):
        scaled = finite * 10.0**d
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-6):  # float error of a written decimal
            return max(PROB_ATOL, values.shape[1] * 0.5 * 10.0**-d), d
    return PROB_ATOL, None


def _finish(
    reading: _Reading,
    values: npt.NDArray[np.float64],
    *,
    index: pd.Index,
    items: pd.Index | None,
    labels: list[Any] | None,
    names: list[str],
    scale: Scale | None,
    normalize: bool,
) -> Predictions:
    """Check labels against ``scale``, then cells, then row sums; one error for every problem."""
    where = reading.path
    sc = scale
    sums = True  # whether the row sums mean anything: not while a label lacks its column
    if labels is not None:
        if scale is not None:
            unknown = [v for v in labels if v not in scale]
            absent = [v for v in scale.labels if v not in labels]
            if unknown or absent:
                reading.problems.insert(
                    0,
                    f"the label columns do not match the annotations' labels {examples(list(scale.labels))}: "
                    f"not labels {examples(unknown) or 'none'}; no column for {examples(absent) or 'none'}. "
                    "Rename the columns, or give the label columns with labels=[...] "
                    "(CLI: --pred-labels COL,COL)."
                    + (
                        " They differ only by surrounding whitespace: pass strip_labels=True "
                        "(CLI: --strip-labels)."
                        if _strip_all(labels) == _strip_all(scale.labels)
                        else ""
                    )
                    + (_SUMS_LATER if absent else ""),
                )
            sums = not absent
            if sums:  # the columns of the scale's labels, in its order (extra ones are listed)
                order = [labels.index(v) for v in scale.labels]
                values, names = values[:, order], [names[k] for k in order]
        else:
            try:
                sc = Scale(tuple(labels))
            except DataError as exc:
                reading.problems.insert(
                    0,
                    f"{exc} Give the label columns with labels=[...] (CLI: --pred-labels COL,COL).",
                )
    elif scale is not None and values.shape[1] != scale.K:
        reading.problems.insert(
            0,
            f"{values.shape[1]} numbered label columns but the annotations have {scale.K} labels "
            f"{examples(list(scale.labels))}; give one column per label, in scale order."
            + _SUMS_LATER,
        )
        sums = False
    for k, name in enumerate(names):
        missing = np.flatnonzero(np.isnan(values[:, k]))
        if missing.size:
            reading.problems.append(
                f"{missing.size} missing probabilities in column {name!r} at "
                f"{locations(index, missing, where)}; give every probability (0 where the model "
                "gives the label none)."
            )
        negative = np.flatnonzero(values[:, k] < 0)
        if negative.size:
            reading.problems.append(
                f"{negative.size} negative probabilities in column {name!r} at "
                f"{locations(index, negative, where)}; probabilities are >= 0."
            )
    if sums:
        values = _checked_sums(reading, values, index, normalize)
    reading.refuse()
    for note in reading.notes:
        warnings.warn(f"{where}: {note}.", DissensusWarning, stacklevel=4)
    pred = Predictions.from_array(values, items=items, scale=sc)
    return Predictions(pred.values, pred.items, pred.scale, tuple(reading.notes))


def _checked_sums(
    reading: _Reading, values: npt.NDArray[np.float64], index: pd.Index, normalize: bool
) -> npt.NDArray[np.float64]:
    """Rows rescaled to sum 1 (within rounding, or all with ``normalize``); others are problems."""
    usable = np.isfinite(values).all(axis=1) & (values >= 0).all(axis=1)
    sums = values.sum(axis=1)
    off = usable & (np.abs(sums - 1.0) > PROB_ATOL)
    if not off.any():
        return values
    zero = np.flatnonzero(usable & (sums <= 0))
    if zero.size:
        reading.problems.append(
            f"{zero.size} rows sum to 0 at {locations(index, zero, reading.path)}; a distribution "
            "needs a positive total."
        )
        return values
    worst = float(np.max(np.abs(sums[off] - 1.0)))
    if normalize:
        reading.notes.append(
            f"normalize=True rescaled {int(off.sum()):,} of {len(values):,} rows to sum to 1 "
            f"(sums {float(sums[off].min()):.6g} to {float(sums[off].max()):.6g}; |sum - 1| up to {worst:.3g})"
        )
        return values / np.where(off, sums, 1.0)[:, None]
    tol, decimals = rounding_tolerance(values)
    beyond = np.flatnonzero(usable & (np.abs(sums - 1.0) > tol))
    if beyond.size:
        shown = ", ".join(
            f"{locations(index, np.array([r]), reading.path)} sums to {sums[r]:.6g}"
            for r in beyond[:_LIMIT]
        )
        rounding = f"{decimals} decimals, ±{tol:g}" if decimals is not None else f"±{tol:g}"
        reading.problems.append(
            f"{beyond.size} of {len(values):,} rows do not sum to 1 within rounding ({rounding}): "
            f"{shown}{' …' if beyond.size > _LIMIT else ''}; pass normalize=True "
            "(CLI: --normalize) to rescale them."
        )
        return values
    reading.notes.append(
        f"{int(off.sum()):,} rows summing to 1 only within the rounding of {decimals} decimals "
        f"(|sum - 1| up to {worst:.3g} <= {tol:g}) were rescaled to sum to 1"
    )
    return values / np.where(off, sums, 1.0)[:, None]
