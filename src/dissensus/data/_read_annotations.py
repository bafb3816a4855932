"""Reading annotation files: long and wide tables (CSV, TSV, Parquet, JSONL), and the dispatch.

Every reader returns :class:`~dissensus.data.Annotations` (set-valued labels:
:class:`~dissensus.data.SetAnnotations`) and names the file and the line (or
row, or record) in its errors; see :mod:`dissensus.data._tables`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from dissensus._validation import check_option
from dissensus.data._annotations import Annotations, Duplicates
from dissensus.data._read_convabuse import read_convabuse
from dissensus.data._read_lewidi import read_lewidi
from dissensus.data._scale import Scale
from dissensus.data._sets import SetAnnotations
from dissensus.data._tables import TABLE_FORMATS, PathLike, open_table, read_frame

__all__ = ["Format", "read_annotations", "read_set_annotations"]

Format = Literal["csv", "tsv", "parquet", "jsonl", "lewidi", "convabuse"]


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
) -> Annotations:
    r"""Read annotations from a file.

    Parameters
    ----------
    path : str or path-like
        The file.
    format : {"csv", "tsv", "parquet", "jsonl", "lewidi", "convabuse"}, optional
        ``"lewidi"`` and ``"convabuse"`` call :func:`read_lewidi` and
        :func:`read_convabuse`, whose columns are fixed.
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

    Returns
    -------
    Annotations
        Labels are numbers when every label is a number, else strings.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    DataError
        If the file cannot be parsed, or for any bad input listed in
        :meth:`Annotations.from_frame`.
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
    formats = (*TABLE_FORMATS, "lewidi", "convabuse")
    p, fmt = open_table(path, format, formats, "read_annotations")
    check_option("read_annotations", "layout", layout, ("long", "wide"))
    if fmt in ("lewidi", "convabuse"):
        given = {
            "layout": (layout, "long"),
            "item": (item, "item"),
            "annotator": (annotator, "annotator"),
            "label": (label, "label"),
            "annotators": (annotators, None),
            "sep": (sep, None),
            "na_values": (tuple(na_values), ()),
            "strip_labels": (strip_labels, False),
        }
        fixed = [name for name, (value, default) in given.items() if value != default]
        if fixed:
            msg = (
                f"The {fmt} format has fixed columns; the option(s) {', '.join(fixed)} of "
                f"read_annotations do not apply to it. Drop them, or read the file with "
                f"format='csv' / 'jsonl' to choose the columns yourself."
            )
            raise ValueError(msg)
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
        df = read_frame(p, fmt, sep, ids=[item], na_values=na_values, strip=strip)
        return Annotations.from_wide(df, item=item, annotators=annotators, **options)
    if annotators is not None:
        msg = "annotators=[...] names the annotator columns of a wide table; pass layout='wide'."
        raise ValueError(msg)
    ids = [c for c in (item, annotator) if c is not None]
    strip = [label] if strip_labels else []
    df = read_frame(p, fmt, sep, ids=ids, na_values=na_values, strip=strip)
    return Annotations.from_frame(
        df,
        item=item,
        annotator=annotator,
        label=label,
        dropna=dropna,
        duplicates=duplicates or "error",
        **options,
    )


def read_set_annotations(
    path: PathLike,
    format: Literal["csv", "tsv", "parquet", "jsonl", "lewidi"] | None = None,
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
) -> SetAnnotations:
    r"""Read set-valued annotations (several labels per annotation) from a long file.

    Parameters
    ----------
    path : str or path-like
        The file.
    format : {"csv", "tsv", "parquet", "jsonl", "lewidi"}, optional
        A LeWiDi file goes to :func:`read_lewidi` with ``multilabel=True``.
    label_sep : str, optional
        Separator of the labels within a cell, e.g. ``"|"`` for
        ``entailment|neutral``. Default: cells are JSON lists
        (``["entailment", "neutral"]``, ``[]`` for the empty set; in a CSV
        the cell is quoted and its quotes doubled), or real lists in JSONL
        and Parquet. An empty cell is a missing annotation, so with
        ``label_sep`` the empty set cannot be written: use JSON lists.
    item, annotator, label, scale, meta, dropna, duplicates, sep, na_values
        As in :meth:`SetAnnotations.from_frame` and :mod:`dissensus.data`
        (``sep`` separates columns, not labels).

    Returns
    -------
    SetAnnotations

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "sets.csv"
    >>> _ = f.write_text("item,annotator,label\n1,a,E|N\n1,b,N\n")
    >>> read_set_annotations(f, label_sep="|").marginals()
    array([[0.5, 1. ]])
    """
    formats = (*TABLE_FORMATS, "lewidi")
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
    ids = [c for c in (item, annotator) if c is not None]
    df = read_frame(p, fmt, sep, ids=ids, na_values=na_values)
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
