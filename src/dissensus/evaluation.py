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

import functools
import json
import math
import time
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataDroppedWarning, DataError, DegenerateAgreementWarning
from dissensus._parallel import thread_limit
from dissensus._validation import (
    SeedLike,
    check_option,
    check_probability_level,
    examples,
    require_extra,
)
from dissensus.data import Annotations, LabelCounts, Predictions
from dissensus.data._counts import as_label_counts
from dissensus.metrics import Metric, get_metric
from dissensus.posterior import DEFAULT_PRIOR
from dissensus.report._data import REQUIRED_COLUMNS, FullFrame, format_number
from dissensus.stats._bins import BinsLike, annotation_bins
from dissensus.stats._bootstrap import percentile_interval, warn_few_items
from dissensus.stats._paired import (
    PairedTestResult,
    _check_resamples,
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

#: Pointwise metrics scored by default, each with its expected form (EMD only
#: on ordered scales).
DEFAULT_METRICS: tuple[str, ...] = (
    "cross_entropy",
    "kl_divergence",
    "js_divergence",
    "manhattan",
    "emd",
)

_TESTS = ("wilcoxon", "bootstrap", "permutation")
#: What the HTML report needs (the ``report`` extra).
_REPORT_MODULES = ("matplotlib", "jinja2")

#: Trials per property in the report's audit appendix: a quick screen (about 0.05 s per
#: metric); ``dissensus audit`` runs the full search (100,000 trials).
REPORT_AUDIT_TRIALS = 2_000


@functools.lru_cache(maxsize=512)
def _cached_audit(metric: str, classes: int, n_trials: int, seed: int) -> Any:
    """:func:`dissensus.audit.audit` of one registry metric, computed once per process.

    The audit depends only on the metric, K, the number of trials and the seed, not
    on the data, so every report of the session shares it.
    """
    from dissensus import audit as audit_module  # noqa: PLC0415  (only the report needs it)

    return audit_module.audit(metric, "all", classes, n_trials, seed=seed)


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
    prior: Any = DEFAULT_PRIOR,
    bins: BinsLike = "auto",
    seed: SeedLike = 0,
    how: Literal["exact", "inner"] = "exact",
    n_jobs: int | None = None,
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
    n_jobs : int or None, default None
        Threads of each metric's blocked kernels. None: the
        ``DISSENSUS_NUM_THREADS`` environment variable if set, else
        ``min(cores, 8)``. The (metric, model) jobs run one after the other
        and each uses these threads (never a pool inside a pool; see
        :mod:`dissensus._parallel`). Scores are bit-identical for every value.

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
    :math:`\alpha_i = \alpha^{(0)} + n_i`. A debiased one (``debiased[emd]``,
    :mod:`dissensus.metrics.debiased`) estimates :math:`f(\pi_i, q_{ij})` for the
    item's TRUE distribution from its counts (jackknife over annotations, or an
    exact U-statistic): per-item values can be negative, and means and
    bootstrap intervals use them unclipped (clipping would bring the bias
    back); items with one annotation keep their empirical value, with a
    warning. Natural logs throughout. Metric
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
    C = counts.values if any(m.needs_counts for m in met) else None  # noqa: PD011  (LabelCounts, not pandas)
    alpha: FloatArray | None = None
    if any(m.needs_posterior for m in met):
        from dissensus.posterior import dirichlet  # noqa: PLC0415  (only expected metrics need it)

        alpha = np.asarray(dirichlet(counts, prior=prior), dtype=np.float64)
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
        predictions=np.stack(values),
        prior_value=prior,
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
        predictions: FloatArray | None = None,
        prior_value: Any = None,
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
        #: (J, N, K) predicted distributions, aligned to ``counts`` (None when not kept).
        self.predictions = predictions
        # the prior itself (not its display name) is needed to rescore under other priors
        named = prior if prior in ("uniform", "jeffreys", "empirical") else None
        self._prior_value: Any = named if prior_value is None else prior_value
        self._prior_cache: dict[tuple[tuple[str, ...], float, int], pd.DataFrame] = {}
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

    def _repr_html_(self) -> str:
        """Compact notebook view: mean per metric and model (best in bold), no bootstrap."""
        import html  # noqa: PLC0415

        ranks, _ = competition_ranks(self._means, lower_is_better=self._lower)
        head = "".join(f"<th>{html.escape(m)}</th>" for m in self.models)
        rows = []
        for i, metric in enumerate(self.metrics):
            arrow = "↓" if self._lower[i] else "↑"
            cells = "".join(
                f"<td><b>{format_number(v)}</b></td>" if r == 1 else f"<td>{format_number(v)}</td>"
                for v, r in zip(self._means[i], ranks[i], strict=True)
            )
            rows.append(f"<tr><th>{html.escape(metric)} {arrow}</th>{cells}</tr>")
        caption = (
            f"Evaluation: {len(self.models)} models × {len(self.metrics)} metrics on "
            f"{self.counts.N:,} items (prior {html.escape(self.prior)}); mean per item, "
            "<b>bold</b> best. Intervals: <code>.summary()</code>; report: "
            "<code>.to_html()</code>."
        )
        return (
            f'<table class="dissensus-evaluation"><caption>{caption}</caption>'
            f"<thead><tr><th>metric</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
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
        return FullFrame(
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
        return FullFrame(
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
        return FullFrame(
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
        return FullFrame(
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
        return FullFrame(out)

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
        return FullFrame(
            pd.DataFrame(rows, columns=list(columns)).astype(dict.fromkeys(columns[2:], np.float64))
        )

    # -- robustness to the prior and the items behind each reversal -------
    def _priors(self, priors: Sequence[Any]) -> list[tuple[str, Any]]:
        """(label, prior) pairs: the evaluation's own prior first, then the others once each."""
        if self._prior_value is None:
            msg = (
                f"This Evaluation knows its prior only by name ({self.prior!r}); build it with "
                "evaluate() to compare priors."
            )
            raise ValueError(msg)
        out: list[tuple[str, Any]] = [(self.prior, self._prior_value)]
        for prior in priors:
            label = _prior_name(prior)
            if label not in {name for name, _ in out}:
                out.append((label, prior))
        return out

    def prior_fit(
        self, priors: Sequence[Any] = ("uniform", "jeffreys", "empirical")
    ) -> pd.DataFrame:
        r"""How strongly each prior weighs against the annotations, and how well it fits them.

        Parameters
        ----------
        priors : sequence, default ("uniform", "jeffreys", "empirical")
            Priors to compare with the evaluation's own (which comes first).

        Returns
        -------
        DataFrame
            ``prior, strength, log_likelihood, share_items_weak, used``:
            ``strength`` is the prior's total pseudo-count
            :math:`s = \sum_k \alpha^{(0)}_k` (NaN for a per-item prior);
            ``log_likelihood`` the Dirichlet-multinomial marginal likelihood
            of the counts under it (:func:`dissensus.posterior.marginal_log_likelihood`,
            natural log; the empirical-Bayes prior maximises it);
            ``share_items_weak`` the share of items whose annotation count
            :math:`n_i \le s`, where the prior weighs at least as much as the
            annotations in the posterior; ``used`` marks the evaluation's prior.
        """
        from dissensus.posterior import (  # noqa: PLC0415  (only the robustness check needs it)
            PriorFitWarning,
            _prior_vector,
            marginal_log_likelihood,
        )

        n = self.counts.values  # noqa: PD011  (LabelCounts, not pandas)
        rows: list[tuple[str, float, float, float, bool]] = []
        for label, prior in self._priors(priors):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PriorFitWarning)
                alpha0 = _prior_vector(prior, n, "Evaluation.prior_fit")
            if alpha0.ndim == 1:
                strength = float(alpha0.sum())
                loglik = marginal_log_likelihood(n, prior=alpha0)
                weak = float(np.mean(self.n_annotations <= strength))
            else:
                strength = loglik = weak = math.nan
            shown = f"empirical (strength {strength:.3g})" if label == "empirical" else label
            rows.append((shown, strength, loglik, weak, not rows))
        return FullFrame(
            rows, columns=["prior", "strength", "log_likelihood", "share_items_weak", "used"]
        )

    def prior_sensitivity(
        self,
        priors: Sequence[Any] = ("uniform", "jeffreys", "empirical"),
        *,
        ci: float = 0.95,
        n_boot: int = 1000,
    ) -> pd.DataFrame:
        """The expected metrics' summary recomputed under other Dirichlet priors.

        Each expected metric is rescored on the same predictions under every
        prior (one vectorised call per prior, metric and model) and
        summarised with the same paired bootstrap resamples as
        :meth:`summary` (same ``seed``), so the priors are compared on equal
        footing. Computed once per (priors, ci, n_boot).

        Parameters
        ----------
        priors : sequence, default ("uniform", "jeffreys", "empirical")
            Priors to compare with the evaluation's own (which comes first).
        ci : float, default 0.95
        n_boot : int, default 1000

        Returns
        -------
        DataFrame
            ``prior, metric, model, mean, ci_low, ci_high, rank, best,
            significant``: ``rank`` 1 is best (ties share it); for the best
            model ``significant`` says whether its lead over the runner-up
            has an interval that excludes zero, for the others whether they
            are significantly worse than the best. Empty when there is no
            expected metric or the predictions were not kept.
        """
        columns = [
            "prior",
            "metric",
            "model",
            "mean",
            "ci_low",
            "ci_high",
            "rank",
            "best",
            "significant",
        ]
        expected = [i for i, m in enumerate(self._metrics) if m.needs_posterior]
        key = (tuple(_prior_name(p) for p in priors), float(ci), int(n_boot))
        if key in self._prior_cache:
            return self._prior_cache[key]
        if not expected or self.predictions is None:
            return pd.DataFrame(columns=columns)
        from dissensus.posterior import PriorFitWarning, dirichlet  # noqa: PLC0415

        pairs = self._priors(priors)
        labels = self.prior_fit(priors)["prior"].tolist()
        E, J, N = len(expected), len(self.models), self.counts.N
        S = np.empty((len(pairs), E, J, N))
        S[0] = self.values[expected]
        for p, (_, prior) in enumerate(pairs[1:], start=1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PriorFitWarning)
                alpha = np.asarray(dirichlet(self.counts, prior=prior), dtype=np.float64)
            for e, m in enumerate(expected):
                for j in range(J):
                    S[p, e, j] = self._metrics[m].func(alpha, self.predictions[j])
        P = len(pairs)
        with np.errstate(invalid="ignore", over="ignore"):
            means = S.mean(axis=3)  # (P, E, J)
        boot = self._boot(n_boot)[:, expected][:, None]  # the evaluation's prior: reuse
        if P > 1:
            extra = resample_means(S[1:].reshape(-1, N), int(n_boot), seed=self.seed)
            boot = np.concatenate([boot, extra.reshape(-1, P - 1, E, J)], axis=1)
        lower = np.broadcast_to(self._lower[expected][None, :], (P, E)).reshape(-1)
        ranks, _ = competition_ranks(means.reshape(P * E, J), lower_is_better=lower)
        ranks = ranks.reshape(P, E, J)
        oriented = np.where(lower.reshape(P, E)[..., None], means, -means)
        order = np.argsort(np.where(np.isnan(oriented), np.inf, oriented), axis=2, kind="stable")
        best = order[..., :1]  # (P, E, 1)
        # each model against the best; the best against the runner-up
        other = np.where(np.arange(J) == best, order[..., 1:2] if J > 1 else best, np.arange(J))
        with np.errstate(invalid="ignore"):
            d_boot = np.take_along_axis(boot, np.broadcast_to(other, boot.shape), axis=3) - (
                np.take_along_axis(boot, np.broadcast_to(best, boot.shape), axis=3)
            )
            d = np.take_along_axis(means, other, axis=2) - np.take_along_axis(means, best, axis=2)
        low_d, high_d = self._interval(d_boot, d, ci)
        significant = (J > 1) & ((low_d > 0) | (high_d < 0))
        low, high = self._interval(boot, means, ci)
        out = FullFrame(
            {
                "prior": np.repeat(labels, E * J),
                "metric": np.tile(np.repeat([self.metrics[m] for m in expected], J), P),
                "model": np.tile(self.models, P * E),
                "mean": means.ravel(),
                "ci_low": low.ravel(),
                "ci_high": high.ravel(),
                "rank": ranks.ravel(),
                "best": (ranks == 1.0).ravel(),
                "significant": significant.ravel(),
            }
        )
        self._prior_cache[key] = out
        return out

    def reversal_items(self, *, n_items: int = 4, max_reversals: int = 3) -> pd.DataFrame:
        r"""The items behind the strongest reversals, with what each side sees there.

        For a reversal of models ``a`` and ``b`` between metrics 1 and 2, an
        item pushes the reversal when it favours the winner under metric 1
        *and* the winner under metric 2. Its weight is
        :math:`\min(z_{1i}, z_{2i})`, where :math:`z_{ki}` is the winner's
        per-item advantage under metric ``k`` divided by the standard
        deviation of that advantage over items (so metrics on different
        scales are comparable). Reversals are taken one per pair of models
        and pair of metric kinds, significant ones first.

        Parameters
        ----------
        n_items : int, default 4
            Items per reversal.
        max_reversals : int, default 3
            Reversals shown.

        Returns
        -------
        DataFrame
            Long format, one row per (reversal, item, series, label):
            ``reversal, metric_1, metric_2, better_1, better_2, item,
            n_annotations, weight, series, label, value``; ``series`` is
            ``"observed"`` (the annotators' label shares), ``"posterior
            mean"`` (under the evaluation's prior) or a model name (its
            prediction). Empty without reversals or kept predictions.
        """
        columns = [
            "reversal", "metric_1", "metric_2", "better_1", "better_2", "item",
            "n_annotations", "weight", "series", "label", "value",
        ]  # fmt: skip
        rev = order_reversals(self._means, lower_is_better=self._lower)
        if rev.size == 0 or self.predictions is None or self._prior_value is None:
            return pd.DataFrame(columns=columns)
        from dissensus.posterior import dirichlet  # noqa: PLC0415

        kinds = np.array([m.kind for m in self._metrics])
        rev = np.asarray(rev, dtype=np.int64).reshape(-1, 4)
        oriented = np.where(self._lower[:, None, None], self.values, -self.values)
        adv = oriented[rev[:, 0], rev[:, 3]] - oriented[rev[:, 0], rev[:, 2]]  # a's edge, metric 1
        adv2 = oriented[rev[:, 1], rev[:, 3]] - oriented[rev[:, 1], rev[:, 2]]
        with np.errstate(invalid="ignore", over="ignore"):
            z1 = np.sign(np.nanmean(adv, axis=1))[:, None] * adv
            z2 = np.sign(np.nanmean(adv2, axis=1))[:, None] * adv2
            z1 = z1 / np.nanstd(z1, axis=1, keepdims=True)
            z2 = z2 / np.nanstd(z2, axis=1, keepdims=True)
            weight = np.nan_to_num(np.minimum(z1, z2), nan=-np.inf, posinf=np.inf)
        strength = np.sort(weight, axis=1)[:, ::-1][:, :n_items].sum(axis=1)
        mixed = kinds[rev[:, 0]] != kinds[rev[:, 1]]
        ranking = np.lexsort((-np.nan_to_num(strength, neginf=-1e300), ~mixed))
        chosen: list[int] = []
        seen: set[tuple[int, int, str, str]] = set()
        for r in ranking.tolist():
            group = (int(rev[r, 2]), int(rev[r, 3]), str(kinds[rev[r, 0]]), str(kinds[rev[r, 1]]))
            if group not in seen:
                seen.add(group)
                chosen.append(r)
            if len(chosen) == max_reversals:
                break
        alpha = np.asarray(dirichlet(self.counts, prior=self._prior_value), dtype=np.float64)
        posterior_mean = alpha / alpha.sum(axis=1, keepdims=True)
        n = self.n_annotations
        observed = self.counts.values / np.maximum(n, 1)[:, None]  # noqa: PD011
        labels = [str(v) for v in self.counts.scale.labels]
        K = len(labels)
        frames = []
        for r in chosen:
            m1, m2, a, b = (int(v) for v in rev[r])
            top = np.argsort(-weight[r], kind="stable")[:n_items]
            top = top[np.isfinite(weight[r, top]) & (weight[r, top] > 0)]
            if top.size == 0:
                continue
            sign1 = np.nanmean(adv[r]) > 0
            sign2 = np.nanmean(adv2[r]) > 0
            better_1 = self.models[a] if sign1 else self.models[b]
            better_2 = self.models[a] if sign2 else self.models[b]
            series = ["observed", "posterior mean", *self.models]
            blocks = np.stack(
                [
                    observed[top],
                    posterior_mean[top],
                    *(self.predictions[j][top] for j in range(len(self.models))),
                ]
            )  # (series, items, K)
            S_, T_ = len(series), top.size
            frames.append(
                pd.DataFrame(
                    {
                        "reversal": f"{self.models[a]} vs {self.models[b]}: {self.metrics[m1]} vs {self.metrics[m2]}",
                        "metric_1": self.metrics[m1],
                        "metric_2": self.metrics[m2],
                        "better_1": better_1,
                        "better_2": better_2,
                        "item": np.tile(
                            np.repeat(np.asarray(self.counts.items[top], dtype=object), K), S_
                        ),
                        "n_annotations": np.tile(np.repeat(n[top], K), S_),
                        "weight": np.tile(np.repeat(weight[r, top], K), S_),
                        "series": np.repeat(series, T_ * K),
                        "label": np.tile(labels, S_ * T_),
                        "value": blocks.reshape(-1),
                    }
                )
            )
        if not frames:
            return pd.DataFrame(columns=columns)
        return pd.concat(frames, ignore_index=True)[columns]

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
            reject``. Pairs with non-finite scores (e.g. an infinite cross
            entropy) get NaN p-values and are not rejected.

        Raises
        ------
        ValueError
            Unknown metric, test or correction; ``n_resamples`` < 1 (as
            :meth:`compare`).
        """
        check_option("Evaluation.pairwise_tests", "test", test, _TESTS)
        check_option(
            "Evaluation.pairwise_tests", "correction", correction, ("holm", "bonferroni", None)
        )
        if test != "wilcoxon":
            _check_resamples("Evaluation.pairwise_tests", n_resamples)
        metrics = self.metrics if metric is None else [self.metrics[self._metric_index(metric)]]
        J = len(self.models)
        rows = []
        for met in metrics:
            block: list[list[Any]] = []
            for a in range(J):
                for b in range(a + 1, J):
                    m = self.metrics.index(met)
                    with np.errstate(invalid="ignore"):
                        finite = bool(np.isfinite(self.values[m, a] - self.values[m, b]).all())
                        d = float(self._means[m, a] - self._means[m, b])
                    if not finite:  # no test is defined; every other error propagates
                        block.append([met, self.models[a], self.models[b], d, math.nan, math.nan])
                        continue
                    res = self.compare(
                        self.models[a], self.models[b], met, test=test, n_resamples=n_resamples
                    )
                    block.append(
                        [met, self.models[a], self.models[b], res.diff, res.statistic, res.pvalue]
                    )
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
        not repeated here. Data the coefficients refuse (:class:`DataError`)
        leave the table out with a :class:`DegenerateAgreementWarning` giving
        the reason; any other error propagates.
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
        except DataError as exc:
            warnings.warn(
                f"The report's agreement table is left out: {exc}",
                DegenerateAgreementWarning,
                stacklevel=3,
            )
            table = None
        self.timings["agreement (report)"] = time.perf_counter() - t
        self._agreement_cache[key] = table
        return table

    def metric_audit(self, *, n_trials: int = REPORT_AUDIT_TRIALS, seed: int = 0) -> pd.DataFrame:
        """The property audit (:func:`dissensus.audit.audit`) of the metrics used, for this K.

        Pointwise and expected metrics are audited over the evaluation's number
        of classes; ``debiased[...]`` metrics are left out (they take annotation
        counts, and their properties are those of the metric they estimate).
        Each (metric, K, ``n_trials``, ``seed``) is audited once per process
        and reused by every later call.

        Parameters
        ----------
        n_trials : int, default REPORT_AUDIT_TRIALS (2,000)
            Trials per property and metric: a quick screen; ``dissensus audit
            --classes K`` runs the full search.
        seed : int, default 0
            Seed of the trials.

        Returns
        -------
        DataFrame
            ``metric, property, title, status, counterexample, classes,
            n_trials, seed``, one row per (metric, property); empty when every
            metric is a debiased one.
        """
        from dissensus.audit import PROPERTIES  # noqa: PLC0415  (only the report needs it)

        titles = {p.key: p.title for p in PROPERTIES}
        K = int(self.counts.K)
        frames = [
            _cached_audit(m.name, K, int(n_trials), int(seed)).to_frame()
            for m in self._metrics
            if not m.needs_counts
        ]
        columns = ["metric", "property", "title", "status", "counterexample"]
        if not frames:
            table = pd.DataFrame(columns=columns)
        else:
            table = pd.concat(frames, ignore_index=True)
            table["title"] = table["property"].map(titles)
        return table[columns].assign(classes=K, n_trials=int(n_trials), seed=int(seed))

    def report_data(
        self,
        *,
        title: str = "Model evaluation",
        ci: float = 0.95,
        n_boot: int = 1000,
        agreement_ci: bool = True,
        priors: Sequence[Any] = ("uniform", "jeffreys", "empirical"),
        audit: bool = True,
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
        priors : sequence, default ("uniform", "jeffreys", "empirical")
            Priors the expected metrics are rescored under for the verdict's
            robustness check (:meth:`prior_sensitivity`); each costs about
            one more scoring of the expected metrics. ``()`` skips it.
        audit : bool, default True
            Add the appendix with the property audit of the metrics used
            (:meth:`metric_audit`; computed once per process per metric and K).
        """
        from dissensus.report import ReportData  # noqa: PLC0415  (report is optional)

        sensitivity = fit = None
        if self.predictions is not None and self._prior_value is not None:
            sensitivity = self.prior_sensitivity(priors, ci=ci, n_boot=n_boot)
            fit = self.prior_fit(priors)
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
            prior_sensitivity=sensitivity,
            prior_fit=fit,
            reversal_items=self.reversal_items(),
            metric_audit=self._report_audit() if audit else None,
        )

    def _report_audit(self) -> pd.DataFrame | None:
        table = self.metric_audit()
        return None if table.empty else table

    def to_markdown(
        self,
        *,
        title: str = "Model evaluation",
        ci: float = 0.95,
        n_boot: int = 1000,
        agreement_ci: bool = True,
        audit: bool = True,
    ) -> str:
        """The report as Markdown (via :func:`dissensus.report.render_markdown`).

        Options as in :meth:`report_data`.
        """
        from dissensus.report import render_markdown  # noqa: PLC0415

        data = self.report_data(
            title=title, ci=ci, n_boot=n_boot, agreement_ci=agreement_ci, audit=audit
        )
        return str(render_markdown(data))

    def to_html(
        self,
        path: str | Path | None = None,
        *,
        title: str = "Model evaluation",
        ci: float = 0.95,
        n_boot: int = 1000,
        agreement_ci: bool = True,
        audit: bool = True,
    ) -> str:
        """The report as a self-contained HTML page; written to ``path`` when given.

        Options as in :meth:`report_data`. Needs the ``report`` extra
        (matplotlib, jinja2): :class:`~dissensus.MissingExtraError` otherwise,
        raised before any work.
        """
        from dissensus.report import render_html  # noqa: PLC0415

        require_extra("report", _REPORT_MODULES, "Evaluation.to_html")

        data = self.report_data(
            title=title, ci=ci, n_boot=n_boot, agreement_ci=agreement_ci, audit=audit
        )
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
        byte-identical CSV files. ``report.html`` (options as in
        :meth:`report_data`) needs the ``report`` extra (matplotlib, jinja2);
        without it :class:`~dissensus.MissingExtraError` is raised before
        any file is written.

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
        require_extra("report", _REPORT_MODULES, "Evaluation.save (report.html)")
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
