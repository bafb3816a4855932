"""Regenerate the tables of docs/priors.md: which Dirichlet prior ranks models closest to the truth.

Run from the repository root (about 10 minutes on two cores)::

    PYTHONPATH=src python docs/priors_study.py > /tmp/priors_tables.md

Prints Markdown: the share of model pairs that the expected metrics (under
each prior) and the empirical metrics order as the truth orders them, per
truth family and annotation-count bin (mean over the study's metrics and
replicates, with the largest Monte Carlo standard error of the cells
averaged), then the count of (truth, metric, bin) cells each prior wins, and
the fitted priors' strengths.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from dissensus.simulate import study

REPLICATES = 100
N_ITEMS = 1000
TRUTHS = ("mixture", "ordinal", "skewed", "flat")
PRIORS = ("uniform", "jeffreys", "empirical", "hierarchical")


def main() -> None:
    """Run the study and print the Markdown tables."""
    t0 = time.perf_counter()
    res = study(N_ITEMS, 5, replicates=REPLICATES, truths=TRUTHS, priors=PRIORS, seed=2026)
    rk = res.rankings
    est = ["empirical", *(f"E[{p}]" for p in PRIORS)]
    print(
        f"study(n_items={N_ITEMS}, n_classes=5, replicates={REPLICATES}, truths={TRUTHS}, "
        f"priors={PRIORS}, seed=2026): {time.perf_counter() - t0:.0f} s\n"
    )
    print("### Share of model pairs ordered as the truth orders them (mean over 5 metrics)\n")
    wide = rk.pivot_table(
        index=["truth", "bin"], columns="estimator", values="p_pairs_correct", sort=False
    )[est]
    se = rk.pivot_table(
        index=["truth", "bin"],
        columns="estimator",
        values="se_pairs_correct",
        aggfunc="max",
        sort=False,
    )[est]
    print("| truth | bin | " + " | ".join(est) + " | max MC se |")
    print("|---|---|" + "---|" * (len(est) + 1))
    for (truth, b), row in wide.iterrows():
        cells = " | ".join(f"{v:.3f}" for v in row)
        print(f"| {truth} | {b} | {cells} | {se.loc[(truth, b)].max():.3f} |")
    print("\n### Mean over truth families (bin 'all')\n")
    allb = wide.xs("all", level="bin")
    print("| estimator | mean | worst family |")
    print("|---|---|---|")
    for e in est:
        print(f"| {e} | {allb[e].mean():.3f} | {allb[e].min():.3f} ({allb[e].idxmin()}) |")
    print("\n### Cells won among the priors ((truth, metric, bin) cells, ties shared)\n")
    cells = rk[rk["form"] == "expected"].pivot_table(
        index=["truth", "metric", "bin"], columns="estimator", values="p_pairs_correct"
    )[est[1:]]
    best = cells.to_numpy() >= cells.max(axis=1).to_numpy()[:, None] - 1e-12
    wins = best / best.sum(axis=1, keepdims=True)
    print("| prior | cells won | of |")
    print("|---|---|---|")
    for j, e in enumerate(est[1:]):
        print(f"| {e} | {wins[:, j].sum():.1f} | {len(cells)} |")
    j_ge_u = float(np.mean(cells["E[jeffreys]"] >= cells["E[uniform]"]))
    h_ge_j = float(np.mean(cells["E[hierarchical]"] >= cells["E[jeffreys]"]))
    print(
        f"\nE[jeffreys] >= E[uniform] in {j_ge_u:.0%} of cells; "
        f"E[hierarchical] >= E[jeffreys] in {h_ge_j:.0%}.\n"
    )
    print("### Fitted prior strengths (over replicates)\n")
    ps = res.prior_strength
    print("| " + " | ".join(ps.columns) + " |")
    print("|" + "---|" * len(ps.columns))
    for row in ps.itertuples(index=False):
        print("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in row) + " |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
