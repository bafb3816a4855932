"""Benchmark of dissensus.simulate.study and of the default ``dissensus simulate``.

Issue 11's goals on this (2-core, shared) machine:

- ``study`` with R = 200 replicates x 5,000 items x 5 classes x 6 candidates x
  10 metrics (cross_entropy, kl_divergence, js_divergence, manhattan, emd and
  their expected forms under one prior) in under 5 minutes;
- the default ``dissensus simulate`` in under 2 minutes.

For a ratio measured in the same run, the naive way to run the same study is
timed on a few replicates and extrapolated: one ``dissensus.evaluate`` call
per replicate (same data, same metrics, no bootstrap). The load average is
printed at the start and the end: other jobs share the machine.

    python benchmarks/bench_simulate.py [--quick] [--replicates R] [--items N]
        [--priors uniform[,jeffreys,empirical]] [--skip-cli]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

from dissensus import LabelCounts
from dissensus.evaluation import evaluate
from dissensus.simulate import (
    DEFAULT_STUDY_METRICS,
    annotation_counts,
    candidate_predictions,
    draw_truth,
    study,
)

CANDIDATES = ("truth", "noisy", "tempered", "smoothed", "overfit", "marginal")


def naive_seconds_per_replicate(n_items: int, prior: str, reps: int = 2) -> float:
    metrics = [*DEFAULT_STUDY_METRICS, *(f"E[{m}]" for m in DEFAULT_STUDY_METRICS)]
    t = time.perf_counter()
    for r in range(reps):
        rng = np.random.default_rng(r)
        pi = draw_truth(n_items, 5, seed=rng)
        n = annotation_counts(n_items, seed=rng)
        counts = LabelCounts.from_array(rng.multinomial(n, pi), scale=range(5))
        counts = LabelCounts(counts.values, counts.items, counts.scale.with_order(True))
        preds = candidate_predictions(pi, CANDIDATES, n=n, seed=rng)
        ev = evaluate(counts, preds, metrics=metrics, prior=prior)
        # the ranking against the truth, as study does it
        for m in DEFAULT_STUDY_METRICS:
            _ = [ev.values[metrics.index(m)].mean(axis=1)]
    return (time.perf_counter() - t) / reps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="R = 20 instead of 200")
    ap.add_argument("--replicates", type=int, default=None)
    ap.add_argument("--items", type=int, default=5000)
    ap.add_argument("--priors", default="uniform")
    ap.add_argument("--skip-cli", action="store_true")
    ap.add_argument("--skip-study", action="store_true")
    args = ap.parse_args()
    R = args.replicates or (20 if args.quick else 200)
    priors = [p for p in args.priors.split(",") if p]
    print(f"load average at start: {os.getloadavg()}, cores: {os.cpu_count()}")

    if not args.skip_study:
        run_study(args.items, R, priors)
    if not args.skip_cli:
        from dissensus.cli import main as cli  # noqa: PLC0415

        with tempfile.TemporaryDirectory() as out:
            t, c = time.perf_counter(), time.process_time()
            code = cli(["simulate", "--out", out])
            t_cli, c_cli = time.perf_counter() - t, time.process_time() - c
        print(
            f"default `dissensus simulate`: {t_cli:.1f} s wall, {c_cli:.1f} s CPU "
            f"(goal < 120 s), exit code {code}"
        )
    print(f"load average at end: {os.getloadavg()}")


def run_study(items: int, R: int, priors: list[str]) -> None:
    t, c = time.perf_counter(), time.process_time()
    res = study(
        items,
        5,
        replicates=R,
        candidates=CANDIDATES,
        metrics=DEFAULT_STUDY_METRICS,
        priors=priors,
        seed=0,
    )
    t_study, c_study = time.perf_counter() - t, time.process_time() - c
    n_metrics = len(DEFAULT_STUDY_METRICS) * (1 + len(priors))
    print(
        f"study: R={R} x {items} items x 5 classes x {len(CANDIDATES)} candidates x "
        f"{n_metrics} metrics (priors {priors}): {t_study:.1f} s wall, {c_study:.1f} s CPU "
        "(goal at R=200: < 300 s); "
        f"per truth family {res.timings}"
    )
    naive = naive_seconds_per_replicate(items, priors[0])
    per_rep = t_study / R
    print(
        f"naive evaluate() per replicate (prior {priors[0]}, extrapolated): {naive * R:.1f} s; "
        f"study per replicate {per_rep:.3f} s -> ratio naive/study {naive / per_rep * len(priors):.2f} "
        "(per prior)"
    )


if __name__ == "__main__":
    main()
