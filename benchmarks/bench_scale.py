"""The scale goals of issue 16: a 2-worker LocalCluster run, and streaming counts from a big CSV.

    python benchmarks/bench_scale.py cluster [--annotations 100000000] [--keep DIR]
    python benchmarks/bench_scale.py stream [--gb 10] [--items 2000000]

``cluster``: N annotations (default 100 million) of N/10 items, K = 5, 20
annotators, in 20 Parquet files (one per annotator: every item is split
across about 10 files), plus predictions of 2 models (10 Parquet files
each). On a LocalCluster of 2 worker processes (1 thread, memory limit 4 GB
each): label counts (shuffle by item, persisted), Fleiss' kappa and
Krippendorff's alpha (nominal, ordinal) with their standard errors, and the
per-model means of 5 metrics and their expected forms (10 columns, a Dask
join of predictions and counts). Wall time per stage; worker memory is the
largest resident set size sampled every 0.5 s on each worker (``psutil``
through ``Client.run``), so short spikes between samples can be missed.

``stream``: writes a CSV of about ``--gb`` GB (``item,label`` rows) and runs
:func:`dissensus.distributed.stream_counts` on it in a child process, whose
peak RSS is ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` (exact, not sampled).

Data go to a temporary directory under /tmp and are deleted afterwards. The
machine may be shared: the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

K = 5
ANNOTATORS = 20
METRICS = [
    "emd",
    "E[emd]",
    "manhattan",
    "E[manhattan]",
    "cross_entropy",
    "E[cross_entropy]",
    "kl_divergence",
    "E[kl_divergence]",
    "squared_euclidean",
    "E[squared_euclidean]",
]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def write_cluster_data(path: Path, n_annotations: int, seed: int = 0) -> tuple[int, int]:
    """One Parquet file per annotator; each rates a random half of the items."""
    rng = np.random.default_rng(seed)
    n_items = n_annotations // (ANNOTATORS // 2)
    centre = rng.integers(1, K + 1, n_items).astype(np.int8)
    (path / "annotations").mkdir()
    total = 0
    seen = np.zeros(n_items, dtype=bool)
    for j in range(ANNOTATORS):
        mask = rng.random(n_items) < 0.5
        if j == ANNOTATORS - 1:
            mask |= ~seen  # every item rated at least once: the models predict them all
        seen |= mask
        rated = np.flatnonzero(mask)
        noise = rng.integers(-1, 2, rated.size).astype(np.int8)
        label = np.clip(centre[rated] + noise, 1, K).astype(np.int8)
        pd.DataFrame(
            {"item": rated.astype(np.int64), "annotator": np.int8(j), "label": label}
        ).to_parquet(path / "annotations" / f"annotator-{j:02d}.parquet", index=False)
        total += rated.size
    for model in ("a", "b"):
        d = path / f"pred-{model}"
        d.mkdir()
        for c, rows in enumerate(np.array_split(np.arange(n_items), 10)):
            q = rng.dirichlet(np.full(K, 2.0), size=rows.size)
            frame = pd.DataFrame(q, columns=[str(k) for k in range(1, K + 1)])
            frame.insert(0, "item", rows.astype(np.int64))
            frame.to_parquet(d / f"part-{c:02d}.parquet", index=False)
    return total, n_items


class WorkerMemory:
    """Largest RSS of each worker, sampled in a thread through Client.run."""

    def __init__(self, client, every: float = 0.5) -> None:
        self.client, self.every = client, every
        self.peak: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        import psutil  # noqa: PLC0415

        def rss() -> int:
            return psutil.Process().memory_info().rss

        while not self._stop.is_set():
            try:
                for w, b in self.client.run(rss).items():
                    self.peak[w] = max(self.peak.get(w, 0.0), b / 2**20)
            except Exception:  # a missed sample is not an error
                pass
            self._stop.wait(self.every)

    def __enter__(self) -> WorkerMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def run_cluster(args: argparse.Namespace) -> None:
    from bench_distributed import two_workers  # noqa: PLC0415
    from dask.distributed import Client  # noqa: PLC0415

    from dissensus import distributed as D  # noqa: PLC0415
    from dissensus.data import Scale  # noqa: PLC0415

    tmp = Path(tempfile.mkdtemp(prefix="dissensus-scale-", dir=args.tmp))
    try:
        print(f"load average at start: {load()}; cores: {os.cpu_count()}", flush=True)
        t0 = time.perf_counter()
        n_ann, n_items = write_cluster_data(tmp, args.annotations)
        size = sum(f.stat().st_size for f in tmp.rglob("*.parquet")) / 2**30
        print(
            f"data: {n_ann:,} annotations of {n_items:,} items by {ANNOTATORS} annotators, K = {K}; "
            f"{size:.2f} GiB of Parquet (annotations + 2 models' predictions); "
            f"written in {time.perf_counter() - t0:.0f} s",
            flush=True,
        )
        scale = Scale.ordinal(list(range(1, K + 1)))
        stages: dict[str, float] = {}
        with (
            two_workers(processes=True, memory_limit=args.memory_limit) as cluster,
            Client(cluster) as client,
            warnings.catch_warnings(),
            WorkerMemory(client) as mem,
        ):
            warnings.simplefilter("ignore")
            t_all = time.perf_counter()
            t = time.perf_counter()
            counts = D.label_counts(
                tmp / "annotations", scale=scale, npartitions=args.partitions, shuffle=args.shuffle
            ).persist()
            n_counted = int(counts.frame.shape[0].compute())
            stages["label counts (read, shuffle by item, count; persisted)"] = (
                time.perf_counter() - t
            )
            t = time.perf_counter()
            res = D.agreement(
                counts, ["fleiss_kappa", "krippendorff_alpha"], levels=("nominal", "ordinal")
            )
            stages["fleiss + alpha nominal + ordinal (+ SE)"] = time.perf_counter() - t
            t = time.perf_counter()
            import dask.dataframe as dd  # noqa: PLC0415

            preds = {m: dd.read_parquet(tmp / f"pred-{m}") for m in ("a", "b")}
            means = D.metric_means(counts, preds, METRICS)
            stages[f"{len(METRICS)} metric columns x 2 models (join + map_partitions)"] = (
                time.perf_counter() - t
            )
            wall = time.perf_counter() - t_all
        print(
            f"\nLocalCluster: 2 worker processes x 1 thread, memory_limit {args.memory_limit} each"
        )
        for name, sec in stages.items():
            print(f"  {name:<62} {sec:8.1f} s")
        print(f"  {'total wall time':<62} {wall:8.1f} s  ({n_ann / wall:,.0f} annotations/s)")
        for w, mb in sorted(mem.peak.items()):
            print(f"  worker {w}: peak sampled RSS {mb:,.0f} MB")
        print(f"  items counted: {n_counted:,}")
        for name, r in res.items():
            print(f"  {name}: {r.statistic:.6f} (se {r.se:.2e})")
        print(means.pivot(index="metric", columns="model", values="mean").round(5).to_string())
        print(f"load average at end: {load()}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def write_csv(path: Path, gb: float, n_items: int, seed: int = 0) -> int:
    rng = np.random.default_rng(seed)
    rows = 0
    chunk = 10_000_000
    with pacsv.CSVWriter(path, pa.schema([("item", pa.int64()), ("label", pa.int8())])) as out:
        while path.stat().st_size < gb * 2**30:
            item = rng.integers(0, n_items, chunk)
            label = (item % K + rng.integers(0, 2, chunk)) % K + 1
            out.write_table(
                pa.table({"item": item, "label": label.astype(np.int8)}),
            )
            rows += chunk
    return rows


def run_stream(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="dissensus-stream-", dir=args.tmp))
    try:
        print(f"load average at start: {load()}; cores: {os.cpu_count()}", flush=True)
        csv = tmp / "annotations.csv"
        t = time.perf_counter()
        rows = write_csv(csv, args.gb, args.items)
        size = csv.stat().st_size / 2**30
        print(
            f"CSV: {size:.2f} GiB, {rows:,} rows, {args.items:,} items; "
            f"written in {time.perf_counter() - t:.0f} s",
            flush=True,
        )
        code = (
            "import sys, time\n"
            "from dissensus.distributed import stream_counts\n"
            "t = time.perf_counter()\n"
            "c = stream_counts(sys.argv[1], scale=[1, 2, 3, 4, 5], batch_size=int(sys.argv[2]))\n"
            "print(time.perf_counter() - t, c.N, int(c.values.sum()))\n"
        )
        wrapper = (
            "import resource, subprocess, sys\n"
            "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
            "sys.stderr.write(done.stderr)\n"
            "print(done.stdout.strip(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
            "sys.exit(done.returncode)\n"
        )
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
        done = subprocess.run(
            [sys.executable, "-c", wrapper, sys.executable, "-c", code, str(csv), str(args.batch)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            print(done.stderr)
            raise SystemExit(done.returncode)
        seconds, n, total, kb = done.stdout.split()
        assert int(total) == rows, (total, rows)
        mb = int(kb) / 1024
        print(
            f"stream_counts: {float(seconds):.0f} s ({size / float(seconds) * 1024:.0f} MiB/s, "
            f"{rows / float(seconds):,.0f} rows/s), {int(n):,} items, every row counted; "
            f"peak RSS of the child {mb:,.0f} MB (goal < 2048 MB: {'OK' if mb < 2048 else 'MISSED'})"
        )
        print(f"load average at end: {load()}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"(this process: peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    c = sub.add_parser("cluster")
    c.add_argument("--annotations", type=int, default=100_000_000)
    c.add_argument("--partitions", type=int, default=None, help="after the shuffle")
    c.add_argument("--shuffle", default="p2p", choices=["p2p", "tasks"])
    c.add_argument("--memory-limit", default="4GB")
    c.add_argument("--tmp", default="/tmp")
    s = sub.add_parser("stream")
    s.add_argument("--gb", type=float, default=10.0)
    s.add_argument("--items", type=int, default=2_000_000)
    s.add_argument("--batch", type=int, default=1_000_000)
    s.add_argument("--tmp", default="/tmp")
    args = ap.parse_args()
    (run_cluster if args.what == "cluster" else run_stream)(args)


if __name__ == "__main__":
    main()
