"""Reading annotation files: tables (CSV, TSV, Parquet, JSONL), ConvAbuse CSVs, and the dispatch."""

from __future__ import annotations

import difflib
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import ColumnsDetectedWarning, DataError
from dissensus._validation import check_option, examples
from dissensus.data._annotations import DUPLICATES, Annotations, Duplicates
from dissensus.data._predictions import ID_COLUMNS
from dissensus.data._read_lewidi import read_lewidi
from dissensus.data._read_tools import TOOL_FORMATS, ToolFormat, read_tool, sniff_tool
from dissensus.data._scale import Scale
from dissensus.data._sets import SetAnnotations
from dissensus.data._tables import (
    TABLE_FORMATS,
    PathLike,
    existing_file,
    in_source,
    locations,
    open_table,
    read_delimited,
    read_frame,
    refuse_all_empty,
    refuse_nested,
)

# -- the columns of a long table ----------------------------------------------------

#: The roles of a long table's columns, in the order messages name them.
ROLES = ("item", "annotator", "label")
#: The names each role's column is recognised by, after its exact default name (the first).
#: Compared with letter case and separators ignored: ``Worker ID``, ``worker-id``,
#: ``worker_id`` and ``WorkerId`` are one name. No name is in two lists.
COLUMN_NAMES: dict[str, tuple[str, ...]] = {
    "item": ID_COLUMNS,
    "annotator": (
        "annotator",
        "annotator_id",
        "rater",
        "rater_id",
        "worker",
        "worker_id",
        "WorkerId",
        "user",
        "user_id",
        "coder",
        "judge",
    ),
    "label": (
        "label",
        "rating",
        "stars",
        "score",
        "answer",
        "response",
        "value",
        "class",
        "category",
        "annotation",
    ),
}
_WHAT = {"item": "an item id", "annotator": "an annotator id", "label": "a label"}


def _folded(name: Any) -> str:
    """A column name without letter case or separators: ``"Worker ID"`` -> ``"workerid"``."""
    return re.sub(r"[\W_]+", "", str(name)).casefold()


_FOLDED = {role: frozenset(map(_folded, names)) for role, names in COLUMN_NAMES.items()}


@dataclass(frozen=True)
class ColumnChoice:
    """The column of each role of a long table, how it was chosen, and what else it could be.

    Attributes
    ----------
    columns : dict
        Role (``"item"``, ``"annotator"``, ``"label"``) -> column, None while undecided.
    how : dict
        Role -> ``"given"`` (named by the caller), ``"default"`` (the exact
        default name), ``"name"`` (one column with a known name),
        ``"elimination"`` (the only column left), or, undecided,
        ``"absent"`` (given, not in the table), ``"ambiguous"`` (several
        known names) or ``"unknown"`` (no known name).
    candidates : dict
        Undecided role -> the columns it could be: the known names
        (ambiguous), close spellings (absent), or the columns no role took
        (unknown).
    given : dict
        Role -> the column the caller named, None for a role to detect.
    """

    columns: dict[str, Any]
    how: dict[str, str]
    candidates: dict[str, tuple[Any, ...]]
    given: dict[str, Any]

    @property
    def undecided(self) -> list[str]:
        """The roles without a column."""
        return [role for role, column in self.columns.items() if column is None]

    @property
    def detected(self) -> list[str]:
        """The roles whose column was found by its name or by elimination (not given, not default)."""
        return [role for role, how in self.how.items() if how in ("name", "elimination")]


