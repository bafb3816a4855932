"""Data model and readers: Scale, Annotations, SetAnnotations, LabelCounts, Predictions, read_*.

Options shared by the constructors and readers (each lists those it takes):

item, annotator, label : str
    Column names; ``annotator=None`` when the data has no annotator ids. The
    file readers detect a column left at its default name that the file
    lacks (:func:`detect_columns`: ``item_id``, ``rater``, ``stars``, ...),
    say so with a :class:`~dissensus.ColumnsDetectedWarning`, and refuse
    with the candidates of every role when the choice is not clear.
scale : Scale or sequence of labels, optional
    The label set, in order; a plain sequence is ordinal unless
    ``ordered=False``. Default: inferred from the labels present
    (:meth:`Scale.infer`).
ordered : bool, optional
    Whether the labels are ordered, when the scale is inferred or a sequence.
meta : sequence of str
    Item-level columns to keep (e.g. ``["year"]`` for ``by="year"``); each
    must be constant within an item.
dropna : bool
    Drop rows with a missing item, annotator or label (reported with a
    :class:`~dissensus.DataDroppedWarning`) instead of raising.
duplicates : {"error", "first", "last", "keep"}
    Repeated (item, annotator) pairs: raise, keep the first or the last, or
    keep all (each counts as an annotation).
source : str, optional
    The file a frame was read from. Its index then holds file positions
    (``"line"``; ``"row"`` for Parquet; ``"record"`` for JSON records keyed by
    item id, as the index name says) and messages say ``in <file> … at line N``.
format : {"csv", "tsv", "parquet", "jsonl", ...}, optional
    Readers: the file format; default from the extension (``.csv``,
    ``.tsv``/``.tab``, ``.parquet``/``.pq``, ``.jsonl``/``.ndjson``, ``.json``
    = LeWiDi).
sep : str, optional
    Field separator of a delimited file (default ``","``, tab for TSV).
na_values : sequence of str
    Cell texts that mean "missing" besides an empty cell. By default an id or
    label literally named ``NA``, ``None``, ``null`` or ``n/a`` is data; pass
    e.g. ``na_values=["NA"]`` when the file uses it for missing.
strip_labels : bool
    Remove whitespace around labels (``' pos'`` becomes ``'pos'``). Without
    it, labels that differ only by whitespace or letter case raise a
    :class:`~dissensus.LabelSpellingWarning`.

Readers read ids exactly: an id column is integers only when every id is
written as one (``7``, not ``007`` or ``7.0``) and fits in int64, else
strings (``007`` and ``7`` are two items; a 19-digit id is never rounded).
Their errors name the file and the line (Parquet: row; LeWiDi: record).

A DataFrame argument may be a Dask DataFrame: it is computed into this
process (one ``.compute()``, keeping its index, which error messages name);
for data that do not fit, use :mod:`dissensus.distributed`.
"""

from dissensus.data._annotations import Annotations, Duplicates, as_label_counts
from dissensus.data._counts import LabelCounts, item_indexed
from dissensus.data._predictions import (
    PredictionLike,
    Predictions,
    aligned_predictions,
    as_predictions,
)
from dissensus.data._read_annotations import (
    COLUMN_NAMES,
    CONVABUSE_SCALE,
    ColumnChoice,
    choose_columns,
    detect_columns,
    read_annotations,
    read_convabuse,
    read_set_annotations,
)
from dissensus.data._read_lewidi import read_lewidi
from dissensus.data._read_predictions import read_predictions
from dissensus.data._scale import Label, Scale
from dissensus.data._sets import SetAnnotations
from dissensus.data._tables import read_table

__all__ = [
    "COLUMN_NAMES",
    "CONVABUSE_SCALE",
    "Annotations",
    "ColumnChoice",
    "Duplicates",
    "Label",
    "LabelCounts",
    "PredictionLike",
    "Predictions",
    "Scale",
    "SetAnnotations",
    "aligned_predictions",
    "as_label_counts",
    "as_predictions",
    "choose_columns",
    "detect_columns",
    "item_indexed",
    "read_annotations",
    "read_convabuse",
    "read_lewidi",
    "read_predictions",
    "read_set_annotations",
    "read_table",
]
