"""The LeWiDi shared tasks (2023, 2025): official scorers, reproduced exactly, and submission files.

Each scorer returns what the organisers' code prints, to the last bit (same
clipping, Python's :func:`round`, same order of summation), vectorised.
LeWiDi 2023 (SemEval-2023 Task 11, binary): :func:`cross_entropy_2023`,
:func:`micro_f1_2023`, :func:`targets_2023`. LeWiDi 2025 (NLPerspectives @
EMNLP 2025), soft: :func:`average_md` (MP), :func:`multilabel_average_md`
(VariErrNLI), :func:`average_ws` (Paraphrase, CSC); perspectivist:
:func:`error_rate`, :func:`multilabel_error_rate`,
:func:`mean_absolute_distance`. Submission files:
:func:`read_lewidi_predictions`, :func:`write_lewidi_predictions`.

Every scorer takes ``(targets, predictions)`` (``t``, ``p``) of one shape and
returns a float, lower is better except :func:`micro_f1_2023`. Soft labels:
(N, K), or (N, L, K) with one distribution per label, used as submitted.
Perspectivist labels: (N, A) (or (N, L, A)) labels of each item's A
annotators, NaN where one did not label it, or ragged per-item lists.
Different shapes, non-finite soft labels, NaN patterns that differ and items
without labels raise :class:`~dissensus.DataError`.

References
----------
.. [1] Leonardelli, E., Abercrombie, G., Almanea, D., Basile, V., Fornaciari,
   T., Plank, B., Rieser, V., Uma, A. and Poesio, M. (2023). SemEval-2023
   Task 11: Learning with Disagreements (LeWiDi). Proc. SemEval-2023,
   2304–2318. doi:10.18653/v1/2023.semeval-1.314
.. [2] LeWiDi 2025 organisers (2025). Evaluation_LeWiDi_2025_Metrics.ipynb,
   https://github.com/Le-Wi-Di/le-wi-di.github.io (directory LeWiDi_3-2025).
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from dissensus._atomic import write_file_atomically
from dissensus._exceptions import DataError
from dissensus._validation import as_prob_matrix, check_option
from dissensus.data import Annotations, LabelCounts, Predictions, Scale, as_label_counts
from dissensus.metrics._pointwise import emd

__all__ = [
    "SCALE_VALUES_2025",
    "LewidiPredictions",
    "average_md",
    "average_ws",
    "cross_entropy_2023",
    "error_rate",
    "mean_absolute_distance",
    "micro_f1_2023",
    "multilabel_average_md",
    "multilabel_error_rate",
    "read_lewidi_predictions",
    "targets_2023",
    "write_lewidi_predictions",
]

FloatArray = npt.NDArray[np.float64]

#: ``scale_values`` the LeWiDi 2025 code passes to :func:`mean_absolute_distance`:
#: the number of points of each rating scale (Paraphrase −5..5, CSC 1..6).
SCALE_VALUES_2025: dict[str, int] = {"Paraphrase": 11, "CSC": 6}


@dataclass(frozen=True, eq=False)
class LewidiPredictions:
    """The content of one LeWiDi submission file (:func:`read_lewidi_predictions`).

    ``year`` and ``task`` say the format; ``items`` are the ids in file order
    (None in 2023); ``soft`` the (N, K) or (N, L, K) distributions; ``hard``
    the 2023 hard labels; ``labels`` the NaN-padded per-annotator labels.
    """

    year: int
    task: Literal["soft", "pe"]
    items: tuple[str, ...] | None
    soft: npt.NDArray[np.float64] | None = None
    hard: npt.NDArray[np.int64] | None = None
    labels: npt.NDArray[np.float64] | None = None

    @property
    def n_items(self) -> int:
        """Number of rows in the file."""
        return int(self._shape[0])

    @property
    def _shape(self) -> tuple[int, ...]:
        return next(a.shape for a in (self.soft, self.labels, self.hard) if a is not None)

    def to_predictions(self, *, normalize: bool = False) -> Predictions:
        """The soft labels as :class:`~dissensus.Predictions` (2-D soft files only)."""
        if self.soft is None or self.soft.ndim != 2:
            msg = (
                "Only (N, K) soft-label files convert to Predictions; this file holds "
                f"{'per-annotator labels' if self.soft is None else 'multilabel distributions'}."
            )
            raise DataError(msg)
        return Predictions.from_array(self.soft, items=self.items, normalize=normalize)

    def __repr__(self) -> str:
        return f"LewidiPredictions(year={self.year}, task={self.task!r}, shape={self._shape})"


def _parse_list(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: a list nested too deeply
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        msg = f"{where}: cannot read {text[:60]!r} as a list of numbers, e.g. [0.2, 0.8]."
        raise DataError(msg) from None


def _lines(path: Path) -> list[tuple[int, list[str]]]:
    rows = []
    if not path.is_file():  # a device such as /dev/zero would be read without end
        msg = f"'{path}' is not a regular file; give the submission file."
        raise DataError(msg)
    try:
        text = path.read_text(encoding="utf-8-sig")  # -sig: a leading BOM is not part of an id
    except UnicodeDecodeError as exc:
        msg = f"'{path}': byte {exc.start} is not UTF-8; a LeWiDi submission is a UTF-8 TSV file."
        raise DataError(msg) from None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            rows.append((lineno, line.split("\t")))
    if not rows:
        msg = f"'{path}' is empty: a LeWiDi submission file has one row per test item."
        raise DataError(msg)
    return rows


def _read_2023(path: Path) -> LewidiPredictions:
    rows = _lines(path)
    widths = {len(cells) for _, cells in rows}
    if len(widths) != 1 or min(widths) < 3:
        lineno, cells = next((r for r in rows if len(r[1]) != len(rows[0][1])), rows[0])
        msg = (
            f"'{path}' line {lineno}: a 2023 submission row is 'hard_label<TAB>p_0<TAB>p_1' "
            f"(one probability column per class, the same number on every line); got "
            f"{len(cells)} field(s)."
        )
        raise DataError(msg)
    hard = np.empty(len(rows), dtype=np.int64)
    soft = np.empty((len(rows), len(rows[0][1]) - 1))
    for i, (lineno, cells) in enumerate(rows):
        try:
            hard[i] = int(float(cells[0]))
            soft[i] = [float(c) for c in cells[1:]]
        except ValueError:
            msg = f"'{path}' line {lineno}: expected numbers, got {cells!r}."
            raise DataError(msg) from None
    return LewidiPredictions(year=2023, task="soft", items=None, soft=soft, hard=hard)


def _read_2025(path: Path, task: Literal["soft", "pe"]) -> LewidiPredictions:
    rows = _lines(path)
    items: list[str] = []
    values: list[Any] = []
    for lineno, cells in rows:
        if len(cells) != 2:
            msg = (
                f"'{path}' line {lineno}: a 2025 submission row is 'item_id<TAB>[...]'; got "
                f"{len(cells)} tab-separated field(s)."
            )
            raise DataError(msg)
        items.append(cells[0].strip())
        values.append(_parse_list(cells[1].strip(), f"'{path}' line {lineno}"))
    if len(set(items)) != len(items):
        seen: set[str] = set()
        dup = next(i for i in items if i in seen or seen.add(i))  # type: ignore[func-returns-value]
        msg = f"'{path}': item id {dup!r} appears more than once."
        raise DataError(msg)
    if task == "soft":
        try:
            soft = np.asarray(values, dtype=np.float64)
        except ValueError:
            msg = f"'{path}': the distributions do not all have the same number of classes."
            raise DataError(msg) from None
        if soft.ndim not in (2, 3):
            msg = f"'{path}': expected a list (or a list of lists) of probabilities per row."
            raise DataError(msg)
        return LewidiPredictions(year=2025, task="soft", items=tuple(items), soft=soft)
    labels = _pad_labels(values, f"'{path}'")
    return LewidiPredictions(year=2025, task="pe", items=tuple(items), labels=labels)


def _pad_labels(values: Any, where: str, ndims: tuple[int, ...] = (1, 2)) -> FloatArray:
    """Per-item label lists (``ndims``: of one item's labels) as one array, padded with NaN."""
    try:
        rows = [np.asarray(v, dtype=np.float64) for v in values]
    except (TypeError, ValueError):
        msg = f"{where} must hold numeric labels, e.g. [1, 0, 1]."
        raise DataError(msg) from None
    if not rows or len({r.ndim for r in rows}) != 1 or rows[0].ndim not in ndims:
        msg = f"{where}: every row must be a list of labels (or a list of per-label lists)."
        raise DataError(msg)
    if len({r.shape[:-1] for r in rows}) != 1:
        msg = f"{where}: rows hold different numbers of label lists."
        raise DataError(msg)
    out = np.full((len(rows), *rows[0].shape[:-1], max(r.shape[-1] for r in rows)), np.nan)
    for i, r in enumerate(rows):
        out[i, ..., : r.shape[-1]] = r
    return out


def read_lewidi_predictions(
    path: str | Path, *, year: Literal[2023, 2025], task: Literal["soft", "pe"] = "soft"
) -> LewidiPredictions:
    r"""Read a LeWiDi submission file (predictions), 2023 or 2025 format.

    ``task`` (2025) is ``"soft"`` or ``"pe"`` (per-annotator labels). Raises
    ``FileNotFoundError``, ``DataError`` (with the line) for a row off the
    format, ``ValueError`` for an unknown option. The formats (reconstructed
    from the task pages and participants' code; no header): 2023
    ``<Dataset>_results.tsv``, ``hard_label<TAB>p_0<TAB>p_1`` in test file order;
    2025 ``<dataset>_test_soft.tsv``, ``item_id<TAB>[p_0, ..., p_{K-1}]``
    (VariErrNLI: a list of lists); 2025 ``<dataset>_test_pe.tsv``,
    ``item_id<TAB>[label of annotator 1, ...]`` in the gold file's annotator
    order (NaN-padded to (N, A)).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "MP_test_soft.tsv"
    >>> _ = f.write_text("101\t[0.25, 0.75]\n102\t[1.0, 0.0]\n")
    >>> sub = read_lewidi_predictions(f, year=2025)
    >>> sub.items, sub.soft.tolist()
    (('101', '102'), [[0.25, 0.75], [1.0, 0.0]])
    """
    check_option("read_lewidi_predictions", "year", year, (2023, 2025))
    check_option("read_lewidi_predictions", "task", task, ("soft", "pe"))
    p = Path(path)
    if not p.exists():
        msg = f"No such file: '{p}'."
        raise FileNotFoundError(msg)
    if year == 2023:
        if task != "soft":
            msg = "LeWiDi 2023 had no perspectivist task; read 2023 files with task='soft'."
            raise ValueError(msg)
        return _read_2023(p)
    return _read_2025(p, task)


def _label_text(row: npt.NDArray[np.float64]) -> list[Any]:
    """One item's labels (a list per label when 2-D), NaN dropped, integers as such."""
    if row.ndim > 1:
        return [_label_text(r) for r in row]
    kept = row[~np.isnan(row)]
    return [int(v) if float(v).is_integer() else float(v) for v in kept]


def write_lewidi_predictions(
    path: str | Path,
    values: npt.ArrayLike,
    *,
    year: Literal[2023, 2025],
    task: Literal["soft", "pe"] = "soft",
    items: Sequence[str] | None = None,
    hard: npt.ArrayLike | None = None,
) -> Path:
    r"""Write predictions as a LeWiDi submission file (the formats :func:`read_lewidi_predictions` reads).

    ``values``: soft labels (N, K) or (N, L, K), or for ``task="pe"`` labels
    (N, A) or (N, L, A), NaN where an item has fewer annotators; ``items``: the
    ids (2025); ``hard``: the 2023 hard labels (default: the most probable class,
    the first on ties). Replaces ``path`` whole (a temporary file moved into
    place: never a half-written file, :func:`dissensus._atomic.write_file_atomically`)
    and returns it; ``DataError`` for missing or misshapen items or labels,
    ``ValueError`` for an unknown option, ``OutputError`` when it cannot be written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "mp_test_pe.tsv"
    >>> _ = write_lewidi_predictions(f, [[1, 0, 1], [0, 1, np.nan]], year=2025, task="pe",
    ...                              items=["a", "b"])
    >>> f.read_text().splitlines()
    ['a\t[1, 0, 1]', 'b\t[0, 1]']
    """
    check_option("write_lewidi_predictions", "year", year, (2023, 2025))
    check_option("write_lewidi_predictions", "task", task, ("soft", "pe"))
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim not in (2, 3) or arr.shape[0] == 0:
        msg = f"`values` must be a non-empty (N, K) or (N, L, K) array; got shape {arr.shape}."
        raise DataError(msg)
    out = Path(path)
    lines: list[str] = []
    if year == 2023:
        if task != "soft" or arr.ndim != 2:
            msg = "LeWiDi 2023 files hold one (N, K) soft label matrix (task='soft')."
            raise ValueError(msg)
        labels = np.argmax(arr, axis=1) if hard is None else np.asarray(hard)
        if labels.shape != (arr.shape[0],):
            msg = f"`hard` must have one label per row ({arr.shape[0]}); got shape {labels.shape}."
            raise DataError(msg)
        for h, row in zip(labels.tolist(), arr.tolist(), strict=True):
            lines.append("\t".join([str(int(h)), *(repr(float(v)) for v in row)]))
    else:
        if items is None or len(items) != arr.shape[0]:
            msg = f"2025 files need one item id per row ({arr.shape[0]}) in `items`."
            raise DataError(msg)
        for item, row in zip(items, arr, strict=True):
            payload = row.tolist() if task == "soft" else _label_text(row)
            lines.append(f"{item}\t{json.dumps(payload)}")
    return write_file_atomically(out, "\n".join(lines) + "\n")


def _round_like_python(x: FloatArray, ndigits: int) -> FloatArray:
    """Elementwise ``round(float(v), ndigits)``, the way Python rounds.

    :func:`numpy.round` scales by ``10**ndigits`` first, which moves 0.123455
    (0.12345499999...) onto a tie and rounds it up; Python rounds the binary
    value, down. Near-ties (scaled value within 1e-6 of a half) use :func:`round`.
    """
    out = np.round(x, ndigits)
    scaled = x * 10.0**ndigits
    near = np.abs(np.abs(scaled - np.trunc(scaled)) - 0.5) < 1e-6
    for i in np.flatnonzero(near):
        out.flat[i] = round(float(x.flat[i]), ndigits)
    return out


def _sequential_sum(x: FloatArray, axis: int = -1) -> FloatArray:
    """Left-to-right sum over a short axis, as Python's :func:`sum` (NumPy's is pairwise)."""
    moved = np.moveaxis(x, axis, 0)
    total = np.zeros(moved.shape[1:])
    for part in moved:
        total = total + part
    return total


def _rounded_mean(x: FloatArray) -> float:
    """``round(sum(x) / len(x), 5)`` with the sum left to right, in C (the last cumulative sum)."""
    return round(float(np.cumsum(x)[-1]) / int(x.shape[0]), 5)


def _array(x: Any, name: str, func: str, ndim: int, *, labels: bool = False) -> FloatArray:
    """A non-empty ``ndim``-D float array; per-annotator ``labels`` may be ragged (NaN-padded)."""
    shape = ("(N, A)", "(N, L, A)") if labels else ("(N, K)", "(N, L, K)")
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        if labels:
            arr = _pad_labels(x, f"`{name}` of {func}", (ndim - 1,))
        else:
            msg = (
                f"`{name}` of {func} must be a numeric array of shape {shape[ndim - 2]}; it "
                "could not be read as numbers (ragged rows? pad with NaN or pass a list of "
                "equal-length rows)."
            )
            raise DataError(msg) from None
    if arr.ndim != ndim or arr.shape[0] == 0:
        what = "array of labels" if labels else "array"
        msg = (
            f"`{name}` of {func} must be a non-empty {ndim}-D {what} {shape[ndim - 2]}; got "
            f"shape {arr.shape}."
        )
        raise DataError(msg)
    if labels and np.isinf(arr).any():
        msg = f"`{name}` of {func} holds inf; labels must be finite (NaN marks a missing one)."
        raise DataError(msg)
    return arr


def _same_shape(t: FloatArray, p: FloatArray, func: str) -> None:
    if t.shape != p.shape:
        msg = (
            f"`targets` and `predictions` of {func} must have the same shape; got "
            f"{t.shape} and {p.shape}. Align predictions to the targets' items first."
        )
        raise DataError(msg)


def _first(mask: Any) -> tuple[int, ...] | None:
    """Index of the first True entry of ``mask``, or None."""
    return tuple(int(i) for i in np.argwhere(mask)[0]) if mask.any() else None


def _pair(
    targets: Any, predictions: Any, func: str, ndim: int = 2, *, labels: bool = False
) -> tuple[FloatArray, FloatArray]:
    """Soft labels of one shape, finite; or labels NaN at the same places, none all NaN."""
    t = _array(targets, "targets", func, ndim, labels=labels)
    p = _array(predictions, "predictions", func, ndim, labels=labels)
    _same_shape(t, p, func)
    if not labels:
        for name, arr in (("targets", t), ("predictions", p)):
            if (where := _first(~np.isfinite(arr))) is not None:
                msg = f"`{name}` of {func} has a non-finite value {arr[where]} at index {where}."
                raise DataError(msg)
    elif (where := _first(np.isnan(t) != np.isnan(p))) is not None:
        msg = (
            f"`targets` and `predictions` of {func} label different annotators: at index "
            f"{where} one is NaN (no label) and the other is not. Predict a label for "
            "exactly the annotators of each item."
        )
        raise DataError(msg)
    elif (where := _first(np.isnan(t).all(axis=-1))) is not None:
        msg = f"`targets` of {func} has no labels at all for row {where}."
        raise DataError(msg)
    return t, p


def targets_2023(annotations: Annotations | LabelCounts | npt.ArrayLike, /) -> FloatArray:
    r"""The LeWiDi 2023 soft-label targets: (N, 2) probabilities of labels 0 and 1.

    For HS-Brexit, ArMIS and MD-Agreement the ``annotations`` (Annotations,
    LabelCounts or (N, K) counts) are 0/1 and the target is their proportion;
    ConvAbuse's severities :math:`\{-3, \dots, 1\}` give a binary target, abusive
    (:math:`< 0`) or not, as the 2023 JSON files' ``soft_label``:

    .. math:: t_{i1} = \frac{\#\{\text{annotations of } i < 0\}}{n_i},
              \qquad t_{i0} = 1 - t_{i1}.

    Other labels, and items without annotations, raise :class:`~dissensus.DataError`.

    Examples
    --------
    >>> from dissensus import LabelCounts, Scale
    >>> lc = LabelCounts.from_array([[1, 0, 1, 1, 0], [0, 0, 0, 2, 1]],
    ...                             scale=Scale.ordinal([-3, -2, -1, 0, 1]))
    >>> targets_2023(lc)
    array([[0.333, 0.667],
           [1.   , 0.   ]])
    """
    counts = as_label_counts(annotations, "annotations")
    scale = counts.scale
    n = counts.n
    if (n == 0).any():
        msg = (
            f"{int((n == 0).sum())} items have no annotations; the LeWiDi 2023 targets are "
            "undefined for them (drop them first)."
        )
        raise DataError(msg)
    C = counts.values.astype(np.float64)
    if scale.is_numeric and set(scale.values.tolist()) <= {0.0, 1.0}:
        one = C[:, scale.values == 1.0].sum(axis=1)
    elif scale.is_numeric and (scale.values < 0).any():
        one = C[:, scale.values < 0].sum(axis=1)
    else:
        msg = (
            f"The LeWiDi 2023 targets need binary labels (0/1) or ConvAbuse severities "
            f"(-3..1); got the scale {scale!r}."
        )
        raise DataError(msg)
    p1 = one / n
    return np.column_stack([1.0 - p1, p1])


def cross_entropy_2023(targets: npt.ArrayLike, predictions: npt.ArrayLike, /) -> float:
    r"""Soft-label cross-entropy of LeWiDi 2023 (mean over items), as the official scorer computes it.

    ``targets``: (N, 2) gold soft labels (:func:`targets_2023`); predictions
    are used as submitted (not renormalised).

    .. math:: \mathrm{CE} = -\frac1N \sum_{i=1}^N \sum_{k=1}^K t_{ik}
              \ln\bigl(\mathrm{clip}(p_{ik}, 10^{-12}, 1 - 10^{-12}) + 10^{-9}\bigr)

    summed over the whole matrix at once as officially. The :math:`10^{-9}`
    shift caps a class's penalty at :math:`\approx 20.72`
    (:func:`dissensus.metrics.cross_entropy` with ``zero="clip"`` has none).

    Examples
    --------
    >>> cross_entropy_2023([[0.8, 0.2], [0.4, 0.6]], [[0.7, 0.3], [0.5, 0.5]])
    0.60964
    """
    t, p = _pair(targets, predictions, "cross_entropy_2023")
    eps = 1e-12
    clipped = np.clip(p, eps, 1.0 - eps)
    return float(-np.sum(t * np.log(clipped + 1e-9)) / t.shape[0])


def micro_f1_2023(hard_true: npt.ArrayLike, hard_pred: npt.ArrayLike, /) -> float:
    r"""Micro-averaged F1 of hard labels (two 1-D arrays of one length), the LeWiDi 2023 hard evaluation.

    The official ``sklearn.metrics.f1_score(average="micro")``: with one label
    per item, :math:`F_1^{\mu} = 2TP / (2TP + FP + FN)` is the accuracy
    :math:`\frac1N \sum_i [y_i = \hat y_i]`, computed here (bit-identical).

    Examples
    --------
    >>> micro_f1_2023([0, 1, 1, 0], [0, 1, 0, 0])
    0.75
    """
    y = np.asarray(hard_true)
    yhat = np.asarray(hard_pred)
    if y.ndim != 1 or yhat.ndim != 1 or y.shape != yhat.shape or y.size == 0:
        msg = (
            "`hard_true` and `hard_pred` of micro_f1_2023 must be non-empty 1-D arrays of the "
            f"same length; got shapes {y.shape} and {yhat.shape}."
        )
        raise DataError(msg)
    return float(np.mean(y == yhat))


def _md_rows(t: FloatArray, p: FloatArray) -> FloatArray:
    # Python's sum(abs(p - t) for ...) adds left to right; so does this.
    return _round_like_python(_sequential_sum(np.abs(p - t)), 5)


def average_md(targets: npt.ArrayLike, predictions: npt.ArrayLike, /) -> float:
    r"""Average Manhattan distance, the LeWiDi 2025 soft evaluation of MP (``average_MD``).

    .. math:: \mathrm{AMD} = \mathrm{round}\Bigl(\frac1N \sum_{i=1}^N
              \mathrm{round}\bigl(\textstyle\sum_k |p_{ik} - t_{ik}|, 5\bigr), 5\Bigr)

    with Python's :func:`round` and left-to-right sums, as officially
    (unrounded per item: :func:`dissensus.metrics.manhattan`).

    Examples
    --------
    The mean of the rounded 0.2 and 0.15309 is 0.176545, which Python rounds to
    0.17655 (``np.round`` would give 0.17654):

    >>> average_md([[0.6, 0.4], [0.2, 0.8]], [[0.5, 0.5], [0.123455, 0.876545]])
    0.17655
    """
    t, p = _pair(targets, predictions, "average_md")
    d = _md_rows(t, p)
    return _rounded_mean(d)


def multilabel_average_md(targets: npt.ArrayLike, predictions: npt.ArrayLike, /) -> float:
    """Multilabel average Manhattan distance, the LeWiDi 2025 soft evaluation of VariErrNLI.

    (N, L, K) inputs: L = 3 labels (contradiction / entailment / neutral), each
    a K = 2 distribution over no / yes, paired by position. :func:`average_md`
    over the L distributions of each item (rounded), then the rounded mean.

    Examples
    --------
    >>> t = [[[0.5, 0.5], [1.0, 0.0], [0.5, 0.5]]]
    >>> p = [[[0.4, 0.6], [0.9, 0.1], [0.5, 0.5]]]
    >>> multilabel_average_md(t, p)
    0.13333
    """
    t, p = _pair(targets, predictions, "multilabel_average_md", 3)
    d = _md_rows(t, p)  # (N, L)
    per_item = _round_like_python(_sequential_sum(d, axis=1) / d.shape[1], 5)
    return _rounded_mean(per_item)


def average_ws(targets: npt.ArrayLike, predictions: npt.ArrayLike, /) -> float:
    r"""Average Wasserstein distance, the LeWiDi 2025 soft evaluation of Paraphrase and CSC.

    Rows are distributions over the ordered scale points, summing to 1 within
    1e-6. The official ``ot.emd2`` per item, with cost :math:`|h - k|` in scale
    steps, is in one dimension the L1 distance between the cumulative
    distributions (:func:`dissensus.metrics.emd`, ``normalized_distance=False``):

    .. math:: \mathrm{AWD} = \mathrm{round}\Bigl(\frac1N \sum_{i=1}^N
              \sum_{k=1}^{K-1} |P_{ik} - T_{ik}|, 5\Bigr)

    equal to the official value except within ~1e-15 of a rounding tie.

    Examples
    --------
    >>> average_ws([[0, 0.5, 0.5], [1, 0, 0]], [[0.5, 0.5, 0], [0, 0, 1]])
    1.5
    """
    t = as_prob_matrix(_array(targets, "targets", "average_ws", 2), "targets")
    p = as_prob_matrix(_array(predictions, "predictions", "average_ws", 2), "predictions")
    _same_shape(t, p, "average_ws")
    d = emd(t, p, normalized_distance=False)
    return _rounded_mean(d)


def _abs_errors(t: FloatArray, p: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``Σ|t - p|`` over the annotators (left to right, NaN as 0) and how many there are."""
    diff = np.abs(t - p)
    np.nan_to_num(diff, copy=False, nan=0.0)  # adding 0.0 leaves the left-to-right sum unchanged
    return _sequential_sum(diff), np.sum(~np.isnan(t), axis=-1).astype(np.float64)


def _error_rows(t: FloatArray, p: FloatArray) -> FloatArray:
    """Per (item[, label]) score ``round(1 - (a - Σ|t - p|) / a, 5)`` over the annotators."""
    errors, a = _abs_errors(t, p)
    return _round_like_python(1.0 - ((a - errors) / a), 5)


def error_rate(targets: npt.ArrayLike, predictions: npt.ArrayLike, /) -> float:
    r"""Average error rate of per-annotator predictions, the LeWiDi 2025 perspectivist MP score.

    With :math:`a_i` the number of annotators of item i,

    .. math:: \mathrm{ER} = \frac1N \sum_{i=1}^N \mathrm{round}\Bigl(1 -
              \frac{a_i - \sum_k |t_{ik} - p_{ik}|}{a_i}, 5\Bigr)

    for binary labels the share of the item's annotators predicted wrongly
    (other labels by their absolute differences, as officially); not rounded.

    Examples
    --------
    >>> error_rate([[1, 0, 1], [0, 0, np.nan]], [[1, 1, 1], [0, 0, np.nan]])
    0.166665
    """
    t, p = _pair(targets, predictions, "error_rate", labels=True)
    return float(np.mean(_error_rows(t, p)))


def multilabel_error_rate(targets: npt.ArrayLike, predictions: npt.ArrayLike, /) -> float:
    """Multilabel average error rate, the LeWiDi 2025 perspectivist VariErrNLI score.

    (N, L, A) 0 / 1 labels: the mean over the L labels of each item of the
    rounded per-label :func:`error_rate` terms, then the mean over items.

    Examples
    --------
    >>> t = [[[1, 0], [0, 0], [0, 1]]]
    >>> p = [[[1, 1], [0, 0], [0, 1]]]
    >>> multilabel_error_rate(t, p)
    0.16667
    """
    t, p = _pair(targets, predictions, "multilabel_error_rate", 3, labels=True)
    per_label = _error_rows(t, p)  # (N, L)
    return float(np.mean(np.mean(per_label, axis=1)))


def mean_absolute_distance(
    targets: npt.ArrayLike, predictions: npt.ArrayLike, /, *, scale_values: float | Scale
) -> float:
    r"""Mean normalised absolute distance, the LeWiDi 2025 perspectivist score of Paraphrase and CSC.

    ``scale_values`` is the divisor :math:`s`: the official code passes the
    NUMBER OF POINTS of the scale (:data:`SCALE_VALUES_2025`), not its range; a
    :class:`~dissensus.Scale` gives its number of labels; not positive: ``ValueError``.

    .. math:: \mathrm{MAD} = \frac1N \sum_{i=1}^N \frac{1}{s} \cdot
              \frac{1}{a_i} \sum_{k=1}^{a_i} |t_{ik} - p_{ik}|

    without the published factor 100 (commented out in the official code).

    Examples
    --------
    >>> mean_absolute_distance([[1, 3], [6, np.nan]], [[2, 3], [4, np.nan]], scale_values=6)
    0.20833
    """
    s = float(scale_values.K) if isinstance(scale_values, Scale) else float(scale_values)
    if not (s > 0 and math.isfinite(s)):
        msg = (
            "The 'scale_values' parameter of mean_absolute_distance must be a positive number "
            f"(the official code passes 11 for Paraphrase and 6 for CSC). Got {scale_values!r}."
        )
        raise ValueError(msg)
    t, p = _pair(targets, predictions, "mean_absolute_distance", labels=True)
    errors, a = _abs_errors(t, p)
    return float(np.mean(errors / a / s))
