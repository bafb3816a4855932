"""A realistic, internally consistent ReportData built from synthetic per-item scores.

The tables are computed here the way the evaluation layer computes them (plain
means, normal intervals, paired differences), so that the renderers are tested
on numbers that hang together: model A wins the pointwise metrics, model B the
expected ones, and the reversal sits in the items with 2–3 annotations.
"""

from __future__ import annotations

import copy
import functools
import itertools
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from dissensus.evaluation import ReportData

METRICS = ("CE", "EMD", "E[CE]", "E[EMD]")
KINDS = {"CE": "pointwise", "EMD": "pointwise", "E[CE]": "expected", "E[EMD]": "expected"}
BINS = ((2, 3, "2–3"), (4, 5, "4–5"), (6, 10, "6–10"), (11, None, "11+"))


def _bin_labels(n: np.ndarray) -> pd.Categorical:
    labels = np.empty(n.shape, dtype=object)
    for low, high, label in BINS:
        upper = np.inf if high is None else high
        labels[(n >= low) & (n <= upper)] = label
    return pd.Categorical(labels, categories=[b[2] for b in BINS], ordered=True)


def per_item_scores(
    models: tuple[str, ...] = ("A", "B", "C"), *, n_items: int = 400, seed: int = 7
) -> tuple[np.ndarray, pd.DataFrame]:
    """(annotations per item, tidy per-item scores: item, model, metric, score)."""
    rng = np.random.default_rng(seed)
    n = np.concatenate(
        [
            rng.integers(2, 4, size=int(n_items * 0.7)),
            rng.integers(4, 6, size=int(n_items * 0.18)),
            rng.integers(6, 11, size=int(n_items * 0.08)),
            rng.integers(
                11,
                30,
                size=n_items - int(n_items * 0.7) - int(n_items * 0.18) - int(n_items * 0.08),
            ),
        ]
    )
    few = (n <= 3).astype(float)
    # Shared item difficulty, then per-model offsets: A fits the noisy observed
    # proportions (helps pointwise metrics on sparse items), B is calibrated
    # (helps expected metrics on sparse items).
    difficulty = rng.gamma(2.0, 0.25, size=n.size)
    offsets = {
        "pointwise": {0: -0.03 * few, 1: 0.02 * few, 2: 0.01 + 0 * few},
        "expected": {0: 0.04 * few, 1: -0.03 * few, 2: 0.0 + 0 * few},
    }
    frames = []
    for j, model in enumerate(models):
        for metric in METRICS:
            scale = 1.0 if metric.endswith("CE]") or metric == "CE" else 0.4
            base = difficulty * scale + (1.2 if metric.startswith("E[") else 0.3) / np.sqrt(n)
            shift = offsets[KINDS[metric]].get(j % 3, 0 * few) * scale
            noise = rng.normal(0, 0.02 * scale, size=n.size)
            frames.append(
                pd.DataFrame(
                    {
                        "item": np.arange(n.size),
                        "model": model,
                        "metric": metric,
                        "score": base + shift + noise + 0.002 * j,
                    }
                )
            )
    return n, pd.concat(frames, ignore_index=True)


def sample_report_data(
    models: tuple[str, ...] = ("A", "B", "C"),
    *,
    title: str = "Evaluation report",
    n_items: int = 400,
    seed: int = 7,
    with_agreement: bool = True,
) -> ReportData:
    """A fresh copy of the built report data (built once per process): a test that changes it
    in place cannot change what the next test sees, whatever the order."""
    return copy.deepcopy(
        _sample_report_data(
            models, title=title, n_items=n_items, seed=seed, with_agreement=with_agreement
        )
    )


