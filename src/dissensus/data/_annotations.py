"""Annotations: the long (item, annotator, label) table, crowd-kit style (options: :mod:`dissensus.data`)."""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataDroppedWarning, DataError
from dissensus._validation import (
    ID_FIX,
    check_option,
    check_text_values,
    computed,
    examples,
    is_dask,
)
from dissensus.data._counts import (
    LabelCounts,
    check_columns,
    check_count_table,
    encode_wide,
    numeric_wide,
)
from dissensus.data._scale import Scale, encode_labels
from dissensus.data._tables import in_source, locations, py

Duplicates = Literal["error", "first", "last", "keep"]
DUPLICATES: tuple[str, ...] = ("error", "first", "last", "keep")


#: The roles of the columns of a long table, each its own column.
_ROLES = ("item", "annotator", "label")


def checked_frame(
    df: pd.DataFrame, caller: str, columns: dict[str, str | None], source: str | None
) -> pd.DataFrame:
    """The pandas frame (a Dask one computed once), refused when a named column is absent.

    ``columns`` maps a role (``"item"``, ``"meta 'year'"``, ``"annotator 'r1'"``)
    to its column; the message names the option that chooses the column. The
    item, annotator and label roles naming one column is refused.
    """
    df = computed(df)
    given: object = df  # users pass other things despite the annotation
    if not isinstance(given, pd.DataFrame):
        msg = f"{caller} expects a pandas DataFrame; got {type(given).__name__}."
        raise TypeError(msg)
    named = [(role, c) for role, c in columns.items() if role in _ROLES and c is not None]
    for k, (role, col) in enumerate(named):
        other = next((r for r, c in named[k + 1 :] if c == col), None)
        if other is not None:  # one column read twice would silently pass as two
            msg = f"Column {col!r}{in_source(source)} is named as both the {role} column and the {other} column; each role needs a column of its own: name another with {role}=... or {other}=..."
            raise DataError(msg)
    missing = {role: c for role, c in columns.items() if c is not None and c not in df.columns}
    if missing:
        role, col = next(iter(missing.items()))
        noun = role.split()[0]  # "meta 'year'" -> meta
        param = "annotators" if role.startswith("annotator '") else noun  # wide: annotators=
        hint = (
            " pass annotator=None if the data has no annotator ids;" if role == "annotator" else ""
        )
        close = difflib.get_close_matches(str(col), [str(c) for c in df.columns], n=1)
        guess = f" Did you mean {close[0]!r}?" if close else ""
        msg = f"No {noun} column {col!r}{in_source(source)} (columns: {examples(list(df.columns), 12)});{hint} name the column with {param}=...{guess}"
        raise DataError(msg)
    return df


def check_ids(
    codes: npt.NDArray[np.integer[Any]],
    uniques: pd.Index,
    *,
    noun: str,
    column: Any,
    index: pd.Index,
    source: str | None,
) -> None:
    """The label text checks (:func:`~dissensus._validation.check_text_values`) on item or annotator ids.

    ``codes`` and ``uniques`` are ``pd.factorize`` of the id column, ``index``
    the rows' index (file lines), so the messages name the rows of each id.
    """
    if pd.api.types.is_numeric_dtype(uniques.dtype) or pd.api.types.is_bool_dtype(uniques.dtype):
        return
    position = pd.Index(uniques)

    def at(value: Any) -> str:
        rows = np.flatnonzero(codes == position.get_loc(value))
        return locations(index, rows, source)

    where = f" in column {column!r}{in_source(source)}"
    check_text_values(uniques, noun=noun, where=where, at=at, fix=ID_FIX, fold_case=False)


def _wide_labels(
    block: pd.DataFrame, r: npt.NDArray[np.intp], c: npt.NDArray[np.intp]
) -> npt.ArrayLike:
    """The labelled cells of a wide block, as a Categorical when every column is one alike.

    The cells of one Categorical dtype keep it (an ordered Categorical's order
    is the scale's); anything else is the cells' values.
    """
    values = block.to_numpy()[r, c]
    dtypes = set(block.dtypes)
    if len(dtypes) == 1 and isinstance(next(iter(dtypes)), pd.CategoricalDtype):
        return pd.Categorical(values, dtype=next(iter(dtypes)))
    return values