def detect_columns(
    columns: Sequence[Any], given: Mapping[str, Any], *, exclude: Sequence[Any] = ()
) -> ColumnChoice:
    """Choose the column of each role in ``given`` among ``columns``, or say why not.

    ``given`` maps each role to fill (``"item"``, ``"annotator"``,
    ``"label"``; leave out ``"annotator"`` when the data have no annotator
    ids) to its column, or to None to detect it. ``exclude``: columns no
    role is detected in (item-level columns). The rules, in order:

    1. A given column is used as given (never replaced), or reported absent.
    2. A role's exact default name (``item``, ``annotator``, ``label``).
    3. The one column whose name, letter case and separators ignored, is in
       :data:`COLUMN_NAMES` for the role; two or more are ambiguous and
       listed, never chosen between.
    4. By elimination: when exactly one role is left without a known name,
       every other role has its column, and exactly one column is left.

    Examples
    --------
    >>> choice = detect_columns(["item_id", "Rater ID", "stars"], dict.fromkeys(ROLES))
    >>> choice.columns, choice.detected
    ({'item': 'item_id', 'annotator': 'Rater ID', 'label': 'stars'}, ['item', 'annotator', 'label'])
    >>> detect_columns(["id", "text_id", "who", "y"], dict.fromkeys(ROLES)).candidates
    {'item': ('id', 'text_id'), 'annotator': ('who', 'y'), 'label': ('who', 'y')}
    """
    if set(given) - set(ROLES):
        msg = f"detect_columns: roles are {', '.join(ROLES)}; got {examples(sorted(set(given) - set(ROLES)))}."
        raise ValueError(msg)
    names = list(columns)
    chosen: dict[str, Any] = {}
    how: dict[str, str] = {}
    candidates: dict[str, tuple[Any, ...]] = {}
    for role, column in given.items():
        if column is None:
            continue
        if column in names:
            chosen[role], how[role] = column, "given"
        else:
            close = difflib.get_close_matches(str(column), list(map(str, names)), n=3)
            chosen[role], how[role] = None, "absent"
            candidates[role] = tuple(c for c in names if str(c) in close)
    taken = {c for c in chosen.values() if c is not None}
    # a column without a name (a pandas index written by to_csv) is no role's
    pool = [c for c in names if c not in taken and c not in set(exclude) and str(c).strip()]
    todo = [role for role, column in given.items() if column is None]
    for role in todo:
        if role in pool and role not in taken:  # the exact default name
            chosen[role], how[role] = role, "default"
            taken.add(role)
    for role in (r for r in todo if r not in how):
        known = [c for c in pool if c not in taken and _folded(c) in _FOLDED[role]]
        if len(known) == 1:
            chosen[role], how[role] = known[0], "name"
        else:
            chosen[role], how[role] = None, "ambiguous" if known else "unknown"
            candidates[role] = tuple(known)
    taken |= {c for c in chosen.values() if c is not None}
    # the known names of an ambiguous role are its candidates, not another role's
    claimed = {c for r, found in candidates.items() if how[r] == "ambiguous" for c in found}
    left = tuple(c for c in pool if c not in taken and c not in claimed)
    unknown = [role for role in given if how[role] == "unknown"]
    others_decided = all(chosen[r] is not None for r in given if r not in unknown)
    if len(unknown) == 1 and len(left) == 1 and others_decided:
        chosen[unknown[0]], how[unknown[0]] = left[0], "elimination"
        del candidates[unknown[0]]
    else:
        candidates.update(dict.fromkeys(unknown, left))
    order = [role for role in ROLES if role in given]
    return ColumnChoice(
        columns={r: chosen[r] for r in order},
        how={r: how[r] for r in order},
        candidates={r: candidates[r] for r in order if r in candidates},
        given={r: given[r] for r in order},
    )


def _named(column: Any) -> str:
    """A column name as a message shows it: bare when it reads unambiguously, else quoted."""
    text = str(column)
    return text if re.fullmatch(r"[\w.-]+", text) else repr(column)


def columns_detected_message(choice: ColumnChoice, source: str | None) -> str:
    """What :func:`read_annotations` says when it chose a column by itself (the warning's text)."""
    used = ", ".join(f"{role}={_named(column)}" for role, column in choice.columns.items())
    ways = {"name": "by name", "elimination": "as the only column left"}
    found = "; ".join(
        f"{', '.join(r for r in choice.detected if choice.how[r] == way)} {text}"
        for way, text in ways.items()
        if any(choice.how[r] == way for r in choice.detected)
    )
    flags = "/".join(f"{role}=" for role in choice.columns)
    return f"Using columns {used}{in_source(source)} ({found}); pass {flags} to choose others."


def _role_problem(choice: ColumnChoice, role: str) -> str:
    """One undecided role, its candidates and the option that decides it."""
    how, found = choice.how[role], choice.candidates.get(role, ())
    fix = f"name it with {role}=..."
    if role == "annotator":
        fix += " or pass annotator=None if the data has no annotator ids"
    if how == "ambiguous":
        return f"{role}: {examples(found)} all look like {_WHAT[role]}; choose one with {role}=..."
    if how == "absent":
        guess = f" (close: {examples(found)})" if found else ""
        return f"{role}: no column {choice.given[role]!r}{guess}; {fix}"
    names = ", ".join(COLUMN_NAMES[role][:4])
    shortlist = f"one of {examples(found, 8)}" if found else "no column is left"
    return f"{role}: no column named like {_WHAT[role]} ({names}, …): {shortlist}; {fix}"


