"""Agreement coefficients: dissensus against krippendorff, irrCAC and statsmodels.

Data: N items x 10 raters x 5 categories, 20% of ratings missing, seeded
(N = 100,000; 10,000 with --quick). Every ratio below is measured in this run
on this machine. Times are the best of several repeats.

The wide-input section starts from the table users have (one row per item,
one column per rater, NaN = not rated; a DataFrame and an ndarray) and times
the whole route to the coefficient, against ``krippendorff.alpha(
reliability_data=...)`` and irrCAC on the same table. Its repeats are
interleaved (A, B, C, A, B, C, ...) so that a burst of load on the shared
machine hits every contender alike; the load average is printed.

    python benchmarks/bench_agreement.py [--quick] [--wide-only]
"""

# ruff: noqa: E402 -- the BLAS thread setting below must precede the numpy import
from __future__ import annotations

import os

# One BLAS thread unless the caller says otherwise. On a shared machine (this
# one has 2 cores and many jobs) threaded OpenBLAS turns the (K, N) @ (N,)
# products of the coefficients from ~0.1 ms into tens of ms. Every contender
# runs in this process with the same setting; the value is printed.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

try:  # the peers are optional: `python -m benchmarks` reports them "not installed"
    import krippendorff
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss
except ImportError:  # pragma: no cover - depends on the environment
    krippendorff = sm_fleiss = None

from dissensus import DegenerateAgreementWarning
from dissensus.agreement import (
    brennan_prediger,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    report,
    share_unanimous,
)
from dissensus.agreement._common import patterns
from dissensus.data import Annotations, LabelCounts
from dissensus.stats._bootstrap import pattern_bootstrap_weights

N_RATERS = 10
K = 5
MISSING = 0.2


def best_of(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best = float("inf")
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def make_data(
    n_items: int, seed: int = 0, missing: float = MISSING
) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, K, size=n_items)
    noise = rng.integers(0, K, size=(n_items, N_RATERS))
    R = np.where(rng.random((n_items, N_RATERS)) < 0.5, truth[:, None], noise).astype(float)
    R[rng.random(R.shape) < missing] = np.nan
    X = np.stack([(k == R).sum(axis=1) for k in range(K)], axis=1)
    return R, X


def race(fns: dict[str, Callable[[], Any]], repeat: int) -> dict[str, tuple[float, Any]]:
    """Best time and result of each function, repeats interleaved across functions."""
    best = dict.fromkeys(fns, float("inf"))
    out: dict[str, Any] = {}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            out[name] = fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return {name: (best[name], out[name]) for name in fns}


