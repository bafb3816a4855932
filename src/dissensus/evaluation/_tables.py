"""The statistical tables of an :class:`~dissensus.evaluation.Evaluation`.

Summary, paired differences, bins, rankings, reversals, prior sensitivity and
paired tests, from the dense score array and one paired bootstrap (drawn once
per ``n_resamples``, default 1000, shared by every table). ``confidence_level``
(default 0.95) is each percentile interval's coverage; a non-finite mean (an
infinite cross-entropy) has a NaN interval. Tables print whole
(:class:`~dissensus.report.FullFrame`), metrics and models in the order given.
"""

from __future__ import annotations

import itertools
import math
import time
import warnings
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._validation import (
    SeedLike,
    check_option,
    check_probability_level,
    check_resamples,
    examples,
)
from dissensus.data import LabelCounts
from dissensus.evaluation._data import OPTIONAL_COLUMNS, REQUIRED_COLUMNS
from dissensus.evaluation._true import true_differences
from dissensus.metrics import Metric
from dissensus.metrics.debiased import inverse_variance_mean, jackknife_variance
from dissensus.posterior import PriorFitWarning, dirichlet, marginal_log_likelihood, prior_vector
from dissensus.report import FullFrame
from dissensus.stats import (
    BinsLike,
    PairedTestResult,
    adjust_pvalues,
    annotation_bins,
    bootstrap_test,
    competition_ranks,
    order_reversals,
    percentile_interval,
    permutation_test,
    rank_agreement,
    resample_means,
    warn_few_items,
    wilcoxon_test,
)

FloatArray = npt.NDArray[np.float64]
_TESTS = ("wilcoxon", "bootstrap", "permutation")


def _prior_name(prior: Any) -> str:
    if isinstance(prior, str):
        return prior
    arr = np.asarray(prior)
    return f"symmetric {float(arr)}" if arr.ndim == 0 else "custom array"


def _frame(columns: str | Sequence[str], *values: Any) -> FullFrame:
    """A table of ``columns`` (a name of :data:`REQUIRED_COLUMNS`, or the names) and their values."""
    names = REQUIRED_COLUMNS[columns] if isinstance(columns, str) else columns
    return FullFrame(dict(zip(names, values, strict=True)))