def undecided_columns_message(
    choice: ColumnChoice,
    columns: Sequence[Any],
    source: str | None,
    *,
    cells: pd.DataFrame | None = None,
    dropna: bool = False,
) -> str:
    """One message for every undecided role of ``choice``, with the blank cells besides.

    ``columns``: the table's columns. ``cells``: the table as read, if it was;
    its blank cells in the chosen and candidate columns are counted too (unless
    ``dropna``), so that one message says all that is missing.
    """
    decided = [f"{r}={_named(c)}" for r, c in choice.columns.items() if c is not None]
    known = f" (decided: {', '.join(decided)})" if decided else ""
    problems = "; ".join(_role_problem(choice, role) for role in choice.undecided)
    of = f" of '{source}'" if source else ""
    msg = f"Cannot tell which columns{of} hold the {', '.join(choice.undecided)}{known}: {problems}. Columns: {examples(list(columns), 12)}."
    if dropna or cells is None:
        return msg
    df = cells
    looked = [
        *filter(None, choice.columns.values()),
        *(c for f in choice.candidates.values() for c in f),
    ]
    looked = [c for c in dict.fromkeys(looked) if c in df.columns]
    blank = df[looked].isna() if looked else pd.DataFrame(index=df.index)
    rows = np.flatnonzero(blank.to_numpy().any(axis=1)) if looked else np.empty(0, np.intp)
    if rows.size:
        per = ", ".join(f"{_named(c)}: {int(n)}" for c, n in blank.sum().items() if n)
        msg += f" Also {rows.size} row{'s' if rows.size > 1 else ''} with blank cells ({per}) at {locations(df.index, rows, source)}: fill them, or pass dropna=True to drop those rows."
    return msg


def _to_detect(given: Mapping[str, Any], columns: Sequence[Any]) -> dict[str, Any]:
    """``given`` with None for a role left at its default name (the role's) that ``columns`` lack."""
    return {r: None if c == r and c not in columns else c for r, c in given.items()}


def _settle(
    choice: ColumnChoice,
    columns: Sequence[Any],
    source: str | None,
    *,
    cells: pd.DataFrame | None = None,
    dropna: bool = False,
    stacklevel: int = 2,
) -> dict[str, Any]:
    """The chosen columns, announced when detected; refused (every role at once) when undecided."""
    if choice.undecided:
        msg = undecided_columns_message(choice, columns, source, cells=cells, dropna=dropna)
        raise DataError(msg)
    if choice.detected:
        msg = columns_detected_message(choice, source)
        warnings.warn(msg, ColumnsDetectedWarning, stacklevel=stacklevel + 1)
    return choice.columns


def choose_columns(
    columns: Sequence[Any],
    given: Mapping[str, Any],
    *,
    source: str | None = None,
    exclude: Sequence[Any] = (),
) -> dict[str, Any]:
    """The column of each role in ``given``, by :func:`detect_columns`, announced or refused.

    ``given``: role -> column, as a reader's options say. A role left at its
    default name (``item="item"``) that ``columns`` lack is detected. A
    detected column is announced with a :class:`~dissensus.ColumnsDetectedWarning`;
    undecided roles are refused in one :class:`DataError` that lists the
    candidates of each, ``columns`` and the options that decide them.
    """
    choice = detect_columns(columns, _to_detect(given, columns), exclude=exclude)
    return _settle(choice, columns, source, stacklevel=3)


class _TableColumns:
    """The columns of a table, chosen on its header (the id columns are read as text).

    ``exclude``: columns no role is detected in. The columns to strip: the
    label with ``strip_labels``, else ``strip`` (see :func:`read_frame`).
    """

    def __init__(
        self,
        given: dict[str, Any],
        exclude: Sequence[Any],
        *,
        strip_labels: bool = False,
        strip: Sequence[str] | None = (),
    ) -> None:
        self.given = given
        self.exclude = exclude
        self.strip_labels = strip_labels
        self.strip = strip
        self.choice = ColumnChoice({}, {}, {}, {})

    def __call__(self, header: list[Any]) -> tuple[list[str], Sequence[str] | None]:
        self.choice = detect_columns(header, _to_detect(self.given, header), exclude=self.exclude)
        columns = self.choice.columns
        ids = [columns[r] for r in ("item", "annotator") if columns.get(r) is not None]
        label = columns.get("label")
        return ids, [label] if self.strip_labels and label is not None else self.strip

    def decided(self, df: pd.DataFrame, path: PathLike, dropna: bool) -> dict[str, Any]:
        """The chosen columns (see :func:`_settle`); ``df``: the table as read."""
        return _settle(
            self.choice, list(df.columns), str(path), cells=df, dropna=dropna, stacklevel=4
        )


#: How pandas names a column whose header cell is empty.
_UNNAMED = re.compile(r"Unnamed: \d+")


