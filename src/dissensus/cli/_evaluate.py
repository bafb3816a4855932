"""``dissensus evaluate`` scores models against disagreeing annotators; ``allocate`` says where to annotate next."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pandas as pd

from dissensus._atomic import check_not_inputs, check_output_dir, locked_dir, write_file_atomically
from dissensus._exceptions import DataError, MissingExtraError
from dissensus._validation import require_extra
from dissensus.allocate import next_items
from dissensus.cli import _reader_options as opt
from dissensus.cli._messages import warnings_as_lines
from dissensus.cli._progress import stages
from dissensus.data import Annotations, LabelCounts, Predictions, Scale
from dissensus.evaluation import TARGETS, Evaluation, evaluate

#: Coverage of the intervals printed (and of summary.csv, written with the same default).
_CONFIDENCE_LEVEL = 0.95
#: What Evaluation.save writes; checked against the inputs before any work.
OUTPUT_FILES = ("summary.csv", "rankings.csv", "scores.parquet", "report.html")


@click.command("evaluate")
@click.argument("annotations", type=click.Path(dir_okay=False, path_type=Path))
@opt.reader_options
@opt.alignment_options
@opt.prediction_options
@opt.metrics_option(
    help="Metrics from the registry, e.g. 'emd,E[emd],cross_entropy'. Default: the standard set."
)
@opt.prior_option
@opt.option("--bins", default="auto", metavar="auto|E1,E2,…",
            help="Annotation-count bins: 'auto' or left edges such as 2,4,6,11.")  # fmt: skip
@opt.resamples_option
@opt.seed_option
@opt.option("--targets", type=list(TARGETS), default="empirical",
            help="What the pointwise metrics compare predictions with: each item's label shares, "
            "or an annotator model's posterior (needs --annotator; the report shows each "
            "annotator's reliability). Expected metrics always use the counts.")  # fmt: skip
@opt.option("--smooth", type=float, default=None, metavar="EPS",
            help="Smooth every prediction, q <- (q + EPS) / (1 + K EPS), e.g. 1e-6, so that a "
            "predicted 0 does not make cross-entropy or KL infinite (as LeWiDi's scorers clip).")  # fmt: skip
@opt.option("--no-scores", is_flag=True,
            help="Do not write scores.parquet (one row per metric, model and item).")  # fmt: skip
@opt.out_option("Directory for report.html, summary.csv, scores.parquet, rankings.csv.")
@opt.json_option(help="Print the summary as JSON (means, intervals, best models, files written) "
                 "instead of the table; the files are still written to --out.")  # fmt: skip
def evaluate_command(
    *, annotations: Path, preds: tuple[str, ...], out: Path, **options: Any
) -> None:
    """Compare models' predicted label distributions against ANNOTATIONS.

    Prints the summary (mean per model and metric with a paired bootstrap CI)
    and writes the report and tables to --out.
    """
    load: Callable[..., Any] | None = options.pop("load", None)
    n_resamples, no_scores = options["n_resamples"], options["no_scores"]
    report = _report_extra_installed()  # checked before reading or writing anything
    pred_paths = opt.parse_pred(preds)
    inputs = [annotations, *pred_paths.values()]
    metric_names = opt.split_names(options.pop("metrics")) or None
    params = {
        "command": "evaluate",
        "annotations": str(annotations),
        "predictions": {name: str(path) for name, path in pred_paths.items()},
        **{key: options[key] for key in ("pred_layout", "prior", "bins", "targets", "smooth")},
        "requested_metrics": ",".join(metric_names) if metric_names else None,
    }
    notes: dict[str, tuple[str, ...]] = {}
    # the stages of _compute and of the report on one progress line, erased before any warning
    with locked_dir(out, inputs=inputs, names=OUTPUT_FILES), warnings_as_lines(), stages() as stage:
        ev = _compute(annotations, pred_paths, load, **options, metrics=metric_names, notes=notes)
        # what the reader chose or rescaled (p1..p5 as labels, rows renormalised), recorded
        params["prediction_notes"] = {name: list(lines) for name, lines in notes.items()}
        written = ev.save(
            out,
            n_resamples=n_resamples,
            inputs=inputs,
            params=params,
            scores=not no_scores,
            report=report,
            progress=stage,
        )
        summary = ev.summary(confidence_level=_CONFIDENCE_LEVEL, n_resamples=n_resamples)
    note = prior_note(ev)
    if options["as_json"]:
        record = {
            "annotations": str(annotations),
            "n_resamples": n_resamples,
            **summary_record(summary, ev, note=note, written=written),
        }
        click.echo(json.dumps(record, indent=1, ensure_ascii=False, allow_nan=False))
        return
    click.echo(format_summary(summary))
    if ev.smoothing is not None:
        click.echo(smoothing_note(ev.smoothing))
    if note is not None:
        click.echo(note)
    for kind, path in written.items():
        click.echo(f"wrote {kind}: {path}")
    for line in ev.verdict_lines():
        click.echo(line)


def _report_extra_installed() -> bool:
    """Whether report.html can be written; without the report extra the tables are the result."""
    try:
        require_extra("report", ("matplotlib",), "report.html")
    except MissingExtraError as exc:
        click.echo(f"dissensus: warning: {exc}; writing the tables without it.", err=True)
        return False
    return True


def _compute(
    annotations: Path,
    pred_paths: dict[str, Path],
    load: Callable[..., Any] | None,
    *,
    notes: dict[str, tuple[str, ...]] | None = None,
    **options: Any,
) -> Evaluation:
    """Read, then evaluate; ``load(path, **options)`` reads the annotations (``--engine dask``).

    The prediction files are read against the annotations' scale, so that a label column
    off the scale is listed with the file's other problems; ``notes`` receives each
    model's reading notes (:attr:`Predictions.notes`).
    """
    bins: Any = options["bins"]
    if bins != "auto":
        try:
            bins = [int(b) for b in opt.split_names(bins)]
        except ValueError:
            msg = (
                f"--bins must be 'auto' or comma-separated integers such as 2,4,6,11; got {bins!r}."
            )
            raise DataError(msg) from None
    with stages(total=len(pred_paths) + 2) as stage:
        stage(f"reading {annotations}")
        loaded = (load or opt.load_annotations)(str(annotations), **options)
        n_annotators = None
        if isinstance(loaded, Annotations) and options["targets"] == "empirical":
            # Only the counts are scored: the annotation table (three codes per annotation,
            # 130 MB at 5.5M) is dropped before reading the predictions, not held through scoring.
            n_annotators = loaded.n_annotators if loaded.has_annotators else None
            data: Any = loaded.counts()
            del loaded
        else:
            # an annotator model needs the table; Dask counts stay on the cluster
            data = loaded
        predictions = {}
        scale = getattr(data, "scale", None)
        for name, path in pred_paths.items():
            stage(f"reading predictions {name!r} from {path}")
            pred = opt.load_predictions(
                path, scale=scale if isinstance(scale, Scale) else None, **options
            )
            if notes is not None:
                notes[name] = pred.notes
            if isinstance(data, LabelCounts) and options["how"] == "exact":
                # lined up with the counts now, so its id index (a string per item,
                # ~60 MB at 1M items) is not held through the scoring
                pred = Predictions(pred.align(data, name=name)[0].values, data.items, data.scale)
            predictions[name] = pred
        stage("scoring")
        settings = {key: options[key] for key in ("metrics", "seed", "how", "targets", "smooth")}
        prior = opt.parse_prior(options["prior"])
        try:
            ev = evaluate(data, predictions, prior=prior, bins=bins, **settings)
        except ValueError as exc:
            if "'smooth' parameter" not in str(exc) and "smooth=" not in str(exc):
                raise
            msg = f"--smooth must be a number in (0, 1), e.g. 1e-6, with in-memory data; got {options['smooth']!r}."
            raise click.BadParameter(msg, param_hint="--smooth") from None
    if n_annotators is not None:
        ev.n_annotators = n_annotators
    return ev


#: Say so when the prior weighs at least as much as the annotations on this share of items.
_WEAK_SHARE = 0.2


def prior_note(evaluation: Evaluation) -> str | None:
    """A line saying the prior drives the expected metrics, and which prior the data support.

    That is the prior of highest Dirichlet-multinomial likelihood; None when the prior is weak.
    """
    if not any(m.startswith("E[") for m in evaluation.metrics):
        return None
    try:
        fit = evaluation.prior_fit()
    except ValueError:
        return None
    used, best = fit.iloc[0], fit.iloc[int(fit["log_likelihood"].to_numpy(dtype=float).argmax())]
    if not float(used["share_items_weak"]) >= _WEAK_SHARE:
        return None
    advice = (
        f"; the annotations support the {best['prior']} prior (--prior {str(best['prior']).split(' ')[0]}), "
        "and report.html compares the verdict under each prior"
    ) if str(best["prior"]) != str(used["prior"]) else ""  # fmt: skip
    return (
        f"note: the {used['prior']} prior adds {float(used['strength']):g} pseudo-counts per "
        f"item, at least as many as the annotations of {100 * float(used['share_items_weak']):.0f}% "
        f"of items, so the expected metrics there reflect the prior more than the annotators{advice}."
    )


def _json_number(value: float) -> float | str | None:
    """A float for strict JSON: NaN becomes null, an infinite mean "inf" or "-inf"."""
    x = float(value)
    return None if math.isnan(x) else str(x) if math.isinf(x) else x


def summary_record(
    summary: pd.DataFrame, evaluation: Evaluation, *, note: str | None, written: dict[str, Path]
) -> dict[str, Any]:
    """What ``dissensus evaluate --json`` prints: :meth:`Evaluation.summary`'s rows, and more.

    Also the best models per metric (every tied one), the prior note and the files
    written; strict JSON (:func:`_json_number`).
    """
    numbers = ["mean", "standard_error", "ci_low", "ci_high"]
    columns = ["model", "metric", *numbers, "n_items", "lower_is_better", "best"]
    rows = summary[columns].to_dict(orient="records")  # native Python values
    for r in rows:
        r.update({key: _json_number(r[key]) for key in numbers})
    return {
        "n_items": int(evaluation.counts.N),
        "prior": str(evaluation.prior),
        "seed": evaluation.seed if isinstance(evaluation.seed, int) else None,
        "confidence_level": _CONFIDENCE_LEVEL,
        "models": [str(m) for m in evaluation.models],
        "metrics": [str(m) for m in evaluation.metrics],
        "summary": rows,
        "best": {
            m: [r["model"] for r in rows if r["metric"] == m and r["best"]]
            for m in evaluation.metrics
        },
        "note": note,
        "written": {str(kind): str(path) for kind, path in written.items()},
    }


def smoothing_note(smoothing: dict[str, Any]) -> str:
    """The line saying the predictions were smoothed: ε and the rows that held a zero."""
    rows = ", ".join(f"{m} {n:,}" for m, n in smoothing["rows_with_zero"].items())
    return (
        f"note: predictions smoothed, q <- (q + {smoothing['epsilon']:g}) / (1 + K x "
        f"{smoothing['epsilon']:g}) (--smooth); rows that held a 0: {rows}."
    )


def infinite_note(summary: pd.DataFrame) -> str | None:
    """Why a printed mean is ``inf``: per metric and model the items, the cause and the remedy."""
    bad = summary[summary["mean"].map(lambda v: math.isinf(float(v)))]
    if bad.empty:
        return None
    counted = "n_infinite" in bad.columns
    parts = [
        f"{metric}: " + ", ".join(
            f"{r['model']}" + (f" ({int(r['n_infinite']):,} items)" if counted else "")
            for r in rows.to_dict("records")
        )
        for metric, rows in bad.groupby("metric", sort=False)
    ]  # fmt: skip
    expected = any(str(m).startswith("E[") for m in bad["metric"])
    empirical = any(not str(m).startswith("E[") for m in bad["metric"])
    causes = [
        *(["under E[...], a prediction of 0 for any label (the posterior gives every label mass)"] if expected else []),
        *(["under an empirical metric, a prediction of 0 for a label some annotator chose"] if empirical else []),
    ]  # fmt: skip
    return (
        f"note: inf = an infinite mean ({'; '.join(parts)}): {'; '.join(causes)}. One such item "
        "makes the mean infinite; no verdict rests on it. Remedy: --smooth 1e-6 "
        "(q <- (q + eps) / (1 + K eps), as LeWiDi's scorers clip)."
    )


def format_summary(summary: pd.DataFrame) -> str:
    """Compact table: one row per metric, one column per model, best marked with *.

    An infinite mean prints as ``inf`` followed by a note (:func:`infinite_note`).
    """
    models = list(dict.fromkeys(summary["model"]))
    metric_names = list(dict.fromkeys(summary["metric"]))
    width = max(12, *(len(m) + 2 for m in models))
    mwidth = max(8, *(len(m) for m in metric_names)) + 2
    lines = ["metric".ljust(mwidth) + "".join(m.rjust(width) for m in models)]
    for metric in metric_names:
        rows = summary[summary["metric"] == metric].set_index("model")
        arrow = "↓" if bool(rows["lower_is_better"].iloc[0]) else "↑"
        cells = [
            f"{rows.loc[m, 'mean']:.4f}{'*' if bool(rows.loc[m, 'best']) else ' '}".rjust(width)
            for m in models
        ]
        lines.append(f"{metric} {arrow}".ljust(mwidth) + "".join(cells))
    lines.append("(* best; ↓ lower is better, ↑ higher is better; CIs in summary.csv)")
    if (note := infinite_note(summary)) is not None:
        lines.append(note)
    return "\n".join(lines)


@click.command("allocate")
@click.argument("annotations", type=click.Path(dir_okay=False, path_type=Path))
@opt.reader_options
@opt.prediction_options
@opt.option(
    "--metric",
    help="Metric the models are compared by (default: E[rps] on an ordered scale, else "
    "E[squared_euclidean]: the objectives that beat random allocation in "
    "docs/allocation_benchmark.md).",
)
@opt.count_option(
    "--budget", default=500, minimum=1, help="How many items to send (one annotation each)."
)
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
    settings = {key: options[key] for key in ("metric", "seed")}
    budget, prior = min(options["budget"], counts.N), opt.parse_prior(options["prior"])
    chosen = next_items(counts, predictions, budget=budget, prior=prior, **settings)
    write_file_atomically(out, chosen.to_csv(index=False, float_format="%.10g"), inputs=inputs)
    gain = chosen["expected_gain"]
    click.echo(
        f"wrote {len(chosen)} items to {out} (expected gain {gain.iloc[0]:.3g} … {gain.iloc[-1]:.3g})"
    )
