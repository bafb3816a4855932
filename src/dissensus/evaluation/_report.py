"""The evaluation report as a document: its sections, tables and legends, in page order.

:func:`build_document` lays out a :class:`ReportData`; each ``*_table`` function formats
one of its tables, and the rows a table flags are the ones its legend explains.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus.evaluation._figures import count_bins, report_figures, reversal_item_figures
from dissensus.evaluation._reading import (
    flag,
    plain_reading,
    prior_sentences,
    reversal_statements,
    supported_prior,
)
from dissensus.evaluation._verdict import excludes_zero
from dissensus.report import (
    MISSING,
    VERSION,
    Bullets,
    Cell,
    Details,
    Document,
    Group,
    Paragraph,
    Section,
    Span,
    Table,
    format_count,
    format_estimate,
    format_interval,
    format_number,
    format_percent,
    format_pm,
    is_missing,
)

if TYPE_CHECKING:
    from dissensus.evaluation._data import ReportData


#: Up to this many models the summary has a column per model (as in Magnani 2025's
#: tables); with more, a row per model, so that it stays narrow enough to print.
MAX_MODEL_COLUMNS = 5
#: At most this many metrics as columns of one table (names do not break inside: more
#: columns would make it wider than the page).
MAX_METRIC_COLUMNS = 5
#: Longest differences / reversals table shown; both grow with the square of the models.
MAX_ROWS = 30
#: Below this many items a bootstrap interval is rough; the report says so.
MIN_ITEMS_FOR_INTERVAL = 30
FAMILY_LABELS = {"pointwise": "Empirical", "expected": "Expected", "debiased": "Debiased"}
_TARGET_WORDS = {
    "dawid_skene": "Dawid–Skene posterior (annotators weighted by their fitted confusion)",
    "ordinal_dawid_skene": "ordinal Dawid–Skene posterior (annotator bias and noise)",
    "mace": "MACE posterior (annotators weighted by their competence)",
    "user targets": "the targets given to evaluate",
}
_AUDIT_SYMBOL = {"holds": "✓", "violated": "✗", "not applicable": "–"}
_SHADED = Span("shaded", "shaded")


def _legend(*parts: str | Span) -> Paragraph:
    return Paragraph(*parts, style="legend")


def _lookup(table: pd.DataFrame, first: str, second: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Rows keyed by two columns (as strings); the first row wins on duplicates."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for rec in table.to_dict("records"):
        out.setdefault((str(rec[first]), str(rec[second])), {str(k): v for k, v in rec.items()})
    return out


# --- tables ------------------------------------------------------------------------------------


def answers_table(data: ReportData) -> Table:
    """The verdict, one row per metric: the answer, on what it rests, its numbers."""
    rows: list[list[Cell | str]] = []
    for r in data.verdict.to_dict("records"):
        if is_missing(r["best"]):
            continue
        told = r["basis"] == "true difference" and excludes_zero(r["ci_low"], r["ci_high"])
        if r["basis"] == "true difference":
            evidence = (
                f"{format_estimate(r['diff'], r['ci_low'], r['ci_high'])}, "
                f"P = {format_number(r['p_better'], digits=2)}"
            )
        else:
            evidence = (
                f"ordered right in {format_percent(r['p_better'])} of {r['n_replicas']} replicas"
            )
        estimator = str(r["estimator"]) + (
            f" ({r['prior']})" if r["estimator"] == "expected" else ""
        )
        rows.append([
            str(r["metric"]), Cell(str(r["best"]), best=told), str(r["runner_up"]), evidence,
            estimator, str(r["not_scored"]) or MISSING,
        ])  # fmt: skip
    header = ["Metric", "Better model", "Runner-up", "Evidence", "Estimator", "Not scored"]
    return Table(header, rows, align="llllll", id="answers-table")


def verdict_table(data: ReportData) -> Table:
    """Best model per family of metrics, how often its lead is significant, per bin."""
    v = data.family_verdict
    per_bin = v[v["scope"] == "bin"]
    rows: list[list[Cell | str]] = []
    flags = []
    families = v[(v["scope"] == "overall") & v["metric"].isna() & (v["best"] != "")]
    for r in families.to_dict("records"):
        bins = per_bin[per_bin["family"] == r["family"]]
        changes = bins[(bins["best"] != "") & (bins["best"] != r["best"])]
        by_bin = "; ".join(
            f"{b}: {w}" for b, w in zip(changes["bin"], changes["best"], strict=True)
        )
        if len(bins) <= 1 or changes.empty:
            by_bin = "one bin only" if len(bins) <= 1 else "the same in every bin"
        n, won = r["n_metrics"], r["n_won"]
        rows.append([
            f"{FAMILY_LABELS[r['family']]} ({n})", Cell(r["best"], best=True), f"{r['wins']} of {n}",
            f"{r['n_significant']} of {won}" if won else MISSING, by_bin,
        ])  # fmt: skip
        flags.append(bool(r["significant"]))
    header = [
        "Metrics",
        "Best model",
        "Best under",
        "Lead significant",
        "Best model by annotations per item",
    ]
    return Table(header, rows, align="llrrl", id="verdict-table", flagged_rows=flags)


def prior_table(data: ReportData) -> Table:
    """Expected metrics × priors: the best model under each, "(n.s.)" when its lead is not significant.

    The evaluation's prior is marked "used" and the one the data support best
    (highest marginal likelihood) "★ best fit".
    """
    v = data.family_verdict
    rows = v[(v["scope"] == "prior") & v["metric"].notna()]
    priors = [str(p) for p in pd.unique(rows["prior"])]
    fit = data.prior_fit if data.prior_fit is not None else pd.DataFrame(columns=["prior", "used"])
    used = set(fit.loc[fit["used"].astype(bool), "prior"].astype(str))
    supported = supported_prior(data)
    marks = [[*(["used"] if p in used else []), *(["★ best fit"] if supported and str(supported["prior"]) == p else [])]
             for p in priors]  # fmt: skip
    header = [
        "Metric",
        *(p + (f" ({', '.join(m)})" if m else "") for p, m in zip(priors, marks, strict=True)),
    ]
    cells = _lookup(rows, "metric", "prior")
    # an infinite mean has no interval: its lead is neither significant nor "(n.s.)"
    infinite: set[tuple[str, str]] = set()
    if (ps := data.prior_sensitivity) is not None and len(ps):
        bad = ps[np.isinf(ps["mean"].to_numpy(float))]
        infinite = set(zip(bad["metric"].astype(str), bad["prior"].astype(str), strict=True))
    body: list[list[Cell | str]] = []
    for metric in pd.unique(rows["metric"]):
        line: list[Cell | str] = [data.label(str(metric))]
        for prior in priors:
            r = cells[(str(metric), prior)]
            sig = flag(r["significant"])
            mark = (
                " (∞: see the note)"
                if (str(metric), prior) in infinite
                else ""
                if sig
                else " (n.s.)"
            )
            line.append(Cell(r["best"] + mark, best=sig) if r["best"] else MISSING)
        body.append(line)
    caption = "Best model under each expected metric, recomputed under each prior"
    return Table(header, body, align="l" * len(header), caption=caption, id="prior-table")


def prior_fit_table(data: ReportData) -> Table:
    """Per prior: strength, share of items it outweighs, marginal log-likelihood."""
    best = str(supported["prior"]) if (supported := supported_prior(data)) else None
    rows: list[list[Cell | str]] = [
        [str(r["prior"]) + (" (used)" if bool(r["used"]) else ""), format_number(r["strength"], digits=2),
         format_percent(r["share_items_weak"]),
         Cell(format_number(r["log_likelihood"], digits=1), best=str(r["prior"]) == best)]
        for r in ([] if data.prior_fit is None else data.prior_fit.to_dict("records"))
    ]  # fmt: skip
    header = ["Prior", "Strength (pseudo-counts)", "Items it outweighs", "Log-likelihood"]
    caption = "How strongly each prior weighs, and how well it fits the annotations"
    return Table(header, rows, caption=caption, id="prior-fit-table")


def significant_best(data: ReportData) -> set[tuple[str, str]]:
    """(metric, model) pairs where the model is best and its lead is significant.

    The model has the best mean under the metric (alone: a tie is no lead) and the paired
    interval of its difference with every other model excludes zero in its favour
    (``differences.better`` names it). This is what a highlight means in the report's
    tables; a best mean whose lead is within the noise is not highlighted.
    """
    best = data.summary[data.summary["best"].astype(bool)]
    n_best = best.groupby(best["metric"].astype(str))["model"].nunique()
    diffs = data.differences.astype({"metric": str, "model_a": str, "model_b": str})
    out = set()
    for metric, model in zip(best["metric"].astype(str), best["model"].astype(str), strict=True):
        if n_best.get(metric, 0) != 1:
            continue
        rows = diffs[
            (diffs["metric"] == metric)
            & ((diffs["model_a"] == model) | (diffs["model_b"] == model))
        ]
        if (
            len(rows) == len(data.models) - 1
            and len(rows)
            and (rows["better"].astype(str) == model).all()
        ):
            out.add((metric, model))
    return out


def _metric_groups(data: ReportData, metrics: list[str]) -> list[tuple[str, list[str]]]:
    """Metrics by family (empirical, expected, debiased), at most :data:`MAX_METRIC_COLUMNS` each.

    A table with a column per metric fits the page (1280 px and A4) only up to
    that many columns: metric names do not break inside, so more columns make
    the table wider than the page; a longer family is cut in parts.
    """
    families: dict[str, list[str]] = {}
    for m in metrics:
        families.setdefault(data.kind(m), []).append(m)
    groups = []
    for kind, names in families.items():
        parts = [
            names[i : i + MAX_METRIC_COLUMNS] for i in range(0, len(names), MAX_METRIC_COLUMNS)
        ]
        for k, part in enumerate(parts, 1):
            label = f"{FAMILY_LABELS.get(kind, kind)} metrics"
            groups.append((label + (f" ({k} of {len(parts)})" if len(parts) > 1 else ""), part))
    return groups


def _interval_cell(row: dict[str, Any], best: bool) -> Cell:
    return Cell(format_estimate(row["mean"], row["ci_low"], row["ci_high"]), best=best)


def summary_tables(data: ReportData) -> list[Table]:
    """``mean [low, high]`` per metric and model; bold ★ a best model whose lead is significant.

    Up to :data:`MAX_MODEL_COLUMNS` models: one table, metrics as rows and
    models as columns. With more models: a row per model and a table per family of
    metrics (:func:`_metric_groups`), so that no table is wider than the page.
    """
    models, metrics = data.models, data.metrics
    summary = _lookup(data.summary, "metric", "model")
    marked = significant_best(data)

    def cell(metric: str, model: str) -> Cell | str:
        if (row := summary.get((metric, model))) is None:
            return MISSING
        return _interval_cell(row, (metric, model) in marked)

    if len(models) <= MAX_MODEL_COLUMNS:
        rows = [[data.label(m), *(cell(m, model) for model in models)] for m in metrics]
        return [Table(["Metric", *models], rows, id="summary-table")]
    return [
        Table(["Model", *(data.label(m) for m in group)],
              [[model, *(cell(m, model) for m in group)] for model in models],
              caption=caption, id="summary-table" + (f"-{i}" if i > 1 else ""))
        for i, (caption, group) in enumerate(_metric_groups(data, metrics), 1)
    ]  # fmt: skip


def differences_table(data: ReportData, *, max_rows: int = MAX_ROWS) -> Table:
    """Paired differences with intervals, the first ``max_rows``; those excluding zero flagged."""
    rows, flags = [], []
    for rec in data.differences.head(max_rows).itertuples(index=False):
        significant = excludes_zero(rec.ci_low, rec.ci_high)
        better = "" if is_missing(rec.better) else str(rec.better)
        if np.isinf(np.asarray(rec.diff, dtype=float)):
            better = "∞: see the note"  # an infinite mean on one side: no interval, no "(n.s.)"
        ns = " (n.s.)" if better in {str(rec.model_a), str(rec.model_b)} and not significant else ""
        pair, interval = f"{rec.model_a} − {rec.model_b}", format_interval(rec.ci_low, rec.ci_high)
        rows.append(
            [data.label(str(rec.metric)), pair, format_number(rec.diff), interval, better + ns]
        )
        flags.append(significant)
    omitted = max(len(data.differences) - max_rows, 0)
    header = ["Metric", "Difference", "Estimate", "Interval", "Better"]
    return Table(header, rows, "llrrl", id="differences-table", flagged_rows=flags, omitted=omitted)


def by_bin_table(data: ReportData, metric: str, *, id: str = "") -> Table:
    """One metric's mean per bin of annotations per item, models as columns, the best marked."""
    rows: list[list[Cell | str]] = []
    for label, means, n_items in data.bin_means(metric):
        finite = [v for v in means.values() if np.isfinite(v)]
        best = (min(finite) if data.lower_is_better(metric) else max(finite)) if finite else np.nan
        values = [means.get(model, np.nan) for model in data.models]
        cells = [Cell(format_number(v), best=len(values) > 1 and v == best) for v in values]
        rows.append([label, format_count(n_items), *cells])
    return Table(["Annotations", "Items", *data.models], rows, caption=data.label(metric), id=id)