def _refuse_unnamed(df: pd.DataFrame, raters: Sequence[Any], path: PathLike) -> None:
    """Refuse an annotator column with an empty header: most likely an index, not an annotator.

    ``df.to_csv(path)`` writes the index first under an empty header cell,
    which pandas reads back as ``'Unnamed: 0'``; counted as an annotator its
    item ids (or row numbers) would silently become labels.
    """
    named = {str(c) for c in raters}
    for k, c in enumerate(df.columns):
        if isinstance(c, str) and c in named and _UNNAMED.fullmatch(c):
            msg = f"'{path}': column {k + 1} has no name (a pandas index written by to_csv?): drop it or name it, e.g. item=... (pandas reads it as {c!r}); without a name it would count as an annotator."
            raise DataError(msg)


Format = (
    Literal[
        "csv",
        "tsv",
        "parquet",
        "jsonl",
        "lewidi",
        "convabuse",
    ]
    | ToolFormat
)
_ONE_LABEL = "a single-label annotation is one label per cell; for sets of labels read the file with read_set_annotations (CLI: --sets)"
_ONE_META = "an item-level column holds one value (a string or a number) per row"


def read_annotations(
    path: PathLike,
    format: Format | None = None,
    *,
    layout: Literal["long", "wide"] = "long",
    item: str = "item",
    annotator: str | None = "annotator",
    label: str = "label",
    annotators: Sequence[str] | None = None,
    scale: Scale | Sequence[Any] | None = None,
    ordered: bool | None = None,
    meta: Sequence[str] = (),
    dropna: bool = False,
    duplicates: Duplicates | None = None,
    sep: str | None = None,
    na_values: Sequence[str] = (),
    strip_labels: bool = False,
    question: str | None = None,
) -> Annotations:
    r"""Read annotations from a file.

    Parameters
    ----------
    path : str or path-like
    format : {"csv", "tsv", "parquet", "jsonl", "lewidi", "convabuse", "labelstudio", "prodigy", "doccano", "argilla", "sagemaker", "mturk"}, optional
        ``"lewidi"`` and ``"convabuse"`` call :func:`read_lewidi` and
        :func:`read_convabuse`, whose columns are fixed. The annotation-tool
        formats (Label Studio JSON/JSON-MIN/CSV, Prodigy ``db-out`` JSONL,
        doccano per-user JSONL, Argilla 2.x records, SageMaker Ground Truth
        output manifests, MTurk batch results) have fixed columns too; each
        maps to (item, annotator, label, text) as its page in
        ``docs/formats/`` says. Without ``format``, a tool export is
        recognised from its content (a directory is a doccano export);
        a set-valued answer (several choices) is read with
        :func:`read_set_annotations`.
    question : str, optional
        Annotation-tool formats: the labelling question to read when the
        project has several (the error lists them).
    layout : {"long", "wide"}
        ``"long"``: one row per annotation (item, annotator, label).
        ``"wide"``: one row per item, one column per annotator (an empty
        cell = not labelled); see :meth:`Annotations.from_wide`.
    annotators : sequence of str, optional
        Wide layout: the annotator columns (default: all but ``item`` and
        ``meta``).
    item, annotator, label, scale, ordered, meta, dropna, duplicates, sep, na_values, strip_labels
        See :mod:`dissensus.data`. ``item`` is also the item column of the
        wide layout; ``annotator``, ``label``, ``dropna`` and ``duplicates``
        apply to the long layout. ``duplicates`` defaults to ``"error"``,
        ``"first"`` for ConvAbuse (see :func:`read_convabuse`).

        Long tables: a column left at its default name (``item="item"``,
        ``annotator="annotator"``, ``label="label"``) that the file lacks is
        detected from the header by :func:`detect_columns`: the one column
        with a known name, letter case and separators ignored
        (:data:`COLUMN_NAMES`: ``item_id``, ``id``, ``text_id``, …;
        ``rater``, ``WorkerId``, ``user``, …; ``rating``, ``stars``,
        ``score``, ``answer``, …), else the only column left when every
        other role has its column. The choice is announced with a
        :class:`~dissensus.ColumnsDetectedWarning`; two known names for a
        role, or none, raise one :class:`DataError` naming every undecided
        role with its candidates, the file's columns and its blank cells.
        Columns named otherwise are used as named, never replaced.

    Returns
    -------
    Annotations
        Labels are numbers when every label is a number, else strings.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    DataError
        If the file cannot be parsed, its columns cannot be told (see
        above), or for any bad input listed in :meth:`Annotations.from_frame`.
    ValueError
        For an unknown ``format`` or ``layout``, or column options given for
        a format whose columns are fixed.

    Examples
    --------
    >>> from dissensus.datasets import example_path
    >>> ann = read_annotations(example_path("ratings"), meta=["year"])
    >>> ann.n_items, ann.n_annotators, ann.scale
    (40, 8, Scale.ordinal([1, 2, 3, 4, 5]))
    """
    formats = (*TABLE_FORMATS, "lewidi", "convabuse", *TOOL_FORMATS)
    check_option("read_annotations", "layout", layout, ("long", "wide"))
    fixed_columns = {
        "layout": (layout, "long"),
        "item": (item, "item"),
        "annotator": (annotator, "annotator"),
        "label": (label, "label"),
        "annotators": (annotators, None),
        "sep": (sep, None),
        "na_values": (tuple(na_values), ()),
        "strip_labels": (strip_labels, False),
    }
    fmt = format or sniff_tool(path)
    if fmt in TOOL_FORMATS:
        check_option("read_annotations", "format", fmt, formats)
        _refuse_fixed(str(fmt), fixed_columns, "read_annotations")
        long = read_tool(path, str(fmt), question)
        _refuse_sets(long, path, str(fmt))
        return Annotations.from_frame(
            long,
            scale=scale,
            ordered=ordered,
            meta=meta,
            dropna=dropna,
            duplicates=duplicates or "error",
            source=str(path),
        )
    if question is not None:
        msg = f"question={question!r} (CLI: --question) names a labelling question of an annotation-tool export (Label Studio, Prodigy, Argilla, SageMaker, MTurk); '{path}' is read as {format or 'a table'}, so drop it."
        raise ValueError(msg)
    p, fmt = open_table(path, format, formats, "read_annotations")
    if fmt in ("lewidi", "convabuse"):
        _refuse_fixed(fmt, fixed_columns, "read_annotations")
        if fmt == "convabuse":
            if scale is not None or ordered is not None:
                msg = (
                    "The convabuse format has a fixed scale (−3 … 1, ordinal); drop scale/ordered."
                )
                raise ValueError(msg)
            return read_convabuse(
                p, duplicates=duplicates or "first", meta=tuple(meta) or ("conv_id", "bot")
            )
        # single labels only: a multi-label file gives SetAnnotations, from read_lewidi
        return read_lewidi(
            p,
            scale=scale,
            ordered=ordered,
            dropna=dropna,
            duplicates=duplicates or "error",
            meta=tuple(meta) if meta else None,
            multilabel=False,
        )
    options: dict[str, Any] = {
        "scale": scale,
        "ordered": ordered,
        "meta": meta,
        "source": str(path),
    }
    if layout == "wide":
        if dropna or duplicates not in (None, "error"):
            msg = "dropna and duplicates apply to the long layout; a wide table has one cell per (item, annotator) and an empty cell is simply not an annotation."
            raise ValueError(msg)
        strip = (list(annotators) if annotators else None) if strip_labels else []
        wide = _TableColumns({"item": item}, [*meta, *(annotators or ())], strip=strip)
        df = read_frame(p, fmt, sep, na_values=na_values, columns_of=wide)
        if not wide.choice.undecided:  # else the checks below say what is wrong with the table
            item = wide.decided(df, path, dropna)["item"]
        raters = (
            list(annotators) if annotators else [c for c in df.columns if c not in (item, *meta)]
        )
        _refuse_unnamed(df, raters, path)
        refuse_nested(df, raters, path, _ONE_LABEL)
        refuse_nested(df, list(meta), path, _ONE_META)
        refuse_all_empty(df, raters, path, "label cells")
        return Annotations.from_wide(df, item=item, annotators=annotators, **options)
    if annotators is not None:
        msg = "annotators=[...] names the annotator columns of a wide table; pass layout='wide'."
        raise ValueError(msg)
    given = {"item": item, "annotator": annotator, "label": label}
    chooser = _TableColumns(
        {r: c for r, c in given.items() if c is not None}, meta, strip_labels=strip_labels
    )
    df = read_frame(p, fmt, sep, na_values=na_values, columns_of=chooser)
    columns = chooser.decided(df, path, dropna)
    item, label = columns["item"], columns["label"]
    annotator = columns.get("annotator")
    refuse_nested(df, [label], path, _ONE_LABEL)
    refuse_nested(df, list(meta), path, _ONE_META)
    refuse_all_empty(df, [label], path, "labels")
    return Annotations.from_frame(
        df,
        item=item,
        annotator=annotator,
        label=label,
        dropna=dropna,
        duplicates=duplicates or "error",
        **options,
    )


