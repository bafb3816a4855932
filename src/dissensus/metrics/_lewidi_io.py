"""Reading and writing LeWiDi submission (prediction) files, 2023 and 2025 formats.

The formats (reconstructed from the task pages and from participants'
published submission code, there being no formal specification) are in the
Notes of :func:`read_lewidi_predictions`.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from dissensus._exceptions import DataError
from dissensus._validation import check_option
from dissensus.data import Predictions

__all__ = [
    "LewidiPredictions",
    "pad_labels",
    "read_lewidi_predictions",
    "write_lewidi_predictions",
]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class LewidiPredictions:
    """The content of one LeWiDi submission file.

    Attributes
    ----------
    year : {2023, 2025}
        Format of the file.
    task : {"soft", "pe"}
        Soft labels or perspectivist (per-annotator) labels.
    items : tuple of str or None
        Item ids in file order (None for 2023 files, which have none).
    soft : ndarray or None
        (N, K) predicted distributions, or (N, L, K) for multilabel files.
    hard : ndarray or None
        (N,) hard labels (2023 files only).
    labels : ndarray or None
        (N, A) per-annotator labels, or (N, L, A), padded with NaN (task "pe").
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
        for arr in (self.soft, self.labels, self.hard):
            if arr is not None:
                return int(arr.shape[0])
        return 0  # pragma: no cover - every reader fills one array

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
        shape = next((a.shape for a in (self.soft, self.labels, self.hard) if a is not None), ())
        return f"LewidiPredictions(year={self.year}, task={self.task!r}, shape={shape})"


def _parse_list(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        msg = f"{where}: cannot read {text[:60]!r} as a list of numbers, e.g. [0.2, 0.8]."
        raise DataError(msg) from None


def _lines(path: Path) -> list[tuple[int, list[str]]]:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            stripped = line.rstrip("\r\n")
            if stripped.strip():
                rows.append((lineno, stripped.split("\t")))
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
    labels = pad_labels(values, f"'{path}'")
    return LewidiPredictions(year=2025, task="pe", items=tuple(items), labels=labels)


def pad_labels(values: Any, where: str, ndims: tuple[int, ...] = (1, 2)) -> FloatArray:
    """Per-item label lists (or lists of per-label lists) as one array, padded with NaN.

    Items have different numbers of annotators; ``ndims`` are the accepted
    dimensions of one item's labels.
    """
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

    Parameters
    ----------
    path : str or Path
        The TSV file.
    year : {2023, 2025}
        Edition whose format the file follows (see Notes).
    task : {"soft", "pe"}, default "soft"
        2025 only: soft labels (``*_test_soft.tsv``) or perspectivist
        per-annotator labels (``*_test_pe.tsv``).

    Returns
    -------
    LewidiPredictions
        Item ids (2025), soft labels, hard labels (2023) or per-annotator
        labels; ``.to_predictions()`` gives a :class:`~dissensus.Predictions`.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    DataError
        A row that does not follow the format (the message gives the line).
    ValueError
        Unknown ``year`` or ``task``.

    Notes
    -----
    The formats are reconstructed from the task pages and from published
    participant code (there is no formal specification):

    - 2023 ``<Dataset>_results.tsv``: no header, no item ids (rows follow
      the test file's order), ``hard_label<TAB>p_0<TAB>p_1``.
    - 2025 ``<dataset>_test_soft.tsv``: no header,
      ``item_id<TAB>[p_0, ..., p_{K-1}]`` (VariErrNLI: a list of lists).
    - 2025 ``<dataset>_test_pe.tsv``: no header,
      ``item_id<TAB>[label of annotator 1, ...]`` in the order of the item's
      annotators in the gold file; padded here with NaN to (N, A).

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
    kept = row[~np.isnan(row)]
    return [int(v) if float(v).is_integer() else float(v) for v in kept]


def write_lewidi_predictions(
    path: str | Path,
    values: npt.ArrayLike,
    *,
    year: Literal[2023, 2025],
    task: Literal["soft", "pe"] = "soft",
    items: Any = None,
    hard: npt.ArrayLike | None = None,
) -> Path:
    r"""Write predictions as a LeWiDi submission file, in the formats :func:`read_lewidi_predictions` reads.

    Parameters
    ----------
    path : str or Path
        Output file (overwritten).
    values : array_like
        Soft labels (N, K) or (N, L, K); for ``task="pe"`` per-annotator
        labels (N, A) or (N, L, A), NaN where an item has fewer annotators.
    year : {2023, 2025}
        Format.
    task : {"soft", "pe"}, default "soft"
        2025 only.
    items : sequence, optional
        Item ids, required for 2025 files (2023 files have none).
    hard : array_like, optional
        2023 hard labels; by default the most probable class (the first one
        on ties).

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    DataError
        Missing or misshapen items / labels.
    ValueError
        Unknown ``year`` or ``task``.

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
            if task == "soft":
                payload: Any = row.tolist()
            elif row.ndim == 1:
                payload = _label_text(row)
            else:
                payload = [_label_text(r) for r in row]
            lines.append(f"{item}\t{json.dumps(payload)}")
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out
