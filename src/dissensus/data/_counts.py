"""LabelCounts: the N × K matrix of how many annotators chose each label."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import as_count_matrix, computed, examples
from dissensus.data._scale import Scale, encode_labels
from dissensus.data._wide import check_columns, encode_wide, numeric_wide

__all__ = ["LabelCounts", "Matrix", "as_items"]


def as_items(items: Sequence[Any] | pd.Index | None, n: int, what: str) -> pd.Index:
    if items is None:
        return pd.RangeIndex(n, name="item")
    index: pd.Index = pd.Index(items)
    if len(index) != n:
        msg = f"`items` has {len(index)} ids but {what} has {n} rows; give one id per row."
        raise DataError(msg)
    if index.has_duplicates:
        dup = index[index.duplicated()].unique()
        msg = f"`items` must be unique; repeated ids: {examples(dup)}."
        raise DataError(msg)
    if index.name is None:
        index = pd.Index(index, name="item")
    return index


def _as_scale(scale: Scale | Sequence[Any] | None, K: int) -> Scale:
    if not isinstance(scale, Scale):
        scale = Scale.nominal(range(K) if scale is None else scale)
    if scale.K != K:
        msg = f"The scale has {scale.K} labels {examples(list(scale.labels))} but the data has {K} columns."
        raise DataError(msg)
    return scale


class Matrix:
    """The (N items, K labels) shape of :class:`LabelCounts` and ``Predictions``."""

    values: npt.NDArray[Any]

    @property
    def N(self) -> int:
        """Number of items."""
        return int(self.values.shape[0])

    @property
    def K(self) -> int:
        """Number of labels."""
        return int(self.values.shape[1])


@dataclass(frozen=True, eq=False)
class LabelCounts(Matrix):
    """Label counts per item: an N × K ``int64`` matrix with item ids and a scale.

    Build it with :meth:`from_array`, :meth:`Annotations.counts` or a reader.

    Attributes
    ----------
    values : ndarray of int64, shape (N, K)
        ``values[i, k]`` annotators gave item ``i`` label ``scale.labels[k]``.
    items : pandas.Index
        Item ids, one per row.
    scale : Scale
        The labels of the columns.
    meta : pandas.DataFrame or None
        Item-level columns (e.g. a year or a subset), indexed like ``items``,
        used by ``by=`` grouping.

    Examples
    --------
    >>> c = LabelCounts.from_array([[3, 1], [0, 4]], scale=Scale.nominal(["POS", "NEG"]))
    >>> c.n.tolist(), c.N, c.K
    ([4, 4], 2, 2)
    """

    values: npt.NDArray[np.int64]
    items: pd.Index
    scale: Scale
    meta: pd.DataFrame | None = None

    @classmethod
    def from_array(
        cls,
        values: npt.ArrayLike,
        *,
        scale: Scale | Sequence[Any] | None = None,
        items: Sequence[Any] | pd.Index | None = None,
        meta: pd.DataFrame | None = None,
    ) -> LabelCounts:
        """Validate an (N, K) count matrix.

        Parameters
        ----------
        values : array_like, shape (N, K)
            Non-negative whole numbers (integral floats such as ``2.0`` are
            accepted).
        scale : Scale or sequence of labels, optional
            Column labels; a plain sequence makes a nominal scale. Default:
            nominal labels ``0 … K-1``.
        items : sequence, optional
            Item ids, unique, one per row. Default ``0 … N-1``.
        meta : DataFrame, optional
            Item-level columns, one row per item in the order of ``values``.

        Raises
        ------
        DataError
            For NaN, negative or fractional counts, or ids / labels not matching the shape.
        """
        raw = np.asarray(values)
        if raw.ndim == 2:
            index = as_items(items, raw.shape[0], "`values`")
            arr = as_count_matrix(raw, "values", items=index)
        else:
            arr = as_count_matrix(raw, "values")
            index = as_items(items, arr.shape[0], "`values`")
        sc = _as_scale(scale, arr.shape[1])
        if meta is not None:
            if len(meta) != len(index):
                msg = f"`meta` has {len(meta)} rows but there are {len(index)} items."
                raise DataError(msg)
            meta = meta.set_axis(index)
        return cls(arr, index, sc, meta)

    @classmethod
    def from_wide(
        cls,
        wide: pd.DataFrame | npt.ArrayLike,
        *,
        scale: Scale | Sequence[Any] | None = None,
        ordered: bool | None = None,
    ) -> LabelCounts:
        """Count the labels of a wide table: one row per item, one column per annotator.

        The shortest route from a rater table to agreement when annotator
        identities are not needed. Numbers (NaN = not labelled) are counted
        directly; other labels are checked as :meth:`Annotations.from_frame` does.

        Parameters
        ----------
        wide : DataFrame, dask.dataframe.DataFrame or array_like of shape (N, M)
            Every column is an annotator; a DataFrame's index holds the item
            ids (``df.set_index("item")`` first), an array's are ``0 … N-1``.
        scale, ordered
            See :mod:`dissensus.data`.

        Returns
        -------
        LabelCounts
            One row per row of ``wide``, in order; an item nobody labelled
            keeps a row of zeros.

        Raises
        ------
        DataError
            For labels not on ``scale``, infinite values, repeated item ids,
            or a table without any label.

        Examples
        --------
        >>> ratings = np.array([[1, 1, 2], [2, 2, np.nan], [1, np.nan, np.nan]])
        >>> c = LabelCounts.from_wide(ratings)
        >>> c.values.tolist(), c.scale
        ([[2, 1], [0, 2], [1, 0]], Scale.ordinal([1, 2]))
        """
        block: pd.DataFrame | npt.NDArray[Any]
        wide = computed(wide)
        if isinstance(wide, pd.DataFrame):
            block = wide
            # the checks of Annotations.from_wide, before the numeric/general split
            check_columns(list(wide.columns), "")
            missing = np.flatnonzero(pd.isna(wide.index))
            if missing.size:
                msg = f"Missing item ids in the index of `wide` at row positions {examples(missing.tolist())}; every row is an item and needs an id."
                raise DataError(msg)
            index = as_items(wide.index, len(wide), "`wide`")
        else:
            block = np.asarray(wide)
            if block.ndim != 2:
                msg = (
                    f"`wide` must be a 2-D (N items, M annotators) table; got shape {block.shape}."
                )
                raise DataError(msg)
            index = as_items(None, block.shape[0], "`wide`")
        VT = numeric_wide(block)
        if VT is None:  # labels of any kind
            cells = block.to_numpy() if isinstance(block, pd.DataFrame) else block
            r, c = np.nonzero(pd.notna(cells))
            labels = pd.Series(cells[r, c], index=index[r], dtype=object)
            sc, codes = encode_labels(labels, scale, ordered, source=None, column="label")
            flat = np.bincount(r * sc.K + codes, minlength=len(index) * sc.K)
            return cls(flat.reshape(len(index), sc.K).astype(np.int64), index, sc)
        wc = encode_wide(VT, scale, ordered=ordered)
        columns = list(block.columns) if isinstance(block, pd.DataFrame) else list(range(len(VT)))
        wc.check_on_scale(VT, columns, "", lambda rows: f"rows {examples(index[rows])}")
        return cls(wc.counts_t().T, index, wc.scale)

    # -- shape ------------------------------------------------------------
    @property
    def n(self) -> npt.NDArray[np.int64]:
        """Annotations per item, shape (N,)."""
        return np.asarray(self.values.sum(axis=1), dtype=np.int64)

    def __len__(self) -> int:
        return self.N

    def __repr__(self) -> str:
        n = self.n
        span = f"{n.min()}–{n.max()}" if self.N else "none"
        return f"<LabelCounts: {self.N} items × {self.K} labels {self.scale!r}, annotations per item {span}>"

    # -- conversions ------------------------------------------------------
    def proportions(self) -> npt.NDArray[np.float64]:
        """Empirical label distribution per item (rows with no annotations are NaN)."""
        n = self.n.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.values / n[:, None]

    def to_frame(self) -> pd.DataFrame:
        """Wide DataFrame: one row per item, one column per label, plus ``n``."""
        df = pd.DataFrame(
            self.values, index=self.items, columns=pd.Index(self.scale.labels, name="label")
        )
        df["n"] = self.n
        return df

    def take(self, rows: npt.ArrayLike) -> LabelCounts:
        """The items at positions (or boolean mask) ``rows``, in that order."""
        idx = np.asarray(rows)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        meta = None if self.meta is None else self.meta.iloc[idx]
        return LabelCounts(self.values[idx], self.items[idx], self.scale, meta)

    def groups(self, by: str) -> pd.Series:
        """The item-level column ``by`` (from ``meta``), indexed by item."""
        if self.meta is None or by not in self.meta.columns:
            have = [] if self.meta is None else list(self.meta.columns)
            msg = f"No item-level column {by!r} to group by (have: {have or 'none'}). Keep it when loading, e.g. Annotations.from_frame(df, meta=[...])."
            raise DataError(msg)
        return self.meta[by]