def _repeated(
    keys: npt.NDArray[np.int64], *, keep: Literal["first", "last"]
) -> npt.NDArray[np.bool_]:
    """``pd.Series(keys).duplicated(keep=keep)`` by a stable sort (a hash table costs more memory).

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


@dataclass(frozen=True, eq=False, kw_only=True)
class ItemAnnotatorCodes:
    """Items and annotators of one-row-per-annotation data: :class:`Annotations`, ``SetAnnotations``.

    Attributes
    ----------
    item_codes, annotator_codes : ndarray of int64, shape (M,)
        Row of ``items`` / ``annotators`` of each annotation; ``annotator_codes``
        is None when the data has no annotator ids.
    items, annotators : pandas.Index
        Item and annotator ids (or None), in order of first appearance.
    scale : Scale
        The label set.
    meta : pandas.DataFrame or None
        Item-level columns kept with ``meta=[...]``, indexed like ``items``.
    """

    item_codes: npt.NDArray[np.int64]
    annotator_codes: npt.NDArray[np.int64] | None
    items: pd.Index
    annotators: pd.Index | None
    scale: Scale
    meta: pd.DataFrame | None = None

    @property
    def n_annotations(self) -> int:
        """Number of annotations (rows)."""
        return int(self.item_codes.shape[0])

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
            msg = f"{what} needs annotator ids, but these annotations have none; load them with annotator='<column>'."
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

    def counts(self) -> LabelCounts:  # pragma: no cover - each subclass defines it
        """Label counts per item (N × K)."""
        raise NotImplementedError

    def _tally(self, codes: npt.NDArray[np.int64], scale: Scale) -> LabelCounts:
        """How many annotations of each item have each code (a column of ``scale``)."""
        K = scale.K
        check_count_table(self.n_items, K)
        flat = np.bincount(self.item_codes * K + codes, minlength=self.n_items * K)
        return LabelCounts(
            flat.reshape(self.n_items, K).astype(np.int64), self.items, scale, self.meta
        )

    def _who(self) -> str:
        """``"3 annotators"`` or ``"no annotator ids"``, for a repr."""
        return (
            "no annotator ids" if self.annotators is None else f"{len(self.annotators)} annotators"
        )

    def _cells(self, what: str, one: str) -> tuple[npt.NDArray[np.int64], int]:
        """Cell ``item * R + annotator`` of each annotation (R annotators); one per pair."""
        acodes, annotators = self._require_annotators(what)
        cell = self.item_codes * len(annotators) + acodes
        if np.unique(cell).size != cell.size:
            msg = f"Some annotator labelled an item more than once; a {what.replace('_', ' ')} needs one {one} per (item, annotator). Load with duplicates='first' or 'last'."
            raise DataError(msg)
        return cell, len(annotators)

    def _id_columns(self) -> dict[str, Any]:
        """``to_frame``'s item and (when known) annotator columns."""
        data: dict[str, Any] = {"item": self.items[self.item_codes]}
        if self.annotators is not None and self.annotator_codes is not None:
            data["annotator"] = self.annotators[self.annotator_codes]
        return data


