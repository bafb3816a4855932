"""The report's figures as inline SVG strings, drawn with matplotlib's object API.

No pyplot (no global figure state): each function builds a
:class:`matplotlib.figure.Figure`, saves it as SVG inside an
``rc_context`` that fixes the hash salt (same input, same bytes) and turns
text into paths (no font is needed to display the file, none is fetched),
then cleans the SVG for inlining in HTML: no XML prolog or DOCTYPE, no
metadata or comments, no namespace URLs, ids prefixed per figure so that
several figures can share one page, and a ``<title>`` for screen readers.
Lines differ by marker and dash as well as colour, so they survive
greyscale printing.
"""

from __future__ import annotations

import html
import io
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dissensus.report._data import ReportData, count_bins, direction_arrow, lookup

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

__all__ = [
    "Figure_",
    "annotations_histogram",
    "by_bin_figure",
    "figures",
    "forest_figure",
    "svg_from_figure",
]

#: Okabe–Ito colours (colour-blind safe), paired with markers and dashes for greyscale.
_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_DASHES = ("-", "--", ":", "-.")
_INK = "#222222"
_GRID = "#dddddd"

_RC: dict[RcKeyType, Any] = {
    "svg.hashsalt": "dissensus-report",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "font.size": 8.0,
    "axes.titlesize": 9.0,
    "axes.labelsize": 8.0,
    "axes.edgecolor": _INK,
    "axes.labelcolor": _INK,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.axisbelow": True,
    "xtick.color": _INK,
    "ytick.color": _INK,
    "legend.frameon": False,
    "legend.fontsize": 8.0,
    "lines.linewidth": 1.4,
    "lines.markersize": 5.0,
    "savefig.transparent": False,
    "figure.facecolor": "white",
    "path.simplify": True,
}

_METADATA: dict[str, Any] = {"Creator": None, "Date": None, "Format": None, "Type": None}


@dataclass(frozen=True)
class Figure_:  # noqa: N801 - not matplotlib's Figure
    """One report figure: anchor id, caption, alt text and the SVG markup."""

    id: str
    caption: str
    alt: str
    svg: str


def _text(value: object) -> str:
    """User text for matplotlib: ``$`` would switch to mathtext."""
    return str(value).replace("$", r"\$")


def _new_figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure  # noqa: PLC0415 - the report extra is optional

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(\bid="|url\(#|href="#)([^")]+)')


def svg_from_figure(fig: Figure, *, fig_id: str, alt: str) -> str:
    """Save ``fig`` as SVG markup ready to inline in HTML.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (drawn inside the report's ``rc_context``).
    fig_id : str
        Prefix for every id in the SVG, unique within the page.
    alt : str
        Text alternative, written as the SVG's ``<title>``.

    Returns
    -------
    str
        ``<svg ...>...</svg>`` without prolog, metadata, comments or
        namespace URLs; ``role="img"`` and ``aria-labelledby`` point at the
        title.
    """
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata=_METADATA)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.DOTALL)
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.DOTALL)
    # matplotlib's global ``*{stroke-linejoin…}`` rule would leak into the page; report.css scopes it.
    svg = re.sub(r"<style[^>]*>.*?</style>", "", svg, flags=re.DOTALL)
    svg = re.sub(r"<defs>\s*</defs>", "", svg)
    svg = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", svg)
    ids = set(_ID.findall(svg))
    svg = _REF.sub(
        lambda m: f"{m.group(1)}{fig_id}-{m.group(2)}" if m.group(2) in ids else m.group(0), svg
    )
    open_end = svg.index(">") + 1
    root = svg[:open_end]
    # Scale with the page, up to 1.25 times the drawn size (text stays proportionate).
    width = re.search(r'width="([\d.]+)pt"', root)
    limit = f' style="max-width: {1.25 * float(width.group(1)):.0f}pt"' if width else ""
    root = root.replace(
        "<svg ",
        f'<svg role="img" aria-labelledby="{fig_id}-title" class="figure-svg"{limit} ',
        1,
    )
    title = f'<title id="{fig_id}-title">{html.escape(alt)}</title>'
    body = re.sub(r"\n\s*\n", "\n", svg[open_end:])
    return root + title + body.rstrip() + "\n"


