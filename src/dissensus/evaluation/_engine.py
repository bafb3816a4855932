"""Scoring: align annotations and predictions, score every model under every metric once."""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus import distributed
from dissensus._exceptions import DataDroppedWarning, DataError
from dissensus._parallel import thread_limit
from dissensus._validation import SeedLike, check_option, examples, is_dask
from dissensus.aggregation import fit_annotator_model
from dissensus.data import (
    Annotations,
    LabelCounts,
    PredictionLike,
    Predictions,
    as_label_counts,
    as_predictions,
)
from dissensus.evaluation._output import Evaluation
from dissensus.evaluation._tables import _prior_name
from dissensus.metrics import Metric, get_metric
from dissensus.posterior import DEFAULT_PRIOR, PriorLike, dirichlet, prior_strength_check
from dissensus.stats import BinsLike, annotation_bins

FloatArray = npt.NDArray[np.float64]

#: Pointwise metrics scored by default, each with its expected and debiased forms (EMD
#: and RPS only on ordered scales: RPS, the ordinal metric whose true differences have an
#: unbiased estimator, gets the verdict's interval; Evaluation.verdict).
DEFAULT_METRICS: tuple[str, ...] = (
    "cross_entropy",
    "kl_divergence",
    "js_divergence",
    "manhattan",
    "emd",
    "rps",
)


# --------------------------------------------------------------------------- inputs


def _check_model_names(predictions: Mapping[Any, Any]) -> None:
    """Refuse two models whose names are one as text (``1`` and ``"1"``): one would replace the other.

    Models are named by ``str(name)`` in every table and file.
    """
    seen: dict[str, Any] = {}
    for name in predictions:
        if (first := seen.setdefault(str(name), name)) is not name:
            msg = f"the models {first!r} and {name!r} are both named {str(name)!r} in the tables; give them distinct names."
            raise ValueError(msg)


def _align_all(
    counts: LabelCounts, preds: Mapping[str, Predictions], how: Literal["exact", "inner"]
) -> tuple[LabelCounts, FloatArray]:
    """Predictions of every model aligned to one set of items (the counts' order), as (J, N, K).

    Each model's rows go straight into one preallocated array: no list of
    aligned copies to stack (40 MB per model at 1M items and K = 5).
    """
    if how == "exact":
        out = np.empty((len(preds), counts.N, counts.K))
        for j, (name, pred) in enumerate(preds.items()):
            out[j] = pred.align(counts, how=how, name=name)[0].values  # noqa: PD011
        return counts, out
    with warnings.catch_warnings():  # one warning for the whole evaluation below, not one per model
        warnings.simplefilter("ignore")
        aligned = [pred.align(counts, how=how, name=name) for name, pred in preds.items()]
    keep = np.logical_and.reduce([counts.items.isin(sub.items) for _, sub in aligned])
    if not keep.any():
        msg = "The models and the annotations have no item in common."
        raise DataError(msg)
    if not keep.all():
        dropped = counts.items[~keep]
        msg = f"Kept the {int(keep.sum())} items every model predicts; dropped {dropped.size} annotated items ({examples(list(dropped))})."
        warnings.warn(msg, DataDroppedWarning, stacklevel=3)
    sub_counts = counts.take(np.flatnonzero(keep))
    out = np.empty((len(aligned), sub_counts.N, sub_counts.K))
    for j, (pred, sub) in enumerate(aligned):
        ids = sub.items if pred.items is None else pred.items  # align() puts both in one order
        out[j] = pred.values[ids.get_indexer(sub_counts.items)]  # noqa: PD011  (Predictions)
    return sub_counts, out


#: ``targets=`` of :func:`evaluate` by name (the methods of
#: :func:`dissensus.aggregation.soft_targets`).
TARGETS: tuple[str, ...] = ("empirical", "dawid_skene", "ordinal_dawid_skene", "mace")


