"""The simulation report: which metric form ranks models as the truth does, as tables and prose.

The readings only say what :func:`compare_forms` and :func:`best_prior` find;
figures are in the house style (:func:`dissensus.report.render_figure`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from dissensus._atomic import AtomicFileSet
from dissensus.report import (
    Document,
    Paragraph,
    Section,
    Table,
    format_number,
    format_percent,
    format_pm,
    panels,
    plot_text,
    render_figure,
    require_figures,
    series_style,
    to_html,
    to_markdown,
    top_legend,
)
from dissensus.simulate._study import StudyResult

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_SE = {
    c: f"se_{c.removeprefix('p_')}" for c in ("p_pairs_correct", "kendall_tau", "p_best_correct")
}
_NOT_PRIORS = ["empirical", "debiased"]


def best_prior(res: StudyResult) -> tuple[str, pd.Series]:
    """The prior whose expected metrics order model pairs as the truth most often.

    Returns the prior's estimator name and the mean share of pairs ordered
    right per estimator (averaged over truths, metrics and bins, ``"all"``
    left out so that every bin counts once).
    """
    rk = res.rankings[res.rankings["bin"] != "all"]
    score = rk.groupby("estimator", sort=False)["p_pairs_correct"].mean()
    return str(score.drop(_NOT_PRIORS, errors="ignore").idxmax()), score


def compare_forms(
    res: StudyResult,
    estimator: str,
    *,
    column: str = "p_pairs_correct",
    against: str = "empirical",
) -> pd.DataFrame:
    r"""``estimator`` against ``against`` per (truth, metric, bin), beyond two Monte Carlo SEs.

    ``estimator`` and ``against`` are estimators of ``res.rankings``
    (``"E[jeffreys]"``, ``"debiased"``, ...), ``column`` one of
    ``"p_pairs_correct"``, ``"kendall_tau"``, ``"p_best_correct"``. Returns
    ``truth, metric, bin, value, baseline, difference, standard_error,
    verdict``: the two means over replicates, their difference, its standard
    error (the two combined, :math:`\sqrt{s_1^2 + s_2^2}`) and ``"better"`` /
    ``"worse"`` when the difference exceeds two standard errors, else ``"no
    clear difference"``. Cells (bin ``"all"`` left out) without any value are
    dropped; sorted by truth, metric and bin.
    """
    rk = res.rankings[res.rankings["bin"] != "all"]
    keys = ["truth", "metric", "bin"]
    value = rk.pivot_table(index=keys, columns="estimator", values=column)
    se = rk.pivot_table(index=keys, columns="estimator", values=_SE[column])
    se = se.reindex(index=value.index, columns=value.columns)  # all-NaN errors drop rows
    out = pd.DataFrame({"value": value[estimator], "baseline": value[against]})
    out["difference"] = out["value"] - out["baseline"]
    out["standard_error"] = np.hypot(se[estimator], se[against])
    bound = 2 * out["standard_error"]
    out["verdict"] = np.select(
        [out["difference"] > bound, out["difference"] < -bound],
        ["better", "worse"],
        default="no clear difference",
    )
    return out.reset_index()


def plain_reading(
    res: StudyResult, cov: pd.DataFrame | None = None, alloc: pd.DataFrame | None = None
) -> list[str]:
    """Paragraphs that say what the numbers say, including where expected metrics do not help."""
    rk = res.rankings
    c = res.config
    out = [
        f"{c['replicates']} synthetic datasets per truth family, {c['n_items']} items each, "
        f"{c['n_classes']} classes, annotations per item from a power law on "
        f"{c['n_range'][0]}–{c['n_range'][1]}; candidate models {', '.join(c['candidates'])}. "
        "A metric form 'picks the truly better model' when it orders a pair of models as the "
        "same metric computed against the KNOWN true distributions does."
    ]
    best, score = best_prior(res)
    parts = ", ".join(f"{k} {format_number(v)}" for k, v in score.items())
    out.append(
        f"Share of model pairs ordered as the truth, averaged over truths, metrics and bins: {parts}. "
        f"Among the priors, {best} ranks closest to the truth."
    )
    estimators = list(dict.fromkeys(rk["estimator"]))
    if "empirical" in estimators:
        priors = [e for e in estimators if e not in _NOT_PRIORS]
        tables = {e: compare_forms(res, e) for e in priors}
        counts = [
            f"{e} better in {int((t['verdict'] == 'better').sum())}, worse in "
            f"{int((t['verdict'] == 'worse').sum())}"
            for e, t in tables.items()
        ]
        out.append(
            f"Against the empirical form, over {len(tables[best])} (truth, metric, bin) cells (a "
            f"difference counts when it exceeds two Monte Carlo standard errors): {'; '.join(counts)}."
        )
        cells = rk[rk["bin"] != "all"]
        per_truth = cells[cells["estimator"].isin(priors)].pivot_table(
            index=["truth", "metric", "bin"], columns="estimator", values="p_pairs_correct"
        )
        per_truth = per_truth.groupby(level="truth", sort=False).mean()
        if len(per_truth) > 1:
            out.append(
                "The best prior depends on the data: "
                + ", ".join(
                    f"{t}: {row.idxmax()} ({format_number(row.max(), digits=2)})"
                    for t, row in per_truth.iterrows()
                )
                + ". The fitted priors fail where items barely differ from each other: their "
                "strength is then large (rightly: the items are alike), every posterior is pulled "
                "towards the dataset's average, and score differences lean towards the models "
                "that predict that average; a weak prior such as Jeffreys ranks better there."
            )
        bins = [b for b in dict.fromkeys(rk["bin"]) if b != "all"]
        first = bins[0] if bins else "all"
        keys = list(dict.fromkeys(zip(rk["truth"], rk["metric"], strict=True)))
        v = tables[best][tables[best]["bin"] == first]  # in the rankings' order of truth, metric
        v = v.iloc[np.argsort([keys.index(k) for k in zip(v["truth"], v["metric"], strict=True)])]
        said = {verdict: _moves(v, verdict, at_bin=False) for verdict in ("better", "worse")}
        if said["better"]:
            out.append(
                f"In the fewest-annotations bin ({first}), the expected form under {best} orders "
                f"more pairs correctly than the empirical form for: {'; '.join(said['better'])}."
            )
        if said["worse"]:
            out.append(
                f"Where expected metrics do NOT help: in bin {first} the empirical form is better "
                f"for {'; '.join(said['worse'])}. Cross-entropy (and KL, which ranks like it) is "
                "linear in the target, so its empirical mean is already unbiased for the true "
                "mean; the posterior mean adds the prior's pseudo-counts and rewards predictions "
                "that lean towards the prior's mean (flat ones under a uniform prior)."
            )
        last = bins[-1] if bins else "all"
        spread = rk[rk["bin"] == last].groupby("estimator", sort=False)["p_pairs_correct"].mean()
        if len(spread):
            out.append(
                f"With many annotations (bin {last}) the forms converge: share of pairs right "
                + ", ".join(f"{k} {format_number(v, digits=2)}" for k, v in spread.items())
                + "."
            )
    out += _symptom(res) + _coverage(cov) + _allocation(alloc)
    return out


def _moves(d: pd.DataFrame, verdict: str, *, at_bin: bool = True) -> list[str]:
    """``metric on truth [at bin] (baseline → value)`` for the rows of ``d`` with ``verdict``."""
    return [f"{r.metric} on {r.truth}{f' at {r.bin}' if at_bin else ''} "
            f"({format_number(r.baseline, digits=2)} → {format_number(r.value, digits=2)})"
            for r in d[d["verdict"] == verdict].itertuples()]  # fmt: skip


def _symptom(res: StudyResult) -> list[str]:
    sc = res.scores
    ce = sc[(sc["metric"] == "cross_entropy") & (sc["bin"] == "all")]
    v = ce.pivot_table(index=["truth", "estimator"], columns="model", values="estimate", sort=False)
    if not {"uniform", "marginal"} <= set(v.columns):
        return []
    v = v[v["uniform"] < v["marginal"] - 5e-4]
    lines = [
        f"{est} on {fam} ({format_number(u)} < {format_number(m)})"
        for (fam, est), u, m in zip(v.index, v["uniform"], v["marginal"], strict=True)
    ]
    if not lines:
        return []
    return [
        "The ConvAbuse symptom (a uniform predictor beating the label marginal under "
        "E[cross_entropy]) appears with: " + "; ".join(lines) + "; the true score always "
        "prefers the marginal."
    ]


def _coverage(cov: pd.DataFrame | None) -> list[str]:
    if cov is None or cov.empty:
        return []
    g = cov[cov["bin"] == "all"]
    rows = [
        f"{prior} prior on its own family: "
        + ", ".join(f"{format_percent(lv)} → {format_number(cv)}" for lv, cv in g2.set_index("confidence_level")["coverage"].items())
        for (truth, prior), g2 in g.groupby(["truth", "prior"], sort=False)
        if truth == prior
    ]  # fmt: skip
    out = ["Posterior coverage where the prior generated the data: " + "; ".join(rows) + "."]
    out = out if rows else []
    worst = g.assign(gap=g["coverage"] - g["confidence_level"]).sort_values("gap").head(3)
    out.append(
        "Largest under-coverage: "
        + "; ".join(
            f"{r.prior} on {r.truth} at {format_percent(r.confidence_level)}: {format_number(r.coverage)}"
            for r in worst.itertuples()
        )
        + "."
    )
    return out


def _allocation(alloc: pd.DataFrame | None) -> list[str]:
    if alloc is None or alloc.empty:
        return []
    a = alloc[alloc["estimator"] == "expected"]
    last = a[a["round"] == a["round"].max()].set_index("strategy")
    mid = a[a["round"] == max(1, a["round"].max() // 5)].set_index("strategy")

    def shares(rows: pd.DataFrame) -> str:
        return ", ".join(
            f"{s} {format_pm(r.p_same_ranking, r.se_same_ranking)}" for s, r in rows.iterrows()
        )

    return [
        "Allocation (same budget, ranking by the expected metric): after the first "
        f"{int(mid['spent'].iloc[0])} extra annotations the share of replicates with the exact "
        f"true ranking is {shares(mid)}; after all {int(last['spent'].iloc[0])}: {shares(last)}. "
        "Allocation reduces variance, not the prior's bias: with a prior that is too "
        "strong for the annotations per item it cannot fix the ranking."
    ]


# --------------------------------------------------------------------------- debiased family


def debiased_table(res: StudyResult) -> pd.DataFrame:
    """Kendall tau with the true ranking and P(pick the truly best), per truth, metric and bin.

    For each estimator (empirical, each expected prior, debiased) the means
    over replicates ``tau <estimator>`` and ``best <estimator>``; ``se tau``
    and ``se best`` are the largest Monte Carlo standard error in the row.
    Empty when the study was run without ``debiased=True``.
    """
    rk = res.rankings
    if "debiased" not in set(rk["estimator"]):
        return pd.DataFrame()
    est = list(dict.fromkeys(rk["estimator"]))
    tau, best = res.table("kendall_tau"), res.table("p_best_correct")
    out = tau[["truth", "metric", "bin"]].copy()
    for name, table in (("tau", tau), ("best", best)):
        for e in est:
            out[f"{name} {e}"] = table[e].to_numpy(dtype=np.float64)
    for name, column in (("tau", "se_kendall_tau"), ("best", "se_best_correct")):
        out[f"se {name}"] = res.table(column)[est].max(axis=1).to_numpy(dtype=np.float64)
    return out


def debiased_markdown(res: StudyResult) -> str:
    """:func:`debiased_table` as a Markdown table (two decimals; docs/debiased.md quotes it)."""
    df = debiased_table(res)
    return "" if df.empty else to_markdown(Table.from_frame(df, digits=2))


def debiased_reading(res: StudyResult) -> list[str]:
    """Where the debiased form ranks closer to the truth than the empirical one, and where not.

    A difference counts as in :func:`compare_forms`.
    """
    if "debiased" not in set(res.rankings["estimator"]):
        return []
    out: list[str] = []
    for column, what in (
        ("kendall_tau", "Kendall tau with the true ranking"),
        ("p_best_correct", "P(pick the truly best model)"),
    ):
        d = compare_forms(res, "debiased", column=column)
        worse = _moves(d, "worse")
        out.append(
            f"{what}, debiased against empirical over {len(d)} (truth, metric, bin) cells: "
            f"better in {int((d['verdict'] == 'better').sum())}, worse in {len(worse)}."
            + (f" Worse: {'; '.join(worse)}." if worse else "")
        )
    out.append(
        "Why: cross-entropy is linear in the target, so its debiased form IS the empirical one. "
        "The jackknife removes the 1/n bias term of smooth metrics (JS divergence, the Brier "
        "score exactly); L1 and EMD have kinks where a (cumulative) share equals the "
        "prediction's, their bias is of order n^(-1/2) and depends on where the 1/n lattice "
        "falls, so near-uniform truths with near-uniform candidates get erratic corrections."
    )
    return out


# --------------------------------------------------------------------------- figures


def _error_lines(
    ax: Axes, groups: Iterable[tuple[object, pd.DataFrame]], x: str, y: str, se: str
) -> None:
    """One line per group (``x`` against ``y``) with two-standard-error bars."""
    for i, (name, g) in enumerate(groups):
        yerr = 2 * g[se].fillna(0)
        ax.errorbar(g[x], g[y], yerr=yerr, label=plot_text(str(name)), capsize=2, **series_style(i))


def _lines_per_bin(ax: Axes, sub: pd.DataFrame, bins: list[str], column: str) -> None:
    """One line per estimator over the bins, with two-standard-error bars."""
    x = np.arange(len(bins))
    groups = sub.groupby("estimator", sort=False)
    _error_lines(ax, ((e, g.set_index("bin").reindex(bins).assign(x=x)) for e, g in groups), "x",
                 column, _SE[column])  # fmt: skip
    ax.set_xticks(x, bins, rotation=45 if len(bins) > 4 else 0)
    ax.set_ylim(-1.02 if column == "kendall_tau" else -0.02, 1.02)
    ax.grid(axis="y")


def _draw_forms(rk: pd.DataFrame, rows: tuple[tuple[str, str], ...]) -> Figure:
    """Per metric (columns) and measure (rows): the forms' lines over the bins."""
    metrics, bins = list(dict.fromkeys(rk["metric"])), list(dict.fromkeys(rk["bin"]))
    max_cols = 3 if len(rows) == 1 else len(metrics)
    fig, axes = panels(len(metrics) * len(rows), max_cols=max_cols, size=(2.9, 2.3), pad=(0.0, 0.4))
    for r, (column, label) in enumerate(rows):
        for m, metric in enumerate(metrics):
            ax = axes[r * len(metrics) + m]
            _lines_per_bin(ax, rk[rk["metric"] == metric], bins, column)
            if r == 0:
                title = metric if len(rows) > 1 else f"{metric}: pairs ordered as the truth"
                ax.set_title(plot_text(title), loc="left")
            if m % max_cols == 0:
                ax.set_ylabel(label)
    top_legend(fig, axes[0])
    return fig


