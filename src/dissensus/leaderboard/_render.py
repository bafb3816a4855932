"""Markdown and HTML renderings of a :class:`Leaderboard`, with a bump chart of ranks."""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING, Any

from dissensus.report._markdown import escape_markdown

if TYPE_CHECKING:
    import pandas as pd

    from dissensus.leaderboard._board import Leaderboard

__all__ = ["bump_chart_svg", "render_html", "render_markdown"]

_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf")  # fmt: skip


def _num(x: Any, digits: int = 4) -> str:
    if isinstance(x, float):
        if math.isnan(x):
            return "–"
        return f"{x:.{digits}g}"
    return str(x)


def _md_table(frame: pd.DataFrame) -> list[str]:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(escape_markdown(str(c)) for c in cols) + " |",
             "|" + "---|" * len(cols)]  # fmt: skip
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(escape_markdown(_num(v)) for v in row) + " |")
    return lines


def _rerank_view(board: Leaderboard) -> pd.DataFrame:
    t = board.rerank.copy()
    t["re-ranked"] = [f"{100 * v:.0f}%" for v in t["share_reranked"]]
    t["position change"] = [
        f"{m:.2f} ± {s:.2f}" for m, s in zip(t["mean_abs_change"], t["sd_abs_change"], strict=True)
    ]
    t["Kendall τ"] = [_num(v, 3) for v in t["kendall_tau"]]
    t["metrics"] = [f"{a} vs {b}" for a, b in zip(t["metric_1"], t["metric_2"], strict=True)]
    return t[["dataset", "metrics", "re-ranked", "position change", "Kendall τ"]]


def render_markdown(board: Leaderboard) -> str:
    """Ranks per dataset, Table 2 (re-ranking per pair of metrics), adjacent-rank tests."""
    lines = ["# Leaderboard under several metrics", ""]
    for name in board.datasets:
        lines += [f"## {escape_markdown(name)}: ranks (1 = best)", ""]
        lines += _md_table(board.ranks(name).reset_index())
        lines.append("")
    if len(board.datasets) > 1:
        lines += ["## Mean rank over the datasets", ""]
        lines += _md_table(board.ranks("average").reset_index())
        lines.append("")
    lines += ["## How the metric re-ranks the teams (seed 001, Table 2)", ""]
    lines += _md_table(_rerank_view(board))
    lines += ["", "## Adjacent teams, top to bottom (p-values)", ""]
    lines += _md_table(board.adjacent)
    return "\n".join(lines) + "\n"


def bump_chart_svg(ranks: pd.DataFrame, *, title: str = "") -> str:
    """An SVG bump chart: one line per team (rows) across the metrics (columns)."""
    teams = [str(t) for t in ranks.index]
    metrics = [str(m) for m in ranks.columns]
    n = max(len(teams), 1)
    left, right, top, step_x, step_y = 150, 150, 50, 120, 28
    width = left + right + step_x * max(len(metrics) - 1, 1)
    height = top + step_y * n + 30

    def xy(c: int, r: float) -> tuple[float, float]:
        return left + step_x * c, top + step_y * (r - 1)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12" role="img">']  # fmt: skip
    if title:
        out.append(f'<text x="{left}" y="18" font-weight="bold">{html.escape(title)}</text>')
    for c, m in enumerate(metrics):
        x, _ = xy(c, 1)
        out.append(f'<text x="{x}" y="{top - 18}" text-anchor="middle">{html.escape(m)}</text>')
    for i, team in enumerate(teams):
        colour = _PALETTE[i % len(_PALETTE)]
        vals = [float(v) for v in ranks.iloc[i].tolist()]
        pts = [xy(c, r) for c, r in enumerate(vals) if not math.isnan(r)]
        if not pts:
            continue
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, y in pts:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>')
        (x0, y0), (x1, y1) = pts[0], pts[-1]
        label = html.escape(team)
        out.append(f'<text x="{x0 - 10:.1f}" y="{y0 + 4:.1f}" text-anchor="end">{label} '
                   f'({vals[0]:.0f})</text>')  # fmt: skip
        out.append(f'<text x="{x1 + 10:.1f}" y="{y1 + 4:.1f}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out)


def render_html(board: Leaderboard) -> str:
    """A self-contained HTML page: bump charts, leaderboards, Table 2, adjacent tests."""
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Leaderboard</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
        "padding:3px 8px;text-align:right}th{background:#f4f4f4}</style></head><body>",
        "<h1>Leaderboard under several metrics</h1>",
    ]
    names = list(board.datasets) + (["average"] if len(board.datasets) > 1 else [])
    for name in names:
        title = "Mean rank over the datasets" if name == "average" else f"{name}: ranks"
        ranks = board.ranks(name)
        parts.append(f"<h2>{html.escape(title)}</h2>")
        parts.append(bump_chart_svg(ranks))
        parts.append(ranks.reset_index().to_html(index=False, float_format=lambda v: f"{v:.4g}"))
    parts.append("<h2>How the metric re-ranks the teams (seed 001, Table 2)</h2>")
    parts.append(_rerank_view(board).to_html(index=False))
    parts.append("<h2>Adjacent teams, top to bottom (p-values)</h2>")
    parts.append(board.adjacent.to_html(index=False, float_format=lambda v: f"{v:.4g}"))
    parts.append("</body></html>")
    return "\n".join(parts)