def _render(draw: Any, *args: Any, fig_id: str, alt: str) -> str:
    from matplotlib import rc_context  # noqa: PLC0415 - the report extra is optional

    with rc_context(_RC):
        fig = draw(*args)
        return svg_from_figure(fig, fig_id=fig_id, alt=alt)


def _draw_histogram(counts: np.ndarray) -> Figure:
    bins = count_bins(counts)
    fig = _new_figure(max(3.2, 0.42 * len(bins) + 1.2), 2.1)
    ax = fig.subplots()
    x = np.arange(len(bins))
    heights = np.array([n for _, n in bins])
    ax.bar(x, heights, width=0.72, color="#7f9fbf", edgecolor=_INK, linewidth=0.6)
    for xi, h in zip(x, heights, strict=True):
        if h:
            ax.annotate(
                f"{h:,}",
                (xi, h),
                xytext=(0, 2),
                textcoords="offset points",
                ha="center",
                va="bottom",
                fontsize=7,
            )
    ax.set_xticks(x, [label for label, _ in bins])
    ax.set_xlabel("Annotations per item")
    ax.set_ylabel("Items")
    ax.set_ylim(0, heights.max() * 1.15 if heights.size and heights.max() else 1)
    ax.grid(axis="y", color=_GRID, linewidth=0.6)
    return fig


def annotations_histogram(counts: np.ndarray, *, fig_id: str = "fig-annotations") -> Figure_ | None:
    """Bar chart of the number of items per number of annotations (None without items)."""
    counts = np.asarray(counts)
    if counts.size == 0:
        return None
    bins = count_bins(counts)
    top_label, top_n = max(bins, key=lambda b: b[1])
    alt = (
        f"Bar chart of items per number of annotations: {counts.size:,} items, "
        f"most often {top_label} annotations ({top_n:,} items)."
    )
    return Figure_(
        id=fig_id,
        caption=(
            f"Number of items by number of annotations per item ({counts.size:,} items; "
            f"median {np.median(counts):g}, range {counts.min():,}–{counts.max():,})."
        ),
        alt=alt,
        svg=_render(_draw_histogram, counts, fig_id=fig_id, alt=alt),
    )


def _style(i: int) -> dict[str, Any]:
    """Colour, marker and dash of the i-th model; past eight models markers turn hollow."""
    cycle, k = divmod(i, len(_COLOURS))
    colour = _COLOURS[k]
    return {
        "color": colour,
        "marker": _MARKERS[k % len(_MARKERS)],
        "linestyle": _DASHES[(i + cycle) % len(_DASHES)],
        "markerfacecolor": colour if cycle % 2 == 0 else "white",
    }


