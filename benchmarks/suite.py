"""One benchmark suite: dissensus against its peers, side by side in one process.

    python -m benchmarks [--quick] [--out DIR] [--max-items N] [--sections a,b,...]

Sections (each reuses the data and reference loops of a ``bench_*.py``):

- ``agreement``: Fleiss' kappa, Krippendorff's alpha (nominal, ordinal), Gwet's
  AC1, Brennan-Prediger against krippendorff, statsmodels, irrCAC, the
  ``agreement`` package, crowd-kit and nltk (the slow pure-Python peers on a
  subset, dissensus timed again on the same subset); ICC against pingouin.
- ``metrics``: pointwise metrics against scipy and the ``ot.emd2`` loop of the
  LeWiDi scorer (per-item loops timed on a slice and extrapolated).
- ``expected``: exact expected EMD against the seed paper's Monte Carlo
  (and a vectorised NumPy Monte Carlo) on a slice, extrapolated per item.
- ``evaluation``: ``evaluate(...).summary()`` with its paired bootstrap against
  ``scipy.stats.bootstrap`` on the same per-item scores.
- ``distributed``: the Dask engine on a 2-worker LocalCluster against the
  in-memory path on the same Parquet files.
- ``scaling``: each dissensus stage at 10^3 ... ``--max-items`` items, with the
  fitted log-log slope (1 = linear).
- ``cli``: the ``dissensus`` command's start-up (``--help``, ``--version``) and
  each command's import against ``import numpy, pandas, scipy.stats``
  (``bench_cli.py``: medians of fresh interpreters; ratio = reference / command).

Every row is the best wall time (``time.perf_counter``) of a few repeats;
the ratio column is the peer's time over dissensus' time on the same task and
items (> 1: dissensus is faster). Rows marked "extrapolated" ran on a slice and
were scaled linearly to the section's item count. Peak memory is the peak of
``tracemalloc`` (Python and NumPy allocations; not the RSS) during one extra
run of the same call. A peer that is not installed gets a row saying so. The
load average is printed at the start and the end: the machine may be shared,
so read the ratios, not the seconds.

Writes ``bench.json`` and ``bench.md`` to ``--out`` (default: a new directory
under the system temporary directory, never the repository).
"""

# ruff: noqa: E402 -- BLAS threads are set before numpy is imported
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import contextlib
import datetime as _dt
import importlib
import importlib.metadata
import json
import math
import platform
import sys
import tempfile
import time
import tracemalloc
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import dissensus

#: Peers: import name -> distribution name (for versions).
PEERS = {
    "krippendorff": "krippendorff",
    "statsmodels": "statsmodels",
    "irrCAC": "irrCAC",
    "agreement": "agreement",
    "disagree": "disagree",
    "crowdkit": "crowd-kit",
    "nltk": "nltk",
    "pingouin": "pingouin",
    "ot": "POT",
    "scipy": "scipy",
    "dask": "dask",
}
#: Why a peer is absent when we know (checked with ``pip download --no-deps``).
KNOWN_ABSENT = {
    "disagree": "not installed: the only PyPI wheel (disagree 1.2.7) contains no Python "
    "modules, so it cannot be benchmarked from PyPI",
}
SECTIONS = ("agreement", "metrics", "expected", "evaluation", "distributed", "scaling", "cli")


@dataclass
class Row:
    """One timed call."""

    section: str
    task: str
    tool: str
    n_items: int
    seconds: float | None = None
    peak_mb: float | None = None
    value: str = ""
    ratio: float | None = None  # peer seconds / dissensus seconds on the same task
    note: str = ""


