"""Reading ConvAbuse CSVs (the full file and the train / valid / test splits)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import check_option, examples
from dissensus.data._annotations import DUPLICATES, Annotations, Duplicates
from dissensus.data._scale import Scale
from dissensus.data._tables import PathLike, existing_file, read_delimited

__all__ = ["CONVABUSE_SCALE", "read_convabuse"]

#: ConvAbuse severity, most abusive first: −3 (very strongly) … 0 (ambiguous) … 1 (not abusive).
CONVABUSE_SCALE = Scale.ordinal([-3, -2, -1, 0, 1])
#: The one-hot columns' suffixes, in file order.
_LEVELS = (1, 0, -1, -2, -3)
#: What identifies a conversation turn (an item) in the full ConvAbuse file.
_TURN = ("conv_id", "prev_agent", "prev_user", "agent", "user")
_SPLIT_COLUMN = re.compile(r"^Annotator(\d+)_is_abuse\.1$")


def _one_hot_labels(
    block: pd.DataFrame, path: PathLike, lines: pd.Index, what: str
) -> npt.NDArray[np.int64]:
    """ConvAbuse severities from one-hot ``is_abuse.<k>`` cells (text "0"/"1")."""
    values = block.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isin(values, (0.0, 1.0))
    if bad.any():
        r, c = np.argwhere(bad)[0]
        msg = f"'{path}' line {lines[r]}: {what} column {block.columns[c]!r} is {block.iloc[r, c]!r}; one-hot severity cells must be 0 or 1."
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
    out: npt.NDArray[np.int64] = np.asarray(_LEVELS, dtype=np.int64)[values.argmax(axis=1)]
    return out


def _require(df: pd.DataFrame, columns: Sequence[str], path: PathLike, kind: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        msg = f"'{path}' does not look like a ConvAbuse {kind} file: no column(s) {examples(missing)} (columns: {examples(list(df.columns), 10)})."
        raise DataError(msg)


def _numbers(df: pd.DataFrame, column: str, path: PathLike) -> pd.Series:
    """An id column as numbers, refused (with its line) where a cell is not one."""
    ids = pd.to_numeric(df[column], errors="coerce")
    if ids.isna().any():
        r = int(np.flatnonzero(ids.isna().to_numpy())[0])
        msg = f"'{path}' line {df.index[r]}: {column} {df[column].iloc[r]!r} is not a number."
        raise DataError(msg)
    return ids


def _convabuse_full(df: pd.DataFrame, path: PathLike, meta: Sequence[str]) -> pd.DataFrame:
    cols = [f"is_abuse.{k}" for k in _LEVELS]
    _require(df, ["example_no", "annotator_id", *_TURN, *cols, *meta], path, "full")
    labels = _one_hot_labels(df[cols], path, df.index, "the response")
    # A turn is its conversation and its context: conv_id alone is not enough
    # (spreadsheet-mangled ids such as "2.6896E+15" stand for several
    # conversations), and one conversation has many judged turns.
    turn = df.groupby(list(_TURN), sort=False, dropna=False).ngroup().to_numpy()
    first_example = _numbers(df, "example_no", path).groupby(turn).transform("min").to_numpy()
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
    return long


def _convabuse_split(df: pd.DataFrame, path: PathLike, meta: Sequence[str]) -> pd.DataFrame:
    _require(df, ["example_id", *meta], path, "split")
    numbers = sorted(int(m.group(1)) for c in df.columns if (m := _SPLIT_COLUMN.match(c)))
    ids = _numbers(df, "example_id", path)
    item_ids = (ids.astype(np.int64) if (ids % 1 == 0).all() else ids).to_numpy()
    parts: list[pd.DataFrame] = []
    for a in numbers:  # a loop over the (eight) annotators, not over items
        name = f"Annotator{a}"
        cols = [f"{name}_is_abuse.{k}" for k in _LEVELS]
        _require(df, cols, path, "split")
        # A cell lists every response of the annotator to the item ("0, 1"
        # = answered twice): the split files' way of keeping repeats.
        split = df[cols].apply(lambda s: s.str.strip().str.split(r"\s*,\s*", regex=True))
        size = split.apply(lambda s: s.map(lambda v: 0 if v == [""] else len(v))).to_numpy()
        uneven = np.flatnonzero((size != size[:, :1]).any(axis=1))
        if uneven.size:
            r = int(uneven[0])
            msg = f"'{path}' line {df.index[r]}: {name}'s severity cells list different numbers of responses ({', '.join(f'{c}={df[c].iloc[r]!r}' for c in cols)})."
            raise DataError(msg)
        has = size[:, 0] > 0
        if not has.any():
            continue
        rows = np.flatnonzero(has).repeat(size[has, 0])
        lines = df.index[rows]
        labels = _one_hot_labels(split[has].explode(cols), path, lines, f"{name}'s response")
        part = pd.DataFrame(
            {"item": item_ids[rows], "annotator": name, "label": labels, "_row": rows, "_a": a},
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
    return long.drop(columns=["_row", "_a"])


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
        Some annotators labelled the same turn again (to measure
        intra-annotator agreement). ``"first"`` keeps each annotator's first
        response (the earliest row of the full file, the first value listed
        in a split file's cell), reporting the dropped ones with a
        :class:`DataDroppedWarning`; see :mod:`dissensus.data`. The full
        file has 12,768 responses to 4,185 turns, 357 of them repeats; the
        split files hold the same (repeats as multi-valued cells).
    meta : sequence of str
        Item-level columns to keep (constant per item); any of ``conv_id``,
        ``bot``, ``prev_agent``, ``prev_user``, ``agent``, ``user``.

    Raises
    ------
    DataError
        A missing column, a one-hot row with no or several severities marked,
        a non-0/1 cell, or split cells listing different numbers of
        responses; messages name the file and line.

    References
    ----------
    A. Cercas Curry, G. Abercrombie, V. Rieser. "ConvAbuse: Data, Analysis,
    and Benchmarks for Nuanced Abuse Detection in Conversational AI".
    EMNLP 2021, 7388–7403. :doi:`10.18653/v1/2021.emnlp-main.587`

    Examples
    --------
    >>> from dissensus.datasets import example_path  # a made-up sample of the full file
    >>> read_convabuse(example_path("convabuse")).counts().to_frame().head(2)
    label  -3  -2  -1  0  1  n
    item
    0       0   0   0  0  2  2
    2       3   0   0  0  0  3
    """
    p = existing_file(path)
    check_option("read_convabuse", "duplicates", duplicates, DUPLICATES)
    df = read_delimited(p, ",", text=True)
    meta = list(meta)
    if "annotator_id" in df.columns:
        long = _convabuse_full(df, path, meta)
    elif any(_SPLIT_COLUMN.match(c) for c in df.columns):
        long = _convabuse_split(df, path, meta)
    else:
        msg = (
            f"'{path}' is not a ConvAbuse file: expected an annotator_id column and is_abuse.K "
            f"columns (full file) or AnnotatorN_is_abuse.K columns (split files); columns: "
            f"{examples(list(df.columns), 10)}."
        )
        raise DataError(msg)
    return Annotations.from_frame(
        long, scale=CONVABUSE_SCALE, meta=meta, duplicates=duplicates, source=str(path)
    )