@functools.cache
def _sample_report_data(
    models: tuple[str, ...] = ("A", "B", "C"),
    *,
    title: str = "Evaluation report",
    n_items: int = 400,
    seed: int = 7,
    with_agreement: bool = True,
) -> ReportData:
    n, scores = per_item_scores(models, n_items=n_items, seed=seed)
    z = 1.959963984540054
    wide = scores.pivot(index=["metric", "item"], columns="model", values="score")

    summary_rows: list[dict[str, Any]] = []
    for metric in METRICS:
        block = wide.loc[metric]
        means = block.mean()
        best = means.min()
        for model in models:
            x = block[model].to_numpy()
            se = x.std(ddof=1) / np.sqrt(x.size)
            summary_rows.append(
                {
                    "model": model,
                    "metric": metric,
                    "mean": x.mean(),
                    "standard_error": se,
                    "ci_low": x.mean() - z * se,
                    "ci_high": x.mean() + z * se,
                    "n_items": x.size,
                    "lower_is_better": True,
                    "best": bool(means[model] == best),
                }
            )
    summary = pd.DataFrame(summary_rows)

    diff_rows = []
    for metric in METRICS:
        block = wide.loc[metric]
        for a, b in itertools.combinations(models, 2):
            d = (block[a] - block[b]).to_numpy()
            se = d.std(ddof=1) / np.sqrt(d.size)
            low, high = d.mean() - z * se, d.mean() + z * se
            better = (a if d.mean() < 0 else b) if (low > 0 or high < 0) else None
            diff_rows.append(
                {
                    "metric": metric,
                    "model_a": a,
                    "model_b": b,
                    "diff": d.mean(),
                    "ci_low": low,
                    "ci_high": high,
                    "better": better,
                }
            )
    differences = pd.DataFrame(diff_rows)

    bins = _bin_labels(n)
    scores = scores.assign(bin=np.asarray(bins)[scores["item"].to_numpy()])
    scores["bin"] = pd.Categorical(scores["bin"], categories=bins.categories, ordered=True)
    by_bin = (
        scores.groupby(["bin", "model", "metric"], observed=True)["score"]
        .agg(mean="mean", n_items="size")
        .reset_index()
    )

    rank_rows = []
    for metric in METRICS:
        means = summary[summary["metric"] == metric].set_index("model")["mean"]
        ranks = means.rank(method="min").astype(int)
        counts = ranks.value_counts()
        for model in models:
            rank_rows.append(
                {
                    "metric": metric,
                    "model": model,
                    "mean": means[model],
                    "rank": int(ranks[model]),
                    "tied": bool(counts[ranks[model]] > 1),
                }
            )
    rankings = pd.DataFrame(rank_rows)

    diff_index = differences.set_index(["metric", "model_a", "model_b"])
    rev_rows = []
    agree_rows = []
    for m1, m2 in itertools.combinations(METRICS, 2):
        r1 = rankings[rankings["metric"] == m1].set_index("model")["rank"]
        r2 = rankings[rankings["metric"] == m2].set_index("model")["rank"]
        change = (r1 - r2).abs()
        tau = stats.kendalltau(r1[list(models)], r2[list(models)]).statistic
        agree_rows.append(
            {
                "metric_1": m1,
                "metric_2": m2,
                "share_reranked": float((change > 0).mean()),
                "mean_abs_change": float(change.mean()),
                "sd_abs_change": float(change.std(ddof=0)),
                "kendall_tau": float(tau),
            }
        )
        for a, b in itertools.combinations(models, 2):
            d1 = diff_index.loc[(m1, a, b)]
            d2 = diff_index.loc[(m2, a, b)]
            if np.sign(d1["diff"]) == np.sign(d2["diff"]):
                continue
            rev_rows.append(
                {
                    "metric_1": m1,
                    "metric_2": m2,
                    "model_a": a,
                    "model_b": b,
                    "better_1": a if d1["diff"] < 0 else b,
                    "better_2": a if d2["diff"] < 0 else b,
                    "diff_1": d1["diff"],
                    "ci_low_1": d1["ci_low"],
                    "ci_high_1": d1["ci_high"],
                    "significant_1": bool(d1["ci_low"] > 0 or d1["ci_high"] < 0),
                    "diff_2": d2["diff"],
                    "ci_low_2": d2["ci_low"],
                    "ci_high_2": d2["ci_high"],
                    "significant_2": bool(d2["ci_low"] > 0 or d2["ci_high"] < 0),
                }
            )
    reversals = pd.DataFrame(
        rev_rows,
        columns=[
            "metric_1",
            "metric_2",
            "model_a",
            "model_b",
            "better_1",
            "better_2",
            "diff_1",
            "ci_low_1",
            "ci_high_1",
            "significant_1",
            "diff_2",
            "ci_low_2",
            "ci_high_2",
            "significant_2",
        ],
    )
    metric_agreement = pd.DataFrame(agree_rows)

    metrics_info = pd.DataFrame(
        {
            "name": list(METRICS),
            "lower_is_better": [True] * len(METRICS),
            "kind": [KINDS[m] for m in METRICS],
            "description": [
                "Cross-entropy of the prediction against the observed label proportions.",
                "Earth mover's distance between observed proportions and prediction.",
                "Cross-entropy expected under the Dirichlet posterior of each item.",
                "Earth mover's distance expected under the Dirichlet posterior.",
            ],
        }
    )
    agreement = (
        pd.DataFrame(
            {
                "coefficient": ["Krippendorff's alpha (ordinal)", "Fleiss' kappa"],
                "value": [0.412, 0.287],
                "standard_error": [0.021, 0.018],
                "ci_low": [0.371, 0.252],
                "ci_high": [0.453, 0.322],
                "n_items": [n.size, n.size],
                "n_annotations": [int(n.sum())] * 2,
            }
        )
        if with_agreement
        else None
    )
    return ReportData(
        title=title,
        dataset={
            "n_items": n.size,
            "n_annotators": 8,
            "n_annotations": int(n.sum()),
            "labels": [1, 0, -1, -2, -3],
            "ordered": True,
            "prior": "uniform (alpha0 = 1)",
        },
        annotations_per_item=n,
        agreement=agreement,
        summary=summary,
        differences=differences,
        by_bin=by_bin,
        rankings=rankings,
        reversals=reversals,
        metric_agreement=metric_agreement,
        metrics_info=metrics_info,
    )


