r"""Do intervals for "A minus B" cover the difference of TRUE scores? Measured where the truth is known.

:meth:`dissensus.evaluation.Evaluation.true_differences` reports, for the
metrics whose paired difference has an unbiased estimator
(``Metric.difference_degree``: cross-entropy, KL, squared Euclidean, RPS), a
t interval with Hall's skewness correction from the per-item differences
(:func:`dissensus.stats.mean_interval`). This study measures how often such an
interval covers the difference of true mean scores, and does the same for
EMD, L1 and JS, whose true values cannot be estimated without bias from a
few annotations, to say how far off their intervals are.

The world. Per truth family (:data:`DEFAULT_WORLDS`) and number of
annotations per item ``n`` (every item of a replicate has exactly ``n``),
each of ``R`` replicates draws ``N`` items with true distributions
:math:`\pi_i` (:func:`~dissensus.simulate.draw_truth`), counts
:math:`c_i \sim \mathrm{Multinomial}(n, \pi_i)` and two models
(:func:`~dissensus.simulate.candidate_predictions`): **A** ``"noisy"``, a
Dirichlet draw around the truth, :math:`\mathrm{Dir}(20\,\pi_i + 10^{-3})`,
close to it; **B** ``"shrunk"``, :math:`0.7\,\pi_i + 0.3/K`, the truth
smoothed towards uniform (both floored at :math:`10^{-3}`, so logs stay
finite). The true difference of a replicate is
:math:`\Delta = \frac1N \sum_i f(\pi_i, q_{iA}) - f(\pi_i, q_{iB})`.

Each estimator (``"empirical"``: :math:`f(\hat p_i, q)`; ``"debiased"``: the
metric's ``debiased[...]`` form, its exact U-statistic or the jackknife;
items with one annotation keep their empirical value) gives per-item
differences :math:`D_i` and the 95% interval of
:func:`~dissensus.stats.mean_interval` (with Hall's skewness correction, as
reported to users); it covers when :math:`\Delta` is inside
(``coverage_plain_t``: the same for the plain Student t interval). Reported per
(family, n, metric, estimator): ``coverage`` (share of replicates) and its
Monte Carlo standard error :math:`\sqrt{c(1-c)/R}`; ``bias``, the mean of
:math:`\bar D - \Delta` and its standard error; ``true_diff``, the mean
:math:`\Delta`; ``p_sign`` the share of replicates where :math:`\bar D` has the
sign of :math:`\Delta` (the pair ordered as the truth orders it);
``half_width`` the mean half-width (half the interval's length). Replicates are one array of ``R N`` rows
(no loop over replicates or items); every (family, n) has its own stream
spawned from ``seed``.

Run ``python -m dissensus.simulate.true_difference --out docs/true_difference.md``
to regenerate the checked-in table.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus.metrics import get_metric
from dissensus.simulate._synthetic import (
    TruthLike,
    candidate_predictions,
    check_integer,
    draw_truth,
)
from dissensus.stats import mean_interval

FloatArray = npt.NDArray[np.float64]

__all__ = [
    "DEFAULT_WORLDS",
    "TRUE_DIFFERENCE_METRICS",
    "World",
    "true_difference_markdown",
    "true_difference_study",
]


@dataclass(frozen=True)
class World:
    """A truth family of the study: a name, ``K`` classes, the truth of :func:`draw_truth`."""

    name: str
    n_classes: int
    truth: TruthLike


#: The truth families of the checked-in table.
DEFAULT_WORLDS: tuple[World, ...] = (
    World("skewed items: Dir(0.6), K = 5", 5, [0.6] * 5),
    World("near-uniform: Dir(20), K = 5", 5, [20.0] * 5),
    World("ConvAbuse-like: Dir(1.5 m), K = 5", 5, "skewed"),
    World("binary, rare positive: Beta(0.5, 2), K = 2", 2, [0.5, 2.0]),
)
#: Metrics of the study: the four with an unbiased difference, then three without one.
TRUE_DIFFERENCE_METRICS: tuple[str, ...] = (
    "cross_entropy",
    "kl_divergence",
    "squared_euclidean",
    "rps",
    "emd",
    "manhattan",
    "js_divergence",
)
#: The two models compared (A, B) (candidate_predictions; noise_strength 20, shrink 0.3).
_MODELS = ("noisy", "shrunk")
#: Nominal level, and the coverage every required cell must reach.
LEVEL = 0.95
REQUIRED_COVERAGE = 0.93
_COLUMNS = [
    "family",
    "n",
    "metric",
    "estimator",
    "difference_degree",
    "required",
    "coverage",
    "coverage_se",
    "coverage_plain_t",
    "bias",
    "bias_se",
    "true_diff",
    "p_sign",
    "half_width",
    "n_replicates",
]


def true_difference_study(
    *,
    worlds: Sequence[World] = DEFAULT_WORLDS,
    n_annotations: Sequence[int] = (1, 2, 3, 5, 10),
    metrics: Sequence[str] = TRUE_DIFFERENCE_METRICS,
    n_items: int = 400,
    replicates: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Coverage and bias of the 95% interval for the true difference, per family, n, metric, estimator.

    ``metrics`` are pointwise registry metrics with a debiased form. Returns
    one row per (family, n, metric, estimator) with the columns of the module
    docstring, plus ``difference_degree`` (the metric's, or ``<NA>``) and
    ``required`` (the metric has an unbiased difference from ``n``
    annotations: its coverage must reach :data:`REQUIRED_COVERAGE`).

    Examples
    --------
    >>> world = World("flat", 3, [5.0, 5.0, 5.0])
    >>> res = true_difference_study(worlds=[world], n_annotations=[2], metrics=["rps"],
    ...                             n_items=50, replicates=20, seed=1)
    >>> res[["metric", "estimator", "n_replicates"]].to_numpy().tolist()
    [['rps', 'empirical', 20], ['rps', 'debiased', 20]]
    """
    N = check_integer("true_difference_study", "n_items", n_items, 2)
    R = check_integer("true_difference_study", "replicates", replicates, 2)
    ns = [check_integer("true_difference_study", "n_annotations", n) for n in n_annotations]
    mets = [get_metric(m) for m in metrics]
    for m in mets:
        if m.kind != "pointwise" or m.debiased is None:
            msg = (
                "The 'metrics' parameter of true_difference_study takes pointwise metrics with "
                f"a debiased form (e.g. 'rps'); {m.name!r} is not one."
            )
            raise ValueError(msg)
    seeds = np.random.SeedSequence(seed).spawn(len(worlds) * len(ns))
    rows: list[list[object]] = []
    for w, world in enumerate(worlds):
        for k, n in enumerate(ns):
            rng = np.random.default_rng(seeds[w * len(ns) + k])
            pi = draw_truth(R * N, world.n_classes, truth=world.truth, seed=rng)
            counts = rng.multinomial(n, pi / pi.sum(axis=1, keepdims=True))
            phat = counts / float(n)
            q = candidate_predictions(pi, _MODELS, noise_strength=20.0, shrink=0.3, seed=rng)
            qa, qb = q[_MODELS[0]], q[_MODELS[1]]
            for met in mets:
                truth = (met.func(pi, qa) - met.func(pi, qb)).reshape(R, N).mean(axis=1)
                deb = get_metric(str(met.debiased)).func
                with warnings.catch_warnings(action="ignore", category=RuntimeWarning):
                    # one annotation: the documented empirical fallback of the debiased forms
                    estimates = {
                        "empirical": met.func(phat, qa) - met.func(phat, qb),
                        "debiased": deb(counts, qa) - deb(counts, qb),
                    }
                degree = met.difference_degree
                for name, D in estimates.items():
                    required = degree is not None and n >= degree
                    measured = _measure(D.reshape(R, N), truth)
                    rows.append([world.name, n, met.name, name, degree, required, *measured])
    out = pd.DataFrame(rows, columns=_COLUMNS)
    out["difference_degree"] = out["difference_degree"].astype("Int64")
    return out


