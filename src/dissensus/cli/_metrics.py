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
    rows: list[dict[str, Any]] = []
    for name in list_metrics(kind=kind, unary=False):  # type: ignore[arg-type]
        m = get_metric(name)
        rows.append(
            {
                "name": m.name,
                "family": m.kind,
                "direction": "lower is better" if m.lower_is_better else "higher is better",
                "needs_ordered_labels": m.needs_order,
                "formula": m.formula or m.description,
            }
        )
    if as_json:
        click.echo(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    header = ("name", "family", "better", "ordered", "formula")
    cells: list[tuple[str, ...]] = [
        (
            str(r["name"]),
            str(r["family"]),
            "lower ↓" if str(r["direction"]).startswith("lower") else "higher ↑",
            "yes" if r["needs_ordered_labels"] else "",
            str(r["formula"]),
        )
        for r in rows
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header[:-1])]

    def line(values: tuple[str, ...]) -> str:
        return (
            "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=False)) + "  " + values[-1]
        )

    click.echo(line(header))
    click.echo(line((*("-" * w for w in widths), "-" * 7)))
    for c in cells:
        click.echo(line(c))