def _n_significant(reversals: pd.DataFrame) -> npt.NDArray[np.int64]:
    """Per reversal, under how many of its two metrics it is significant (0, 1 or 2)."""
    flags = reversals[["significant_1", "significant_2"]].map(flag)
    total: npt.NDArray[np.int64] = flags.to_numpy(dtype=np.int64).sum(axis=1)
    return total


def rankings_tables(data: ReportData) -> list[Table]:
    """Models × metrics ranks (``=2`` marks a tie), a table per family of metrics.

    Bold ★ marks rank 1 where the lead is significant (:func:`significant_best`).
    """
    ranks = _lookup(data.rankings, "model", "metric")
    metrics = [m for m in data.metrics if m in {metric for _, metric in ranks}]
    marked = significant_best(data)
    tables = []
    groups = _metric_groups(data, metrics)
    for i, (caption, group) in enumerate(groups, 1):
        rows = []
        for model in data.models:
            line: list[Cell | str] = [model]
            for metric in group:
                if (row := ranks.get((model, metric))) is None:
                    line.append(MISSING)
                    continue
                text = ("=" if bool(row["tied"]) else "") + format_count(row["rank"])
                line.append(Cell(text, best=(metric, model) in marked))
            rows.append(line)
        tables.append(Table(["Model", *(data.label(m) for m in group)], rows,
                            caption=caption if len(groups) > 1 else "",
                            id="rankings-table" + (f"-{i}" if i > 1 else "")))  # fmt: skip
    return tables


