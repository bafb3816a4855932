"""The evaluation report's figures, drawn in the house style of :mod:`dissensus.report`.

The annotations-per-item histogram, the annotators' reliability, the
dot-and-interval summary, the means per bin of annotations per item, the
metric-agreement heatmap and the items behind the strongest reversals. Each
is a document :class:`~dissensus.report.Figure` (inline SVG with a caption
and alt text), or None when the data do not allow it.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus.report import (
    COLOURS,
    GRID,
    INK,
    Figure,
    format_number,
    new_figure,
    panels,
    plot_text,
    render_figure,
    series_style,
    top_legend,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure as MplFigure

    from dissensus.evaluation._data import ReportData


#: Columns of an aggregation reliability table that measure how reliable an annotator is.
RELIABILITY_COLUMNS = ("competence", "accuracy", "mean_recall")
#: Past this many annotators the reliability figure drops their names and plots ranks.
_NAMED_ANNOTATORS = 40


def count_bins(counts: npt.NDArray[np.int64], *, max_bars: int = 15) -> list[tuple[str, int]]:
    """Items per number of annotations: exact counts, or widening bins when there are many.

    Examples
    --------
    >>> count_bins(np.array([2, 2, 3, 5]))
    [('2', 2), ('3', 1), ('5', 1)]
    >>> count_bins(np.arange(1, 41), max_bars=5)
    [('1', 1), ('2', 1), ('3', 1), ('4', 1), ('5', 1), ('6–10', 5), ('11–20', 10), ('21–50', 20)]
    """
    values, freq = np.unique(counts, return_counts=True)
    if values.size <= max_bars:
        return [(str(int(v)), int(f)) for v, f in zip(values, freq, strict=True)]
    # 1, 2, ..., 5 exactly, then 6–10, 11–20, 21–50, 51–100, ... (a 1-2-5 sequence)
    edges, decade = [0, 1, 2, 3, 4, 5, 6], 10
    while edges[-1] <= counts.max():
        edges.extend(m * decade + 1 for m in (1, 2, 5))
        decade *= 10
    bins: list[tuple[str, int]] = []
    for low, high in itertools.pairwise(edges):
        n_in = int(np.count_nonzero((counts >= low) & (counts < high)))
        if n_in or bins:
            bins.append((str(low) if high - low == 1 else f"{low}–{high - 1}", n_in))
    while bins and bins[-1][1] == 0:
        bins.pop()
    return bins


def _draw_histogram(bins: list[tuple[str, int]]) -> MplFigure:
    # room for the longest label under each bar: 8 pt DejaVu Sans is about 0.07 in per character
    per_bar = max(0.42, 0.075 * max((len(label) for label, _ in bins), default=0) + 0.12)
    fig = new_figure(max(3.2, per_bar * len(bins) + 1.2), 2.1)
    ax = fig.subplots()
    x = np.arange(len(bins))
    heights = np.array([n for _, n in bins])
    ax.bar(x, heights, width=0.72, color="#7f9fbf", edgecolor=INK, linewidth=0.6)
    for xi, h in zip(x, heights, strict=True):
        if h:
            ax.annotate(f"{h:,}", (xi, h), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7)  # fmt: skip
    ax.set_xticks(x, [label for label, _ in bins])
    ax.set_xlabel("Annotations per item")
    ax.set_ylabel("Items")
    ax.set_ylim(0, heights.max() * 1.15 if heights.size and heights.max() else 1)
    ax.grid(axis="y")
    return fig


def annotations_histogram(counts: npt.NDArray[np.int64]) -> Figure | None:
    """Bar chart of the number of items per number of annotations (None without items)."""
    if counts.size == 0:
        return None
    bins = count_bins(counts)
    top_label, top_n = max(bins, key=lambda b: b[1])
    alt = (
        f"Bar chart of items per number of annotations: {counts.size:,} items, "
        f"most often {top_label} annotations ({top_n:,} items)."
    )
    caption = (
        f"Number of items by number of annotations per item ({counts.size:,} items; "
        f"median {np.median(counts):g}, range {counts.min():,}–{counts.max():,})."
    )
    return render_figure(_draw_histogram, bins, id="fig-annotations", caption=caption, alt=alt)


def _draw_reliability(
    names: list[str], values: np.ndarray, column: str, reference: float | None
) -> MplFigure:
    n = values.size
    named = n <= _NAMED_ANNOTATORS
    fig = new_figure(4.2, 0.17 * n + 0.8 if named else 2.6)
    ax = fig.subplots()
    if named:
        y = np.arange(n)[::-1]  # the best annotator on top
        ax.hlines(y, 0.0, values, color=GRID, linewidth=1.0)
        ax.plot(values, y, "o", color=COLOURS[0], markersize=4.0)
        ax.set_yticks(y, [plot_text(v) for v in names])
        ax.tick_params(axis="y", length=0)
        ax.set_ylim(-0.7, n - 0.3)
    else:
        ax.plot(values, np.arange(1, n + 1), "o", color=COLOURS[0], markersize=2.0)
        ax.invert_yaxis()
        ax.set_ylabel("Annotator rank")
    if reference is not None:
        ax.axvline(reference, color=COLOURS[1], linestyle="--", linewidth=1.0, label="reference")
        ax.legend(loc="lower right")
    ax.set_xlim(0.0, 1.0 if values.max(initial=0.0) <= 1.0 else None)
    ax.set_xlabel(plot_text(column.replace("_", " ")))
    ax.grid(axis="x")
    return fig


def annotator_reliability_figure(
    table: pd.DataFrame, *, column: str | None = None, reference: float | None = None
) -> Figure | None:
    """One point per annotator with its reliability, sorted (None for an empty table).

    ``table`` is an aggregation model's ``reliability()`` (one row per
    annotator); ``column`` defaults to the first of :data:`RELIABILITY_COLUMNS`
    present; ``reference`` draws a vertical line (e.g. chance accuracy 1/K).
    """
    if column is None:
        present = [c for c in RELIABILITY_COLUMNS if c in table.columns]
        if not present:
            msg = f"The reliability table has none of the columns {list(RELIABILITY_COLUMNS)}; it has {list(table.columns)}. Pass column=."
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
    first, last, median = (
        format_number(v, digits=2, fixed=True) for v in (values[0], values[-1], np.median(values))
    )
    alt = (
        f"Dot plot of the {label} of {values.size:,} annotators, sorted: from "
        f"{first} ({names[0]}) to {last} ({names[-1]})."
    )
    caption = (
        f"Annotator {label}, sorted, one point per annotator ({values.size:,} annotators; "
        f"median {median})."
    )
    args = (names, values, column, reference)
    return render_figure(_draw_reliability, *args, id="fig-annotators", caption=caption, alt=alt)


def _draw_by_bin(data: ReportData, metrics: list[str]) -> MplFigure:
    bins = data.bins()
    fig, axes = panels(len(metrics), max_cols=2, size=(3.5, 2.45), pad=(0.0, 0.35))
    table = data.by_bin.astype({"bin": str, "model": str, "metric": str})
    items = table.groupby("bin")["n_items"].max()
    x = np.arange(len(bins))
    ticks = [f"{b}\nn={int(items[b]):,}" if b in items.index else b for b in bins]
    for ax, metric in zip(axes, metrics, strict=False):
        sub = table[table["metric"] == metric]
        for i, model in enumerate(data.models):
            rows = sub[sub["model"] == model].set_index("bin")["mean"]
            y = np.array([float(rows.get(label, np.nan)) for label in bins])
            ax.plot(x, y, label=plot_text(model), clip_on=False, **series_style(i))
        arrow, better = ("↓", "lower") if data.lower_is_better(metric) else ("↑", "higher")
        ax.set_title(plot_text(f"{metric} ({arrow} {better} is better)"), loc="left")
        ax.set_xticks(x, ticks)
        ax.set_xlim(-0.3, len(bins) - 0.7)
        ax.grid(axis="y")
        ax.tick_params(axis="x", length=0)
    n_cols = min(len(metrics), 2)
    for ax in axes[(len(axes) // n_cols - 1) * n_cols : len(metrics)]:
        ax.set_xlabel("Annotations per item (items per bin)")
    top_legend(fig, axes[0])
    return fig


def _draw_forest(data: ReportData, metrics: list[str]) -> MplFigure:
    models = data.models
    size = (1.85, 0.24 * len(models) + 0.75)
    fig, axes = panels(len(metrics), max_cols=4, size=size, pad=(0.6, 0.0), sharey=True)
    summary = data.summary.astype({"metric": str, "model": str})
    y = np.arange(len(models))[::-1]
    for ax, metric in zip(axes, metrics, strict=False):
        rows = summary[summary["metric"] == metric].drop_duplicates("model").set_index("model")
        for i, model in enumerate(models):
            if model not in rows.index:
                continue
            mean, low, high = rows.loc[model, ["mean", "ci_low", "ci_high"]].to_numpy(dtype=float)
            if not np.isfinite(mean):  # shown as ∞ in the summary table; no point to draw
                continue
            style = series_style(i)
            finite = np.isfinite([low, high]).all()
            err = [[max(mean - low, 0.0)], [max(high - mean, 0.0)]] if finite else None
            ax.errorbar(
                [mean], [y[i]], xerr=err, fmt=style["marker"], color=style["color"],
                markerfacecolor=style["color"] if bool(rows.loc[model, "best"]) else "white",
                ecolor=INK, elinewidth=0.9, capsize=0.0,
            )  # fmt: skip
        ax.set_title(plot_text(data.label(metric)), loc="left")
        ax.grid(axis="x")
        ax.tick_params(axis="y", length=0)
        ax.margins(x=0.15)
        ax.set_ylim(-0.6, len(models) - 0.4)
        ax.locator_params(axis="x", nbins=4)
    axes[0].set_yticks(y, [plot_text(m) for m in models])
    return fig


def _draw_agreement(metrics: list[str], tau: np.ndarray) -> MplFigure:
    size = 0.42 * len(metrics) + 1.9
    fig = new_figure(size, size)
    ax = fig.subplots()
    # vector cells (pcolormesh), not imshow: the SVG must not embed a raster image
    edges = np.arange(len(metrics) + 1) - 0.5
    ax.pcolormesh(edges, edges, np.ma.masked_invalid(tau), vmin=-1.0, vmax=1.0, cmap="RdBu")
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(edges[-1], edges[0])
    ax.set_aspect("equal")
    for (i, j), value in np.ndenumerate(tau):
        if np.isfinite(value):
            colour = "white" if abs(value) > 0.6 else INK
            ax.text(j, i, format_number(value, digits=2, fixed=True), ha="center", va="center",
                    fontsize=6.5, color=colour)  # fmt: skip
    names = [plot_text(m) for m in metrics]
    ax.set_xticks(np.arange(len(metrics)), names, rotation=45, ha="right")
    ax.set_yticks(np.arange(len(metrics)), names)
    ax.tick_params(length=0)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    return fig


def metric_agreement_figure(data: ReportData) -> Figure | None:
    """Kendall's τ between the rankings of every two metrics, as a heatmap (None below 3 metrics)."""
    table = data.metric_agreement
    named = set(table["metric_1"].astype(str)) | set(table["metric_2"].astype(str))
    metrics = [m for m in data.metrics if m in named]
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
    return render_figure(
        _draw_agreement, metrics, tau, id="fig-agreement", caption=caption, alt=alt
    )


