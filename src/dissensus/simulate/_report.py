"""The simulation report: CSV tables, matplotlib figures and a plain reading, in one HTML page.

Figures reuse the evaluation report's drawing conventions
(:mod:`dissensus.report._plots`: fixed rc, Okabe–Ito colours with markers
and dashes, SVG inlined without scripts or fetches) and its stylesheet.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dissensus.simulate._study import StudyResult

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "debiased_markdown",
    "debiased_reading",
    "debiased_table",
    "plain_reading",
    "render_simulation_html",
    "write_simulation_report",
]


def _fmt(p: float, se: float | None = None) -> str:
    if not np.isfinite(p):
        return "–"
    return f"{p:.2f}" if se is None or not np.isfinite(se) else f"{p:.3f} ± {se:.3f}"


def _expected_names(rk: pd.DataFrame) -> list[str]:
    return [e for e in dict.fromkeys(rk["estimator"]) if e not in {"empirical", "debiased"}]


def best_prior(res: StudyResult) -> tuple[str, pd.Series]:
    """The prior whose expected metrics order model pairs as the truth most often.

    Returns the prior's estimator name and the mean share of pairs ordered
    right per estimator (averaged over truths, metrics and bins, ``"all"``
    left out so that every bin counts once).
    """
    rk = res.rankings[res.rankings["bin"] != "all"]
    score = rk.groupby("estimator", sort=False)["p_pairs_correct"].mean()
    exp = score.drop(["empirical", "debiased"], errors="ignore")
    return str(exp.idxmax()), score


def plain_reading(
    res: StudyResult, cov: pd.DataFrame | None = None, alloc: pd.DataFrame | None = None
) -> list[str]:
    """Paragraphs that say what the numbers say, including where expected metrics do not help."""
    rk = res.rankings
    out: list[str] = []
    c = res.config
    out.append(
        f"{c['replicates']} synthetic datasets per truth family, {c['n_items']} items each, "
        f"{c['n_classes']} classes, annotations per item from a power law on "
        f"{c['n_range'][0]}–{c['n_range'][1]}; candidate models {', '.join(c['candidates'])}. "
        "A metric form 'picks the truly better model' when it orders a pair of models as the "
        "same metric computed against the KNOWN true distributions does."
    )
    best, score = best_prior(res)
    parts = ", ".join(f"{k} {v:.3f}" for k, v in score.items())
    out.append(
        f"Share of model pairs ordered as the truth, averaged over truths, metrics and bins: {parts}. "
        f"Among the priors, {best} ranks closest to the truth."
    )
    cells = rk[rk["bin"] != "all"]
    p = cells.pivot_table(
        index=["truth", "metric", "bin"], columns="estimator", values="p_pairs_correct"
    )
    s = cells.pivot_table(
        index=["truth", "metric", "bin"], columns="estimator", values="se_pairs_correct"
    ).reindex(index=p.index, columns=p.columns)  # all-NaN errors (2 replicates) drop rows
    if "empirical" in p.columns:
        counts = []
        for est in _expected_names(rk):
            d = p[est] - p["empirical"]
            se = np.hypot(s[est], s["empirical"])
            counts.append(
                f"{est} better in {int((d > 2 * se).sum())}, worse in {int((d < -2 * se).sum())}"
            )
        out.append(
            f"Against the empirical form, over {len(p)} (truth, metric, bin) cells (a difference "
            f"counts when it exceeds two Monte Carlo standard errors): {'; '.join(counts)}."
        )
        per_truth = (
            p.drop(columns=["empirical", "debiased"], errors="ignore")
            .groupby(level="truth", sort=False)
            .mean()
        )
        if len(per_truth) > 1:
            out.append(
                "The best prior depends on the data: "
                + ", ".join(
                    f"{t}: {row.idxmax()} ({row.max():.2f})" for t, row in per_truth.iterrows()
                )
                + ". The fitted priors fail where items barely differ from each other: their "
                "strength is then large (rightly: the items are alike), every posterior is pulled "
                "towards the dataset's average, and score differences lean towards the models "
                "that predict that average; a weak prior such as Jeffreys ranks better there."
            )
    bins = [b for b in dict.fromkeys(rk["bin"]) if b != "all"]
    first = bins[0] if bins else "all"
    helps, hurts = [], []
    for (truth, metric), g in rk[rk["bin"] == first].groupby(["truth", "metric"], sort=False):
        e = g.set_index("estimator")
        pp = e["p_pairs_correct"].to_numpy(dtype=np.float64)
        ss = e["se_pairs_correct"].to_numpy(dtype=np.float64)
        ie, ib = e.index.get_loc("empirical"), e.index.get_loc(best)
        p_emp, p_exp = float(pp[ie]), float(pp[ib])
        gap = p_exp - p_emp
        gap_se = float(np.hypot(ss[ib], ss[ie]))
        text = f"{metric} on {truth} ({_fmt(p_emp)} → {_fmt(p_exp)})"
        if gap > 2 * gap_se:
            helps.append(text)
        elif gap < -2 * gap_se:
            hurts.append(text)
    if helps:
        out.append(
            f"In the fewest-annotations bin ({first}), the expected form under {best} orders more "
            f"pairs correctly than the empirical form for: {'; '.join(helps)}."
        )
    if hurts:
        out.append(
            f"Where expected metrics do NOT help: in bin {first} the empirical form is better for "
            f"{'; '.join(hurts)}. Cross-entropy (and KL, which ranks like it) is linear in the "
            "target, so its empirical mean is already unbiased for the true mean; the posterior "
            "mean adds the prior's pseudo-counts and rewards predictions that lean towards the "
            "prior's mean (flat ones under a uniform prior)."
        )
    last = bins[-1] if bins else "all"
    g = rk[rk["bin"] == last]
    if not g.empty:
        spread = g.groupby("estimator", sort=False)["p_pairs_correct"].mean()
        out.append(
            f"With many annotations (bin {last}) the forms converge: share of pairs right "
            + ", ".join(f"{k} {v:.2f}" for k, v in spread.items())
            + "."
        )
    sc = res.scores
    flat = sc[
        (sc["metric"] == "cross_entropy")
        & (sc["bin"] == "all")
        & sc["model"].isin(["uniform", "marginal"])
    ]
    if not flat.empty:
        lines = []
        for (fam, est_name), g2 in flat.groupby(["truth", "estimator"], sort=False):
            v = g2.set_index("model")["estimate"]
            if "uniform" in v and "marginal" in v and v["uniform"] < v["marginal"] - 5e-4:
                lines.append(f"{est_name} on {fam} ({v['uniform']:.3f} < {v['marginal']:.3f})")
        if lines:
            out.append(
                "The ConvAbuse symptom (a uniform predictor beating the label marginal under "
                "E[cross_entropy]) appears with: " + "; ".join(lines) + "; the true score always "
                "prefers the marginal."
            )
    if cov is not None and not cov.empty:
        g = cov[(cov["bin"] == "all")]
        rows = []
        for (truth, prior), g2 in g.groupby(["truth", "prior"], sort=False):
            if truth == prior:
                v = g2.set_index("level")["coverage"]
                rows.append(
                    f"{prior} prior on its own family: "
                    + ", ".join(f"{lv:.0%} → {cv:.3f}" for lv, cv in v.items())
                )
        if rows:
            out.append(
                "Posterior coverage where the prior generated the data: " + "; ".join(rows) + "."
            )
        worst = g.assign(gap=g["coverage"] - g["level"]).sort_values("gap").head(3)
        out.append(
            "Largest under-coverage: "
            + "; ".join(
                f"{r.prior} on {r.truth} at {r.level:.0%}: {r.coverage:.3f}"
                for r in worst.itertuples()
            )
            + "."
        )
    if alloc is not None and not alloc.empty:
        a = alloc[alloc["estimator"] == "expected"]
        last_round = a[a["round"] == a["round"].max()].set_index("strategy")
        mid = a[a["round"] == max(1, a["round"].max() // 5)].set_index("strategy")
        out.append(
            "Allocation (same budget, ranking by the expected metric): after the first "
            f"{int(mid['spent'].iloc[0])} extra annotations the share of replicates with the exact "
            "true ranking is "
            + ", ".join(
                f"{s} {_fmt(r.p_same_ranking, r.se_same_ranking)}" for s, r in mid.iterrows()
            )
            + f"; after all {int(last_round['spent'].iloc[0])}: "
            + ", ".join(
                f"{s} {_fmt(r.p_same_ranking, r.se_same_ranking)}" for s, r in last_round.iterrows()
            )
            + ". Allocation reduces variance, not the prior's bias: with a prior that is too "
            "strong for the annotations per item it cannot fix the ranking."
        )
    return out


# --------------------------------------------------------------------------- debiased family


def debiased_table(res: StudyResult) -> pd.DataFrame:
    """Kendall tau with the true ranking and P(pick the truly best), per truth, metric and bin.

    One row per (truth, metric, bin); for each estimator (empirical, each
    expected prior, debiased) the columns ``tau <estimator>`` and
    ``best <estimator>`` (means over replicates), and ``se tau`` /
    ``se best``: the largest Monte Carlo standard error in the row. Empty
    when the study was run without ``debiased=True``.
    """
    rk = res.rankings
    if "debiased" not in set(rk["estimator"]):
        return pd.DataFrame()
    est = list(dict.fromkeys(rk["estimator"]))
    tau, tau_se = res.table("kendall_tau"), res.table("se_kendall_tau")
    best, best_se = res.table("p_best_correct"), res.table("se_best_correct")
    out = tau[["truth", "metric", "bin"]].copy()
    for e in est:
        out[f"tau {e}"] = tau[e].to_numpy(dtype=np.float64)
    for e in est:
        out[f"best {e}"] = best[e].to_numpy(dtype=np.float64)
    out["se tau"] = tau_se[est].max(axis=1).to_numpy(dtype=np.float64)
    out["se best"] = best_se[est].max(axis=1).to_numpy(dtype=np.float64)
    return out


def debiased_markdown(res: StudyResult) -> str:
    """:func:`debiased_table` as a Markdown table (two decimals; the docs page quotes it)."""
    df = debiased_table(res)
    if df.empty:
        return ""
    head = "| " + " | ".join(df.columns) + " |"
    rule = "|" + "|".join("---" if i < 3 else "---:" for i in range(len(df.columns))) + "|"
    rows = [
        "| "
        + " | ".join(f"{v:.2f}" if isinstance(v, float | np.floating) else str(v) for v in rec)
        + " |"
        for rec in df.itertuples(index=False)
    ]
    return "\n".join([head, rule, *rows]) + "\n"


def debiased_reading(res: StudyResult) -> list[str]:
    """Where the debiased form ranks closer to the truth than the empirical one, and where not.

    A difference counts when it exceeds two Monte Carlo standard errors
    (of the difference, taken as the two standard errors combined).
    """
    rk = res.rankings
    if "debiased" not in set(rk["estimator"]):
        return []
    cells = rk[rk["bin"] != "all"]
    out: list[str] = []
    for col, se_col, what in (
        ("kendall_tau", "se_kendall_tau", "Kendall tau with the true ranking"),
        ("p_best_correct", "se_best_correct", "P(pick the truly best model)"),
    ):
        p = cells.pivot_table(index=["truth", "metric", "bin"], columns="estimator", values=col)
        s = cells.pivot_table(
            index=["truth", "metric", "bin"], columns="estimator", values=se_col
        ).reindex(index=p.index, columns=p.columns)
        d = p["debiased"] - p["empirical"]
        se = np.hypot(s["debiased"], s["empirical"])
        better = [f"{m} on {t} at {b}" for (t, m, b) in d.index[(d > 2 * se).to_numpy()]]
        worse = [
            f"{m} on {t} at {b} ({p['empirical'][(t, m, b)]:.2f} → {p['debiased'][(t, m, b)]:.2f})"
            for (t, m, b) in d.index[(d < -2 * se).to_numpy()]
        ]
        out.append(
            f"{what}, debiased against empirical over {len(d)} (truth, metric, bin) cells: "
            f"better in {len(better)}, worse in {len(worse)}."
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


def _lines_per_bin(
    ax: Any, sub: pd.DataFrame, ests: list[str], bins: list[str], *, col: str, se_col: str
) -> None:
    """One line per estimator over the bins, with two-standard-error bars."""
    from dissensus.report._plots import _style, _text  # noqa: PLC0415

    x = np.arange(len(bins))
    for i, est in enumerate(ests):
        g = sub[sub["estimator"] == est].set_index("bin").reindex(bins)
        ax.errorbar(
            x, g[col], yerr=2 * g[se_col].fillna(0), label=_text(est), capsize=2, **_style(i)
        )


def _debiased_figure(res: StudyResult, truth: str) -> Figure:
    from dissensus.report._plots import _GRID, _new_figure, _text  # noqa: PLC0415

    rk = res.rankings[(res.rankings["truth"] == truth) & (res.rankings["bin"] != "all")]
    metrics = list(dict.fromkeys(rk["metric"]))
    ests = list(dict.fromkeys(rk["estimator"]))
    bins = list(dict.fromkeys(rk["bin"]))
    fig = _new_figure(2.6 * len(metrics), 4.8)
    axes = fig.subplots(2, len(metrics), squeeze=False)
    x = np.arange(len(bins))
    rows = (
        ("kendall_tau", "se_kendall_tau", "Kendall tau"),
        ("p_best_correct", "se_best_correct", "P(best right)"),
    )
    for r, (col, se_col, label) in enumerate(rows):
        for c, metric in enumerate(metrics):
            ax = axes[r, c]
            _lines_per_bin(ax, rk[rk["metric"] == metric], ests, bins, col=col, se_col=se_col)
            if r == 0:
                ax.set_title(_text(metric), loc="left")
            ax.set_xticks(x, bins, rotation=45)
            ax.set_ylim(-1.02 if col == "kendall_tau" else -0.02, 1.02)
            ax.grid(axis="y", color=_GRID, linewidth=0.6)
        axes[r, 0].set_ylabel(label)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=len(ests))
    return fig


# --------------------------------------------------------------------------- figures


def _decision_figure(res: StudyResult, truth: str) -> Figure:
    from dissensus.report._plots import _GRID, _new_figure, _text  # noqa: PLC0415

    rk = res.rankings[(res.rankings["truth"] == truth) & (res.rankings["bin"] != "all")]
    metrics = list(dict.fromkeys(rk["metric"]))
    ests = list(dict.fromkeys(rk["estimator"]))
    bins = list(dict.fromkeys(rk["bin"]))
    n_cols = min(3, len(metrics))
    n_rows = -(-len(metrics) // n_cols)
    fig = _new_figure(3.2 * n_cols, 2.3 * n_rows + 0.4)
    axes = np.atleast_1d(fig.subplots(n_rows, n_cols, squeeze=False)).ravel()
    x = np.arange(len(bins))
    for ax, metric in zip(axes, metrics, strict=False):
        sub = rk[rk["metric"] == metric]
        _lines_per_bin(ax, sub, ests, bins, col="p_pairs_correct", se_col="se_pairs_correct")
        ax.set_title(_text(f"{metric}: pairs ordered as the truth"), loc="left")
        ax.set_xticks(x, bins)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(axis="y", color=_GRID, linewidth=0.6)
    for ax in axes[len(metrics) :]:
        ax.set_visible(False)
    axes[0].set_ylabel("P(pair right)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=len(ests))
    return fig


def _allocation_figure(alloc: pd.DataFrame) -> Figure:
    from dissensus.report._plots import _GRID, _new_figure, _style, _text  # noqa: PLC0415

    fig = _new_figure(7.0, 2.6)
    axes = fig.subplots(1, 2)
    for ax, est in zip(axes, ["expected", "empirical"], strict=True):
        sub = alloc[alloc["estimator"] == est]
        for i, (s, g) in enumerate(sub.groupby("strategy", sort=False)):
            ax.errorbar(
                g["spent"],
                g["p_same_ranking"],
                yerr=2 * g["se_same_ranking"].fillna(0),
                label=_text(s),
                capsize=2,
                **_style(i),
            )
        ax.set_title(_text(f"ranking by the {est} metric"), loc="left")
        ax.set_xlabel("extra annotations spent")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(axis="y", color=_GRID, linewidth=0.6)
    axes[0].set_ylabel("P(exact true ranking)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=3)
    return fig


def _svg(draw: Any, *args: Any, fig_id: str, alt: str) -> str:
    from dissensus.report._plots import _render  # noqa: PLC0415  (the report's rc and SVG cleaning)

    return str(_render(draw, *args, fig_id=fig_id, alt=alt))


# --------------------------------------------------------------------------- html


def _table_html(df: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    rows = []
    for rec in df.itertuples(index=False):
        cells = []
        for v in rec:
            if isinstance(v, float | np.floating):
                cells.append(
                    f'<td class="num">{v:.3f}</td>' if np.isfinite(v) else '<td class="num">–</td>'
                )
            else:
                cells.append(f'<td class="txt">{html.escape(str(v))}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def main_table(res: StudyResult) -> pd.DataFrame:
    """Decision accuracy: one row per (truth, metric, bin), ``p ± se`` per estimator.

    Two cells per estimator: the share of model pairs ordered as the truth,
    and the probability of the exact true ranking of all models.
    """
    rk = res.rankings
    est = list(dict.fromkeys(rk["estimator"]))
    pairs = res.table("p_pairs_correct")
    pse = res.table("se_pairs_correct")
    same = res.table("p_same_ranking")
    out = pairs[["truth", "metric", "bin"]].copy()
    for e in est:
        out[f"{e} pairs"] = [_fmt(p, s) for p, s in zip(pairs[e], pse[e], strict=True)]
    for e in est:
        out[f"{e} exact"] = [_fmt(p) for p in same[e]]
    return out


def render_simulation_html(
    res: StudyResult,
    cov: pd.DataFrame | None = None,
    alloc: pd.DataFrame | None = None,
    *,
    title: str = "Do expected metrics pick the truly better model?",
) -> str:
    """The whole report as one self-contained HTML page."""
    from dissensus.report._html import _css  # noqa: PLC0415  (one stylesheet for every report)

    parts = [f"<h1>{html.escape(title)}</h1>", "<h2>Reading</h2>"]
    parts += [f"<p>{html.escape(p)}</p>" for p in plain_reading(res, cov, alloc)]
    parts.append("<h2>Decision accuracy per bin</h2>")
    parts.append(
        "<p>Per truth family, metric and annotation-count bin: 'pairs' is the share of model "
        "pairs ordered as the truth orders them (± Monte Carlo standard error), 'exact' the "
        "probability that the whole ranking equals the true one.</p>"
    )
    parts.append(_table_html(main_table(res)))
    for t in dict.fromkeys(res.rankings["truth"]):
        parts.append(f"<h3>Truth family: {html.escape(str(t))}</h3>")
        parts.append(
            _svg(_decision_figure, res, t, fig_id=f"fig-dec-{t}", alt=f"pairs right per bin, {t}")
        )
    deb = debiased_table(res)
    if not deb.empty:
        parts.append("<h2>Debiased metrics: ranking against the truth</h2>")
        parts.append(
            "<p>Per truth family, metric and annotation-count bin: Kendall's tau between each "
            "form's ranking of the models and the true ranking ('tau'), and the probability "
            "that the form's best model is the truly best one ('best'), for the empirical, "
            "expected (each prior) and debiased forms (dissensus.metrics.debiased). 'se' is "
            "the largest Monte Carlo standard error in the row.</p>"
        )
        parts += [f"<p>{html.escape(p)}</p>" for p in debiased_reading(res)]
        parts.append(_table_html(deb))
        for t in dict.fromkeys(res.rankings["truth"]):
            parts.append(f"<h3>Debiased, truth family: {html.escape(str(t))}</h3>")
            parts.append(
                _svg(_debiased_figure, res, t, fig_id=f"fig-deb-{t}", alt=f"tau and best, {t}")
            )
    parts.append("<h2>Mean scores (all items)</h2>")
    sc = res.scores[res.scores["bin"] == "all"]
    wide = sc.pivot_table(
        index=["truth", "metric", "model"], columns="estimator", values="estimate", sort=False
    )
    wide["true score"] = sc.pivot_table(
        index=["truth", "metric", "model"], values="true_score", aggfunc="first", sort=False
    )["true_score"]
    parts.append(_table_html(wide.reset_index()))
    if not res.prior_strength.empty:
        parts.append("<h2>Empirical-Bayes prior strength</h2>")
        parts.append(_table_html(res.prior_strength))
    if cov is not None and not cov.empty:
        parts.append("<h2>Posterior credible-interval coverage</h2>")
        cw = cov.pivot_table(
            index=["truth", "prior", "bin"], columns="level", values="coverage", sort=False
        )
        cw.columns = [f"{c:.0%}" for c in cw.columns]
        parts.append(_table_html(cw.reset_index()))
    if alloc is not None and not alloc.empty:
        parts.append("<h2>Allocation: accuracy against budget</h2>")
        parts.append(_svg(_allocation_figure, alloc, fig_id="fig-alloc", alt="allocation curves"))
        parts.append(_table_html(alloc))
    body = "\n".join(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_css()}</style></head>"
        f'<body><main class="report">{body}</main></body></html>\n'
    )


def write_simulation_report(
    res: StudyResult,
    out_dir: str | Path,
    cov: pd.DataFrame | None = None,
    alloc: pd.DataFrame | None = None,
) -> dict[str, Path]:
    """Write ``report.html`` and the CSV tables to ``out_dir``; return the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "rankings": out / "rankings.csv",
        "pairs": out / "pairs.csv",
        "scores": out / "scores.csv",
        "main_table": out / "decision_accuracy.csv",
    }
    res.rankings.to_csv(paths["rankings"], index=False, float_format="%.10g")
    res.pairs.to_csv(paths["pairs"], index=False, float_format="%.10g")
    res.scores.to_csv(paths["scores"], index=False, float_format="%.10g")
    main_table(res).to_csv(paths["main_table"], index=False)
    deb = debiased_table(res)
    if not deb.empty:
        paths["debiased"] = out / "debiased.csv"
        deb.to_csv(paths["debiased"], index=False, float_format="%.10g")
        paths["debiased_markdown"] = out / "debiased.md"
        paths["debiased_markdown"].write_text(debiased_markdown(res), encoding="utf-8")
    if cov is not None:
        paths["coverage"] = out / "coverage.csv"
        cov.to_csv(paths["coverage"], index=False, float_format="%.10g")
    if alloc is not None:
        paths["allocation"] = out / "allocation.csv"
        alloc.to_csv(paths["allocation"], index=False, float_format="%.10g")
    paths["report"] = out / "report.html"
    paths["report"].write_text(render_simulation_html(res, cov, alloc), encoding="utf-8")
    return paths
