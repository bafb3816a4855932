"""Full property audit of every built-in metric (expected forms included), K = 2 and K = 5.

Goal: under 60 s for both on the 2-core development machine, at the default
100,000 trials per metric and property. No other library audits metric
properties, so there is no ratio; the wall and CPU times and the machine load
are printed so that a slow run on a busy machine can be told apart from a
slow audit.

    python benchmarks/bench_audit.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import time

from dissensus.audit import audit, auditable_metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10,000 trials instead of 100,000")
    args = parser.parse_args()
    n_trials = 10_000 if args.quick else 100_000
    metrics = auditable_metrics()
    print(f"load average before: {os.getloadavg()}  (cpus: {os.cpu_count()})")
    print(f"{len(metrics)} metrics x 12 properties, {n_trials:,} trials each")
    total_wall = total_cpu = 0.0
    for K in (2, 5):
        w0, c0 = time.perf_counter(), time.process_time()
        result = audit(metrics, properties="all", classes=K, n_trials=n_trials, seed=0)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        total_wall += wall
        total_cpu += cpu
        violated = sum(r.status == "violated" for r in result.rows)
        print(f"K = {K}: {wall:6.1f} s wall, {cpu:6.1f} s CPU, {violated} violations found")
    print(f"total:  {total_wall:6.1f} s wall, {total_cpu:6.1f} s CPU (goal < 60 s wall)")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
