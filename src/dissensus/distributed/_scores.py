"""Per-item scores of models joined to the counts by item id, computed where the items live."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dissensus._exceptions import DataDroppedWarning, DataError
from dissensus._validation import as_prob_matrix, check_option, examples
from dissensus.data import LabelCounts, Predictions, Scale
from dissensus.distributed._common import FloatArray, compute, count_columns, dask_modules
from dissensus.distributed._counts import DistributedCounts
from dissensus.distributed._posterior import prior_for
from dissensus.metrics import get_metric
from dissensus.posterior import DEFAULT_PRIOR, PriorLike, dirichlet


@dataclass(frozen=True)
class ItemScores:
    """Per-item scores computed on the cluster and collected (sorted by item id): an Evaluation's input.

    Attributes
    ----------
    counts : LabelCounts
        Counts of the scored items, sorted by item id.
    scores : ndarray of float64, shape (M, J, N)
        ``scores[m, j, i]``: metric ``m`` of model ``j`` on item ``i``.
    predictions : ndarray of float64, shape (J, N, K)
        The predictions, aligned to ``counts``.
    """

    counts: LabelCounts
    scores: FloatArray
    predictions: FloatArray


def _prediction_frame(model: str, pred: Any, j: int, item: str, labels: list[str]) -> Any:
    """Model ``j``'s wide predictions as a Dask frame: ``item, q{j}_0 … q{j}_{K-1}``."""
    _, dd = dask_modules()
    if isinstance(pred, Predictions):
        if pred.items is None or pred.scale is None:
            msg = (
                f"Predictions of {model!r} have no item ids or labels; the Dask engine joins "
                "predictions to the annotations by item id and label."
            )
            raise DataError(msg)
        pred = pred.to_frame().rename_axis(index=item).reset_index()
    if isinstance(pred, pd.DataFrame):
        pdf = dd.from_pandas(pred, npartitions=max(1, len(pred) // 1_000_000))
    elif isinstance(pred, dd.DataFrame):
        pdf = pred
    else:
        msg = (
            f"Predictions of {model!r} must be a pandas or Dask DataFrame on the Dask engine "
            f"(an {item!r} column, one column per label); got {type(pred).__name__}."
        )
        raise TypeError(msg)
    if item not in pdf.columns and pdf.index.name == item:
        pdf = pdf.reset_index()
    pdf = pdf.rename(columns={c: str(c) for c in pdf.columns})
    missing = [c for c in (item, *labels) if c not in pdf.columns]
    if missing:
        msg = (
            f"Predictions of {model!r} have no column {examples(missing)}; give an {item!r} "
            f"column (or index) and one column per label {examples(labels)}."
        )
        raise DataError(msg)
    names = {item: "item", **{c: f"q{j}_{k}" for k, c in enumerate(labels)}}
    return pdf[[item, *labels]].rename(columns=names)


def _score_joined(
    joined: pd.DataFrame, scale: Scale, models: Sequence[str], metrics: Sequence[str], prior: Any
) -> pd.DataFrame:
    """Scores of every (metric, model) on the items of one partition, as evaluate() computes them."""
    K = scale.K
    labels = [str(lab) for lab in scale.labels]
    items = pd.Index(joined["item"])
    repeated = items[items.duplicated()].unique()
    if repeated.size:
        # every row of an item joins the one counts row of that item: a repeat is a prediction's
        msg = (
            f"Items {examples(repeated.tolist())} are predicted more than once by "
            f"{examples(list(models))}; give one prediction row per item."
        )
        raise DataError(msg)
    counts = LabelCounts.from_array(
        joined[count_columns(K)].to_numpy(dtype=np.int64), scale=scale, items=items
    )
    met = [get_metric(m) for m in metrics]
    p = counts.proportions()
    alpha = None
    if any(m.needs_posterior for m in met):
        alpha = np.asarray(dirichlet(counts, prior=prior), dtype=np.float64)
    out: dict[str, Any] = {c: joined[c].to_numpy() for c in ("item", *count_columns(K))}
    scores: dict[str, Any] = {}
    for j, model in enumerate(models):
        cols = [f"q{j}_{k}" for k in range(K)]
        # the same checks as Predictions.from_array, naming the item of a bad row
        name = f"predictions of {model!r} (rows of a Dask partition, columns {labels})"
        q = as_prob_matrix(joined[cols].to_numpy(), name, items=items)
        out.update({c: q[:, k] for k, c in enumerate(cols)})
        for i, m in enumerate(met):
            target = counts.values if m.needs_counts else alpha if m.needs_posterior else p  # noqa: PD011
            scores[f"s{i}_{j}"] = np.asarray(m.func(target, q), dtype=np.float64)
    return pd.DataFrame(out | scores, index=joined.index)


def _scored(
    counts: DistributedCounts,
    predictions: Mapping[str, Any],
    metrics: Sequence[str],
    prior: Any,
    item: str,
) -> tuple[list[str], list[str], Any, list[Any]]:
    """``(metric names, models, lazy per-item scores, lazy prediction row counts)``.

    A hash join by item id (shuffled, never sorted), scored per partition by :func:`_score_joined`.
    """
    names = [get_metric(m).name for m in metrics]
    models = [str(m) for m in predictions]
    labels = [str(lab) for lab in counts.scale.labels]
    if any(get_metric(m).needs_posterior for m in names):
        prior = prior_for(counts, prior, "score_items")
    K, J, M = counts.K, len(models), len(names)
    joined = counts.frame.reset_index()
    sizes = []
    for j, (model, pred) in enumerate(zip(models, predictions.values(), strict=True)):
        q = _prediction_frame(model, pred, j, item, labels)
        sizes.append(q.shape[0])
        joined = joined.merge(q, on="item", how="inner")
    meta = pd.DataFrame(
        {
            "item": pd.Series(dtype=joined._meta["item"].dtype),
            **{c: pd.Series(dtype=np.int64) for c in count_columns(K)},
            **{f"q{j}_{k}": pd.Series(dtype=np.float64) for j in range(J) for k in range(K)},
            **{f"s{i}_{j}": pd.Series(dtype=np.float64) for j in range(J) for i in range(M)},
        }
    )
    scored = joined.map_partitions(_score_joined, counts.scale, models, names, prior, meta=meta)
    return names, models, scored, sizes


def _check_sizes(models: list[str], n_pred: list[int], n_counts: int, N: int, how: str) -> None:
    """Refuse (``how="exact"``) or warn about (``"inner"``) items not every model predicts."""
    if n_counts == N and all(n == N for n in n_pred):
        return
    if how == "exact" or N == 0:
        model, n = next(
            ((m, n) for m, n in zip(models, n_pred, strict=True) if n != N), (models[0], n_pred[0])
        )
        msg = (
            f"The models predict {N} of the {n_counts} annotated items in common ({model!r} "
            f"has {n} rows); every model must predict exactly the annotated items once "
            "(how='inner' keeps the common items)."
        )
        raise DataError(msg)
    if n_counts != N:
        warnings.warn(
            f"Kept the {N} items every model predicts; dropped {n_counts - N} annotated items.",
            DataDroppedWarning,
            stacklevel=3,
        )


def score_items(
    counts: DistributedCounts,
    predictions: Mapping[str, Any],
    metrics: Sequence[str],
    *,
    prior: PriorLike = DEFAULT_PRIOR,
    item: str = "item",
    how: str = "exact",
) -> ItemScores:
    r"""Score every model on every item where the items live, then collect the scores.

    The predictions of each model are joined to the counts by item id (a
    Dask hash join) and every (metric, model) is scored per partition by
    the registry functions :func:`dissensus.evaluate` uses, so each score
    is the in-memory one. The scores, counts and predictions are then
    collected, sorted by item id: :func:`dissensus.evaluate` builds its
    :class:`~dissensus.Evaluation` from them.

    Parameters
    ----------
    predictions : mapping of str to DataFrame or Predictions
        Model name -> wide predictions (pandas or Dask): an ``item`` column
        (or index) and one column per label, named ``str(label)``; or a
        :class:`~dissensus.Predictions` with item ids and labels.
    metrics : sequence of str
        Registered metric names, pointwise or expected (``"E[emd]"``).
    prior : see :func:`dissensus.posterior.dirichlet`, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        Dirichlet prior of the expected metrics; a fitted prior is fitted
        once to all the counts, from their distinct count vectors.
    item : str, default "item"
        Item id column of the predictions.
    how : {"exact", "inner"}, default "exact"
        ``"exact"``: every model predicts exactly the annotated items, once
        (else :class:`DataError`). ``"inner"``: keep the items every model
        predicts, with a :class:`~dissensus.DataDroppedWarning`.

    Returns
    -------
    ItemScores
        In this process: ``N (M J + J K + K)`` numbers, 8 bytes each (10
        million items, 10 metrics, 2 models, K = 5: about 2.8 GB).

    Raises
    ------
    DataError
        Missing label columns, invalid probabilities (naming the item),
        repeated or missing items.

    Examples
    --------
    >>> import pandas as pd
    >>> from dissensus.distributed import label_counts
    >>> long = pd.DataFrame({"item": [2, 2, 1, 1], "label": ["a", "b", "a", "a"]})
    >>> pred = pd.DataFrame({"item": [1, 2], "a": [0.5, 0.5], "b": [0.5, 0.5]})
    >>> got = score_items(label_counts(long), {"m": pred}, ["manhattan"])
    >>> got.counts.items.tolist(), got.scores.tolist()
    ([1, 2], [[[1.0, 0.0]]])
    """
    check_option("score_items", "how", how, ("exact", "inner"))
    names, models, scored, sizes = _scored(counts, predictions, metrics, prior, item)
    # one pass over the data: the scores and the sizes (a repeated item fails in _score_joined)
    local, n_counts, *n_pred = compute(scored, counts.frame.shape[0], *sizes)
    local = local.sort_values("item", kind="stable").reset_index(drop=True)
    N, K, M, J = len(local), counts.K, len(names), len(models)
    _check_sizes(models, n_pred, n_counts, N, how)
    C = local[count_columns(K)].to_numpy(dtype=np.int64)
    S = local[[f"s{i}_{j}" for i in range(M) for j in range(J)]].to_numpy(dtype=np.float64)
    Q = local[[f"q{j}_{k}" for j in range(J) for k in range(K)]].to_numpy(dtype=np.float64)
    return ItemScores(
        counts=LabelCounts.from_array(
            C, scale=counts.scale, items=pd.Index(local["item"], name=None)
        ),
        scores=np.ascontiguousarray(S.T.reshape(M, J, N)),
        predictions=np.ascontiguousarray(Q.reshape(N, J, K).transpose(1, 0, 2)),
    )


def metric_means(
    counts: DistributedCounts,
    predictions: Mapping[str, Any],
    metrics: Sequence[str],
    *,
    prior: PriorLike = DEFAULT_PRIOR,
    item: str = "item",
) -> pd.DataFrame:
    """Per-model means of per-item metrics, summed where the items live (nothing collected).

    The arguments are those of :func:`score_items` (every model must predict
    exactly the annotated items).

    Returns
    -------
    pandas.DataFrame
        Columns ``model, metric, mean, n_items``, equal to the ``mean`` of
        :meth:`dissensus.Evaluation.summary` on the same data.
    """
    names, models, scored, sizes = _scored(counts, predictions, metrics, prior, item)
    cols = [f"s{i}_{j}" for j in range(len(models)) for i in range(len(names))]
    # one pass over the data: the sums and the sizes (a repeated item fails in _score_joined)
    sums, N, n_counts, *n_pred = compute(
        scored[cols].sum(), scored.shape[0], counts.frame.shape[0], *sizes
    )
    _check_sizes(models, n_pred, n_counts, N, "exact")
    rows = [
        {"model": model, "metric": m, "mean": float(sums[f"s{i}_{j}"]) / N, "n_items": N}
        for j, model in enumerate(models)
        for i, m in enumerate(names)
    ]
    return pd.DataFrame(rows)