def _grid_shape(n_panels: int, max_cols: int) -> tuple[int, int]:
    n_cols = min(n_panels, max_cols)
    return -(-n_panels // n_cols), n_cols


def _draw_by_bin(data: ReportData, metrics: list[str]) -> Figure:
    models = data.models
    bins = data.bins()
    n_rows, n_cols = _grid_shape(len(metrics), 2)
    fig = _new_figure(3.5 * n_cols, 2.45 * n_rows + 0.35)
    axes = np.atleast_1d(fig.subplots(n_rows, n_cols, squeeze=False)).ravel()
    table = data.by_bin.assign(
        _bin=data.by_bin["bin"].astype(str),
        _model=data.by_bin["model"].astype(str),
        _metric=data.by_bin["metric"].astype(str),
    )
    items = table.groupby("_bin")["n_items"].max()
    x = np.arange(len(bins))
    ticklabels = [
        f"{label}\nn={int(items[label]):,}" if label in items.index else label for label in bins
    ]
    ax: Axes
    for ax, metric in zip(axes, metrics, strict=False):
        sub = table[table["_metric"] == metric]
        for i, model in enumerate(models):
            rows = sub[sub["_model"] == model].set_index("_bin")["mean"]
            y = np.array([float(rows.get(label, np.nan)) for label in bins])
            ax.plot(x, y, label=_text(model), clip_on=False, **_style(i))
        arrow = direction_arrow(data.lower_is_better(metric))
        better = "lower" if data.lower_is_better(metric) else "higher"
        ax.set_title(_text(f"{metric} ({arrow} {better} is better)"), loc="left")
        ax.set_xticks(x, ticklabels)
        ax.set_xlim(-0.3, len(bins) - 0.7)
        ax.grid(axis="y", color=_GRID, linewidth=0.6)
        ax.tick_params(axis="x", length=0)
    for ax in axes[len(metrics) :]:
        ax.set_visible(False)
    for ax in axes[(n_rows - 1) * n_cols : len(metrics)]:
        ax.set_xlabel("Annotations per item (items per bin)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=min(len(models), 6))
    return fig


def by_bin_figure(data: ReportData, *, fig_id: str = "fig-by-bin") -> Figure_ | None:
    """Mean of each metric per bin of annotations per item: a panel per metric, a line per model."""
    if data.by_bin.empty:
        return None
    present = set(data.by_bin["metric"].astype(str))
    metrics = [m for m in data.metrics if m in present]
    if not metrics or not data.bins():
        return None
    alt = (
        f"Line plots, one panel per metric ({', '.join(metrics)}), of each model's mean score "
        f"against the number of annotations per item (bins {', '.join(data.bins())}); "
        f"one line per model ({', '.join(data.models)})."
    )
    caption = (
        "Mean score per bin of annotations per item, one panel per metric and one line per "
        "model; n is the number of items in the bin. Differences between models are largest "
        "where the lines separate."
    )
    svg = _render(_draw_by_bin, data, metrics, fig_id=fig_id, alt=alt)
    return Figure_(id=fig_id, caption=caption, alt=alt, svg=svg)


def _draw_forest(data: ReportData, metrics: list[str]) -> Figure:
    models = data.models
    n_rows, n_cols = _grid_shape(len(metrics), 4)
    fig = _new_figure(1.85 * n_cols + 0.6, (0.24 * len(models) + 0.75) * n_rows)
    axes = np.atleast_1d(fig.subplots(n_rows, n_cols, squeeze=False, sharey=True)).ravel()
    summary = lookup(data.summary, "metric", "model")
    y = np.arange(len(models))[::-1]
    ax: Axes
    for ax, metric in zip(axes, metrics, strict=False):
        for i, model in enumerate(models):
            row = summary.get((metric, model))
            if row is None:
                continue
            mean, low, high = (float(row[c]) for c in ("mean", "ci_low", "ci_high"))
            style = _style(i)
            filled = style["color"] if bool(row["best"]) else "white"
            err = None
            if np.isfinite(low) and np.isfinite(high):
                err = [[max(mean - low, 0.0)], [max(high - mean, 0.0)]]
            ax.errorbar(
                [mean],
                [y[i]],
                xerr=err,
                fmt=style["marker"],
                color=style["color"],
                markerfacecolor=filled,
                ecolor=_INK,
                elinewidth=0.9,
                capsize=2.0,
            )
        arrow = direction_arrow(data.lower_is_better(metric))
        ax.set_title(_text(f"{metric} {arrow}"), loc="left")
        ax.grid(axis="x", color=_GRID, linewidth=0.6)
        ax.tick_params(axis="y", length=0)
        ax.margins(x=0.15)
        ax.set_ylim(-0.6, len(models) - 0.4)
        ax.locator_params(axis="x", nbins=4)
    axes[0].set_yticks(y, [_text(m) for m in models])
    for ax in axes[len(metrics) :]:
        ax.set_visible(False)
    return fig


def forest_figure(data: ReportData, *, fig_id: str = "fig-summary") -> Figure_ | None:
    """Means with intervals per metric and model; the best model's marker is filled."""
    present = set(data.summary["metric"].astype(str))
    metrics = [m for m in data.metrics if m in present]
    if not metrics:
        return None
    alt = (
        f"Dot-and-interval plots, one panel per metric ({', '.join(metrics)}), of each "
        f"model's mean score with its interval; models {', '.join(data.models)}."
    )
    caption = (
        "Mean per model with its interval, one panel per metric (↓ lower is better, ↑ higher "
        "is better); the best model's marker is filled."
    )
    svg = _render(_draw_forest, data, metrics, fig_id=fig_id, alt=alt)
    return Figure_(id=fig_id, caption=caption, alt=alt, svg=svg)


def figures(data: ReportData) -> dict[str, Figure_]:
    """Every figure the data allows, keyed by its role."""
    out: dict[str, Figure_] = {}
    for key, fig in (
        ("annotations", annotations_histogram(data.annotations_per_item)),
        ("summary", forest_figure(data)),
        ("by_bin", by_bin_figure(data)),
    ):
        if fig is not None:
            out[key] = fig
    return out
