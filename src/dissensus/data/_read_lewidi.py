"""Reading LeWiDi shared-task JSON files (2023 and 2025 editions, single- and multi-label)."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Sequence
from typing import Any, Literal, overload

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataDroppedWarning, DataError, DissensusWarning
from dissensus._validation import check_option, examples
from dissensus.data._annotations import DUPLICATES, Annotations, Duplicates
from dissensus.data._scale import Label, Scale, text_label
from dissensus.data._sets import SetAnnotations
from dissensus.data._tables import PathLike, existing_file, parse_json, shown, text_input

#: Smallest tolerance when comparing a LeWiDi file's ``soft_label`` with the recomputed one.
_SOFT_LABEL_ATOL = 1e-6
#: A file's soft label per record: {label: shares} and the precision it is printed with.
SoftLabels = dict[str, tuple[dict[Label, tuple[float, ...]], float]]


def _lewidi_label(value: Any, where: str, *, single: bool = False) -> Label:
    """One LeWiDi label: ``"0.0"``, ``"0"``, ``0`` and ``0.0`` are one label (``single``: no sets)."""
    if isinstance(value, list | dict) and not single:
        msg = f'{where}: a set holds {shown(value)}, a JSON {"list" if isinstance(value, list) else "object"}; a set lists labels (numbers or strings), e.g. ["entailment", "neutral"].'
        raise DataError(msg)
    if isinstance(value, list | dict) or (single and isinstance(value, str) and "," in value):
        msg = f"{where}: multi-label annotation {shown(value)} in a file read as single-label; read it with read_lewidi(path) or multilabel=True, which gives SetAnnotations."
        raise DataError(msg)
    return json_label(value, where)


def json_label(value: Any, where: str) -> Label:
    """One label from a JSON scalar: text (:func:`text_label`), an int, or a finite float.

    An integral float is the int (``0.0`` and ``0`` are one label); a boolean is refused
    (``true`` would merge with ``1``), and so is anything else (``null``, an object).
    """
    if isinstance(value, bool):
        msg = f"{where}: label {json.dumps(value)} is a JSON boolean; it would merge with 1/0. Write labels as numbers or strings."
        raise DataError(msg)
    if isinstance(value, str):
        return text_label(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value) if value.is_integer() else value
    msg = f"{where}: label {shown(value)} is not a number or a string."
    raise DataError(msg)


def _lewidi_set(value: Any, where: str) -> tuple[Label, ...]:
    """One set-valued LeWiDi annotation: ``"entailment,neutral"``, a JSON list, or one label."""
    parts = [value] if value is None else _split_field(value)
    if any(isinstance(v, str) and not v.strip() for v in parts):
        msg = f"{where}: empty label in the set {shown(value)} (a stray comma?)."
        raise DataError(msg)
    return tuple(_lewidi_label(v, where) for v in parts)


def _split_field(value: Any) -> list[Any]:
    """A LeWiDi list field: a comma-separated string (2023) or a JSON list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [] if not value.strip() else [v.strip() for v in value.split(",")]
    return value if isinstance(value, list) else [value]


def _blank(value: Any) -> bool:
    """An annotation left empty: ``""``, as in the unlabelled test files."""
    return isinstance(value, str) and not value.strip()


def _lewidi_record(record: Any, where: str) -> tuple[list[Any], list[Any] | None, int | None, int]:
    """Annotations as written less the blank ones (``""``), annotators (or None), stated count, blanks."""
    if not isinstance(record, dict):
        msg = f"{where}: expected a JSON object, got {type(record).__name__}."
        raise DataError(msg)
    raw = record.get("annotations")
    annotators: list[Any] | None
    if isinstance(raw, dict):  # LeWiDi 2025: {annotator: label}
        listed, annotators = list(raw.values()), [str(a) for a in raw]
    else:  # LeWiDi 2023: "1,0,0,1" with "Ann1,Ann2,Ann3,Ann4"
        listed = _split_field(raw)
        given = _split_field(record.get("annotators"))
        nested = [a for a in given if isinstance(a, list | dict) or a is None]
        if nested:
            msg = f"{where}: annotator {shown(nested[0])} is not an id; annotators are strings or numbers."
            raise DataError(msg)
        annotators = [str(a) for a in given] if "annotators" in record else None
    filled = [not _blank(v) for v in listed]
    if annotators is not None and any(filled) and len(annotators) != len(listed):
        msg = f"{where}: {len(listed)} annotations but {len(annotators)} annotators; the two lists must pair up one to one."
        raise DataError(msg)
    if annotators is not None and not all(filled):
        annotators = [a for a, f in zip(annotators, filled, strict=False) if f]
    stated = record.get("number of annotations", record.get("number of annotators"))
    count = stated if isinstance(stated, int) and not isinstance(stated, bool) else None
    kept = [v for v, f in zip(listed, filled, strict=True) if f]
    return kept, annotators, count, filled.count(False)


