"""``dissensus evaluate``: score models against disagreeing annotators, write a report."""

from __future__ import annotations

import json
import math
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from dissensus._atomic import AtomicFileSet, locked_dir
from dissensus._exceptions import DataError, DissensusWarning
from dissensus._validation import require_extra
from dissensus.cli._messages import echo_warnings, prior_note
from dissensus.cli._reader_options import (
    alignment_options,
    load_annotations,
    load_predictions,
    parse_prior,
    prediction_options,
    prior_option,
    reader_options,
)
from dissensus.data import Annotations, LabelCounts, Predictions
from dissensus.evaluation import TARGETS, evaluate

__all__ = ["evaluate_command"]

#: Coverage of the intervals printed (and of summary.csv, written with the same default).
_CONFIDENCE_LEVEL = 0.95


def _parse_pred(values: tuple[str, ...]) -> dict[str, Path]:
    preds: dict[str, Path] = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            msg = f"--pred expects NAME=PATH (e.g. --pred bert=preds/bert.csv); got {value!r}."
            raise click.BadParameter(msg, param_hint="--pred")
        if name in preds:
            msg = f"model name {name!r} is given twice; each --pred needs its own NAME."
            raise click.BadParameter(msg, param_hint="--pred")
        preds[name] = Path(path)
    return preds


class _Stages:
    """A progress bar over the command's stages on stderr when it is a terminal.

    Silent otherwise, so that logs and pipes get only the table and the
    one-line errors.
    """

    def __init__(self, total: int) -> None:
        self.t0 = time.perf_counter()
        self.bar: Any = None
        if sys.stderr.isatty():
            self.bar = click.progressbar(length=total, file=sys.stderr, show_pos=True, width=24)
            self.bar.__enter__()

    def __call__(self, text: str) -> None:
        if self.bar is not None:
            self.bar.label = f"[{time.perf_counter() - self.t0:5.1f}s] {text}"
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


@click.command("evaluate")
@click.argument("annotations", type=click.Path(dir_okay=False, path_type=Path))
@reader_options
@alignment_options
@prediction_options
@click.option(
    "--metrics",
    default=None,
    metavar="NAME,NAME",
    help="Metrics from the registry, e.g. 'emd,E[emd],cross_entropy'. Default: the standard set.",
)
@prior_option
@click.option(
    "--bins",
    default="auto",
    show_default=True,
    metavar="auto|E1,E2,…",
    help="Annotation-count bins: 'auto' or left edges such as 2,4,6,11.",
)
@click.option(
    "--n-resamples",
    "--n-boot",
    default=1000,
    show_default=True,
    type=click.IntRange(min=2),
    help="Bootstrap resamples (at least 2).",
)
@click.option("--seed", default=0, show_default=True, type=int, help="Seed of every random step.")
@click.option(
    "--targets",
    type=click.Choice(TARGETS),
    default="empirical",
    show_default=True,
    help="What the pointwise metrics compare predictions with: each item's label shares, or "
    "an annotator model's posterior (needs --annotator; the report shows each annotator's "
    "reliability). Expected metrics always use the counts.",
)
@click.option(
    "--no-scores",
    is_flag=True,
    help="Do not write scores.parquet (one row per metric, model and item).",
)
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for report.html, summary.csv, scores.parquet, rankings.csv.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the summary as JSON (means, intervals, best models, files written) "
    "instead of the table; the files are still written to --out.",
)
def evaluate_command(
    *,
    annotations: Path,
    preds: tuple[str, ...],
    pred_layout: str,
    pred_item: str,
    metrics: str | None,
    prior: str,
    bins: str,
    n_resamples: int,
    seed: int,
    targets: str,
    out: Path,
    no_scores: bool,
    as_json: bool,
    load: Callable[..., Any] | None = None,
    **reader: Any,
) -> None:
    """Compare models' predicted label distributions against ANNOTATIONS.

    Prints the summary (mean per model and metric with a paired bootstrap CI)
    and writes the report and tables to --out.
    """
    # report.html needs the report extra: say so before reading or writing anything
    require_extra("report", ("matplotlib",), "dissensus evaluate (report.html)")
    pred_paths = _parse_pred(preds)
    inputs = [annotations, *pred_paths.values()]
    # Check --out and take its lock before any work: a bad directory, a
    # concurrent run or an output that is an input fails now, not after
    # minutes of computing.
    with locked_dir(out), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DissensusWarning)
        probe = AtomicFileSet(out, inputs=inputs)
        for name in ("summary.csv", "rankings.csv", "scores.parquet", "report.html"):
            probe.temporary(name)
        params = {
            "command": "evaluate",
            "annotations": str(annotations),
            "predictions": {name: str(path) for name, path in pred_paths.items()},
            "pred_layout": pred_layout,
            "prior": prior,
            "bins": bins,
            "targets": targets,
            "requested_metrics": metrics,
        }
        ev = _compute(
            annotations,
            pred_paths,
            pred_layout=pred_layout,
            pred_item=pred_item,
            metrics=metrics,
            prior=prior,
            bins=bins,
            seed=seed,
            reader=reader,
            load=load,
            targets=targets,
        )
        written = ev.save(
            out, n_resamples=n_resamples, inputs=inputs, params=params, scores=not no_scores
        )
        summary = ev.summary(confidence_level=_CONFIDENCE_LEVEL, n_resamples=n_resamples)
    # one line per distinct warning (the bootstrap repeats some per metric)
    echo_warnings({" ".join(str(w.message).split()): w for w in caught}.values())
    note = prior_note(ev)
    if as_json:
        record = summary_record(summary, ev, note=note, written=written)
        record = {"annotations": str(annotations), "n_resamples": n_resamples, **record}
        click.echo(json.dumps(record, indent=1, ensure_ascii=False, allow_nan=False))
        return
    click.echo(_format_summary(summary))
    if note is not None:
        click.echo(note)
    for kind, path in written.items():
        click.echo(f"wrote {kind}: {path}")


