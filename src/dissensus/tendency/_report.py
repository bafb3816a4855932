"""Tables and an HTML page for a DIC study: heatmaps, MDS scatter, tau curves.

The page is a :class:`~dissensus.report.Document` with figures in the house
style (:func:`dissensus.report.render_figure`: matplotlib's object API,
byte-stable SVG, text as paths), written with the tables as one set of
files (:class:`dissensus._atomic.AtomicFileSet`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from dissensus._atomic import AtomicFileSet
from dissensus.report import (
    COLOURS,
    GRID,
    INK,
    Bullets,
    Document,
    Figure,
    Paragraph,
    Table,
    format_interval,
    new_figure,
    plot_text,
    render_figure,
    require_figures,
    series_style,
    to_html,
)
from dissensus.tendency._bae import aligned_embeddings
from dissensus.tendency._consistency import DICResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure as MplFigure


@dataclass(frozen=True)
class TendencyStudy:
    """Everything one report shows.

    ``results`` maps a name to its :class:`DICResult` (the model and/or
    baselines, one truth), ``tau_curves`` a name to its :func:`tau_curve`
    (may be empty); ``notes`` are the lines under the title (data, split,
    choices).
    """

    results: Mapping[str, DICResult]
    tau_curves: Mapping[str, pd.DataFrame]
    notes: list[str]


def dic_table(results: Mapping[str, DICResult]) -> pd.DataFrame:
    """One row per prediction set: DIC, its interval, pairs used and left out."""
    nan = (math.nan, math.nan)
    return pd.DataFrame(
        [{"predictions": name, "dic": r.statistic, "ci_low": (r.confidence_interval or nan)[0],
          "ci_high": (r.confidence_interval or nan)[1], "bootstrap_bias": r.bootstrap_bias,
          "n_pairs": r.n_pairs, "n_pairs_undefined": r.n_pairs_undefined, "measure": r.measure,
          "min_overlap": r.min_overlap} for name, r in results.items()]
    )  # fmt: skip


def _draw_heatmaps(panels: list[tuple[str, pd.DataFrame]], vmin: float, vmax: float) -> MplFigure:
    R = panels[0][1].shape[0]
    side = min(5.0, max(2.2, 0.22 * R + 1.0))
    fig = new_figure(side * len(panels) + 0.8, side + 0.3)
    axes = np.atleast_1d(fig.subplots(1, len(panels), squeeze=False)).ravel()
    image = None
    labels = [plot_text(a) for a in panels[0][1].index]
    for ax, (title, M) in zip(axes, panels, strict=True):
        data = np.ma.masked_invalid(M.to_numpy(dtype=np.float64))
        image = ax.imshow(data, cmap="RdBu_r", vmin=vmin, vmax=vmax, interpolation="nearest")
        ax.set_title(plot_text(title), loc="left")
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


def _heatmaps(true: pd.DataFrame, predicted: Mapping[str, pd.DataFrame], measure: str) -> Figure:
    """True and predicted consistency matrices side by side, one colour scale (grey = undefined)."""
    panels = [("true", true), *predicted.items()]
    values = np.concatenate([M.to_numpy(dtype=np.float64).ravel() for _, M in panels])
    finite = values[np.isfinite(values)]
    vmin = -1.0 if finite.size and finite.min() < 0 else 0.0
    alt = f"Heatmaps of the {measure} consistency matrices: {', '.join(n for n, _ in panels)}."
    caption = (
        f"Pairwise {measure} of the annotators, true and predicted, on one colour scale "
        f"[{vmin:g}, 1]; grey: pair below the minimum overlap or undefined."
    )
    return render_figure(
        _draw_heatmaps, panels, vmin, 1.0, id="fig-heatmaps", caption=caption, alt=alt
    )


def _draw_mds(emb_true: pd.DataFrame, emb_pred: pd.DataFrame, name: str) -> MplFigure:
    fig = new_figure(4.2, 3.6)
    ax = fig.subplots()
    t, p = emb_true.to_numpy(), emb_pred.to_numpy()
    for a in range(t.shape[0]):
        ax.plot([t[a, 0], p[a, 0]], [t[a, 1], p[a, 1]], color=GRID, linewidth=0.8, zorder=1)
    ax.scatter(t[:, 0], t[:, 1], color=COLOURS[0], marker="o", label="true", zorder=2)
    ax.scatter(p[:, 0], p[:, 1], color=COLOURS[1], marker="s", label=plot_text(name), zorder=2)
    if t.shape[0] <= 20:
        for a, label in enumerate(emb_true.index):
            ax.annotate(plot_text(label), t[a], xytext=(3, 3), textcoords="offset points",
                        fontsize=6, color=INK)  # fmt: skip
    ax.set_xlabel("MDS 1")
    ax.set_ylabel("MDS 2")
    ax.set_aspect("equal", adjustable="datalim")
    ax.legend(loc="best")
    return fig


def _mds(true: pd.DataFrame, predicted: pd.DataFrame, name: str, seed: int) -> Figure | None:
    """MDS of 1 − M and 1 − M' (Procrustes-aligned); None with an undefined pair."""
    aligned = aligned_embeddings(true, predicted, seed=seed)
    if aligned is None:
        return None
    e_t, e_p, disparity = aligned
    alt = f"Scatter of annotators in two MDS dimensions, true and {name}, Procrustes disparity {disparity:.3f}."
    caption = (
        f"Annotators placed by metric MDS of 1 − agreement: true (circles) and {name} "
        f"(squares, Procrustes-aligned; lines join each annotator's two points). "
        f"Procrustes disparity {disparity:.3f}."
    )
    return render_figure(_draw_mds, e_t, e_p, name, id="fig-mds", caption=caption, alt=alt)


