"""The commands that describe: ``info``, ``metrics``, ``audit`` and ``example``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._atomic import write_file_atomically
from dissensus.audit import audit, auditable_metrics, property_keys
from dissensus.cli import _reader_options as opt
from dissensus.cli._progress import stages
from dissensus.data import Annotations
from dissensus.datasets import EXAMPLE_FILES, example_path
from dissensus.metrics import get_metric, list_metrics

_BAR_WIDTH = 30
_MAX_BARS = 12


def _spread(values: npt.NDArray[np.int64]) -> str:
    median = float(np.median(values))
    return f"min {values.min()}, median {int(median) if median.is_integer() else f'{median:.1f}'}, max {values.max()}"


def _bars(names: list[str], counts: list[int], top: int, *, share: bool = False) -> list[str]:
    """One text bar per name, scaled so that ``top`` fills the width (a nonzero count shows)."""
    pad = max(map(len, names))
    return [
        f"    {name:>{pad}} {c:>9,} {c / top:>7.1%}  {'█' * round(_BAR_WIDTH * c / top)}" if share
        else f"    {name:>{pad}} │ {'█' * max(1, round(_BAR_WIDTH * c / top)) if c else ''} {c:,}"
        for name, c in zip(names, counts, strict=True)
    ]  # fmt: skip


def format_info(ann: Annotations, *, title: str | None = None) -> str:
    """What ``dissensus info`` prints: counts, annotations per item (histogram), labels, meta."""
    n = ann.annotations_per_item.to_numpy()
    lo, hi = int(n.min()), int(n.max())
    width = 1 if hi - lo + 1 <= _MAX_BARS else int(np.ceil((hi - lo + 1) / _MAX_BARS))
    edges = np.arange(lo, hi + width + 1, width)
    freq = np.histogram(n, bins=edges)[0].tolist()
    bins = [
        str(a) if b - a == 1 else f"{a}–{b - 1}"
        for a, b in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)
    ]
    annotators = f"{ann.n_annotators:>8,}" if ann.has_annotators else "    none (no annotator ids)"
    lines = [title, ""] if title else []
    lines += [
        f"  items         {ann.n_items:>8,}",
        f"  annotators    {annotators}",
        f"  annotations   {ann.n_annotations:>8,}",
        "",
        f"annotations per item: {_spread(n)}, mean {n.mean():.2f}",
        *_bars(bins, freq, max(*freq, 1)),
    ]
    if ann.has_annotators and ann.annotator_codes is not None:
        per = np.bincount(ann.annotator_codes, minlength=ann.n_annotators)
        lines.append(f"annotations per annotator: {_spread(per)}")
    totals = np.bincount(ann.label_codes, minlength=ann.scale.K).tolist()
    lines += ["", f"labels ({'ordinal' if ann.scale.ordered else 'nominal'}, {ann.scale.K}):"]
    lines += _bars([str(v) for v in ann.scale.labels], totals, max(sum(totals), 1), share=True)
    if ann.meta is not None and len(ann.meta.columns):
        lines += ["", "item-level columns:"]
        lines += [f"    {col}: {_describe_column(ann.meta[col])}" for col in ann.meta.columns]
    return "\n".join(lines)


def _describe_column(values: pd.Series) -> str:
    counts = values.value_counts(dropna=False)
    few = len(counts) <= 6
    shown = ", ".join(f"{k}: {v:,}" for k, v in counts.head(6 if few else 3).items())
    text = f"{len(counts)} distinct" + (f" ({shown})" if few else f", most frequent {shown}")
    missing = int(values.isna().sum())
    return text + (f"; {missing:,} missing" if missing else "")


def info_record(ann: Annotations, *, with_items: bool = False) -> dict[str, Any]:
    """What ``dissensus info --json`` prints: counts, labels, per-item annotations."""
    per_item = ann.annotations_per_item
    n = per_item.to_numpy()
    totals = np.bincount(ann.label_codes, minlength=ann.scale.K)
    spread = {"min": int(n.min()), "median": float(np.median(n)), "max": int(n.max())}
    record: dict[str, Any] = {
        "n_items": int(ann.n_items),
        "n_annotators": int(ann.n_annotators) if ann.has_annotators else None,
        "n_annotations": int(ann.n_annotations),
        "annotations_per_item": {**spread, "mean": float(n.mean())},
        "labels": [_plain(v) for v in ann.scale.labels],
        "ordered": bool(ann.scale.ordered),
        "label_counts": {str(v): int(c) for v, c in zip(ann.scale.labels, totals, strict=True)},
        "meta_columns": [] if ann.meta is None else [str(c) for c in ann.meta.columns],
    }
    if with_items:
        record["items"] = [
            {"item": _plain(i), "n_annotations": int(k)} for i, k in per_item.items()
        ]
    return record


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


@click.command("info")
@click.argument("file", type=click.Path(dir_okay=False))
@opt.reader_options
@opt.option("--items", "show_items", is_flag=True, help="List every item id with its number "
            "of annotations (the ids prediction files need).")  # fmt: skip
@opt.json_option(help="Print the summary as JSON.")
def info_command(file: str, *, show_items: bool, as_json: bool, **options: Any) -> None:
    """Summarise an annotation FILE: items, annotators, annotations per item, labels."""
    ann = opt.load_annotations(file, **options)
    if as_json:
        record = {"file": file, **info_record(ann, with_items=show_items)}
        click.echo(json.dumps(record, indent=1, ensure_ascii=False, default=str))
        return
    fmt = options.get("format")
    click.echo(format_info(ann, title=file + (f" ({fmt})" if fmt else "")))
    if show_items:
        click.echo("\nitems (id, annotations):")
        for item, k in ann.annotations_per_item.items():
            click.echo(f"    {item}\t{int(k)}")


@click.command("metrics")
@opt.option(
    "--kind",
    type=["pointwise", "expected", "debiased"],
    help="Only pointwise (empirical), expected (posterior) or debiased (from counts) metrics.",
)
@opt.json_option(help="Print the registry as JSON.")
def metrics_command(*, kind: str | None, as_json: bool) -> None:
    """List the registered metrics: name, family, direction, ordered labels, degree, formula.

    Names are what --metrics of `dissensus evaluate` takes (case does not
    matter). p is the annotators' label shares (p̂ from the counts n), q the
    prediction, α the item's Dirichlet posterior; logs are natural. The degree
    is the metric's degree as a polynomial in the true p, then that of the
    difference between two models ("—": not a polynomial): from n annotations
    per item exactly the polynomials of degree <= n have unbiased estimators.
    """
    metrics = list(map(get_metric, list_metrics(kind=kind, unary=False)))  # type: ignore[arg-type]
    if as_json:
        records = [
            {
                "name": m.name,
                "family": m.kind,
                "direction": f"{'lower' if m.lower_is_better else 'higher'} is better",
                "needs_ordered_labels": m.needs_order,
                "degree": m.degree,
                "difference_degree": m.difference_degree,
                "formula": m.formula or m.description,
            }
            for m in metrics
        ]
        click.echo(json.dumps(records, indent=1, ensure_ascii=False))
        return
    cells: list[tuple[str, ...]] = [("name", "family", "better", "ordered", "degree", "formula")]
    cells += [
        (
            m.name,
            m.kind,
            "lower ↓" if m.lower_is_better else "higher ↑",
            "yes" if m.needs_order else "",
            _degrees(m.degree, m.difference_degree),
            m.formula or m.description,
        )
        for m in metrics
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(5)]
    cells.insert(1, tuple("-" * w for w in [*widths, 7]))
    for c in cells:
        click.echo("  ".join(v.ljust(w) for v, w in zip(c, widths, strict=False)) + "  " + c[-1])


def _degrees(degree: int | None, difference: int | None) -> str:
    """``"2, diff 1"``: the polynomial degrees of a metric and of a paired difference."""
    if degree is None and difference is None:
        return ""
    return f"{'—' if degree is None else degree}, diff {'—' if difference is None else difference}"


@click.command("audit")
@opt.option("--metric", "metrics", multiple=True, metavar="NAME", help="Registry metric to audit "
            "(repeat); default every two-argument metric, expected ones included.")  # fmt: skip
@opt.classes_option(default=2)
@opt.option("--property", "properties", multiple=True, type=property_keys(),
            help="Property to check (repeat); default all.")  # fmt: skip
@opt.count_option("--n-trials", default=100_000, minimum=1, help="Trials per metric and property.")
@opt.seed_option
@opt.option("--markdown", is_flag=True, help="A Markdown document (as in docs/).")
@opt.json_option(help="JSON: every row with its counterexample.")
def audit_command(*, metrics: tuple[str, ...], properties: tuple[str, ...], **options: Any) -> None:
    """Audit soft metrics for the properties P1-P8 and the ordinal property.

    P1-P8 are the properties of a good soft metric in Rizzi et al. (2024),
    "Soft metrics for evaluation with disagreements: an assessment"
    (NLPerspectives at LREC-COLING 2024). Prints a ✓/✗ table (✓: no
    counterexample found in the trials) and the simplest counterexample of
    every violation.
    """
    classes, n_trials, seed = options["classes"], options["n_trials"], options["seed"]
    names = list(metrics) or auditable_metrics()
    with stages() as stage:
        result = audit(
            names,
            properties=list(properties) or "all",
            classes=classes,
            n_trials=n_trials,
            seed=seed,
            progress=stage,
        )
    if options["as_json"]:
        click.echo(result.to_json())
    elif options["markdown"]:
        # the document checked in as docs/audit_k<K>.md (tests/audit/test_docs.py regenerates it)
        command = f"dissensus audit --classes {classes} --n-trials {n_trials} --markdown"
        command += f" --seed {seed}" if seed else ""
        click.echo(
            f"# Metric property audit, K = {classes}\n\nGenerated by `{command}` (seed {seed}, "
            f"{n_trials:,} trials per metric and property); do not edit by hand, "
            "`tests/audit/test_docs.py` regenerates it and compares. Definitions of the "
            "properties, and where this table disagrees with Rizzi et al. (2024), Table 1: "
            f"[audit.md](audit.md).\n\n{result.to_markdown()}",
            nl=False,
        )
    else:
        click.echo(result.to_markdown(), nl=False)


@click.command("example")
@click.argument("name", type=click.Choice(list(EXAMPLE_FILES)))
@opt.out_option(
    "File or directory to write (default: the example's file name, here).",
    kind="any",
    required=False,
)
def example_command(*, name: str, out: Path | None) -> None:
    """Write example NAME: ratings (annotations), a and b (two models' predictions), convabuse, reviews.

    All are small and synthetic: convabuse is in the ConvAbuse full-file format
    (--format convabuse), reviews has a text column for `dissensus experiment`.
    For instance `dissensus example ratings`, `dissensus example a`,
    `dissensus example b`, then
    `dissensus evaluate ratings.csv --pred a=a.csv --pred b=b.csv --out results/`.
    """
    target = Path.cwd() if out is None else out
    if target.is_dir():
        target = target / EXAMPLE_FILES[name]
    source = example_path(name)
    written = write_file_atomically(target, source.read_bytes(), inputs=[source])
    click.echo(f"wrote {written}")