def _pointwise_targets(
    annotations: Any, counts: LabelCounts, targets: str | PredictionLike, seed: SeedLike,
    pointwise: list[str],
) -> tuple[str, FloatArray | None, pd.DataFrame | None]:  # fmt: skip
    """(name, (N, K) targets of the pointwise metrics in the counts' order, reliability table)."""
    if isinstance(targets, str):
        check_option("evaluate", "targets", targets, TARGETS)
        if targets == "empirical":
            return "empirical", counts.proportions() if pointwise else None, None
        fit = fit_annotator_model(annotations, targets, seed=seed, func="evaluate")
        source = Predictions(fit.posterior.to_numpy(), annotations.items, annotations.scale)
        name, reliability = targets, fit.reliability()
    else:
        source, name, reliability = as_predictions(targets, name="targets"), "user targets", None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataDroppedWarning)  # checked just below
        aligned, sub = source.align(counts, how="inner", name="targets")
    if sub.N != counts.N:
        missing = counts.items[~counts.items.isin(sub.items)]
        msg = (
            f"`targets` has no row for {missing.size} annotated items ({examples(list(missing))})."
        )
        raise DataError(msg)
    rows = (sub.items if aligned.items is None else aligned.items).get_indexer(counts.items)
    return name, np.asarray(aligned.values[rows], dtype=np.float64), reliability  # noqa: PD011


def _resolve_metrics(metrics: Sequence[str] | str | None, ordered: bool) -> list[Metric]:
    if metrics is None:
        base = [m for m in DEFAULT_METRICS if ordered or not get_metric(m).needs_order]
        names = base + [e for m in base if (e := get_metric(m).expected) is not None]
        names += [d for m in base if (d := get_metric(m).debiased) is not None]
    else:
        names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        msg = "The 'metrics' parameter of evaluate must name at least one metric."
        raise ValueError(msg)
    if dup := sorted({m for m in names if names.count(m) > 1}):
        msg = f"The 'metrics' parameter of evaluate repeats {examples(dup)}."
        raise ValueError(msg)
    resolved = [get_metric(m) for m in names]
    for met in resolved:
        if met.unary:
            msg = f"Metric {met.name!r} takes the target only and cannot score predictions."
            raise ValueError(msg)
        if met.corpus:
            msg = f"Metric {met.name!r} is corpus-level (one number for all items, not a per-item score) and cannot be averaged over items; compute it with dissensus.metrics.get_metric({met.name!r})(targets, predictions)."
            raise ValueError(msg)
        if met.needs_order and not ordered:
            msg = f"Metric {met.name!r} needs ordered labels, but the scale is nominal; give the order, lowest first, with scale=[...] (CLI: --labels ...), or for numeric labels load the data with ordered=True; or drop the metric."
            raise ValueError(msg)
    return resolved


# --------------------------------------------------------------------------- evaluate


