"""Estimator selection in the user's world (:meth:`Evaluation.estimator_selection`).

The parametric bootstrap itself is :func:`dissensus.metrics.selection.select_estimators`;
this module picks its prior (the one the data support best among those the report
compares, :meth:`Evaluation.prior_fit`) and its inputs from an evaluation, and
scores the selected estimator on the observed data for the verdict.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from dissensus.metrics import get_metric
from dissensus.metrics.selection import Selection, estimator_forms, select_estimators
from dissensus.posterior import PriorFitWarning, prior_vector

if TYPE_CHECKING:
    from dissensus.evaluation._tables import _Tables

FloatArray = npt.NDArray[np.float64]
#: Priors compared to find the supported one (those of the report's prior check).
SELECTION_PRIORS: tuple[str, ...] = ("uniform", "jeffreys", "empirical")


def base_metrics(names: Sequence[str]) -> list[str]:
    """The pointwise metrics behind ``names`` (``E[emd]`` and ``debiased[emd]`` give ``emd``), once each."""
    out: list[str] = []
    for name in names:
        m = get_metric(name)
        base = m.pointwise or m.name
        if base not in out and not get_metric(base).unary:
            out.append(base)
    return out


def supported_prior(
    ev: _Tables, priors: Sequence[Any] = SELECTION_PRIORS
) -> tuple[str, FloatArray]:
    """(label, (K,) alpha0) of the prior of highest marginal likelihood among ``priors`` and the evaluation's.

    The row of :meth:`Evaluation.prior_fit` the report marks "★ best fit"; a
    per-item prior (an (N, K) array) cannot be the replicas' prior and is skipped.
    """
    fit = ev.prior_fit(priors)
    values = [value for _, value in ev._priors(priors)]
    loglik = fit["log_likelihood"].to_numpy(dtype=float)
    order = np.argsort(-np.where(np.isnan(loglik), -np.inf, loglik), kind="stable")
    n = ev.counts.values
    for i in order:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PriorFitWarning)
            alpha0 = prior_vector(values[i], n, "Evaluation.estimator_selection")
        if alpha0.ndim == 1:
            return str(fit["prior"].iloc[i]), alpha0
    return "uniform", np.ones(ev.counts.K)


def run_selection(
    ev: _Tables, metrics: Sequence[str] | None, n_replicas: int | str, seed: Any
) -> Selection:
    """The bootstrap on the evaluation's annotated items (at least one annotation each) and predictions."""
    if ev.predictions is None:
        msg = "This Evaluation did not keep its predictions (Dask engine); estimator selection needs them: evaluate in memory."
        raise ValueError(msg)
    if len(ev.models) < 2:
        msg = "Estimator selection compares models: the evaluation needs at least two."
        raise ValueError(msg)
    names = base_metrics(ev.metrics if metrics is None else metrics)
    label, alpha0 = supported_prior(ev)
    C = ev.counts.values
    keep = ev.n_annotations > 0
    return select_estimators(
        C[keep], ev.predictions[:, keep], names, alpha0, models=ev.models, prior=label,
        n_replicas=n_replicas, seed=seed,
    )  # fmt: skip


def observed_scores(ev: _Tables, form: str, alpha0: FloatArray | None) -> FloatArray:
    """(J, N) scores of every model under ``form`` on the observed counts (expected: under ``alpha0``)."""
    if ev.predictions is None:
        msg = "This Evaluation did not keep its predictions; the verdict's estimator cannot be rescored."
        raise ValueError(msg)
    m = get_metric(form)
    C = ev.counts.values
    n = C.sum(axis=1, keepdims=True)
    target: npt.NDArray[np.float64] | npt.NDArray[np.int64]
    if m.needs_counts:
        target = C
    elif m.needs_posterior:
        target = (alpha0 if alpha0 is not None else np.ones(C.shape[1]))[None, :] + C
    else:
        target = C / np.maximum(n, 1)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # one-annotation items under debiased forms
        return np.stack([m.func(target, q) for q in ev.predictions])


__all__ = [
    "SELECTION_PRIORS",
    "base_metrics",
    "estimator_forms",
    "observed_scores",
    "run_selection",
    "supported_prior",
]