def reversals_table(data: ReportData, *, max_rows: int = MAX_ROWS) -> Table:
    """Each reversal with both metrics' differences; significant under both first, then one, none.

    At most ``max_rows`` rows (stable within each group); ``omitted`` counts the rest.
    """
    rev = data.reversals
    n_sig = _n_significant(rev)
    order = np.argsort(-n_sig, kind="stable")[:max_rows]
    rows = []
    for rec in rev.iloc[order].to_dict("records"):
        line = [f"{rec['metric_1']} vs {rec['metric_2']}", f"{rec['model_a']} vs {rec['model_b']}"]
        for k in ("_1", "_2"):
            diff = format_estimate(rec["diff" + k], rec["ci_low" + k], rec["ci_high" + k])
            line += [str(rec["better" + k]), diff, "yes" if flag(rec["significant" + k]) else "no"]
        rows.append(line)
    header = ["Metrics", "Models", "Better under 1st", "Difference (1st)", "Sig."]
    header += ["Better under 2nd", "Difference (2nd)", "Sig."]
    flags, omitted = list(n_sig[order] == 2), max(len(rev) - max_rows, 0)
    return Table(
        header, rows, "lllrclrc", id="reversals-table", flagged_rows=flags, omitted=omitted
    )


def metric_agreement_table(data: ReportData) -> Table:
    """Rizzi et al. (2024) Table 2: share re-ranked, mean ± sd position change, Kendall's τ."""
    rows = [
        [f"{r.metric_1} vs {r.metric_2}", format_percent(r.share_reranked),
         format_pm(r.mean_abs_change, r.sd_abs_change, digits=1), format_number(r.kendall_tau, digits=2)]
        for r in data.metric_agreement.itertuples(index=False)
    ]  # fmt: skip
    header = ["Metrics compared", "Models re-ranked", "Mean position change ± sd", "Kendall's τ"]
    return Table(header, rows, id="metric-agreement-table")


