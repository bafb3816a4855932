"""LabelCounts, the N × K matrix of how many annotators chose each label, and wide tables of numbers.

A wide table of numbers (items × annotators, NaN = not labelled) skips the
long-table machinery: its values are read once as an annotator-major
``(M, N)`` float64 array ``VT`` and coded by a lookup table (integral labels
spanning at most :data:`_MAX_SPAN` values) or :func:`numpy.searchsorted` on
the sorted scale (see :class:`WideCodes` for the codes).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import as_array, as_count_matrix, computed, describe_row, examples
from dissensus.data._scale import Scale, encode_labels, given_scale
from dissensus.data._tables import first_repeat

#: Largest number of annotations of one item: beyond 2**53 neither the int64 sums (which
#: wrap past 2**63) nor the float64 posteriors built on them are exact.
MAX_ITEM_TOTAL = 2**53
#: Most distinct labels of one scale: more is almost always an id column read as labels.
MAX_LABELS = 10_000
#: Largest (N, K) int64 count table built in memory (8 GiB).
MAX_COUNT_BYTES = 8 * 2**30


def check_count_table(n_items: int, n_labels: int) -> None:
    """Refuse an ``(n_items, n_labels)`` int64 count table before allocating it.

    Refused beyond :data:`MAX_LABELS` labels or :data:`MAX_COUNT_BYTES` bytes
    (``N * K * 8``): 100,000 distinct labels over 100,000 items would take
    74.5 GiB, and such a label set is nearly always a column of ids.
    """
    need = n_items * n_labels * 8
    if n_labels > MAX_LABELS or need > MAX_COUNT_BYTES:
        msg = (
            f"{n_labels:,} distinct labels (K) over {n_items:,} items (N): the N x K label "
            f"count table would take {need:,} bytes ({need / 2**30:,.1f} GiB; limits: "
            f"{MAX_LABELS:,} labels, {MAX_COUNT_BYTES:,} bytes). Is the label column (--label) the right "
            "column? A column of ids or free text gives one label per annotation."
        )
        raise DataError(msg)


def check_item_totals(values: npt.NDArray[np.int64], items: pd.Index, name: str) -> None:
    """Refuse a row whose sum exceeds :data:`MAX_ITEM_TOTAL`, naming the item.

    Summed in float64 (no wrap-around: every entry is at most 2**53), whose error is at
    most ``K`` units here; the rows within ``4 K`` of the limit are summed exactly in
    Python integers (in practice none).
    """
    if values.size == 0:
        return
    approx = values.sum(axis=1, dtype=np.float64)
    slack = 4.0 * values.shape[1]
    over = approx > MAX_ITEM_TOTAL + slack
    for near in np.flatnonzero(np.abs(approx - MAX_ITEM_TOTAL) <= slack):
        over[near] = sum(int(v) for v in values[near]) > MAX_ITEM_TOTAL
    if over.any():
        i = int(np.flatnonzero(over)[0])
        total = sum(int(v) for v in values[i])
        msg = (
            f"`{name}` {describe_row(i, items)} sums to {total:,} annotations, more than "
            f"2**53 = {MAX_ITEM_TOTAL:,} ({int(over.sum())} such rows): int64 sums would wrap "
            "to negative and float64 posteriors are not exact beyond it. Check the counts (a "
            "column of ids or totals read as counts?) or scale them down."
        )
        raise DataError(msg)


#: Column names taken for item ids in a wide table when ``item`` is not given.
ITEM_COLUMNS = ("item", "item_id", "id")


def item_indexed(wide: pd.DataFrame, item: Any, func: str) -> pd.DataFrame:
    """``wide`` with its item id column as the index, so that no id is counted as a rating.

    ``item`` names the column; ``None`` keeps the index (every column is an annotator);
    ``"auto"`` takes a column named ``item``, or a non-numeric ``item_id`` or ``id``.
    A numeric ``item_id`` / ``id`` column, or several of these names, is ambiguous and
    refused: it could be ids or an annotator's ratings.
    """
    if item is None:
        return wide
    if item != "auto":
        if item not in wide.columns:
            msg = (
                f"{func}: no item column {item!r} in the wide table (columns "
                f"{examples(list(wide.columns))}); pass item=None if the index holds the ids."
            )
            raise DataError(msg)
        return wide.set_index(item)
    found = [c for c in wide.columns if isinstance(c, str) and c.lower() in ITEM_COLUMNS]
    if not found:
        return wide
    numeric = [c for c in found if pd.api.types.is_numeric_dtype(wide[c].dtype)]
    if len(found) == 1 and (found[0].lower() == "item" or not numeric):
        return wide.set_index(found[0])
    msg = (
        f"{func}: the wide table has column(s) {examples(found)} that may hold item ids "
        "or an annotator's ratings; pass item='<column>' to take a column as the item ids, "
        "or item=None to count every column as an annotator."
    )
    raise DataError(msg)


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
            Non-negative whole numbers (``2.0`` is accepted).
        scale : Scale or sequence of labels, optional
            Column labels (a sequence is nominal). Default: ``0 … K-1``.
        items : sequence, optional
            Unique item ids, one per row. Default ``0 … N-1``.
        meta : DataFrame, optional
            Item-level columns, one row per item in the order of ``values``.

        Raises
        ------
        DataError
            For NaN, negative or fractional counts, a row summing to more than
            :data:`MAX_ITEM_TOTAL`, or ids / labels not matching the shape.
        """
        raw = as_array(values, "values")
        if raw.ndim == 2:
            index = as_items(items, raw.shape[0], "`values`")
            arr = as_count_matrix(raw, "values", items=index)
        else:
            arr = as_count_matrix(raw, "values")
            index = as_items(items, arr.shape[0], "`values`")
        check_item_totals(arr, index, "values")
        K = arr.shape[1]
        given = range(K) if scale is None else scale
        sc = given if isinstance(given, Scale) else Scale.nominal(given)
        if sc.K != K:
            msg = f"The scale has {sc.K} labels {examples(list(sc.labels))} but the data has {K} columns."
            raise DataError(msg)
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
        item: str | None = "auto",
    ) -> LabelCounts:
        """Count the labels of a wide table: one row per item, one column per annotator.

        The shortest route from a rater table to agreement when annotator
        identities are not needed: one row per row of ``wide``, in order (an
        item nobody labelled keeps a row of zeros). Numbers (NaN = not
        labelled) are counted directly; other labels are checked as
        :meth:`Annotations.from_frame` does.

        Parameters
        ----------
        wide : DataFrame, dask.dataframe.DataFrame or array_like of shape (N, M)
            Every column but the item column is an annotator; an array's items
            are ``0 … N-1``.
        scale, ordered
            See :mod:`dissensus.data`.
        item : str or None, default "auto"
            A DataFrame's item id column, never counted as an annotator.
            ``None``: the index holds the ids. ``"auto"``: a column named
            ``item``, or a non-numeric ``item_id`` / ``id``, else the index; a
            numeric ``item_id`` / ``id`` column is refused as ambiguous.

        Raises
        ------
        DataError
            For labels not on ``scale``, infinite values, repeated item ids,
            an ambiguous item column, or a table without any label.

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
            wide = item_indexed(wide, item, "LabelCounts.from_wide")
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
            check_count_table(len(index), sc.K)
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


# -- wide tables of numbers, straight to codes ---------------------------------

IntArray = npt.NDArray[np.intp]
FloatArray = npt.NDArray[np.float64]

#: Integral labels spanning at most this many values use a lookup table.
_MAX_SPAN = 4096
#: Up to this many labels, counts are one comparison pass per label.
_MAX_COMPARE = 32


def _is_plain_numeric(dtype: Any) -> bool:
    """Numbers but not booleans (a bool column is a label set of its own)."""
    return bool(
        pd.api.types.is_numeric_dtype(dtype)
        and not pd.api.types.is_bool_dtype(dtype)
        and not isinstance(dtype, pd.CategoricalDtype)
    )


def numeric_wide(block: pd.DataFrame | npt.NDArray[Any]) -> FloatArray | None:
    """The annotator-major ``(M, N)`` float64 values of a numeric wide block, else None (general path)."""
    if isinstance(block, pd.DataFrame):
        if not all(_is_plain_numeric(dt) for dt in block.dtypes):
            return None
        ints = [c for c, dt in enumerate(block.dtypes) if pd.api.types.is_integer_dtype(dt)]
        if ints and _beyond_float(block.iloc[:, ints].to_numpy(dtype=np.float64, na_value=0.0)):
            return None
        values = block.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        if not _is_plain_numeric(block.dtype):
            return None
        if np.issubdtype(block.dtype, np.integer) and _beyond_float(block):
            return None
        values = np.asarray(block, dtype=np.float64)
    return np.ascontiguousarray(values.T)


def _beyond_float(values: npt.NDArray[Any]) -> bool:
    """Whether some integer is at or beyond 2**53 (float64 may merge it): the general path refuses it."""
    return bool(values.size) and bool(np.abs(values.astype(np.float64)).max() >= 2.0**53)


def check_columns(columns: Sequence[Any], where: str, what: str = "column") -> None:
    """Refuse a wide table whose columns repeat a name (which one is the annotator?)."""
    repeated = first_repeat(columns)
    if repeated is not None:
        name, first, second = repeated
        msg = f"The wide table{where} has {what} {name!r} twice (columns {first} and {second}); rename one so each annotator has one column."
        raise DataError(msg)


def _code_dtype(n_codes: int) -> type[np.signedinteger[Any]]:
    """The smallest signed integer type holding codes ``0 .. n_codes - 1``."""
    for dt in (np.int8, np.int16, np.int32):
        if n_codes <= np.iinfo(dt).max:
            return dt
    return np.int64


@dataclass(frozen=True)
class WideCodes:
    """Label codes of a wide table, annotator-major.

    Attributes
    ----------
    codes : ndarray of signed int, shape (M, N)
        ``k < K`` the label ``scale.labels[k]``; ``K`` an empty cell;
        ``K + 1`` a number not on the scale. The smallest integer type that
        holds them (int8 for up to 125 labels), to keep the passes cheap.
    scale : Scale
        The label set (given, or inferred from the numbers present).
    """

    codes: npt.NDArray[np.signedinteger[Any]]
    scale: Scale

    @property
    def K(self) -> int:
        """Number of labels."""
        return self.scale.K

    def counts_t(self) -> npt.NDArray[np.int64]:
        """``(K, N)`` label counts per item: a comparison pass per label, or one bincount beyond 32."""
        M, N = self.codes.shape
        K = self.K
        check_count_table(N, K)
        if K > _MAX_COMPARE:
            width = K + 2
            flat = self.codes.astype(np.intp) + (width * np.arange(N, dtype=np.intp))[None, :]
            full = np.bincount(flat.ravel(), minlength=N * width).reshape(N, width)
            return np.ascontiguousarray(full[:, :K].T, dtype=np.int64)
        acc = np.empty((K, N), dtype=_code_dtype(M + 1))
        for k in range(K):  # K passes over (M, N) codes, not a loop over items
            np.add.reduce(self.codes == k, axis=0, dtype=acc.dtype, out=acc[k])
        return acc.astype(np.int64)

    def check_on_scale(
        self, VT: FloatArray, columns: list[Any], where: str, at: Callable[[IntArray], str]
    ) -> None:
        """Refuse numbers not on the scale, naming them, the first column and (by ``at``) the rows."""
        if not (self.codes == self.K + 1).any():
            return
        flat = np.flatnonzero(np.ascontiguousarray(self.codes.T) == self.K + 1)
        rows, cols = np.divmod(flat, self.codes.shape[0])
        msg = f"{rows.size} labels{where} are not on the scale {examples(list(self.scale.labels), 10)}: {examples(pd.unique(VT[cols, rows]))} (first in column {columns[int(cols[0])]!r}) at {at(np.unique(rows))}. Fix the labels or pass a scale that includes them: scale=[...] (CLI: --labels)."
        raise DataError(msg)

    def first_rows(self) -> IntArray:
        """First row each annotator (column) labelled; -1 for a column with no label."""
        filled = self.codes < self.K
        first = filled.argmax(axis=1)
        return np.where(filled[np.arange(first.size), first], first, -1)

    def long(self) -> tuple[IntArray, IntArray, npt.NDArray[np.int64]]:
        """``(rows, columns, codes)`` of the filled cells, item by item (row-major)."""
        CT = np.ascontiguousarray(self.codes.T)
        flat = np.flatnonzero(self.K > CT)
        rows, cols = np.divmod(flat, self.codes.shape[0])
        return rows, cols, CT.ravel()[flat].astype(np.int64)


def _inferred(labels: FloatArray, ordered: bool | None) -> Scale:
    return Scale(tuple(labels.tolist()), ordered=True if ordered is None else ordered)


def encode_wide(
    VT: FloatArray,
    scale: Scale | Sequence[Any] | None,
    *,
    ordered: bool | None = None,
    where: str = "",
) -> WideCodes:
    """Codes of the annotator-major values ``VT`` (M, N) on ``scale`` (inferred when None).

    Refuses infinite values, and an empty table when the scale is to be inferred.
    """
    scale = given_scale(scale, ordered)
    # fmin/fmax skip NaN (no warning for an all-empty table); an inf shows up in them
    lo = float(np.fmin.reduce(VT, axis=None)) if VT.size else math.nan
    hi = float(np.fmax.reduce(VT, axis=None)) if VT.size else math.nan
    if math.isinf(lo) or math.isinf(hi):
        msg = f"The wide table{where} holds infinite values; a label cannot be inf. Replace them with a label or leave the cell empty (NaN)."
        raise DataError(msg)
    if math.isnan(lo):
        if scale is None:
            msg = (
                f"Cannot infer a scale: the wide table{where} has no labels (every cell is empty)."
            )
            raise DataError(msg)
        return WideCodes(np.full(VT.shape, scale.K, dtype=_code_dtype(scale.K + 2)), scale)
    if scale is not None and not scale.is_numeric:
        # numbers never match text labels: every filled cell is off the scale
        dt = _code_dtype(scale.K + 2)
        return WideCodes(np.where(np.isnan(VT), dt(scale.K), dt(scale.K + 1)), scale)
    if hi - lo < _MAX_SPAN:
        width = int(hi - lo) + 1
        # fmin sends an empty cell (NaN) to the extra slot `width` in the pass
        # that shifts the values; the cast then tells whether all were whole
        slots = np.fmin(VT, lo + width)
        slots -= lo
        idx = slots.astype(_code_dtype(width + 1))
        if np.array_equal(idx, slots):
            return _encode_integral(idx, scale, ordered, lo, width)
    return _encode_sorted(VT, scale, ordered)


def _encode_integral(
    idx: npt.NDArray[np.signedinteger[Any]],
    scale: Scale | None,
    ordered: bool | None,
    lo: float,
    width: int,
) -> WideCodes:
    """Whole numbers ``lo + idx`` (``idx == width``: empty): a lookup table over slots."""
    if scale is None:
        seen = np.bincount(idx.ravel(), minlength=width + 1)[:width]
        scale = _inferred(np.flatnonzero(seen).astype(np.float64) + lo, ordered)
    K = scale.K
    dt = _code_dtype(K + 2)
    lut = np.full(width + 1, K + 1, dtype=dt)
    lut[width] = K
    v = scale.values - lo  # noqa: PD011 -- a Scale, not pandas
    on = (v >= 0) & (v < width) & (v == np.floor(v))
    lut[v[on].astype(np.intp)] = np.flatnonzero(on).astype(dt)
    return WideCodes(np.take(lut, idx), scale)


def _encode_sorted(VT: FloatArray, scale: Scale | None, ordered: bool | None) -> WideCodes:
    """Any numbers: binary search in the sorted scale values."""
    present = ~np.isnan(VT)
    if scale is None:
        scale = _inferred(np.unique(VT[present]), ordered)
    K = scale.K
    dt = _code_dtype(K + 2)
    v = scale.values  # noqa: PD011 -- a Scale, not pandas
    order = np.argsort(v, kind="stable").astype(dt)
    sv = v[order]
    pos = np.minimum(np.searchsorted(sv, VT), K - 1)
    codes = np.where(sv[pos] == VT, order[pos], np.where(present, dt(K + 1), dt(K)))
    return WideCodes(codes.astype(dt, copy=False), scale)
