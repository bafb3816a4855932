"""``dissensus plan``: how many items and annotations per item a study needs, from a pilot."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import click
import pandas as pd

from dissensus import simulate as sim
from dissensus.cli import _reader_options as opt

_GOAL_TEXT = {
    "compare": "tell {best} from {runner_up} under {metric} (power {target:g})",
    "agreement": "Krippendorff's alpha ({level}) within ±{target:g}",
    "distribution": "each item's distribution within {measure} {target:g}",
    "all": "every goal above",
}


def parse_annotations(text: str) -> list[int]:
    """``"2,3,5"`` -> ``[2, 3, 5]``; the flag is named when a value is not a whole number >= 1."""
    values = []
    for token in opt.split_names(text):
        try:
            value = int(token)
        except ValueError:
            value = 0
        if value < 1:
            msg = f"--annotations takes whole numbers >= 1 separated by commas (e.g. 2,3,5,10,20); got {token!r}."
            raise click.BadParameter(msg, param_hint="--annotations")
        values.append(value)
    if not values:
        msg = "--annotations needs at least one number of annotations per item (e.g. 2,3,5,10,20)."
        raise click.BadParameter(msg, param_hint="--annotations")
    return values


def _format_value(goal: str, value: float) -> str:
    if math.isnan(value):
        return "-"
    return f"{value:.3f}" if goal in ("compare", "all") else f"{value:.4f}"


def format_plan(result: sim.Plan) -> str:
    """What ``dissensus plan`` prints: per goal, the frontier with the cheapest design marked."""
    s = result.settings
    cal = result.compare
    lines = [f"pilot: {s['pilot_items']} items; fitted prior strength {result.prior.sum():.3g}"]
    if cal is not None:
        lines.append(
            f"compare: {cal.best} vs {cal.runner_up} under {cal.metric}: pilot difference "
            f"{cal.delta:+.4g} (SE {cal.delta_se:.2g}); per-item sd {cal.sd_between:.3g} between "
            f"items, {cal.sd_within:.3g} within (one annotation)"
        )
        if abs(cal.delta) < 2 * cal.delta_se:
            lines.append(
                "  warning: the pilot does not tell the order of these two models (|difference| "
                "< 2 SE): the plan assumes the pilot's difference is the true one."
            )
    if result.agreement:
        lines.append(
            f"agreement: alpha ({result.agreement['level']}) of the calibrated world {result.agreement['value']:.3f}"
        )
    frontier = result.frontier
    for goal in dict.fromkeys(frontier["goal"]):
        part = frontier[frontier["goal"] == goal]
        text = _GOAL_TEXT[goal].format(
            best=cal.best if cal else "",
            runner_up=cal.runner_up if cal else "",
            metric=cal.metric if cal else "",
            level=s["agreement_level"],
            measure=s["error_measure"],
            target=part["target"].iloc[0],
        )
        table = pd.DataFrame(
            {
                "annotations/item": part["annotations_per_item"].astype(str),
                "items": [
                    ("any" if goal == "distribution" else str(n)) if r else "unreached"
                    for n, r in zip(part["n_items"], part["reached"], strict=True)
                ],
                "labels": [
                    "-" if not r else (f"{n}/item" if goal == "distribution" else f"{n:,}")
                    for n, r in zip(part["labels"], part["reached"], strict=True)
                ],
                "achieved": [_format_value(goal, v) for v in part["achieved"]],
                "": ["<- cheapest" if c else "" for c in part["cheapest"]],
            }
        )
        lines += ["", f"{goal}: {text}", table.to_string(index=False)]
    best = result.cheapest(
        "all" if (frontier["goal"] == "all").any() else str(frontier["goal"].iloc[0])
    )
    lines.append("")
    if best is None:
        lines.append(
            "cheapest: no design in --annotations reaches every goal; allow more annotations per item or loosen a target."
        )
    elif best["goal"] == "distribution":
        lines.append(f"cheapest: {best['annotations_per_item']} annotations per item")
    else:
        lines.append(
            f"cheapest: {best['n_items']:,} items x {best['annotations_per_item']} annotations "
            f"= {best['labels']:,} labels"
        )
    return "\n".join(lines)


@click.command("plan")
@click.argument("pilot", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@opt.reader_options
@opt.pred_option(
    help=f"A model's predictions for the pilot items: {opt.PRED_FILES}. Repeat per model: "
    "two or more enable the comparison goal."
)
@opt.pred_reading_options
@opt.option(
    "--goals",
    metavar="NAME,NAME",
    help="compare, agreement, distribution (default: all that the inputs allow).",
)
@opt.option(
    "--metric",
    help="Metric of the comparison, one with an unbiased difference of true "
    "scores: rps, squared_euclidean, cross_entropy, kl_divergence (default: rps on an "
    "ordinal scale of 3+ labels, else squared_euclidean).",
)
@opt.option(
    "--power",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.8,
    help="Power of the comparison.",
)
@opt.option(
    "--significance",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    help="Two-sided level of the comparison's test and of alpha's interval.",
)
@opt.option(
    "--agreement-level",
    type=list(sim.AGREEMENT_LEVELS),
    default="nominal",
    help="Level of Krippendorff's alpha.",
)
@opt.option(
    "--half-width",
    type=click.FloatRange(0, min_open=True),
    default=0.05,
    help="Target half-width of alpha's interval.",
)
@opt.option(
    "--error",
    type=click.FloatRange(0, min_open=True),
    default=0.2,
    help="Target mean error of each item's label distribution.",
)
@opt.option(
    "--error-measure",
    type=list(sim.ERROR_MEASURES),
    default="mean_l1",
    help="mean_l1: mean L1 distance to the truth; max_abs: mean largest class error.",
)
@opt.option(
    "--annotations",
    default="2,3,5,10,20,50",
    metavar="N,N",
    help="Annotations per item of the frontier.",
)
@opt.count_option(
    "--draws",
    default=20_000,
    minimum=100,
    help="Items drawn from the calibrated world (agreement, distribution).",
)
@opt.seed_option
def plan_command(*, pilot: Path, preds: tuple[str, ...], **options: Any) -> None:
    """How many items and annotations per item a study needs, calibrated to PILOT annotations.

    For each number of annotations per item (--annotations), the fewest items
    that (a) tell the best model from the runner-up on the true distribution
    (with two or more --pred), (b) give Krippendorff's alpha within
    --half-width, (c) estimate each item's distribution within --error; the
    cost in labels, and the cheapest design. See dissensus.simulate.plan.
    """
    pred_paths = opt.parse_pred(preds)
    if len(pred_paths) == 1:
        msg = "the comparison needs two or more models: give another --pred NAME=PATH, or none."
        raise click.BadParameter(msg, param_hint="--pred")
    annotations = parse_annotations(options["annotations"])
    goals = opt.split_names(options["goals"]) or None
    for goal in goals or ():
        if goal not in sim.GOALS:
            msg = f"unknown goal {goal!r}; --goals takes {', '.join(sim.GOALS)}."
            raise click.BadParameter(msg, param_hint="--goals")
    if goals and "compare" in goals and not pred_paths:
        msg = "the compare goal needs two or more --pred NAME=PATH."
        raise click.BadParameter(msg, param_hint="--goals")
    pilot_annotations = opt.load_annotations(pilot, **options)
    counts, scale = pilot_annotations.counts(), pilot_annotations.scale
    predictions = (
        {name: opt.load_predictions(p, scale=scale, **options) for name, p in pred_paths.items()}
        if pred_paths
        else None
    )
    if options["metric"] is not None:
        try:
            sim.compare_metric(options["metric"])
        except (KeyError, ValueError) as exc:
            raise click.BadParameter(str(exc).strip("'\""), param_hint="--metric") from None
    result = sim.plan(
        counts,
        predictions,
        goals=goals,
        metric=options["metric"],
        power=options["power"],
        significance=options["significance"],
        agreement_level=options["agreement_level"],
        half_width=options["half_width"],
        error=options["error"],
        error_measure=options["error_measure"],
        annotations=annotations,
        n_draws=options["draws"],
        seed=options["seed"],
    )
    click.echo(format_plan(result))
