"""The audit table: one row per (metric, property), with the simplest counterexample."""

from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

__all__ = ["AuditResult", "Counterexample", "PropertyResult"]

_SYMBOL = {"holds": "✓", "violated": "✗", "not applicable": "–"}


def _fmt(x: float) -> str:
    return f"{x:.4g}"


@dataclass(frozen=True)
class Counterexample:
    """The simplest violation found.

    Attributes
    ----------
    clause : str
        The inequality that fails.
    distributions : dict of str to list of float
        The distributions (``alpha[...]`` for an expected metric's target).
    values : dict of str to float
        The metric values involved.
    margin : float
        ``lhs - rhs`` of the inequality (> 0, or >= 0 for a strict one, is a violation).
    """

    clause: str
    distributions: dict[str, list[float]]
    values: dict[str, float]
    margin: float

    def describe(self) -> str:
        """One line: the distributions and the values."""
        dists = ", ".join(
            f"{k} = [{', '.join(_fmt(v) for v in x)}]" for k, x in self.distributions.items()
        )
        vals = ", ".join(f"{k} = {_fmt(v)}" for k, v in self.values.items())
        return f"{dists}; {vals}"


@dataclass(frozen=True)
class PropertyResult:
    """One cell of the audit: a metric and a property."""

    metric: str
    property: str
    status: str
    n_applicable: int
    counterexample: Counterexample | None
    note: str = ""


@dataclass(frozen=True)
class AuditResult:
    """The result of :func:`dissensus.audit.audit`.

    Attributes
    ----------
    rows : tuple of PropertyResult
    classes, n_trials, seed : int
        The settings of the run.
    properties : tuple of str
        The property keys, in column order.
    """

    rows: tuple[PropertyResult, ...]
    classes: int
    n_trials: int
    seed: int
    properties: tuple[str, ...]

    @property
    def metrics(self) -> list[str]:
        """Audited metric names, in row order."""
        return list(dict.fromkeys(r.metric for r in self.rows))

    def get(self, metric: str, prop: str) -> PropertyResult:
        """The row of one metric and property."""
        for r in self.rows:
            if r.metric == metric and r.property == prop:
                return r
        msg = f"No audit row for metric {metric!r} and property {prop!r}; metrics: {self.metrics}."
        raise KeyError(msg)

    def status(self, metric: str, prop: str) -> str:
        """``"holds"``, ``"violated"`` or ``"not applicable"``."""
        return self.get(metric, prop).status

    def to_frame(self) -> pd.DataFrame:
        """Tidy table: metric, property, status, n_applicable, counterexample, margin, note."""
        return pd.DataFrame(
            [
                {
                    "metric": r.metric,
                    "property": r.property,
                    "status": r.status,
                    "n_applicable": r.n_applicable,
                    "counterexample": r.counterexample.describe() if r.counterexample else "",
                    "margin": r.counterexample.margin if r.counterexample else float("nan"),
                    "note": r.note,
                }
                for r in self.rows
            ]
        )

    def matrix(self) -> dict[str, dict[str, str]]:
        """``{metric: {property: "✓" | "✗" | "–"}}``."""
        out: dict[str, dict[str, str]] = {m: {} for m in self.metrics}
        for r in self.rows:
            out[r.metric][r.property] = _SYMBOL[r.status]
        return out

    def _repr_html_(self) -> str:
        """Compact notebook view: the ✓/✗ matrix (counterexamples: :meth:`to_markdown`)."""
        head = "".join(f"<th>{html.escape(p)}</th>" for p in self.properties)
        rows = []
        for m, cells in self.matrix().items():
            tds = "".join(f"<td>{cells.get(p, '')}</td>" for p in self.properties)
            rows.append(f"<tr><th>{html.escape(m)}</th>{tds}</tr>")
        caption = (
            f"Audit: {len(self.metrics)} metrics × {len(self.properties)} properties "
            f"({self.classes} classes, {self.n_trials:,} trials, seed {self.seed}); "
            "✓ holds (no counterexample found), ✗ violated, – not applicable. "
            "Counterexamples: <code>.to_markdown()</code>."
        )
        return (
            f'<table class="dissensus-audit"><caption>{caption}</caption>'
            f"<thead><tr><th>metric</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready)."""
        return {
            "classes": self.classes,
            "n_trials": self.n_trials,
            "seed": self.seed,
            "properties": list(self.properties),
            "rows": [asdict(r) for r in self.rows],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False)

    def to_markdown(self) -> str:
        """The ✓/✗ matrix, then every counterexample."""
        head = "| metric | " + " | ".join(self.properties) + " |"
        lines = [head, "|" + "---|" * (len(self.properties) + 1)]
        for m, cells in self.matrix().items():
            lines.append(f"| {m} | " + " | ".join(cells[p] for p in self.properties) + " |")
        lines += ["", "✓ holds (no counterexample found), ✗ violated, – not applicable.", ""]
        lines.append("### Counterexamples")
        lines.append("")
        for r in self.rows:
            if r.counterexample is not None:
                ce = r.counterexample
                lines.append(
                    f"- **{r.metric}, {r.property}** ({ce.clause}): {ce.describe()}; "
                    f"margin {_fmt(ce.margin)}."
                )
        notes = [r for r in self.rows if r.note and r.status != "violated"]
        if notes:
            lines += ["", "### Notes", ""]
            lines += [f"- {r.metric}, {r.property}: {r.note}." for r in notes]
        return "\n".join(lines) + "\n"
