"""``dissensus tendency``: does a model reproduce who agrees with whom? (DIC, seed 003)."""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import click
import numpy as np

from dissensus._exceptions import DataError, DissensusWarning
from dissensus.cli._evaluate import _parse_pred as parse_pred
from dissensus.cli._reader_options import load_annotations, reader_options

__all__ = ["tendency_command"]


def _parse_pred(values: tuple[str, ...]) -> dict[str, Path]:
    """``NAME=PATH`` as in ``dissensus evaluate``; a bare ``PATH`` is named by its file stem."""
    return parse_pred(tuple(v if "=" in v else f"{Path(v).stem}={v}" for v in values))


def _fmt(x: float) -> str:
    return "" if x is None or math.isnan(x) else f"{x:.3f}"


@click.command("tendency")
@click.argument("annotations", type=click.Path(dir_okay=False))
@click.option(
    "--pred",
    "preds",
    multiple=True,
    metavar="[NAME=]PATH",
    help="Per-annotator predictions: long CSV/TSV/Parquet/JSONL with item, annotator and label "
    "(or one probability column per label). Repeatable. The items it covers are the test items.",
)
@click.option(
    "--measure",
    type=click.Choice(["cohen", "weighted_cohen", "alpha", "pearson"]),
    default="cohen",
    show_default=True,
    help="Pair agreement; ordinal/interval scales: weighted_cohen, alpha --level ordinal, pearson.",
)
@click.option(
    "--level",
    type=click.Choice(["nominal", "ordinal", "interval", "ratio"]),
    default="nominal",
    show_default=True,
    help="Level of --measure alpha.",
)
@click.option(
    "--weights",
    type=click.Choice(["quadratic", "linear"]),
    default="quadratic",
    show_default=True,
    help="Weights of --measure weighted_cohen.",
)
@click.option(
    "--min-overlap",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="tau: pairs sharing fewer items are left out.",
)
@click.option("--soft", is_flag=True, help="Compare predicted distributions as expected tables.")
@click.option(
    "--baselines",
    is_flag=True,
    help="Add the random, consensus and per-annotator-bias baselines (trained on the other items).",
)
@click.option(
    "--test-size",
    type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True),
    default=0.3,
    show_default=True,
    help="Without --pred: share of items held out for the baselines.",
)
@click.option(
    "--text",
    default=None,
    metavar="COL,COL",
    help="Item text columns for the per-annotator-bias baseline (loaded as --meta).",
)
@click.option(
    "--n-resamples",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Bootstrap resamples over items.",
)
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Seed of splits, baselines, bootstrap."
)
@click.option(
    "--ci-method",
    type=click.Choice(["percentile", "basic"]),
    default="percentile",
    show_default=True,
    help="Bootstrap interval; basic corrects for DIC's upward bias with few items per pair.",
)
@click.option(
    "--tables-only", is_flag=True, help="Write the CSV tables but not report.html (no matplotlib)."
)
@click.option(
    "--out", "out", type=click.Path(file_okay=False), required=True, help="Output directory."
)
@reader_options
def tendency_command(annotations: str, preds: tuple[str, ...], **options: Any) -> None:
    """DIC of per-annotator predictions against the ANNOTATIONS' consistency structure.

    Writes dic.csv, the consistency matrices, tau_curve.csv and report.html
    to --out, and prints the DIC table.
    """
    from dissensus import tendency as td  # noqa: PLC0415 - keep `dissensus --help` fast
    from dissensus.tendency._report import TendencyStudy, dic_table, write_report  # noqa: PLC0415

    if not preds and not options["baselines"]:
        msg = "give --pred PATH (per-annotator predictions) and/or --baselines."
        raise click.UsageError(msg)
    text_cols = [c for c in (options.get("text") or "").split(",") if c]
    if text_cols:
        meta = [c for c in (options.get("meta") or "").split(",") if c]
        options["meta"] = ",".join(dict.fromkeys([*meta, *text_cols]))
    true = load_annotations(annotations, **options)
    seed = int(options["seed"])
    parsed = _parse_pred(preds)
    frames = {
        name: td.read_annotator_predictions(path, true.scale) for name, path in parsed.items()
    }
    notes = [f"{annotations}: {true!r}"]
    if frames:
        covered = np.zeros(true.n_items, dtype=bool)
        for f in frames.values():
            covered |= true.items.isin(f["item"])
        if not covered.any():
            msg = "no item of the predictions is in the annotations (do the item ids match, including their type?)."
            raise DataError(msg)
        train = td.subset_items(true, ~covered)
        test = td.subset_items(true, covered)
        notes.append(
            f"evaluated on the {test.n_items} items the predictions cover; {train.n_items} other items train the baselines"
        )
    else:
        train, test = td.split_items(true, test_size=options["test_size"], seed=seed)
        notes.append(f"items split {train.n_items} train / {test.n_items} test (seed {seed})")
    kw: dict[str, Any] = {
        "measure": options["measure"],
        "min_overlap": options["min_overlap"],
        "weights": options["weights"],
        "level": options["level"],
    }
    sets: dict[str, tuple[Any, bool]] = {name: (f, options["soft"]) for name, f in frames.items()}
    if options["baselines"]:
        sets["random"] = (td.random_baseline(test, train=train, seed=seed), False)
        sets["consensus"] = (td.consensus_baseline(test), False)
        sets["consensus_soft"] = (td.consensus_baseline(test, soft=True), True)
        if text_cols:
            if train.n_items == 0:
                msg = "the per-annotator-bias baseline needs training items; the predictions cover every item."
                raise DataError(msg)
            sets["annotator_bias"] = (
                td.itl_bias_baseline(train, test, text=text_cols, seed=seed),
                options["soft"],
            )
        else:
            notes.append("per-annotator-bias baseline skipped: give --text COL,COL (item text)")
    results = {}
    curves = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DissensusWarning)
        for name, (frame, soft) in sets.items():
            results[name] = td.dic(
                test,
                frame,
                soft=soft,
                ci_method=options["ci_method"],
                n_resamples=options["n_resamples"],
                seed=seed,
                **kw,
            )
            curves[name] = td.tau_curve(
                test, frame, soft=soft, **{k: v for k, v in kw.items() if k != "min_overlap"}
            )
    for w in {str(w.message) for w in caught if issubclass(w.category, DissensusWarning)}:
        click.echo(f"dissensus: warning: {' '.join(w.split())}", err=True)
    notes.append(
        f"measure {kw['measure']}, tau = {kw['min_overlap']}; {results[next(iter(results))].n_pairs} "
        "pairs defined in the true matrix"
    )
    write_report(
        TendencyStudy(results, curves, notes),
        options["out"],
        seed=seed,
        figures=not options["tables_only"],
        inputs=[annotations, *parsed.values()],
    )
    table = dic_table(results)
    click.echo(f"DIC ({kw['measure']}, tau={kw['min_overlap']}, {test.n_items} test items)")
    rows = table.to_dict("records")
    width = max(len(str(r["predictions"])) for r in rows)
    for r in rows:
        undefined = int(r["n_pairs_undefined"])
        click.echo(
            f"  {r['predictions']!s:<{width}}  {_fmt(float(r['dic']))}  "
            f"[{_fmt(float(r['ci_low']))}, {_fmt(float(r['ci_high']))}]  "
            f"bias {float(r['bootstrap_bias']):+.3f}  pairs {int(r['n_pairs'])}"
            + (f" ({undefined} undefined)" if undefined else "")
        )
    click.echo(f"wrote {options['out']}")