def agreement_table(data: ReportData) -> Table:
    """Agreement coefficients with intervals."""
    rows = [
        [str(r.coefficient), format_number(r.value), format_interval(r.ci_low, r.ci_high),
         format_number(r.standard_error), format_count(r.n_items), format_count(r.n_annotations)]
        for r in ([] if data.agreement is None else data.agreement.itertuples(index=False))
    ]  # fmt: skip
    header = ["Coefficient", "Value", "Interval", "SE", "Items", "Annotations"]
    return Table(header, rows, caption="Coefficients with their intervals", id="agreement-table")


def audit_tables(audit: pd.DataFrame) -> tuple[Table, Table]:
    """Metrics × properties (✓ holds, ✗ violated, – not applicable); each violation's counterexample."""
    keys = [str(k) for k in pd.unique(audit["property"].astype(str))]
    status = _lookup(audit, "metric", "property")
    rows = [
        [metric, *(_AUDIT_SYMBOL.get(str(status.get((metric, k), {}).get("status")), MISSING) for k in keys)]
        for metric in pd.unique(audit["metric"].astype(str))
    ]  # fmt: skip
    violated = audit[audit["status"].astype(str) == "violated"].to_dict("records")
    examples = [[str(r["metric"]), _property(r), str(r["counterexample"])] for r in violated]
    caption = "The simplest counterexample found for each violation"
    matrix = Table(["Metric", *keys], rows, align="l" + "c" * len(keys), id="audit-table")
    header = ["Metric", "Property", "Counterexample"]
    return matrix, Table(header, examples, "lll", caption, id="audit-counterexamples-table")