def _python(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


class _Tables:
    """State of an evaluation and its tables; :class:`Evaluation` adds the output."""

    def __init__(
        self, *, scores_array: FloatArray, counts: LabelCounts, models: list[str],
        metrics: list[Metric], bin_codes: npt.NDArray[np.int64], bin_labels: list[str], prior: str,
        seed: SeedLike, n_annotators: int | None, timings: dict[str, float],
        predictions: FloatArray | None = None, prior_value: Any = None, targets: str = "empirical",
        annotator_reliability: pd.DataFrame | None = None,
    ) -> None:  # fmt: skip
        self.values, self.counts, self.models, self._metrics = scores_array, counts, models, metrics
        self.metrics, self.bins, self._bin_codes = [m.name for m in metrics], bin_labels, bin_codes
        self.prior, self.seed, self.n_annotators, self.timings = prior, seed, n_annotators, timings
        self.n_annotations = counts.n
        #: what the pointwise metrics were computed against (``targets=`` of evaluate), and the
        #: per-annotator reliability of the annotator model behind it (or None)
        self.targets, self.annotator_reliability = targets, annotator_reliability
        #: ``evaluate(smooth=)``: ``{"epsilon": ε, "rows_with_zero": {model: n}}``, or None
        self.smoothing: dict[str, Any] | None = None
        #: (J, N, K) predicted distributions, aligned to ``counts`` (None when not kept).
        self.predictions = predictions
        # the prior itself (not its display name) is needed to rescore under other priors
        named = prior if prior in ("uniform", "jeffreys", "empirical") else None
        self._prior_value: Any = named if prior_value is None else prior_value
        self._prior_cache: dict[tuple[tuple[str, ...], float, int], pd.DataFrame] = {}
        self._boot_cache: dict[int, FloatArray] = {}
        self._scores: pd.DataFrame | None = None
        self._dtypes: dict[str, pd.CategoricalDtype] = {}
        self._agreement_cache: dict[tuple[float, int, bool], pd.DataFrame | None] = {}
        with np.errstate(invalid="ignore", over="ignore"):
            self._means = self.values.mean(axis=2)
        self._lower = np.array([m.lower_is_better for m in metrics], dtype=bool)

    def _index(self, what: str, name: str) -> int:
        names: list[str] = getattr(self, f"{what}s")
        if name not in names:
            msg = (
                f"{what.title()} {name!r} is not in this evaluation; it has {examples(names, 12)}."
            )
            raise ValueError(msg)
        return names.index(name)

    def _boot(self, n_resamples: int) -> FloatArray:
        """Resampled means, shape (B, M, J): the same items for every model and metric."""
        n_resamples = int(n_resamples)
        if n_resamples not in self._boot_cache:
            if n_resamples < 2:
                msg = f"The 'n_resamples' parameter must be at least 2 (one resample gives an interval of width zero). Got {n_resamples!r} instead."
                raise ValueError(msg)
            t = time.perf_counter()
            M, J, N = self.values.shape
            boot = resample_means(self.values.reshape(M * J, N), n_resamples, seed=self.seed)
            self._boot_cache[n_resamples] = boot.reshape(n_resamples, M, J)
            self.timings[f"bootstrap (n_resamples={n_resamples})"] = time.perf_counter() - t
        return self._boot_cache[n_resamples]

    def _interval(
        self, boot: FloatArray, point: FloatArray, confidence_level: float
    ) -> tuple[FloatArray, FloatArray]:
        confidence_level = check_probability_level(
            "Evaluation", "confidence_level", confidence_level
        )
        warn_few_items(self.values.shape[2], what="evaluation's bootstrap interval", stacklevel=4)
        with np.errstate(invalid="ignore"):  # inf - inf between infinite replicates
            low, high = percentile_interval(boot, confidence_level=confidence_level)
        bad = ~np.isfinite(point)
        return np.where(bad, np.nan, low), np.where(bad, np.nan, high)

    # -- tables ------------------------------------------------------------
    def _tidy(self, metrics: npt.NDArray[np.intp], models: npt.NDArray[np.intp]) -> pd.DataFrame:
        """Per-item rows of ``metrics`` × ``models`` (positions), in that nesting order."""
        N, reps = self.counts.N, metrics.size * models.size
        items = self.counts.items
        if items.is_unique:
            dtype = self._dtypes.setdefault("item", pd.CategoricalDtype(items))
            item: Any = pd.Categorical.from_codes(np.tile(np.arange(N), reps), dtype=dtype)
        else:
            item = np.tile(np.asarray(items, dtype=object), reps)
        bins = self._dtypes.setdefault(
            "bin", pd.CategoricalDtype(pd.Index(self.bins), ordered=True)
        )
        return pd.DataFrame(
            {
                "item": item,
                "model": pd.Categorical.from_codes(
                    np.tile(np.repeat(models, N), metrics.size), categories=pd.Index(self.models)
                ),
                "metric": pd.Categorical.from_codes(
                    np.repeat(metrics, models.size * N), categories=pd.Index(self.metrics)
                ),
                "value": self.values[np.ix_(metrics, models)].reshape(-1),
                "n_annotations": np.tile(self.n_annotations, reps),
                "bin": pd.Categorical.from_codes(np.tile(self._bin_codes, reps), dtype=bins),
            }
        )

    @property
    def scores(self) -> pd.DataFrame:
        """Tidy per-item scores: ``item, model, metric, value, n_annotations, bin``.

        One row per (metric, model, item), in that nesting order; ``model``,
        ``metric``, ``item`` and ``bin`` are categorical. Built on first
        access (it has ``M × J × N`` rows).
        """
        if self._scores is None:
            M, J, _ = self.values.shape
            self._scores = self._tidy(np.arange(M), np.arange(J))
        return self._scores

    def summary(self, *, confidence_level: float = 0.95, n_resamples: int = 1000) -> pd.DataFrame:
        r"""Mean score per model and metric with a paired bootstrap interval.

        Returns
        -------
        DataFrame
            ``model, metric, mean, standard_error, ci_low, ci_high, n_items,
            lower_is_better, best``: ``standard_error`` is :math:`s / \sqrt{N}`
            (sample standard deviation, ``ddof=1``; NaN for a non-finite mean);
            ``best`` marks the best mean under each metric (every tied model);
            ``n_infinite``: items whose score is infinite (a prediction of 0 where the
            target or the posterior puts mass; one makes the mean infinite).
        """
        boot = self._boot(n_resamples)
        low, high = self._interval(boot, self._means, confidence_level)
        M, J, N = self.values.shape
        with np.errstate(invalid="ignore", over="ignore"):
            se = (
                self.values.std(axis=2, ddof=1) / math.sqrt(N) if N > 1 else np.full((M, J), np.nan)
            )
        se = np.where(np.isfinite(self._means), se, np.nan)
        ranks, _ = competition_ranks(self._means, lower_is_better=self._lower)
        out = _frame(
            "summary", np.tile(self.models, M), np.repeat(self.metrics, J), self._means.ravel(),
            se.ravel(), low.ravel(), high.ravel(), np.full(M * J, N, dtype=np.int64),
            np.repeat(self._lower, J), (ranks == 1.0).ravel(),
        )  # fmt: skip
        out["n_infinite"] = np.count_nonzero(np.isinf(self.values), axis=2).ravel().astype(np.int64)
        return out

    def differences(
        self, *, confidence_level: float = 0.95, n_resamples: int = 1000
    ) -> pd.DataFrame:
        """Paired differences: ``metric, model_a, model_b, diff, ci_low, ci_high, better``.

        One row per metric and unordered model pair (``model_a`` first),
        ``diff = mean(model_a) - mean(model_b)`` with its interval; ``better``
        is the better model when the interval excludes 0, ``"tie"`` when it
        covers 0, None when it is undefined (an infinite or NaN mean).
        """
        boot = self._boot(n_resamples)
        J = len(self.models)
        a, b = np.triu_indices(J, k=1)
        with np.errstate(invalid="ignore"):
            diff = self._means[:, a] - self._means[:, b]
            low, high = self._interval(boot[:, :, a] - boot[:, :, b], diff, confidence_level)
        names = np.asarray(self.models, dtype=object)
        better = np.select(
            [
                np.where(self._lower[:, None], high < 0, low > 0),
                np.where(self._lower[:, None], low > 0, high < 0),
                np.isnan(low) | np.isnan(high),
            ],
            [names[a][None, :], names[b][None, :], np.array(None, dtype=object)],
            default="tie",
        )
        P, M = a.size, len(self.metrics)
        return _frame(
            "differences", np.repeat(self.metrics, P), np.tile(names[a], M), np.tile(names[b], M),
            diff.ravel(), low.ravel(), high.ravel(), better.ravel().astype(object),
        )  # fmt: skip

    def true_differences(self, *, confidence_level: float = 0.95) -> pd.DataFrame:
        """Interval for the difference of TRUE mean scores and P(a truly better), per pair.

        For every evaluated metric whose paired difference has an unbiased
        estimator (``Metric.difference_degree``: cross-entropy, KL, squared
        Euclidean, RPS, empirical when scored against the label shares, or
        their debiased forms) and every model pair (``model_a`` before
        ``model_b``): ``metric, model_a, model_b, diff, standard_error,
        ci_low, ci_high, p_a_better, n_items, estimator, n_infinite``: a t
        interval with Hall's skewness correction from the per-item differences
        (:func:`dissensus.stats.mean_interval`; the module
        ``dissensus.evaluation._true`` gives the details, docs/true_difference.md
        the coverage measured). No bootstrap.
        """
        return true_differences(
            self.values,
            self._metrics,
            self.models,
            self.n_annotations,
            targets=self.targets,
            confidence_level=confidence_level,
        )

    def by_bin(self, bins: BinsLike | Literal["default"] = "default") -> pd.DataFrame:
        """Mean score per annotation-count bin, model and metric: ``bin, model, metric, mean, n_items``.

        ``bins``: ``"default"`` (those of :func:`evaluate`) or as in
        :func:`annotation_bins`. ``bin`` is an ordered categorical; rows by
        bin, then metric, then model; empty bins are left out.
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
        codes = np.repeat(present, M * J)
        return _frame(
            "by_bin", pd.Categorical.from_codes(codes, categories=pd.Index(labels), ordered=True),
            np.tile(self.models, nb * M), np.tile(np.repeat(self.metrics, J), nb), means.ravel(),
            np.repeat(size[present], M * J).astype(np.int64),
        )  # fmt: skip

    def rankings(self) -> pd.DataFrame:
        """Each model's rank under each metric: ``metric, model, mean, rank, tied``.

        Rank 1 is best; tied models share the smallest rank of their group (1,
        2, 2, 4) and have ``tied=True``. ``rank`` is a nullable integer, missing
        for a NaN mean (an infinite mean ranks according to its sign).
        """
        ranks, tied = competition_ranks(self._means, lower_is_better=self._lower)
        M, J = ranks.shape
        rank = pd.array([None if np.isnan(r) else int(r) for r in ranks.ravel()], dtype="Int64")
        metrics, models = np.repeat(self.metrics, J), np.tile(self.models, M)
        return _frame("rankings", metrics, models, self._means.ravel(), rank, tied.ravel())

    def reversals(self, *, confidence_level: float = 0.95, n_resamples: int = 1000) -> pd.DataFrame:
        """Every pair of metrics that orders a pair of models strictly differently (ties are not).

        Returns ``metric_1, metric_2, model_a, model_b, better_1, better_2``
        and, for ``k`` = 1, 2, ``diff_k = mean(model_a) - mean(model_b)`` under
        ``metric_k`` with ``ci_low_k, ci_high_k`` and ``significant_k`` (the
        interval excludes 0).
        """
        rev = np.asarray(order_reversals(self._means, lower_is_better=self._lower), dtype=np.intp)
        m1, m2, a, b = rev.reshape(-1, 4).T
        boot = self._boot(n_resamples)
        oriented = np.where(self._lower[:, None], self._means, -self._means)
        metrics, models = (np.asarray(n, dtype=object) for n in (self.metrics, self.models))
        cols: dict[str, Any] = {"metric_1": metrics[m1], "metric_2": metrics[m2]}
        cols |= {"model_a": models[a], "model_b": models[b]}
        for k, m in (("1", m1), ("2", m2)):  # the columns are put in order below
            cols[f"better_{k}"] = models[np.where(oriented[m, a] < oriented[m, b], a, b)]
            d = self._means[m, a] - self._means[m, b]
            low, high = (
                self._interval(boot[:, m, a] - boot[:, m, b], d, confidence_level)
                if a.size
                else (d, d)
            )
            cols |= {f"diff_{k}": d, f"ci_low_{k}": low, f"ci_high_{k}": high}
            cols[f"significant_{k}"] = (low > 0) | (high < 0)
        return FullFrame(cols, columns=list(REQUIRED_COLUMNS["reversals"]))

    def weighted_summary(self, *, floor: float | Literal["min", "median"] = "min") -> pd.DataFrame:
        r"""Inverse-variance weighted means of the ``debiased[...]`` metrics: a DIFFERENT estimand.

        For each debiased metric the item weights are :math:`w_i \propto 1 /
        \max(\bar v_i, v_0)`, with :math:`\bar v_i` the mean over the models of
        the item's jackknife variance (:func:`dissensus.metrics.debiased.jackknife_variance`),
        so every model is scored with the SAME weights; the floor :math:`v_0` and
        the standard error are those of :func:`dissensus.metrics.debiased.inverse_variance_mean`.
        Precisely measurable items weigh more, so the weighted mean answers "which
        model is closer on the items we can measure precisely", not the plain item
        average of :meth:`summary`; report which one you use. Returns ``model,
        metric, weighted_mean, standard_error, mean, n_items, n_floored``
        (``mean``: the plain mean); empty without a debiased metric; ValueError
        when the predictions (needed for the variances) were not kept.
        """
        columns = [
            "model",
            "metric",
            "weighted_mean",
            "standard_error",
            "mean",
            "n_items",
            "n_floored",
        ]
        debiased = [m for m in self._metrics if m.name.startswith("debiased[")]
        if not debiased:
            return FullFrame(pd.DataFrame(columns=columns))
        if self.predictions is None:
            msg = "weighted_summary needs the predictions; this evaluation did not keep them."
            raise ValueError(msg)
        C = self.counts.values  # noqa: PD011  (LabelCounts, not pandas)
        rows = []
        for met in debiased:
            base = met.name[len("debiased[") : -1]
            i = self.metrics.index(met.name)
            v = np.mean([jackknife_variance(C, q, metric=base) for q in self.predictions], axis=0)
            for j, model in enumerate(self.models):
                wm = inverse_variance_mean(self.values[i, j], v, floor=floor)
                rows.append(
                    [model, met.name, wm.statistic, wm.standard_error,
                     float(self._means[i, j]), int(self.counts.N), wm.n_floored]
                )  # fmt: skip
        return FullFrame(pd.DataFrame(rows, columns=columns))

    def metric_agreement(self) -> pd.DataFrame:
        r"""How much each pair of metrics agrees on the ranking of the models.

        ``metric_1, metric_2, share_reranked, mean_abs_change, sd_abs_change,
        kendall_tau`` per pair of metrics (Table 2 of Rizzi et al. 2024): the
        share of models whose rank differs, the mean and population sd of the
        absolute rank change, and Kendall's :math:`\tau_b` between the rankings.
        """
        ranks, _ = competition_ranks(self._means, lower_is_better=self._lower)
        rows = [
            (self.metrics[m1], self.metrics[m2], *rank_agreement(ranks[m1], ranks[m2]))
            for m1, m2 in itertools.combinations(range(len(self.metrics)), 2)
        ]
        columns = REQUIRED_COLUMNS["metric_agreement"]
        # every column after the metric pair is a number
        return FullFrame(
            pd.DataFrame(rows, columns=list(columns)).astype(dict.fromkeys(columns[2:], np.float64))
        )

    # -- robustness to the prior and the items behind each reversal -------
    def _priors(self, priors: Sequence[Any]) -> list[tuple[str, Any]]:
        """(label, prior) pairs: the evaluation's own prior first, then the others once each."""
        if self._prior_value is None:
            msg = f"This Evaluation knows its prior only by name ({self.prior!r}); build it with evaluate() to compare priors."
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

        ``priors`` are compared with the evaluation's own (which comes first).
        Returns ``prior, strength, log_likelihood, share_items_weak, used``:
        ``strength`` is the total pseudo-count :math:`s = \sum_k \alpha^{(0)}_k`
        (NaN for a per-item prior); ``log_likelihood`` the Dirichlet-multinomial
        marginal likelihood of the counts (:func:`dissensus.posterior.marginal_log_likelihood`,
        natural log; the empirical-Bayes prior maximises it); ``share_items_weak``
        the share of items with :math:`n_i \le s`, where the prior weighs at
        least as much as the annotations; ``used`` marks the evaluation's prior.
        """
        n = self.counts.values  # noqa: PD011  (LabelCounts, not pandas)
        rows: list[tuple[str, float, float, float, bool]] = []
        for label, prior in self._priors(priors):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PriorFitWarning)
                alpha0 = prior_vector(prior, n, "Evaluation.prior_fit")
            if alpha0.ndim == 1:
                strength = float(alpha0.sum())
                loglik = marginal_log_likelihood(n, prior=alpha0)
                weak = float(np.mean(self.n_annotations <= strength))
            else:
                strength = loglik = weak = math.nan
            shown = f"empirical (strength {strength:.3g})" if label == "empirical" else label
            rows.append((shown, strength, loglik, weak, not rows))
        return FullFrame(rows, columns=list(OPTIONAL_COLUMNS["prior_fit"]))

    def prior_sensitivity(
        self, priors: Sequence[Any] = ("uniform", "jeffreys", "empirical"), *,
        confidence_level: float = 0.95, n_resamples: int = 1000,
    ) -> pd.DataFrame:  # fmt: skip
        """The expected metrics' summary recomputed under other Dirichlet priors.

        Each expected metric is rescored on the same predictions under every
        prior (after the evaluation's own) and summarised with the resamples of
        :meth:`summary`, so the priors are compared on equal footing; computed
        once per (priors, confidence_level, n_resamples). Returns ``prior,
        metric, model, mean, ci_low, ci_high, rank, best, significant``: for the
        best model ``significant`` says whether its lead over the runner-up
        excludes zero, for the others whether they are significantly worse
        than the best. Empty without an expected metric or kept predictions.
        """
        named = OPTIONAL_COLUMNS["prior_sensitivity"]
        columns = [*named[:4], "ci_low", "ci_high", *named[4:]]
        expected = [i for i, m in enumerate(self._metrics) if m.needs_posterior]
        key = (tuple(_prior_name(p) for p in priors), float(confidence_level), int(n_resamples))
        if key in self._prior_cache:
            return self._prior_cache[key]
        if not expected or self.predictions is None:
            return pd.DataFrame(columns=columns)
        pairs = self._priors(priors)
        labels = self.prior_fit(priors)["prior"].tolist()
        E, J, N, P = len(expected), len(self.models), self.counts.N, len(pairs)
        # the evaluation's own prior is read from self.values, not copied; the other
        # priors are scored one at a time, (E, J, N) each, and reduced to their means
        # and resampled means before the next (the same resamples: one seed, one N)
        with np.errstate(invalid="ignore", over="ignore"):
            means_list = [self.values[expected].mean(axis=2)]
        boots = [self._boot(n_resamples)[:, expected]]  # the evaluation's prior: reuse
        for _, prior in pairs[1:]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PriorFitWarning)
                alpha = np.asarray(dirichlet(self.counts, prior=prior), dtype=np.float64)
            S = np.empty((E, J, N))
            for e, m in enumerate(expected):
                for j in range(J):
                    S[e, j] = self._metrics[m].func(alpha, self.predictions[j])
            del alpha
            with np.errstate(invalid="ignore", over="ignore"):
                means_list.append(S.mean(axis=2))
            extra = resample_means(S.reshape(-1, N), int(n_resamples), seed=self.seed)
            boots.append(extra.reshape(-1, E, J))
            del S, extra
        means = np.stack(means_list)  # (P, E, J)
        boot = np.stack(boots, axis=1)  # (B, P, E, J)
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
        low_d, high_d = self._interval(d_boot, d, confidence_level)
        significant = (J > 1) & ((low_d > 0) | (high_d < 0))
        low, high = self._interval(boot, means, confidence_level)
        names = np.tile(np.repeat([self.metrics[m] for m in expected], J), P)
        out = _frame(
            columns, np.repeat(labels, E * J), names, np.tile(self.models, P * E), means.ravel(),
            low.ravel(), high.ravel(), ranks.ravel(), (ranks == 1.0).ravel(), significant.ravel(),
        )  # fmt: skip
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

        Returns ``n_items`` items for each of at most ``max_reversals``
        reversals, one row per (reversal, item, series, label): ``reversal,
        metric_1, metric_2, better_1, better_2, item, n_annotations, weight,
        series, label, value``; ``series`` is ``"observed"`` (label shares),
        ``"posterior mean"`` (under the evaluation's prior) or a model name
        (its prediction). Empty without reversals or kept predictions.
        """
        named = OPTIONAL_COLUMNS["reversal_items"]
        columns = [*named[:7], "weight", *named[7:]]
        rev = order_reversals(self._means, lower_is_better=self._lower)
        if rev.size == 0 or self.predictions is None or self._prior_value is None:
            return pd.DataFrame(columns=columns)
        kinds = np.array([m.kind for m in self._metrics])
        rev = np.asarray(rev, dtype=np.int64).reshape(-1, 4)

        def oriented(m: int, j: int) -> FloatArray:
            v: FloatArray = self.values[m, j]
            return v if self._lower[m] else -v

        def edge(r: int) -> tuple[FloatArray, FloatArray, FloatArray]:
            """Model b's per-item edge over a under metric 1 and 2, and the item weights."""
            m1, m2, a, b = (int(v) for v in rev[r])
            adv, adv2 = (oriented(m, b) - oriented(m, a) for m in (m1, m2))
            with np.errstate(invalid="ignore", over="ignore"):
                z1, z2 = (np.sign(np.nanmean(x)) * x for x in (adv, adv2))
                w = np.minimum(z1 / np.nanstd(z1), z2 / np.nanstd(z2))
            return adv, adv2, np.nan_to_num(w, nan=-np.inf, posinf=np.inf)

        # one reversal at a time: a (reversals, items) block of edges would be
        # about 1 GB at a million items and ~100 reversals
        strength = np.array([np.sort(edge(r)[2])[::-1][:n_items].sum() for r in range(len(rev))])
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
            adv_r, adv2_r, weight_r = edge(r)
            top = np.argsort(-weight_r, kind="stable")[:n_items]
            top = top[np.isfinite(weight_r[top]) & (weight_r[top] > 0)]
            if top.size == 0:
                continue
            better = [
                self.models[a] if np.nanmean(x) > 0 else self.models[b] for x in (adv_r, adv2_r)
            ]
            series = ["observed", "posterior mean", *self.models]
            # (series, items, K): shares, posterior mean and every model's prediction
            blocks = np.stack(
                [observed[top], posterior_mean[top], *(q[top] for q in self.predictions)]
            )
            S_, T_ = len(series), top.size
            name = f"{self.models[a]} vs {self.models[b]}: {self.metrics[m1]} vs {self.metrics[m2]}"
            per_item = {
                "item": np.asarray(self.counts.items[top], dtype=object),
                "n_annotations": n[top],
                "weight": weight_r[top],
            }
            frame = pd.DataFrame(
                {"reversal": name, "metric_1": self.metrics[m1], "metric_2": self.metrics[m2],
                 "better_1": better[0], "better_2": better[1],
                 **{k: np.tile(np.repeat(v, K), S_) for k, v in per_item.items()},
                 "series": np.repeat(series, T_ * K), "label": np.tile(labels, S_ * T_),
                 "value": blocks.reshape(-1)}
            )  # fmt: skip
            frames.append(frame)
        if not frames:
            return pd.DataFrame(columns=columns)
        return pd.concat(frames, ignore_index=True)[columns]

    # -- tests -------------------------------------------------------------
    def compare(
        self, a: str, b: str, metric: str, *,
        test: Literal["wilcoxon", "bootstrap", "permutation"] = "wilcoxon", n_resamples: int = 9999,
        confidence_level: float = 0.95, seed: SeedLike | Literal["default"] = "default",
    ) -> PairedTestResult:  # fmt: skip
        """Paired test of model ``a`` against model ``b`` under one metric, over the items.

        ``test``: :func:`~dissensus.stats.wilcoxon_test` (scipy's signed-rank
        test), :func:`~dissensus.stats.bootstrap_test` or
        :func:`~dissensus.stats.permutation_test`, with ``n_resamples`` (and
        ``confidence_level`` for the bootstrap's interval) and ``seed`` (default
        the evaluation's). Returns their :class:`~dissensus.stats.PairedTestResult`
        (``statistic, pvalue, diff`` = mean of ``a - b``). ValueError for an
        unknown model, metric or test, or non-finite scores.
        """
        check_option("Evaluation.compare", "test", test, _TESTS)
        m = self._index("metric", metric)
        x, y = self.values[m, self._index("model", a)], self.values[m, self._index("model", b)]
        rng_seed = self.seed if isinstance(seed, str) and seed == "default" else seed
        if test == "wilcoxon":
            return wilcoxon_test(x, y)
        if test == "bootstrap":
            return bootstrap_test(
                x, y, n_resamples=n_resamples, confidence_level=confidence_level, seed=rng_seed
            )
        return permutation_test(x, y, n_resamples=n_resamples, seed=rng_seed)

    def pairwise_tests(
        self, metric: str | None = None, *,
        test: Literal["wilcoxon", "bootstrap", "permutation"] = "wilcoxon",
        correction: Literal["holm", "bonferroni"] | None = "holm", significance: float = 0.05,
        n_resamples: int = 9999,
    ) -> pd.DataFrame:  # fmt: skip
        """Paired tests (:meth:`compare`) between every two models, with a multiplicity correction.

        ``metric``: one metric (default all); ``correction`` is applied within
        each metric (the family: the model pairs compared under it), rejecting
        at family-wise error rate ``significance``. Returns ``metric, model_a,
        model_b, diff, statistic, p, p_adjusted, reject``; pairs with
        non-finite scores (an infinite cross-entropy) get NaN p-values and are
        not rejected. ValueError for an unknown metric, test or correction, or
        ``n_resamples`` < 1.
        """
        check_option("Evaluation.pairwise_tests", "test", test, _TESTS)
        check_option(
            "Evaluation.pairwise_tests", "correction", correction, ("holm", "bonferroni", None)
        )
        if test != "wilcoxon":
            check_resamples("Evaluation.pairwise_tests", n_resamples)
        metrics = self.metrics if metric is None else [self.metrics[self._index("metric", metric)]]
        rows = []
        for met in metrics:
            block: list[list[Any]] = []
            m = self.metrics.index(met)
            for a, b in itertools.combinations(range(len(self.models)), 2):
                pair = [met, self.models[a], self.models[b]]
                with np.errstate(invalid="ignore"):
                    finite = bool(np.isfinite(self.values[m, a] - self.values[m, b]).all())
                    d = float(self._means[m, a] - self._means[m, b])
                if not finite:  # no test is defined; every other error propagates
                    block.append([*pair, d, math.nan, math.nan])
                    continue
                res = self.compare(pair[1], pair[2], met, test=test, n_resamples=n_resamples)
                block.append([*pair, res.diff, res.statistic, res.pvalue])
            if block:
                adjusted = adjust_pvalues([r[-1] for r in block], method=correction)
                for r, p_adj in zip(block, adjusted, strict=True):
                    rows.append([*r, float(p_adj), bool(p_adj <= significance)])
        columns = ["metric", "model_a", "model_b", "diff", "statistic", "p", "p_adjusted", "reject"]
        types = dict.fromkeys(columns[3:7], np.float64)
        return pd.DataFrame(rows, columns=columns).astype({**types, "reject": bool})
