"""Per-annotator predictions: the long (item, annotator, prediction) table, aligned to the truth.

A prediction of annotator ``a`` on item ``i`` is a label or a distribution
over the scale's labels. Predictions are matched to the true annotations by
(item id, annotator id); every true (item, annotator) cell must have one, so
the true and predicted consistency matrices compare the same items for every
pair (the paper's overlapping sets :math:`S_{kl}`). Predictions for cells
that have no true label (a model predicting every annotator on every item)
are not used; their number is returned, never dropped without a word.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import PROB_ATOL, computed, examples, is_dask
from dissensus.data import Annotations, Scale, read_table

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
_COLUMNS = ("item", "annotator", "label")


@dataclass(frozen=True)
class AlignedPredictions:
    """True annotations and predictions on the same (item, annotator) cells.

    ``true`` holds one label per cell; ``q`` (n_cells, K) the predicted
    distribution of each true cell in ``true``'s row order (one-hot rows for
    predicted labels); ``hard`` whether every prediction was a label;
    ``n_unused`` the predictions for cells without a true label (not used).
    """

    true: Annotations
    q: FloatArray
    hard: bool
    n_unused: int


def check_annotations(value: object, name: str, func: str) -> None:
    """Refuse anything but :class:`Annotations` (label counts have no annotator ids)."""
    if not isinstance(value, Annotations):
        msg = f"`{name}` of {func} must be Annotations with annotator ids (e.g. from read_annotations or Annotations.from_frame); got {type(value).__name__}."
        if is_dask(value):
            # annotator models compare every annotator over all items: they run in memory
            msg += (
                " A Dask DataFrame of long annotations becomes Annotations with "
                "Annotations.from_frame(ddf, ...), which computes it into this process."
            )
        raise TypeError(msg)


def long_frame(
    annotations: Annotations, func: str, q: FloatArray | None = None, **columns: Any
) -> pd.DataFrame:
    """The long (item, annotator, ...) frame of the annotations' cells; ``q`` one column per label."""
    acodes, names = annotations._require_annotators(func)
    items = annotations.items[annotations.item_codes]
    out = pd.DataFrame({"item": items, "annotator": names[acodes], **columns})
    if q is not None:
        for k, lab in enumerate(annotations.scale.labels):
            out[lab] = q[:, k]
    return out


def _encode(scale: Scale, labels: pd.Series, *, where: str) -> IntArray:
    """Label codes on ``scale``; labels off it raise, naming the first row or file line."""
    codes = scale.encode(labels)
    off = np.flatnonzero(codes < 0)
    if off.size:
        kind = labels.index.name if labels.index.name in ("line", "row") else "row"
        msg = f"{off.size} predicted labels in {where} are not on the scale {examples(list(scale.labels), 10)}: {examples(pd.unique(labels.iloc[off]))} at {kind} {labels.index[off[0]]!r}. Predict labels of the true annotations' scale."
        raise DataError(msg)
    return codes


def _columns(
    frame: pd.DataFrame, scale: Scale, where: str, *, item: str, annotator: str, label: str
) -> list[Any] | None:
    """Check the id columns; None for a label column, else the probability columns.

    A probability column is named by its label or the label's string.
    """
    missing = [c for c in (item, annotator) if c not in frame.columns]
    if missing:
        msg = f"{where} has no {missing[0]!r} column (columns: {examples(list(frame.columns), 12)}); name it with {missing[0]}=... ."
        raise DataError(msg)
    if label in frame.columns:
        return None
    names = {str(c): c for c in frame.columns}
    cols = [names.get(str(lab)) for lab in scale.labels]
    if any(c is None for c in cols):
        msg = f"{where} needs a {label!r} column (predicted labels) or one probability column per label {examples([str(v) for v in scale.labels], 10)}; columns: {examples(list(frame.columns), 12)}."
        raise DataError(msg)
    return cols


def _keys(items: npt.ArrayLike, annotators: npt.ArrayLike) -> pd.MultiIndex:
    return pd.MultiIndex.from_arrays(
        [np.asarray(items, dtype=object), np.asarray(annotators, dtype=object)]
    )