def _draw_items(block: pd.DataFrame, labels: list[str], series: list[str]) -> MplFigure:
    items = list(dict.fromkeys(block["item"].astype(str)))
    fig = new_figure(min(2.3 * len(items) + 0.4, 9.6), 2.1)
    axes = np.atleast_1d(fig.subplots(1, len(items), squeeze=False, sharey=True)).ravel()
    x = np.arange(len(labels))
    width = 0.84 / len(series)
    greys = {"observed": "#555555", "posterior mean": "#bbbbbb"}
    models = itertools.cycle(COLOURS)
    colours = {name: greys[name] if name in greys else next(models) for name in series}
    for ax, item in zip(axes, items, strict=True):
        sub = block[block["item"].astype(str) == item]
        for k, name in enumerate(series):
            rows = sub[sub["series"].astype(str) == name].set_index("label")["value"]
            y = np.array([float(rows.get(label, np.nan)) for label in labels])
            ax.bar(
                x - 0.42 + width * (k + 0.5), y, width=width, color=colours[name], edgecolor=INK,
                linewidth=0.3, hatch="///" if name == "posterior mean" else None, label=plot_text(name),
            )  # fmt: skip
        ax.set_title(plot_text(f"{item} (n={int(sub['n_annotations'].iloc[0])})"), loc="left")
        ax.set_xticks(x, [plot_text(v) for v in labels], rotation=45 if len(labels) > 4 else 0)
        ax.grid(axis="y")
        ax.tick_params(axis="x", length=0)
    axes[0].set_ylabel("Probability")
    top_legend(fig, axes[0])
    return fig


