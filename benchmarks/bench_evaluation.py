"""Benchmark of dissensus.evaluate on a large synthetic evaluation.

Default: 1,000,000 items x 4 models x 6 metrics (cross_entropy, emd, manhattan,
E[emd], E[cross_entropy], E[manhattan]), K = 5 ordered labels, 1000 paired
bootstrap resamples. Goal: under 30 s and under 4 GB peak memory on a
2-core machine. ``--quick``: 100,000 items and 200 resamples.

Prints the time of each stage (alignment, metrics, bootstrap, rankings and
reversals, report) and the peak resident memory of the process
(``resource.getrusage``, which includes the synthetic data).

    python benchmarks/bench_evaluation.py [--quick] [--items N] [--boot B]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats

from dissensus import LabelCounts, Predictions, Scale
from dissensus.evaluation import evaluate
from dissensus.stats._bootstrap import iter_weight_blocks
from dissensus.stats._paired import resample_means

METRICS = ["cross_entropy", "emd", "manhattan", "E[emd]", "E[cross_entropy]", "E[manhattan]"]


def peak_mb() -> float:
    # ru_maxrss is in KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_data(n_items: int, n_models: int, K: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    # product-review-like: many items with few ratings, a long tail with many
    n = 2 + np.minimum(rng.geometric(0.25, size=n_items) - 1, 500)
    probs = rng.dirichlet(np.full(K, 0.8), size=n_items)
    # multinomial counts per item, vectorised through a categorical draw per annotation
    cum = np.cumsum(probs, axis=1)
    counts = np.zeros((n_items, K), dtype=np.int64)
    item_of = np.repeat(np.arange(n_items), n)
    u = rng.random(item_of.size)
    lab = (u[:, None] > cum[item_of]).sum(axis=1)
    lab = np.minimum(lab, K - 1)
    np.add.at(counts, (item_of, lab), 1)
    items = np.arange(n_items)
    lc = LabelCounts.from_array(counts, items=items, scale=Scale.ordinal(list(range(1, K + 1))))
    preds = {}
    for j in range(n_models):
        noise = rng.dirichlet(np.full(K, 1.0 + j), size=n_items)
        w = 0.3 + 0.15 * j
        q = (1 - w) * probs + w * noise
        preds[f"model_{j}"] = Predictions.from_array(q, items=items, scale=lc.scale)
    return lc, preds


def compare_with_others(*, quick: bool) -> None:
    """Ratios against the other implementations, measured in the same run."""
    print()
    print("Same-run comparisons (ratio = other / dissensus):")
    n, reps = (200_000, 4) if quick else (1_000_000, 4)
    t = time.perf_counter()
    np.random.default_rng(0).multinomial(n, np.full(n, 1.0 / n), size=reps)
    t_multi = time.perf_counter() - t
    t = time.perf_counter()
    for _ in iter_weight_blocks(np.ones(n, dtype=np.int64), reps, seed=0):
        pass
    t_index = time.perf_counter() - t
    print(
        f"  bootstrap weights, {n:,} items x {reps} resamples: Generator.multinomial "
        f"{t_multi:.2f} s, two-level index bincount {t_index:.2f} s -> {t_multi / t_index:.1f}x"
    )

    rng = np.random.default_rng(1)
    n, B = 100_000, 1000
    x = rng.gamma(2.0, size=n)
    y = x + rng.normal(0.01, 0.5, size=n)
    t = time.perf_counter()
    res = stats.bootstrap(
        (x, y),
        lambda a, b, axis: np.mean(a - b, axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=B,
        method="percentile",
        rng=np.random.default_rng(0),
        batch=50,
    )
    t_scipy = time.perf_counter() - t
    # the evaluation's case: 24 series (4 models x 6 metrics) resampled together,
    # after which every one of the 36 model differences is a subtraction
    series = np.vstack([x, y, rng.random((22, n))])
    t = time.perf_counter()
    boot = resample_means(series, B, seed=0)
    lo, hi = np.quantile(boot[:, 0] - boot[:, 1], [0.025, 0.975])
    t_ours = time.perf_counter() - t
    n_diff = 36
    print(
        f"  paired bootstrap CIs, {n:,} items x {B} resamples: scipy.stats.bootstrap "
        f"{t_scipy:.2f} s per model difference ({n_diff} differences: {n_diff * t_scipy:.1f} s); "
        f"resample_means, all 24 series at once: {t_ours:.2f} s -> "
        f"{n_diff * t_scipy / t_ours:.0f}x for the {n_diff} differences, "
        f"{t_scipy / t_ours:.1f}x for one"
    )
    print(
        f"    same difference: scipy [{res.confidence_interval.low:.5f}, "
        f"{res.confidence_interval.high:.5f}], dissensus [{lo:.5f}, {hi:.5f}]"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="100,000 items, 200 resamples")
    ap.add_argument("--items", type=int, default=None)
    ap.add_argument("--boot", type=int, default=None)
    ap.add_argument("--models", type=int, default=4)
    args = ap.parse_args()
    n_items = args.items or (100_000 if args.quick else 1_000_000)
    n_resamples = args.boot or (200 if args.quick else 1000)
    K = 5

    t = time.perf_counter()
    lc, preds = make_data(n_items, args.models, K)
    t_data = time.perf_counter() - t
    base_mb = peak_mb()
    print(
        f"dissensus evaluation benchmark: {n_items:,} items x {args.models} models x "
        f"{len(METRICS)} metrics, K={K}, n_resamples={n_resamples}"
    )
    print(f"  (synthetic data: {t_data:.2f} s, peak RSS after data {base_mb:,.0f} MB)")

    stages: dict[str, float] = {}
    t0 = time.perf_counter()
    ev = evaluate(lc, preds, metrics=METRICS, seed=0)
    stages["alignment + validation"] = ev.timings["alignment"]
    stages["metrics"] = ev.timings["metrics"]

    t = time.perf_counter()
    summary = ev.summary(n_resamples=n_resamples)
    stages["paired bootstrap + summary"] = time.perf_counter() - t

    t = time.perf_counter()
    ev.differences(n_resamples=n_resamples)
    ev.by_bin()
    ev.rankings()
    rev = ev.reversals(n_resamples=n_resamples)
    ev.metric_agreement()
    stages["differences, bins, rankings, reversals"] = time.perf_counter() - t

    t = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            html = ev.to_html(Path(tmp) / "report.html", n_resamples=n_resamples)
            summary.to_csv(Path(tmp) / "summary.csv", index=False, float_format="%.10g")
        report_total = time.perf_counter() - t
        agreement = ev.timings.get("agreement (report)", 0.0)
        stages["report: agreement table (agreement.report, bootstrap)"] = agreement
        stages["report: tables + to_html + summary.csv"] = report_total - agreement
        report_note = f"{len(html) / 1024:,.0f} KiB of HTML"
        t = time.perf_counter()
        ev.report_data(n_resamples=n_resamples, agreement_ci=False)
        point_only = time.perf_counter() - t
    except ImportError as exc:  # the report extra is optional
        report_note = f"skipped ({exc})"
        point_only = 0.0
    total = time.perf_counter() - t0

    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        paths = ev.save(tmp, n_resamples=n_resamples)
        parquet_mb = paths["scores"].stat().st_size / 2**20
    t_save = time.perf_counter() - t

    print()
    width = max(map(len, stages)) + 2
    for name, sec in stages.items():
        print(f"  {name:<{width}} {sec:8.2f} s")
    print(
        f"  {'total (evaluate -> report)':<{width}} {total:8.2f} s   goal < 30 s: "
        f"{'OK' if total < 30 else 'MISSED'}"
    )
    if "report: agreement table (agreement.report, bootstrap)" in stages:
        alt = total - stages["report: agreement table (agreement.report, bootstrap)"] + point_only
        print(
            f"  {'total, agreement point estimates only':<{width}} {alt:8.2f} s   "
            f"(report_data(agreement_ci=False): {point_only:.2f} s)   goal < 30 s: "
            f"{'OK' if alt < 30 else 'MISSED'}"
        )
    peak = peak_mb()
    print(
        f"  {'peak RSS (whole process)':<{width}} {peak:8,.0f} MB  goal < 4096 MB: "
        f"{'OK' if peak < 4096 else 'MISSED'}"
    )
    print(f"  report: {report_note}; reversals found: {len(rev)}")
    rows = len(METRICS) * args.models * n_items
    print(
        f"  outside the goal: Evaluation.save (summary.csv, rankings.csv, report.html, "
        f"scores.parquet with {rows:,} rows, {parquet_mb:,.0f} MB): {t_save:.2f} s"
    )
    print()
    print(summary.to_string(index=False, float_format=lambda v: f"{v:.5f}"))
    compare_with_others(quick=args.quick)
    if "--strict" in sys.argv and (total >= 30 or peak >= 4096):
        sys.exit(1)


if __name__ == "__main__":
    main()