def align_predictions(
    true: Annotations,
    predicted: Annotations | pd.DataFrame,
    *,
    func: str = "dic",
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
) -> AlignedPredictions:
    """Match per-annotator predictions to the true annotations' cells.

    ``true`` has annotator ids and one label per (item, annotator);
    ``predicted`` is Annotations of predicted labels, or a long (pandas or
    Dask, computed into this process) frame with ``item``, ``annotator`` and
    either ``label`` or one column per label of ``true.scale`` (named by the
    label or its string, e.g. ``"-3"``) holding a distribution; ``item``,
    ``annotator`` and ``label`` rename those columns, ``func`` is the caller's
    name for messages. Raises DataError without annotator ids, with repeated
    cells, a true cell without a prediction, labels off the scale, or rows
    that are not distributions.

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": list("abab"), "label": list("xyxx")})
    >>> aligned = align_predictions(Annotations.from_frame(df), df.iloc[::-1])
    >>> aligned.q.tolist(), aligned.hard, aligned.n_unused
    ([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]], True, 0)
    """
    check_annotations(true, "true", func)
    acodes, annotators = true._require_annotators(func)
    true.rater_matrix()  # refuses repeated (item, annotator) cells with the fix
    scale = true.scale
    K = scale.K
    given: object = computed(predicted)  # users pass other things despite the annotation
    if isinstance(given, Annotations):
        labels = np.asarray(given.scale.labels, dtype=object)[given.label_codes]
        frame, item, annotator, label = long_frame(given, func, label=labels), *_COLUMNS
    elif isinstance(given, pd.DataFrame):
        frame = given
    else:
        msg = f"`predicted` of {func} must be Annotations or a long DataFrame (item, annotator, label or one probability column per label); got {type(predicted).__name__}."
        raise TypeError(msg)
    where = f"`predicted` of {func}"
    prob_cols = _columns(frame, scale, where, item=item, annotator=annotator, label=label)
    if frame[[item, annotator]].isna().to_numpy().any():
        row = frame.index[np.flatnonzero(frame[[item, annotator]].isna().to_numpy().any(axis=1))[0]]
        msg = f"`predicted` of {func} has a missing item or annotator id at row {row!r}."
        raise DataError(msg)
    if prob_cols is None:
        q_all = np.eye(K)[_encode(scale, frame[label], where=where)]
        hard = True
    else:
        q_all = frame[prob_cols].to_numpy(dtype=np.float64)
        bad = ~np.isfinite(q_all).all(axis=1) | (q_all < 0).any(axis=1)
        bad |= np.abs(q_all.sum(axis=1) - 1.0) > PROB_ATOL
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            msg = f"{int(bad.sum())} predicted distributions are not probabilities (finite, >= 0, summing to 1), e.g. row {frame.index[r]!r} (item {frame[item].iloc[r]!r}, annotator {frame[annotator].iloc[r]!r}): {np.round(q_all[r], 4).tolist()}. Rescale the rows."
            raise DataError(msg)
        hard = bool((np.isclose(q_all.max(axis=1), 1.0)).all())
    pkeys = _keys(frame[item], frame[annotator])
    if pkeys.has_duplicates:
        dup = pkeys[pkeys.duplicated()][0]
        msg = f"`predicted` of {func} has {int(pkeys.duplicated().sum())} repeated (item, annotator) cells, e.g. {dup!r}; give one prediction per cell."
        raise DataError(msg)
    tkeys = _keys(true.items[true.item_codes], annotators[acodes])
    pos = pkeys.get_indexer(tkeys)
    if (pos < 0).any():
        miss = tkeys[pos < 0]
        msg = f"{int((pos < 0).sum())} true (item, annotator) cells have no prediction in `predicted` of {func}, e.g. {examples(list(miss))}; predict every annotator on every item they labelled (ids must match, including their type)."
        raise DataError(msg)
    n_unused = len(frame) - int(np.unique(pos).size)
    return AlignedPredictions(true=true, q=q_all[pos], hard=hard, n_unused=n_unused)


def read_annotator_predictions(
    path: str | Path,
    scale: Scale,
    format: Literal["csv", "tsv", "parquet", "jsonl"] | None = None,
    *,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
) -> pd.DataFrame:
    """Read per-annotator predictions from a long CSV, TSV, Parquet or JSONL file.

    The long frame of :func:`align_predictions`, labels read on ``scale``, the
    true annotations' (a CSV label ``"1"`` is the number 1 on a numeric
    scale); ``format`` defaults to the extension. Indexed by file line (row
    for Parquet), ready for :func:`dic`. A missing file (FileNotFoundError)
    or column, or labels off the scale (DataError, with the line), raise.
    """
    df = read_table(path, format=format)
    cols = _columns(df, scale, f"'{path}'", item=item, annotator=annotator, label=label)
    if cols is None:
        codes = _encode(scale, df[label], where=f"'{path}'")
        out = df[[item, annotator]].copy()
        out[label] = np.asarray(scale.labels, dtype=object)[codes]
        return out
    out = df[[item, annotator, *cols]].copy()
    return out.rename(columns=dict(zip(cols, scale.labels, strict=True)))
