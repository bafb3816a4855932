"""``dissensus allocate``: which items to send to annotators next, to compare models best."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from dissensus._atomic import check_not_inputs, check_output_dir, write_file_atomically
from dissensus.allocate import next_items
from dissensus.cli import _reader_options as opt

__all__ = ["allocate_command"]


@click.command("allocate")
@click.argument("annotations", type=click.Path(dir_okay=False, path_type=Path))
@opt.reader_options
@opt.prediction_options
@opt.option("--metric", default="E[emd]", help="Metric the models are compared by.")
@opt.count_option("--budget", default=500, minimum=1, help="How many items to send (one annotation each).")  # fmt: skip
@opt.prior_option
@opt.seed_option
@opt.out_option("CSV file for the chosen items (its directory is created).", kind="file")
def allocate_command(
    *, annotations: Path, preds: tuple[str, ...], out: Path, **options: Any
) -> None:
    """Rank the items of ANNOTATIONS by how much one more label would sharpen the comparison.

    Writes ``item, expected_gain, n_annotations, rank`` for the --budget best
    items to --out (the expected reduction in the posterior variance of the
    models' score differences; see dissensus.allocate).
    """
    pred_paths = opt.parse_pred(preds)
    if len(pred_paths) < 2:
        msg = "allocate compares models: give two or more --pred NAME=PATH."
        raise click.BadParameter(msg, param_hint="--pred")
    inputs = [annotations, *pred_paths.values()]
    check_output_dir(out.parent)  # before any work: an unusable --out, or one that is an input
    check_not_inputs([out], inputs)
    counts = opt.load_annotations(annotations, **options).counts()
    predictions = {name: opt.load_predictions(p, **options) for name, p in pred_paths.items()}
    chosen = next_items(
        counts,
        predictions,
        metric=options["metric"],
        budget=min(options["budget"], counts.N),
        prior=opt.parse_prior(options["prior"]),
        seed=options["seed"],
    )
    write_file_atomically(out, chosen.to_csv(index=False, float_format="%.10g"), inputs=inputs)
    gain = chosen["expected_gain"]
    click.echo(
        f"wrote {len(chosen)} items to {out} (expected gain {gain.iloc[0]:.3g} … {gain.iloc[-1]:.3g})"
    )