def evaluate(
    annotations: Annotations | LabelCounts, predictions: Mapping[str, PredictionLike], *,
    metrics: Sequence[str] | str | None = None, prior: PriorLike = DEFAULT_PRIOR,
    bins: BinsLike = "auto", seed: SeedLike = 0, how: Literal["exact", "inner"] = "exact",
    n_jobs: int | None = None, targets: str | PredictionLike = "empirical",
    smooth: float | None = None,
) -> Evaluation:  # fmt: skip
    r"""Score several models against annotated label distributions.

    Parameters
    ----------
    annotations : Annotations, LabelCounts, dask.dataframe.DataFrame or DistributedCounts
        The annotations (counts per item and label). A Dask DataFrame of
        long annotations (``item``, ``label``, optional ``annotator``
        columns; scale inferred) or :class:`dissensus.distributed.DistributedCounts`
        (its scale) is scored on the cluster by
        :func:`dissensus.distributed.score_items`; predictions are then
        pandas or Dask DataFrames (an ``item`` column or index, one column
        per label). The scores are collected (``N × M × J`` floats, plus the
        counts and predictions: fine up to about 10 million items) and the
        tables are those of the in-memory path, with the items sorted by id
        (the in-memory path keeps their order of appearance; in the same
        order, every table, interval included, is identical).
    predictions : mapping of str to Predictions, array_like or DataFrame
        Model name -> predicted distributions. A :class:`~dissensus.Predictions`
        or a DataFrame (wide: a column named like an item id, ``item``,
        ``item_id``, ``id``, ... (said in a warning unless ``item``), else the
        index, and one column per label) is aligned by item id and label; an (N, K) array
        without ids must list the items in the order of ``annotations``. A
        Dask DataFrame beside in-memory annotations is computed into this
        process by :meth:`~dissensus.Predictions.from_frame`.
    metrics : sequence of str, optional
        Registered metric names (expected ones ``E[emd]``, ...). Default:
        :data:`DEFAULT_METRICS` (emd and rps on ordered scales only), then the expected form of
        each, then the debiased form of each (the verdict, :meth:`Evaluation.verdict`,
        selects among them).
    prior : {"jeffreys", "uniform", "empirical", "hierarchical"}, float or array_like, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        Dirichlet prior of the expected metrics (:func:`dissensus.posterior.dirichlet`);
        Jeffreys (K/2 pseudo-counts) after the prior study in ``docs/priors.md``.
    bins : "auto", sequence of int or None, default "auto"
        Annotation-count bins of :meth:`Evaluation.by_bin` (:func:`annotation_bins`).
    seed : int, Generator or None, default 0
        Seed of every resampling (bootstrap intervals, permutation tests).
    how : {"exact", "inner"}, default "exact"
        ``"exact"``: every model predicts exactly the annotated items (else
        :class:`DataError` listing the differences); ``"inner"``: keep the items
        every model predicts, with a :class:`~dissensus.DataDroppedWarning`.
    n_jobs : int or None, default None
        Threads of each metric's blocked kernels (None: ``DISSENSUS_NUM_THREADS``,
        else ``min(cores, 8)``); scores are bit-identical for every value.
    targets : {"empirical", "dawid_skene", "ordinal_dawid_skene", "mace"}, Predictions or DataFrame, default "empirical"
        What the pointwise metrics compare each prediction with: the label
        shares :math:`n_{ik} / n_i`; the posterior over each item's true label
        of an annotator model (:func:`dissensus.aggregation.fit_annotator_model`,
        needs annotator ids; its reliability table goes into the report); or
        your own soft targets, aligned like a model's predictions. Expected and
        debiased metrics model the counts themselves and ignore it.
    smooth : float, optional
        Additive smoothing of every prediction, :math:`q \leftarrow (q + \varepsilon) /
        (1 + K\varepsilon)` with :math:`\varepsilon` = ``smooth`` in (0, 1), as LeWiDi's
        scorers clip: a prediction of 0 makes cross-entropy and KL infinite on
        every item where the target (or, for ``E[...]``, the posterior, which gives
        every label mass) puts mass on that label. ``Evaluation.smoothing`` records
        ε and, per model, the number of rows that held a zero (default None: the
        predictions as given; infinite scores are kept and counted in
        ``summary().n_infinite``).

    Returns an :class:`Evaluation`. Raises DataError for predictions that do not
    match the annotated items or labels, or items without annotations under an
    empirical metric; ValueError for unknown, repeated or unsuitable metrics (EMD
    on a nominal scale); TypeError when ``predictions`` is not a mapping.

    Notes
    -----
    A pointwise metric of model :math:`j` on item :math:`i` is
    :math:`f(p_i, q_{ij})` with :math:`p_i = n_{ik} / n_i`; an expected one is
    :math:`E_{p \sim \mathrm{Dir}(\alpha_i)}[f(p, q_{ij})]` with
    :math:`\alpha_i = \alpha^{(0)} + n_i`; a debiased one (``debiased[emd]``,
    :mod:`dissensus.metrics.debiased`) estimates :math:`f(\pi_i, q_{ij})` for the
    item's true distribution (jackknife or U-statistic; per-item values may be
    negative and are averaged unclipped; one-annotation items keep their
    empirical value, with a warning). Natural logs. Infinite values are kept:
    the mean is then infinite and its interval NaN.

    References
    ----------
    Magnani, A. (2025). Soft metrics for ordinal label uncertainty with
    variable sample sizes. ASSE 2025 (6th Asia Service Sciences and Software
    Engineering Conference), ACM.

    Examples
    --------
    >>> from dissensus import LabelCounts
    >>> counts = LabelCounts.from_array([[3, 1], [0, 2], [1, 1]], items=["a", "b", "c"])
    >>> ev = evaluate(counts, {"A": [[0.7, 0.3], [0.2, 0.8], [0.5, 0.5]],
    ...                        "B": [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]},
    ...               metrics=["manhattan", "js_divergence"])
    >>> import warnings
    >>> from dissensus import FewItemsWarning
    >>> with warnings.catch_warnings():  # 3 items: far too few for a trustworthy interval
    ...     warnings.simplefilter("ignore", FewItemsWarning)
    ...     table = ev.summary(n_resamples=200)
    >>> table[["model", "metric", "mean", "best"]]
      model         metric      mean   best
    0     A      manhattan  0.166667   True
    1     B      manhattan  0.500000  False
    2     A  js_divergence  0.025484   True
    3     B  js_divergence  0.083195  False
    """
    t0 = time.perf_counter()
    given: object = predictions  # checked at run time whatever the annotation says
    if not isinstance(given, Mapping):
        msg = f"`predictions` must map model names to predictions, e.g. {{'model_a': preds}}; got {type(given).__name__}."
        raise TypeError(msg)
    if not predictions:
        msg = "`predictions` is empty; give at least one model."
        raise ValueError(msg)
    _check_model_names(predictions)
    check_option("evaluate", "how", how, ("exact", "inner"))
    n_annotators: int | None = None
    if is_dask(annotations):
        if smooth is not None:
            msg = "evaluate(smooth=) smooths in-memory predictions; compute the Dask collections (or smooth the predictions) first."
            raise ValueError(msg)
        if not (isinstance(targets, str) and targets == "empirical"):
            msg = (
                "evaluate on Dask scores against the label shares only (targets='empirical'); "
                "annotator models are fitted in memory: pass in-memory Annotations for "
                f"targets={targets!r}."
            )
            raise ValueError(msg)
        # scores on the cluster (distributed.score_items), tables in memory
        data: Any = annotations
        if isinstance(data, distributed.DistributedCounts):
            dist = data
        else:
            dist = distributed.label_counts(data)
            if "annotator" in data.columns:
                n_annotators = int(data["annotator"].nunique().compute())
        met = _resolve_metrics(metrics, dist.scale.ordered)
        t1 = time.perf_counter()
        got = distributed.score_items(
            dist, predictions, [m.name for m in met], prior=prior, how=how
        )
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
    if isinstance(annotations, Annotations) and annotations.has_annotators:
        n_annotators = annotations.n_annotators
    counts = as_label_counts(annotations)
    preds = {str(name): as_predictions(p, name=str(name)) for name, p in predictions.items()}
    counts, values = _align_all(counts, preds, how)
    smoothing = None if smooth is None else _smooth(values, smooth, list(preds))
    met = _resolve_metrics(metrics, counts.scale.ordered)
    n = counts.n
    pointwise = [m.name for m in met if not m.needs_posterior]
    if pointwise and (n == 0).any():
        empty = counts.items[n == 0]
        msg = f"{empty.size} items have no annotation ({examples(list(empty))}), so the empirical metrics {examples(pointwise)} are undefined for them; drop these items or use expected metrics only (e.g. metrics=['E[emd]'])."
        raise DataError(msg)
    bin_codes, bin_labels = annotation_bins(n, bins)
    t1 = time.perf_counter()

    target_name, p, reliability = _pointwise_targets(annotations, counts, targets, seed, pointwise)
    C = counts.values if any(m.needs_counts for m in met) else None  # noqa: PD011  (LabelCounts, not pandas)
    alpha: FloatArray | None = None
    if any(m.needs_posterior for m in met):
        alpha = np.asarray(dirichlet(counts, prior=prior), dtype=np.float64)
        prior_strength_check(counts, prior, stacklevel=3)
    S = np.empty((len(met), len(preds), counts.N))
    # one level of threads: the metrics' own blocked kernels (balanced blocks, the same
    # bytes for any count); the jobs run in turn, so pools never nest
    with thread_limit(n_jobs, "evaluate"):
        for i, m in enumerate(met):
            for j, v in enumerate(values):
                target = C if m.needs_counts else alpha if m.needs_posterior else p
                S[i, j] = m.func(target, v)
    S.flags.writeable = False
    t2 = time.perf_counter()
    ev = Evaluation(
        scores_array=S, counts=counts, models=list(preds), metrics=met, bin_codes=bin_codes,
        bin_labels=bin_labels, prior=_prior_name(prior), seed=seed, n_annotators=n_annotators,
        timings={"alignment": t1 - t0, "metrics": t2 - t1}, predictions=values, prior_value=prior,
        targets=target_name, annotator_reliability=reliability,
    )  # fmt: skip
    ev.smoothing = smoothing
    return ev


def _smooth(values: FloatArray, eps: Any, models: list[str]) -> dict[str, Any]:
    """Smooth the (J, N, K) predictions in place, q <- (q + eps) / (1 + K eps).

    Returns ``{"epsilon": eps, "rows_with_zero": {model: rows that held a 0}}``;
    ValueError unless ``eps`` is a number in (0, 1).
    """
    try:
        e = float(eps)
    except (TypeError, ValueError):
        e = math.nan
    if not 0.0 < e < 1.0:
        msg = f"The 'smooth' parameter of evaluate must be a number in (0, 1), e.g. 1e-6; got {eps!r}."
        raise ValueError(msg)
    zero = (values == 0.0).any(axis=2).sum(axis=1)
    values += e
    values /= 1.0 + values.shape[2] * e
    return {"epsilon": e, "rows_with_zero": dict(zip(models, zero.tolist(), strict=True))}
