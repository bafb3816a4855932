"""``dissensus simulate``: measure on synthetic data whether expected metrics pick the truly better model."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from dissensus import simulate as sim
from dissensus._atomic import locked_dir
from dissensus.cli import _reader_options as opt

__all__ = ["simulate_command"]


@click.command("simulate")
@opt.count_option("--replicates", default=200, minimum=2, help="Synthetic datasets per truth family.")  # fmt: skip
@opt.count_option("--items", default=400, minimum=10, help="Items per dataset.")
@opt.classes_option(default=5)
@opt.option("--truths", default="mixture,skewed,ordinal", metavar="NAME,NAME",
            help="Truth families: mixture, ordinal, skewed, flat, uniform, jeffreys.")  # fmt: skip
@opt.metrics_option(default=("cross_entropy,manhattan,emd",), help="Pointwise metrics; each is "
                    "scored empirically and in expectation (add js_divergence, kl_divergence for "
                    "more; JS is the slowest).")  # fmt: skip
@opt.option("--priors", default="uniform,jeffreys,empirical", metavar="NAME,NAME",
            help="Priors of the expected metrics.")  # fmt: skip
@opt.option("--candidates", metavar="NAME,NAME",
            help="Candidate models (default: the study's set); any of truth, noisy, tempered, "
            "sharpened, smoothed, overfit, shrunk, marginal, uniform.")  # fmt: skip
@opt.option("--debiased", is_flag=True,
            help="Also score each metric's debiased form (debiased[<metric>]) and add its table "
            "(Kendall tau, P(best) per bin) and figure to the report.")  # fmt: skip
@opt.count_option("--coverage-replicates", default=40, minimum=0,
                  help="Replicates of the credible-interval coverage check (0: skip).")  # fmt: skip
@opt.count_option("--allocation-replicates", default=20, minimum=0,
                  help="Replicates of the allocation study (0: skip).")  # fmt: skip
@opt.seed_option
@opt.out_option("Directory for report.html and the CSV tables.")
def simulate_command(*, out: Path, **options: Any) -> None:
    """Rank candidate models on synthetic data with KNOWN truth; write the report to --out.

    Prints the main table (share of model pairs ordered as the truth, per
    metric form and annotation-count bin) and the allocation curve.
    """
    t0 = time.perf_counter()
    items, classes, seed = options["items"], options["classes"], options["seed"]
    metrics, priors = opt.split_names(options["metrics"]), opt.split_names(options["priors"])
    with locked_dir(out):
        truths, candidates = (opt.split_names(options[k]) for k in ("truths", "candidates"))
        res = sim.study(
            items, classes, replicates=options["replicates"], truths=truths, metrics=metrics,
            priors=priors, candidates=candidates or sim.DEFAULT_CANDIDATES, debiased=options["debiased"], seed=seed,
        )  # fmt: skip
        cov = alloc = None
        if n := options["coverage_replicates"]:
            cov = sim.coverage(2 * items, classes, replicates=n, priors=priors, seed=seed)
        if n := options["allocation_replicates"]:
            metric = "E[emd]" if "emd" in metrics else f"E[{metrics[0]}]"
            prior = sim.best_prior(res)[0][2:-1] if priors else "uniform"
            alloc = sim.allocation_study(min(300, items), classes, replicates=n, metric=metric, prior=prior, rounds=6, seed=seed)  # fmt: skip
        paths = sim.write_simulation_report(res, out, cov, alloc)
    click.echo(sim.main_table(res).to_string(index=False))
    if options["debiased"]:
        click.echo("\ndebiased: Kendall tau with the true ranking, P(pick the truly best)")
        click.echo(sim.debiased_table(res).round(3).to_string(index=False))
    if alloc is not None:
        a = alloc[alloc["estimator"] == "expected"].pivot_table(
            index="spent", columns="strategy", values="p_same_ranking", sort=False
        )
        click.echo("\nallocation: P(exact true ranking) by extra annotations spent")
        click.echo(a.round(3).to_string())
    for kind, path in paths.items():
        click.echo(f"wrote {kind}: {path}")
    click.echo(f"done in {time.perf_counter() - t0:.1f} s", err=True)