def _draw_allocation(alloc: pd.DataFrame) -> Figure:
    fig, axes = panels(2, max_cols=2, size=(3.5, 2.6))
    for ax, est in zip(axes, ["expected", "empirical"], strict=True):
        groups = alloc[alloc["estimator"] == est].groupby("strategy", sort=False)
        _error_lines(ax, groups, "spent", "p_same_ranking", "se_same_ranking")
        ax.set_title(plot_text(f"ranking by the {est} metric"), loc="left")
        ax.set_xlabel("extra annotations spent")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(axis="y")
    axes[0].set_ylabel("P(exact true ranking)")
    top_legend(fig, axes[0], max_cols=3)
    return fig


# --------------------------------------------------------------------------- the report


def main_table(res: StudyResult) -> pd.DataFrame:
    """Decision accuracy: one row per (truth, metric, bin), ``p ± se`` per estimator.

    Two cells per estimator: the share of model pairs ordered as the truth,
    and the probability of the exact true ranking of all models.
    """
    est = list(dict.fromkeys(res.rankings["estimator"]))
    pairs, pse = res.table("p_pairs_correct"), res.table("se_pairs_correct")
    same = res.table("p_same_ranking")
    out = pairs[["truth", "metric", "bin"]].copy()
    for e in est:
        out[f"{e} pairs"] = [format_pm(p, s) for p, s in zip(pairs[e], pse[e], strict=True)]
    for e in est:
        out[f"{e} exact"] = [format_number(p, digits=2) for p in same[e]]
    return out