def evaluation_report_data(n_items: int = 150, seed: int = 3) -> ReportData:
    """A fresh copy of :func:`_evaluation_report_data` (see :func:`sample_report_data`)."""
    return copy.deepcopy(_evaluation_report_data(n_items, seed))


@functools.cache
def _evaluation_report_data(n_items: int = 150, seed: int = 3) -> ReportData:
    """A report built by the evaluation layer itself: the issue-12 ConvAbuse-like setting.

    Five classes, 2–7 annotations per item; models predict the uniform
    distribution, the global label share, and each item's observed shares
    mixed 70/30 with noise; long model names and every default metric, so
    the tables are as wide as real ones (six metrics, to keep the test fast). The noisy model wins the empirical
    metrics; under the uniform prior (5 pseudo-counts, more than most items'
    annotations) the flat models win some expected ones.
    """
    from dissensus import LabelCounts, Predictions, Scale  # noqa: PLC0415
    from dissensus.evaluation import evaluate  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    K = 5
    n = rng.choice([2, 3, 3, 3, 4, 5, 6, 7], size=n_items)
    truth = rng.dirichlet(np.full(K, 0.3), size=n_items)
    counts = np.stack([rng.multinomial(k, p) for k, p in zip(n, truth, strict=True)])
    items = [f"conv-{i:04d}" for i in range(n_items)]
    scale = Scale.nominal(["not abusive", "mildly", "clearly", "severely", "threatening"])
    lc = LabelCounts.from_array(counts, items=items, scale=scale)
    observed = counts / counts.sum(axis=1, keepdims=True)
    share = counts.sum(axis=0) / counts.sum()
    preds = {
        "uniform-baseline-predictor": np.full((n_items, K), 1 / K),
        "global-label-share-predictor": np.tile(share, (n_items, 1)),
        "observed-mixed-with-noise-70-30": 0.7 * observed
        + 0.3 * rng.dirichlet(np.ones(K), size=n_items),
        "bert-base-hard-labels-smoothed": 0.5 * observed + 0.5 / K,
    }
    metrics = ["cross_entropy", "kl_divergence", "manhattan"]
    metrics += [f"E[{m}]" for m in metrics]
    ev = evaluate(
        lc,
        {k: Predictions.from_array(v, items=items) for k, v in preds.items()},
        metrics=metrics,
        prior="uniform",  # the setting of the issue: the uniform prior outweighs the annotations
    )
    data: ReportData = ev.report_data(
        title="Evaluation report", n_resamples=200, agreement_ci=False
    )
    return data