@dataclass(frozen=True, eq=False, kw_only=True)
class Annotations(ItemAnnotatorCodes):
    """Who gave which label to which item: one row per annotation.

    Integer codes into ``items``, ``annotators`` and ``scale`` (see
    :class:`ItemAnnotatorCodes`) and ``label_codes`` (int64, shape (M,)).
    Build it with :meth:`from_frame`, :meth:`from_wide` or a reader.

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": ["a", "b", "a", "b"],
    ...                    "label": ["POS", "NEG", "POS", "POS"]})
    >>> ann = Annotations.from_frame(df)
    >>> ann.n_items, ann.n_annotators, ann.counts().values.tolist()
    (2, 2, [[1, 1], [0, 2]])
    """

    label_codes: npt.NDArray[np.int64]

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
            One row per (item, annotator, label).
        item, annotator, label, scale, ordered, meta, dropna, duplicates, source
            See :mod:`dissensus.data`.

        Raises
        ------
        DataError
            Missing columns, missing values (without ``dropna``), labels not on
            the scale, duplicate (item, annotator) pairs (with
            ``duplicates="error"``), or ``meta`` columns that vary within an item.
        """
        check_option("Annotations.from_frame", "duplicates", duplicates, DUPLICATES)
        meta = list(meta)
        roles = {"item": item, "annotator": annotator, "label": label}
        roles.update({f"meta {m!r}": m for m in meta})
        df = checked_frame(df, "Annotations.from_frame", roles, source)
        in_where = in_source(source)

        # -- missing values -------------------------------------------------
        key_cols = [c for c in (item, annotator, label) if c is not None]
        missing = df[key_cols].isna()
        bad = np.asarray(missing.to_numpy().any(axis=1), dtype=bool)
        if bad.any():
            bad_rows = np.flatnonzero(bad)
            per_col = {c: int(n) for c, n in missing.sum().items() if n}
            if not dropna:
                col = next(iter(per_col))
                msg = f"Missing {col!r} values{in_where}: {sum(per_col.values())} in {locations(df.index, bad_rows, source)}; fill them, or pass dropna=True to drop those rows."
                raise DataError(msg)
            msg = f"Dropped {len(bad_rows)} of {len(df)} rows with missing values{in_where} ({', '.join(f'{c}: {n}' for c, n in per_col.items())}); first: {locations(df.index, bad_rows, source)}."
            warnings.warn(msg, DataDroppedWarning, stacklevel=2)
            df = df.iloc[~bad]  # by position: a user's index may repeat labels

        sc, label_codes = encode_labels(df[label], scale, ordered, source=source, column=label)

        # -- items and annotators ------------------------------------------
        item_codes, items = pd.factorize(df[item], sort=False)
        items = pd.Index(items, name=item)
        check_ids(item_codes, items, noun="Item id", column=item, index=df.index, source=source)
        annotator_codes: npt.NDArray[np.int64] | None = None
        annotators: pd.Index | None = None
        if annotator is not None:
            acodes, auniq = pd.factorize(df[annotator], sort=False)
            annotator_codes = acodes.astype(np.int64, copy=False)
            annotators = pd.Index(auniq, name=annotator)
            check_ids(
                acodes,
                annotators,
                noun="Annotator id",
                column=annotator,
                index=df.index,
                source=source,
            )
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
                        msg = f"{int(dup_mask.sum())} repeated (item, annotator) pairs{in_where}, e.g. item {py(df[item].iloc[first])!r} by annotator {py(df[annotator].iloc[first])!r} at {locations(df.index, rows[pair[rows] == pair[first]], source)}. Pass duplicates='first', 'last' or 'keep' (count every annotation)."
                        raise DataError(msg)
                    keep = ~dup_mask
                    msg = f"Dropped {int(dup_mask.sum())} repeated (item, annotator) annotations{in_where} (duplicates={duplicates!r}); first: {locations(df.index, np.flatnonzero(dup_mask), source)}."
                    warnings.warn(msg, DataDroppedWarning, stacklevel=2)
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
                msg = f"meta column {m!r}{in_where} varies within item {py(bad_item)!r}; item-level columns must be constant per item (group annotations instead, or make the column part of the item id)."
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
        item : str or None
            Item id column; ``None`` uses the index.
        annotators : sequence of str, optional
            Annotator columns. Default: every column except ``item`` and ``meta``.
        scale, ordered, meta, source
            See :mod:`dissensus.data`.

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
            arr = np.asarray(df)
            if arr.ndim != 2:
                msg = f"Annotations.from_wide expects a DataFrame or a 2-D (N items, M annotators) array; got {type(df).__name__} of shape {arr.shape}."
                raise TypeError(msg)
            if meta or item not in (None, "item"):
                msg = "An array has no item or meta columns; pass a DataFrame to name them (items of an array are its row numbers, annotators its column numbers)."
                raise TypeError(msg)
            df, item = pd.DataFrame(arr, copy=False), None
        where = in_source(source)
        if item is not None:
            checked_frame(df, "Annotations.from_wide", {"item": item}, source)
            ids = df[item]
        else:
            ids = pd.Series(df.index, index=df.index, name=df.index.name or "item")
        if ids.isna().any():
            rows = np.flatnonzero(ids.isna().to_numpy())
            msg = f"Missing item ids{where} at {locations(df.index, rows, source)}."
            raise DataError(msg)
        if ids.duplicated().any():
            rows = np.flatnonzero(ids.duplicated(keep=False).to_numpy())
            msg = f"Item ids repeat in a wide table{where} ({examples(pd.unique(ids.iloc[rows]))} at {locations(df.index, rows, source)}); a wide table has one row per item."
            raise DataError(msg)
        cols = (
            list(annotators)
            if annotators is not None
            else [c for c in df.columns if c != item and c not in meta]
        )
        checked_frame(df, "Annotations.from_wide", {f"annotator {c!r}": c for c in cols}, source)
        # before either path: a repeated name would select two columns as one
        # annotator (the numeric path) or repeat (item, annotator) pairs
        check_columns(cols, where, "annotator")
        used = {*cols, *meta} | ({item} if item is not None else set())
        check_columns([c for c in df.columns if c in used], where)
        if not cols:
            msg = "No annotator columns in the wide table; name them with annotators=[...]."
            raise DataError(msg)
        block = df[cols]
        name = ids.name if isinstance(ids.name, str) else "item"
        VT = numeric_wide(block)
        if VT is None:  # labels of any kind: a long table through from_frame
            present = block.notna().to_numpy()
            r, c = np.nonzero(present)  # row-major: items keep their order
            long = pd.DataFrame(
                {
                    name: ids.to_numpy()[r],
                    "annotator": np.asarray(cols, dtype=object)[c],
                    "label": _wide_labels(block, r, c),
                },
                index=df.index[r],
            )
            for m in meta:
                long[m] = df[m].to_numpy()[r]
            out = cls.from_frame(
                long, item=name, scale=scale, ordered=ordered, meta=meta, source=source
            )
            labelled = present.any(axis=1)
        else:  # numbers: the same result, codes straight from VT without a long table
            wc = encode_wide(VT, scale, ordered=ordered, where=where)
            wc.check_on_scale(VT, cols, where, lambda rows: locations(df.index, rows, source))
            r, c, label_codes = wc.long()
            labelled = np.logical_or.reduce(wc.codes < wc.K, axis=0)
            kept = np.flatnonzero(labelled)
            item_codes = r.astype(np.int64)
            if kept.size < labelled.size:
                item_codes = (np.cumsum(labelled, dtype=np.int64) - 1)[r]
            # annotators in order of first appearance, reading item by item
            first_row = wc.first_rows()
            used_cols = np.flatnonzero(first_row >= 0)
            by_first = used_cols[np.lexsort((used_cols, first_row[used_cols]))]
            rank = np.empty(len(cols), dtype=np.int64)
            rank[by_first] = np.arange(by_first.size, dtype=np.int64)
            items = pd.Index(ids.to_numpy()[kept], name=name)
            check_ids(
                np.arange(len(ids)),
                pd.Index(ids.to_numpy()),
                noun="Item id",
                column=name,
                index=df.index,
                source=source,
            )
            out = cls(
                item_codes=item_codes,
                label_codes=label_codes,
                annotator_codes=rank[c],
                items=items,
                annotators=pd.Index(np.asarray(cols, dtype=object)[by_first], name="annotator"),
                scale=wc.scale,
                meta=df[meta].iloc[kept].set_axis(items) if meta else None,
            )
        if not labelled.all():
            unlabelled = ids.iloc[np.flatnonzero(~labelled)].tolist()
            msg = f"{len(unlabelled)} items have no annotations at all and are not included: {examples(unlabelled)}."
            warnings.warn(msg, DataDroppedWarning, stacklevel=2)
        return out

    def __repr__(self) -> str:
        return f"<Annotations: {self.n_annotations} annotations of {self.n_items} items, {self._who()}, {self.scale!r}>"

    # -- conversions ------------------------------------------------------
    def counts(self) -> LabelCounts:
        """Label counts per item (N × K)."""
        return self._tally(self.label_codes, self.scale)

    def rater_matrix(self) -> npt.NDArray[np.float64]:
        """Items × annotators matrix of label codes, NaN where not labelled.

        Raises :class:`DataError` without annotator ids, or when an annotator
        labelled an item twice (``duplicates="keep"``).
        """
        cell, R = self._cells("rater_matrix", "label")
        out = np.full(self.n_items * R, np.nan)
        out[cell] = self.label_codes
        return out.reshape(self.n_items, R)

    def to_frame(self) -> pd.DataFrame:
        """Long DataFrame with columns item, annotator (when known), label."""
        labels = np.asarray(self.scale.labels, dtype=object)[self.label_codes]
        return pd.DataFrame({**self._id_columns(), "label": labels})


def as_label_counts(
    annotations: ItemAnnotatorCodes | LabelCounts | npt.ArrayLike, name: str = "annotations"
) -> LabelCounts:
    """Accept LabelCounts, Annotations (``SetAnnotations`` say how to count) or an (N, K) array."""
    if isinstance(annotations, LabelCounts):
        return annotations
    if isinstance(annotations, ItemAnnotatorCodes):
        return annotations.counts()
    if is_dask(annotations):
        msg = (
            f"`{name}` is a Dask collection, which this function does not take; count it on "
            "the cluster with dissensus.distributed.label_counts(...), or compute it into "
            "memory with Annotations.from_frame(ddf, ...)."
        )
        raise TypeError(msg)
    if isinstance(annotations, pd.DataFrame):
        msg = f"`{name}` is a DataFrame; say what it holds: Annotations.from_frame(df, ...) for a long table, or LabelCounts.from_array(df.to_numpy(), scale=list(df.columns)) for a count table."
        raise TypeError(msg)
    return LabelCounts.from_array(annotations)