def _by_truth(res: StudyResult, kind: str, rows: tuple[tuple[str, str], ...]) -> list[Section]:
    what, sections = " and ".join(label for _, label in rows), []
    for t in dict.fromkeys(res.rankings["truth"]):
        rk = res.rankings[(res.rankings["truth"] == t) & (res.rankings["bin"] != "all")]
        caption = (
            f"{what} per bin of annotations per item, truth family {t}: one line per metric "
            "form, bars two Monte Carlo standard errors."
        )
        fig = render_figure(
            _draw_forms, rk, rows, id=f"fig-{kind}-{t}", caption=caption, alt=f"{what} per bin, {t}"
        )
        sections.append(
            Section(f"{'Debiased, truth' if kind == 'deb' else 'Truth'} family: {t}", fig)
        )
    return sections


def simulation_report(
    res: StudyResult,
    cov: pd.DataFrame | None = None,
    alloc: pd.DataFrame | None = None,
    *,
    title: str = "Do expected metrics pick the truly better model?",
) -> Document:
    """The whole report as a document (figures need the ``report`` extra)."""
    deb = debiased_table(res)
    sc, keys = res.scores[res.scores["bin"] == "all"], ["truth", "metric", "model"]
    wide = sc.pivot_table(index=keys, columns="estimator", values="estimate", sort=False)
    true = sc.pivot_table(index=keys, values="true_score", aggfunc="first", sort=False)
    wide["true score"] = true["true_score"]
    cw = None
    if cov is not None and not cov.empty:
        cw = cov.pivot_table(
            index=["truth", "prior", "bin"],
            columns="confidence_level",
            values="coverage",
            sort=False,
        )
        cw.columns = [format_percent(c) for c in cw.columns]
    alloc_caption = (
        "Share of replicates whose ranking (by the expected or the empirical metric) is exactly "
        "the true one, against the extra annotations spent, one line per strategy; bars two "
        "Monte Carlo standard errors."
    )
    return Document(
        title,
        Section("Reading", *(Paragraph(p) for p in plain_reading(res, cov, alloc))),
        Section(
            "Decision accuracy per bin",
            Paragraph("Per truth family, metric and annotation-count bin: 'pairs' is the share of "
                      "model pairs ordered as the truth orders them (± Monte Carlo standard error), "
                      "'exact' the probability that the whole ranking equals the true one.", style="legend"),
            Table.from_frame(main_table(res)),
            *_by_truth(res, "dec", (("p_pairs_correct", "P(pair right)"),)),
        ),
        Section(
            "Debiased metrics: ranking against the truth",
            Paragraph("Per truth family, metric and annotation-count bin: Kendall's tau between "
                      "each form's ranking of the models and the true ranking ('tau'), and the "
                      "probability that the form's best model is the truly best one ('best'), for "
                      "the empirical, expected (each prior) and debiased forms "
                      "(dissensus.metrics.debiased). 'se' is the largest Monte Carlo standard "
                      "error in the row.", style="legend"),
            *(Paragraph(p) for p in debiased_reading(res)),
            Table.from_frame(deb),
            *_by_truth(res, "deb", (("kendall_tau", "Kendall tau"), ("p_best_correct", "P(best right)"))),
        ) if not deb.empty else None,
        Section("Mean scores (all items)", Table.from_frame(wide.reset_index())),
        Section("Empirical-Bayes prior strength", Table.from_frame(res.prior_strength))
        if not res.prior_strength.empty else None,
        Section("Posterior credible-interval coverage", Table.from_frame(cw.reset_index()))
        if cw is not None else None,
        Section(
            "Allocation: accuracy against budget",
            render_figure(_draw_allocation, alloc, id="fig-alloc", caption=alloc_caption, alt="allocation curves"),
            Table.from_frame(alloc),
        ) if alloc is not None and not alloc.empty else None,
    )  # fmt: skip


