"""Label counts per item: on a Dask cluster (:func:`label_counts`) or streamed (:func:`stream_counts`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import check_option, examples
from dissensus.data import LabelCounts, Scale
from dissensus.distributed._common import (
    code_dtype,
    count_columns,
    count_partition,
    encode_partition,
    read_annotations,
)


@dataclass(frozen=True)
class DistributedCounts:
    """Label counts per item, partitioned by item: the Dask twin of :class:`LabelCounts`.

    Attributes
    ----------
    frame : dask.dataframe.DataFrame
        One row per item (index ``item``), columns ``c0 … c{K-1}`` the counts
        of ``scale.labels``; every item is in exactly one partition.
    scale : Scale
        The labels of the columns.
    """

    frame: Any  # dask.dataframe.DataFrame (untyped)
    scale: Scale

    @property
    def K(self) -> int:
        """Number of labels."""
        return self.scale.K

    def distinct(self) -> Any:
        """Lazy multiplicity of each distinct count row (few, whatever the number of items)."""
        return self.frame.groupby(count_columns(self.K)).size()

    def persist(self) -> DistributedCounts:
        """Keep the counts in the cluster's memory (for several analyses)."""
        return DistributedCounts(self.frame.persist(), self.scale)

    def collect(self) -> LabelCounts:
        """Bring every item to this process as a :class:`LabelCounts` (sorted by item id)."""
        wide = self.frame.compute().sort_index()
        return LabelCounts.from_array(wide.to_numpy(), scale=self.scale, items=wide.index)


def label_counts(
    annotations: Any,
    *,
    scale: Scale | Sequence[Any] | None = None,
    item: str = "item",
    label: str = "label",
    annotator: str | None = "annotator",
    npartitions: int | None = None,
    shuffle: str | None = None,
) -> DistributedCounts:
    """Count labels per item on a Dask cluster, items kept partitioned.

    The in-memory readers' checks apply: ids exact (a CSV's ``007`` and ``7``
    are two items), labels and ids with control characters refused, invisible
    or whitespace variants warned, a stray text label among numbers refused,
    and, when the data have the ``annotator`` column, a repeated
    (item, annotator) pair refused (``annotator=None``: not checked).

    Parameters
    ----------
    shuffle : {"p2p", "tasks"}, optional
        Dask's shuffle method (default: Dask's choice). ``"tasks"`` is
        faster on one machine; ``"p2p"`` holds less in memory when the data
        outgrow the workers.

    Returns
    -------
    DistributedCounts
        Lazy: nothing is computed until a statistic is asked for.
        Missing columns raise here, bad rows when computed.

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"item": [1, 1, 2, 2, 2], "label": ["a", "b", "a", "a", "b"]})
    >>> counts = label_counts(long)
    >>> counts.collect().values.tolist()
    [[1, 1], [2, 1]]
    """
    if shuffle is not None:
        check_option("label_counts", "shuffle", shuffle, ("p2p", "tasks", "disk"))
    ddf, sc = read_annotations(
        annotations, item=item, annotator=annotator, label=label, scale=scale,
        npartitions=npartitions,
    )  # fmt: skip
    who = annotator if annotator is not None and annotator in ddf.columns else None
    item_dtype = ddf._meta[item].dtype
    columns = {"item": pd.Series(dtype=item_dtype), "code": pd.Series(dtype=code_dtype(sc.K))}
    if who is not None:
        columns["annotator"] = pd.Series(dtype=ddf._meta[who].dtype)
    meta = pd.DataFrame(columns)
    encoded = ddf.map_partitions(encode_partition, item, label, sc, who, meta=meta)
    shuffled = encoded.shuffle(
        on="item", npartitions=npartitions or ddf.npartitions, shuffle_method=shuffle
    )
    meta = pd.DataFrame(
        {c: pd.Series(dtype=np.int64) for c in count_columns(sc.K)},
        index=pd.Index([], dtype=item_dtype, name="item"),
    )
    frame = shuffled.map_partitions(count_partition, sc.K, meta=meta)
    return DistributedCounts(frame, sc)


def _compact(parts: list[pd.DataFrame]) -> list[pd.DataFrame]:
    """One row per item of partial counts: a weighted ``bincount``, exact below 2**53 (fast)."""
    if len(parts) <= 1:
        return parts
    index = parts[0].index.append([p.index for p in parts[1:]])
    codes, uniq = pd.factorize(index)
    values = np.concatenate([p.to_numpy(dtype=np.float64) for p in parts])
    K = values.shape[1]
    flat = np.bincount(
        (codes[:, None] * K + np.arange(K)).ravel(), weights=values.ravel(), minlength=uniq.size * K
    )
    merged = pd.DataFrame(
        flat.reshape(-1, K).astype(np.int64),
        index=pd.Index(uniq, name=parts[0].index.name),
        columns=parts[0].columns,
    )
    return [merged]


#: Cells of the dense (items x K) count array of :func:`stream_counts` (640 MB of int64).
_DENSE_CELLS = 80_000_000