def _property(row: dict[Any, Any]) -> str:
    key, title = str(row["property"]), str(row["title"])
    return title if title.startswith(key) else f"{key} {title}"


def smoothing_text(smoothing: Mapping[str, Any]) -> str:
    """What ``evaluate(smooth=)`` did: ε, the formula, and per model the rows that held a 0."""
    eps = format_number(smoothing["epsilon"])
    rows = ", ".join(f"{m} {format_count(n)}" for m, n in smoothing["rows_with_zero"].items())
    return (
        f"predictions smoothed, q ← (q + ε) / (1 + Kε) with ε = {eps}; rows that held a 0: {rows}"
    )


def dataset_facts(data: ReportData) -> Table:
    """The dataset at a glance, as a two-column table."""
    ds, counts = data.dataset, data.annotations_per_item
    labels = ", ".join(str(label) for label in ds["labels"])
    annotators = "unknown" if is_missing(ds["n_annotators"]) else format_count(ds["n_annotators"])
    rows = [
        ["Items", format_count(ds["n_items"])], ["Annotators", annotators],
        ["Annotations", format_count(ds["n_annotations"])],
        ["Labels", f"{labels} ({'ordinal' if bool(ds['ordered']) else 'nominal'})"],
        ["Prior", str(ds["prior"])],
    ]  # fmt: skip
    if (smoothing := ds.get("smoothing")) is not None:
        rows.append(["Smoothing", smoothing_text(smoothing)])
    if (targets := str(ds.get("targets", "empirical"))) != "empirical":
        rows.append(["Pointwise targets", _TARGET_WORDS.get(targets, targets)])
    if counts.size:
        median = f"median {float(np.median(counts)):g}, range {counts.min():,}–{counts.max():,}"
        rows.append(["Annotations per item", median])
    return Table(["Quantity", "Value"], rows, align="ll", id="facts-table")


# --- the document ------------------------------------------------------------------------------


def _verdict_section(data: ReportData) -> Section:
    verdict, priors, answers = verdict_table(data), prior_table(data), answers_table(data)
    notes, warning = prior_sentences(data)
    statements = reversal_statements(data)
    n_items = int(data.dataset["n_items"])
    sentences = [str(s) for s in data.verdict["sentence"]]
    return Section(
        "Verdict",
        Bullets(sentences) if sentences else None,
        answers if answers.rows else None,
        _legend(
            "One answer per metric. Cross-entropy, KL, Brier and RPS: the paired difference of "
            "TRUE scores has an unbiased estimator, given with its interval and the probability "
            "that the better model is truly better. Other metrics (EMD, L1, JS, ...): their true "
            "values cannot be estimated without bias from few annotations; their debiased form "
            "ranks the models (the best fixed choice in docs/estimator_selection.md), and the "
            "evidence is the share of simulated replicas of these data (the items' plausible "
            "truths under the prior the data support, annotations redrawn at their counts) in "
            "which it orders the two models as their true scores do. Highlighted: the interval of "
            "the true difference excludes zero. Expected metrics are the posterior view under the "
            "prior."
        ) if answers.rows else None,
        Section("Rankings by family of metrics", verdict, _legend(
            "Best model: the one best under most metrics of the family. “Lead significant”: under "
            "how many of the metrics it wins, the paired interval of its lead over the runner-up "
            "excludes zero. The last column lists the bins of annotations per item where another "
            "model is best."
        )) if verdict.rows else None,
        Paragraph(Span("Prior check."), f" {warning}", style="warning") if warning else None,
        Section(
            "Robustness to the prior",
            *(Paragraph(n) for n in notes),
            priors,
            _legend(Span("Bold"), " ★: the lead over the runner-up is significant; (n.s.): it is "
                    "not. Pointwise (empirical) metrics do not depend on the prior."),
            prior_fit_table(data),
            _legend("Strength: the prior's total pseudo-counts, added to every item's annotations. "
                    "“Items it outweighs”: items with no more annotations than that. "
                    "Log-likelihood: Dirichlet-multinomial marginal likelihood of the annotations "
                    "under the prior (natural log; higher fits better; ", Span("bold"), " ★ the best)."),
        ) if priors.rows else None,
        Section("Where the families disagree", Bullets(statements)) if statements else None,
        Paragraph(
            Span("Few items."), f" Every interval rests on {n_items} items (fewer than "
            f"{MIN_ITEMS_FOR_INTERVAL}); bootstrap intervals are rough at this size.",
            style="warning",
        ) if n_items < MIN_ITEMS_FOR_INTERVAL else None,
        id="verdict",
    )  # fmt: skip


