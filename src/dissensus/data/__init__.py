"""Data model and readers: Scale, Annotations, SetAnnotations, LabelCounts, Predictions, read_*.

Every constructor that takes a DataFrame also takes a Dask DataFrame, which it
computes into this process (one ``.compute()``, keeping its index, which error
messages name); for data that do not fit, use :mod:`dissensus.distributed`.
"""

from dissensus.data._annotations import Annotations, Duplicates, as_label_counts
from dissensus.data._counts import LabelCounts
from dissensus.data._predictions import Predictions
from dissensus.data._read_annotations import read_annotations, read_set_annotations
from dissensus.data._read_convabuse import CONVABUSE_SCALE, read_convabuse
from dissensus.data._read_lewidi import read_lewidi
from dissensus.data._read_predictions import read_predictions
from dissensus.data._scale import Label, Scale
from dissensus.data._sets import SetAnnotations
from dissensus.data._tables import read_table

__all__ = [
    "CONVABUSE_SCALE",
    "Annotations",
    "Duplicates",
    "Label",
    "LabelCounts",
    "Predictions",
    "Scale",
    "SetAnnotations",
    "as_label_counts",
    "read_annotations",
    "read_convabuse",
    "read_lewidi",
    "read_predictions",
    "read_set_annotations",
    "read_table",
]