def _refuse_fixed(fmt: str, given: dict[str, tuple[Any, Any]], caller: str) -> None:
    """Refuse column options for a format whose columns are fixed (``given``: name -> (value, default))."""
    fixed = [name for name, (value, default) in given.items() if value != default]
    if fixed:
        msg = f"The {fmt} format has fixed columns; the option(s) {', '.join(fixed)} of {caller} do not apply to it. Drop them, or read the file with format='csv' / 'jsonl' to choose the columns yourself."
        raise ValueError(msg)


def _refuse_sets(long: pd.DataFrame, path: Any, fmt: str) -> None:
    """Refuse a set-valued answer (several choices) where single labels are read, naming its place."""
    sets = np.flatnonzero(long["label"].map(lambda v: isinstance(v, tuple)).to_numpy(dtype=bool))
    if sets.size:
        at = long.index[sets[0]]
        msg = f"'{path}' {long.index.name} {at}: the annotation chose several labels {list(long['label'].iloc[sets[0]])!r} ({sets.size} such annotations), a set-valued answer; read the {fmt} export with read_set_annotations (CLI: --sets)."
        raise DataError(msg)


def read_set_annotations(
    path: PathLike,
    format: Literal[
        "csv",
        "tsv",
        "parquet",
        "jsonl",
        "lewidi",
    ]
    | ToolFormat
    | None = None,
    *,
    item: str = "item",
    annotator: str | None = "annotator",
    label: str = "label",
    label_sep: str | None = None,
    scale: Scale | Sequence[Any] | None = None,
    meta: Sequence[str] = (),
    dropna: bool = False,
    duplicates: Duplicates = "error",
    sep: str | None = None,
    na_values: Sequence[str] = (),
    question: str | None = None,
) -> SetAnnotations:
    r"""Read set-valued annotations (several labels per annotation) from a long file.

    Parameters
    ----------
    path : str or path-like
    format : {"csv", "tsv", "parquet", "jsonl", "lewidi", "labelstudio", "prodigy", "doccano", "argilla", "sagemaker", "mturk"}, optional
        A LeWiDi file goes to :func:`read_lewidi` with ``multilabel=True``.
        An annotation-tool export (see :func:`read_annotations`) gives every
        answer as a set: several choices a set of them, one label a set of one.
    question : str, optional
        Annotation-tool formats: the labelling question to read.
    item, annotator, label, label_sep, scale, meta, dropna, duplicates, sep, na_values
        As in :meth:`SetAnnotations.from_frame` and :mod:`dissensus.data`
        (``sep`` separates columns, ``label_sep`` labels). In a CSV a JSON list
        cell is quoted and its quotes doubled; an empty cell is a missing
        annotation, so with ``label_sep`` the empty set cannot be written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "sets.csv"
    >>> _ = f.write_text("item,annotator,label\n1,a,E|N\n1,b,N\n")
    >>> read_set_annotations(f, label_sep="|").marginals()
    array([[0.5, 1. ]])
    """
    formats = (*TABLE_FORMATS, "lewidi", *TOOL_FORMATS)
    tool = format or sniff_tool(path)
    if tool in TOOL_FORMATS:
        check_option("read_set_annotations", "format", tool, formats)
        given = {
            "item": (item, "item"),
            "annotator": (annotator, "annotator"),
            "label": (label, "label"),
            "label_sep": (label_sep, None),
            "sep": (sep, None),
            "na_values": (tuple(na_values), ()),
        }
        _refuse_fixed(str(tool), given, "read_set_annotations")
        long = read_tool(path, str(tool), question)
        long["label"] = long["label"].map(lambda v: v if isinstance(v, tuple) else (v,))
        return SetAnnotations.from_frame(
            long, scale=scale, meta=meta, dropna=dropna, duplicates=duplicates, source=str(path)
        )
    if question is not None:
        msg = f"question={question!r} (CLI: --question) names a labelling question of an annotation-tool export; '{path}' is read as {format or 'a table'}, so drop it."
        raise ValueError(msg)
    p, fmt = open_table(path, format, formats, "read_set_annotations")
    if fmt == "lewidi":
        return read_lewidi(
            p,
            scale=scale,
            meta=tuple(meta) if meta else None,
            dropna=dropna,
            duplicates=duplicates,
            multilabel=True,
        )
    named = {"item": item, "annotator": annotator, "label": label}
    chooser = _TableColumns({r: c for r, c in named.items() if c is not None}, meta)
    df = read_frame(p, fmt, sep, na_values=na_values, columns_of=chooser)
    columns = chooser.decided(df, path, dropna)
    item, label = columns["item"], columns["label"]
    annotator = columns.get("annotator")
    refuse_nested(df, [label], path, 'a set of labels is a list, e.g. ["a", "b"]', sets=True)
    refuse_nested(df, list(meta), path, _ONE_META)
    refuse_all_empty(df, [label], path, "labels")
    return SetAnnotations.from_frame(
        df,
        item=item,
        annotator=annotator,
        label=label,
        scale=scale,
        label_sep=label_sep,
        meta=meta,
        dropna=dropna,
        duplicates=duplicates,
        source=str(path),
    )


