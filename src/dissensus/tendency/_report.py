"""Tables and an HTML page for a DIC study: heatmaps, MDS scatter, tau curves.

Figures reuse the report's SVG machinery (:mod:`dissensus.report._plots`):
matplotlib's object API, byte-stable SVG, text as paths.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from dissensus.report._plots import (
    _COLOURS,
    _GRID,
    _INK,
    Figure_,
    _new_figure,
    _render,
    _style,
    _text,
)
from dissensus.tendency._bae import aligned_embeddings
from dissensus.tendency._consistency import DICResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "TendencyStudy",
    "dic_table",
    "heatmap_figure",
    "mds_figure",
    "tau_figure",
    "write_report",
]


@dataclass(frozen=True)
class TendencyStudy:
    """Everything one report shows.

    Attributes
    ----------
    results : mapping name -> DICResult
        The evaluated predictions (the model and/or baselines), same truth.
    tau_curves : mapping name -> DataFrame
        :func:`tau_curve` output per name (may be empty).
    notes : list of str
        Lines printed under the title (data, split, choices).
    """

    results: Mapping[str, DICResult]
    tau_curves: Mapping[str, pd.DataFrame]
    notes: list[str]


def dic_table(results: Mapping[str, DICResult]) -> pd.DataFrame:
    """One row per prediction set: DIC, its interval, pairs used and left out."""
    rows = []
    for name, r in results.items():
        interval = r.confidence_interval
        rows.append(
            {
                "predictions": name,
                "dic": r.statistic,
                "ci_low": interval.low if interval is not None else math.nan,
                "ci_high": interval.high if interval is not None else math.nan,
                "bootstrap_bias": r.bootstrap_bias,
                "n_pairs": r.n_pairs,
                "n_pairs_undefined": r.n_pairs_undefined,
                "measure": r.measure,
                "min_overlap": r.min_overlap,
            }
        )
    return pd.DataFrame(rows)


def _draw_heatmaps(panels: list[tuple[str, pd.DataFrame]], vmin: float, vmax: float) -> Figure:
    R = panels[0][1].shape[0]
    side = min(5.0, max(2.2, 0.22 * R + 1.0))
    fig = _new_figure(side * len(panels) + 0.8, side + 0.3)
    axes = np.atleast_1d(fig.subplots(1, len(panels), squeeze=False)).ravel()
    image = None
    labels = [_text(a) for a in panels[0][1].index]
    for ax, (title, M) in zip(axes, panels, strict=True):
        data = np.ma.masked_invalid(M.to_numpy(dtype=np.float64))
        image = ax.imshow(data, cmap="RdBu_r", vmin=vmin, vmax=vmax, interpolation="nearest")
        ax.set_title(_text(title), loc="left")
        ticks = np.arange(R)
        if R <= 30:
            ax.set_xticks(ticks, labels, rotation=90, fontsize=6)
            ax.set_yticks(ticks, labels, fontsize=6)
        else:
            ax.set_xticks([])
            ax.set_yticks([])
        ax.set_facecolor("#eeeeee")  # undefined pairs show as grey
    if image is not None:
        fig.colorbar(image, ax=list(axes), shrink=0.8, label="pair agreement")
    return fig


def heatmap_figure(
    true: pd.DataFrame,
    predicted: Mapping[str, pd.DataFrame],
    *,
    measure: str,
    fig_id: str = "fig-heatmaps",
) -> Figure_:
    """True and predicted consistency matrices side by side, one colour scale (grey = undefined)."""
    panels = [("true", true), *predicted.items()]
    values = np.concatenate([M.to_numpy(dtype=np.float64).ravel() for _, M in panels])
    finite = values[np.isfinite(values)]
    low = float(min(-1.0, finite.min())) if finite.size and finite.min() < 0 else 0.0
    vmin, vmax = (-1.0, 1.0) if low < 0 else (0.0, 1.0)
    alt = f"Heatmaps of the {measure} consistency matrices: {', '.join(n for n, _ in panels)}."
    return Figure_(
        id=fig_id,
        caption=(
            f"Pairwise {measure} of the annotators, true and predicted, on one colour scale "
            f"[{vmin:g}, {vmax:g}]; grey: pair below the minimum overlap or undefined."
        ),
        alt=alt,
        svg=_render(_draw_heatmaps, panels, vmin, vmax, fig_id=fig_id, alt=alt),
    )


def _draw_mds(emb_true: pd.DataFrame, emb_pred: pd.DataFrame, name: str) -> Figure:
    fig = _new_figure(4.2, 3.6)
    ax = fig.subplots()
    t, p = emb_true.to_numpy(), emb_pred.to_numpy()
    for a in range(t.shape[0]):
        ax.plot([t[a, 0], p[a, 0]], [t[a, 1], p[a, 1]], color=_GRID, linewidth=0.8, zorder=1)
    ax.scatter(t[:, 0], t[:, 1], color=_COLOURS[0], marker="o", label="true", zorder=2)
    ax.scatter(p[:, 0], p[:, 1], color=_COLOURS[1], marker="s", label=_text(name), zorder=2)
    if t.shape[0] <= 20:
        for a, label in enumerate(emb_true.index):
            ax.annotate(
                _text(label),
                t[a],
                xytext=(3, 3),
                textcoords="offset points",
                fontsize=6,
                color=_INK,
            )
    ax.set_xlabel("MDS 1")
    ax.set_ylabel("MDS 2")
    ax.set_aspect("equal", adjustable="datalim")
    ax.legend(loc="best")
    return fig


def mds_figure(
    true: pd.DataFrame,
    predicted: pd.DataFrame,
    *,
    name: str,
    seed: int = 0,
    fig_id: str = "fig-mds",
) -> Figure_ | None:
    """MDS of 1 − M and 1 − M', the predicted embedding Procrustes-aligned to the true one.

    None when a matrix has an undefined pair (MDS needs every distance).
    """
    aligned = aligned_embeddings(true, predicted, seed=seed)
    if aligned is None:
        return None
    e_t, e_p, disparity = aligned
    alt = f"Scatter of annotators in two MDS dimensions, true and {name}, Procrustes disparity {disparity:.3f}."
    return Figure_(
        id=fig_id,
        caption=(
            f"Annotators placed by metric MDS of 1 − agreement: true (circles) and {name} "
            f"(squares, Procrustes-aligned; lines join each annotator's two points). "
            f"Procrustes disparity {disparity:.3f}."
        ),
        alt=alt,
        svg=_render(_draw_mds, e_t, e_p, name, fig_id=fig_id, alt=alt),
    )


def _draw_tau(curves: Mapping[str, pd.DataFrame], chosen: int) -> Figure:
    fig = _new_figure(5.2, 3.4)
    ax, ax2 = fig.subplots(2, 1, sharex=True, height_ratios=(3, 1.3))
    for i, (name, c) in enumerate(curves.items()):
        ax.plot(c["min_overlap"], c["dic"], label=_text(name), **_style(i))
    first = next(iter(curves.values()))
    ax2.step(first["min_overlap"], first["n_pairs_enough"], where="post", color=_INK)
    for a in (ax, ax2):
        a.axvline(chosen, color=_GRID, linestyle="--", linewidth=1.0)
        a.grid(axis="y", color=_GRID, linewidth=0.6)
    ax.set_xscale("log")
    ax.set_ylabel("DIC (lower is better)")
    ax2.set_ylabel("pairs")
    ax2.set_xlabel("minimum overlap τ (items shared by a pair)")
    ax.legend(loc="best")
    return fig


def tau_figure(
    curves: Mapping[str, pd.DataFrame], *, chosen: int, fig_id: str = "fig-tau"
) -> Figure_ | None:
    """DIC against the minimum overlap, one line per prediction set, with the pairs left."""
    if not curves:
        return None
    alt = f"Line chart of DIC against the minimum overlap tau for {', '.join(curves)}."
    return Figure_(
        id=fig_id,
        caption=(
            f"DIC as the minimum overlap τ grows (dashed: τ = {chosen} used above); below, "
            "the number of annotator pairs sharing at least τ items."
        ),
        alt=alt,
        svg=_render(_draw_tau, curves, chosen, fig_id=fig_id, alt=alt),
    )


def _section(fig: Figure_ | None) -> str:
    if fig is None:
        return ""
    return f'<figure id="{fig.id}">{fig.svg}<figcaption>{html.escape(fig.caption)}</figcaption></figure>\n'


def write_report(
    study: TendencyStudy, out: str | Path, *, seed: int = 0, figures: bool = True
) -> list[Path]:
    """Write the study's tables (CSV) and ``report.html`` into ``out``.

    Files: ``dic.csv`` (one row per prediction set), ``consistency_true.csv``,
    ``consistency_<name>.csv``, ``overlap.csv``, ``tau_curve.csv`` and
    ``report.html`` (heatmaps on one colour scale, MDS scatter of the first
    prediction set, tau curves). The page needs matplotlib (``pip install
    'dissensus[report]'``); ``figures=False`` writes the tables only.

    Returns
    -------
    list of Path
        The files written.
    """
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    results = dict(study.results)
    first = next(iter(results.values()))
    written: list[Path] = []

    def save(df: pd.DataFrame, name: str, *, index: bool) -> None:
        path = out_dir / name
        df.to_csv(path, index=index)
        written.append(path)

    table = dic_table(results)
    save(table, "dic.csv", index=False)
    save(first.true, "consistency_true.csv", index=True)
    save(first.overlap, "overlap.csv", index=True)
    safe = {
        name: "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name) for name in results
    }
    for name, r in results.items():
        save(r.predicted, f"consistency_{safe[name]}.csv", index=True)
    if study.tau_curves:
        tau = pd.concat(
            [c.assign(predictions=n) for n, c in study.tau_curves.items()], ignore_index=True
        )
        save(tau, "tau_curve.csv", index=False)
    if not figures:
        return written
    figs: list[Figure_ | None] = [
        heatmap_figure(
            first.true, {n: r.predicted for n, r in results.items()}, measure=first.measure
        ),
    ]
    name0 = next(iter(results))
    figs.append(mds_figure(first.true, first.predicted, name=name0, seed=seed))
    figs.append(tau_figure(study.tau_curves, chosen=first.min_overlap))
    shown = table.assign(
        dic=table["dic"].map(lambda v: f"{v:.3f}"),
        interval=[
            f"[{lo:.3f}, {hi:.3f}]" if np.isfinite(lo) else ""
            for lo, hi in zip(table.ci_low, table.ci_high, strict=True)
        ],
    ).drop(columns=["ci_low", "ci_high"])
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in study.notes)
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>dissensus tendency report</title>"
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
        "table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;"
        "text-align:right}figure{margin:1.5em 0}svg{height:auto;max-width:100%}</style></head><body>\n"
        "<h1>Annotator tendencies: DIC</h1>\n"
        f"<ul>{notes}</ul>\n"
        "<p>DIC = ‖M − M′‖<sub>F</sub> / ‖M‖<sub>F</sub> over annotator pairs defined in both "
        "matrices (lower is better; 0 = the predicted annotators agree with each other exactly "
        "as the real ones do). Intervals: percentile bootstrap over items.</p>\n"
        f"{shown.to_html(index=False, border=0, escape=True)}\n"
        + "".join(_section(f) for f in figs)
        + "</body></html>\n"
    )
    path = out_dir / "report.html"
    path.write_text(page, encoding="utf-8")
    written.append(path)
    return written
