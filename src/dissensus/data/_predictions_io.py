"""Reading model predictions (probability rows per item) from files."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from dissensus._exceptions import DataError
from dissensus._validation import check_option
from dissensus.data._predictions import Predictions
from dissensus.data._readers import _read_table
from dissensus.data._scale import Scale

__all__ = ["read_predictions"]

_EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
}


def read_predictions(
    path: str | Path,
    format: Literal["csv", "tsv", "parquet", "jsonl"] | None = None,
    *,
    layout: Literal["wide", "long"] = "wide",
    item: str = "item",
    labels: list[Any] | None = None,
    label: str = "label",
    prob: str = "prob",
    scale: Scale | None = None,
    normalize: bool = False,
) -> Predictions:
    """Read predicted label distributions from a CSV, TSV, Parquet or JSONL file.

    Parameters
    ----------
    path : str or Path
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Default: from the file extension.
    layout : {"wide", "long"}
        ``"wide"``: one row per item, an ``item`` column and one column per
        label (column names such as ``"1"`` or ``"-3"`` are read as numbers).
        ``"long"``: one row per (item, label) with a probability column.
    item, labels, label, prob, scale, normalize
        As in :meth:`Predictions.from_frame`.

    Returns
    -------
    Predictions

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    DataError
        For an unknown format, missing columns or rows that are not
        probability distributions (the message names the file).
    """
    path = Path(path)
    if not path.exists() or path.is_dir():  # a FIFO or /dev/stdin is not a regular file
        msg = f"No such predictions file: {path}"
        raise FileNotFoundError(msg)
    fmt = format or _EXTENSIONS.get(path.suffix.lower())
    if fmt is None:
        msg = f"Cannot tell the format of {path} from its extension; pass format='csv', 'tsv', 'parquet' or 'jsonl'."
        raise DataError(msg)
    check_option("read_predictions", "format", fmt, tuple(sorted(set(_EXTENSIONS.values()))))
    # The annotation readers' table reader: the file is read once, ids exactly
    # ("007" stays "007", 19-digit ids stay exact), errors with their line.
    df = _read_table(path, fmt, None, ids=[item] if item is not None else [])
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
