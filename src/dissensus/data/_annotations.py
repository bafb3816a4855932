"""Annotations: the long (item, annotator, label) table, crowd-kit style."""

from __future__ import annotations

import difflib
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataDroppedWarning, DataError, LabelSpellingWarning
from dissensus._validation import check_option, computed, examples
from dissensus.data._counts import LabelCounts
from dissensus.data._scale import Scale
from dissensus.data._wide import (
    check_columns,
    encode_wide,
    given_scale,
    numeric_wide,
    off_scale_message,
)

__all__ = ["Annotations", "Duplicates", "ItemAnnotatorCodes"]

Duplicates = Literal["error", "first", "last", "keep"]


def _locations(
    index: pd.Index, positions: npt.NDArray[np.intp], source: str | None, limit: int = 5
) -> str:
    """Name rows for an error message: file lines when read from a file.

    The messages name the file once (``in <source>``); this says where in it.

    With a ``source``, the index holds file positions; its name says which
    kind (``"line"`` by default, ``"row"`` for Parquet, ``"record"`` for
    JSON records keyed by item id).
    """
    labels = [v.item() if isinstance(v, np.generic) else v for v in index[positions[:limit]]]
    more = len(positions) - len(labels)
    tail = f" … ({more} more)" if more > 0 else ""
    plural = "s" if len(labels) > 1 else ""
    if source is not None:
        word = index.name if index.name in ("line", "row", "record") else "line"
        shown = ", ".join(map(repr if word == "record" else str, labels))
        return f"{word}{plural} {shown}{tail}"
    return f"row{plural} {', '.join(map(repr, labels))}{tail}"


def _wide_array_frame(values: Any, *, item: str | None, meta: list[str]) -> pd.DataFrame:
    """An (N items, M annotators) array as a wide frame: items 0..N-1, annotators 0..M-1."""
    arr = np.asarray(values)
    if arr.ndim != 2:
        msg = (
            "Annotations.from_wide expects a DataFrame or a 2-D (N items, M annotators) array; "
            f"got {type(values).__name__} of shape {arr.shape}."
        )
        raise TypeError(msg)
    if meta or item not in (None, "item"):
        msg = (
            "An array has no item or meta columns; pass a DataFrame to name them (items of an "
            "array are its row numbers, annotators its column numbers)."
        )
        raise TypeError(msg)
    return pd.DataFrame(arr, copy=False)


