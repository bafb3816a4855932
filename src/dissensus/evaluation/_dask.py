"""evaluate() on a Dask collection: scores on the cluster (:func:`dissensus.distributed.score_items`), tables in memory."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from dissensus import distributed
from dissensus._validation import SeedLike
from dissensus.evaluation._output import Evaluation
from dissensus.evaluation._tables import _prior_name
from dissensus.metrics import Metric
from dissensus.stats import BinsLike, annotation_bins

__all__ = ["evaluate_dask"]


def evaluate_dask(
    data: Any,
    predictions: Mapping[str, Any],
    resolve: Any,
    *,
    metrics: Sequence[str] | str | None,
    prior: Any,
    bins: BinsLike,
    seed: SeedLike,
    how: str,
) -> Evaluation:
    """The Dask branch of evaluate(); ``resolve(metrics, ordered)`` resolves the metrics."""
    t0 = time.perf_counter()
    n_annotators: int | None = None
    if isinstance(data, distributed.DistributedCounts):
        counts = data
    else:
        counts = distributed.label_counts(data)
        if "annotator" in data.columns:
            n_annotators = int(data["annotator"].nunique().compute())
    met: list[Metric] = resolve(metrics, counts.scale.ordered)
    t1 = time.perf_counter()
    got = distributed.score_items(counts, predictions, [m.name for m in met], prior=prior, how=how)
    got.scores.flags.writeable = False
    bin_codes, bin_labels = annotation_bins(got.counts.n, bins)
    return Evaluation(
        scores_array=got.scores,
        counts=got.counts,
        models=[str(m) for m in predictions],
        metrics=met,
        bin_codes=bin_codes,
        bin_labels=bin_labels,
        prior=_prior_name(prior),
        seed=seed,
        n_annotators=n_annotators,
        timings={"alignment": t1 - t0, "metrics (dask)": time.perf_counter() - t1},
        predictions=got.predictions,
        prior_value=prior,
    )
