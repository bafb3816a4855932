"""``dissensus metrics``: the metric registry, one line per metric."""

from __future__ import annotations

import json
from typing import Any

import click

from dissensus.metrics import Metric, get_metric, list_metrics

__all__ = ["FORMULAS", "formula", "metrics_command"]

#: One-line formulas of the built-in pointwise metrics (p: annotators' shares, q: prediction).
FORMULAS: dict[str, str] = {
    "cross_entropy": "−Σ p_k ln q_k",
    "kl_divergence": "Σ p_k ln(p_k / q_k)",
    "kl_divergence_reverse": "Σ q_k ln(q_k / p_k)",
    "js_divergence": "½ KL(p‖m) + ½ KL(q‖m), m = (p + q)/2",
    "js_distance": "√JSD(p, q)",
    "manhattan": "Σ |p_k − q_k|",
    "euclidean": "√Σ (p_k − q_k)²",
    "squared_euclidean": "Σ (p_k − q_k)²",
    "emd": "Σ_k |P_k − Q_k| / (K − 1), P, Q cumulative",
    "chebyshev": "max_k |p_k − q_k|",
    "clark": "√Σ ((p_k − q_k) / (p_k + q_k))²",
    "canberra": "Σ |p_k − q_k| / (p_k + q_k)",
    "cosine": "p·q / (‖p‖ ‖q‖)",
    "intersection": "Σ min(p_k, q_k)",
    "hellinger": "√(½ Σ (√p_k − √q_k)²)",
    "entropy": "−Σ p_k ln p_k",
}


def formula(metric: Metric) -> str:
    """The metric's one-line formula (its description when none is known).

    Examples
    --------
    >>> formula(get_metric("E[manhattan]"))
    'E_{p ~ Dir(α)} [Σ |p_k − q_k|]'
    """
    if metric.kind == "expected" and metric.pointwise is not None:
        inner = FORMULAS.get(metric.pointwise)
        if inner is not None:
            return f"E_{{p ~ Dir(α)}} [{inner}]"
    return FORMULAS.get(metric.name, metric.description)


@click.command("metrics")
@click.option(
    "--kind",
    type=click.Choice(["pointwise", "expected"]),
    default=None,
    help="Only pointwise (empirical) or expected (posterior) metrics.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the registry as JSON.")
def metrics_command(*, kind: str | None, as_json: bool) -> None:
    """List the registered metrics: name, family, direction, whether it needs ordered labels, formula.

    Names are what --metrics of `dissensus evaluate` takes (case does not
    matter). p is the annotators' label shares, q the prediction, α the
    item's Dirichlet posterior; logs are natural.
    """
    rows: list[dict[str, Any]] = []
    for name in list_metrics(kind=kind, unary=False):  # type: ignore[arg-type]
        m = get_metric(name)
        rows.append(
            {
                "name": m.name,
                "family": "empirical" if m.kind == "pointwise" else "expected",
                "direction": "lower is better" if m.lower_is_better else "higher is better",
                "needs_ordered_labels": m.needs_order,
                "formula": formula(m),
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