def _is_multilabel(record: Any) -> bool:
    """Whether a record holds a list, a 2025 annotation with a comma, or a per-label soft label.

    (A 2023 record's commas separate annotators.)
    """
    if not isinstance(record, dict):
        return False
    raw = record.get("annotations")
    values = list(raw.values()) if isinstance(raw, dict) else _split_field(raw)
    if any(isinstance(v, list) for v in values):
        return True
    if isinstance(raw, dict) and any(isinstance(v, str) and "," in v for v in values):
        return True
    soft = record.get("soft_label")
    return isinstance(soft, dict) and any(isinstance(v, dict) for v in soft.values())


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _printed_precision(values: Any) -> float:
    """Half a unit in the last decimal the file prints (0.33 → 0.005), at least 1e-6."""
    decimals = 0
    for v in values:
        text = repr(float(v))
        if "e" in text or "E" in text:
            return _SOFT_LABEL_ATOL
        decimals = max(decimals, len(text.split(".")[1]) if "." in text else 0)
    return max(_SOFT_LABEL_ATOL, 0.5 * 10.0**-decimals + 1e-12)


def _soft_label(
    file_soft: Any, where: str, multi: bool
) -> tuple[dict[Label, tuple[float, ...]], float] | None:
    """A record's ``soft_label`` as ``{label: shares}`` and its precision; None if not comparable.

    Single-label: a flat distribution ``{label: p}``, shares ``(p,)``.
    Multi-label: VariErrNLI's ``{label: {"0": q, "1": p}}``, shares ``(q, p)``.
    """
    if not isinstance(file_soft, dict) or not file_soft:
        return None
    if not multi:
        if not all(map(_is_number, file_soft.values())):
            return None
        flat: dict[Label, tuple[float, ...]] = {
            _lewidi_label(k, where): (float(v),) for k, v in file_soft.items()
        }
        return flat, _printed_precision(file_soft.values())
    out: dict[Label, tuple[float, ...]] = {}
    printed: list[float] = []
    for key, dist in file_soft.items():
        if not isinstance(dist, dict) or not all(map(_is_number, dist.values())):
            return None
        shares = {_lewidi_label(k, where): float(v) for k, v in dist.items()}
        if not set(shares) <= {0, 1}:
            return None
        out[_lewidi_label(key, where)] = (shares.get(0, 0.0), shares.get(1, 0.0))
        printed.extend(dist.values())
    return out, _printed_precision(printed)


def _check_soft_labels(
    items: pd.Index,
    recomputed: npt.NDArray[np.float64],
    scale: Scale,
    soft: SoftLabels,
    path: PathLike,
    *,
    multi: bool,
) -> None:
    """Warn when the file's soft labels disagree with ``recomputed`` (N, K, shares per label).

    Single-label, a label the file leaves out has share 0; multi-label, it is
    not compared. Labels off the scale add their share to the difference.
    """
    rows = items.get_indexer(pd.Index(list(soft), dtype=object))
    given = np.zeros_like(recomputed)
    stated = np.full(recomputed.shape[:2], not multi)
    extra = np.zeros(len(recomputed))
    atol = np.full(len(recomputed), _SOFT_LABEL_ATOL)
    for row, (dist, tol) in zip(rows, soft.values(), strict=True):  # records, one by one
        if row < 0:
            continue
        atol[row] = tol
        for label, shares in dist.items():
            if label in scale:
                given[row, scale.index(label)] = shares
                stated[row, scale.index(label)] = True
            else:
                extra[row] += abs(shares[-1])
    checked = np.zeros(len(recomputed), dtype=bool)
    checked[rows[rows >= 0]] = True
    diff = np.where(stated[..., None], np.abs(given - recomputed), 0.0).max(axis=(1, 2)) + extra
    bad = np.flatnonzero(checked & (diff > atol))
    if bad.size:
        msg = f"'{path}': the file's {'per-label ' if multi else ''}soft_label disagrees with the annotations in {bad.size} of {int(checked.sum())} records (largest difference {diff[bad].max():.3g}; records {examples(items[bad].tolist())}); dissensus uses the {'shares' if multi else 'label proportions'} recomputed from the annotations."
        warnings.warn(msg, DissensusWarning, stacklevel=3)