# -- ConvAbuse CSVs (the full file and the train / valid / test splits) ---------

#: ConvAbuse severity, most abusive first: −3 (very strongly) … 0 (ambiguous) … 1 (not abusive).
CONVABUSE_SCALE = Scale.ordinal([-3, -2, -1, 0, 1])
#: The one-hot columns' suffixes, in file order.
_LEVELS = (1, 0, -1, -2, -3)
#: What identifies a conversation turn (an item) in the full ConvAbuse file.
_TURN = ("conv_id", "prev_agent", "prev_user", "agent", "user")
_SPLIT_COLUMN = re.compile(r"^Annotator(\d+)_is_abuse\.1$")


def _one_hot_labels(
    block: pd.DataFrame, path: PathLike, lines: pd.Index, what: str
) -> npt.NDArray[np.int64]:
    """ConvAbuse severities from one-hot ``is_abuse.<k>`` cells (text "0"/"1")."""
    values = block.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isin(values, (0.0, 1.0))
    if bad.any():
        r, c = np.argwhere(bad)[0]
        msg = f"'{path}' line {lines[r]}: {what} column {block.columns[c]!r} is {block.iloc[r, c]!r}; one-hot severity cells must be 0 or 1."
        raise DataError(msg)
    ones = values.sum(axis=1)
    off = np.flatnonzero(ones != 1)
    if off.size:
        shown = ", ".join(str(v) for v in lines[off[:5]])
        msg = f"'{path}' line{'s' if off.size > 1 else ''} {shown}{f' … ({off.size - 5} more)' if off.size > 5 else ''}: {what} has {int(ones[off[0]])} severities marked (columns {', '.join(block.columns)}); exactly one is expected per response."
        raise DataError(msg)
    out: npt.NDArray[np.int64] = np.asarray(_LEVELS, dtype=np.int64)[values.argmax(axis=1)]
    return out


