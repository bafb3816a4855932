"""Reading model predictions (probability rows per item) from files."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from dissensus._exceptions import DataError
from dissensus.data._predictions import Predictions
from dissensus.data._scale import Scale
from dissensus.data._tables import (
    TABLE_FORMATS,
    PathLike,
    TableFormat,
    locations,
    open_table,
    read_frame,
)

__all__ = ["read_predictions"]


def read_predictions(
    path: PathLike,
    format: TableFormat | None = None,
    *,
    layout: Literal["wide", "long"] = "wide",
    item: str = "item",
    labels: list[Any] | None = None,
    label: str = "label",
    prob: str = "prob",
    scale: Scale | None = None,
    normalize: bool = False,
    na_values: Sequence[str] = (),
    strip_labels: bool = False,
) -> Predictions:
    r"""Read predicted label distributions from a CSV, TSV, Parquet or JSONL file.

    Parameters
    ----------
    path : str or path-like
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Default: from the file extension.
    layout : {"wide", "long"}
        ``"wide"``: one row per item, an ``item`` column and one column per
        label (column names such as ``"1"`` or ``"-3"`` are read as numbers).
        ``"long"``: one row per (item, label) with a probability column.
    item, labels, label, prob, scale, normalize
        As in :meth:`Predictions.from_frame`.
    na_values : sequence of str
        Cell texts that mean "missing" besides an empty cell. By default an
        item literally named ``NA``, ``None``, ``null`` or ``n/a`` is data,
        as in :func:`~dissensus.read_annotations`. A missing item id or
        probability is an error naming its line either way.
    strip_labels : bool
        Remove whitespace around the labels: the label column names of the
        wide layout (``item, pos, neg`` written with spaces after the
        commas), the label cells of the long layout.

    Returns
    -------
    Predictions

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    DataError
        For an unknown format, missing columns, a missing item id or
        probability, or rows that are not probability distributions (the
        message names the file, and the line where there is one).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "p.csv").write_text("item, pos, neg\nNA,0.25,0.75\nb,0.5,0.5\n")
    >>> pred = read_predictions(d / "p.csv", strip_labels=True)
    >>> list(pred.items), pred.scale.labels
    (['NA', 'b'], ('pos', 'neg'))
    """
    # the annotation readers' table reader: read once, ids exact, errors with their line
    p, fmt = open_table(path, format, TABLE_FORMATS, "read_predictions")
    ids = [item] if item is not None else []
    strip = [label] if strip_labels and layout == "long" else []
    df = read_frame(p, fmt, ids=ids, na_values=tuple(na_values), strip=strip)
    if strip_labels and layout == "wide":
        df = _strip_label_columns(df, path, item)
    _check_cells(df, path, item=item, layout=layout, labels=labels, label=label, prob=prob)
    if layout == "wide" and {label, prob} <= set(df.columns):
        msg = (
            f"{path} has {label!r} and {prob!r} columns: it looks like long predictions (one row "
            "per item and label) read as wide; pass layout='long' (CLI: --pred-layout long)."
        )
        raise DataError(msg)
    try:
        return Predictions.from_frame(
            df,
            item=item,
            labels=labels,
            layout=layout,
            label=label,
            prob=prob,
            scale=scale,
            normalize=normalize,
        )
    except DataError as exc:
        msg = f"{path}: {exc}"
        raise DataError(msg) from exc


def _strip_label_columns(df: pd.DataFrame, path: PathLike, item: str | None) -> pd.DataFrame:
    """Wide predictions: the label column names without surrounding whitespace."""
    names = [c if c == item or not isinstance(c, str) else c.strip() for c in df.columns]
    seen: dict[Any, Any] = {}
    for before, after in zip(df.columns, names, strict=True):
        if after in seen:
            msg = (
                f"'{path}' line 1: columns {seen[after]!r} and {before!r} are the same label "
                f"{after!r} once whitespace is stripped; rename one."
            )
            raise DataError(msg)
        seen[after] = before
    return df.set_axis(names, axis=1)


def _check_cells(
    df: pd.DataFrame,
    path: PathLike,
    *,
    item: str | None,
    layout: str,
    labels: list[Any] | None,
    label: str,
    prob: str,
) -> None:
    """Refuse a missing id, label or probability, and a probability that is not a number, by line."""
    where = str(path)
    if layout == "long":
        probs = [prob] if prob in df.columns else []
        keys = [c for c in (item, label) if c is not None and c in df.columns]
    else:
        chosen = df.columns if labels is None else pd.Index(labels)
        probs = [c for c in chosen if c != item and c in df.columns]
        keys = [item] if item is not None and item in df.columns else []
    for column in keys:
        missing = np.flatnonzero(df[column].isna().to_numpy())
        if missing.size:
            msg = (
                f"'{path}': {missing.size} missing {column!r} values at "
                f"{locations(df.index, missing, where)}; every prediction needs its "
                f"{'item id' if column == item else 'label'}."
            )
            raise DataError(msg)
    for column in probs:
        cells = df[column]
        if pd.api.types.is_numeric_dtype(cells) and not pd.api.types.is_bool_dtype(cells):
            numbers = cells.to_numpy(dtype=np.float64)
        else:
            numbers = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=np.float64)
            text = np.flatnonzero(np.isnan(numbers) & cells.notna().to_numpy())
            if pd.api.types.is_bool_dtype(cells) or text.size:
                at = int(text[0]) if text.size else 0
                msg = (
                    f"'{path}': column {column!r} holds {cells.iloc[at]!r} at "
                    f"{locations(df.index, np.array([at]), where)}; probabilities are numbers "
                    "(pass na_values=[...] (CLI: --na-values) if that text means missing)."
                )
                raise DataError(msg)
        missing = np.flatnonzero(np.isnan(numbers))
        if missing.size:
            msg = (
                f"'{path}': {missing.size} missing probabilities in column {column!r} at "
                f"{locations(df.index, missing, where)}; give every probability (0 where "
                "the model gives the label none)."
            )
            raise DataError(msg)
