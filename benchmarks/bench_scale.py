"""The scale goals of issue 16: a 2-worker LocalCluster run, and streaming counts from a big CSV.

    python benchmarks/bench_scale.py cluster [--annotations 100000000] [--subset 10000000] [--check 1000000]
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
Then the same pipeline on the items of the first ``--subset`` annotations,
in memory (pandas, ``Annotations``, the agreement functions, ``evaluate``)
and on the cluster: values compared, and the per-annotation time of the
full cluster run divided by that of the in-memory run (goal <= 3x). Last,
on ``--check`` annotations: counts compared exactly, and six coefficients
with their standard errors and Poisson-bootstrap intervals compared with
the in-memory ``bootstrap="poisson"`` ones.

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


def on_cluster(source: Path, scale, preds: dict[str, Path], args, filters=None) -> dict:
    """The Dask pipeline: counts, agreement, metric means. Seconds per stage and the results."""
    import dask.dataframe as dd  # noqa: PLC0415

    from dissensus import distributed as D  # noqa: PLC0415

    stages: dict[str, float] = {}
    t_all = t = time.perf_counter()
    ann = dd.read_parquet(source, filters=filters)
    counts = D.label_counts(
        ann, scale=scale, npartitions=args.partitions, shuffle=args.shuffle
    ).persist()
    n_counted = int(counts.frame.shape[0].compute())
    stages["label counts (read, shuffle by item, count; persisted)"] = time.perf_counter() - t
    t = time.perf_counter()
    res = D.agreement(counts, ["fleiss_kappa", "krippendorff_alpha"], levels=("nominal", "ordinal"))
    stages["fleiss + alpha nominal + ordinal (+ SE)"] = time.perf_counter() - t
    t = time.perf_counter()
    frames = {m: dd.read_parquet(p, filters=filters) for m, p in preds.items()}
    means = D.metric_means(counts, frames, METRICS)
    stages[f"{len(METRICS)} metric columns x {len(preds)} models (join + map_partitions)"] = (
        time.perf_counter() - t
    )
    return {
        "stages": stages,
        "wall": time.perf_counter() - t_all,
        "n_items": n_counted,
        "agreement": {k: v.statistic for k, v in res.items()},
        "se": {k: v.se for k, v in res.items()},
        "means": means.set_index(["model", "metric"])["mean"],
    }


def in_memory(source: Path, scale, preds: dict[str, Path], filters=None) -> dict:
    """The same pipeline in this process: pandas, Annotations, the agreement functions, evaluate."""
    from dissensus import evaluate  # noqa: PLC0415
    from dissensus.agreement import fleiss_kappa, krippendorff_alpha  # noqa: PLC0415
    from dissensus.data import Annotations  # noqa: PLC0415

    t = time.perf_counter()
    counts = Annotations.from_frame(pd.read_parquet(source, filters=filters), scale=scale).counts()
    res = {
        "fleiss_kappa": fleiss_kappa(counts),
        "krippendorff_alpha": krippendorff_alpha(counts),
        "krippendorff_alpha_ordinal": krippendorff_alpha(counts, level="ordinal"),
    }
    frames = {m: pd.read_parquet(p, filters=filters).set_index("item") for m, p in preds.items()}
    ev = evaluate(counts, frames, metrics=METRICS)
    means = pd.Series(
        ev.values.mean(axis=-1).T.reshape(-1),  # noqa: PD011  (an ndarray)
        index=pd.MultiIndex.from_product([ev.models, ev.metrics], names=["model", "metric"]),
    )
    return {
        "wall": time.perf_counter() - t,
        "agreement": {k: v.statistic for k, v in res.items()},
        "se": {k: v.se for k, v in res.items()},
        "means": means,
    }


def same(a: dict, b: dict) -> float:
    """Largest relative difference of the agreement values, their SEs and the metric means."""
    worst = 0.0
    for key in ("agreement", "se"):
        for name, x in a[key].items():
            y = b[key][name]
            if np.isnan(x) or np.isnan(y):
                worst = worst if np.isnan(x) and np.isnan(y) else np.inf
                continue
            worst = max(worst, abs(x - y) / max(abs(y), 1e-300))
    m = a["means"].sort_index()
    n = b["means"].reindex(m.index)
    return max(worst, float((abs(m - n) / abs(n)).max()))


def check_equal(source: Path, scale, filters, n_resamples: int = 200) -> None:
    """Dask vs in memory on a subset: counts exactly, statistics, SEs and Poisson intervals."""
    import dask.dataframe as dd  # noqa: PLC0415

    from dissensus import distributed as D  # noqa: PLC0415
    from dissensus.agreement import (  # noqa: PLC0415
        brennan_prediger,
        fleiss_kappa,
        gwet_ac1,
        krippendorff_alpha,
    )
    from dissensus.data import Annotations  # noqa: PLC0415

    t = time.perf_counter()
    mem = Annotations.from_frame(pd.read_parquet(source, filters=filters), scale=scale).counts()
    dist = D.label_counts(dd.read_parquet(source, filters=filters), scale=scale)
    got = dist.collect()
    order = np.argsort(mem.items.to_numpy(), kind="stable")
    exact = bool(
        got.items.equals(mem.items[order]) and np.array_equal(got.values, mem.values[order])  # noqa: PD011
    )
    opts = {"confidence_level": 0.95, "n_resamples": n_resamples, "seed": 0}
    res = D.agreement(dist, levels=("nominal", "ordinal", "interval"), **opts)
    want = {
        "fleiss_kappa": fleiss_kappa(mem, bootstrap="poisson", **opts),
        "gwet_ac1": gwet_ac1(mem, bootstrap="poisson", **opts),
        "brennan_prediger": brennan_prediger(mem, bootstrap="poisson", **opts),
    }
    for lvl in ("nominal", "ordinal", "interval"):
        key = "krippendorff_alpha" + ("" if lvl == "nominal" else f"_{lvl}")
        want[key] = krippendorff_alpha(mem, level=lvl, bootstrap="poisson", **opts)
    worst = {"statistic": 0.0, "se": 0.0, "interval": 0.0}
    for name, w in want.items():
        g = res[name]
        worst["statistic"] = max(worst["statistic"], abs(g.statistic - w.statistic))
        if not (np.isnan(g.se) and np.isnan(w.se)):
            worst["se"] = max(worst["se"], abs(g.se - w.se) / w.se)
        lo, hi = g.confidence_interval
        wlo, whi = w.confidence_interval
        worst["interval"] = max(worst["interval"], abs(lo - wlo), abs(hi - whi))
    n = int(mem.values.sum())  # noqa: PD011
    print(
        f"\nequality check on {n:,} annotations ({mem.N:,} items), {time.perf_counter() - t:.0f} s:"
    )
    print(f"  counts (item ids and every count) identical: {exact}")
    print(
        f"  {len(want)} coefficients ({', '.join(want)}), {n_resamples} Poisson resamples: largest "
        f"|difference| of statistic {worst['statistic']:.1e}, relative of se {worst['se']:.1e}, "
        f"of the 95% interval bounds {worst['interval']:.1e} (goal <= 1e-12: "
        f"{'OK' if exact and max(worst.values()) <= 1e-12 else 'MISSED'})"
    )


def run_cluster(args: argparse.Namespace) -> None:
    from bench_distributed import two_workers  # noqa: PLC0415
    from dask.distributed import Client  # noqa: PLC0415

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
        source = tmp / "annotations"
        preds = {m: tmp / f"pred-{m}" for m in ("a", "b")}
        # the subset: the items of the first ~args.subset annotations (ids are 0 .. n_items - 1)
        sub_items = max(1, round(n_items * min(1.0, args.subset / n_ann)))
        sub = [("item", "<", sub_items)]
        with (
            two_workers(processes=True, memory_limit=args.memory_limit) as cluster,
            Client(cluster) as client,
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("ignore")
            with WorkerMemory(client) as mem:
                full = on_cluster(source, scale, preds, args)
            print(
                f"\nLocalCluster: 2 worker processes x 1 thread, memory_limit {args.memory_limit} each"
            )
            print(f"{n_ann:,} annotations, {full['n_items']:,} items:")
            for name, sec in full["stages"].items():
                print(f"  {name:<62} {sec:8.1f} s")
            rate = n_ann / full["wall"]
            print(f"  {'total wall time':<62} {full['wall']:8.1f} s  ({rate:,.0f} annotations/s)")
            for w, mb in sorted(mem.peak.items()):
                ok = "OK" if mb < 4000 else "MISSED"
                print(f"  worker {w}: peak sampled RSS {mb:,.0f} MB (goal < 4 GB: {ok})")
            for name, v in full["agreement"].items():
                print(f"  {name}: {v:.6f} (se {full['se'][name]:.2e})")
            print(full["means"].unstack("model").round(5).to_string())
            print(f"load average: {load()}", flush=True)
            if not args.subset:
                return
            small = on_cluster(source, scale, preds, args, filters=sub)
            n_sub = int(pd.read_parquet(source, columns=["item"], filters=sub).shape[0])
            mem_run = in_memory(source, scale, preds, filters=sub)
            print(f"\nsubset: {n_sub:,} annotations of {sub_items:,} items")
            rate_mem = n_sub / mem_run["wall"]
            print(
                f"  in memory (pandas, one process): {mem_run['wall']:8.1f} s "
                f"({rate_mem:,.0f} annotations/s)"
            )
            print(
                f"  Dask on the subset:              {small['wall']:8.1f} s "
                f"({n_sub / small['wall']:,.0f} annotations/s)"
            )
            print(
                "  largest relative difference Dask vs in memory: "
                f"{same(small, mem_run):.1e} (goal <= 1e-12)"
            )
            ratio = rate_mem / rate
            print(
                f"  per-annotation time, Dask on all {n_ann:,} / in memory on the subset: "
                f"{ratio:.2f}x (goal <= 3x: {'OK' if ratio <= 3 else 'MISSED'}); on the subset "
                f"alone {small['wall'] / mem_run['wall']:.2f}x",
                flush=True,
            )
            if args.check:
                check_items = max(1, round(n_items * min(1.0, args.check / n_ann)))
                check_equal(source, scale, [("item", "<", check_items)])
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
    c.add_argument(
        "--subset",
        type=int,
        default=10_000_000,
        help="annotations of the in-memory comparison (0: none)",
    )
    c.add_argument(
        "--check",
        type=int,
        default=1_000_000,
        help="annotations of the exact-equality check with Poisson intervals (0: none)",
    )
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