def reversal_item_figures(data: ReportData) -> list[Figure]:
    """Per reversal, its items as small multiples: observed shares, posterior mean, predictions."""
    table = data.reversal_items
    if table is None or table.empty:
        return []
    labels = [str(v) for v in data.dataset["labels"]]
    out = []
    for k, name in enumerate(pd.unique(table["reversal"].astype(str)), start=1):
        block = table[table["reversal"].astype(str) == name]
        first = block.iloc[0]
        # the two models of the reversal only: the others' bars would hide theirs
        shown = {"observed", "posterior mean", str(first["better_1"]), str(first["better_2"])}
        block = block[block["series"].astype(str).isin(shown)]
        series = list(dict.fromkeys(block["series"].astype(str)))
        counts = block.drop_duplicates("item")
        pairs = zip(counts["item"], counts["n_annotations"], strict=True)
        described = ", ".join(f"{item} (n={int(n)})" for item, n in pairs)
        alt = (
            f"Bar charts of the items behind the reversal {name}: {described}; for each item, "
            f"the observed label shares, the posterior mean and the predictions of "
            f"{first['better_1']} and {first['better_2']}."
        )
        caption = (
            f"{name}: {first['better_1']} is better under {first['metric_1']}, "
            f"{first['better_2']} under {first['metric_2']}. These items push the two metrics "
            "apart the most; n is the item's number of annotations. Dark bars: observed "
            "shares; hatched: posterior mean; coloured: the two models' predictions."
        )
        args = (block, labels, series)
        out.append(render_figure(_draw_items, *args, id=f"fig-items-{k}", caption=caption, alt=alt))
    return out


