"""``dissensus simulate``: measure on synthetic data whether expected metrics pick the truly better model."""

from __future__ import annotations

import time
from pathlib import Path

import click

__all__ = ["simulate_command"]


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


@click.command("simulate")
@click.option(
    "--replicates",
    default=200,
    show_default=True,
    type=click.IntRange(min=2),
    help="Synthetic datasets per truth family.",
)
@click.option(
    "--items",
    default=400,
    show_default=True,
    type=click.IntRange(min=10),
    help="Items per dataset.",
)
@click.option(
    "--classes",
    default=5,
    show_default=True,
    type=click.IntRange(min=2),
    help="Number of (ordered) classes.",
)
@click.option(
    "--truths",
    default="mixture,skewed,ordinal",
    show_default=True,
    metavar="NAME,NAME",
    help="Truth families: mixture, ordinal, skewed, flat, uniform, jeffreys.",
)
@click.option(
    "--metrics",
    default="cross_entropy,manhattan,emd",
    show_default=True,
    metavar="NAME,NAME",
    help="Pointwise metrics; each is scored empirically and in expectation (add js_divergence, kl_divergence for more; JS is the slowest).",
)
@click.option(
    "--priors",
    default="uniform,jeffreys,empirical",
    show_default=True,
    metavar="NAME,NAME",
    help="Priors of the expected metrics.",
)
@click.option(
    "--candidates",
    default=None,
    metavar="NAME,NAME",
    help="Candidate models (default: the study's set); any of truth, noisy, tempered, "
    "sharpened, smoothed, overfit, shrunk, marginal, uniform.",
)
@click.option(
    "--debiased",
    is_flag=True,
    default=False,
    help="Also score each metric's debiased form (debiased[<metric>]) and add its table "
    "(Kendall tau, P(best) per bin) and figure to the report.",
)
@click.option(
    "--coverage-replicates",
    default=40,
    show_default=True,
    type=click.IntRange(min=0),
    help="Replicates of the credible-interval coverage check (0: skip).",
)
@click.option(
    "--allocation-replicates",
    default=20,
    show_default=True,
    type=click.IntRange(min=0),
    help="Replicates of the allocation study (0: skip).",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of every random step.")
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for report.html and the CSV tables.",
)
def simulate_command(
    *,
    replicates: int,
    items: int,
    classes: int,
    truths: str,
    metrics: str,
    priors: str,
    candidates: str | None,
    debiased: bool,
    coverage_replicates: int,
    allocation_replicates: int,
    seed: int,
    out: Path,
) -> None:
    """Rank candidate models on synthetic data with KNOWN truth; write the report to --out.

    Prints the main table (share of model pairs ordered as the truth, per
    metric form and annotation-count bin) and the allocation curve.
    """
    from dissensus.simulate import (  # noqa: PLC0415
        DEFAULT_CANDIDATES,
        allocation_study,
        coverage,
        study,
    )
    from dissensus.simulate._report import (  # noqa: PLC0415
        debiased_table,
        main_table,
        write_simulation_report,
    )

    t0 = time.perf_counter()
    prior_names = _names(priors)
    res = study(
        items,
        classes,
        replicates=replicates,
        truths=_names(truths),
        metrics=_names(metrics),
        priors=prior_names,
        candidates=_names(candidates) if candidates else DEFAULT_CANDIDATES,
        debiased=debiased,
        seed=seed,
    )
    cov = (
        coverage(2 * items, classes, replicates=coverage_replicates, priors=prior_names, seed=seed)
        if coverage_replicates
        else None
    )
    alloc = None
    if allocation_replicates:
        from dissensus.simulate._report import best_prior  # noqa: PLC0415

        best = best_prior(res)[0][2:-1] if len(prior_names) else "uniform"
        metric = "E[emd]" if "emd" in _names(metrics) else f"E[{_names(metrics)[0]}]"
        alloc = allocation_study(
            min(300, items),
            classes,
            replicates=allocation_replicates,
            metric=metric,
            prior=best,
            rounds=6,
            seed=seed,
        )
    paths = write_simulation_report(res, out, cov, alloc)
    table = main_table(res)
    click.echo(table.to_string(index=False))
    if debiased:
        click.echo("\ndebiased: Kendall tau with the true ranking, P(pick the truly best)")
        click.echo(debiased_table(res).round(3).to_string(index=False))
    if alloc is not None:
        a = alloc[alloc["estimator"] == "expected"].pivot_table(
            index="spent", columns="strategy", values="p_same_ranking", sort=False
        )
        click.echo("\nallocation: P(exact true ranking) by extra annotations spent")
        click.echo(a.round(3).to_string())
    for kind, path in paths.items():
        click.echo(f"wrote {kind}: {path}")
    click.echo(f"done in {time.perf_counter() - t0:.1f} s", err=True)
