"""Data model and readers: Scale, Annotations, SetAnnotations, LabelCounts, Predictions, read_*."""

from dissensus.data._annotations import Annotations, Duplicates
from dissensus.data._counts import LabelCounts, as_label_counts
from dissensus.data._datasets import load_example
from dissensus.data._predictions import Predictions
from dissensus.data._predictions_io import read_predictions
from dissensus.data._readers import (
    CONVABUSE_SCALE,
    read_annotations,
    read_convabuse,
    read_lewidi,
    read_set_annotations,
    read_table,
)
from dissensus.data._scale import Label, Scale
from dissensus.data._sets import SetAnnotations

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
    "load_example",
    "read_annotations",
    "read_convabuse",
    "read_lewidi",
    "read_predictions",
    "read_set_annotations",
    "read_table",
]
