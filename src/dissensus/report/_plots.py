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
import pandas as pd

from dissensus.report._data import ReportData, count_bins, direction_arrow, lookup

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

__all__ = [
    "Figure_",
    "annotations_histogram",
    "annotator_reliability_figure",
    "by_bin_figure",
    "figures",
    "forest_figure",
    "metric_agreement_figure",
    "reversal_item_figures",
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


#: Columns of an aggregation reliability table that measure how reliable an annotator is.
RELIABILITY_COLUMNS = ("competence", "accuracy", "mean_recall")

#: Past this many annotators the figure drops their names and plots ranks.
_NAMED_ANNOTATORS = 40


def _draw_reliability(
    names: list[str], values: np.ndarray, column: str, reference: float | None
) -> Figure:
    n = values.size
    named = n <= _NAMED_ANNOTATORS
    fig = _new_figure(4.2, 0.17 * n + 0.8 if named else 2.6)
    ax = fig.subplots()
    y = np.arange(n)[::-1]  # the best annotator on top
    if named:
        ax.hlines(y, 0.0, values, color=_GRID, linewidth=1.0)
        ax.plot(values, y, "o", color=_COLOURS[0], markersize=4.0)
        ax.set_yticks(y, [_text(v) for v in names])
        ax.tick_params(axis="y", length=0)
        ax.set_ylim(-0.7, n - 0.3)
    else:
        ax.plot(values, np.arange(1, n + 1), "o", color=_COLOURS[0], markersize=2.0)
        ax.invert_yaxis()
        ax.set_ylabel("Annotator rank")
    if reference is not None:
        ax.axvline(reference, color=_COLOURS[1], linestyle="--", linewidth=1.0, label="reference")
        ax.legend(loc="lower right")
    ax.set_xlim(0.0, 1.0 if values.max(initial=0.0) <= 1.0 else None)
    ax.set_xlabel(_text(column.replace("_", " ")))
    ax.grid(axis="x", color=_GRID, linewidth=0.6)
    return fig


def annotator_reliability_figure(
    table: pd.DataFrame,
    *,
    column: str | None = None,
    reference: float | None = None,
    fig_id: str = "fig-annotators",
) -> Figure_ | None:
    """One point per annotator with its reliability, sorted (None for an empty table).

    Parameters
    ----------
    table : DataFrame
        A reliability table of :mod:`dissensus.aggregation` (``reliability()``
        of a fitted model): one row per annotator, indexed by annotator.
    column : str, optional
        The column to plot. Default: the first of ``competence``, ``accuracy``,
        ``mean_recall`` present.
    reference : float, optional
        A vertical reference line (e.g. chance accuracy ``1 / K``), drawn as
        given.
    fig_id : str, default "fig-annotators"
        Prefix of the SVG's ids.
    """
    if column is None:
        present = [c for c in RELIABILITY_COLUMNS if c in table.columns]
        if not present:
            msg = (
                f"The reliability table has none of the columns {list(RELIABILITY_COLUMNS)}; "
                f"it has {list(table.columns)}. Pass column=."
            )
            raise ValueError(msg)
        column = present[0]
    elif column not in table.columns:
        msg = f"The reliability table has no column {column!r}; it has {list(table.columns)}."
        raise ValueError(msg)
    values = table[column].to_numpy(dtype=np.float64)
    keep = np.isfinite(values)
    if not keep.any():
        return None
    order = np.argsort(-values[keep], kind="stable")
    values = values[keep][order]
    names = [str(v) for v in np.asarray(table.index, dtype=object)[keep][order]]
    label = column.replace("_", " ")
    alt = (
        f"Dot plot of the {label} of {values.size:,} annotators, sorted: from "
        f"{values[0]:.2f} ({names[0]}) to {values[-1]:.2f} ({names[-1]})."
    )
    caption = (
        f"Annotator {label}, sorted, one point per annotator ({values.size:,} annotators; "
        f"median {np.median(values):.2f})."
    )
    svg = _render(_draw_reliability, names, values, column, reference, fig_id=fig_id, alt=alt)
    return Figure_(id=fig_id, caption=caption, alt=alt, svg=svg)


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
            if not np.isfinite(mean):  # shown as ∞ in the summary table; no point to draw
                continue
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


def _draw_agreement(metrics: list[str], tau: np.ndarray) -> Figure:
    size = 0.42 * len(metrics) + 1.9
    fig = _new_figure(size, size)
    ax = fig.subplots()
    # vector cells (pcolormesh), not imshow: the SVG must not embed a raster image
    edges = np.arange(len(metrics) + 1) - 0.5
    ax.pcolormesh(edges, edges, np.ma.masked_invalid(tau), vmin=-1.0, vmax=1.0, cmap="RdBu")
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(edges[-1], edges[0])
    ax.set_aspect("equal")
    for (i, j), value in np.ndenumerate(tau):
        if np.isfinite(value):
            ax.text(
                j,
                i,
                f"{value:.2f}".replace("-", "−"),
                ha="center",
                va="center",
                fontsize=6.5,
                color="white" if abs(value) > 0.6 else _INK,
            )
    names = [_text(m) for m in metrics]
    ax.set_xticks(np.arange(len(metrics)), names, rotation=45, ha="right")
    ax.set_yticks(np.arange(len(metrics)), names)
    ax.tick_params(length=0)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    return fig


def metric_agreement_figure(data: ReportData, *, fig_id: str = "fig-agreement") -> Figure_ | None:
    """Kendall's τ between the rankings of every two metrics, as a heatmap (None below 3 metrics)."""
    table = data.metric_agreement
    metrics = [
        m
        for m in data.metrics
        if m in set(table["metric_1"].astype(str)) | set(table["metric_2"].astype(str))
    ]
    if len(metrics) < 3:
        return None
    index = {m: i for i, m in enumerate(metrics)}
    tau = np.full((len(metrics), len(metrics)), np.nan)
    np.fill_diagonal(tau, 1.0)
    for rec in table.itertuples(index=False):
        i, j = index.get(str(rec.metric_1)), index.get(str(rec.metric_2))
        if i is not None and j is not None:
            tau[i, j] = tau[j, i] = float(rec.kendall_tau)  # type: ignore[arg-type]
    alt = (
        f"Heatmap of Kendall's tau between the model rankings of {len(metrics)} metrics; "
        "blue: the two metrics rank the models alike, red: in opposite orders."
    )
    caption = (
        "How alike each two metrics rank the models: Kendall's τ between their rankings, "
        "from 1 (same order, dark blue) to −1 (reversed, dark red); blank when undefined. "
        "The full table is in the appendix."
    )
    svg = _render(_draw_agreement, metrics, tau, fig_id=fig_id, alt=alt)
    return Figure_(id=fig_id, caption=caption, alt=alt, svg=svg)


def _draw_items(block: Any, labels: list[str], series: list[str]) -> Figure:
    items = list(dict.fromkeys(block["item"].astype(str)))
    n_cols = len(items)
    fig = _new_figure(min(2.3 * n_cols + 0.4, 9.6), 2.1)
    axes = np.atleast_1d(fig.subplots(1, n_cols, squeeze=False, sharey=True)).ravel()
    x = np.arange(len(labels))
    width = 0.84 / len(series)
    greys = {"observed": "#555555", "posterior mean": "#bbbbbb"}
    model_index = 0
    colours: dict[str, str] = {}
    for name in series:
        if name in greys:
            colours[name] = greys[name]
        else:
            colours[name] = _COLOURS[model_index % len(_COLOURS)]
            model_index += 1
    ax: Axes
    for ax, item in zip(axes, items, strict=True):
        sub = block[block["item"].astype(str) == item]
        for k, name in enumerate(series):
            rows = sub[sub["series"].astype(str) == name].set_index("label")["value"]
            y = np.array([float(rows.get(label, np.nan)) for label in labels])
            hatch = "///" if name == "posterior mean" else None
            ax.bar(
                x - 0.42 + width * (k + 0.5),
                y,
                width=width,
                color=colours[name],
                edgecolor=_INK,
                linewidth=0.3,
                hatch=hatch,
                label=_text(name),
            )
        n = int(sub["n_annotations"].iloc[0])
        ax.set_title(_text(f"{item} (n={n})"), loc="left")
        ax.set_xticks(x, [_text(label) for label in labels], rotation=45 if len(labels) > 4 else 0)
        ax.grid(axis="y", color=_GRID, linewidth=0.6)
        ax.tick_params(axis="x", length=0)
    axes[0].set_ylabel("Probability")
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside upper center", ncols=min(len(series), 6))
    return fig


def reversal_item_figures(data: ReportData) -> list[Figure_]:
    """Per reversal, its items as small multiples: observed shares, posterior mean, predictions."""
    table = data.reversal_items
    if table is None or table.empty:
        return []
    labels = [str(v) for v in data.dataset["labels"]]
    out = []
    for k, name in enumerate(pd.unique(table["reversal"].astype(str)), start=1):
        block = table[table["reversal"].astype(str) == name]
        series = list(dict.fromkeys(block["series"].astype(str)))
        first = block.iloc[0]
        fig_id = f"fig-items-{k}"
        counts = block.drop_duplicates("item")
        described = ", ".join(
            f"{item} (n={int(n)})"
            for item, n in zip(counts["item"], counts["n_annotations"], strict=True)
        )
        alt = (
            f"Bar charts of the items behind the reversal {name}: {described}; for each item, "
            "the observed label shares, the posterior mean and each model's prediction."
        )
        caption = (
            f"{name}: {first['better_1']} is better under {first['metric_1']}, "
            f"{first['better_2']} under {first['metric_2']}. These items push the two metrics "
            "apart the most; n is the item's number of annotations. Dark bars: observed "
            "shares; hatched: posterior mean; coloured: each model's prediction."
        )
        svg = _render(_draw_items, block, labels, series, fig_id=fig_id, alt=alt)
        out.append(Figure_(id=fig_id, caption=caption, alt=alt, svg=svg))
    return out


def figures(data: ReportData) -> dict[str, Figure_]:
    """Every figure the data allows, keyed by its role."""
    out: dict[str, Figure_] = {}
    for key, fig in (
        ("annotations", annotations_histogram(data.annotations_per_item)),
        ("summary", forest_figure(data)),
        ("by_bin", by_bin_figure(data)),
        ("agreement", metric_agreement_figure(data)),
        (
            "annotators",
            None
            if data.annotator_reliability is None
            else annotator_reliability_figure(
                data.annotator_reliability,
                # chance accuracy; MACE's competence is P(not spamming), with no chance level
                reference=None
                if "competence" in data.annotator_reliability.columns
                else 1.0 / len(data.dataset["labels"]),
            ),
        ),
    ):
        if fig is not None:
            out[key] = fig
    return out