def _dataset_section(data: ReportData, figs: dict[str, Any], figures: bool) -> Section:
    bins = [] if figures else count_bins(data.annotations_per_item)
    total = sum(n for _, n in bins)
    counts = [[label, format_count(n), format_percent(n / total, digits=1)] for label, n in bins]
    agreement = agreement_table(data)
    return Section(
        "Dataset at a glance",
        Group(dataset_facts(data), figs.get("annotations"), layout="pair"),
        # the histogram's numbers, where there is no figure
        Table(["Annotations", "Items", "Share"], counts, "rrr", "Annotations per item") if bins else None,
        Section("Annotators", _legend(
            "How reliable the annotator model behind the pointwise targets finds each annotator "
            "(accuracy, or MACE's competence); a reference line marks chance accuracy 1/K where "
            "it applies."), figs["annotators"]) if "annotators" in figs else None,
        Section("Agreement", agreement) if agreement.rows else None,
        id="dataset",
    )  # fmt: skip


_HIGHLIGHT = (
    " ★ marks the best model under a metric only where its lead is significant: the paired "
    "interval of its difference with every other model excludes zero; a best mean within "
    "the noise is not marked."
)


def infinite_note(data: ReportData) -> Paragraph | None:
    """Why a mean is infinite, per metric and model with its number of items, and the remedy.

    An expected metric (E[cross_entropy], E[kl_divergence]) is infinite where a
    prediction is 0 for any label: the Dirichlet posterior gives every label
    mass. An empirical one is infinite where a prediction is 0 for a label the
    target gives mass (a label some annotator chose, with the label shares).
    """
    s = data.summary
    bad = s[~np.isfinite(s["mean"].to_numpy(float)) & s["mean"].notna()]
    if bad.empty:
        return None
    counts = "n_infinite" in bad.columns
    parts, kinds = [], set()
    for metric, rows in bad.groupby(bad["metric"].astype(str), sort=False):
        kinds.add(data.kind(metric))
        models = ", ".join(
            f"{r['model']}" + (f" ({format_count(r['n_infinite'])} items)" if counts else "")
            for r in rows.to_dict("records")
        )
        parts.append(f"{metric}: {models}")
    causes = []
    if "expected" in kinds:
        causes.append(
            "under an expected metric, a prediction of 0 for any label, because the posterior "
            "gives every label mass (the expected log-loss of a zero is infinite)"
        )
    if kinds - {"expected"}:
        causes.append(
            "under an empirical metric, a prediction of 0 for a label the target gives mass (a "
            "label some annotator chose)"
        )
    return Paragraph(
        Span("∞ (infinite mean)."), f" {'; '.join(parts)}. Cause: {'; '.join(causes)}. One such "
        "item makes the mean infinite; it is a result, not a missing value, and no verdict rests "
        "on it. Remedy: smooth the predictions, q ← (q + ε) / (1 + Kε), with ",
        Span("evaluate(..., smooth=1e-6)", "code"), " or ", Span("--smooth 1e-6", "code"),
        " (LeWiDi's scorers clip likewise).",
        style="note", id="infinite-note",
    )  # fmt: skip