def _py(value: Any) -> Any:
    """Plain Python value for a message (``1``, not ``np.int64(1)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _require_columns(df: pd.DataFrame, columns: dict[str, str | None], source: str | None) -> None:
    missing = {
        role: col for role, col in columns.items() if col is not None and col not in df.columns
    }
    if missing:
        where = f" in {source}" if source else ""
        role, col = next(iter(missing.items()))
        noun = role.split()[0]  # "meta 'year'" -> meta
        param = "annotators" if role.startswith("annotator '") else noun  # wide: annotators=
        hint = (
            " pass annotator=None if the data has no annotator ids;" if role == "annotator" else ""
        )
        close = difflib.get_close_matches(str(col), [str(c) for c in df.columns], n=1)
        guess = f" Did you mean {close[0]!r}?" if close else ""
        msg = (
            f"No {noun} column {col!r}{where} (columns: {examples(list(df.columns), 12)});"
            f"{hint} name the column with {param}=...{guess}"
        )
        raise DataError(msg)


#: Control characters (C0 and DEL): never part of a real label, often a broken export.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _kind(value: Any) -> str:
    if isinstance(value, bool | np.bool_):
        return "boolean"
    return "string" if isinstance(value, str) else "number"


def _repeated(
    keys: npt.NDArray[np.int64], *, keep: Literal["first", "last"]
) -> npt.NDArray[np.bool_]:
    """``pd.Series(keys).duplicated(keep=keep)`` by a stable sort.

    A hash table over millions of distinct keys costs several times the
    keys' memory; the sort needs the permutation and one sorted copy.

    Examples
    --------
    >>> _repeated(np.array([5, 3, 5, 5]), keep="first").tolist()
    [False, False, True, True]
    >>> _repeated(np.array([5, 3, 5, 5]), keep="last").tolist()
    [True, False, True, False]
    """
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    same = ordered[1:] == ordered[:-1]
    del ordered
    out = np.zeros(keys.shape, dtype=bool)
    # equal keys are consecutive, in row order: all but the first (last) of a run repeat
    out[order[1:][same] if keep == "first" else order[:-1][same]] = True
    return out


def _check_labels(labels: pd.Series, index: pd.Index, source: str | None, column: str) -> None:
    """Refuse labels that would silently merge or split categories; warn on near-duplicates.

    Works on the distinct labels (few), then locates the first row of an
    offending one.
    """
    uniq = [v for v in pd.unique(labels) if not (isinstance(v, float) and np.isnan(v))]
    in_where = f" in {source}" if source else ""

    def at(value: Any) -> str:
        rows = np.flatnonzero(
            labels.map(lambda v: type(v) is type(value) and v == value).to_numpy(dtype=bool)
        )
        return _locations(index, rows, source)

    kinds: dict[str, list[Any]] = {}
    for v in uniq:
        kinds.setdefault(_kind(v), []).append(v)
    hideable = set(kinds) == {"boolean"} or ("number" in kinds and "boolean" not in kinds)
    if labels.dtype == object and hideable:
        # True == 1 hashes alike, so the distinct values can hide a boolean
        # among numbers, or a number among booleans.
        is_bool = labels.map(lambda v: isinstance(v, bool | np.bool_)).to_numpy(dtype=bool)
        if is_bool.any() and not is_bool.all():
            v = labels.iloc[int(np.flatnonzero(is_bool)[0])]
            kinds.setdefault("boolean", []).append(v)
            other = labels.iloc[int(np.flatnonzero(~is_bool)[0])]
            kinds.setdefault(_kind(other), []).append(other)
    if "boolean" in kinds and len(kinds) > 1:
        v = kinds["boolean"][0]
        msg = (
            f"Label {_py(v)!r}{in_where} at {at(v)} is a boolean among {' and '.join(k for k in kinds if k != 'boolean')} "
            f"labels; a boolean would silently merge with 1/0. Write it as a number or a string."
        )
        raise DataError(msg)
    if "string" in kinds and "number" in kinds:
        odd = min(("string", "number"), key=lambda k: len(kinds[k]))
        v = kinds[odd][0]
        msg = (
            f"Labels mix strings and numbers{in_where}: {odd} label {_py(v)!r} at {at(v)} among "
            f"{'numbers' if odd == 'string' else 'strings'} {examples(kinds['number' if odd == 'string' else 'string'])}. "
            f"Fix that label, or convert the {column!r} column to one type."
        )
        raise DataError(msg)
    strings = kinds.get("string", [])
    for v in strings:
        found = _CONTROL.search(v)
        if found:
            msg = (
                f"Label {v!r}{in_where} at {at(v)} contains the control character "
                f"U+{ord(found.group()):04X}; control characters are not part of a label "
                "(a broken export?). Clean the file."
            )
            raise DataError(msg)
    spelled: dict[str, list[str]] = {}
    for v in strings:
        spelled.setdefault(" ".join(v.split()).casefold(), []).append(v)
    variants = [group for group in spelled.values() if len(group) > 1]
    if variants:
        shown = "; ".join(" vs ".join(repr(v) for v in group) for group in variants[:5])
        warnings.warn(
            f"Labels{in_where} differ only by whitespace or letter case and are kept as "
            f"different categories: {shown}. Pass strip_labels=True (CLI: --strip-labels) to "
            "strip surrounding whitespace, or fix the spelling.",
            LabelSpellingWarning,
            stacklevel=4,
        )


class ItemAnnotatorCodes:
    """Item and annotator bookkeeping shared by :class:`Annotations` and ``SetAnnotations``.

    Both hold one row per annotation with ``item_codes`` into ``items`` and
    ``annotator_codes`` into ``annotators``; only what an annotation is (a
    label code, a set of labels) differs.
    """

    item_codes: npt.NDArray[np.int64]
    annotator_codes: npt.NDArray[np.int64] | None
    items: pd.Index
    annotators: pd.Index | None

    @property
    def n_annotations(self) -> int:  # pragma: no cover - every subclass defines it
        """Number of annotations."""
        raise NotImplementedError

    @property
    def n_items(self) -> int:
        """Number of distinct items."""
        return len(self.items)

    @property
    def has_annotators(self) -> bool:
        """Whether annotator ids are known."""
        return self.annotators is not None

    def _require_annotators(self, what: str) -> tuple[npt.NDArray[np.int64], pd.Index]:
        if self.annotator_codes is None or self.annotators is None:
            msg = (
                f"{what} needs annotator ids, but these annotations have none; load them with "
                "annotator='<column>'."
            )
            raise DataError(msg)
        return self.annotator_codes, self.annotators

    @property
    def n_annotators(self) -> int:
        """Number of distinct annotators (raises when annotator ids are absent)."""
        return len(self._require_annotators("n_annotators")[1])

    @property
    def annotations_per_item(self) -> pd.Series:
        """Number of annotations of each item, indexed by item."""
        return pd.Series(
            np.bincount(self.item_codes, minlength=self.n_items), index=self.items, name="n"
        )

    def __len__(self) -> int:
        return self.n_annotations

    def _who(self) -> str:
        """``"3 annotators"`` or ``"no annotator ids"``, for a repr."""
        return (
            f"{len(self.annotators)} annotators"
            if self.annotators is not None
            else "no annotator ids"
        )


@dataclass(frozen=True, eq=False)
class Annotations(ItemAnnotatorCodes):
    """Who gave which label to which item: one row per annotation.

    Stored as integer codes (``item_codes``, ``annotator_codes``,
    ``label_codes``) into ``items``, ``annotators`` and ``scale``. Build it
    with :meth:`from_frame`, :meth:`from_wide` or a reader.

    Attributes
    ----------
    item_codes : ndarray of int64, shape (M,)
        Row of ``items`` for each annotation.
    label_codes : ndarray of int64, shape (M,)
        Column of ``scale`` for each annotation.
    annotator_codes : ndarray of int64, shape (M,), or None
        Row of ``annotators`` for each annotation; None when the data has no
        annotator ids (annotator-specific measures then refuse).
    items : pandas.Index
        Item ids, in order of first appearance.
    annotators : pandas.Index or None
        Annotator ids, in order of first appearance.
    scale : Scale
        The label set.
    meta : pandas.DataFrame or None
        Item-level columns kept with ``meta=[...]``, indexed like ``items``.

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": ["a", "b", "a", "b"],
    ...                    "label": ["POS", "NEG", "POS", "POS"]})
    >>> ann = Annotations.from_frame(df)
    >>> ann.n_items, ann.n_annotators, ann.counts().values.tolist()
    (2, 2, [[1, 1], [0, 2]])
    """

    item_codes: npt.NDArray[np.int64]
    label_codes: npt.NDArray[np.int64]
    annotator_codes: npt.NDArray[np.int64] | None
    items: pd.Index
    annotators: pd.Index | None
    scale: Scale
    meta: pd.DataFrame | None = None

    # -- constructors -----------------------------------------------------
    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        *,
        item: str = "item",
        annotator: str | None = "annotator",
        label: str = "label",
        scale: Scale | Sequence[Any] | None = None,
        ordered: bool | None = None,
        meta: Sequence[str] = (),
        dropna: bool = False,
        duplicates: Duplicates = "error",
        source: str | None = None,
    ) -> Annotations:
        """Read a long table with one row per annotation.

        Parameters
        ----------
        df : DataFrame or dask.dataframe.DataFrame
            One row per (item, annotator, label). A Dask DataFrame is computed
            into this process (one ``.compute()``, keeping its index, which
            error messages name); for data that do not fit, use
            :mod:`dissensus.distributed`.
        item, annotator, label : str
            Column names. ``annotator=None`` when there are no annotator ids.
        scale : Scale or sequence of labels, optional
            The label set. A plain sequence is taken in the order given
            (ordinal unless ``ordered=False``). Default: inferred from the
            labels present (see :meth:`Scale.infer`).
        ordered : bool, optional
            Whether labels are ordered, when the scale is inferred or given as
            a sequence.
        meta : sequence of str
            Item-level columns to keep (e.g. ``["year"]``), used by ``by=``
            grouping; each must be constant within an item.
        dropna : bool
            Drop rows with a missing item, annotator or label (reported with a
            :class:`DataDroppedWarning`) instead of raising.
        duplicates : {"error", "first", "last", "keep"}
            What to do with repeated (item, annotator) pairs: raise, keep the
            first or last, or keep all (each counts as an annotation).
        source : str, optional
            File the frame came from; its index then holds file positions and
            error messages say ``in <file>: … at line N``. The index name
            says which position: ``"line"`` (default), ``"row"`` (Parquet) or
            ``"record"`` (JSON records keyed by item id).

        Raises
        ------
        DataError
            Missing columns, missing values (without ``dropna``), labels not on
            the scale, duplicate (item, annotator) pairs (with
            ``duplicates="error"``), or ``meta`` columns that vary within an item.
        """
        check_option(
            "Annotations.from_frame", "duplicates", duplicates, ("error", "first", "last", "keep")
        )
        df = computed(df)
        given: object = df  # users pass other things despite the annotation
        if not isinstance(given, pd.DataFrame):
            msg = f"Annotations.from_frame expects a pandas DataFrame; got {type(given).__name__}."
            raise TypeError(msg)
        meta = list(meta)
        _require_columns(df, {"item": item, "annotator": annotator, "label": label}, source)
        _require_columns(df, {f"meta {m!r}": m for m in meta}, source)
        in_where = f" in {source}" if source else ""

        # -- missing values -------------------------------------------------
        key_cols = [c for c in (item, annotator, label) if c is not None]
        missing = df[key_cols].isna()
        if missing.to_numpy().any():
            bad_rows = np.flatnonzero(missing.to_numpy().any(axis=1))
            per_col = {c: int(n) for c, n in missing.sum().items() if n}
            if not dropna:
                col = next(iter(per_col))
                msg = (
                    f"Missing {col!r} values{in_where}: {sum(per_col.values())} in "
                    f"{_locations(df.index, bad_rows, source)}; fill them, or pass "
                    "dropna=True to drop those rows."
                )
                raise DataError(msg)
            warnings.warn(
                f"Dropped {len(bad_rows)} of {len(df)} rows with missing values{in_where} "
                f"({', '.join(f'{c}: {n}' for c, n in per_col.items())}); first: "
                f"{_locations(df.index, bad_rows, source)}.",
                DataDroppedWarning,
                stacklevel=2,
            )
            # by position: a user's index may repeat labels
            keep_rows = np.ones(len(df), dtype=bool)
            keep_rows[bad_rows] = False
            df = df.iloc[keep_rows]

        # -- scale and label codes -------------------------------------------
        labels = df[label]
        _check_labels(labels, df.index, source, label)
        if scale is None:
            sc = Scale.infer(labels, ordered=ordered)
        elif isinstance(scale, Scale):
            sc = scale if ordered is None else scale.with_order(ordered)
        else:
            sc = Scale(tuple(scale), ordered=True if ordered is None else ordered)
        label_codes = sc.encode(labels)
        off = np.flatnonzero(label_codes < 0)
        if off.size:
            values = pd.unique(labels.iloc[off])
            msg = (
                f"{off.size} labels{in_where} are not on the scale {examples(list(sc.labels), 10)}: "
                f"{examples(values)} at {_locations(df.index, off, source)}. Fix the labels or "
                "pass a scale that includes them."
            )
            raise DataError(msg)

        # -- items and annotators ------------------------------------------
        item_codes, items = pd.factorize(df[item], sort=False)
        items = pd.Index(items, name=item)
        annotator_codes: npt.NDArray[np.int64] | None = None
        annotators: pd.Index | None = None
        if annotator is not None:
            acodes, auniq = pd.factorize(df[annotator], sort=False)
            annotator_codes = acodes.astype(np.int64, copy=False)
            del acodes
            annotators = pd.Index(auniq, name=annotator)
            # in place: at millions of annotations each temporary is tens of MB
            pair = item_codes.astype(np.int64)
            pair *= len(annotators)
            pair += annotator_codes
            if duplicates != "keep":
                dup_mask = _repeated(pair, keep="last" if duplicates == "last" else "first")
                if dup_mask.any():
                    if duplicates == "error":
                        both = pd.Series(pair).duplicated(keep=False).to_numpy()
                        rows = np.flatnonzero(both)
                        first = rows[0]
                        msg = (
                            f"{int(dup_mask.sum())} repeated (item, annotator) pairs{in_where}, e.g. item "
                            f"{_py(df[item].iloc[first])!r} by annotator {_py(df[annotator].iloc[first])!r} at "
                            f"{_locations(df.index, rows[pair[rows] == pair[first]], source)}. Pass "
                            "duplicates='first', 'last' or 'keep' (count every annotation)."
                        )
                        raise DataError(msg)
                    keep = ~dup_mask
                    warnings.warn(
                        f"Dropped {int(dup_mask.sum())} repeated (item, annotator) annotations{in_where} "
                        f"(duplicates={duplicates!r}); first: "
                        f"{_locations(df.index, np.flatnonzero(dup_mask), source)}.",
                        DataDroppedWarning,
                        stacklevel=2,
                    )
                    df = df[keep]
                    item_codes = item_codes[keep]
                    annotator_codes = annotator_codes[keep]
                    label_codes = label_codes[keep]
                    # every (item, annotator) pair keeps one row, so no item or
                    # annotator disappears and the codes stay dense

        meta_df: pd.DataFrame | None = None
        if meta:
            # One representative row per item (its last); a row whose value
            # differs from its item's representative makes the column vary.
            codes_i = np.asarray(item_codes, dtype=np.intp)
            rep = np.zeros(len(items), dtype=np.intp)
            np.maximum.at(rep, codes_i, np.arange(codes_i.size, dtype=np.intp))
            for m in meta:
                value_codes, _ = pd.factorize(df[m], use_na_sentinel=True)  # missing is a value
                varying = np.flatnonzero(value_codes != value_codes[rep][codes_i])
                if not varying.size:
                    continue
                bad_item = items[int(codes_i[varying[0]])]
                msg = (
                    f"meta column {m!r}{in_where} varies within item {_py(bad_item)!r}; item-level "
                    "columns must be constant per item (group annotations instead, or make the "
                    "column part of the item id)."
                )
                raise DataError(msg)
            meta_df = df[meta].iloc[rep].set_axis(items)

        return cls(
            item_codes=np.asarray(item_codes, dtype=np.int64),
            label_codes=np.asarray(label_codes, dtype=np.int64),
            annotator_codes=annotator_codes,
            items=items,
            annotators=annotators,
            scale=sc,
            meta=meta_df,
        )

    @classmethod
    def from_wide(
        cls,
        df: pd.DataFrame | npt.ArrayLike,
        *,
        item: str | None = "item",
        annotators: Sequence[Any] | None = None,
        scale: Scale | Sequence[Any] | None = None,
        ordered: bool | None = None,
        meta: Sequence[str] = (),
        source: str | None = None,
    ) -> Annotations:
        """Read a wide table: one row per item, one column per annotator.

        An empty cell (NaN) means the annotator did not label that item; it
        is not an annotation and is not an error.

        Parameters
        ----------
        df : DataFrame, dask.dataframe.DataFrame or array_like of shape (N, M)
            One row per item. An array's items are its row numbers and its
            annotators its column numbers (``item`` and ``meta`` do not apply).
            A Dask DataFrame is computed into this process (one
            ``.compute()``, keeping its index, which error messages name); for
            data that do not fit, use :mod:`dissensus.distributed`.
        item : str or None
            Item id column; ``None`` uses the index.
        annotators : sequence of str, optional
            Annotator columns. Default: every column except ``item`` and ``meta``.
        scale, ordered, meta, source
            As in :meth:`from_frame`.

        Notes
        -----
        When every annotator column holds numbers (int or float dtypes, not
        bool), the cells go straight to label codes: no long table, no
        per-column factorisation and no (item, annotator) duplicate check (a
        wide table has one cell per pair). Strings, objects and mixed types
        take the general path through :meth:`from_frame`. Both give the same
        :class:`Annotations`.

        Examples
        --------
        >>> wide = np.array([[1, 2, np.nan], [2, 2, 1]])
        >>> ann = Annotations.from_wide(wide)
        >>> ann.counts().values.tolist(), ann.scale
        ([[1, 1], [1, 2]], Scale.ordinal([1, 2]))
        """
        meta = list(meta)
        df = computed(df)
        if not isinstance(df, pd.DataFrame):
            df = _wide_array_frame(df, item=item, meta=meta)
            item = None
        if item is not None:
            _require_columns(df, {"item": item}, source)
            ids = df[item]
        else:
            ids = pd.Series(df.index, index=df.index, name=df.index.name or "item")
        if ids.isna().any():
            rows = np.flatnonzero(ids.isna().to_numpy())
            msg = f"Missing item ids{' in ' + source if source else ''} at {_locations(df.index, rows, source)}."
            raise DataError(msg)
        if ids.duplicated().any():
            rows = np.flatnonzero(ids.duplicated(keep=False).to_numpy())
            msg = (
                f"Item ids repeat in a wide table{' in ' + source if source else ''} "
                f"({examples(pd.unique(ids.iloc[rows]))} at {_locations(df.index, rows, source)}); "
                "a wide table has one row per item."
            )
            raise DataError(msg)
        cols = (
            list(annotators)
            if annotators is not None
            else [c for c in df.columns if c != item and c not in meta]
        )
        _require_columns(df, {f"annotator {c!r}": c for c in cols}, source)
        # before either path: a repeated name would select two columns as one
        # annotator (the numeric path) or repeat (item, annotator) pairs
        where = f" in {source}" if source else ""
        check_columns(cols, where, "annotator")
        used = {*cols, *meta} | ({item} if item is not None else set())
        check_columns([c for c in df.columns if c in used], where)
        if not cols:
            msg = "No annotator columns in the wide table; name them with annotators=[...]."
            raise DataError(msg)
        block = df[cols]
        name = ids.name if isinstance(ids.name, str) else "item"
        VT = numeric_wide(block)
        if VT is not None:
            return cls._from_numeric_wide(
                df, VT, ids, name, cols, scale=scale, ordered=ordered, meta=meta, source=source
            )
        present = block.notna().to_numpy()
        r, c = np.nonzero(present)  # row-major: items keep their order
        long = pd.DataFrame(
            {
                name: ids.to_numpy()[r],
                "annotator": np.asarray(cols, dtype=object)[c],
                "label": block.to_numpy()[r, c],
            },
            index=df.index[r],
        )
        for m in meta:
            long[m] = df[m].to_numpy()[r]
        out = cls.from_frame(
            long,
            item=name,
            annotator="annotator",
            label="label",
            scale=scale,
            ordered=ordered,
            meta=meta,
            source=source,
        )
        if out.n_items < len(df):
            dropped = ids.iloc[np.flatnonzero(~present.any(axis=1))]
            warnings.warn(
                f"{len(dropped)} items have no annotations at all and are not included: "
                f"{examples(dropped.tolist())}.",
                DataDroppedWarning,
                stacklevel=2,
            )
        return out

    @classmethod
    def _from_numeric_wide(
        cls,
        df: pd.DataFrame,
        VT: npt.NDArray[np.float64],
        ids: pd.Series,
        name: str,
        cols: list[Any],
        *,
        scale: Scale | Sequence[Any] | None,
        ordered: bool | None,
        meta: list[str],
        source: str | None,
    ) -> Annotations:
        """:meth:`from_wide` of numbers: codes straight from the ``(M, N)`` values.

        The result equals the general path's (same items, annotators in order
        of first appearance, annotations item by item), without a long table.
        """
        where = f" in {source}" if source else ""
        wc = encode_wide(VT, given_scale(scale, ordered), ordered=ordered, where=where)
        if wc.has_off_scale():
            rows, _ = wc.off_scale()
            at = _locations(df.index, np.unique(rows), source)
            raise DataError(off_scale_message(wc, VT, cols, where, at))
        r, c, label_codes = wc.long()
        labelled = np.logical_or.reduce(wc.codes < wc.K, axis=0)
        kept = np.flatnonzero(labelled)
        item_codes = r.astype(np.int64)
        if kept.size < labelled.size:
            item_codes = (np.cumsum(labelled, dtype=np.int64) - 1)[r]
        # annotators in order of first appearance, reading item by item
        first_row = wc.first_rows()
        used = np.flatnonzero(first_row >= 0)
        by_first = used[np.lexsort((used, first_row[used]))]
        rank = np.empty(len(cols), dtype=np.int64)
        rank[by_first] = np.arange(by_first.size, dtype=np.int64)
        items = pd.Index(ids.to_numpy()[kept], name=name)
        meta_df = df[meta].iloc[kept].set_axis(items) if meta else None
        out = cls(
            item_codes=item_codes,
            label_codes=label_codes,
            annotator_codes=rank[c],
            items=items,
            annotators=pd.Index(np.asarray(cols, dtype=object)[by_first], name="annotator"),
            scale=wc.scale,
            meta=meta_df,
        )
        if kept.size < labelled.size:
            dropped = ids.iloc[np.flatnonzero(~labelled)]
            warnings.warn(
                f"{len(dropped)} items have no annotations at all and are not included: "
                f"{examples(dropped.tolist())}.",
                DataDroppedWarning,
                stacklevel=3,
            )
        return out

    # -- shape ------------------------------------------------------------
    @property
    def n_annotations(self) -> int:
        """Number of annotations (rows)."""
        return int(self.label_codes.shape[0])

    def __repr__(self) -> str:
        return f"<Annotations: {self.n_annotations} annotations of {self.n_items} items, {self._who()}, {self.scale!r}>"

    # -- conversions ------------------------------------------------------
    def counts(self) -> LabelCounts:
        """Label counts per item (N × K)."""
        K = self.scale.K
        flat = np.bincount(self.item_codes * K + self.label_codes, minlength=self.n_items * K)
        return LabelCounts(
            flat.reshape(self.n_items, K).astype(np.int64), self.items, self.scale, self.meta
        )

    def rater_matrix(self) -> npt.NDArray[np.float64]:
        """Items × annotators matrix of label codes, NaN where not labelled.

        Raises
        ------
        DataError
            Without annotator ids, or when an annotator labelled an item
            twice (``duplicates="keep"``).
        """
        acodes, annotators = self._require_annotators("rater_matrix")
        R = len(annotators)
        cell = self.item_codes * R + acodes
        if np.unique(cell).size != cell.size:
            msg = (
                "Some annotator labelled an item more than once; a rater matrix needs one label per "
                "(item, annotator). Load with duplicates='first' or 'last'."
            )
            raise DataError(msg)
        out = np.full(self.n_items * R, np.nan)
        out[cell] = self.label_codes
        return out.reshape(self.n_items, R)

    def to_frame(self) -> pd.DataFrame:
        """Long DataFrame with columns item, annotator (when known), label."""
        data: dict[str, Any] = {"item": self.items[self.item_codes]}
        if self.annotators is not None and self.annotator_codes is not None:
            data["annotator"] = self.annotators[self.annotator_codes]
        data["label"] = np.asarray(self.scale.labels, dtype=object)[self.label_codes]
        return pd.DataFrame(data)
