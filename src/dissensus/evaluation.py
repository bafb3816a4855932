r"""Evaluate models against disagreeing annotators: scores, paired intervals, rankings.

:func:`evaluate` scores every model on every item under every metric, once,
and returns an :class:`Evaluation` that answers the questions of the seed
paper (Magnani 2025) and of the LeWiDi re-ranking study (Rizzi et al. 2024):
which model is better under each metric, with what uncertainty; whether
empirical and expected (uncertainty-aware) metrics order the models
differently; on which items (few or many annotations) the difference lives.

Notation. ``N`` items, ``K`` labels, ``J`` models, ``M`` metrics. Scores are
held as one dense array ``S`` of shape ``(M, J, N)``: ``S[m, j, i]`` is
metric ``m`` of model ``j`` on item ``i``. ``n_i`` is the number of
annotations of item ``i``; ``p`` the empirical label distribution
(``counts / n``); ``alpha`` the Dirichlet posterior (``prior + counts``).
Pointwise metrics compare ``p`` with the prediction ``q``; expected metrics
(``E[...]``) take the posterior expectation of the pointwise metric under
:math:`p \sim \mathrm{Dir}(\alpha)`.

Every interval is a percentile interval of a *paired* item bootstrap: one
set of resampled items per resample, shared by all models and metrics
(weights from :func:`dissensus.stats._bootstrap.iter_weight_blocks`, means by
one matrix product per chunk), so differences between models, and between
metrics, are resampled consistently. The resamples depend only on ``seed``,
``N`` and ``n_boot``: the same inputs and seed give byte-identical tables.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import time
import warnings
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataDroppedWarning, DataError, DegenerateAgreementWarning
from dissensus._validation import SeedLike, check_option, check_probability_level, examples
from dissensus.data import Annotations, LabelCounts, Predictions
from dissensus.data._counts import as_label_counts
from dissensus.metrics import Metric, get_metric
from dissensus.report._data import REQUIRED_COLUMNS
from dissensus.stats._bootstrap import percentile_interval, warn_few_items
from dissensus.stats._paired import (
    PairedTestResult,
    adjust_pvalues,
    bootstrap_test,
    permutation_test,
    resample_means,
    wilcoxon_test,
)
from dissensus.stats._ranking import competition_ranks, order_reversals, rank_agreement

__all__ = ["DEFAULT_METRICS", "Evaluation", "annotation_bins", "evaluate"]

FloatArray = npt.NDArray[np.float64]
PredictionLike = Predictions | npt.ArrayLike | pd.DataFrame
BinsLike = Literal["auto"] | Sequence[int] | None

#: Pointwise metrics scored by default, each with its expected form (EMD only
#: on ordered scales).
DEFAULT_METRICS: tuple[str, ...] = (
    "cross_entropy",
    "kl_divergence",
    "js_divergence",
    "manhattan",
    "emd",
)

#: Readable left edges for ``bins="auto"``: 1, 2, 4, 6, 11, 21, 51, then 101,
#: 201, 501, 1001, ... (1-2-5 steps).
_LADDER: tuple[int, ...] = (
    1,
    2,
    4,
    6,
    11,
    21,
    51,
    *(m * 10**e + 1 for e in range(2, 10) for m in (1, 2, 5)),
)
_MAX_AUTO_BINS = 6
_TESTS = ("wilcoxon", "bootstrap", "permutation")
#: Below this many items the metrics are computed in one thread (no gain).
_PARALLEL_MIN_ITEMS = 50_000


# --------------------------------------------------------------------------- bins


def _bin_label(low: int, high: int | None) -> str:
    if high is None:
        return f"{low}+"
    return str(low) if high == low else f"{low}–{high}"


def annotation_bins(
    n: npt.ArrayLike, bins: BinsLike = "auto"
) -> tuple[npt.NDArray[np.int64], list[str]]:
    """Group items by their number of annotations.

    Parameters
    ----------
    n : array_like of int, shape (N,)
        Annotations per item.
    bins : "auto", sequence of int, or None, default "auto"
        ``"auto"``: the first edge is ``min(n)``, the next ones are the
        values of the ladder 2, 4, 6, 11, 21, 51, 101, 201, 501, 1001, …
        above it and not above ``max(n)``. With at most six bins the last
        one is closed at the next ladder value minus one (``"6–10"``);
        otherwise the sixth bin is open (``"101+"``). This gives the seed
        paper's bins: 2–3, 4–5, 6–10 on ConvAbuse (2 to 8 annotations) and
        5, 6–10, 11–20, 21–50, 51–100, 101+ on product reviews (5 to
        thousands of ratings).
        A sequence: increasing left edges; bin ``j`` holds
        ``edges[j] <= n < edges[j + 1]`` and the last bin is open.
        ``None``: one bin, ``"all"``.

    Returns
    -------
    codes : ndarray of int64, shape (N,)
        Bin of each item.
    labels : list of str
        One label per bin (``"2–3"``, ``"5"``, ``"11+"``), in order. Bins may
        be empty.

    Raises
    ------
    ValueError
        Edges that are not increasing integers, or ``bins`` of another type.
    DataError
        Items with fewer annotations than the first edge.

    Examples
    --------
    >>> annotation_bins([2, 3, 5, 8])
    (array([0, 0, 1, 2]), ['2–3', '4–5', '6–10'])
    >>> annotation_bins([5, 7, 30, 5000])[1]
    ['5', '6–10', '11–20', '21–50', '51–100', '101+']
    >>> annotation_bins([1, 4, 12], [1, 4, 11])
    (array([0, 1, 2]), ['1–3', '4–10', '11+'])
    """
    counts = np.asarray(n, dtype=np.int64).ravel()
    if counts.size == 0:
        msg = "annotation_bins needs at least one item."
        raise DataError(msg)
    if bins is None:
        return np.zeros(counts.size, dtype=np.int64), ["all"]
    if isinstance(bins, str):
        check_option("annotation_bins", "bins", bins, ("auto",))
        lo, hi = int(counts.min()), int(counts.max())
        above = [e for e in _LADDER if e > lo]
        edges = [lo] + [e for e in above if e <= hi]
        if len(edges) > _MAX_AUTO_BINS:
            edges = edges[:_MAX_AUTO_BINS]
            last: int | None = None
        else:
            last = next(e for e in _LADDER if e > edges[-1]) - 1
        highs: list[int | None] = [*(e - 1 for e in edges[1:]), last]
    else:
        try:
            edges = [int(e) for e in bins]
        except (TypeError, ValueError):
            msg = f"The 'bins' parameter of annotation_bins must be 'auto', None or a list of increasing integers. Got {bins!r} instead."
            raise ValueError(msg) from None
        if not edges or any(b <= a for a, b in itertools.pairwise(edges)):
            msg = f"The 'bins' parameter of annotation_bins must be a non-empty list of increasing integers (left edges). Got {bins!r} instead."
            raise ValueError(msg)
        short = counts < edges[0]
        if short.any():
            msg = (
                f"{int(short.sum())} items have fewer than {edges[0]} annotations (the first bin edge), "
                f"e.g. with n = {examples(np.unique(counts[short]))}; start the bins at {int(counts.min())}."
            )
            raise DataError(msg)
        highs = [*(e - 1 for e in edges[1:]), None]
    codes = np.searchsorted(np.asarray(edges), counts, side="right").astype(np.int64) - 1
    labels = [_bin_label(a, b) for a, b in zip(edges, highs, strict=True)]
    return codes, labels


# --------------------------------------------------------------------------- inputs


def _as_predictions(name: str, pred: Any) -> Predictions:
    if isinstance(pred, Predictions):
        return pred
    if isinstance(pred, pd.DataFrame):
        item = "item" if "item" in pred.columns else None
        return Predictions.from_frame(pred, item=item)
    try:
        arr = np.asarray(pred, dtype=np.float64)
    except (TypeError, ValueError):
        msg = (
            f"Predictions of model {name!r} must be a Predictions, an (N, K) array or a "
            f"DataFrame; got {type(pred).__name__}."
        )
        raise TypeError(msg) from None
    try:
        return Predictions.from_array(arr)
    except DataError as exc:
        msg = f"Model {name!r}: {exc}"
        raise DataError(msg) from None


def _align_all(
    counts: LabelCounts, preds: Mapping[str, Predictions], how: Literal["exact", "inner"]
) -> tuple[LabelCounts, list[FloatArray]]:
    """Predictions of every model aligned to one set of items (the counts' order)."""
    aligned = []
    for name, pred in preds.items():
        with warnings.catch_warnings():
            # one warning for the whole evaluation below, not one per model
            warnings.simplefilter("ignore")
            aligned.append(pred.align(counts, how=how, name=name))
    if how == "exact":
        return counts, [p.values for p, _ in aligned]  # noqa: PD011  (Predictions, not pandas)
    keep = np.ones(counts.N, dtype=bool)
    for _, sub in aligned:
        keep &= counts.items.isin(sub.items)
    if not keep.any():
        msg = "The models and the annotations have no item in common."
        raise DataError(msg)
    if not keep.all():
        dropped = counts.items[~keep]
        warnings.warn(
            f"Kept the {int(keep.sum())} items every model predicts; dropped {dropped.size} "
            f"annotated items ({examples(list(dropped))}).",
            DataDroppedWarning,
            stacklevel=3,
        )
    sub_counts = counts.take(np.flatnonzero(keep))
    values = []
    for pred, sub in aligned:
        ids = sub.items if pred.items is None else pred.items  # align() puts both in one order
        rows = ids.get_indexer(sub_counts.items)
        values.append(pred.values[rows])  # noqa: PD011  (Predictions, not pandas)
    return sub_counts, values


def _resolve_metrics(metrics: Sequence[str] | str | None, ordered: bool) -> list[Metric]:
    if metrics is None:
        base = [m for m in DEFAULT_METRICS if ordered or not get_metric(m).needs_order]
        names = base + [e for m in base if (e := get_metric(m).expected) is not None]
    elif isinstance(metrics, str):
        names = [metrics]
    else:
        names = list(metrics)
    if not names:
        msg = "The 'metrics' parameter of evaluate must name at least one metric."
        raise ValueError(msg)
    if len(set(names)) != len(names):
        dup = [m for m in names if names.count(m) > 1]
        msg = f"The 'metrics' parameter of evaluate repeats {examples(sorted(set(dup)))}."
        raise ValueError(msg)
    resolved = [get_metric(m) for m in names]
    for met in resolved:
        if met.unary:
            msg = f"Metric {met.name!r} takes the target only and cannot score predictions."
            raise ValueError(msg)
        if met.needs_order and not ordered:
            msg = (
                f"Metric {met.name!r} needs ordered labels, but the scale is nominal; "
                "load the data with ordered=True (or Scale.ordinal) or drop the metric."
            )
            raise ValueError(msg)
    return resolved


def _prior_name(prior: Any) -> str:
    if isinstance(prior, str):
        return prior
    arr = np.asarray(prior)
    return f"symmetric {float(arr)}" if arr.ndim == 0 else "custom array"


def _python(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


# --------------------------------------------------------------------------- evaluate


def evaluate(
    data: Annotations | LabelCounts,
    predictions: Mapping[str, PredictionLike],
    metrics: Sequence[str] | str | None = None,
    *,
    prior: Any = "uniform",
    bins: BinsLike = "auto",
    seed: SeedLike = 0,
    how: Literal["exact", "inner"] = "exact",
) -> Evaluation:
    r"""Score several models against annotated label distributions.

    Parameters
    ----------
    data : Annotations or LabelCounts
        The annotations (counts per item and label).
    predictions : mapping of str to Predictions, array_like or DataFrame
        Model name -> predicted distributions. A :class:`~dissensus.Predictions`
        or a DataFrame (wide: an ``item`` column, else the index, and one
        column per label) is aligned by item id and label; an (N, K) array
        without ids must list the items in the order of ``data``.
    metrics : sequence of str, optional
        Registered metric names; expected metrics are named ``E[emd]``,
        ``E[cross_entropy]``, ... Default: cross_entropy, kl_divergence,
        js_divergence, manhattan, emd (ordered scales only), then the
        expected form of each.
    prior : {"uniform", "jeffreys", "empirical"}, float or array_like, default "uniform"
        Dirichlet prior of the expected metrics (see
        :func:`dissensus.posterior.dirichlet`).
    bins : "auto", sequence of int or None, default "auto"
        Annotation-count bins of :meth:`Evaluation.by_bin` (see
        :func:`annotation_bins`).
    seed : int, Generator or None, default 0
        Seed of every resampling (bootstrap intervals, permutation tests).
        An int keeps results reproducible across calls.
    how : {"exact", "inner"}, default "exact"
        ``"exact"``: every model must predict exactly the annotated items
        (else :class:`DataError`, listing the differences). ``"inner"``:
        keep the items that every model predicts, with a
        :class:`~dissensus.DataDroppedWarning`.

    Returns
    -------
    Evaluation

    Raises
    ------
    DataError
        Predictions that do not match the annotated items or labels; items
        without annotations when an empirical (pointwise) metric is asked
        for (their empirical distribution is undefined).
    ValueError
        Unknown, repeated or unsuitable metrics (EMD on a nominal scale).
    TypeError
        ``predictions`` not a mapping of model names.

    Notes
    -----
    A pointwise metric of model :math:`j` on item :math:`i` is
    :math:`f(p_i, q_{ij})` with :math:`p_i = n_{ik} / n_i`; an expected one is
    :math:`E_{p \sim \mathrm{Dir}(\alpha_i)}[f(p, q_{ij})]` with
    :math:`\alpha_i = \alpha^{(0)} + n_i`. Natural logs throughout. Metric
    values that are infinite (e.g. cross-entropy against a zero prediction
    under ``zero="inf"``) are kept: the model's mean is then infinite and its
    interval NaN, never silently dropped.

    References
    ----------
    Magnani, A. (2025). Soft metrics for ordinal label uncertainty with
    variable sample sizes (the seed paper).

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
    ...     table = ev.summary(n_boot=200)
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
        msg = (
            "`predictions` must map model names to predictions, e.g. {'model_a': preds}; "
            f"got {type(given).__name__}."
        )
        raise TypeError(msg)
    if not predictions:
        msg = "`predictions` is empty; give at least one model."
        raise ValueError(msg)
    check_option("evaluate", "how", how, ("exact", "inner"))
    n_annotators: int | None = None
    if isinstance(data, Annotations) and data.has_annotators:
        n_annotators = data.n_annotators
    counts = as_label_counts(data, "data")
    preds = {str(name): _as_predictions(str(name), p) for name, p in predictions.items()}
    counts, values = _align_all(counts, preds, how)
    met = _resolve_metrics(metrics, counts.scale.ordered)
    n = counts.n
    pointwise = [m.name for m in met if not m.needs_posterior]
    if pointwise and (n == 0).any():
        empty = counts.items[n == 0]
        msg = (
            f"{empty.size} items have no annotation ({examples(list(empty))}), so the empirical "
            f"metrics {examples(pointwise)} are undefined for them; drop these items or use "
            "expected metrics only (e.g. metrics=['E[emd]'])."
        )
        raise DataError(msg)
    bin_codes, bin_labels = annotation_bins(n, bins)
    t1 = time.perf_counter()

    p = counts.proportions() if pointwise else None
    alpha: FloatArray | None = None
    if any(m.needs_posterior for m in met):
        from dissensus.posterior import dirichlet  # noqa: PLC0415  (only expected metrics need it)

        alpha = np.asarray(dirichlet(counts, prior=prior), dtype=np.float64)
    S = np.empty((len(met), len(preds), counts.N))
    jobs = [(i, j) for i in range(len(met)) for j in range(len(values))]

    def score(job: tuple[int, int]) -> None:
        i, j = job
        m = met[i]
        S[i, j] = m.func(alpha if m.needs_posterior else p, values[j])

    # NumPy and SciPy release the GIL in the metric kernels; each job writes its own row
    workers = min(len(jobs), max(1, os.cpu_count() or 1))
    if workers > 1 and counts.N >= _PARALLEL_MIN_ITEMS:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(score, jobs))
    else:
        for job in jobs:
            score(job)
    S.flags.writeable = False
    t2 = time.perf_counter()
    return Evaluation(
        scores_array=S,
        counts=counts,
        models=list(preds),
        metrics=met,
        bin_codes=bin_codes,
        bin_labels=bin_labels,
        prior=_prior_name(prior),
        seed=seed,
        n_annotators=n_annotators,
        timings={"alignment": t1 - t0, "metrics": t2 - t1},
    )


# --------------------------------------------------------------------------- Evaluation


class Evaluation:
    """Per-item scores of several models under several metrics, and what follows.

    Build it with :func:`evaluate`. The scores are computed once; the tables
    below are computed on demand (the bootstrap resamples once per
    ``n_boot`` and shared by :meth:`summary`, :meth:`differences` and
    :meth:`reversals`).

    Attributes
    ----------
    models : list of str
        Model names, in the order given.
    metrics : list of str
        Metric names, in the order given.
    values : ndarray of float64, shape (M, J, N), read-only
        ``values[m, j, i]`` is metric ``m`` of model ``j`` on item ``i``.
    counts : LabelCounts
        The annotations the models were scored against (after alignment).
    n_annotations : ndarray of int64, shape (N,)
    bins : list of str
        Labels of the annotation-count bins.
    timings : dict of str to float
        Seconds spent on alignment, metrics and each bootstrap.
    """

    def __init__(
        self,
        *,
        scores_array: FloatArray,
        counts: LabelCounts,
        models: list[str],
        metrics: list[Metric],
        bin_codes: npt.NDArray[np.int64],
        bin_labels: list[str],
        prior: str,
        seed: SeedLike,
        n_annotators: int | None,
        timings: dict[str, float],
    ) -> None:
        self.values = scores_array
        self.counts = counts
        self.models = models
        self._metrics = metrics
        self.metrics = [m.name for m in metrics]
        self._bin_codes = bin_codes
        self.bins = bin_labels
        self.prior = prior
        self.seed = seed
        self.n_annotators = n_annotators
        self.timings = timings
        self.n_annotations = counts.n
        self._boot_cache: dict[int, FloatArray] = {}
        self._scores: pd.DataFrame | None = None
        self._agreement_cache: dict[tuple[float, int, bool], pd.DataFrame | None] = {}
        with np.errstate(invalid="ignore", over="ignore"):
            self._means = self.values.mean(axis=2)
        self._lower = np.array([m.lower_is_better for m in metrics], dtype=bool)

    def __repr__(self) -> str:
        return (
            f"<Evaluation: {len(self.models)} models × {len(self.metrics)} metrics on "
            f"{self.counts.N} items; models {examples(self.models)}; metrics {examples(self.metrics)}>"
        )

    # -- helpers -----------------------------------------------------------
    def _metric_index(self, metric: str) -> int:
        if metric not in self.metrics:
            msg = (
                f"Metric {metric!r} is not in this evaluation; it has {examples(self.metrics, 12)}."
            )
            raise ValueError(msg)
        return self.metrics.index(metric)

    def _model_index(self, model: str) -> int:
        if model not in self.models:
            msg = f"Model {model!r} is not in this evaluation; it has {examples(self.models, 12)}."
            raise ValueError(msg)
        return self.models.index(model)

    def _boot(self, n_boot: int) -> FloatArray:
        """Resampled means, shape (B, M, J): the same items for every model and metric."""
        n_boot = int(n_boot)
        if n_boot not in self._boot_cache:
            if n_boot < 2:
                msg = (
                    f"The 'n_boot' parameter must be at least 2 (one resample gives an interval "
                    f"of width zero). Got {n_boot!r} instead."
                )
                raise ValueError(msg)
            t = time.perf_counter()
            M, J, N = self.values.shape
            boot = resample_means(self.values.reshape(M * J, N), n_boot, seed=self.seed)
            self._boot_cache[n_boot] = boot.reshape(n_boot, M, J)
            self.timings[f"bootstrap (n_boot={n_boot})"] = time.perf_counter() - t
        return self._boot_cache[n_boot]

    def _interval(
        self, boot: FloatArray, point: FloatArray, ci: float
    ) -> tuple[FloatArray, FloatArray]:
        level = check_probability_level("Evaluation", "ci", ci)
        warn_few_items(self.values.shape[2], what="evaluation's bootstrap interval", stacklevel=4)
        with np.errstate(invalid="ignore"):  # inf - inf between infinite replicates
            low, high = percentile_interval(boot, level=level)
        bad = ~np.isfinite(point)
        return np.where(bad, np.nan, low), np.where(bad, np.nan, high)

    def _oriented_means(self) -> FloatArray:
        out: FloatArray = np.where(self._lower[:, None], self._means, -self._means)
        return out

    # -- tables ------------------------------------------------------------
    @property
    def scores(self) -> pd.DataFrame:
        """Tidy per-item scores: ``item, model, metric, value, n_annotations, bin``.

        One row per (metric, model, item), in that nesting order; ``model``,
        ``metric``, ``item`` and ``bin`` are categorical. Built on first
        access (it has ``M × J × N`` rows).
        """
        if self._scores is None:
            M, J, N = self.values.shape
            item_codes = np.tile(np.arange(N), M * J)
            items = self.counts.items
            item_col = (
                pd.Categorical.from_codes(item_codes, categories=items)
                if items.is_unique
                else np.tile(np.asarray(items), M * J)
            )
            self._scores = pd.DataFrame(
                {
                    "item": item_col,
                    "model": pd.Categorical.from_codes(
                        np.tile(np.repeat(np.arange(J), N), M), categories=pd.Index(self.models)
                    ),
                    "metric": pd.Categorical.from_codes(
                        np.repeat(np.arange(M), J * N), categories=pd.Index(self.metrics)
                    ),
                    "value": self.values.reshape(-1),
                    "n_annotations": np.tile(self.n_annotations, M * J),
                    "bin": pd.Categorical.from_codes(
                        np.tile(self._bin_codes, M * J),
                        categories=pd.Index(self.bins),
                        ordered=True,
                    ),
                }
            )
        return self._scores

    def summary(self, ci: float = 0.95, n_boot: int = 1000) -> pd.DataFrame:
        r"""Mean score per model and metric with a paired bootstrap interval.

        Parameters
        ----------
        ci : float, default 0.95
            Coverage of the percentile interval.
        n_boot : int, default 1000
            Bootstrap resamples of the items (shared by all models and
            metrics; cached per ``n_boot``).

        Returns
        -------
        DataFrame
            ``model, metric, mean, se, ci_low, ci_high, n_items,
            lower_is_better, best``; metrics in the given order, models in
            the given order within each metric. ``se`` is the standard error
            :math:`s / \sqrt{N}` (sample standard deviation, ``ddof=1``).
            ``best`` marks the best mean under each metric (every tied model).
            A non-finite mean has NaN ``se`` and interval.
        """
        boot = self._boot(n_boot)
        low, high = self._interval(boot, self._means, ci)
        M, J, N = self.values.shape
        with np.errstate(invalid="ignore", over="ignore"):
            se = (
                self.values.std(axis=2, ddof=1) / math.sqrt(N) if N > 1 else np.full((M, J), np.nan)
            )
        se = np.where(np.isfinite(self._means), se, np.nan)
        ranks, _ = competition_ranks(self._means, lower_is_better=self._lower)
        return pd.DataFrame(
            {
                "model": np.tile(self.models, M),
                "metric": np.repeat(self.metrics, J),
                "mean": self._means.ravel(),
                "se": se.ravel(),
                "ci_low": low.ravel(),
                "ci_high": high.ravel(),
                "n_items": np.full(M * J, N, dtype=np.int64),
                "lower_is_better": np.repeat(self._lower, J),
                "best": (ranks == 1.0).ravel(),
            }
        )

    def differences(self, ci: float = 0.95, n_boot: int = 1000) -> pd.DataFrame:
        """Paired differences between every two models under every metric.

        Returns
        -------
        DataFrame
            ``metric, model_a, model_b, diff, ci_low, ci_high, better``: one
            row per metric and unordered model pair (``model_a`` first in the
            given order), ``diff = mean(model_a) - mean(model_b)``, its paired
            bootstrap interval, and ``better``: the better model's name when
            the interval excludes 0, ``"tie"`` when it covers 0, and missing
            (None) when it is undefined (an infinite or NaN mean).
        """
        boot = self._boot(n_boot)
        J = len(self.models)
        a, b = np.triu_indices(J, k=1)
        with np.errstate(invalid="ignore"):
            diff = self._means[:, a] - self._means[:, b]
            low, high = self._interval(boot[:, :, a] - boot[:, :, b], diff, ci)
        a_better = np.where(self._lower[:, None], high < 0, low > 0)
        b_better = np.where(self._lower[:, None], low > 0, high < 0)
        names = np.asarray(self.models, dtype=object)
        undefined = np.isnan(low) | np.isnan(high)
        better = np.where(
            a_better,
            names[a][None, :],
            np.where(
                b_better,
                names[b][None, :],
                np.where(undefined, np.array(None, dtype=object), "tie"),
            ),
        )
        P = a.size
        return pd.DataFrame(
            {
                "metric": np.repeat(self.metrics, P),
                "model_a": np.tile(names[a], len(self.metrics)),
                "model_b": np.tile(names[b], len(self.metrics)),
                "diff": diff.ravel(),
                "ci_low": low.ravel(),
                "ci_high": high.ravel(),
                "better": better.ravel().astype(object),
            }
        )

    def by_bin(self, bins: BinsLike | Literal["default"] = "default") -> pd.DataFrame:
        """Mean score per annotation-count bin, model and metric.

        Parameters
        ----------
        bins : "default", "auto", sequence of int or None
            ``"default"``: the bins chosen in :func:`evaluate`; otherwise as
            in :func:`annotation_bins`.

        Returns
        -------
        DataFrame
            ``bin, model, metric, mean, n_items``; ``bin`` is an ordered
            categorical; rows by bin, then metric, then model; empty bins
            are left out.
        """
        if isinstance(bins, str) and bins == "default":
            codes, labels = self._bin_codes, self.bins
        else:
            codes, labels = annotation_bins(self.n_annotations, bins)
        M, J, N = self.values.shape
        n_bins = len(labels)
        size = np.bincount(codes, minlength=n_bins)
        flat = self.values.reshape(M * J, N)
        sums = np.stack([np.bincount(codes, weights=row, minlength=n_bins) for row in flat])
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (sums / size).reshape(M, J, n_bins).transpose(2, 0, 1)  # (bins, M, J)
        present = np.flatnonzero(size > 0)
        means = means[present]
        nb = present.size
        return pd.DataFrame(
            {
                "bin": pd.Categorical.from_codes(
                    np.repeat(present, M * J), categories=pd.Index(labels), ordered=True
                ),
                "model": np.tile(self.models, nb * M),
                "metric": np.tile(np.repeat(self.metrics, J), nb),
                "mean": means.ravel(),
                "n_items": np.repeat(size[present], M * J).astype(np.int64),
            }
        )

    def rankings(self) -> pd.DataFrame:
        """Each model's rank under each metric.

        Returns
        -------
        DataFrame
            ``metric, model, mean, rank, tied``: rank 1 is best; tied models
            share the smallest rank of their group (1, 2, 2, 4) and have
            ``tied=True``. ``rank`` is a nullable integer, missing for a NaN
            mean (an infinite mean ranks according to its sign).
        """
        ranks, tied = competition_ranks(self._means, lower_is_better=self._lower)
        M, J = ranks.shape
        return pd.DataFrame(
            {
                "metric": np.repeat(self.metrics, J),
                "model": np.tile(self.models, M),
                "mean": self._means.ravel(),
                "rank": pd.array(
                    [None if np.isnan(r) else int(r) for r in ranks.ravel()], dtype="Int64"
                ),
                "tied": tied.ravel(),
            }
        )

    def reversals(self, ci: float = 0.95, n_boot: int = 1000) -> pd.DataFrame:
        """Every pair of metrics that orders a pair of models differently.

        A reversal is strict: model ``a`` is strictly better than ``b`` under
        one metric and strictly worse under the other (a tie is not a
        reversal).

        Returns
        -------
        DataFrame
            ``metric_1, metric_2, model_a, model_b, better_1, better_2,
            diff_1, ci_low_1, ci_high_1, significant_1, diff_2, ci_low_2,
            ci_high_2, significant_2``: ``diff_k = mean(model_a) -
            mean(model_b)`` under ``metric_k`` with its paired bootstrap
            interval (the resamples of :meth:`summary`); ``significant_k``:
            the interval excludes 0. Metric and model pairs follow the given
            orders.
        """
        rev = order_reversals(self._means, lower_is_better=self._lower)
        boot = self._boot(n_boot)
        cols: dict[str, list[Any]] = {k: [] for k in REQUIRED_COLUMNS["reversals"]}
        oriented = self._oriented_means()
        for m1, m2, a, b in rev.tolist():
            cols["metric_1"].append(self.metrics[m1])
            cols["metric_2"].append(self.metrics[m2])
            cols["model_a"].append(self.models[a])
            cols["model_b"].append(self.models[b])
            for k, m in (("1", m1), ("2", m2)):
                d = self._means[m, a] - self._means[m, b]
                low, high = self._interval(boot[:, m, a] - boot[:, m, b], np.asarray(d), ci)
                better = a if oriented[m, a] < oriented[m, b] else b
                cols[f"better_{k}"].append(self.models[better])
                cols[f"diff_{k}"].append(float(d))
                cols[f"ci_low_{k}"].append(float(low))
                cols[f"ci_high_{k}"].append(float(high))
                cols[f"significant_{k}"].append(bool(low > 0 or high < 0))
        out = pd.DataFrame(cols)
        for k in ("significant_1", "significant_2"):
            out[k] = out[k].astype(bool)
        for k in ("diff_1", "ci_low_1", "ci_high_1", "diff_2", "ci_low_2", "ci_high_2"):
            out[k] = out[k].astype(np.float64)
        return out

    def metric_agreement(self) -> pd.DataFrame:
        r"""How much each pair of metrics agrees on the ranking of the models.

        Returns
        -------
        DataFrame
            ``metric_1, metric_2, share_reranked, mean_abs_change,
            sd_abs_change, kendall_tau`` per unordered pair of metrics (the
            format of Table 2 of Rizzi et al. 2024): the share of models whose
            rank differs, the mean and population sd of the absolute rank
            change, and Kendall's :math:`\tau_b` between the rankings.
        """
        ranks, _ = competition_ranks(self._means, lower_is_better=self._lower)
        rows = []
        M = len(self.metrics)
        for m1 in range(M):
            for m2 in range(m1 + 1, M):
                agr = rank_agreement(ranks[m1], ranks[m2])
                rows.append((self.metrics[m1], self.metrics[m2], *agr))
        columns = REQUIRED_COLUMNS["metric_agreement"]
        # every column after the metric pair is a number
        return pd.DataFrame(rows, columns=list(columns)).astype(
            dict.fromkeys(columns[2:], np.float64)
        )

    # -- tests -------------------------------------------------------------
    def compare(
        self,
        a: str,
        b: str,
        metric: str,
        *,
        test: Literal["wilcoxon", "bootstrap", "permutation"] = "wilcoxon",
        n_resamples: int = 9999,
        ci: float = 0.95,
        seed: SeedLike | Literal["default"] = "default",
    ) -> PairedTestResult:
        """Paired test of model ``a`` against model ``b`` under one metric.

        Parameters
        ----------
        a, b : str
            Model names.
        metric : str
            Metric name.
        test : {"wilcoxon", "bootstrap", "permutation"}, default "wilcoxon"
            :func:`~dissensus.stats._paired.wilcoxon_test` (scipy's
            signed-rank test), :func:`~dissensus.stats._paired.bootstrap_test`
            or :func:`~dissensus.stats._paired.permutation_test`.
        n_resamples : int, default 9999
            Resamples of the bootstrap and permutation tests.
        ci : float, default 0.95
            Coverage of the bootstrap interval.
        seed : int, Generator or None, optional
            Default: the evaluation's seed.

        Returns
        -------
        PairedTestResult
            ``statistic, pvalue, diff`` (mean of ``a - b``), ``ci``.

        Raises
        ------
        ValueError
            Unknown model, metric or test; non-finite scores.
        """
        check_option("Evaluation.compare", "test", test, _TESTS)
        m = self._metric_index(metric)
        x = self.values[m, self._model_index(a)]
        y = self.values[m, self._model_index(b)]
        rng_seed = self.seed if isinstance(seed, str) and seed == "default" else seed
        if test == "wilcoxon":
            return wilcoxon_test(x, y)
        if test == "bootstrap":
            return bootstrap_test(x, y, n_resamples=n_resamples, level=ci, seed=rng_seed)
        return permutation_test(x, y, n_resamples=n_resamples, seed=rng_seed)

    def pairwise_tests(
        self,
        metric: str | None = None,
        *,
        test: Literal["wilcoxon", "bootstrap", "permutation"] = "wilcoxon",
        correction: Literal["holm", "bonferroni"] | None = "holm",
        alpha: float = 0.05,
        n_resamples: int = 9999,
    ) -> pd.DataFrame:
        """Paired tests between every two models, with a multiplicity correction.

        Parameters
        ----------
        metric : str, optional
            One metric; default all.
        test : {"wilcoxon", "bootstrap", "permutation"}, default "wilcoxon"
        correction : {"holm", "bonferroni"} or None, default "holm"
            Applied within each metric: the family is the set of model pairs
            compared under that metric.
        alpha : float, default 0.05
            Family-wise error rate for ``reject``.
        n_resamples : int, default 9999

        Returns
        -------
        DataFrame
            ``metric, model_a, model_b, diff, statistic, p, p_adjusted,
            reject``. Pairs with non-finite scores get NaN p-values and are
            not rejected.
        """
        check_option("Evaluation.pairwise_tests", "test", test, _TESTS)
        check_option(
            "Evaluation.pairwise_tests", "correction", correction, ("holm", "bonferroni", None)
        )
        metrics = self.metrics if metric is None else [self.metrics[self._metric_index(metric)]]
        J = len(self.models)
        rows = []
        for met in metrics:
            block: list[list[Any]] = []
            for a in range(J):
                for b in range(a + 1, J):
                    try:
                        res = self.compare(
                            self.models[a], self.models[b], met, test=test, n_resamples=n_resamples
                        )
                        block.append(
                            [
                                met,
                                self.models[a],
                                self.models[b],
                                res.diff,
                                res.statistic,
                                res.pvalue,
                            ]
                        )
                    except ValueError:
                        m = self.metrics.index(met)
                        with np.errstate(invalid="ignore"):
                            d = float(self._means[m, a] - self._means[m, b])
                        block.append([met, self.models[a], self.models[b], d, math.nan, math.nan])
            if block:
                adjusted = adjust_pvalues([r[-1] for r in block], method=correction)
                for r, p_adj in zip(block, adjusted, strict=True):
                    rows.append([*r, float(p_adj), bool(p_adj <= alpha)])
        return pd.DataFrame(
            rows,
            columns=[
                "metric",
                "model_a",
                "model_b",
                "diff",
                "statistic",
                "p",
                "p_adjusted",
                "reject",
            ],
        ).astype(
            {
                "diff": np.float64,
                "statistic": np.float64,
                "p": np.float64,
                "p_adjusted": np.float64,
                "reject": bool,
            }
        )

    # -- output ------------------------------------------------------------
    def dataset_info(self) -> dict[str, Any]:
        """``n_items, n_annotators, n_annotations, labels, ordered, prior``."""
        scale = self.counts.scale
        return {
            "n_items": int(self.counts.N),
            "n_annotators": self.n_annotators,
            "n_annotations": int(self.n_annotations.sum()),
            "labels": [_python(v) for v in scale.labels],
            "ordered": bool(scale.ordered),
            "prior": self.prior,
        }

    def metrics_info(self) -> pd.DataFrame:
        """``name, lower_is_better, kind, description`` of each metric."""
        return pd.DataFrame(
            {
                "name": self.metrics,
                "lower_is_better": self._lower,
                "kind": [m.kind for m in self._metrics],
                "description": [m.description for m in self._metrics],
            }
        )

    def _agreement(self, ci: float, n_boot: int, with_ci: bool) -> pd.DataFrame | None:
        """The agreement table of the report, or None when it cannot be computed.

        Items with fewer than two annotations are left out by the coefficients
        themselves (the table's ``note`` column says so), so their warning is
        not repeated here.
        """
        from dissensus.agreement import report  # noqa: PLC0415  (only the report needs it)

        key = (float(ci), int(n_boot), bool(with_ci))
        if key in self._agreement_cache:
            return self._agreement_cache[key]
        level: Literal["ordinal", "nominal"] = "ordinal" if self.counts.scale.ordered else "nominal"
        t = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateAgreementWarning)
                table = report(
                    self.counts,
                    level=level,
                    ci=ci if with_ci else None,
                    n_boot=n_boot,
                    seed=self.seed,
                )
        except (DataError, ValueError):
            table = None
        self.timings["agreement (report)"] = time.perf_counter() - t
        self._agreement_cache[key] = table
        return table

    def report_data(
        self,
        *,
        title: str = "Model evaluation",
        ci: float = 0.95,
        n_boot: int = 1000,
        agreement_ci: bool = True,
    ) -> Any:
        """The tables of the report, as a :class:`dissensus.report.ReportData`.

        Parameters
        ----------
        title : str
        ci : float, default 0.95
            Coverage of every interval.
        n_boot : int, default 1000
            Bootstrap resamples (the same resamples as :meth:`summary`).
        agreement_ci : bool, default True
            Bootstrap intervals for the agreement coefficients of the dataset
            section too (:func:`dissensus.agreement.report`, one set of
            resamples for every coefficient: about 5 s on a million items on
            2 cores); ``False`` keeps the point estimates and their standard
            errors.
        """
        from dissensus.report import ReportData  # noqa: PLC0415  (report is optional)

        return ReportData(
            title=title,
            dataset=self.dataset_info(),
            annotations_per_item=np.asarray(self.n_annotations, dtype=np.int64),
            agreement=self._agreement(ci, n_boot, agreement_ci),
            summary=self.summary(ci=ci, n_boot=n_boot),
            differences=self.differences(ci=ci, n_boot=n_boot),
            by_bin=self.by_bin(),
            rankings=self.rankings(),
            reversals=self.reversals(ci=ci, n_boot=n_boot),
            metric_agreement=self.metric_agreement(),
            metrics_info=self.metrics_info(),
        )

    def to_markdown(
        self,
        *,
        title: str = "Model evaluation",
        ci: float = 0.95,
        n_boot: int = 1000,
        agreement_ci: bool = True,
    ) -> str:
        """The report as Markdown (via :func:`dissensus.report.render_markdown`).

        Options as in :meth:`report_data`.
        """
        from dissensus.report import render_markdown  # noqa: PLC0415

        data = self.report_data(title=title, ci=ci, n_boot=n_boot, agreement_ci=agreement_ci)
        return str(render_markdown(data))

    def to_html(
        self,
        path: str | Path | None = None,
        *,
        title: str = "Model evaluation",
        ci: float = 0.95,
        n_boot: int = 1000,
        agreement_ci: bool = True,
    ) -> str:
        """The report as a self-contained HTML page; written to ``path`` when given.

        Options as in :meth:`report_data`.
        """
        from dissensus.report import render_html  # noqa: PLC0415

        data = self.report_data(title=title, ci=ci, n_boot=n_boot, agreement_ci=agreement_ci)
        html: object = render_html(data)
        if not isinstance(html, str):
            msg = f"dissensus.report.render_html returned {type(html).__name__}, not HTML text."
            raise TypeError(msg)
        if path is not None:
            from dissensus.data._atomic import write_file_atomically  # noqa: PLC0415

            write_file_atomically(path, html)
        return html

    def to_json(self, *, ci: float = 0.95, n_boot: int = 1000, indent: int | None = 2) -> str:
        """Dataset info, summary, differences, by-bin means, rankings, reversals, metric agreement.

        NaN becomes ``null`` and ±inf the strings ``"inf"`` / ``"-inf"`` (JSON
        has neither).
        """
        tables = {
            "summary": self.summary(ci=ci, n_boot=n_boot),
            "differences": self.differences(ci=ci, n_boot=n_boot),
            "by_bin": self.by_bin(),
            "rankings": self.rankings(),
            "reversals": self.reversals(ci=ci, n_boot=n_boot),
            "metric_agreement": self.metric_agreement(),
        }
        payload: dict[str, Any] = {
            "dataset": self.dataset_info(),
            "models": self.models,
            "metrics": self.metrics,
            "ci": ci,
            "n_boot": n_boot,
            "seed": self.seed if isinstance(self.seed, int) else None,
        }
        for name, table in tables.items():
            payload[name] = [
                {str(k): _json_value(v) for k, v in rec.items()}
                for rec in table.astype(object).to_dict(orient="records")
            ]
        return json.dumps(payload, indent=indent, allow_nan=False, ensure_ascii=False)

    def save(
        self,
        out_dir: str | Path,
        *,
        ci: float = 0.95,
        n_boot: int = 1000,
        agreement_ci: bool = True,
        inputs: Sequence[str | Path] = (),
        params: Mapping[str, Any] | None = None,
        scores: bool = True,
    ) -> dict[str, Path]:
        """Write ``summary.csv``, ``rankings.csv``, ``scores.parquet``, ``report.html``, ``manifest.json``.

        Floats are written with ``%.10g`` so that the same inputs and seed give
        byte-identical CSV files. ``report.html`` is written only when the
        report renderer is importable (options as in :meth:`report_data`).

        The files are written as one set (:class:`dissensus.data._atomic.AtomicFileSet`):
        each goes to a temporary name and all are moved into place together,
        with a ``manifest.json`` holding the parameters and the SHA-256 of each
        file, so an interrupted or failed save leaves the earlier set intact.
        The directory is locked while it is written.

        Parameters
        ----------
        inputs : sequence of str or Path, optional
            Files the evaluation was read from; an output that would
            overwrite one of them is refused.
        params : mapping, optional
            Extra run parameters for the manifest.
        scores : bool, default True
            Write the per-item scores (``scores.parquet``, one row per metric,
            model and item). They are written one (metric, model) row group
            at a time from the dense score array, so memory stays at one
            group of N rows.

        Returns
        -------
        dict of str to Path
            File role (``"summary"``, ``"rankings"``, ``"scores"``,
            ``"report"``, ``"manifest"``) -> path written.

        Raises
        ------
        OutputError
            The directory is unusable or locked by another run, an output is
            an input, or a write failed (the message names the path).
        """
        from dissensus.data._atomic import AtomicFileSet  # noqa: PLC0415

        names = {
            "summary": "summary.csv",
            "rankings": "rankings.csv",
            "scores": "scores.parquet",
            "report": "report.html",
        }
        run = {
            "dissensus": _version(),
            "models": self.models,
            "metrics": self.metrics,
            "ci": ci,
            "n_boot": n_boot,
            "seed": self.seed if isinstance(self.seed, int) else None,
            **(params or {}),
        }
        with AtomicFileSet(out_dir, inputs=inputs, params=run) as files:
            for name in names.values():
                files.temporary(name)  # refuses an input before any work
            files.discard()
            paths: dict[str, Path] = {}
            summary = self.summary(ci=ci, n_boot=n_boot)
            paths["summary"] = files.write(
                names["summary"], summary.to_csv(index=False, float_format="%.10g")
            )
            paths["rankings"] = files.write(
                names["rankings"], self.rankings().to_csv(index=False, float_format="%.10g")
            )
            if scores:
                paths["scores"] = files.written(names["scores"], self._write_scores)
            try:
                import dissensus.report  # noqa: F401, PLC0415
            except ImportError:
                pass
            else:
                html = self.to_html(ci=ci, n_boot=n_boot, agreement_ci=agreement_ci)
                paths["report"] = files.write(names["report"], html)
        paths["manifest"] = files.final_path("manifest.json")
        return paths

    def _write_scores(self, path: Path) -> None:
        """:attr:`scores` as Parquet, one row group per (metric, model), never the whole frame."""
        import pyarrow as pa  # type: ignore[import-untyped]  # noqa: PLC0415
        import pyarrow.parquet as pq  # type: ignore[import-untyped]  # noqa: PLC0415

        M, J, N = self.values.shape
        items = self.counts.items
        item_col: Any = (
            pd.Categorical.from_codes(np.arange(N), categories=items)
            if items.is_unique
            else np.asarray(items).astype(str)
        )
        models, metrics = pd.Index(self.models), pd.Index(self.metrics)
        bins = pd.Categorical.from_codes(
            self._bin_codes, categories=pd.Index(self.bins), ordered=True
        )
        writer: Any = None
        try:
            for m in range(M):
                for j in range(J):
                    group = pd.DataFrame(
                        {
                            "item": item_col,
                            "model": pd.Categorical.from_codes(np.full(N, j), categories=models),
                            "metric": pd.Categorical.from_codes(np.full(N, m), categories=metrics),
                            "value": self.values[m, j],
                            "n_annotations": self.n_annotations,
                            "bin": bins,
                        }
                    )
                    table = pa.Table.from_pandas(group, preserve_index=False)
                    if writer is None:
                        writer = pq.ParquetWriter(path, table.schema)
                    writer.write_table(table)
        finally:
            if writer is not None:
                writer.close()


def _version() -> str:
    from dissensus import __version__  # noqa: PLC0415

    return __version__


def _json_value(v: Any) -> Any:
    v = _python(v)
    if v is None or v is pd.NA:
        return None
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v