def _summary_section(data: ReportData, figs: dict[str, Any]) -> Section:
    tables = summary_tables(data)
    return Section(
        "Summary",
        _legend("Mean [interval] per model and metric. ↓ lower is better, ↑ higher is better; ",
                Span("bold"), _HIGHLIGHT),
        *tables,
        infinite_note(data),
        Paragraph(f"Scored after smoothing: {smoothing_text(sm)}.", style="note", id="smoothing-note")
        if (sm := data.dataset.get("smoothing")) is not None else None,
        figs.get("summary"),
        id="summary",
    )  # fmt: skip


def _by_bin_section(data: ReportData, figs: dict[str, Any], figures: bool) -> Section | None:
    # the figure plots these numbers; the tables stand in for it (Markdown, no matplotlib)
    tables = [] if "by_bin" in figs else [
        t for i, m in enumerate(data.metrics, 1) if (t := by_bin_table(data, m, id=f"by-bin-{i}")).rows
    ]  # fmt: skip
    if "by_bin" not in figs and not tables:
        return None
    items = data.by_bin.groupby(data.by_bin["bin"].astype(str))["n_items"].max()
    few = [b for b in data.bins() if b in items.index and int(items[b]) < MIN_ITEMS_FOR_INTERVAL]
    return Section(
        "Results by number of annotations per item",
        figs.get("by_bin"),
        Paragraph("The HTML report plots these numbers; Markdown shows them as tables.", style="note")
        if tables and not figures else None,
        _legend("Mean per bin of annotations per item; “Items” is the number of items in the bin; ",
                Span("bold"), " ★ marks the best model in the bin.") if tables else None,
        Paragraph(f"Bins {', '.join(few)} hold fewer than {MIN_ITEMS_FOR_INTERVAL} items: their "
                  "means are rough.", style="note") if few else None,
        Group(*tables),
        id="by-bin",
    )  # fmt: skip


def _rankings_section(data: ReportData) -> Section | None:
    rankings, reversals = rankings_tables(data), reversals_table(data)
    if not any(t.rows for t in rankings):
        return None
    n, n_both = len(data.reversals), int(np.count_nonzero(_n_significant(data.reversals) == 2))
    summary = f"Appendix: all {n} reversal{'' if n == 1 else 's'} ({n_both} significant under both metrics)"
    return Section(
        "Rankings",
        _legend("Rank 1 is best; “=” marks a tie; ", Span("bold"), _HIGHLIGHT),
        *rankings,
        Details(summary, _legend(
            "A reversal: two models that two metrics order differently. Differences are first "
            "model minus second; “Sig.” says whether the interval excludes zero; ", _SHADED,
            " rows are significant under both metrics."), reversals,
            id="reversals-appendix") if reversals.rows else
        Paragraph("No ranking reversals: every pair of models keeps its order across metrics.", style="note"),
        id="rankings",
    )  # fmt: skip


def _metrics_section(data: ReportData) -> Section | None:
    if not len(data.metrics_info):
        return None
    rows = [
        [str(r.name), str(r.kind), f"{'lower' if r.lower_is_better else 'higher'} is better", str(r.description)]
        for r in data.metrics_info.itertuples(index=False)
    ]  # fmt: skip
    audit, appendix = data.metric_audit, None
    if audit is not None and not audit.empty:
        K, n_trials, seed = (int(audit[k].iloc[0]) for k in ("classes", "n_trials", "seed"))
        names = "; ".join(
            _property(r) for r in audit.drop_duplicates("property").to_dict("records")
        )
        matrix, examples = audit_tables(audit)
        appendix = Details(
            f"Appendix: properties of these metrics (machine audit, K = {K} classes)",
            _legend(
                f"✓ holds (no counterexample found in {n_trials:,} seeded trials per property, "
                f"seed {seed}; not a proof), ✗ violated, – not applicable. Properties: {names}. "
                "Definitions in docs/audit.md; the full search (100,000 trials) is ",
                Span(f"dissensus audit --classes {K}", "code"),
                ". Debiased metrics are not audited: their properties are those of the metric "
                "they estimate.",
            ),
            matrix, examples if examples.rows else None, id="audit-appendix",
        )  # fmt: skip
    table = Table(["Metric", "Kind", "Direction", "Description"], rows, "llll", id="metrics-table")
    return Section("Metrics", table, appendix, id="metrics")


