"""Shared helpers of the Dask engine: reading, encoding and counting one partition."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import (
    ID_FIX,
    check_numeric_text,
    check_text_values,
    examples,
    has_defect,
    require_extra,
    spelling_keys,
)
from dissensus.data import Scale, choose_columns, detect_columns

FloatArray = npt.NDArray[np.float64]


def dask_modules() -> tuple[Any, Any]:
    """``(dask, dask.dataframe)``, imported on first use (Dask is an optional extra)."""
    require_extra("distributed", ["dask"], "dissensus.distributed")
    import dask  # noqa: PLC0415 - optional extra, imported on use
    import dask.dataframe as dd  # noqa: PLC0415

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


def read_frame(
    data: Any,
    columns: list[str],
    npartitions: int | None,
    *,
    ids: Sequence[str] = (),
    text: Sequence[str] = (),
    optional: Sequence[str] = (),
) -> Any:
    """A Dask frame of ``columns`` (and of those of ``optional`` it has) from a path or a data frame.

    The path is a Parquet file or directory, or CSV/TSV. CSV cells are read as
    the in-memory reader reads them: only an empty cell is missing (``NA`` is
    text), ``ids`` and ``text`` columns as text; ids then become integers only
    when every one is a canonical integer (see :func:`exact_ids`: ``007`` and
    ``7`` stay two items), labels (``text``) numbers only when every one reads
    as a number (see :func:`labels_and_scale`).
    """
    dd = dask_modules()[1]
    csv = False
    if isinstance(data, pd.DataFrame):
        ddf = dd.from_pandas(data, npartitions=npartitions or 1)
    elif isinstance(data, dd.DataFrame):
        ddf = data
    elif str(data).lower().endswith((".csv", ".tsv")):
        sep = "\t" if str(data).lower().endswith(".tsv") else ","
        ddf = dd.read_csv(
            data, sep=sep, dtype=dict.fromkeys((*ids, *text), str),
            keep_default_na=False, na_values=[""],
        )  # fmt: skip
        csv = True
    else:
        ddf = dd.read_parquet(data)
    missing = [c for c in columns if c not in ddf.columns]
    if missing:
        msg = (
            f"The annotations have no column {examples(missing)} (columns: "
            f"{examples(list(ddf.columns))}); name them with item=/annotator=/label=."
        )
        raise DataError(msg)
    columns = [*columns, *(c for c in optional if c in ddf.columns and c not in columns)]
    ddf = ddf[columns]
    return exact_ids(ddf, [c for c in ids if c in columns]) if csv else ddf


def _canonical_ints(ids: pd.Series) -> bool:
    """Whether every id of one partition is present and written as its integer ("7", not "007", "+7", "7.0")."""
    if ids.isna().any():
        return False
    if not ids.str.fullmatch(r"0|-?[1-9][0-9]*").all():
        return False
    try:
        ids.astype(np.int64)
    except (OverflowError, ValueError):  # beyond int64
        return False
    return True


def exact_ids(ddf: Any, columns: Sequence[str]) -> Any:
    """Id columns read as text, as integers only when every id of the column (all partitions) is one.

    The rule of the in-memory reader (``dissensus.data`` reads "7" as 7, and a
    column with ``007``, ``+7``, ``7.0``, an integer beyond int64 or a missing
    cell as text), decided once over the whole column: partitions deciding
    alone would turn "7" into 7 in one and keep "7" in another, splitting item 7.
    """
    if not columns:
        return ddf
    flags = compute(
        *(
            ddf[c].map_partitions(lambda s: pd.Series([_canonical_ints(s)]), meta=(c, bool)).all()
            for c in columns
        )
    )
    whole = dict(zip(columns, map(bool, flags), strict=True))
    for c in columns:
        if whole[c]:
            ddf[c] = ddf[c].astype(np.int64)
    return ddf


def _as_numbers(labels: pd.Series) -> pd.Series:
    """Text labels as numbers where they read as finite ones, value by value (else kept as text)."""
    if not (pd.api.types.is_string_dtype(labels.dtype) or labels.dtype == object):
        return labels
    numbers = pd.to_numeric(labels, errors="coerce")
    readable = numbers.notna() & np.isfinite(numbers.to_numpy(dtype=np.float64, na_value=np.nan))
    if readable.all():
        return numbers
    return labels.astype(object).where(~readable, numbers.astype(object))


def _rows_of(ddf: Any, column: str, item: str) -> Callable[[Any], str]:
    """``at(value)`` for messages: the items of the first rows holding ``value`` (one pass, on error)."""

    def at(value: Any) -> str:
        col = ddf[column]
        if column == item:
            n = int((col == value).sum().compute())
            return f"{n} row{'s' if n > 1 else ''}"
        found = ddf[item][col == value].head(5, npartitions=-1).tolist()
        shown = examples([py(v) for v in found])
        return f"the rows of item{'s' if len(found) > 1 else ''} {shown}"

    return at


def labels_and_scale(
    ddf: Any, item: str, label: str, scale: Scale | Sequence[Any] | None, where: str
) -> tuple[Any, Scale]:
    """The frame with labels as the in-memory readers take them, and the scale (given or inferred).

    The in-memory checks of label text apply to the distinct labels
    (:func:`~dissensus._validation.check_text_values`, and without a scale
    :func:`~dissensus._validation.check_numeric_text`): the same refusals and
    warnings. Text labels that all read as numbers become numbers (a CSV
    column of 1 … 5 read as text), as the in-memory CSV reader makes them.
    """
    at = _rows_of(ddf, label, item)
    if scale is not None:
        sc = scale if isinstance(scale, Scale) else Scale.nominal(scale)
        if sc.is_numeric:
            ddf = ddf.assign(
                **{label: ddf[label].map_partitions(_as_numbers, meta=(label, object))}
            )
        return ddf, sc
    if isinstance(ddf[label].dtype, pd.CategoricalDtype) and not ddf[label].cat.known:
        ddf = ddf.assign(**{label: ddf[label].cat.as_known()})
    categorical = Scale.of_categorical(ddf[label].dtype)
    if categorical is not None:  # an ordered Categorical's order is the scale's, as in memory
        return ddf, categorical
    distinct = ddf[label].dropna().unique().compute().tolist()
    check_text_values(
        distinct,
        noun="Label",
        where=where,
        at=at,
        fix="Fix the spelling in the data (the Dask engine does not strip labels).",
    )
    check_numeric_text(distinct, where=where, at=at, column=label)
    values = pd.Series(distinct, dtype=object)
    if len(values) and values.map(lambda v: isinstance(v, str)).all():
        numbers = _as_numbers(values)
        if not numbers.map(lambda v: isinstance(v, str)).any():
            ddf = ddf.assign(
                **{label: ddf[label].map_partitions(_as_numbers, meta=(label, object))}
            )
            values = numbers
    return ddf, Scale.infer(values.tolist())


def check_ids(ddf: Any, column: str, noun: str, item: str, where: str) -> None:
    """The in-memory id checks (control characters refused, invisible variants warned) on Dask.

    Only defective ids (control or invisible characters, surrounding
    whitespace, NFD) are collected, then the ids they would be without
    their defect: a handful, whatever the number of items.
    """
    col = ddf[column]
    if not (pd.api.types.is_string_dtype(col.dtype) or col.dtype == object):
        return
    texts = col.dropna().astype(str)
    odd = texts[texts.map_partitions(lambda s: pd.Series(has_defect(s), index=s.index))]
    found = odd.unique().compute().tolist()
    if not found:
        return
    keys = spelling_keys(pd.Series(found, dtype=object), fold_case=False).tolist()
    twins = col[col.isin(keys)].unique().compute().tolist()
    at = _rows_of(ddf, column, item)
    where = f" in column {column!r}{where}"
    check_text_values([*twins, *found], noun=noun, where=where, at=at, fix=ID_FIX, fold_case=False)


def read_annotations(
    data: Any,
    *,
    item: str,
    annotator: str | None,
    label: str,
    scale: Scale | Sequence[Any] | None,
    npartitions: int | None,
) -> tuple[Any, Scale]:
    """Long annotations as a Dask frame with the in-memory readers' checks, and their scale.

    Ids exact (:func:`exact_ids`), id and label text checked
    (:func:`check_ids`, :func:`labels_and_scale`). ``annotator`` is used when
    the data have that column (its default, ``"annotator"``, may be absent).
    A column left at its default name that the data lack is detected as the
    in-memory readers do (:func:`dissensus.data.choose_columns`); the frame
    holds it under the default name.
    """
    where = f" in {data}" if isinstance(data, str | os.PathLike) else ""
    source = str(data) if where else None
    chosen = _chosen_columns(data, {"item": item, "annotator": annotator, "label": label}, source)
    found = {
        chosen[r]: name
        for r, name in (("item", item), ("annotator", annotator), ("label", label))
        if r in chosen
    }
    optional = [chosen["annotator"]] if "annotator" in chosen else []
    ids = [chosen["item"], *optional]
    ddf = read_frame(
        data,
        [chosen["item"], chosen["label"]],
        npartitions,
        ids=ids,
        text=[chosen["label"]],
        optional=optional,
    ).rename(columns=found)
    check_ids(ddf, item, "Item id", item, where)
    if annotator is not None and annotator in ddf.columns:
        check_ids(ddf, annotator, "Annotator id", item, where)
    ddf, sc = labels_and_scale(ddf, item, label, scale, where)
    return ddf, sc


def _chosen_columns(data: Any, given: dict[str, str | None], source: str | None) -> dict[str, Any]:
    """Role -> column of ``data``: given, or detected (see :func:`dissensus.data.choose_columns`).

    Only the header is read (Dask reads the column names lazily). An annotator
    column left at its default name may be absent, as before detection.
    """
    named = {role: column for role, column in given.items() if column is not None}
    if all(column != role for role, column in named.items()):
        return named  # every column named: nothing to detect
    dd = dask_modules()[1]
    if isinstance(data, pd.DataFrame | dd.DataFrame):
        header = list(data.columns)
    elif str(data).lower().endswith((".csv", ".tsv")):
        sep = "\t" if str(data).lower().endswith(".tsv") else ","
        header = list(dd.read_csv(data, sep=sep, dtype=str, keep_default_na=False).columns)
    else:
        header = list(dd.read_parquet(data).columns)
    if named.get("annotator") == "annotator" and "annotator" not in header:
        alone = detect_columns(header, {"annotator": None})
        if alone.how["annotator"] in ("unknown", "elimination"):  # none named like one
            del named["annotator"]  # data without annotator ids, as before detection
    return choose_columns(header, named, source=source)


def repeated_pairs(df: pd.DataFrame, item: str, annotator: str) -> None:
    """Refuse an (item, annotator) pair given twice in one partition shuffled by item.

    The in-memory readers refuse it by default (``duplicates="error"``);
    counting it twice would weigh that annotator double on that item.
    """
    ids = df[[item, annotator]]
    if ids[annotator].isna().any():
        first = int(np.flatnonzero(ids[annotator].isna().to_numpy())[0])
        msg = f"Missing {annotator!r} values, e.g. on item {py(ids[item].iloc[first])!r}; fill them, or drop those rows."
        raise DataError(msg)
    repeated = ids.duplicated(keep=False).to_numpy()
    if repeated.any():
        first = int(np.flatnonzero(repeated)[0])
        msg = (
            f"{int(ids.duplicated().sum())} repeated (item, annotator) pairs, e.g. item "
            f"{py(ids[item].iloc[first])!r} by annotator {py(ids[annotator].iloc[first])!r}; "
            "each annotator labels an item once. Deduplicate the data, or read them in "
            "memory (--engine memory) with --duplicates first, last or keep."
        )
        raise DataError(msg)


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


def encode_partition(
    df: pd.DataFrame, item: str, label: str, scale: Scale, annotator: str | None = None
) -> pd.DataFrame:
    """``item, code`` (and ``annotator``) of one partition: labels as small integers before any shuffle.

    A shuffle moves these (9 bytes a row for int ids) instead of the raw
    labels (object strings), and every check happens where the rows are read.
    The annotator ids travel with them when given, so that a repeated
    (item, annotator) pair is refused once an item's rows meet.
    """
    codes = label_codes(df, item, label, scale).astype(code_dtype(scale.K))
    out = {"item": df[item].to_numpy(), "code": codes}
    if annotator is not None:
        out["annotator"] = df[annotator].to_numpy()
    return pd.DataFrame(out, index=df.index)


def count_partition(df: pd.DataFrame, K: int) -> pd.DataFrame:
    """(N_p, K) counts of the items of one encoded partition (all their annotations are here).

    With an ``annotator`` column, a repeated (item, annotator) pair is refused
    (:func:`repeated_pairs`), as the in-memory readers do.
    """
    if "annotator" in df.columns:
        repeated_pairs(df, "item", "annotator")
    item_codes, uniq = pd.factorize(df["item"])
    flat = np.bincount(
        item_codes * K + df["code"].to_numpy(dtype=np.int64), minlength=uniq.size * K
    )
    index = pd.Index(uniq, name="item")
    return pd.DataFrame(flat.reshape(-1, K).astype(np.int64), index=index, columns=count_columns(K))
