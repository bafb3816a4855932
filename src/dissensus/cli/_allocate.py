"""``dissensus allocate``: which items to send to annotators next, to compare models best."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from dissensus.cli._evaluate import _parse_pred
from dissensus.cli._reader_options import (
    load_annotations,
    load_predictions,
    parse_prior,
    prediction_options,
    prior_option,
    reader_options,
)

__all__ = ["allocate_command"]


@click.command("allocate")
@click.argument("annotations", type=click.Path(dir_okay=False, path_type=Path))
@reader_options
@prediction_options
@click.option(
    "--metric", default="E[emd]", show_default=True, help="Metric the models are compared by."
)
@click.option(
    "--budget",
    default=500,
    show_default=True,
    type=click.IntRange(min=1),
    help="How many items to send (one annotation each).",
)
@prior_option
@click.option(
    "--seed", default=0, show_default=True, type=int, help="Seed (Monte Carlo metrics only)."
)
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="CSV file for the chosen items.",
)
def allocate_command(
    *,
    annotations: Path,
    preds: tuple[str, ...],
    pred_layout: str,
    pred_item: str,
    metric: str,
    budget: int,
    prior: str,
    seed: int,
    out: Path,
    **reader: Any,
) -> None:
    """Rank the items of ANNOTATIONS by how much one more label would sharpen the comparison.

    Writes ``item, expected_gain, n_annotations, rank`` for the --budget best
    items to --out (the expected reduction in the posterior variance of the
    models' score differences; see dissensus.allocate).
    """
    from dissensus.allocate import next_items  # noqa: PLC0415

    pred_paths = _parse_pred(preds)
    if len(pred_paths) < 2:
        msg = "allocate compares models: give two or more --pred NAME=PATH."
        raise click.BadParameter(msg, param_hint="--pred")
    data = load_annotations(str(annotations), **reader)
    predictions = {
        name: load_predictions(path, pred_layout=pred_layout, pred_item=pred_item, **reader)
        for name, path in pred_paths.items()
    }
    counts = data.counts()
    chosen = next_items(
        counts,
        predictions,
        metric=metric,
        budget=min(budget, counts.N),
        prior=parse_prior(prior),
        seed=seed,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    chosen.to_csv(out, index=False, float_format="%.10g")
    click.echo(
        f"wrote {len(chosen)} items to {out} (expected gain {chosen['expected_gain'].iloc[0]:.3g} "
        f"… {chosen['expected_gain'].iloc[-1]:.3g})"
    )
