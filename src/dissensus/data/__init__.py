"""Data model and readers: Scale, Annotations, LabelCounts, Predictions."""

from dissensus.data._annotations import Annotations
from dissensus.data._counts import LabelCounts, as_label_counts
from dissensus.data._datasets import load_example
from dissensus.data._predictions import Predictions
from dissensus.data._scale import Label, Scale

__all__ = [
    "Annotations",
    "Label",
    "LabelCounts",
    "Predictions",
    "Scale",
    "as_label_counts",
    "load_example",
]
