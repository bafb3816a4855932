"""Debiased metrics: cost of ``debiased[<metric>]`` relative to the pointwise metric.

Data: 1,000,000 items x K = 5 (100,000 with --quick), seeded: true
distributions Dirichlet(1, ..., 1), 2 to 10 annotations per item (uniform),
counts ~ Multinomial(n, pi), predictions Dirichlet(1, ..., 1). The pointwise
metric is timed twice: on the empirical distributions given (``f(p, q)``,
what ``evaluate`` passes) and from the counts (``f(counts / n, q)``, the
same input as the debiased metric); the debiased one on the counts. All
through the registry, input validation included, best of 3, in the same
run; ratios are of CPU times. Goal:
a debiased metric costs at most K + 1 pointwise evaluations
(the jackknife is one call on all items plus one call per class on the
items that have an annotation of that class).

Two clocks: wall time and this process's CPU time with BLAS limited to one
thread (steadier when other jobs share the machine). The load average is
printed with the table.

The per-item jackknife variance (``jackknife_variance``, the same K + 1
calls plus the squared deviations) is timed too, with its ratio.

    python benchmarks/bench_debiased.py [--quick] [--n N] [--metrics a,b] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np
from bench_metrics import best_of  # the same best-of-3 wall and CPU clocks
from threadpoolctl import threadpool_limits

from dissensus.metrics import get_metric
from dissensus.metrics.debiased import jackknife_variance

K = 5
METRICS = ("manhattan", "emd", "js_divergence", "hellinger", "euclidean", "squared_euclidean")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 items")
    parser.add_argument("--n", type=int, default=None, help="number of items")
    parser.add_argument("--metrics", default=",".join(METRICS), help="comma-separated names")
    parser.add_argument("--repeat", type=int, default=3, help="best of R runs (default 3)")
    args = parser.parse_args()
    n_items = args.n or (100_000 if args.quick else 1_000_000)

    rng = np.random.default_rng(20251126)
    pi = rng.dirichlet(np.ones(K), size=n_items)
    n = rng.integers(2, 11, size=n_items)
    counts = rng.multinomial(n, pi)
    p = counts / n[:, None].astype(np.float64)
    q = rng.dirichlet(np.ones(K), size=n_items)
    load = os.getloadavg()
    print(
        f"N = {n_items:,} items, K = {K}, 2-10 annotations per item; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"goal: debiased / pointwise <= K + 1 = {K + 1}")
    header = (
        f"{'metric':18s} {'f(p,q) cpu s':>12s} {'f(c/n,q) cpu s':>14s} {'debiased cpu s':>14s} "
        f"{'ratio':>6s} {'ratio vs c/n':>12s} {'wall ratio':>10s}  goal  "
        f"{'variance cpu s':>14s} {'ratio':>6s}  goal"
    )
    print(header)
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name in args.metrics.split(","):
            f = get_metric(name)
            d = get_metric(f"debiased[{name}]")
            r = args.repeat
            pw_wall, pw_cpu = best_of(lambda f=f: f(p, q), r)
            _, pc_cpu = best_of(lambda f=f: f(counts / n[:, None], q), r)
            db_wall, db_cpu = best_of(lambda d=d: d(counts, q), r)
            _, var_cpu = best_of(lambda m=name: jackknife_variance(counts, q, metric=m), r)
            ratio, ratio_c = db_cpu / pw_cpu, db_cpu / pc_cpu
            ok = "ok" if ratio <= K + 1 else "MISSED"
            ok_v = "ok" if var_cpu / pw_cpu <= K + 1 else "MISSED"
            print(
                f"{name:18s} {pw_cpu:12.3f} {pc_cpu:14.3f} {db_cpu:14.3f} {ratio:6.2f} "
                f"{ratio_c:12.2f} {db_wall / pw_wall:10.2f}  {ok:6s}"
                f"{var_cpu:14.3f} {var_cpu / pw_cpu:6.2f}  {ok_v}"
            )
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
