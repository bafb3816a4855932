"""Dask engine: label counts, agreement, posteriors and model scores on partitioned data.

The annotations stay partitioned from the files to the result. A long table
of ``(item, annotator, label)`` rows (a partitioned Parquet dataset, CSV
files, or a :class:`dask.dataframe.DataFrame`) is shuffled by a hash of the
item id so that every annotation of an item meets in one partition, wherever
it was read from; each partition then becomes an (N_p, K) count matrix
(:func:`label_counts`). Only per-partition sums reach the client. The entry
points, one job each, mirror the in-memory functions, whose formulas they
reuse:

- counts: :func:`label_counts` (:class:`DistributedCounts`), :func:`stream_counts`
  (one process, no cluster);
- agreement: :func:`agreement` (count-based coefficients, Poisson-bootstrap
  intervals), :func:`pairwise`, :func:`icc`;
- posterior: :func:`dirichlet`, :func:`soft_labels` (lazy, per partition);
- scores: :func:`score_items` (:class:`ItemScores`, collected for
  :func:`dissensus.evaluate`), :func:`metric_means`.

Shared parameters: ``annotations`` are long rows, one per annotation (a
Parquet file or directory, a CSV/TSV file or glob, or a pandas or Dask
DataFrame; an item's rows may be spread over any files and partitions);
``item``, ``annotator`` and ``label`` name their columns; ``scale`` gives the
labels (a sequence makes a nominal scale; default: inferred, one pass over the
data); ``npartitions`` is the number of partitions after the shuffle by item
(default: as many as the input); ``counts`` are :class:`DistributedCounts`
from :func:`label_counts` (:func:`dirichlet` and :func:`soft_labels` also
count annotations with its defaults). Missing columns, missing ids and labels not on
the scale raise :class:`~dissensus.DataError` naming an offending item.

The in-memory functions do not take Dask collections: call these instead.
Needs the ``distributed`` extra: ``pip install 'dissensus[distributed]'``.
"""

from dissensus.distributed._agreement import COEFFICIENTS, agreement
from dissensus.distributed._counts import DistributedCounts, label_counts, stream_counts
from dissensus.distributed._icc import icc
from dissensus.distributed._pairwise import pairwise
from dissensus.distributed._posterior import dirichlet, soft_labels
from dissensus.distributed._scores import ItemScores, metric_means, score_items

__all__ = [
    "COEFFICIENTS",
    "DistributedCounts",
    "ItemScores",
    "agreement",
    "dirichlet",
    "icc",
    "label_counts",
    "metric_means",
    "pairwise",
    "score_items",
    "soft_labels",
    "stream_counts",
]
