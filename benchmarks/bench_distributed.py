"""Dask engine against the in-memory path: throughput per annotation.

Data: N annotations (default 10 million; 200,000 with --quick) of N/10 items,
10 ratings each on a 5-point scale, written as 8 Parquet files with rows
shuffled so that almost every item is split across files. Both paths read the
same files and compute label counts, Fleiss' kappa and Krippendorff's alpha
(nominal and ordinal); the Dask path runs on a LocalCluster of 2 workers with
one thread each (threads in one process by default; --processes for worker
processes), once with Dask's P2P shuffle and once with the task shuffle. The values are checked equal (1e-12) and the load average is
printed: the machine is shared, so read the ratio, not the seconds.

    python benchmarks/bench_distributed.py [--quick] [--annotations N] [--processes]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from dask.distributed import Client, LocalCluster

from dissensus import distributed as D
from dissensus.agreement import fleiss_kappa, krippendorff_alpha
from dissensus.data import Annotations, Scale

K = 5
PER_ITEM = 10
FILES = 8
SCALE = Scale.ordinal(list(range(1, K + 1)))


def write_data(path: Path, n_annotations: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    n_items = n_annotations // PER_ITEM
    item = np.repeat(np.arange(n_items, dtype=np.int64), PER_ITEM)
    centre = np.repeat(rng.integers(1, K + 1, n_items), PER_ITEM)
    label = np.clip(centre + rng.integers(-1, 2, item.size), 1, K)
    order = rng.permutation(item.size)
    for j, rows in enumerate(np.array_split(order, FILES)):
        pd.DataFrame({"item": item[rows], "label": label[rows]}).to_parquet(
            path / f"part-{j:02d}.parquet", index=False
        )


def in_memory(path: Path) -> dict[str, float]:
    df = pd.read_parquet(path)
    counts = Annotations.from_frame(df, annotator=None, scale=SCALE).counts()
    return {
        "fleiss_kappa": float(fleiss_kappa(counts)),
        "krippendorff_alpha": float(krippendorff_alpha(counts)),
        "krippendorff_alpha_ordinal": float(krippendorff_alpha(counts, level="ordinal")),
    }


def on_dask(path: Path, shuffle: str | None = None) -> dict[str, float]:
    counts = D.label_counts(path, scale=SCALE, shuffle=shuffle)
    res = D.agreement(counts, ["fleiss_kappa", "krippendorff_alpha"], levels=("nominal", "ordinal"))
    return {k: float(v) for k, v in res.items()}


def two_workers(*, processes: bool = False, memory_limit: str = "4GB") -> LocalCluster:
    """The benchmarks' cluster: 2 workers of 1 thread, no dashboard (one per core here)."""
    return LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=processes,
        dashboard_address=None,
        memory_limit=memory_limit,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200,000 annotations")
    parser.add_argument("--annotations", type=int, default=None)
    parser.add_argument("--processes", action="store_true", help="worker processes")
    args = parser.parse_args()
    n = args.annotations or (200_000 if args.quick else 10_000_000)
    print(f"load average at start: {os.getloadavg()}, cores: {os.cpu_count()}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp)
        write_data(path, n)
        size = sum(f.stat().st_size for f in path.iterdir()) / 2**20
        print(f"{n:,} annotations, {n // PER_ITEM:,} items, {FILES} Parquet files ({size:.0f} MB)")
        t0 = time.perf_counter()
        want = in_memory(path)
        t_mem = time.perf_counter() - t0
        with (
            two_workers(processes=args.processes) as cluster,
            Client(cluster),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore")
            times = {}
            for method in ("p2p", "tasks"):
                t0 = time.perf_counter()
                got = on_dask(path, shuffle=method)
                times[method] = time.perf_counter() - t0
                for name, w in want.items():
                    assert abs(got[name] - w) <= 1e-12, (method, name, got[name], w)
    print("values equal to 1e-12:", ", ".join(f"{k}={v:.6f}" for k, v in want.items()))
    print(f"{'path':<40}{'seconds':>10}{'annotations/s':>16}")
    print(f"{'in memory (pandas)':<40}{t_mem:>10.2f}{n / t_mem:>16,.0f}")
    kind = "processes" if args.processes else "threads"
    for method, t_dask in times.items():
        what = f"dask 2 workers ({kind}, {method} shuffle)"
        print(f"{what:<40}{t_dask:>10.2f}{n / t_dask:>16,.0f}")
    for method, t_dask in times.items():
        print(f"dask ({method} shuffle) / in-memory time: {t_dask / t_mem:.2f}x  (goal <= 3x)")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
