"""Reading model predictions (probability rows per item) from files."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import check_option
from dissensus.data._predictions import Predictions
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
    if not path.is_file():
        msg = f"No such predictions file: {path}"
        raise FileNotFoundError(msg)
    fmt = format or _EXTENSIONS.get(path.suffix.lower())
    if fmt is None:
        msg = f"Cannot tell the format of {path} from its extension; pass format='csv', 'tsv', 'parquet' or 'jsonl'."
        raise DataError(msg)
    check_option("read_predictions", "format", fmt, tuple(sorted(set(_EXTENSIONS.values()))))
    try:
        if fmt == "csv":
            df = pd.read_csv(path)
        elif fmt == "tsv":
            df = pd.read_csv(path, sep="\t")
        elif fmt == "parquet":
            df = pd.read_parquet(path)
        else:
            df = pd.read_json(path, lines=True)
    except (ValueError, pd.errors.ParserError) as exc:
        msg = f"Cannot read predictions from {path}: {exc}"
        raise DataError(msg) from exc
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