def _draw_tau(curves: Mapping[str, pd.DataFrame], chosen: int) -> MplFigure:
    fig = new_figure(5.2, 3.4)
    ax, ax2 = fig.subplots(2, 1, sharex=True, height_ratios=(3, 1.3))
    for i, (name, c) in enumerate(curves.items()):
        ax.plot(c["min_overlap"], c["dic"], label=plot_text(name), **series_style(i))
    first = next(iter(curves.values()))
    ax2.step(first["min_overlap"], first["n_pairs_enough"], where="post", color=INK)
    for a in (ax, ax2):
        a.axvline(chosen, color=GRID, linestyle="--", linewidth=1.0)
        a.grid(axis="y")
    ax.set_xscale("log")
    ax.set_ylabel("DIC (lower is better)")
    ax2.set_ylabel("pairs")
    ax2.set_xlabel("minimum overlap τ (items shared by a pair)")
    ax.legend(loc="best")
    return fig


def _tau(curves: Mapping[str, pd.DataFrame], chosen: int) -> Figure | None:
    """DIC against the minimum overlap, one line per prediction set, with the pairs left."""
    if not curves:
        return None
    alt = f"Line chart of DIC against the minimum overlap tau for {', '.join(curves)}."
    caption = (
        f"DIC as the minimum overlap τ grows (dashed: τ = {chosen} used above); below, "
        "the number of annotator pairs sharing at least τ items."
    )
    return render_figure(_draw_tau, curves, chosen, id="fig-tau", caption=caption, alt=alt)


def tendency_report(study: TendencyStudy, *, seed: int = 0) -> Document:
    """The study's page: notes, the DIC table, heatmaps, MDS of the first prediction set, tau curves."""
    results = dict(study.results)
    first, name0 = next(iter(results.values())), next(iter(results))
    table = dic_table(results)
    intervals = [
        format_interval(lo, hi) for lo, hi in zip(table.ci_low, table.ci_high, strict=True)
    ]
    predicted = {n: r.predicted for n, r in results.items()}
    return Document(
        "Annotator tendencies: DIC",
        Bullets(study.notes),
        Paragraph(
            "DIC = ‖M − M′‖_F / ‖M‖_F over annotator pairs defined in both matrices (lower is "
            "better; 0 = the predicted annotators agree with each other exactly as the real ones "
            "do). Intervals: percentile bootstrap over items.",
            style="legend",
        ),
        Table.from_frame(table.assign(interval=intervals).drop(columns=["ci_low", "ci_high"])),
        _heatmaps(first.true, predicted, first.measure),
        _mds(first.true, first.predicted, name0, seed),
        _tau(study.tau_curves, first.min_overlap),
    )


