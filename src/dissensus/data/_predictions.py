"""Predictions: an N × K matrix of predicted label distributions with item ids, and its reader."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataDroppedWarning, DataError, DissensusWarning
from dissensus._validation import as_prob_matrix, check_option, computed, examples, is_dask
from dissensus.data._counts import LabelCounts, Matrix, as_items
from dissensus.data._scale import Scale
from dissensus.data._tables import py

#: Column names read as item ids when none is named (compared without letter case), by
#: priority: in prediction files, and (folded further) the item role of annotation tables.
ID_COLUMNS: tuple[str, ...] = (
    "item",
    "item_id",
    "itemid",
    "id",
    "example_id",
    "sample_id",
    "instance_id",
    "text_id",
    "doc_id",
    "task_id",
    "sentence_id",
    "uid",
    "guid",
    "idx",
)


def id_column(columns: Sequence[Any], first: str | None = None) -> str | None:
    """The column of ``columns`` named like an item id (:data:`ID_COLUMNS`; ``first`` before them), or None.

    Examples
    --------
    >>> id_column(["item_id", "1", "2"]), id_column(["ID", "p1"]), id_column(["a", "b"])
    ('item_id', 'ID', None)
    """
    lowered = {c.lower(): c for c in reversed(columns) if isinstance(c, str)}
    names = ID_COLUMNS if first is None else (first.lower(), *ID_COLUMNS)
    return next((lowered[n] for n in names if n in lowered), None)


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
    #: What a reader chose or changed (columns read as labels, rows rescaled), in words.
    notes: tuple[str, ...] = field(default=(), compare=False)

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
        item: str | None = "auto",
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
        item : str or None, default "auto"
            Item id column (``None``: the index, wide layout only). ``"auto"``:
            the column named like an item id (``item``, ``item_id``, ``id``, ...:
            :data:`ID_COLUMNS`, any letter case; said in a warning unless it is
            ``item``), else the index.
        scale : Scale, optional
            Label set; default from the column names / label values.
        normalize : bool
            Rescale rows that do not sum to 1.
        """
        check_option("Predictions.from_frame", "layout", layout, ("wide", "long"))
        df = computed(df)
        if item == "auto":
            item = id_column(list(df.columns))
            if item is not None and item != "item":
                msg = f"Predictions: item ids read from column {item!r} (pass item=... to choose another)."
                warnings.warn(msg, DissensusWarning, stacklevel=2)
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
            msg = f"No item column {item!r} in the predictions (columns: {examples(list(df.columns), 12)}); name the item id column with item='...', or pass item=None to use the index."
            raise DataError(msg)
        ids = df.index if item is None else pd.Index(df[item])
        cols = list(labels) if labels is not None else [c for c in df.columns if c != item]
        missing = [c for c in cols if c not in df.columns]
        if missing:
            msg = f"Prediction columns {examples(missing)} are not in the frame (columns: {examples(list(df.columns), 12)})."
            raise DataError(msg)
        text = [c for c in cols if not pd.api.types.is_numeric_dtype(df[c])]
        if labels is None and text:
            msg = f"Prediction column(s) {examples(text)} hold text, not probabilities (columns: {examples(list(df.columns), 12)}); name the item id column with item='...' and the label columns with labels=[...]."
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


#: One model's predictions as the library takes them: :class:`Predictions`, an (N, K)
#: array (rows in the annotations' item order) or a DataFrame (see :meth:`Predictions.from_frame`).
PredictionLike = Predictions | npt.ArrayLike | pd.DataFrame


def as_predictions(pred: Any, *, name: str = "predictions") -> Predictions:
    """``pred`` (:data:`PredictionLike`, or a Dask frame) as :class:`Predictions`; errors name ``name``.

    A frame's item ids come from the column named like an item id (:data:`ID_COLUMNS`),
    else its index (:meth:`Predictions.from_frame`); an array's rows match by position.
    """
    if isinstance(pred, Predictions):
        return pred
    if isinstance(pred, pd.DataFrame) or (is_dask(pred) and hasattr(pred, "columns")):
        try:
            return Predictions.from_frame(pred)
        except DataError as exc:
            msg = f"Model {name!r}: {exc}"
            raise DataError(msg) from None
    try:
        arr = np.asarray(pred, dtype=np.float64)
    except (TypeError, ValueError):
        msg = f"Predictions of model {name!r} must be a Predictions, an (N, K) array or a DataFrame; got {type(pred).__name__}."
        raise TypeError(msg) from None
    try:
        return Predictions.from_array(arr)
    except DataError as exc:
        msg = f"Model {name!r}: {exc}"
        raise DataError(msg) from None


def aligned_predictions(
    counts: LabelCounts, predictions: Mapping[str, PredictionLike], *, func: str
) -> dict[str, npt.NDArray[np.float64]]:
    """Two or more models' predictions as (N, K) arrays in the item and label order of ``counts``.

    Every model must predict exactly the annotated items (:meth:`Predictions.align`,
    ``how="exact"``); ``func`` names the caller in messages.
    """
    mapping: object = predictions
    if not isinstance(mapping, Mapping):
        msg = f"`predictions` of {func} must map model names to predictions, e.g. {{'a': preds_a, 'b': preds_b}}; got {type(mapping).__name__}."
        raise TypeError(msg)
    if len(predictions) < 2:
        msg = f"{func} compares models: give two or more predictions; got {examples([str(m) for m in predictions])}."
        raise ValueError(msg)
    out = {}
    for name, given in predictions.items():
        aligned, _ = as_predictions(given, name=str(name)).align(
            counts, how="exact", name=str(name)
        )
        out[str(name)] = np.asarray(aligned.values, dtype=np.float64)
    return out


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