def write_simulation_report(
    res: StudyResult,
    out_dir: str | Path,
    cov: pd.DataFrame | None = None,
    alloc: pd.DataFrame | None = None,
) -> dict[str, Path]:
    """Write ``report.html`` and the CSV tables to ``out_dir`` as one set (with a ``manifest.json``); return the paths.

    Needs the ``report`` extra (matplotlib), checked before anything is
    written; an interrupted run leaves the earlier set intact.
    """
    require_figures("The simulation report")
    tables: dict[str, tuple[str, pd.DataFrame | None]] = {
        "rankings": ("rankings.csv", res.rankings),
        "pairs": ("pairs.csv", res.pairs),
        "scores": ("scores.csv", res.scores),
        "main_table": ("decision_accuracy.csv", main_table(res)),
        "coverage": ("coverage.csv", cov),
        "allocation": ("allocation.csv", alloc),
    }
    deb = debiased_table(res)
    if not deb.empty:
        tables["debiased"] = ("debiased.csv", deb)
    page = to_html(simulation_report(res, cov, alloc))
    paths: dict[str, Path] = {}
    with AtomicFileSet(out_dir, params=res.config) as files:
        for role, (name, table) in tables.items():
            if table is not None:
                paths[role] = files.write(name, table.to_csv(index=False, float_format="%.10g"))
        if not deb.empty:
            paths["debiased_markdown"] = files.write("debiased.md", debiased_markdown(res))
        paths["report"] = files.write("report.html", page)
    return paths
