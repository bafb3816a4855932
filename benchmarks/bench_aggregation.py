"""Annotator models and ICC by REML: dissensus against crowd-kit and statsmodels.

Aggregation: N items, 10 annotators, 3 answers per item, K = 4 labels,
seeded (N = 20,000; 4,000 with --quick). Both libraries run the same number
of EM iterations from the same kind of start (crowd-kit's tolerance
disabled), so the ratio is the cost per iteration. ICC: targets x 6 raters,
20% of ratings missing, REML variance components without interval, against
statsmodels' MixedLM (one-way: groups = targets; fixed raters: ``y ~ C(r)``;
two-way random: crossed variance components in one group, which statsmodels
handles densely, hence its smaller size). Times are the best of several
repeats, contenders interleaved; the load average is printed.

    python benchmarks/bench_aggregation.py [--quick]
"""

# ruff: noqa: E402 -- the BLAS thread setting below must precede the numpy import
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from crowdkit.aggregation import MACE, DawidSkene

from dissensus.aggregation import dawid_skene, mace
from dissensus.agreement import icc
from dissensus.data import Annotations


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def race(contenders: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    best = dict.fromkeys(contenders, float("inf"))
    for _ in range(repeat):
        for name, fn in contenders.items():
            t = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t)
    return best


def crowd(n_items: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    R, K, per = 10, 4, 3
    acc = np.linspace(0.9, 0.3, R)
    truth = rng.integers(0, K, n_items)
    who = np.argsort(rng.random((n_items, R)), axis=1)[:, :per].ravel()
    items = np.repeat(np.arange(n_items), per)
    right = rng.random(items.size) < acc[who]
    answers = np.where(right, truth[items], rng.integers(0, K, items.size))
    df = pd.DataFrame({"task": items, "worker": [f"w{r:02d}" for r in who], "label": answers})
    return df.sort_values(["worker", "label"], kind="stable").reset_index(drop=True)


def ratings(n: int, k: int = 6, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = 1.5 * rng.normal(size=(n, 1)) + rng.normal(size=(1, k)) + rng.normal(size=(n, k))
    x[rng.random((n, k)) < 0.2] = np.nan
    return x


def icc_race(model: str, kind: str, n: int) -> None:
    x = ratings(n)
    ti, ri = np.nonzero(np.isfinite(x))
    long = pd.DataFrame({"y": x[ti, ri], "t": ti, "r": ri, "g": 1})
    formula = {"1,1": "y ~ 1", "C,1": "y ~ C(r)", "A,1": "y ~ 1"}[kind]
    if kind == "A,1":  # crossed: one group, a variance component per factor
        vc = {"t": "0 + C(t)", "r": "0 + C(r)"}
        model_sm = smf.mixedlm(formula, long, groups="g", re_formula="0", vc_formula=vc)
    else:
        model_sm = smf.mixedlm(formula, long, groups="t")
    t = race(
        {
            "dissensus": lambda: icc(x, kind=kind, method="reml"),
            "statsmodels": lambda: model_sm.fit(reml=True),
        },
        repeat=3,
    )
    print(
        f"\nICC {kind} REML ({model}), {n:,} targets x 6 raters, {len(long):,} ratings: "
        f"dissensus {t['dissensus'] * 1e3:.1f} ms, statsmodels MixedLM "
        f"{t['statsmodels'] * 1e3:.1f} ms ({t['statsmodels'] / t['dissensus']:.1f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n_items = 4_000 if args.quick else 20_000
    n_iter = 20
    warnings.simplefilter("ignore")  # ConvergenceWarning by design; pandas chatter of peers
    print(f"BLAS threads {os.environ['OPENBLAS_NUM_THREADS']}; load average {_load()}")

    df = crowd(n_items)
    ann = Annotations.from_frame(df, item="task", annotator="worker", label="label")
    print(f"\naggregation: {n_items:,} items, {len(df):,} answers, {n_iter} EM iterations each")
    t = race(
        {
            "dissensus dawid_skene": lambda: dawid_skene(ann, n_iter=n_iter, tol=0.0),
            "crowd-kit DawidSkene": lambda: DawidSkene(n_iter=n_iter, tol=-1.0).fit(df),
            "dissensus mace": lambda: mace(ann, n_restarts=1, n_iter=n_iter, tol=0.0),
            "crowd-kit MACE": lambda: MACE(n_restarts=1, n_iter=n_iter, method="em").fit(df),
        },
        repeat=3,
    )
    for name, sec in t.items():
        print(f"  {name:24s} {sec * 1e3:9.1f} ms")
    print(f"  Dawid-Skene: {t['crowd-kit DawidSkene'] / t['dissensus dawid_skene']:.1f}x faster")
    print(f"  MACE:        {t['crowd-kit MACE'] / t['dissensus mace']:.1f}x faster")

    for model, kind, size in (("one-way", "1,1", 2_000), ("fixed raters", "C,1", 2_000),
                              ("two-way random", "A,1", 150)):  # fmt: skip
        icc_race(model, kind, size // 4 if args.quick else size)
    print(f"\nload average at end: {_load()}")


if __name__ == "__main__":
    main()