def _gists(data: ReportData, n_figures: int) -> dict[str, str]:
    """The line under each collapsed section's heading: what is inside, in a few words."""
    ds, n_rev = data.dataset, len(data.reversals)
    diffs = data.differences
    n_sig = sum(
        excludes_zero(lo, hi) for lo, hi in zip(diffs["ci_low"], diffs["ci_high"], strict=True)
    )
    marked = significant_best(data)
    return {
        "reading": "the tables below, in sentences",
        "dataset": f"{format_count(ds['n_items'])} items, {format_count(ds['n_annotations'])} "
                   f"annotations, {len(ds['labels'])} labels",
        "summary": f"mean and interval of {len(data.models)} models under {len(data.metrics)} "
                   f"metrics; a significant lead under {len(marked)}",
        "by-bin": f"means per bin of annotations per item ({', '.join(data.bins())})",
        "where-models-disagree": f"{n_figures} figure{'' if n_figures == 1 else 's'}: the items "
                                 "behind the strongest reversals",
        "differences": f"{len(diffs):,} paired differences, {n_sig:,} excluding zero",
        "rankings": f"ranks per metric; {n_rev:,} reversal{'' if n_rev == 1 else 's'}",
        "metric-agreement": "how alike the metrics rank the models (Kendall's τ)",
        "metrics": "definitions, direction, audited properties",
    }  # fmt: skip


def _fold(section: Section, gist: str) -> Section:
    """``section`` collapsed behind its heading, its own subsections collapsed too."""
    blocks = [b.folded() if isinstance(b, Section) else b for b in section.blocks]
    return Section(section.title, *blocks, id=section.id, collapsed=True, gist=gist)


def build_document(data: ReportData, *, figures: bool = True) -> Document:
    """The report of ``data`` as a document; ``figures=False`` leaves the figures out.

    The verdict comes first and open (its subsections collapsed); every other
    section is collapsed behind its heading and a line saying what it holds.
    """
    figs = report_figures(data) if figures else {}
    items = reversal_item_figures(data) if figures else []
    reading, differences = plain_reading(data), differences_table(data)
    agreement = metric_agreement_table(data)
    n_models, n_metrics = len(data.models), len(data.metrics)
    subtitle = (
        f"{n_models} model{'' if n_models == 1 else 's'} · {n_metrics} metric"
        f"{'' if n_metrics == 1 else 's'} · {format_count(data.dataset['n_items'])} items. "
        f"Generated by dissensus {VERSION}."
    )
    verdict = _verdict_section(data)
    verdict = Section(
        verdict.title,
        *(b.folded() if isinstance(b, Section) else b for b in verdict.blocks),
        id=verdict.id,
    )
    rest = [
        Section("Details in plain words", Bullets(reading), id="reading") if reading else None,
        _dataset_section(data, figs, figures),
        _summary_section(data, figs),
        _by_bin_section(data, figs, figures),
        Section("Where models disagree", _legend(
            "For each reversal, the items that favour one model under the first metric and the "
            "other under the second the most."), *items, id="where-models-disagree") if items else None,
        Section("Paired differences", _legend(
            _SHADED, " rows: the interval of the difference (first model minus second) excludes "
            "zero; (n.s.) marks an interval that includes zero; ∞: an infinite difference (see "
            "the note under the summary), neither significant nor not."), differences,
            id="differences") if differences.rows else None,
        _rankings_section(data),
        Section("Metric agreement", figs.get("agreement"), Details(
            "Appendix: the table (share re-ranked, position change, Kendall's τ)",
            _legend("How differently each pair of metrics ranks the models: the share of models "
                    "whose rank changes, the mean ± sd change of rank position, and Kendall's τ "
                    "between the two rankings."),
            agreement, id="metric-agreement-appendix", open="agreement" not in figs,
        ), id="metric-agreement") if agreement.rows else None,
        _metrics_section(data),
    ]  # fmt: skip
    gists = _gists(data, len(items))
    return Document(
        data.title,
        verdict,
        *(_fold(sec, gists.get(sec.id, "")) for sec in rest if sec is not None),
        subtitle=subtitle,
        footer=f"Generated by dissensus {VERSION}. Self-contained file: styles and figures are "
        "inline; nothing is loaded from the network.",
    )  # fmt: skip