@dataclass
class Report:
    """Everything the suite measured."""

    meta: dict[str, Any]
    rows: list[Row] = field(default_factory=list)
    scaling: list[dict[str, Any]] = field(default_factory=list)
    slopes: dict[str, float] = field(default_factory=dict)


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def peer(name: str) -> Any:
    """The peer module, or None if it cannot be imported."""
    try:
        return importlib.import_module(name)
    except Exception:  # a broken peer counts as absent
        return None


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def peak_mb(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def fmt_value(v: Any) -> str:
    if isinstance(v, float | np.floating):
        return f"{float(v):.6g}"
    return "" if v is None else str(v)


class Section:
    """Collects rows of one section; the first dissensus row of a task is its baseline."""

    def __init__(self, report: Report, name: str, *, memory: bool) -> None:
        self.report, self.name, self.memory = report, name, memory
        self.base: dict[str, float] = {}

    def run(
        self,
        task: str,
        tool: str,
        fn: Callable[[], Any],
        *,
        n_items: int,
        repeat: int = 3,
        scale: float = 1.0,
        scale_note: str | None = None,
        note: str = "",
        module: str | None = None,
    ) -> Any:
        """Time ``fn`` (``scale`` > 1: ran on a slice, seconds extrapolated)."""
        row = Row(self.name, task, tool, n_items, note=note)
        if module is not None and peer(module) is None:
            row.note = KNOWN_ABSENT.get(module, "not installed")
            self.report.rows.append(row)
            return None
        try:
            seconds, out = timed(fn, repeat)
        except Exception as exc:  # a peer's failure is a result
            if tool == "dissensus":
                raise
            row.note = f"failed: {type(exc).__name__}: {' '.join(str(exc).split())[:120]}"
            self.report.rows.append(row)
            return None
        row.seconds = seconds * scale
        if scale != 1.0:
            row.note = (row.note + "; " if row.note else "") + (
                scale_note or f"extrapolated: ran on {round(n_items / scale):,} items, x{scale:g}"
            )
        if self.memory:
            row.peak_mb = peak_mb(fn)
        value = out.statistic if hasattr(out, "statistic") else out
        if isinstance(value, dict):
            row.value = ", ".join(f"{k}={fmt_value(v)}" for k, v in value.items())
        else:
            row.value = fmt_value(value) if np.ndim(value) == 0 else ""
        if tool.startswith("dissensus"):
            self.base.setdefault(task, row.seconds)
        elif task in self.base and row.seconds:
            row.ratio = row.seconds / self.base[task]
        self.report.rows.append(row)
        return out

    def absent(self, task: str, tool: str, n_items: int, module: str) -> None:
        """A row for a peer that offers nothing to run (or is not installed)."""
        note = KNOWN_ABSENT.get(module, "not installed")
        self.report.rows.append(Row(self.name, task, tool, n_items, note=note))


# --------------------------------------------------------------------------- sections


def section_agreement(rep: Report, *, quick: bool, memory: bool) -> None:
    from benchmarks import bench_agreement as BA  # noqa: PLC0415
    from dissensus.agreement import (  # noqa: PLC0415
        brennan_prediger,
        fleiss_kappa,
        gwet_ac1,
        icc,
        krippendorff_alpha,
    )

    S = Section(rep, "agreement", memory=memory)
    n = 2_000 if quick else 100_000
    sub = 200 if quick else 2_000  # pure-Python peers
    R, X = BA.make_data(n)
    _, Xc = BA.make_data(n, missing=0.0)
    Rs, Xs = R[:sub], X[:sub]
    wide = pd.DataFrame(Rs + 1.0)
    cats = [1, 2, 3, 4, 5]
    kr, ag = peer("krippendorff"), peer("agreement")

    def long_frame(Rm: np.ndarray) -> pd.DataFrame:
        item, rater = np.nonzero(np.isfinite(Rm))
        return pd.DataFrame({"task": item, "worker": rater, "label": Rm[item, rater].astype(int)})

    # Fleiss' kappa
    t = "fleiss_kappa"
    S.run(t, "dissensus", lambda: fleiss_kappa(X), n_items=n)
    S.run(t + " (complete data)", "dissensus", lambda: fleiss_kappa(Xc), n_items=n)
    sm = peer("statsmodels.stats.inter_rater")
    S.run(
        t + " (complete data)",
        "statsmodels",
        lambda: sm.fleiss_kappa(Xc),  # type: ignore[union-attr]
        n_items=n,
        module="statsmodels",
        note="refuses missing ratings",
    )
    t_sub = f"fleiss_kappa ({sub:,}-item subset)"
    S.run(t_sub, "dissensus", lambda: fleiss_kappa(Xs), n_items=sub)
    irr = peer("irrCAC.raw")
    S.run(
        t_sub,
        "irrCAC",
        lambda: irr.CAC(wide, categories=cats).fleiss()["est"]["coefficient_value"],  # type: ignore[union-attr]
        n_items=sub,
        repeat=1,
        module="irrCAC",
    )
    nl = peer("nltk.metrics.agreement")

    def nltk_task(Rm: np.ndarray = Rs) -> Any:
        df = long_frame(Rm)
        return nl.AnnotationTask(  # type: ignore[union-attr]
            data=list(zip(df["worker"], df["task"], df["label"], strict=True))
        )

    Rc, Xcs = BA.make_data(sub, missing=0.0)
    t_sub = f"fleiss_kappa (complete data, {sub:,}-item subset)"
    S.run(t_sub, "dissensus", lambda: fleiss_kappa(Xcs), n_items=sub)
    S.run(t_sub, "nltk multi_kappa", lambda: nltk_task(Rc).multi_kappa(), n_items=sub, repeat=1,
          module="nltk", note="Davies-Fleiss kappa (a different chance model); refuses "
          "missing ratings")  # fmt: skip

    # Krippendorff's alpha
    for level in ("nominal", "ordinal"):
        t = f"krippendorff_alpha {level}"
        S.run(t, "dissensus", lambda level=level: krippendorff_alpha(X, level=level), n_items=n)
        S.run(
            t,
            "krippendorff (value_counts)",
            lambda level=level: kr.alpha(value_counts=X, level_of_measurement=level),  # type: ignore[union-attr]
            n_items=n,
            module="krippendorff",
        )
    S.run(
        "krippendorff_alpha nominal",
        "agreement",
        lambda: ag.metrics.krippendorffs_alpha(X),  # type: ignore[union-attr]
        n_items=n,
        module="agreement",
    )
    S.absent("krippendorff_alpha nominal", "disagree", n, "disagree")
    t_sub = f"krippendorff_alpha nominal ({sub:,}-item subset)"
    S.run(t_sub, "dissensus", lambda: krippendorff_alpha(Xs), n_items=sub)
    S.run(
        t_sub,
        "irrCAC",
        lambda: irr.CAC(wide, categories=cats).krippendorff()["est"]["coefficient_value"],  # type: ignore[union-attr]
        n_items=sub,
        repeat=1,
        module="irrCAC",
    )
    S.run(t_sub, "nltk alpha", lambda: nltk_task().alpha(), n_items=sub, repeat=1, module="nltk")
    ck = peer("crowdkit.metrics.data")
    S.run(
        t_sub,
        "crowd-kit alpha_krippendorff",
        lambda: ck.alpha_krippendorff(long_frame(Rs)),  # type: ignore[union-attr]
        n_items=sub,
        repeat=1,
        module="crowdkit",
    )

    # Gwet's AC1 and Brennan-Prediger
    for name, fn, irr_name, ag_name in (
        ("gwet_ac1", gwet_ac1, "gwet", "gwets_gamma"),
        ("brennan_prediger", brennan_prediger, "bp", "s_score"),
    ):
        S.run(name, "dissensus", lambda fn=fn: fn(X), n_items=n)
        S.run(
            name,
            "agreement",
            lambda a=ag_name: getattr(ag.metrics, a)(X),  # type: ignore[union-attr]
            n_items=n,
            module="agreement",
        )
        t_sub = f"{name} ({sub:,}-item subset)"
        S.run(t_sub, "dissensus", lambda fn=fn: fn(Xs), n_items=sub)
        S.run(
            t_sub,
            "irrCAC",
            lambda m=irr_name: getattr(irr.CAC(wide, categories=cats), m)()["est"][  # type: ignore[union-attr]
                "coefficient_value"
            ],
            n_items=sub,
            repeat=1,
            module="irrCAC",
        )

    # ICC(A,1) on complete interval ratings
    n_icc = 300 if quick else 20_000
    rng = np.random.default_rng(5)
    target = rng.normal(size=(n_icc, 1))
    ratings = target + rng.normal(0.0, 0.7, size=(n_icc, 6)) + rng.normal(0, 0.3, size=(1, 6))
    long_icc = pd.DataFrame(
        {
            "targets": np.repeat(np.arange(n_icc), 6),
            "raters": np.tile(np.arange(6), n_icc),
            "ratings": ratings.ravel(),
        }
    )
    t = "icc A,1 (ICC2)"
    S.run(t, "dissensus", lambda: icc(ratings, kind="A,1"), n_items=n_icc)
    pg = peer("pingouin")
    S.run(
        t,
        "pingouin intraclass_corr",
        lambda: float(
            pg.intraclass_corr(  # type: ignore[union-attr]
                long_icc, targets="targets", raters="raters", ratings="ratings"
            )
            .set_index("Type")
            .loc["ICC(A,1)", "ICC"]
        ),
        n_items=n_icc,
        repeat=1,
        module="pingouin",
    )


def section_metrics(rep: Report, *, quick: bool, memory: bool) -> None:
    from scipy.spatial.distance import jensenshannon  # noqa: PLC0415
    from scipy.stats import entropy as scipy_entropy  # noqa: PLC0415

    from benchmarks import bench_metrics as BM  # noqa: PLC0415
    from dissensus.metrics import entropy, get_metric  # noqa: PLC0415

    S = Section(rep, "metrics", memory=memory)
    n = 20_000 if quick else 1_000_000
    m = 200 if quick else 2_000
    rng = np.random.default_rng(20250601)
    p = rng.dirichlet(np.ones(BM.K), size=n)
    q = rng.dirichlet(np.ones(BM.K), size=n)
    emd = get_metric("emd").func
    t = "emd (unnormalised)"
    S.run(t, "dissensus", lambda: float(emd(p, q, normalized_distance=False).mean()), n_items=n)
    S.run(
        t,
        "ot.emd2 loop (LeWiDi scorer)",
        lambda: float(BM.emd2_loop(p[:m], q[:m]).mean()),
        n_items=n,
        repeat=1,
        scale=n / m,
        module="ot",
    )
    S.run(
        t,
        "scipy wasserstein_distance loop",
        lambda: float(BM.scipy_wasserstein_loop(p[:m], q[:m]).mean()),
        n_items=n,
        repeat=1,
        scale=n / m,
    )
    js = get_metric("js_distance").func
    S.run("js_distance", "dissensus", lambda: float(js(p, q).mean()), n_items=n)
    S.run(
        "js_distance",
        "scipy jensenshannon(axis=1)",
        lambda: float(jensenshannon(p, q, axis=1).mean()),
        n_items=n,
    )
    kl = get_metric("kl_divergence").func
    S.run("kl_divergence", "dissensus", lambda: float(kl(p, q).mean()), n_items=n)
    S.run(
        "kl_divergence",
        "scipy entropy(p, q, axis=1)",
        lambda: float(scipy_entropy(p, q, axis=1).mean()),
        n_items=n,
    )
    S.run("entropy", "dissensus", lambda: float(entropy(p).mean()), n_items=n)
    S.run(
        "entropy",
        "scipy entropy(p, axis=1)",
        lambda: float(scipy_entropy(p, axis=1).mean()),
        n_items=n,
    )


def section_expected(rep: Report, *, quick: bool, memory: bool) -> None:
    from benchmarks import bench_expected as BE  # noqa: PLC0415
    from dissensus.metrics import expected as E  # noqa: PLC0415

    S = Section(rep, "expected", memory=memory)
    n = 20_000 if quick else 1_000_000
    n_mc, n_seed, draws = (50, 1, 100) if quick else (2_000, 5, 1_000)
    alpha, q = BE.make_data(n, 5)
    t = "E[emd], alpha = counts + 1"
    S.run(t, "dissensus (exact)", lambda: float(E.emd(alpha, q).mean()), n_items=n)
    # the base of the ratios is the exact row
    S.base[t] = rep.rows[-1].seconds or math.nan
    S.run(
        t,
        f"numpy Monte Carlo ({draws} draws/item)",
        lambda: float(BE.numpy_mc_emd(alpha[:n_mc], q[:n_mc], draws)[0].mean()),
        n_items=n,
        repeat=1,
        scale=n / n_mc,
    )
    S.run(
        t,
        f"seed's Monte Carlo (scipy wasserstein per draw, {draws} draws/item)",
        lambda: float(BE.seed_mc_emd(alpha[:n_seed], q[:n_seed], draws)[0].mean()),
        n_items=n,
        repeat=1,
        scale=n / n_seed,
    )
    for name, fn in (("E[js_divergence]", E.js_divergence), ("E[cross_entropy]", E.cross_entropy)):
        S.run(name, "dissensus (exact)", lambda fn=fn: float(fn(alpha, q).mean()), n_items=n)


def section_evaluation(rep: Report, *, quick: bool, memory: bool) -> None:
    from scipy import stats  # noqa: PLC0415

    from benchmarks import bench_evaluation as BV  # noqa: PLC0415
    from dissensus.evaluation import evaluate  # noqa: PLC0415

    S = Section(rep, "evaluation", memory=memory)
    n, B, models = (2_000, 100, 2) if quick else (200_000, 1_000, 4)
    metrics = ["cross_entropy", "emd", "E[emd]"]
    lc, preds = BV.make_data(n, models, 5)
    ev = evaluate(lc, preds, metrics=metrics, seed=0)
    t = f"mean + 95% bootstrap CI of {models} models x {len(metrics)} metrics, {B} resamples"
    S.run(
        t,
        "dissensus evaluate().summary()",
        lambda: evaluate(lc, preds, metrics=metrics, seed=0).summary(n_resamples=B).shape[0],
        n_items=n,
        repeat=1 if not quick else 2,
        note="includes computing the metrics",
    )
    series = _score_series(ev)
    first = series[0]
    rng = np.random.default_rng(0)

    def scipy_one() -> float:
        res = stats.bootstrap(
            (first,),
            np.mean,
            vectorized=True,
            n_resamples=B,
            method="percentile",
            rng=rng,
            batch=max(1, 50_000_000 // (8 * n)),
        )
        return float(res.confidence_interval.low)

    S.run(
        t,
        "scipy.stats.bootstrap, one per series",
        scipy_one,
        n_items=n,
        repeat=1,
        scale=float(len(series)),
        scale_note=f"extrapolated: one series timed, x{len(series)} series",
        note="metric values not included",
    )


def _score_series(ev: Any) -> list[np.ndarray]:
    """Per-item score series of an evaluation, one per (metric, model)."""
    values = np.asarray(ev.values, dtype=np.float64)  # (metrics, models, items)
    return list(values.reshape(-1, values.shape[-1]))


def section_distributed(rep: Report, *, quick: bool, memory: bool) -> None:
    S = Section(rep, "distributed", memory=False)
    dist = peer("dask.distributed")
    n = 20_000 if quick else 10_000_000
    t = f"counts + fleiss + alpha (nominal, ordinal), {n:,} annotations in 8 Parquet files"
    if dist is None:
        S.absent(t, "dissensus dask engine", n // 10, "dask")
        return
    from benchmarks import bench_distributed as BD  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp)
        BD.write_data(path, n)
        want = S.run(
            t, "dissensus in memory (pandas)", lambda: BD.in_memory(path), n_items=n // 10, repeat=1
        )
        S.base[t] = rep.rows[-1].seconds or math.nan
        with (
            BD.two_workers() as cluster,
            dist.Client(cluster),
            warnings.catch_warnings(),
            _quiet_dask(),
        ):
            warnings.simplefilter("ignore")
            for method in ("p2p", "tasks"):
                got = S.run(
                    t,
                    f"dissensus dask, 2 workers, {method} shuffle",
                    lambda method=method: BD.on_dask(path, shuffle=method),
                    n_items=n // 10,
                    repeat=1,
                    note="ratio = dask / in-memory time (goal <= 3); values equal to 1e-12",
                )
                last = rep.rows[-1]
                if last.seconds is not None:
                    last.ratio = last.seconds / S.base[t]
                for name, w in want.items():
                    assert abs(got[name] - w) <= 1e-12, (method, name, got[name], w)


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    import logging  # noqa: PLC0415

    log = logging.getLogger("distributed")
    old = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(old)


def section_scaling(rep: Report, *, quick: bool, max_items: int) -> None:
    from dissensus.agreement import fleiss_kappa, krippendorff_alpha  # noqa: PLC0415
    from dissensus.data import Annotations, Scale  # noqa: PLC0415
    from dissensus.metrics import expected as E  # noqa: PLC0415
    from dissensus.metrics import get_metric  # noqa: PLC0415
    from dissensus.stats._paired import resample_means  # noqa: PLC0415

    sizes = [10**e for e in range(3, 8) if 10**e <= max_items]
    scale = Scale.ordinal([1, 2, 3, 4, 5])
    emd = get_metric("emd").func
    per_item = 5
    B = 100
    for n in sizes:
        rng = np.random.default_rng(n)
        centre = np.repeat(rng.integers(1, 6, n), per_item)
        df = pd.DataFrame(
            {
                "item": np.repeat(np.arange(n), per_item),
                "label": np.clip(centre + rng.integers(-1, 2, n * per_item), 1, 5),
            }
        )
        repeat = 3 if n <= 100_000 else 1
        stages: dict[str, Callable[[], Any]] = {}
        holder: dict[str, Any] = {}

        def counts(df: pd.DataFrame = df, holder: dict[str, Any] = holder) -> Any:
            holder["X"] = Annotations.from_frame(df, annotator=None, scale=scale).counts()
            return holder["X"]

        stages["counts (Annotations.from_frame -> counts)"] = counts
        stages["fleiss_kappa"] = lambda h=holder: fleiss_kappa(h["X"])
        stages["krippendorff_alpha ordinal"] = lambda h=holder: krippendorff_alpha(
            h["X"], level="ordinal"
        )
        q = rng.dirichlet(np.ones(5), size=n)
        stages["emd (pointwise)"] = lambda q=q, h=holder: emd(h["X"].proportions(), q)
        stages["E[emd] (exact expected)"] = lambda q=q, h=holder: E.emd(
            h["X"].values + 1.0,  # noqa: PD011 -- LabelCounts
            q,
        )
        series = rng.random((2, n))
        stages[f"paired bootstrap means ({B} resamples, 2 series)"] = lambda s=series: (
            resample_means(s, B, seed=0)
        )
        for stage, fn in stages.items():
            seconds, _ = timed(fn, repeat)
            rep.scaling.append({"stage": stage, "n_items": n, "seconds": seconds})
    frame = pd.DataFrame(rep.scaling)
    for stage, g in frame.groupby("stage", sort=False):
        if len(g) >= 2:
            slope = np.polyfit(np.log10(g["n_items"]), np.log10(g["seconds"]), 1)[0]
            rep.slopes[str(stage)] = float(slope)


def section_cli(rep: Report, *, quick: bool, memory: bool) -> None:
    """Fresh interpreters: no memory column (tracemalloc sees this process only)."""
    from benchmarks import bench_cli as BC  # noqa: PLC0415

    commands = ["info", "evaluate"] if quick else list(BC.SUMMARIES)
    timings = BC.measure(commands, repeat=1 if quick else 5)
    ref = BC.reference_seconds(timings)
    for t in timings:
        tool = (
            "reference" if t.kind == "reference" else "python" if t.kind == "scale" else "dissensus"
        )
        row = Row("cli", t.task, tool, 0, seconds=t.seconds, note=t.note)
        if t.kind == "start-up" and t.seconds is not None:
            row.note = f"goal <= {BC.GOAL_SECONDS} s"
        elif t.kind == "command" and t.seconds is not None and ref is not None:
            row.ratio = ref / t.seconds  # the suite's convention: other / dissensus
            row.note = f"{t.seconds / ref:.2f}x the reference (goal <= {BC.GOAL_RATIO}x)"
        rep.rows.append(row)


# --------------------------------------------------------------------------- output


def markdown(rep: Report) -> str:
    m = rep.meta
    lines = [
        "# dissensus benchmark suite",
        "",
        f"- date: {m['date']}; quick: {m['quick']}; command: `{m['command']}`",
        f"- machine: {m['cpus']} CPUs, {m['platform']}; BLAS threads: {m['blas_threads']}",
        f"- load average (1, 5, 15 min): start {m['load_start']}, end {m['load_end']}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items()),
        "- times: best of repeats, wall clock; ratio = peer seconds / dissensus seconds on "
        "the same task and items (> 1: dissensus is faster); 'extrapolated' rows ran on a "
        "slice and were scaled linearly.",
        f"- peak memory: {m['memory_method']}",
        "",
    ]
    for section in dict.fromkeys(r.section for r in rep.rows):
        lines += [
            f"## {section}",
            "",
            "| task | tool | items | seconds | ratio | peak MB | value | note |",
            "|---|---|---:|---:|---:|---:|---|---|",
        ]
        for r in rep.rows:
            if r.section != section:
                continue
            sec = "" if r.seconds is None else f"{r.seconds:.4g}"
            ratio = "" if r.ratio is None else f"{r.ratio:.3g}x"
            mb = "" if r.peak_mb is None else f"{r.peak_mb:.1f}"
            lines.append(
                f"| {r.task} | {r.tool} | {r.n_items:,} | {sec} | {ratio} | {mb} | {r.value} "
                f"| {r.note} |"
            )
        lines.append("")
    if rep.scaling:
        frame = pd.DataFrame(rep.scaling).pivot(index="stage", columns="n_items", values="seconds")
        frame = frame.loc[list(dict.fromkeys(s["stage"] for s in rep.scaling))]
        lines += ["## scaling (seconds per stage; slope of log time on log items)", ""]
        cols = list(frame.columns)
        lines.append("| stage | " + " | ".join(f"{c:,}" for c in cols) + " | slope |")
        lines.append("|---|" + "---:|" * (len(cols) + 1))
        for stage, row in frame.iterrows():
            slope = rep.slopes.get(str(stage))
            cells = " | ".join("" if pd.isna(v) else f"{v:.4g}" for v in row)
            lines.append(f"| {stage} | {cells} | {'' if slope is None else f'{slope:.2f}'} |")
        lines.append("")
    return "\n".join(lines)


def run(argv: list[str] | None = None) -> Report:
    """Run the suite; print the Markdown and write ``bench.json`` and ``bench.md``."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small data, the same code paths")
    ap.add_argument("--out", type=Path, default=None, help="output directory (default: a temp dir)")
    ap.add_argument(
        "--max-items", type=int, default=None, help="largest size of the scaling curve (10^7)"
    )
    ap.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated sections")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc runs")
    args = ap.parse_args(argv)
    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        ap.error(f"unknown section(s) {unknown}; choose from {list(SECTIONS)}")
    max_items = args.max_items or (10_000 if args.quick else 10_000_000)
    versions = {
        "python": platform.python_version(),
        "dissensus": getattr(dissensus, "__version__", "?"),
        "numpy": np.__version__,
        "pandas": pd.__version__,
    }
    for dist in PEERS.values():
        versions[dist] = version(dist) or "not installed"
    rep = Report(
        meta={
            "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "quick": args.quick,
            "command": " ".join(
                ["python -m benchmarks", *(argv if argv is not None else sys.argv[1:])]
            ),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
            "load_start": load(),
            "versions": versions,
            "memory_method": "not measured (--no-memory)"
            if args.no_memory
            else "tracemalloc peak (Python + NumPy allocations, not RSS) of one extra run",
            "sections": sections,
            "max_items": max_items,
        }
    )
    print(f"dissensus benchmark suite; load average {rep.meta['load_start']}; "
          f"{os.cpu_count()} CPUs", flush=True)  # fmt: skip
    memory = not args.no_memory
    for name in sections:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name == "scaling":
                section_scaling(rep, quick=args.quick, max_items=max_items)
            else:
                globals()[f"section_{name}"](rep, quick=args.quick, memory=memory)
        print(f"  {name}: {time.perf_counter() - t0:.1f} s", flush=True)
    rep.meta["load_end"] = load()
    text = markdown(rep)
    out = args.out or Path(tempfile.mkdtemp(prefix="dissensus-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.md").write_text(text + "\n", encoding="utf-8")
    payload = {
        "meta": rep.meta,
        "rows": [asdict(r) for r in rep.rows],
        "scaling": rep.scaling,
        "slopes": rep.slopes,
    }
    (out / "bench.json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print()
    print(text)
    print(f"wrote {out / 'bench.json'} and {out / 'bench.md'}")
    return rep
