"""``dissensus metrics``: the metric registry, one line per metric."""

from __future__ import annotations

import json

import click

from dissensus.cli import _reader_options as opt
from dissensus.metrics import get_metric, list_metrics

__all__ = ["metrics_command"]


@click.command("metrics")
@opt.option("--kind", type=["pointwise", "expected", "debiased"],
            help="Only pointwise (empirical), expected (posterior) or debiased (from counts) metrics.")  # fmt: skip
@opt.json_option(help="Print the registry as JSON.")
def metrics_command(*, kind: str | None, as_json: bool) -> None:
    """List the registered metrics: name, family, direction, whether it needs ordered labels, formula.

    Names are what --metrics of `dissensus evaluate` takes (case does not
    matter). p is the annotators' label shares (p̂ from the counts n), q the
    prediction, α the item's Dirichlet posterior; logs are natural.
    """
    rows = [
        (m.name, m.kind, "lower" if m.lower_is_better else "higher", m.needs_order, m.formula or m.description)
        for m in map(get_metric, list_metrics(kind=kind, unary=False))  # type: ignore[arg-type]
    ]  # fmt: skip
    if as_json:
        keys = ("name", "family", "direction", "needs_ordered_labels", "formula")
        records = [dict(zip(keys, (n, f, f"{d} is better", o, t), strict=True)) for n, f, d, o, t in rows]  # fmt: skip
        click.echo(json.dumps(records, indent=1, ensure_ascii=False))
        return
    cells = [("name", "family", "better", "ordered", "formula")]
    cells += [(n, f, f"{d} {'↓' if d == 'lower' else '↑'}", "yes" if o else "", t) for n, f, d, o, t in rows]  # fmt: skip
    widths = [max(len(c[i]) for c in cells) for i in range(4)]
    cells.insert(1, tuple("-" * w for w in [*widths, 7]))
    for c in cells:
        click.echo("  ".join(v.ljust(w) for v, w in zip(c, widths, strict=False)) + "  " + c[-1])
