"""Predictions: an N × K matrix of predicted label distributions with item ids, and its reader."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataDroppedWarning, DataError
from dissensus._validation import as_prob_matrix, check_option, computed, examples
from dissensus.data._counts import LabelCounts, Matrix, as_items
from dissensus.data._scale import Scale
from dissensus.data._tables import (
    TABLE_FORMATS,
    PathLike,
    TableFormat,
    first_repeat,
    locations,
    open_table,
    py,
    read_frame,
)


@dataclass(frozen=True, eq=False)
class Predictions(Matrix):
    """Predicted label distributions: rows on the simplex, with item ids and a scale.

    ``items`` or ``scale`` may be None (an array given without them): then
    :meth:`align` matches rows by position and columns by order.

    Examples
    --------
    >>> counts = LabelCounts.from_array([[3, 1], [0, 4]], items=["a", "b"])
    >>> pred = Predictions.from_array([[0.1, 0.9], [0.7, 0.3]], items=["b", "a"])
    >>> p, c = pred.align(counts)
    >>> p.values.tolist()
    [[0.7, 0.3], [0.1, 0.9]]
    """

    values: npt.NDArray[np.float64]
    items: pd.Index | None = None
    scale: Scale | None = None

    @classmethod
    def from_array(
        cls,
        values: npt.ArrayLike,
        *,
        items: Sequence[Any] | pd.Index | None = None,
        scale: Scale | Sequence[Any] | None = None,
        normalize: bool = False,
    ) -> Predictions:
        """Validate an (N, K) probability matrix.

        Rows must be finite, non-negative and sum to 1 within 1e-6; with
        ``normalize=True`` they are rescaled instead.
        """
        index = None if items is None else as_items(items, np.shape(values)[0], "`values`")
        arr = as_prob_matrix(values, "predictions", normalize=normalize, items=index)
        sc = scale if isinstance(scale, Scale) or scale is None else Scale(tuple(scale))
        if sc is not None and arr.shape[1] != sc.K:
            msg = f"The scale has {sc.K} labels but the predictions have {arr.shape[1]} columns."
            raise DataError(msg)
        return cls(arr, index, sc)

    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        *,
        item: str | None = "item",
        labels: Sequence[Any] | None = None,
        layout: Literal["wide", "long"] = "wide",
        label: str = "label",
        prob: str = "prob",
        scale: Scale | None = None,
        normalize: bool = False,
    ) -> Predictions:
        """Read predictions from a DataFrame.

        Parameters
        ----------
        df : DataFrame or dask.dataframe.DataFrame
            ``layout="wide"``: one row per item, one column per label (the
            ``labels`` in scale order; default all but ``item``).
            ``layout="long"``: one row per (item, label), with the columns
            ``label`` and ``prob``; an absent pair is an error, not a zero.
        item : str or None
            Item id column (``None``: the index, wide layout only).
        scale : Scale, optional
            Label set; default from the column names / label values.
        normalize : bool
            Rescale rows that do not sum to 1.
        """
        check_option("Predictions.from_frame", "layout", layout, ("wide", "long"))
        df = computed(df)
        if layout == "long":
            if item is None:
                msg = "Long predictions need an item column (one row per item and label); pass item='<column>'."
                raise DataError(msg)
            for role, col in (("item", item), ("label", label), ("prob", prob)):
                if col is None or col not in df.columns:
                    msg = f"No {role} column {col!r} in the predictions (columns: {examples(list(df.columns), 12)})."
                    raise DataError(msg)
            dup = df.duplicated([item, label], keep=False)
            if dup.any():
                first = df[dup].iloc[0]
                msg = f"{int(dup.sum())} predictions repeat an (item, label) pair, e.g. item {py(first[item])!r} label {py(first[label])!r}."
                raise DataError(msg)
            wide = df.pivot(index=item, columns=label, values=prob)
            if wide.isna().to_numpy().any():
                r, c = np.argwhere(wide.isna().to_numpy())[0]
                msg = f"The long predictions lack item {py(wide.index[r])!r} label {py(wide.columns[c])!r}; give every (item, label) pair, with 0 where the probability is 0."
                raise DataError(msg)
            order = pd.Index(pd.unique(df[item]))
            wide = wide.loc[order]
            sc = scale or Scale.infer(wide.columns)
            cols = [
                wide.columns[wide.columns.get_indexer(pd.Index([lab]))[0]]
                for lab in sc.labels
                if lab in set(wide.columns)
            ]
            if len(cols) != sc.K or len(cols) != wide.shape[1]:
                msg = f"Prediction labels {examples(list(wide.columns))} do not match the scale {examples(list(sc.labels))}."
                raise DataError(msg)
            return cls.from_array(
                wide[cols].to_numpy(), items=wide.index, scale=sc, normalize=normalize
            )

        if item is not None and item not in df.columns:
            msg = f"No item column {item!r} in the predictions; pass item=None to use the index."
            raise DataError(msg)
        ids = df.index if item is None else pd.Index(df[item])
        cols = list(labels) if labels is not None else [c for c in df.columns if c != item]
        missing = [c for c in cols if c not in df.columns]
        if missing:
            msg = f"Prediction columns {examples(missing)} are not in the frame (columns: {examples(list(df.columns), 12)})."
            raise DataError(msg)
        sc = scale or Scale(tuple(_label_from_column(c) for c in cols))
        return cls.from_array(df[cols].to_numpy(), items=ids, scale=sc, normalize=normalize)

    def __repr__(self) -> str:
        return f"<Predictions: {self.N} items × {self.K} labels, scale {self.scale!r}>"

    def to_frame(self) -> pd.DataFrame:
        """Wide DataFrame: one row per item, one column per label."""
        labels = range(self.K) if self.scale is None else self.scale.labels
        return pd.DataFrame(self.values, index=self.items, columns=pd.Index(labels, name="label"))

    # -- alignment --------------------------------------------------------
    def align(
        self,
        counts: LabelCounts,
        *,
        how: Literal["exact", "inner"] = "exact",
        name: str = "predictions",
    ) -> tuple[Predictions, LabelCounts]:
        """Match these predictions to ``counts`` by item id and label.

        Returns ``(predictions, counts)`` with the items of ``counts`` in its
        order and columns in the order of ``counts.scale``.

        Parameters
        ----------
        how : {"exact", "inner"}
            ``"exact"``: the item sets must be equal, else :class:`DataError`
            with counts and examples. ``"inner"``: keep the common items and
            report what was dropped with a :class:`DataDroppedWarning`.
        name : str
            What to call these predictions in messages (e.g. a model name).
        """
        check_option("Predictions.align", "how", how, ("exact", "inner"))
        values = self.values
        # -- labels -------------------------------------------------------
        if self.scale is None:
            if self.K != counts.K:
                msg = f"`{name}` has {self.K} columns but the annotations have {counts.K} labels {examples(list(counts.scale.labels))}."
                raise DataError(msg)
        else:
            if set(self.scale.labels) != set(counts.scale.labels):
                only_p = [v for v in self.scale.labels if v not in counts.scale]
                only_c = [v for v in counts.scale.labels if v not in self.scale]
                msg = f"`{name}` labels differ from the annotations' labels: only in the predictions {examples(only_p) or 'none'}; only in the annotations {examples(only_c) or 'none'}. Rename the columns or give predictions for every label."
                if _strip_all(self.scale.labels) == _strip_all(counts.scale.labels):
                    msg += " They differ only by surrounding whitespace: read both with strip_labels=True (CLI: --strip-labels)."
                raise DataError(msg)
            perm = [self.scale.index(lab) for lab in counts.scale.labels]
            values = values[:, perm]
        # -- items --------------------------------------------------------
        if self.items is None and self.N != counts.N:
            msg = f"`{name}` has {self.N} rows without item ids but there are {counts.N} items; give item ids or one row per item in the same order."
            raise DataError(msg)
        if self.items is None or self.items is counts.items:  # lined up (e.g. by the evaluate CLI)
            return Predictions(values, counts.items, counts.scale), counts
        pos = self.items.get_indexer(counts.items)
        extra = self.items.difference(counts.items)
        lacking = np.flatnonzero(pos < 0)
        if lacking.size == 0 and extra.size == 0:
            return Predictions(values[pos], counts.items, counts.scale), counts
        detail = f"{lacking.size} of {counts.N} annotated items have no prediction ({examples(counts.items[lacking]) or 'none'}); {extra.size} predicted items are not annotated ({examples(extra) or 'none'})"
        if lacking.size == counts.N and self.items.inferred_type != counts.items.inferred_type:
            detail += f" (the ids are {self.items.inferred_type} in `{name}` but {counts.items.inferred_type} in the annotations; convert one side)"
        if how == "exact":
            msg = f"`{name}` and the annotations cover different items: {detail}. Pass how='inner' to keep the common items."
            raise DataError(msg)
        if pos.max(initial=-1) < 0:
            msg = f"`{name}` and the annotations have no item in common: {detail}."
            raise DataError(msg)
        msg = f"`{name}`: kept the common items; {detail}."
        warnings.warn(msg, DataDroppedWarning, stacklevel=2)
        keep = pos >= 0
        sub = counts.take(keep)
        return Predictions(values[pos[keep]], sub.items, counts.scale), sub


def _label_from_column(col: Any) -> Any:
    """Wide prediction columns are often strings of numbers ("1", "-3", "0.5")."""
    if isinstance(col, str):
        try:
            f = float(col)
        except ValueError:
            return col
        return int(f) if f.is_integer() else f
    return col


def _strip_all(labels: Sequence[Any]) -> set[Any]:
    return {v.strip() if isinstance(v, str) else v for v in labels}


def read_predictions(
    path: PathLike,
    format: TableFormat | None = None,
    *,
    layout: Literal["wide", "long"] = "wide",
    item: str = "item",
    labels: list[Any] | None = None,
    label: str = "label",
    prob: str = "prob",
    scale: Scale | None = None,
    normalize: bool = False,
    na_values: Sequence[str] = (),
    strip_labels: bool = False,
) -> Predictions:
    r"""Read predicted label distributions from a CSV, TSV, Parquet or JSONL file.

    Parameters
    ----------
    path : str or path-like
    format, na_values
        See :mod:`dissensus.data`; a missing item id or probability is an
        error naming its line.
    layout : {"wide", "long"}
        ``"wide"``: one row per item, an ``item`` column and one column per
        label (column names such as ``"1"`` or ``"-3"`` are read as numbers).
        ``"long"``: one row per (item, label) with a probability column.
    item, labels, label, prob, scale, normalize
        As in :meth:`Predictions.from_frame`.
    strip_labels : bool
        Remove whitespace around the labels: the label column names of the
        wide layout (``item, pos, neg``), the label cells of the long layout.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    DataError
        For an unknown format, missing columns, a missing item id or
        probability, or rows that are not probability distributions (the
        message names the file, and the line where there is one).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "p.csv").write_text("item, pos, neg\nNA,0.25,0.75\nb,0.5,0.5\n")
    >>> pred = read_predictions(d / "p.csv", strip_labels=True)
    >>> list(pred.items), pred.scale.labels
    (['NA', 'b'], ('pos', 'neg'))
    """
    p, fmt = open_table(path, format, TABLE_FORMATS, "read_predictions")
    ids = [item] if item is not None else []
    strip = [label] if strip_labels and layout == "long" else []
    df = read_frame(p, fmt, ids=ids, na_values=tuple(na_values), strip=strip)
    if item is not None and item not in df.columns:
        msg = f"'{path}' has no item column {item!r} (columns: {examples(list(df.columns), 12)}); name the column that holds the item ids with item='...' (CLI: --pred-item COLUMN)."
        raise DataError(msg)
    if strip_labels and layout == "wide":  # the label column names
        names = [c if c == item or not isinstance(c, str) else c.strip() for c in df.columns]
        repeated = first_repeat(names)
        if repeated is not None:
            name, first, second = repeated
            msg = f"'{path}' line 1: columns {df.columns[first - 1]!r} and {df.columns[second - 1]!r} are the same label {name!r} once whitespace is stripped; rename one."
            raise DataError(msg)
        df = df.set_axis(names, axis=1)
    _check_cells(df, path, item=item, layout=layout, labels=labels, label=label, prob=prob)
    if layout == "wide" and {label, prob} <= set(df.columns):
        msg = f"{path} has {label!r} and {prob!r} columns: it looks like long predictions (one row per item and label) read as wide; pass layout='long' (CLI: --pred-layout long)."
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


def _check_cells(
    df: pd.DataFrame,
    path: PathLike,
    *,
    item: str | None,
    layout: str,
    labels: list[Any] | None,
    label: str,
    prob: str,
) -> None:
    """Refuse a missing id, label or probability, and a probability that is not a number, by line."""
    where = str(path)
    if layout == "long":
        probs = [prob] if prob in df.columns else []
        keys = [c for c in (item, label) if c is not None and c in df.columns]
    else:
        chosen = df.columns if labels is None else pd.Index(labels)
        probs = [c for c in chosen if c != item and c in df.columns]
        keys = [item] if item is not None and item in df.columns else []
    for column in keys:
        missing = np.flatnonzero(df[column].isna().to_numpy())
        if missing.size:
            needs = "item id" if column == item else "label"
            msg = f"'{path}': {missing.size} missing {column!r} values at {locations(df.index, missing, where)}; every prediction needs its {needs}."
            raise DataError(msg)
    for column in probs:
        cells = df[column]
        if pd.api.types.is_numeric_dtype(cells) and not pd.api.types.is_bool_dtype(cells):
            numbers = cells.to_numpy(dtype=np.float64)
        else:
            numbers = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=np.float64)
            text = np.flatnonzero(np.isnan(numbers) & cells.notna().to_numpy())
            if pd.api.types.is_bool_dtype(cells) or text.size:
                at = int(text[0]) if text.size else 0
                msg = f"'{path}': column {column!r} holds {cells.iloc[at]!r} at {locations(df.index, np.array([at]), where)}; probabilities are numbers (pass na_values=[...] (CLI: --na-values) if that text means missing)."
                raise DataError(msg)
        missing = np.flatnonzero(np.isnan(numbers))
        if missing.size:
            msg = f"'{path}': {missing.size} missing probabilities in column {column!r} at {locations(df.index, missing, where)}; give every probability (0 where the model gives the label none)."
            raise DataError(msg)