def _is_json_lines(text: str) -> bool:
    """Whether the first two non-blank lines are each one JSON object (a JSONL file)."""
    lines = [line for line in text.splitlines()[:100] if line.strip()][:2]
    try:
        return len(lines) == 2 and all(isinstance(json.loads(line), dict) for line in lines)
    except (ValueError, RecursionError):
        return False


@overload
def read_lewidi(
    path: PathLike,
    *,
    scale: Scale | Sequence[Any] | None = ...,
    ordered: bool | None = ...,
    meta: Sequence[str] | None = ...,
    dropna: bool = ...,
    duplicates: Duplicates = ...,
    multilabel: Literal[False],
) -> Annotations: ...
@overload
def read_lewidi(
    path: PathLike,
    *,
    scale: Scale | Sequence[Any] | None = ...,
    ordered: bool | None = ...,
    meta: Sequence[str] | None = ...,
    dropna: bool = ...,
    duplicates: Duplicates = ...,
    multilabel: Literal[True],
) -> SetAnnotations: ...
@overload
def read_lewidi(
    path: PathLike,
    *,
    scale: Scale | Sequence[Any] | None = ...,
    ordered: bool | None = ...,
    meta: Sequence[str] | None = ...,
    dropna: bool = ...,
    duplicates: Duplicates = ...,
    multilabel: bool | None = ...,
) -> Annotations | SetAnnotations: ...
def read_lewidi(
    path: PathLike,
    *,
    scale: Scale | Sequence[Any] | None = None,
    ordered: bool | None = None,
    meta: Sequence[str] | None = None,
    dropna: bool = False,
    duplicates: Duplicates = "error",
    multilabel: bool | None = None,
) -> Annotations | SetAnnotations:
    """Read a LeWiDi shared-task JSON file (2023 or 2025 editions).

    The file maps item ids to records. Two record shapes are understood:

    - 2023 (HS-Brexit, ArMIS, MD-Agreement, ConvAbuse): ``"annotations":
      "1,0,0,1"`` with ``"annotators": "Ann1,Ann2,Ann3,Ann4"`` (comma
      separated strings, paired by position; JSON lists work too).
    - 2025 (perspectivist: CSC, MP, Paraphrase, VariErrNLI):
      ``"annotations": {"Ann1": "3", "Ann2": "4"}`` (annotator → label;
      VariErrNLI's ``"entailment,neutral"`` is a set, see ``multilabel``).

    Labels that read as numbers are numbers (``"0.0"``, ``"0"``, ``0`` and
    ``0.0`` are one label); item ids are the file's keys (strings).

    The file's ``soft_label`` is never used: it is compared with the one
    recomputed from the annotations (label proportions; multi-label:
    :meth:`SetAnnotations.binary_targets`; the 2023 ConvAbuse file: the
    share of severities < 0, as :func:`dissensus.metrics.lewidi.targets_2023`),
    and a difference beyond its printed precision (half a unit in the last
    decimal, at least 1e-6: 1/3 printed as 0.33) is a :class:`DissensusWarning`.

    Empty annotations (``""``, as in the unlabelled ``*_test_clear.json``
    files) are never labels: a file of them is refused, and a record with
    some is refused unless ``dropna=True`` skips them.

    Parameters
    ----------
    path : str or path-like
    scale, ordered, duplicates
        See :mod:`dissensus.data` (``duplicates``: an annotator listed twice
        on one record). Labels nobody chose are absent from an inferred scale.
    meta : sequence of str, optional
        Record fields to keep as item-level columns. Default: those of
        ``"split"`` and ``"lang"`` present in the file.
    dropna : bool
        Skip records without annotations, and empty annotations within a
        record, with a :class:`DataDroppedWarning`, instead of raising.
    multilabel : bool, optional
        Read every annotation as a set of labels (comma separated, or a JSON
        list; ``[]`` is the empty set) and return :class:`SetAnnotations`.
        Default: when some record is multi-label (a comma or a list in an
        annotation, or a per-label ``soft_label``). The universe is ``scale``,
        else the labels present and the ``soft_label`` keys, sorted (for
        VariErrNLI the official order: contradiction, entailment, neutral).

    Raises
    ------
    DataError
        Invalid JSON (with its line), a record that is not an object,
        annotation and annotator lists of different lengths, multi-label
        annotations with ``multilabel=False``, and the cases above, naming
        the file and the record. A stated number of annotations that
        differs from those listed is a :class:`DissensusWarning`.

    References
    ----------
    E. Leonardelli et al. "SemEval-2023 Task 11: Learning with
    Disagreements (LeWiDi)". SemEval 2023. :doi:`10.18653/v1/2023.semeval-1.314`

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "lewidi.json"
    >>> _ = f.write_text(json.dumps({
    ...     "1": {"annotations": "1,0,0", "annotators": "Ann1,Ann2,Ann3",
    ...           "soft_label": {"0": 0.6666666666666666, "1": 0.3333333333333333}},
    ...     "2": {"annotations": {"Ann1": "1.0", "Ann3": "1"}, "soft_label": {"1.0": 1.0}}}))
    >>> read_lewidi(f).counts().to_frame()
    label  0  1  n
    item
    1      2  1  3
    2      0  2  2
    """
    p = existing_file(path)
    check_option("read_lewidi", "duplicates", duplicates, DUPLICATES)
    raw = text_input(p, "a LeWiDi JSON file", "a LeWiDi JSON file (an object of records)")
    text = raw.decode("utf-8")
    try:
        data = parse_json(text, path, what="a LeWiDi file (a record is one or two levels deep)")
    except DataError as exc:
        if "Extra data" in str(exc) and _is_json_lines(text):
            msg = f"'{path}' is JSON Lines (one JSON object per line), not a LeWiDi JSON file (one object mapping item ids to records); read it with format='jsonl', or name it .jsonl."
            raise DataError(msg) from None
        raise
    if not isinstance(data, dict) or not data:
        msg = f"'{path}' is not a LeWiDi file: expected a JSON object mapping item ids to records, got {'an empty object' if isinstance(data, dict) else type(data).__name__}."
        raise DataError(msg)

    keep = (
        [f for f in ("split", "lang") if any(isinstance(r, dict) and f in r for r in data.values())]
        if meta is None
        else list(meta)
    )
    multi = any(map(_is_multilabel, data.values())) if multilabel is None else multilabel
    item_col: list[str] = []
    annotator_col: list[Any] = []
    label_col: list[Any] = []
    meta_cols: dict[str, list[Any]] = {m: [] for m in keep}
    no_annotators: list[str] = []
    empty: list[str] = []
    miscounted: list[str] = []
    partly_blank: list[str] = []
    soft: SoftLabels = {}
    for key, record in data.items():
        item_id = str(key)
        where = f"'{path}' record {shown(item_id)}"
        values, annotators, stated, blank = _lewidi_record(record, where)
        labels = [
            _lewidi_set(v, where) if multi else _lewidi_label(v, where, single=True) for v in values
        ]
        if not labels:
            empty.append(item_id)
            continue
        if blank:
            partly_blank.append(item_id)
            stated = None if stated is None else stated - blank
        if annotators is None:
            no_annotators.append(item_id)
            annotators = [None] * len(labels)
        if stated is not None and stated != len(labels):
            miscounted.append(item_id)
        item_col.extend([item_id] * len(labels))
        annotator_col.extend(annotators)
        label_col.extend(labels)
        for m in keep:
            value = record.get(m)
            if isinstance(value, list | dict):
                msg = f"{where}: field {m!r} is {shown(value)}; a field kept as meta is one value (a string or a number) per record. Name the fields to keep with meta=[...] (CLI: --meta COL,COL)."
                raise DataError(msg)
            meta_cols[m].extend([value] * len(labels))
        # Only a flat distribution is comparable with single labels; VariErrNLI's
        # nested per-label marginals ({"entailment": {"0": .5, "1": .5}, ...}) are not.
        file_soft = _soft_label(record.get("soft_label"), where, multi)
        if file_soft is not None:
            soft[item_id] = file_soft
    for m in keep:
        if not any(v is not None for v in meta_cols[m]) and meta is not None:
            msg = f"'{path}' has no field {m!r} in any annotated record; cannot keep it as meta."
            raise DataError(msg)
    if len(empty) == len(data):
        msg = f"'{path}' is an unlabelled file: none of its {len(data)} records has an annotation (empty annotations, as in the LeWiDi *_test_clear.json files). Read the annotated train or dev file instead."
        raise DataError(msg)
    if partly_blank:
        if not dropna:
            msg = f"'{path}': {len(partly_blank)} records have some empty annotations (records {examples(partly_blank)}); pass dropna=True to skip the empty ones."
            raise DataError(msg)
        msg = f"Skipped the empty annotations of {len(partly_blank)} records in '{path}' (records {examples(partly_blank)})."
        warnings.warn(msg, DataDroppedWarning, stacklevel=2)
    if empty:
        if not dropna:
            msg = f"'{path}': {len(empty)} of {len(data)} records have no annotations (records {examples(empty)}), e.g. an unlabelled test file; pass dropna=True to skip them."
            raise DataError(msg)
        msg = f"Skipped {len(empty)} of {len(data)} records without annotations in '{path}' (records {examples(empty)})."
        warnings.warn(msg, DataDroppedWarning, stacklevel=2)
    if no_annotators and len(no_annotators) != len(set(item_col)):
        msg = f"'{path}': some records list annotators and some do not (e.g. record {no_annotators[0]!r}); give annotators for every record or for none."
        raise DataError(msg)
    # labels as they are: no int/float/str coercion by NumPy, tuples (sets) whole
    labels_array = np.fromiter(label_col, dtype=object, count=len(label_col))
    long = pd.DataFrame(
        {"item": item_col, "annotator": annotator_col, "label": labels_array},
        index=pd.Index(item_col, name="record"),
    )
    for m in keep:
        long[m] = meta_cols[m]
    options: dict[str, Any] = {"annotator": None if no_annotators else "annotator", "meta": keep}
    options.update(duplicates=duplicates, source=str(path))
    out: Annotations | SetAnnotations
    if multi:
        if scale is None:
            named = [k for dist, _ in soft.values() for k in dist]
            present = [v for cell in label_col for v in cell] + named
            scale = Scale.infer(present, ordered=bool(ordered)) if present else None
        elif not isinstance(scale, Scale):
            scale = Scale(tuple(scale), ordered=bool(ordered))
        out = SetAnnotations.from_frame(long, scale=scale, **options)
    else:
        out = Annotations.from_frame(long, scale=scale, ordered=ordered, **options)
    if miscounted:
        msg = f"'{path}': the stated number of annotations differs from the annotations listed in {len(miscounted)} records (e.g. {examples(miscounted)}); the listed ones are used."
        warnings.warn(msg, DissensusWarning, stacklevel=2)
    if not soft:
        return out
    if isinstance(out, SetAnnotations):
        _check_soft_labels(out.items, out.binary_targets(), out.scale, soft, path, multi=True)
        return out
    recomputed, sc = out.counts().proportions(), out.scale
    binary = all(set(dist) <= {0, 1} for dist, _ in soft.values())
    if binary and sc.is_numeric and (sc.values < 0).any():  # noqa: PD011 - a Scale
        # the 2023 ConvAbuse file prints the LeWiDi 2023 target: the share of severities < 0
        abusive = recomputed[:, sc.values < 0].sum(axis=1)  # noqa: PD011 - a Scale
        recomputed, sc = np.column_stack([1.0 - abusive, abusive]), Scale.nominal([0, 1])
    _check_soft_labels(out.items, recomputed[..., None], sc, soft, path, multi=False)
    return out
