"""Numeric wide tables (items × annotators, NaN = not labelled) straight to label codes.

A wide table of numbers needs none of the long-table machinery: no per-column
factorisation, no (item, annotator) duplicate check (one cell per pair), no
long DataFrame. The values are read once as an annotator-major ``(M, N)``
float64 array (``VT``; the transposed view of a pandas block is already
C-contiguous) and turned into integer codes ``(M, N)``:

- integral labels spanning at most :data:`_MAX_SPAN` values (Likert items,
  severities, star ratings) by a lookup table indexed by ``value - lowest``;
- any other numbers by :func:`numpy.searchsorted` on the sorted scale.

Code ``k < K`` is a label, ``K`` an empty cell and ``K + 1`` a number that is
not on the scale, in the smallest integer type that holds them. Counts come
out transposed, ``(K, N)``, the layout the agreement coefficients use.
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
from dissensus._validation import examples
from dissensus.data._scale import Scale, given_scale
from dissensus.data._tables import first_repeat

__all__ = ["WideCodes", "check_columns", "encode_wide", "numeric_wide"]

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
    """The annotator-major ``(M, N)`` float64 values of a numeric wide block, else None.

    None (the caller takes the general path) for strings, objects, booleans,
    categoricals and mixed column types.
    """
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
    """Whether some integer is at or beyond 2**53, where float64 may merge it with a neighbour.

    Such a table takes the general path, which keeps the integers and
    refuses them with the reason (see :class:`Scale`), as it does for any
    other input.
    """
    return bool(values.size) and bool(np.abs(values.astype(np.float64)).max() >= 2.0**53)


def check_columns(columns: Sequence[Any], where: str, what: str = "column") -> None:
    """Refuse a wide table whose columns repeat a name (which one is the annotator?).

    Raises
    ------
    DataError
        Naming the repeated column and both positions (1-based).
    """
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
        """``(K, N)`` label counts per item (transposed: one contiguous row per label).

        Up to :data:`_MAX_COMPARE` labels: one comparison pass per label,
        summed down the annotator axis (contiguous rows, a small accumulator);
        beyond that one :func:`numpy.bincount` of ``item * (K + 2) + code``.
        """
        M, N = self.codes.shape
        K = self.K
        if K > _MAX_COMPARE:
            width = K + 2
            flat = self.codes.astype(np.intp) + (width * np.arange(N, dtype=np.intp))[None, :]
            full = np.bincount(flat.ravel(), minlength=N * width).reshape(N, width)
            return np.ascontiguousarray(full[:, :K].T, dtype=np.int64)
        acc = np.empty((K, N), dtype=_code_dtype(M + 1))
        for k in range(K):  # K passes over (M, N) codes, not a loop over items
            np.add.reduce(self.codes == k, axis=0, dtype=acc.dtype, out=acc[k])
        return acc.astype(np.int64)

    def has_off_scale(self) -> bool:
        """Whether some cell holds a number that is not on the scale."""
        return bool((self.codes == self.K + 1).any())

    def off_scale(self) -> tuple[IntArray, IntArray]:
        """``(rows, columns)`` of the cells holding a number that is not on the scale."""
        flat = np.flatnonzero(np.ascontiguousarray(self.codes.T) == self.K + 1)
        rows, cols = np.divmod(flat, self.codes.shape[0])
        return rows, cols

    def check_on_scale(
        self, VT: FloatArray, columns: list[Any], where: str, at: Callable[[IntArray], str]
    ) -> None:
        """Refuse numbers not on the scale, naming them, the first column and (by ``at``) the rows."""
        if not self.has_off_scale():
            return
        rows, cols = self.off_scale()
        msg = f"{rows.size} labels{where} are not on the scale {examples(list(self.scale.labels), 10)}: {examples(pd.unique(VT[cols, rows]))} (first in column {columns[int(cols[0])]!r}) at {at(np.unique(rows))}. Fix the labels or pass a scale that includes them."
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

    Raises
    ------
    DataError
        For infinite values, or when no cell holds a label and the scale is
        to be inferred.
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