def _measure(D: FloatArray, truth: FloatArray) -> list[float | int]:
    """Coverage, bias, sign agreement and half-width over the replicates (rows of ``D``)."""
    R = D.shape[0]
    r = mean_interval(D, confidence_level=LEVEL)
    t = mean_interval(D, confidence_level=LEVEL, skew_correction=False)
    cov = float(((r.ci_low <= truth) & (truth <= r.ci_high)).mean())
    err = r.mean - truth
    return [
        cov,
        math.sqrt(cov * (1.0 - cov) / R),
        float(((t.ci_low <= truth) & (truth <= t.ci_high)).mean()),
        float(err.mean()),
        float(err.std(ddof=1) / math.sqrt(R)),
        float(truth.mean()),
        float((np.sign(r.mean) == np.sign(truth)).mean()),
        float(np.mean(r.ci_high - r.ci_low) / 2.0),
        R,
    ]


# --------------------------------------------------------------------------- the document


def _pct(x: Any) -> str:
    return f"{100.0 * float(x):.1f}"


def _num(x: Any) -> str:
    return f"{float(x):+.4f}"


def _grid(df: pd.DataFrame, cell: str, ns: list[int]) -> list[str]:
    """A Markdown table: one row per (metric, estimator), one column per n, ``cell`` formatted."""
    head = "| metric | estimator | " + " | ".join(f"n = {n}" for n in ns) + " |"
    lines = [head, "|---|---|" + "---:|" * len(ns)]
    for (metric, est), g in df.groupby(["metric", "estimator"], sort=False):
        by_n = g.set_index("n")
        cells = []
        for n in ns:
            row = by_n.loc[n]
            if cell == "coverage":
                mark = " ✗" if row["required"] and row["coverage"] < REQUIRED_COVERAGE else ""
                cells.append(f"{_pct(row['coverage'])}{mark}")
            else:
                cells.append(f"{_num(row['bias'])} ({_pct(row['p_sign'])})")
        lines.append(f"| {metric} | {est} | " + " | ".join(cells) + " |")
    return lines


