"""``dissensus info FILE``: what is in an annotation file."""

from __future__ import annotations

import json
from typing import Any

import click
import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus.cli import _reader_options as opt
from dissensus.data import Annotations

__all__ = ["format_info", "info_command", "info_record"]

_BAR_WIDTH = 30
_MAX_BARS = 12


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def _histogram(n: npt.NDArray[np.int64]) -> list[str]:
    """A text histogram of annotations per item: one bar per count, or binned."""
    lo, hi = int(n.min()), int(n.max())
    if hi - lo + 1 <= _MAX_BARS:
        edges = np.arange(lo, hi + 2)
    else:
        width = int(np.ceil((hi - lo + 1) / _MAX_BARS))
        edges = np.arange(lo, hi + width + 1, width)
    freq, _ = np.histogram(n, bins=edges)
    names = [
        str(a) if b - a == 1 else f"{a}–{b - 1}"
        for a, b in zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)
    ]
    pad = max(len(s) for s in names)
    top = max(int(freq.max()), 1)
    lines = []
    for name, f in zip(names, freq.tolist(), strict=True):
        bar = "█" * max(1, round(_BAR_WIDTH * f / top)) if f else ""  # a nonzero bin shows
        lines.append(f"    {name:>{pad}} │ {bar} {f:,}")
    return lines


def format_info(ann: Annotations, *, title: str | None = None) -> str:
    """The human-readable summary printed by ``dissensus info``.

    Items, annotators, annotations; annotations per item (min / median /
    max and a histogram); the label distribution in scale order; the
    item-level (meta) columns.
    """
    n = ann.annotations_per_item.to_numpy()
    lines: list[str] = []
    if title:
        lines += [title, ""]
    lines.append(f"  items         {ann.n_items:>8,}")
    if ann.has_annotators:
        lines.append(f"  annotators    {ann.n_annotators:>8,}")
    else:
        lines.append("  annotators        none (no annotator ids)")
    lines.append(f"  annotations   {ann.n_annotations:>8,}")
    lines.append("")
    lines.append(
        f"annotations per item: min {n.min()}, median {_number(float(np.median(n)))}, "
        f"max {n.max()}, mean {n.mean():.2f}"
    )
    lines += _histogram(n)
    if ann.has_annotators and ann.annotator_codes is not None:
        per = np.bincount(ann.annotator_codes, minlength=ann.n_annotators)
        lines.append(
            f"annotations per annotator: min {per.min()}, median {_number(float(np.median(per)))}, "
            f"max {per.max()}"
        )
    lines.append("")
    kind = "ordinal" if ann.scale.ordered else "nominal"
    lines.append(f"labels ({kind}, {ann.scale.K}):")
    totals = np.bincount(ann.label_codes, minlength=ann.scale.K)
    names = [str(v) for v in ann.scale.labels]
    pad = max(len(s) for s in names)
    total = max(int(totals.sum()), 1)
    for name, count in zip(names, totals.tolist(), strict=True):
        share = count / total
        bar = "█" * round(_BAR_WIDTH * share)
        lines.append(f"    {name:>{pad}} {count:>9,} {share:>7.1%}  {bar}")
    if ann.meta is not None and len(ann.meta.columns):
        lines.append("")
        lines.append("item-level columns:")
        for col in ann.meta.columns:
            lines.append(f"    {col}: {_describe_column(ann.meta[col])}")
    return "\n".join(lines)


def _describe_column(values: pd.Series) -> str:
    counts = values.value_counts(dropna=False)
    missing = int(values.isna().sum())
    text = f"{len(counts)} distinct"
    if len(counts) <= 6:
        text += " (" + ", ".join(f"{k}: {v:,}" for k, v in counts.items()) + ")"
    else:
        top = ", ".join(f"{k}: {v:,}" for k, v in counts.head(3).items())
        text += f", most frequent {top}"
    if missing:
        text += f"; {missing:,} missing"
    return text


def info_record(ann: Annotations, *, with_items: bool = False) -> dict[str, Any]:
    """What ``dissensus info --json`` prints: counts, labels, per-item annotations."""
    n = ann.annotations_per_item.to_numpy()
    totals = np.bincount(ann.label_codes, minlength=ann.scale.K)
    record: dict[str, Any] = {
        "n_items": int(ann.n_items),
        "n_annotators": int(ann.n_annotators) if ann.has_annotators else None,
        "n_annotations": int(ann.n_annotations),
        "annotations_per_item": {
            "min": int(n.min()),
            "median": float(np.median(n)),
            "max": int(n.max()),
            "mean": float(n.mean()),
        },
        "labels": [_plain(v) for v in ann.scale.labels],
        "ordered": bool(ann.scale.ordered),
        "label_counts": {str(v): int(c) for v, c in zip(ann.scale.labels, totals, strict=True)},
        "meta_columns": [] if ann.meta is None else [str(c) for c in ann.meta.columns],
    }
    if with_items:
        per_item = ann.annotations_per_item
        record["items"] = [
            {"item": _plain(i), "n_annotations": int(k)}
            for i, k in zip(per_item.index, per_item.to_numpy(), strict=True)
        ]
    return record


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


@click.command("info")
@click.argument("file", type=click.Path(dir_okay=False))
@opt.reader_options
@opt.option("--items", "show_items", is_flag=True, help="List every item id with its number "
            "of annotations (the ids prediction files need).")  # fmt: skip
@opt.json_option("Print the summary as JSON.")
def info_command(file: str, *, show_items: bool, as_json: bool, **options: Any) -> None:
    """Summarise an annotation FILE: items, annotators, annotations per item, labels."""
    ann = opt.load_annotations(file, **options)
    if as_json:
        record = {"file": file, **info_record(ann, with_items=show_items)}
        click.echo(json.dumps(record, indent=1, ensure_ascii=False, default=str))
        return
    fmt = options.get("format")
    title = f"{file}" + (f" ({fmt})" if fmt else "")
    click.echo(format_info(ann, title=title))
    if show_items:
        per_item = ann.annotations_per_item
        click.echo("")
        click.echo("items (id, annotations):")
        for item, k in zip(per_item.index, per_item.to_numpy(), strict=True):
            click.echo(f"    {item}\t{int(k)}")
