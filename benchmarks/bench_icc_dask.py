"""ICC on Dask against the in-memory path: same numbers, time per rating.

Data: N ratings (default 2 million; 100,000 with --quick) of N/10 items, each
rated once by the same 10 annotators on a 1-7 scale (a complete design), in 8
Parquet files with shuffled rows, so every item's ratings are split across
files. In memory: the files read with pandas, then either
``Annotations.from_frame`` (which checks for repeated ratings) or a pandas
pivot to the wide table, then :func:`dissensus.agreement.icc`. On Dask:
:func:`dissensus.distributed.icc` on a LocalCluster of 2 workers with one
thread each (a shuffle by item, sums per partition). ICC(A,1) with its
exact 95% interval; the statistic, interval, p-value and mean squares are
checked equal to 1e-12 (relative). The load average is printed: the
machine is shared, so read the ratio, not the seconds.

    python benchmarks/bench_icc_dask.py [--quick] [--ratings N] [--processes]
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from bench_distributed import FILES, two_workers
from dask.distributed import Client

from dissensus import distributed as D
from dissensus.agreement import icc
from dissensus.data import Annotations, Scale

RATERS = 10
SCALE = Scale.ordinal([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])


def write_ratings(path: Path, n_ratings: int, seed: int = 0) -> int:
    rng = np.random.default_rng(seed)
    n_items = n_ratings // RATERS
    target = rng.normal(4.0, 1.2, n_items)
    bias = rng.normal(0.0, 0.3, RATERS)
    y = target[:, None] + bias[None, :] + rng.normal(0.0, 0.8, (n_items, RATERS))
    label = np.clip(np.round(y), 1, 7).ravel()
    item = np.repeat(np.arange(n_items, dtype=np.int64), RATERS)
    rater = np.tile(np.array([f"r{j}" for j in range(RATERS)]), n_items)
    order = rng.permutation(item.size)
    for j, rows in enumerate(np.array_split(order, FILES)):
        pd.DataFrame(
            {"item": item[rows], "annotator": rater[rows], "label": label[rows]}
        ).to_parquet(path / f"part-{j:02d}.parquet", index=False)
    return n_items


def check_equal(got: Any, want: Any) -> None:
    pairs = [("statistic", got.statistic, want.statistic), ("pvalue", got.pvalue, want.pvalue)]
    pairs += [
        (f"ci[{i}]", g, w)
        for i, (g, w) in enumerate(
            zip(got.confidence_interval, want.confidence_interval, strict=True)
        )
    ]
    pairs += [(k, got.parts[k], w) for k, w in want.parts.items()]
    for name, g, w in pairs:
        assert math.isclose(g, w, rel_tol=1e-12, abs_tol=1e-300), (name, g, w)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 ratings")
    parser.add_argument("--ratings", type=int, default=None)
    parser.add_argument("--processes", action="store_true", help="worker processes")
    args = parser.parse_args()
    n = args.ratings or (100_000 if args.quick else 2_000_000)
    logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)  # a line per shuffle
    print(f"load average at start: {os.getloadavg()}, cores: {os.cpu_count()}")
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = Path(tmp)
        n_items = write_ratings(path, n)
        print(f"{n:,} ratings, {n_items:,} items x {RATERS} annotators, {FILES} Parquet files")
        t0 = time.perf_counter()
        ann = Annotations.from_frame(pd.read_parquet(path), scale=SCALE)
        want = icc(ann, kind="A,1")
        times["in memory (Annotations.from_frame)"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        wide = pd.read_parquet(path).pivot(index="item", columns="annotator", values="label")
        want_wide = icc(wide, kind="A,1")
        times["in memory (pandas pivot)"] = time.perf_counter() - t0
        check_equal(want_wide, want)
        kind = "processes" if args.processes else "threads"
        with two_workers(processes=args.processes) as cluster, Client(cluster):
            t0 = time.perf_counter()
            got = D.icc(path, kind="A,1")
            times[f"dask 2 workers ({kind})"] = time.perf_counter() - t0
        check_equal(got, want)
    ci = want.confidence_interval
    print(
        f"ICC(A,1) = {want.statistic:.12f}, 95% CI ({ci.low:.6f}, {ci.high:.6f}), "
        "equal on both paths to 1e-12 (statistic, interval, p-value, mean squares)"
    )
    print(f"{'path':<40}{'seconds':>10}{'ratings/s':>14}")
    for what, t in times.items():
        print(f"{what:<40}{t:>10.2f}{n / t:>14,.0f}")
    t_dask = times[f"dask 2 workers ({kind})"]
    for what in ("in memory (Annotations.from_frame)", "in memory (pandas pivot)"):
        print(f"dask / {what} time: {t_dask / times[what]:.2f}x")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