def example_report_data() -> ReportData:
    """A tiny, hand-written report (two models, two metrics, one reversal) for examples.

    Model A wins the pointwise CE, model B the expected E[CE]; the reversal is
    significant under CE only and sits in the items with 2–3 annotations.

    """
    counts = np.repeat([2, 3, 4, 5, 6], [40, 40, 10, 5, 5])
    bins = pd.Categorical(["2–3"] * 4 + ["4+"] * 4, categories=["2–3", "4+"], ordered=True)
    return ReportData(
        title="Example report",
        dataset={
            "n_items": 100,
            "n_annotators": None,
            "n_annotations": int(counts.sum()),
            "labels": [1, 2, 3, 4, 5],
            "ordered": True,
            "prior": "uniform",
        },
        annotations_per_item=counts,
        agreement=None,
        summary=pd.DataFrame(
            {
                "model": ["A", "B", "A", "B"],
                "metric": ["CE", "CE", "E[CE]", "E[CE]"],
                "mean": [0.40, 0.45, 1.23, 1.20],
                "standard_error": [0.015, 0.015, 0.02, 0.02],
                "ci_low": [0.37, 0.42, 1.19, 1.16],
                "ci_high": [0.43, 0.48, 1.27, 1.24],
                "n_items": [100] * 4,
                "lower_is_better": [True] * 4,
                "best": [True, False, False, True],
            }
        ),
        differences=pd.DataFrame(
            {
                "metric": ["CE", "E[CE]"],
                "model_a": ["A", "A"],
                "model_b": ["B", "B"],
                "diff": [-0.05, 0.03],
                "ci_low": [-0.08, -0.01],
                "ci_high": [-0.02, 0.07],
                "better": ["A", None],
            }
        ),
        by_bin=pd.DataFrame(
            {
                "bin": bins,
                "model": ["A", "A", "B", "B"] * 2,
                "metric": ["CE", "E[CE]"] * 4,
                "mean": [0.395, 1.30, 0.45, 1.25, 0.42, 0.95, 0.45, 1.00],
                "n_items": [80] * 4 + [20] * 4,
            }
        ),
        rankings=pd.DataFrame(
            {
                "metric": ["CE", "CE", "E[CE]", "E[CE]"],
                "model": ["A", "B", "A", "B"],
                "mean": [0.40, 0.45, 1.23, 1.20],
                "rank": [1, 2, 2, 1],
                "tied": [False] * 4,
            }
        ),
        reversals=pd.DataFrame(
            {
                "metric_1": ["CE"],
                "metric_2": ["E[CE]"],
                "model_a": ["A"],
                "model_b": ["B"],
                "better_1": ["A"],
                "better_2": ["B"],
                "diff_1": [-0.05],
                "ci_low_1": [-0.08],
                "ci_high_1": [-0.02],
                "significant_1": [True],
                "diff_2": [0.03],
                "ci_low_2": [-0.01],
                "ci_high_2": [0.07],
                "significant_2": [False],
            }
        ),
        metric_agreement=pd.DataFrame(
            {
                "metric_1": ["CE"],
                "metric_2": ["E[CE]"],
                "share_reranked": [1.0],
                "mean_abs_change": [1.0],
                "sd_abs_change": [0.0],
                "kendall_tau": [-1.0],
            }
        ),
        metrics_info=pd.DataFrame(
            {
                "name": ["CE", "E[CE]"],
                "lower_is_better": [True, True],
                "kind": ["pointwise", "expected"],
                "description": [
                    "Cross-entropy against the observed label proportions.",
                    "Cross-entropy expected under each item's Dirichlet posterior.",
                ],
            }
        ),
    )
