"""Shared helpers of the Dask engine: reading, encoding and counting one partition."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import examples
from dissensus.data import Scale

FloatArray = npt.NDArray[np.float64]


def dask_modules() -> tuple[Any, Any]:
    """``(dask, dask.dataframe)``, imported on first use (Dask is an optional extra)."""
    try:
        import dask  # noqa: PLC0415 - optional extra, imported on use
        import dask.dataframe as dd  # noqa: PLC0415
    except ImportError as err:  # pragma: no cover - depends on the environment
        msg = f"dissensus.distributed needs Dask: pip install 'dissensus[distributed]' ({err})."
        raise ImportError(msg) from err
    return dask, dd


def compute(*args: Any) -> tuple[Any, ...]:
    """Compute several Dask collections (or delayed objects) in one pass."""
    return tuple(dask_modules()[0].compute(*args))


def merge(stats: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Sum per-partition dicts of mergeable statistics key by key (lists concatenate)."""
    total: dict[str, Any] = {}
    for st in stats:
        for k, v in st.items():
            total[k] = v if k not in total else total[k] + v
    return total


def py(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def count_columns(K: int) -> list[str]:
    return [f"c{k}" for k in range(K)]


def read_frame(data: Any, columns: list[str], npartitions: int | None) -> Any:
    """A Dask frame of ``columns`` from a path (Parquet, CSV/TSV) or a data frame."""
    dd = dask_modules()[1]
    if isinstance(data, pd.DataFrame):
        ddf = dd.from_pandas(data, npartitions=npartitions or 1)
    elif isinstance(data, dd.DataFrame):
        ddf = data
    elif str(data).lower().endswith((".csv", ".tsv")):
        sep = "\t" if str(data).lower().endswith(".tsv") else ","
        ddf = dd.read_csv(data, sep=sep, usecols=columns)
    else:
        ddf = dd.read_parquet(data, columns=columns)
    missing = [c for c in columns if c not in ddf.columns]
    if missing:
        msg = (
            f"The annotations have no column {examples(missing)} (columns: "
            f"{examples(list(ddf.columns))}); name them with item=/annotator=/label=."
        )
        raise DataError(msg)
    return ddf[columns]


def scale_of(ddf: Any, label: str, scale: Scale | Sequence[Any] | None) -> Scale:
    if scale is None:
        return Scale.infer(ddf[label].dropna().unique().compute().tolist())
    return scale if isinstance(scale, Scale) else Scale.nominal(scale)


def label_codes(df: pd.DataFrame, item: str, label: str, scale: Scale) -> npt.NDArray[np.int64]:
    """Label codes of one partition; a missing item id or unknown label is a DataError."""
    codes = scale.encode(df[label])
    ids = df[item]
    bad = (codes < 0) | ids.isna().to_numpy()
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        row = {c: py(df[c].iloc[first]) for c in (item, label)}
        msg = (
            f"{int(bad.sum())} annotations have a missing item id or a label not on the scale "
            f"{examples(list(scale.labels))}, e.g. item {row[item]!r} with label {row[label]!r}; "
            "fix or drop these rows, or pass the full scale with scale=."
        )
        raise DataError(msg)
    return np.asarray(codes, dtype=np.int64)


def code_dtype(K: int) -> type[np.signedinteger[Any]]:
    return np.int8 if K < 128 else np.int32


def encode_partition(df: pd.DataFrame, item: str, label: str, scale: Scale) -> pd.DataFrame:
    """``item, code`` of one partition: labels as small integers before any shuffle.

    A shuffle moves these (9 bytes a row for int ids) instead of the raw
    labels (object strings), and every check happens where the rows are read.
    """
    codes = label_codes(df, item, label, scale).astype(code_dtype(scale.K))
    return pd.DataFrame({"item": df[item].to_numpy(), "code": codes}, index=df.index)


def count_partition(df: pd.DataFrame, K: int) -> pd.DataFrame:
    """(N_p, K) counts of the items of one encoded partition (all their annotations are here)."""
    item_codes, uniq = pd.factorize(df["item"])
    flat = np.bincount(
        item_codes * K + df["code"].to_numpy(dtype=np.int64), minlength=uniq.size * K
    )
    index = pd.Index(uniq, name="item")
    return pd.DataFrame(flat.reshape(-1, K).astype(np.int64), index=index, columns=count_columns(K))