def _require(df: pd.DataFrame, columns: Sequence[str], path: PathLike, kind: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        msg = f"'{path}' does not look like a ConvAbuse {kind} file: no column(s) {examples(missing)} (columns: {examples(list(df.columns), 10)})."
        raise DataError(msg)


def _numbers(df: pd.DataFrame, column: str, path: PathLike) -> pd.Series:
    """An id column as numbers, refused (with its line) where a cell is not one."""
    ids = pd.to_numeric(df[column], errors="coerce")
    if ids.isna().any():
        r = int(np.flatnonzero(ids.isna().to_numpy())[0])
        msg = f"'{path}' line {df.index[r]}: {column} {df[column].iloc[r]!r} is not a number."
        raise DataError(msg)
    return ids


def _convabuse_full(df: pd.DataFrame, path: PathLike, meta: Sequence[str]) -> pd.DataFrame:
    cols = [f"is_abuse.{k}" for k in _LEVELS]
    _require(df, ["example_no", "annotator_id", *_TURN, *cols, *meta], path, "full")
    labels = _one_hot_labels(df[cols], path, df.index, "the response")
    # A turn is its conversation and its context: conv_id alone is not enough
    # (spreadsheet-mangled ids such as "2.6896E+15" stand for several
    # conversations), and one conversation has many judged turns.
    turn = df.groupby(list(_TURN), sort=False, dropna=False).ngroup().to_numpy()
    first_example = _numbers(df, "example_no", path).groupby(turn).transform("min").to_numpy()
    long = pd.DataFrame(
        {
            "item": first_example.astype(np.int64),
            "annotator": df["annotator_id"].replace("", np.nan).to_numpy(),
            "label": labels,
        },
        index=df.index,
    )
    for m in meta:
        long[m] = df[m].to_numpy()
    return long


def _convabuse_split(df: pd.DataFrame, path: PathLike, meta: Sequence[str]) -> pd.DataFrame:
    _require(df, ["example_id", *meta], path, "split")
    numbers = sorted(int(m.group(1)) for c in df.columns if (m := _SPLIT_COLUMN.match(c)))
    ids = _numbers(df, "example_id", path)
    item_ids = (ids.astype(np.int64) if (ids % 1 == 0).all() else ids).to_numpy()
    parts: list[pd.DataFrame] = []
    for a in numbers:  # a loop over the (eight) annotators, not over items
        name = f"Annotator{a}"
        cols = [f"{name}_is_abuse.{k}" for k in _LEVELS]
        _require(df, cols, path, "split")
        # A cell lists every response of the annotator to the item ("0, 1"
        # = answered twice): the split files' way of keeping repeats.
        split = df[cols].apply(lambda s: s.str.strip().str.split(r"\s*,\s*", regex=True))
        size = split.apply(lambda s: s.map(lambda v: 0 if v == [""] else len(v))).to_numpy()
        uneven = np.flatnonzero((size != size[:, :1]).any(axis=1))
        if uneven.size:
            r = int(uneven[0])
            msg = f"'{path}' line {df.index[r]}: {name}'s severity cells list different numbers of responses ({', '.join(f'{c}={df[c].iloc[r]!r}' for c in cols)})."
            raise DataError(msg)
        has = size[:, 0] > 0
        if not has.any():
            continue
        rows = np.flatnonzero(has).repeat(size[has, 0])
        lines = df.index[rows]
        labels = _one_hot_labels(split[has].explode(cols), path, lines, f"{name}'s response")
        part = pd.DataFrame(
            {"item": item_ids[rows], "annotator": name, "label": labels, "_row": rows, "_a": a},
            index=lines,
        )
        for column in meta:
            part[column] = df[column].to_numpy()[rows]
        parts.append(part)
    if not parts:
        msg = f"'{path}' has no ConvAbuse severity annotations (columns AnnotatorN_is_abuse.K)."
        raise DataError(msg)
    # file order, then annotator, then response order: "first" is the first listed
    long = pd.concat(parts).sort_values(["_row", "_a"], kind="stable")
    return long.drop(columns=["_row", "_a"])


def read_convabuse(
    path: PathLike,
    *,
    duplicates: Duplicates = "first",
    meta: Sequence[str] = ("conv_id", "bot"),
) -> Annotations:
    r"""Read a ConvAbuse CSV (Cercas Curry et al., 2021): the full file or a split.

    The severity of abuse is one-hot in ``is_abuse.1`` (not abusive),
    ``is_abuse.0`` (ambiguous), ``is_abuse.-1``, ``is_abuse.-2``,
    ``is_abuse.-3`` (very strongly abusive); it becomes one label on the
    ordinal scale :data:`CONVABUSE_SCALE` (−3 < −2 < −1 < 0 < 1).
    Annotator ids (``Annotator1`` … ``Annotator8``) are kept.

    Two layouts are recognised from the header:

    - the full file ``ConvAbuseEMNLPfull.csv``: one row per annotator
      response. An item is a conversation turn, identified by
      (``conv_id``, ``prev_agent``, ``prev_user``, ``agent``, ``user``);
      its id is the smallest ``example_no`` among its rows.
    - the split files ``ConvAbuseEMNLP{train,valid,test}.csv``: one row per
      item (id ``example_id``), severity columns ``AnnotatorN_is_abuse.K``;
      a cell such as ``"0, 1"`` lists several responses of that annotator.

    Parameters
    ----------
    path : str or path-like
    duplicates : {"first", "last", "keep", "error"}
        Some annotators labelled the same turn again (to measure
        intra-annotator agreement). ``"first"`` keeps each annotator's first
        response (the earliest row of the full file, the first value listed
        in a split file's cell), reporting the dropped ones with a
        :class:`DataDroppedWarning`; see :mod:`dissensus.data`. The full
        file has 12,768 responses to 4,185 turns, 357 of them repeats; the
        split files hold the same (repeats as multi-valued cells).
    meta : sequence of str
        Item-level columns to keep (constant per item); any of ``conv_id``,
        ``bot``, ``prev_agent``, ``prev_user``, ``agent``, ``user``.

    Raises
    ------
    DataError
        A missing column, a one-hot row with no or several severities marked,
        a non-0/1 cell, or split cells listing different numbers of
        responses; messages name the file and line.

    References
    ----------
    A. Cercas Curry, G. Abercrombie, V. Rieser. "ConvAbuse: Data, Analysis,
    and Benchmarks for Nuanced Abuse Detection in Conversational AI".
    EMNLP 2021, 7388–7403. :doi:`10.18653/v1/2021.emnlp-main.587`

    Examples
    --------
    >>> from dissensus.datasets import example_path  # a made-up sample of the full file
    >>> read_convabuse(example_path("convabuse")).counts().to_frame().head(2)
    label  -3  -2  -1  0  1  n
    item
    0       0   0   0  0  2  2
    2       3   0   0  0  0  3
    """
    p = existing_file(path)
    check_option("read_convabuse", "duplicates", duplicates, DUPLICATES)
    df = read_delimited(p, ",", text=True)
    meta = list(meta)
    if "annotator_id" in df.columns:
        long = _convabuse_full(df, path, meta)
    elif any(_SPLIT_COLUMN.match(c) for c in df.columns):
        long = _convabuse_split(df, path, meta)
    else:
        msg = f"'{path}' is not a ConvAbuse file: expected an annotator_id column and is_abuse.K columns (full file) or AnnotatorN_is_abuse.K columns (split files); columns: {examples(list(df.columns), 10)}."
        raise DataError(msg)
    return Annotations.from_frame(
        long, scale=CONVABUSE_SCALE, meta=meta, duplicates=duplicates, source=str(path)
    )