def _verdict_forms(data: ReportData, available: set[str]) -> list[str]:
    """The metric forms the verdict rests on (one per metric), else every available metric.

    The per-metric figures show what the verdict uses (e.g. ``debiased[emd]`` and ``rps``),
    not all three estimators of every metric: the tables hold the rest, and a panel per
    form would triple the figures (and the report's size) without a new answer.
    """
    forms = [str(f) for f in data.verdict.get("form", pd.Series(dtype=object)).dropna()]
    chosen = [f for f in dict.fromkeys(forms) if f in available]
    return chosen or [m for m in data.metrics if m in available]


def report_figures(data: ReportData) -> dict[str, Figure]:
    """Every figure the data allow, keyed by its role (``annotations``, ``summary``, ...)."""
    out: dict[str, Figure | None] = {
        "annotations": annotations_histogram(data.annotations_per_item)
    }
    metrics = _verdict_forms(data, set(data.summary["metric"].astype(str)))
    if metrics:
        alt = (
            f"Dot-and-interval plots, one panel per metric ({', '.join(metrics)}), of each "
            f"model's mean score with its interval; models {', '.join(data.models)}."
        )
        caption = (
            "Mean per model with its interval, one panel per metric in the form the verdict uses "
            "(↓ lower is better, ↑ higher is better); the best model's marker is filled."
        )
        out["summary"] = render_figure(
            _draw_forest, data, metrics, id="fig-summary", caption=caption, alt=alt
        )
    metrics = _verdict_forms(data, set(data.by_bin["metric"].astype(str)))
    if metrics and data.bins():
        alt = (
            f"Line plots, one panel per metric ({', '.join(metrics)}), of each model's mean score "
            f"against the number of annotations per item (bins {', '.join(data.bins())}); "
            f"one line per model ({', '.join(data.models)})."
        )
        caption = (
            "Mean score per bin of annotations per item, one panel per metric (in the form the "
            "verdict uses) and one line per model; n is the number of items in the bin. Differences between models are largest "
            "where the lines separate."
        )
        out["by_bin"] = render_figure(
            _draw_by_bin, data, metrics, id="fig-by-bin", caption=caption, alt=alt
        )
    out["agreement"] = metric_agreement_figure(data)
    reliability = data.annotator_reliability
    if reliability is not None:
        # chance accuracy; MACE's competence is P(not spamming), with no chance level
        chance = None if "competence" in reliability.columns else 1.0 / len(data.dataset["labels"])
        out["annotators"] = annotator_reliability_figure(reliability, reference=chance)
    return {key: fig for key, fig in out.items() if fig is not None}