def wide_section(R: np.ndarray, irr_items: int) -> None:
    """End to end from a wide numeric table (items x raters, NaN missing)."""
    n_items = R.shape[0]
    W = R + 1.0  # labels 1..5, as users store them
    df = pd.DataFrame(W, columns=[f"rater{j}" for j in range(W.shape[1])])
    rel = np.ascontiguousarray(W.T)  # krippendorff wants raters x items
    print(f"\nwide input: {n_items:,} items x {W.shape[1]} raters (DataFrame of float64, NaN missing); "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}")  # fmt: skip

    def ann() -> Annotations:
        return Annotations.from_wide(df, item=None)

    fns: dict[str, Callable[[], Any]] = {
        "Annotations.from_wide(df)": ann,
        "LabelCounts.from_wide(df)": lambda: LabelCounts.from_wide(df),
        "fleiss_kappa(Annotations.from_wide(df))": lambda: fleiss_kappa(ann()).statistic,
        "fleiss_kappa(LabelCounts.from_wide(df))": lambda: (
            fleiss_kappa(LabelCounts.from_wide(df)).statistic
        ),
        "fleiss_kappa(LabelCounts.from_wide(ndarray))": lambda: (
            fleiss_kappa(LabelCounts.from_wide(W)).statistic
        ),
        "alpha nominal (Annotations.from_wide(df))": lambda: krippendorff_alpha(ann()).statistic,
        "alpha nominal (LabelCounts.from_wide(df))": lambda: (
            krippendorff_alpha(LabelCounts.from_wide(df)).statistic
        ),
        "alpha ordinal (Annotations.from_wide(df))": lambda: (
            krippendorff_alpha(ann(), level="ordinal").statistic
        ),
        "alpha ordinal (LabelCounts.from_wide(df))": lambda: (
            krippendorff_alpha(LabelCounts.from_wide(df), level="ordinal").statistic
        ),
        "krippendorff.alpha(reliability_data) nominal": lambda: krippendorff.alpha(
            reliability_data=rel, level_of_measurement="nominal"
        ),
        "krippendorff.alpha(reliability_data) ordinal": lambda: krippendorff.alpha(
            reliability_data=rel, level_of_measurement="ordinal"
        ),
    }
    res = race(fns, 9)
    kn, ko = (
        res["krippendorff.alpha(reliability_data) nominal"][1],
        res["krippendorff.alpha(reliability_data) ordinal"][1],
    )
    assert abs(res["alpha nominal (Annotations.from_wide(df))"][1] - kn) < 1e-10
    assert abs(res["alpha ordinal (LabelCounts.from_wide(df))"][1] - ko) < 1e-10

    # irrCAC: one run each (seconds), on the first irr_items rows of the same frame
    from irrCAC.raw import CAC  # noqa: PLC0415 -- benchmark-only dependency

    sub = df.iloc[:irr_items]
    cats = [1, 2, 3, 4, 5]
    irr = race(
        {
            "irrCAC fleiss": lambda: CAC(sub, categories=cats).fleiss()["est"]["coefficient_value"],
            "irrCAC krippendorff": lambda: CAC(sub, categories=cats).krippendorff()["est"][
                "coefficient_value"
            ],
        },
        1,
    )
    ours_sub = race(
        {
            "fleiss_kappa(LabelCounts.from_wide(df))": lambda: (
                fleiss_kappa(LabelCounts.from_wide(sub)).statistic
            ),
            "fleiss_kappa(Annotations.from_wide(df))": lambda: (
                fleiss_kappa(Annotations.from_wide(sub, item=None)).statistic
            ),
            "alpha nominal (LabelCounts.from_wide(df))": lambda: (
                krippendorff_alpha(LabelCounts.from_wide(sub)).statistic
            ),
            "alpha nominal (Annotations.from_wide(df))": lambda: (
                krippendorff_alpha(Annotations.from_wide(sub, item=None)).statistic
            ),
        },
        9,
    )
    width = max(len(k) for k in [*res, *irr])
    print(f"{'what':<{width}}  {'seconds':>9}  value")
    for name, (t, val) in res.items():
        shown = f"{val:.6f}" if isinstance(val, float) else ""
        print(f"{name:<{width}}  {t:9.4f}  {shown}")
    for name, (t, val) in irr.items():
        print(f"{name + f' ({irr_items:,} items)':<{width}}  {t:9.4f}  {val:.5f}")

    def ratio(theirs: str, ours: str, *, irrcac: bool = False) -> str:
        """Their time over ours (irrCAC against our run on the same items)."""
        t_theirs = (irr if irrcac else res)[theirs][0]
        t_ours = (ours_sub if irrcac else res)[ours][0]
        return f"{t_theirs / t_ours:7.2f}x"

    k_nom = "krippendorff.alpha(reliability_data) nominal"
    k_ord = "krippendorff.alpha(reliability_data) ordinal"
    print("\nwide-input ratios (>1 means dissensus is faster end to end), same run:")
    for route in ("LabelCounts", "Annotations"):
        fk = f"fleiss_kappa({route}.from_wide(df))"
        an = f"alpha nominal ({route}.from_wide(df))"
        ao = f"alpha ordinal ({route}.from_wide(df))"
        print(f"  via {route}.from_wide:")
        print(f"    fleiss_kappa  vs krippendorff(reliability_data) nominal: {ratio(k_nom, fk)}")
        print(f"    alpha nominal vs krippendorff(reliability_data) nominal: {ratio(k_nom, an)}")
        print(f"    alpha ordinal vs krippendorff(reliability_data) ordinal: {ratio(k_ord, ao)}")
        print(f"    fleiss_kappa  vs irrCAC fleiss ({irr_items:,} items):       "
              f"{ratio('irrCAC fleiss', fk, irrcac=True)}")  # fmt: skip
        print(f"    alpha nominal vs irrCAC krippendorff ({irr_items:,} items): "
              f"{ratio('irrCAC krippendorff', an, irrcac=True)}")  # fmt: skip
    print(f"  from an ndarray: fleiss_kappa(LabelCounts.from_wide(W)) vs krippendorff nominal: "
          f"{ratio(k_nom, 'fleiss_kappa(LabelCounts.from_wide(ndarray))')}")  # fmt: skip
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10,000 items instead of 100,000")
    parser.add_argument(
        "--irr-items", type=int, default=100_000, help="items given to irrCAC (a slice if fewer)"
    )
    parser.add_argument(
        "--wide-only", action="store_true", help="only the wide-input (end to end) section"
    )
    args = parser.parse_args()
    n_items = 10_000 if args.quick else 100_000
    # irrCAC is timed on the same items when --irr-items allows (default: all).
    irr_items = min(n_items, args.irr_items)
    R, X = make_data(n_items)
    print(f"data: {n_items:,} items x {N_RATERS} raters x {K} categories, "
          f"{MISSING:.0%} missing, {int(X.sum()):,} ratings")  # fmt: skip
    warnings.simplefilter("ignore", DegenerateAgreementWarning)
    wide_section(R, irr_items)
    if args.wide_only:
        return

    rows: list[tuple[str, float, str]] = []
    t_fk, fk = best_of(lambda: fleiss_kappa(X), 9)
    t_an, an = best_of(lambda: krippendorff_alpha(X), 9)
    t_ao, ao = best_of(lambda: krippendorff_alpha(X, level="ordinal"), 9)
    t_kn, kn = best_of(
        lambda: krippendorff.alpha(value_counts=X, level_of_measurement="nominal"), 9
    )
    t_ko, ko = best_of(
        lambda: krippendorff.alpha(value_counts=X, level_of_measurement="ordinal"), 9
    )
    # statsmodels refuses a varying number of raters: time it on the complete version.
    _, Xc = make_data(n_items, missing=0.0)
    t_sm, sm = best_of(lambda: sm_fleiss(Xc), 9)
    t_fkc, fkc = best_of(lambda: fleiss_kappa(Xc), 9)
    assert abs(sm - fkc.statistic) < 1e-10, (sm, fkc.statistic)
    assert abs(an.statistic - kn) < 1e-10, (an.statistic, kn)
    assert abs(ao.statistic - ko) < 1e-10, (ao.statistic, ko)
    rows += [
        ("dissensus fleiss_kappa", t_fk, f"{fk.statistic:.6f}"),
        ("dissensus alpha nominal", t_an, f"{an.statistic:.6f}"),
        ("dissensus alpha ordinal", t_ao, f"{ao.statistic:.6f}"),
        ("krippendorff.alpha(value_counts) nominal", t_kn, f"{kn:.6f}"),
        ("krippendorff.alpha(value_counts) ordinal", t_ko, f"{ko:.6f}"),
        ("statsmodels fleiss_kappa (complete data)", t_sm, f"{sm:.6f}"),
        ("dissensus fleiss_kappa (complete data)", t_fkc, f"{fkc.statistic:.6f}"),
    ]

    # irrCAC works on the raw (items x raters) frame with pandas row operations.
    from irrCAC.raw import CAC  # noqa: PLC0415 -- benchmark-only dependency

    Rs = R[:irr_items] + 1.0
    Xs = X[:irr_items]
    df = pd.DataFrame(Rs)
    t_if, irf = best_of(lambda: CAC(df, categories=[1, 2, 3, 4, 5]).fleiss()["est"], 1)
    t_ia, ira = best_of(lambda: CAC(df, categories=[1, 2, 3, 4, 5]).krippendorff()["est"], 1)
    t_fk_s, fk_s = best_of(lambda: fleiss_kappa(Xs), 9)
    t_an_s, an_s = best_of(lambda: krippendorff_alpha(Xs), 9)
    rows += [
        (f"irrCAC fleiss ({irr_items:,} items)", t_if, f"{irf['coefficient_value']:.5f}"),
        (f"irrCAC krippendorff ({irr_items:,} items)", t_ia, f"{ira['coefficient_value']:.5f}"),
        (f"dissensus fleiss_kappa ({irr_items:,} items)", t_fk_s, f"{fk_s.statistic:.5f}"),
        (f"dissensus alpha nominal ({irr_items:,} items)", t_an_s, f"{an_s.statistic:.5f}"),
    ]

    # Bootstrap CI of alpha: dissensus (1000 resamples, one multinomial draw) vs a loop
    # of krippendorff calls on resampled items (20 timed, extrapolated to 1000).
    t_bn, bn = best_of(
        lambda: krippendorff_alpha(X).confidence_interval(0.95, n_resamples=1000, seed=1), 2
    )
    t_bo, bo = best_of(
        lambda: krippendorff_alpha(X, level="ordinal").confidence_interval(
            0.95, n_resamples=1000, seed=1
        ),
        2,
    )
    rng = np.random.default_rng(2)

    def kripp_loop() -> list[float]:
        out = []
        for _ in range(20):
            idx = rng.integers(0, n_items, size=n_items)
            out.append(krippendorff.alpha(value_counts=X[idx], level_of_measurement="nominal"))
        return out

    t_loop20, _ = best_of(kripp_loop, 1)
    t_loop = t_loop20 * 50
    rows += [
        (
            "dissensus alpha nominal + 1000-resample CI",
            t_bn,
            f"[{bn.low:.4f}, {bn.high:.4f}]",
        ),
        (
            "dissensus alpha ordinal + 1000-resample CI",
            t_bo,
            f"[{bo.low:.4f}, {bo.high:.4f}]",
        ),
        ("krippendorff loop, 1000 resamples (20 timed x 50)", t_loop, "extrapolated"),
    ]

    # agreement.report with intervals draws the weights once for every coefficient;
    # before, each coefficient drew its own (same cost as calling them one by one).
    t_rep, rep = best_of(lambda: report(X, confidence_level=0.95, n_resamples=1000, seed=1), 2)
    t_sep, _ = best_of(
        lambda: [
            fn(X).confidence_interval(0.95, n_resamples=1000, seed=1)
            for fn in (
                share_unanimous,
                fleiss_kappa,
                krippendorff_alpha,
                gwet_ac1,
                brennan_prediger,
            )
        ],
        2,
    )
    fk_row = rep.set_index("coefficient").loc["fleiss_kappa"]
    rows += [
        (
            "dissensus report, 5 coefficients + CIs (one draw)",
            t_rep,
            f"kappa [{fk_row['ci_low']:.4f}, {fk_row['ci_high']:.4f}]",
        ),
        ("the 5 coefficients + CIs called one by one", t_sep, ""),
    ]
    # the weight generator against Generator.multinomial over the same patterns
    _, mult, _ = patterns(X)
    t_pw, _ = best_of(lambda: pattern_bootstrap_weights(mult, 1000, seed=1), 3)
    t_gm, _ = best_of(
        lambda: np.random.default_rng(1).multinomial(int(mult.sum()), mult / mult.sum(), 1000),
        3,
    )
    rows += [
        (f"pattern_bootstrap_weights ({mult.size:,} patterns, 1000)", t_pw, ""),
        ("Generator.multinomial, same patterns", t_gm, ""),
    ]

    width = max(len(r[0]) for r in rows)
    print(f"\n{'what':<{width}}  {'seconds':>9}  value")
    for name, t, val in rows:
        print(f"{name:<{width}}  {t:9.4f}  {val}")

    scale = n_items / irr_items
    print("\nratios (>1 means dissensus is faster), same run:")
    print(f"  fleiss_kappa   vs krippendorff nominal (value_counts): {t_kn / t_fk:7.2f}x")
    print(f"  alpha nominal  vs krippendorff nominal:                {t_kn / t_an:7.2f}x")
    print(f"  alpha ordinal  vs krippendorff ordinal:                {t_ko / t_ao:7.2f}x")
    print(f"  fleiss_kappa   vs statsmodels (complete data):         {t_sm / t_fkc:7.2f}x")
    print(f"  fleiss_kappa   vs irrCAC fleiss, same {irr_items:,} items:   {t_if / t_fk_s:7.1f}x")
    print(f"  alpha nominal  vs irrCAC krippendorff, same items:     {t_ia / t_an_s:7.1f}x")
    if scale > 1:
        print(f"  (irrCAC on all {n_items:,} items, linear extrapolation x{scale:.0f}: "
              f"fleiss {t_if * scale:.1f} s, alpha {t_ia * scale:.1f} s; not run)")  # fmt: skip
    print(f"  alpha 1000-resample CI vs krippendorff loop (extrap.): {t_loop / t_bn:7.1f}x "
          f"({t_bn:.2f} s vs ~{t_loop:.1f} s)")  # fmt: skip
    print(f"  report CIs, one draw vs one draw per coefficient:      {t_sep / t_rep:7.1f}x")
    print(f"  pattern weights vs Generator.multinomial:              {t_gm / t_pw:7.1f}x")


if __name__ == "__main__":
    main()
