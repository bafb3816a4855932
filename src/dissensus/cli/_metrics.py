"""``dissensus metrics``: the metric registry, one line per metric."""

from __future__ import annotations

import json
from typing import Any

import click

from dissensus.metrics import get_metric, list_metrics

__all__ = ["metrics_command"]


@click.command("metrics")
@click.option(
    "--kind",
    type=click.Choice(["pointwise", "expected", "debiased"]),
    default=None,
    help="Only pointwise (empirical), expected (posterior) or debiased (from counts) metrics.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the registry as JSON.")
def metrics_command(*, kind: str | None, as_json: bool) -> None:
    """List the registered metrics: name, family, direction, whether it needs ordered labels, formula.

    Names are what --metrics of `dissensus evaluate` takes (case does not
    matter). p is the annotators' label shares (p̂ from the counts n), q the
    prediction, α the item's Dirichlet posterior; logs are natural.
    """
    metrics = [get_metric(n) for n in list_metrics(kind=kind, unary=False)]  # type: ignore[arg-type]
    rows: list[dict[str, Any]] = [
        {
            "name": m.name,
            "family": m.kind,
            "direction": "lower is better" if m.lower_is_better else "higher is better",
            "needs_ordered_labels": m.needs_order,
            "formula": m.formula or m.description,
        }
        for m in metrics
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    cells: list[tuple[str, ...]] = [("name", "family", "better", "ordered", "formula")]
    cells += [
        (
            m.name,
            m.kind,
            "lower ↓" if m.lower_is_better else "higher ↑",
            "yes" if m.needs_order else "",
            m.formula or m.description,
        )
        for m in metrics
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(4)]
    cells.insert(1, tuple("-" * w for w in [*widths, 7]))
    for c in cells:
        click.echo("  ".join(v.ljust(w) for v, w in zip(c, widths, strict=False)) + "  " + c[-1])
