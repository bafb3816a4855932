"""evaluate() on Dask against the in-memory path: same tables, time per annotation.

Data: N annotations (default 2 million; 100,000 with --quick) of N/10 items
on a 5-point scale, in 8 Parquet files with shuffled rows (every item split
across files; see bench_distributed.py), and two models' predictions. Both
paths score the default metrics (5 pointwise + 5 expected) and build the
Evaluation; the Dask path counts and scores on a LocalCluster of 2 workers
(one thread each) and collects the (M, J, N) scores. The summaries (1000
resamples) are checked identical, the load average is printed: the machine
is shared, so read the ratio, not the seconds.

    python benchmarks/bench_evaluate_dask.py [--quick] [--annotations N] [--processes]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from pathlib import Path

import dask.dataframe as dd
import numpy as np
import pandas as pd
from bench_distributed import PER_ITEM, SCALE, two_workers, write_data
from dask.distributed import Client

from dissensus import distributed as D
from dissensus import evaluate
from dissensus.data import Annotations


def write_predictions(path: Path, n_items: int) -> dict[str, Path]:
    out = {}
    for name, seed in (("A", 1), ("B", 2)):
        q = np.random.default_rng(seed).dirichlet(np.ones(SCALE.K), n_items)
        df = pd.DataFrame(q, columns=[str(v) for v in SCALE.labels])
        df.insert(0, "item", np.arange(n_items, dtype=np.int64))
        out[name] = path / f"pred-{name}.parquet"
        df.to_parquet(out[name], index=False)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 annotations")
    parser.add_argument("--annotations", type=int, default=None)
    parser.add_argument("--processes", action="store_true", help="worker processes")
    args = parser.parse_args()
    n = args.annotations or (100_000 if args.quick else 2_000_000)
    print(f"load average at start: {os.getloadavg()}, cores: {os.cpu_count()}")
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = Path(tmp) / "annotations"
        path.mkdir()
        write_data(path, n)
        preds = write_predictions(Path(tmp), n // PER_ITEM)
        print(f"{n:,} annotations, {n // PER_ITEM:,} items, 2 models, default metrics")
        t0 = time.perf_counter()
        counts = Annotations.from_frame(pd.read_parquet(path), annotator=None, scale=SCALE).counts()
        counts = counts.take(np.argsort(counts.items.to_numpy()))  # the Dask path's item order
        mem = {m: pd.read_parquet(p).set_index("item") for m, p in preds.items()}
        want = evaluate(counts, mem)
        t_mem = time.perf_counter() - t0
        with (
            two_workers(processes=args.processes) as cluster,
            Client(cluster),
        ):
            t0 = time.perf_counter()
            dcounts = D.label_counts(path, scale=SCALE)
            got = evaluate(dcounts, {m: dd.read_parquet(p) for m, p in preds.items()})
            t_dask = time.perf_counter() - t0
        pd.testing.assert_frame_equal(got.summary(), want.summary(), check_exact=True)
    print(f"summary identical ({len(got.metrics)} metrics x 2 models, 1000 resamples)")
    print(f"{'path':<28}{'seconds':>10}{'annotations/s':>16}")
    print(f"{'in memory (pandas)':<28}{t_mem:>10.2f}{n / t_mem:>16,.0f}")
    kind = "processes" if args.processes else "threads"
    print(f"{'dask 2 workers (' + kind + ')':<28}{t_dask:>10.2f}{n / t_dask:>16,.0f}")
    print(f"dask / in-memory time (scoring, before the tables): {t_dask / t_mem:.2f}x")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