def true_difference_markdown(result: pd.DataFrame, *, command: str, settings: str) -> str:
    """The Markdown document of a :func:`true_difference_study` result (docs/true_difference.md)."""
    ns = sorted(result["n"].unique().tolist())
    req = result[result["required"]]
    non = result[~result["required"]]
    R = int(result["n_replicates"].max())
    se = math.sqrt(LEVEL * (1 - LEVEL) / R)
    worst = req.iloc[int(np.argmin(req["coverage"].to_numpy()))] if len(req) else None
    lines = [
        "# Intervals for the TRUE difference between two models: coverage",
        "",
        f"Generated by `{command}` ({settings}); do not edit by hand. The study, the two models "
        "and the estimators are described in `dissensus.simulate.true_difference`; the interval "
        "is the one `Evaluation.true_differences()` reports (95%; the mean of the per-item "
        "differences ± t × standard error with Hall's (1992) skewness correction, "
        "`dissensus.stats.mean_interval`).",
        "",
        "## Headline",
        "",
    ]
    if worst is not None:
        ok = bool((req["coverage"] >= REQUIRED_COVERAGE).all())
        lines.append(
            f"- Metrics with an unbiased difference (cross-entropy, KL, squared Euclidean, RPS), "
            f"every family and every n = {', '.join(map(str, ns))}, both estimators: coverage "
            f"{_pct(req['coverage'].min())}–{_pct(req['coverage'].max())}% "
            f"(lowest: {worst['metric']}, {worst['estimator']}, n = {worst['n']}, "
            f"{worst['family']}); requirement ≥ {_pct(REQUIRED_COVERAGE)}% "
            f"{'met in every cell' if ok else 'NOT met in every cell (marked ✗)'}. "
            f"Monte Carlo standard error at 95%: {_pct(se)} points ({R} replicates). "
            f"The plain Student t interval (without Hall's skewness correction) covers "
            f"{_pct(req['coverage_plain_t'].min())}–{_pct(req['coverage_plain_t'].max())}%."
        )
    for metric, g in non.groupby("metric", sort=False):
        low = g.iloc[int(np.argmin(g["coverage"].to_numpy()))]
        lines.append(
            f"- {metric}: no unbiased estimator exists at any n; coverage "
            f"{_pct(g['coverage'].min())}–{_pct(g['coverage'].max())}% (lowest: {low['estimator']}, "
            f"n = {low['n']}, {low['family']}: bias {_num(low['bias'])} for a true difference "
            f"of {_num(low['true_diff'])})."
        )
    lines += [
        "",
        "The size of an EMD, L1 or JS difference cannot be estimated without bias from a few "
        "annotations per item, and its interval does not cover the true difference; for ordinal "
        "labels RPS is the metric that can be judged honestly from 2 annotations per item.",
        "",
        "Each family: coverage of the 95% interval (%, ✗ where a metric with an unbiased "
        "difference falls below the requirement), then the mean bias of the estimated "
        "difference (estimate minus truth, in the metric's units) with, in parentheses, the "
        "share of replicates (%) where the estimate has the sign of the true difference.",
    ]
    for family, g in result.groupby("family", sort=False):
        truth = g[g["estimator"] == "empirical"].set_index(["metric", "n"])["true_diff"]
        lines += ["", f"## {family}", "", "Coverage (%):", "", *_grid(g, "coverage", ns), ""]
        lines += ["Bias (sign agreement, %):", "", *_grid(g, "bias", ns), ""]
        typical = ", ".join(
            f"{m} {_num(v)}" for m, v in truth.groupby("metric", sort=False).mean().items()
        )
        lines.append(f"Mean true difference (A − B): {typical}.")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dissensus.simulate.true_difference``: run the study, write the Markdown table."""
    parser = argparse.ArgumentParser(
        prog="python -m dissensus.simulate.true_difference",
        description="Coverage of the intervals for the true difference between two models.",
    )
    parser.add_argument("--out", type=Path, help="Markdown file to write (default: print it).")
    parser.add_argument("--replicates", type=int, default=1000, help="Replicates per cell.")
    parser.add_argument("--items", type=int, default=400, help="Items per replicate.")
    parser.add_argument("--seed", type=int, default=0, help="Seed of every draw.")
    args = parser.parse_args(argv)
    for flag, value, low in (("--replicates", args.replicates, 2), ("--items", args.items, 2)):
        if value < low:
            parser.error(f"{flag} must be an integer >= {low}; got {value}.")
    t0 = time.perf_counter()
    res = true_difference_study(replicates=args.replicates, n_items=args.items, seed=args.seed)
    command = "python -m dissensus.simulate.true_difference"
    defaults = (args.replicates, args.items, args.seed) == (1000, 400, 0)
    if not defaults:
        command += f" --replicates {args.replicates} --items {args.items} --seed {args.seed}"
    if args.out is not None:
        command += f" --out {args.out}"
    settings = f"{args.replicates} replicates of {args.items} items per cell, seed {args.seed}"
    text = true_difference_markdown(res, command=command, settings=settings)
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