#: The files of a report whatever its prediction sets are called (besides consistency_<name>.csv).
REPORT_FILES = ("dic.csv", "consistency_true.csv", "overlap.csv", "tau_curve.csv", "report.html")


def report_files(names: Iterable[str]) -> dict[str, str]:
    """The file of each prediction set's consistency matrix: name -> ``consistency_<name>.csv``.

    A name keeps its letters, digits, ``-`` and ``_`` (anything else becomes
    ``_``), so two names can meet in one file (``a.b`` and ``a_b``; on a
    case-insensitive disk ``A`` and ``a`` too), and ``true`` would take the
    annotators' own matrix: ``ValueError`` naming both, never one file over the other.

    Examples
    --------
    >>> report_files(["bert", "a.b"])
    {'bert': 'consistency_bert.csv', 'a.b': 'consistency_a_b.csv'}
    >>> report_files(["a.b", "a_b"])
    Traceback (most recent call last):
    ...
    ValueError: the prediction sets 'a.b' and 'a_b' would both be written to consistency_a_b.csv (a name keeps its letters, digits, '-' and '_'); give them names that differ there.
    """
    files: dict[str, str] = {}
    taken: dict[str, str | None] = {"consistency_true.csv": None}  # file -> the set written there
    for name in names:
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in str(name))
        files[name] = file = f"consistency_{safe}.csv"
        clash = next((f for f in taken if f.casefold() == file.casefold()), None)
        if clash is None:
            taken[file] = name
            continue
        other = taken[clash]
        if other is None:
            msg = f"the prediction set {name!r} would be written to {clash}, the annotators' own consistency matrix; give it another name."
        else:
            msg = f"the prediction sets {other!r} and {name!r} would both be written to {file} (a name keeps its letters, digits, '-' and '_'); give them names that differ there."
        raise ValueError(msg)
    return files


def write_report(
    study: TendencyStudy,
    out: str | Path,
    *,
    seed: int = 0,
    figures: bool = True,
    inputs: Sequence[str | Path] = (),
) -> list[Path]:
    """Write the study's tables (CSV) and ``report.html`` into ``out``, as one set of files.

    Files: ``dic.csv`` (one row per prediction set), ``consistency_true.csv``,
    ``consistency_<name>.csv``, ``overlap.csv``, ``tau_curve.csv`` and
    ``report.html`` (:func:`tendency_report`), with a ``manifest.json``; they
    are moved into place together, and an output that would overwrite one of
    ``inputs`` is refused, and so are two prediction sets whose names give one
    file (:func:`report_files`). The page needs matplotlib (``pip install
    'dissensus[report]'``, checked before anything is written);
    ``figures=False`` writes the tables only. Returns the files written.
    """
    if figures:
        require_figures("The tendency report")
    results = dict(study.results)
    matrices = report_files(results)
    first = next(iter(results.values()))
    tables = {"dic.csv": (dic_table(results), False), "consistency_true.csv": (first.true, True)}
    tables["overlap.csv"] = (first.overlap, True)
    for name, r in results.items():
        tables[matrices[name]] = (r.predicted, True)
    if study.tau_curves:
        curves = [c.assign(predictions=n) for n, c in study.tau_curves.items()]
        tables["tau_curve.csv"] = (pd.concat(curves, ignore_index=True), False)
    with AtomicFileSet(out, inputs=inputs) as files:
        written = [
            files.write(name, df.to_csv(index=index)) for name, (df, index) in tables.items()
        ]
        if figures:
            written.append(files.write("report.html", to_html(tendency_report(study, seed=seed))))
    return written