def _add_dense(
    dense: npt.NDArray[np.int64], enc: pd.DataFrame, K: int
) -> npt.NDArray[np.int64] | None:
    """Add a batch to counts indexed by the (small non-negative int) item id; None if they do not fit."""
    ids = enc["item"].to_numpy()
    if ids.dtype.kind not in "iu":
        return None
    if ids.size == 0:
        return dense
    lo, hi = int(ids.min()), int(ids.max())
    if lo < 0 or (hi + 1) * K > _DENSE_CELLS:
        return None
    if hi >= dense.shape[0]:
        rows = min(max(hi + 1, 2 * dense.shape[0]), _DENSE_CELLS // K)
        grown = np.zeros((rows, K), dtype=np.int64)
        grown[: dense.shape[0]] = dense
        dense = grown
    flat = ids.astype(np.int64) * K + enc["code"].to_numpy(dtype=np.int64)
    np.add.at(dense.reshape(-1), flat, 1)
    return dense


def _dense_frame(dense: npt.NDArray[np.int64]) -> list[pd.DataFrame]:
    """The rated items of dense counts as a partial-count frame."""
    rows = np.flatnonzero(dense.any(axis=1))
    if rows.size == 0:
        return []
    index = pd.Index(rows, name="item")
    return [pd.DataFrame(dense[rows], index=index, columns=count_columns(dense.shape[1]))]


def stream_counts(
    path: Any,
    *,
    scale: Scale | Sequence[Any],
    item: str = "item",
    label: str = "label",
    batch_size: int = 1_000_000,
) -> LabelCounts:
    """Label counts of a Parquet/CSV dataset larger than memory, read batch by batch.

    One process, no cluster: the annotations are streamed with
    :mod:`pyarrow.dataset` and only the counts (items × K) are kept, so memory
    grows with the number of items, not of annotations.

    Parameters
    ----------
    path : str or path-like
        A Parquet file or directory, or a CSV file (``.csv``).
    scale : Scale or sequence of labels
        The labels (required: a stream cannot be read twice to infer them).
    batch_size : int, default 1_000_000
        Rows per batch.

    Returns
    -------
    LabelCounts
        Sorted by item id; equal to ``Annotations.from_frame(...).counts()``
        of the whole table.

    Examples
    --------
    >>> import pandas as pd, tempfile, os
    >>> tmp = tempfile.mkdtemp()
    >>> pd.DataFrame({"item": [2, 1, 2], "label": ["a", "b", "b"]}).to_csv(
    ...     os.path.join(tmp, "a.csv"), index=False)
    >>> stream_counts(os.path.join(tmp, "a.csv"), scale=["a", "b"], batch_size=2).values.tolist()
    [[0, 1], [1, 1]]
    """
    import pyarrow.dataset as ds  # type: ignore[import-untyped]  # noqa: PLC0415 - optional

    sc = scale if isinstance(scale, Scale) else Scale.nominal(scale)
    fmt = "csv" if str(path).lower().endswith(".csv") else "parquet"
    dataset = ds.dataset(path, format=fmt)
    missing = [c for c in (item, label) if c not in dataset.schema.names]
    if missing:
        msg = f"{path}: no column {examples(missing)} (columns: {examples(dataset.schema.names)})."
        raise DataError(msg)
    parts: list[pd.DataFrame] = []
    merged = held = 0
    dense: npt.NDArray[np.int64] | None = np.zeros((0, sc.K), dtype=np.int64)
    for batch in dataset.to_batches(columns=[item, label], batch_size=batch_size):
        enc = encode_partition(batch.to_pandas(), item, label, sc)
        if dense is not None:
            grown = _add_dense(dense, enc, sc.K)
            if grown is not None:
                dense = grown
                continue
            # ids outside the dense range: from here on, partial counts merged by hash
            parts = _dense_frame(dense)
            held = merged = len(parts[0]) if parts else 0
            dense = None
        part = count_partition(enc, sc.K)
        parts.append(part)
        held += len(part)
        # Compact when the new partial counts outnumber the merged ones (and a batch):
        # amortised constant work per row, and memory under ~2x the final counts.
        if held - merged > max(batch_size, merged):
            parts = _compact(parts)
            held = merged = len(parts[0])
    if dense is not None:
        parts += _dense_frame(dense)
    parts = _compact(parts)
    if not parts:
        return LabelCounts.from_array(np.zeros((0, sc.K), dtype=np.int64), scale=sc)
    wide = parts[0].sort_index()
    return LabelCounts.from_array(wide.to_numpy(), scale=sc, items=wide.index)


def rows_of(distinct: pd.Series, K: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The distinct count rows and their multiplicities of a computed :meth:`DistributedCounts.distinct`."""
    rows = np.array(distinct.index.tolist(), dtype=np.int64).reshape(-1, K)
    return rows, distinct.to_numpy(dtype=np.int64)


def as_counts(data: Any) -> DistributedCounts:
    """``data`` as distributed counts: kept if it is, else :func:`label_counts` of it."""
    return data if isinstance(data, DistributedCounts) else label_counts(data)
