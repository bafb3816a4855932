"""Pointwise soft metrics: dissensus against scipy and POT, on 1,000,000 items x K = 5.

Data: seeded Dirichlet(1, ..., 1) targets p and predictions q, 1,000,000 x 5
(100,000 with --quick). Every time is the best of 3 runs of the public
function, input validation included. Goal: each pointwise metric
under 0.1 s on the full data; plain EMD at least 500x faster than the
LeWiDi 2025 ``ot.emd2`` loop.

The per-item loops of the other libraries (``scipy.stats.wasserstein_distance``,
``ot.emd2`` as the LeWiDi 2025 scorer calls it) are timed on the first
2,000 items and extrapolated linearly to the full N; the table says so.
Vectorised references (``scipy.spatial.distance.jensenshannon(axis=1)``,
``scipy.stats.entropy(axis=1)``) run on the full arrays.

Two clocks: wall time (``perf_counter``) and the CPU time of this process
(``process_time``) with BLAS limited to one thread, which is steadier when
other jobs share the machine. The load average is printed with the table.

    python benchmarks/bench_metrics.py [--quick] [--n N]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.spatial.distance import jensenshannon
from scipy.stats import entropy as scipy_entropy
from scipy.stats import wasserstein_distance
from threadpoolctl import threadpool_limits

from dissensus.metrics import entropy, get_metric, list_metrics

K = 5
SLICE = 2_000
GOAL_SECONDS = 0.1
GOAL_EMD_RATIO = 500.0


def best_of(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, float]:
    """Best wall time and best CPU time over ``repeat`` runs."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
    return wall, cpu


def emd2_loop(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    # What the LeWiDi 2025 scorer does per item.
    import ot  # noqa: PLC0415 -- optional peer (POT)

    cost = np.abs(np.arange(K).reshape(-1, 1) - np.arange(K)).astype(np.float64)
    return np.array([ot.emd2(a, b, cost) for a, b in zip(p, q, strict=True)])


def scipy_wasserstein_loop(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    support = np.arange(K)
    return np.array(
        [wasserstein_distance(support, support, a, b) for a, b in zip(p, q, strict=True)]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 items")
    parser.add_argument("--n", type=int, default=None, help="number of items")
    args = parser.parse_args()
    n = args.n or (100_000 if args.quick else 1_000_000)

    rng = np.random.default_rng(20250601)
    p = rng.dirichlet(np.ones(K), size=n)
    q = rng.dirichlet(np.ones(K), size=n)
    load = os.getloadavg()
    print(f"N = {n:,} items, K = {K}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"goal: each metric < {GOAL_SECONDS} s at N = 1,000,000 (wall and CPU shown)\n")

    with threadpool_limits(limits=1, user_api="blas"):
        rows: list[tuple[str, float, float]] = []
        for name in list_metrics(kind="pointwise"):
            func = get_metric(name).func
            wall, cpu = best_of(lambda f=func: f(p, q))
            rows.append((name, wall, cpu))
        wall, cpu = best_of(lambda: entropy(p))
        rows.append(("entropy", wall, cpu))

        scale = 1_000_000 / n
        # The goal is wall time. The metrics share row blocks across threads
        # (min(cores, 8) unless DISSENSUS_NUM_THREADS says otherwise), so CPU time
        # can exceed wall time; it is shown for runs on a busy machine.
        print(f"{'metric':24s} {'wall s':>8s} {'cpu s':>8s} {'wall @1M':>8s}  goal (wall)")
        for name, wall, cpu in rows:
            at_1m = wall * scale
            verdict = "ok" if at_1m < GOAL_SECONDS else "MISSED"
            print(f"{name:24s} {wall:8.4f} {cpu:8.4f} {at_1m:8.4f}  {verdict}")

        # ---- comparisons (ratios in this run)
        print("\ncomparison                                   other s     ours s     ratio")
        emd_wall, emd_cpu = best_of(lambda: get_metric("emd").func(p, q, normalized_distance=False))

        m = min(SLICE, n)
        ps, qs = p[:m], q[:m]
        ot_wall, _ = best_of(lambda: emd2_loop(ps, qs), repeat=1)
        ot_full = ot_wall * n / m
        sp_wall, _ = best_of(lambda: scipy_wasserstein_loop(ps, qs), repeat=1)
        sp_full = sp_wall * n / m
        ours_vs_ot = emd2_loop(ps, qs) - get_metric("emd").func(ps, qs, normalized_distance=False)
        print(
            f"emd vs LeWiDi ot.emd2 loop (extrapolated)   {ot_full:9.2f}  {emd_wall:9.4f}  "
            f"{ot_full / emd_wall:8.0f}x  (loop timed on {m:,} items x {n / m:.0f}; "
            f"max |diff| {np.abs(ours_vs_ot).max():.1e}; goal >= {GOAL_EMD_RATIO:.0f}x)"
        )
        print(
            f"emd vs scipy wasserstein loop (extrapolated){sp_full:9.2f}  {emd_wall:9.4f}  "
            f"{sp_full / emd_wall:8.0f}x  (loop timed on {m:,} items x {n / m:.0f})"
        )

        js_wall, _ = best_of(lambda: jensenshannon(p, q, axis=1))
        ours_js, _ = best_of(lambda: get_metric("js_distance").func(p, q))
        print(
            f"js_distance vs scipy jensenshannon(axis=1)  {js_wall:9.4f}  {ours_js:9.4f}  "
            f"{js_wall / ours_js:8.1f}x"
        )
        kl_wall, _ = best_of(lambda: scipy_entropy(p, q, axis=1))
        ours_kl, _ = best_of(lambda: get_metric("kl_divergence").func(p, q))
        print(
            f"kl_divergence vs scipy entropy(p, q, axis=1){kl_wall:9.4f}  {ours_kl:9.4f}  "
            f"{kl_wall / ours_kl:8.1f}x"
        )
        h_wall, _ = best_of(lambda: scipy_entropy(p, axis=1))
        ours_h, _ = best_of(lambda: entropy(p))
        print(
            f"entropy vs scipy entropy(p, axis=1)         {h_wall:9.4f}  {ours_h:9.4f}  "
            f"{h_wall / ours_h:8.1f}x"
        )
        print(f"\n(emd CPU time {emd_cpu:.4f} s; wall times for the ratios.)")


if __name__ == "__main__":
    main()