def _compute(
    annotations: Path,
    pred_paths: dict[str, Path],
    *,
    pred_layout: str,
    pred_item: str,
    metrics: str | None,
    prior: str,
    bins: str,
    seed: int,
    reader: dict[str, Any],
    load: Callable[..., Any] | None = None,
    targets: str = "empirical",
) -> Any:
    """Read, then evaluate; ``load(path, **reader)`` reads the annotations (``--engine dask``)."""
    stage = _Stages(total=len(pred_paths) + 2)
    try:
        stage(f"reading {annotations}")
        loaded = (load or load_annotations)(str(annotations), **reader)
        n_annotators = None
        if isinstance(loaded, Annotations) and targets == "empirical":
            # Only the counts are scored: the annotation table (three codes per
            # annotation, 130 MB at 5.5M annotations) is dropped before the
            # predictions are read, so it is not held through the scoring.
            n_annotators = loaded.n_annotators if loaded.has_annotators else None
            data: Any = loaded.counts()
            del loaded
        else:
            # an annotator model needs the table; Dask counts stay on the cluster
            data = loaded
        predictions = {}
        for name, path in pred_paths.items():
            stage(f"reading predictions {name!r} from {path}")
            pred = load_predictions(path, pred_layout=pred_layout, pred_item=pred_item, **reader)
            if isinstance(data, LabelCounts) and reader["how"] == "exact":
                # lined up with the counts now, so its id index (a string per item,
                # ~60 MB at 1M items) is not held through the scoring
                pred = Predictions(pred.align(data, name=name)[0].values, data.items, data.scale)
            predictions[name] = pred
        bin_spec: Any = bins
        if bins != "auto":
            try:
                bin_spec = [int(b) for b in bins.split(",") if b.strip()]
            except ValueError:
                msg = f"--bins must be 'auto' or comma-separated integers such as 2,4,6,11; got {bins!r}."
                raise DataError(msg) from None
        metric_names = [m.strip() for m in metrics.split(",") if m.strip()] if metrics else None
        stage("scoring")
        ev = evaluate(
            data,
            predictions,
            metrics=metric_names,
            prior=parse_prior(prior),
            bins=bin_spec,
            seed=seed,
            how=reader["how"],
            targets=targets,
        )
        if n_annotators is not None:
            ev.n_annotators = n_annotators
    finally:
        stage.close()
    return ev


def _json_number(value: Any) -> float | str | None:
    """A float for strict JSON: NaN becomes null, an infinite mean "inf" or "-inf"."""
    x = float(value)
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def summary_record(
    summary: Any, evaluation: Any, *, note: str | None, written: dict[str, Any]
) -> dict[str, Any]:
    """What ``dissensus evaluate --json`` prints.

    ``summary`` is :meth:`Evaluation.summary`'s table; one record per model
    and metric with its mean, standard error, interval and ``best`` flag,
    ``best`` again per metric (every tied model), the prior note (or None)
    and the files written. Non-finite numbers: NaN is null, infinity the
    string "inf" (a zero prediction under cross-entropy), so the output is
    strict JSON.
    """
    rows: list[dict[str, Any]] = [
        {
            "model": str(r["model"]),
            "metric": str(r["metric"]),
            "mean": _json_number(r["mean"]),
            "se": _json_number(r["standard_error"]),
            "ci_low": _json_number(r["ci_low"]),
            "ci_high": _json_number(r["ci_high"]),
            "n_items": int(r["n_items"]),
            "lower_is_better": bool(r["lower_is_better"]),
            "best": bool(r["best"]),
        }
        for r in summary.to_dict(orient="records")
    ]
    best: dict[str, list[str]] = {m: [] for m in evaluation.metrics}
    for r in rows:
        if r["best"]:
            best[r["metric"]].append(r["model"])
    return {
        "n_items": int(evaluation.counts.N),
        "prior": str(evaluation.prior),
        "seed": int(evaluation.seed),
        "confidence_level": _CONFIDENCE_LEVEL,
        "models": [str(m) for m in evaluation.models],
        "metrics": [str(m) for m in evaluation.metrics],
        "summary": rows,
        "best": best,
        "note": note,
        "written": {str(kind): str(path) for kind, path in written.items()},
    }


def _format_summary(summary: Any) -> str:
    """Compact table: one row per metric, one column per model, best marked with *."""
    lines = []
    models = list(dict.fromkeys(summary["model"]))
    metric_names = list(dict.fromkeys(summary["metric"]))
    width = max(12, *(len(m) + 2 for m in models))
    mwidth = max(8, *(len(m) for m in metric_names)) + 2
    lines.append("metric".ljust(mwidth) + "".join(m.rjust(width) for m in models))
    for metric in metric_names:
        rows = summary[summary["metric"] == metric].set_index("model")
        arrow = "↓" if bool(rows["lower_is_better"].iloc[0]) else "↑"
        cells = []
        for m in models:
            r = rows.loc[m]
            mark = "*" if bool(r["best"]) else " "
            cells.append(f"{r['mean']:.4f}{mark}".rjust(width))
        lines.append(f"{metric} {arrow}".ljust(mwidth) + "".join(cells))
    lines.append("(* best; ↓ lower is better, ↑ higher is better; CIs in summary.csv)")
    return "\n".join(lines)
