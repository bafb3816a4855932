"""``dissensus tendency``: DIC, does a model reproduce who agrees with whom."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import click
import numpy as np
import pandas as pd

from dissensus import tendency as td
from dissensus._atomic import locked_dir
from dissensus._exceptions import DataError
from dissensus.cli import _reader_options as opt
from dissensus.cli._messages import warnings_as_lines

__all__ = ["tendency_command"]

#: What write_report writes whatever the predictions' names; checked against the inputs first.
_FILES = ("dic.csv", "consistency_true.csv", "overlap.csv", "tau_curve.csv", "report.html")


@click.command("tendency")
@click.argument("annotations", type=click.Path(dir_okay=False, path_type=Path))
@opt.pred_option(required=False, help="Per-annotator predictions: long CSV/TSV/Parquet/JSONL with "
                 "item, annotator and label (or one probability column per label); a bare PATH is "
                 "named by its file stem. Repeatable. The items it covers are the test items.")  # fmt: skip
@opt.option("--measure", type=["cohen", "weighted_cohen", "alpha", "pearson"], default="cohen",
            help="Pair agreement; ordinal/interval scales: weighted_cohen, alpha --level ordinal, "
            "pearson.")  # fmt: skip
@opt.option("--level", type=["nominal", "ordinal", "interval", "ratio"], default="nominal",
            help="Level of --measure alpha.")  # fmt: skip
@opt.option("--weights", type=["quadratic", "linear"], default="quadratic",
            help="Weights of --measure weighted_cohen.")  # fmt: skip
@opt.count_option("--min-overlap", default=20, minimum=1,
                  help="tau: pairs sharing fewer items are left out.")  # fmt: skip
@opt.option("--soft", is_flag=True, help="Compare predicted distributions as expected tables.")
@opt.option("--baselines", is_flag=True,
            help="Add the random, consensus and per-annotator-bias baselines (trained on the items "
            "the predictions do not cover; without --pred, on a --test-size split).")  # fmt: skip
@opt.test_size_option
@opt.option("--text", metavar="COL,COL",
            help="Item text columns for the per-annotator-bias baseline (loaded as --meta).")  # fmt: skip
@opt.resamples_option
@opt.seed_option
@opt.option("--ci-method", type=["percentile", "basic"], default="percentile",
            help="Bootstrap interval; basic corrects for DIC's upward bias with few items per pair.")  # fmt: skip
@opt.option("--tables-only", is_flag=True,
            help="Write the CSV tables but not report.html (no matplotlib).")  # fmt: skip
@opt.out_option("Output directory.")
@opt.reader_options
def tendency_command(
    *, annotations: Path, preds: tuple[str, ...], out: Path, **options: Any
) -> None:
    """DIC of per-annotator predictions against the ANNOTATIONS' consistency structure.

    DIC (Distance of Individual Consistency) compares the matrix of pairwise
    agreement between annotators with the one the predictions imply
    ("A Unified Evaluation Framework for Multi-Annotator Tendency Learning",
    arXiv:2508.10393, 2025). Writes dic.csv, the consistency matrices,
    tau_curve.csv and report.html to --out, and prints the DIC table.
    """
    seed, soft, tau = options["seed"], options["soft"], options["min_overlap"]
    if not preds and not options["baselines"]:
        raise click.UsageError("give --pred PATH (per-annotator predictions) and/or --baselines.")
    pred_paths = opt.parse_pred(preds, bare=True)
    inputs = [annotations, *pred_paths.values()]
    with locked_dir(out, inputs=inputs, names=_FILES):
        text = opt.split_names(options["text"])
        true = opt.load_annotations(annotations, meta_too=text, **options)
        frames = {n: td.read_annotator_predictions(p, true.scale) for n, p in pred_paths.items()}
        notes = [f"{annotations}: {true!r}"]
        if frames:
            covered = np.asarray(true.items.isin(pd.concat([f["item"] for f in frames.values()])))
            if not covered.any():
                msg = "no item of the predictions is in the annotations (do the item ids match, including their type?)."
                raise DataError(msg)
            train, test = td.subset_items(true, ~covered), td.subset_items(true, covered)
            notes.append(f"evaluated on the {test.n_items} items the predictions cover; {train.n_items} other items train the baselines")  # fmt: skip
        else:
            train, test = td.split_items(true, test_size=options["test_size"], seed=seed)
            notes.append(f"items split {train.n_items} train / {test.n_items} test (seed {seed})")
        sets: dict[str, tuple[Any, bool]] = {name: (f, soft) for name, f in frames.items()}
        if options["baselines"]:
            sets["random"] = (td.random_baseline(test, train=train, seed=seed), False)
            sets["consensus"] = (td.consensus_baseline(test), False)
            sets["consensus_soft"] = (td.consensus_baseline(test, soft=True), True)
            if text and train.n_items == 0:
                msg = "the per-annotator-bias baseline needs training items; the predictions cover every item."
                raise DataError(msg)
            if text:
                sets["annotator_bias"] = (td.itl_bias_baseline(train, test, text=text, seed=seed), soft)  # fmt: skip
            else:
                notes.append("per-annotator-bias baseline skipped: give --text COL,COL (item text)")
        pairs = {key: options[key] for key in ("measure", "weights", "level")}
        boot = {key: options[key] for key in ("min_overlap", "ci_method", "n_resamples")}
        results, curves = {}, {}
        with warnings_as_lines():
            for name, (frame, is_soft) in sets.items():
                results[name] = td.dic(test, frame, soft=is_soft, seed=seed, **boot, **pairs)
                curves[name] = td.tau_curve(test, frame, soft=is_soft, **pairs)
        n_pairs = next(iter(results.values())).n_pairs
        notes.append(f"measure {pairs['measure']}, tau = {tau}; {n_pairs} pairs defined in the true matrix")  # fmt: skip
        td.write_report(td.TendencyStudy(results, curves, notes), out, seed=seed, figures=not options["tables_only"], inputs=inputs)  # fmt: skip
    click.echo(f"DIC ({pairs['measure']}, tau={tau}, {test.n_items} test items)")
    rows = td.dic_table(results).to_dict("records")
    width = max(len(str(r["predictions"])) for r in rows)
    for r in rows:
        dic, low, high = ("" if math.isnan(x) else f"{x:.3f}" for x in (r["dic"], r["ci_low"], r["ci_high"]))  # fmt: skip
        undefined = f" ({r['n_pairs_undefined']} undefined)" if r["n_pairs_undefined"] else ""
        click.echo(f"  {r['predictions']!s:<{width}}  {dic}  [{low}, {high}]  bias {float(r['bootstrap_bias']):+.3f}  pairs {int(r['n_pairs'])}{undefined}")  # fmt: skip
    click.echo(f"wrote {out}")
