"""The evaluation report as a document: its sections, tables and legends, in page order.

:func:`build_document` lays out a :class:`ReportData`: the verdict first
(best model per family of metrics, its robustness to the prior, where the
families disagree), the plain reading, the dataset, the summary, results per
number of annotations per item, the items behind the reversals, paired
differences, rankings (reversals in an appendix), metric agreement and the
metrics with their property audit. Each ``*_table`` function formats one
table of the data as a :class:`~dissensus.report.Table`; rows flagged in a
table are the ones its legend explains.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus.evaluation._figures import count_bins, report_figures, reversal_item_figures
from dissensus.evaluation._reading import (
    plain_reading,
    prior_sentences,
    reversal_statements,
    supported_prior,
)
from dissensus.evaluation._verdict import excludes_zero
from dissensus.report import (
    MISSING,
    VERSION,
    Block,
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
    format_interval,
    format_number,
    format_percent,
    format_pm,
    is_missing,
)

if TYPE_CHECKING:
    from dissensus.evaluation._data import ReportData

__all__ = ["MAX_MODEL_COLUMNS", "MAX_ROWS", "MIN_ITEMS_FOR_INTERVAL", "build_document"]

#: Up to this many models the summary has a column per model (as in Magnani 2025's
#: tables); with more, a row per model, so that it stays narrow enough to print.
MAX_MODEL_COLUMNS = 5
#: Longest differences / reversals table shown; both grow with the square of the models.
MAX_ROWS = 100
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
_BEST: list[str | Span] = [Span("bold"), " ★"]


def _label(data: ReportData, metric: str) -> str:
    """``metric ↓`` (lower is better) or ``metric ↑``."""
    return f"{metric} {'↓' if data.lower_is_better(metric) else '↑'}"


def _lookup(table: pd.DataFrame, first: str, second: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Rows keyed by two columns (as strings); the first row wins on duplicates."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for record in table.to_dict("records"):
        out.setdefault(
            (str(record[first]), str(record[second])), {str(k): v for k, v in record.items()}
        )
    return out


# --- tables ------------------------------------------------------------------------------------


def verdict_table(data: ReportData) -> Table:
    """Best model per family of metrics, how often its lead is significant, per bin."""
    v = data.verdict
    per_bin = v[v["scope"] == "bin"]
    rows: list[list[Cell | str]] = []
    flags = []
    for r in v[(v["scope"] == "overall") & v["metric"].isna() & (v["best"] != "")].to_dict(
        "records"
    ):
        bins = per_bin[per_bin["family"] == r["family"]]
        changes = bins[(bins["best"] != "") & (bins["best"] != r["best"])]
        if len(bins) <= 1:
            by_bin = "one bin only"
        elif changes.empty:
            by_bin = "the same in every bin"
        else:
            by_bin = "; ".join(
                f"{b}: {w}" for b, w in zip(changes["bin"], changes["best"], strict=True)
            )
        n, won = r["n_metrics"], r["n_won"]
        rows.append([
            f"{FAMILY_LABELS[r['family']]} ({n})", Cell(r["best"], best=True), f"{r['wins']} of {n}",
            f"{r['n_significant']} of {won}" if won else MISSING, by_bin,
        ])  # fmt: skip
        flags.append(bool(r["significant"]))
    header = ["Metrics", "Best model", "Best under", "Lead significant"]
    header.append("Best model by annotations per item")
    return Table(header, rows, align="llrrl", id="verdict-table", flagged_rows=flags)


def prior_table(data: ReportData) -> Table:
    """Expected metrics (rows) × priors (columns): the best model under each prior.

    A cell reads ``model`` when its lead over the runner-up is significant and
    ``model (n.s.)`` otherwise; the evaluation's prior is marked "used" and
    the one the data support best (highest marginal likelihood) "★ best fit".
    """
    v = data.verdict
    rows = v[(v["scope"] == "prior") & v["metric"].notna()]
    priors = [str(p) for p in pd.unique(rows["prior"])]
    fit = (
        {}
        if data.prior_fit is None
        else {str(r["prior"]): r for r in data.prior_fit.to_dict("records")}
    )
    supported = supported_prior(data)
    header = ["Metric"]
    for prior in priors:
        marks = ["used"] if prior in fit and bool(fit[prior]["used"]) else []
        marks += (
            ["★ best fit"] if supported is not None and str(supported["prior"]) == prior else []
        )
        header.append(prior + (f" ({', '.join(marks)})" if marks else ""))
    cells = _lookup(rows, "metric", "prior")
    body = []
    for metric in pd.unique(rows["metric"]):
        line: list[Cell | str] = [_label(data, str(metric))]
        for prior in priors:
            r = cells[(str(metric), prior)]
            sig = bool(r["significant"]) if not is_missing(r["significant"]) else False
            text = str(r["best"]) + ("" if sig else " (n.s.)")
            line.append(Cell(text, best=sig) if r["best"] else MISSING)
        body.append(line)
    caption = "Best model under each expected metric, recomputed under each prior"
    return Table(header, body, align="l" * len(header), caption=caption, id="prior-table")


def prior_fit_table(data: ReportData) -> Table:
    """Per prior: strength, share of items it outweighs, marginal log-likelihood."""
    supported = supported_prior(data)
    rows: list[list[Cell | str]] = [
        [
            str(rec["prior"]) + (" (used)" if bool(rec["used"]) else ""),
            format_number(rec["strength"], digits=2),
            format_percent(rec["share_items_weak"]),
            Cell(
                format_number(rec["log_likelihood"], digits=1),
                best=supported is not None and str(supported["prior"]) == str(rec["prior"]),
            ),
        ]
        for rec in ([] if data.prior_fit is None else data.prior_fit.to_dict("records"))
    ]
    header = ["Prior", "Strength (pseudo-counts)", "Items it outweighs", "Log-likelihood"]
    caption = "How strongly each prior weighs, and how well it fits the annotations"
    return Table(header, rows, caption=caption, id="prior-fit-table")


def summary_table(data: ReportData) -> Table:
    """``mean [low, high]`` per metric and model, the best model per metric marked.

    Metrics are rows and models columns up to :data:`MAX_MODEL_COLUMNS`
    models; beyond that the table is transposed (a row per model).
    """
    models, metrics = data.models, data.metrics
    summary = _lookup(data.summary, "metric", "model")

    def cell(metric: str, model: str) -> Cell | str:
        row = summary.get((metric, model))
        if row is None:
            return MISSING
        interval = format_interval(row["ci_low"], row["ci_high"])
        return Cell(
            format_number(row["mean"]) + (f" {interval}" if interval else ""),
            best=bool(row["best"]),
        )

    if len(models) <= MAX_MODEL_COLUMNS:
        rows = [[_label(data, m), *(cell(m, model) for model in models)] for m in metrics]
        return Table(["Metric", *models], rows, id="summary-table")
    rows = [[model, *(cell(m, model) for m in metrics)] for model in models]
    return Table(["Model", *(_label(data, m) for m in metrics)], rows, id="summary-table")


def differences_table(data: ReportData, *, max_rows: int = MAX_ROWS) -> Table:
    """Paired differences with intervals; rows whose interval excludes zero are flagged.

    At most ``max_rows`` rows, in the table's order; ``omitted`` counts the rest.
    """
    rows, flags = [], []
    for rec in data.differences.head(max_rows).itertuples(index=False):
        significant = excludes_zero(rec.ci_low, rec.ci_high)
        better = "" if is_missing(rec.better) else str(rec.better)
        names_model = better in {str(rec.model_a), str(rec.model_b)}
        rows.append(
            [
                _label(data, str(rec.metric)),
                f"{rec.model_a} − {rec.model_b}",
                format_number(rec.diff),
                format_interval(rec.ci_low, rec.ci_high),
                better + (" (n.s.)" if names_model and not significant else ""),
            ]
        )
        flags.append(significant)
    return Table(
        ["Metric", "Difference", "Estimate", "Interval", "Better"], rows, align="llrrl",
        id="differences-table", flagged_rows=flags,
        omitted=max(len(data.differences) - max_rows, 0),
    )  # fmt: skip


def by_bin_table(data: ReportData, metric: str, *, id: str = "") -> Table:
    """One metric's mean per bin of annotations per item, models as columns."""
    models = data.models
    sub = data.by_bin[data.by_bin["metric"].astype(str) == metric]
    rows = []
    for label in data.bins():
        in_bin = sub[sub["bin"].astype(str) == label]
        if in_bin.empty:
            continue
        means = {str(m): float(v) for m, v in zip(in_bin["model"], in_bin["mean"], strict=True)}
        finite = [v for v in means.values() if np.isfinite(v)]
        best = (min(finite) if data.lower_is_better(metric) else max(finite)) if finite else np.nan
        values = [means.get(model, np.nan) for model in models]
        rows.append(
            [label, format_count(in_bin["n_items"].max())]
            + [Cell(format_number(v), best=len(models) > 1 and v == best) for v in values]
        )
    return Table(["Annotations", "Items", *models], rows, caption=_label(data, metric), id=id)


def _n_significant(reversals: pd.DataFrame) -> npt.NDArray[np.int64]:
    """Per reversal, under how many of its two metrics it is significant (0, 1 or 2)."""
    flags = reversals[["significant_1", "significant_2"]].map(
        lambda f: not is_missing(f) and bool(f)
    )
    total: npt.NDArray[np.int64] = flags.to_numpy(dtype=np.int64).sum(axis=1)
    return total


def rankings_table(data: ReportData) -> Table:
    """Models × metrics ranks (``=2`` marks a tie); the ranks in a reversal are flagged."""
    involved = {
        (str(model), str(metric))
        for rec in data.reversals.itertuples(index=False)
        for model in (rec.model_a, rec.model_b)
        for metric in (rec.metric_1, rec.metric_2)
    }
    ranks = _lookup(data.rankings, "model", "metric")
    metrics = [m for m in data.metrics if m in {metric for _, metric in ranks}]
    rows = []
    for model in data.models:
        line: list[Cell | str] = [model]
        for metric in metrics:
            row = ranks.get((model, metric))
            if row is None:
                line.append(MISSING)
                continue
            text = ("=" if bool(row["tied"]) else "") + format_count(row["rank"])
            line.append(Cell(text, best=row["rank"] == 1, flagged=(model, metric) in involved))
        rows.append(line)
    return Table(["Model", *(_label(data, m) for m in metrics)], rows, id="rankings-table")


def reversals_table(data: ReportData, *, max_rows: int = MAX_ROWS) -> Table:
    """Each reversal: who wins under each metric, with differences and significance.

    Reversals significant under both metrics come first, then under one, then
    under neither (stable within each group); at most ``max_rows`` rows, and
    ``omitted`` counts the rest.
    """
    rev = data.reversals
    n_sig = _n_significant(rev)
    order = np.argsort(-n_sig, kind="stable")[:max_rows]
    rows = []
    for rec in rev.iloc[order].itertuples(index=False):
        line = [f"{rec.metric_1} vs {rec.metric_2}", f"{rec.model_a} vs {rec.model_b}"]
        for k in ("1", "2"):
            diff, low, high, sig = (
                getattr(rec, f"{c}_{k}") for c in ("diff", "ci_low", "ci_high", "significant")
            )
            line += [
                str(getattr(rec, f"better_{k}")),
                f"{format_number(diff)} {format_interval(low, high)}",
            ]
            line.append("yes" if not is_missing(sig) and bool(sig) else "no")
        rows.append(line)
    header = ["Metrics", "Models", "Better under 1st", "Difference (1st)", "Sig."]
    header += ["Better under 2nd", "Difference (2nd)", "Sig."]
    return Table(
        header, rows, align="lllrclrc", id="reversals-table",
        flagged_rows=list(n_sig[order] == 2), omitted=max(len(rev) - max_rows, 0),
    )  # fmt: skip


def metric_agreement_table(data: ReportData) -> Table:
    """Rizzi et al. (2024) Table 2: share re-ranked, mean ± sd position change, Kendall's τ."""
    rows = [
        [
            f"{rec.metric_1} vs {rec.metric_2}",
            format_percent(rec.share_reranked),
            format_pm(rec.mean_abs_change, rec.sd_abs_change, digits=1),
            format_number(rec.kendall_tau, digits=2),
        ]
        for rec in data.metric_agreement.itertuples(index=False)
    ]
    header = ["Metrics compared", "Models re-ranked", "Mean position change ± sd", "Kendall's τ"]
    return Table(header, rows, id="metric-agreement-table")


def agreement_table(data: ReportData) -> Table:
    """Agreement coefficients with intervals."""
    rows = [
        [
            str(rec.coefficient), format_number(rec.value), format_interval(rec.ci_low, rec.ci_high),
            format_number(rec.standard_error), format_count(rec.n_items),
            format_count(rec.n_annotations),
        ]
        for rec in ([] if data.agreement is None else data.agreement.itertuples(index=False))
    ]  # fmt: skip
    header = ["Coefficient", "Value", "Interval", "SE", "Items", "Annotations"]
    caption = "Coefficients with their intervals"
    return Table(header, rows, caption=caption, id="agreement-table")


def audit_tables(audit: pd.DataFrame) -> tuple[Table, Table]:
    """Metrics × properties (✓ holds, ✗ violated, – not applicable), and the violations' counterexamples."""
    keys = [str(k) for k in pd.unique(audit["property"].astype(str))]
    status = _lookup(audit, "metric", "property")
    rows = [
        [str(metric)] + [
            _AUDIT_SYMBOL.get(str(status.get((str(metric), key), {}).get("status")), MISSING)
            for key in keys
        ]
        for metric in pd.unique(audit["metric"].astype(str))
    ]  # fmt: skip
    violated = audit[audit["status"].astype(str) == "violated"]
    examples = [
        [str(r["metric"]), _property(str(r["property"]), str(r["title"])), str(r["counterexample"])]
        for r in violated.to_dict("records")
    ]
    return Table(["Metric", *keys], rows, align="l" + "c" * len(keys), id="audit-table"), Table(
        ["Metric", "Property", "Counterexample"], examples, align="lll",
        caption="The simplest counterexample found for each violation",
        id="audit-counterexamples-table",
    )  # fmt: skip


def _property(key: str, title: str) -> str:
    return title if title.startswith(key) else f"{key} {title}"


def dataset_facts(data: ReportData) -> Table:
    """The dataset at a glance, as a two-column table."""
    ds, counts = data.dataset, data.annotations_per_item
    labels = ", ".join(str(label) for label in ds["labels"])
    annotators = "unknown" if is_missing(ds["n_annotators"]) else format_count(ds["n_annotators"])
    rows = [
        ["Items", format_count(ds["n_items"])],
        ["Annotators", annotators],
        ["Annotations", format_count(ds["n_annotations"])],
        ["Labels", f"{labels} ({'ordinal' if bool(ds['ordered']) else 'nominal'})"],
        ["Prior", str(ds["prior"])],
    ]
    targets = str(ds.get("targets", "empirical"))
    if targets != "empirical":
        rows.append(["Pointwise targets", _TARGET_WORDS.get(targets, targets)])
    if counts.size:
        median = f"median {float(np.median(counts)):g}, range {counts.min():,}–{counts.max():,}"
        rows.append(["Annotations per item", median])
    return Table(["Quantity", "Value"], rows, align="ll", id="facts-table")


# --- the document ------------------------------------------------------------------------------


def _verdict_section(data: ReportData) -> Section:
    blocks: list[Block] = []
    verdict = verdict_table(data)
    if verdict.rows:
        blocks += [
            verdict,
            Paragraph(
                "Best model: the one best under most metrics of the family. “Lead significant”: "
                "under how many of the metrics it wins, the paired interval of its lead over the "
                "runner-up excludes zero. The last column lists the bins of annotations per item "
                "where another model is best.",
                "legend",
            ),
        ]
    notes, warning = prior_sentences(data)
    if warning:
        blocks.append(Paragraph([Span("Prior check."), " ", warning], "warning"))
    priors = prior_table(data)
    if priors.rows:
        blocks.append(Section("Robustness to the prior", [
            *(Paragraph(n) for n in notes),
            priors,
            Paragraph([Span("Bold"), " ★: the lead over the runner-up is significant; (n.s.): it is not. "
                       "Pointwise (empirical) metrics do not depend on the prior."], "legend"),
            prior_fit_table(data),
            Paragraph(["Strength: the prior's total pseudo-counts, added to every item's "
                       "annotations. “Items it outweighs”: items with no more annotations than "
                       "that. Log-likelihood: Dirichlet-multinomial marginal likelihood of the "
                       "annotations under the prior (natural log; higher fits better; ", *_BEST,
                       " the best)."], "legend"),
        ]))  # fmt: skip
    statements = reversal_statements(data)
    if statements:
        blocks.append(Section("Where the families disagree", [Bullets(statements)]))
    n_items = int(data.dataset["n_items"])
    if n_items < MIN_ITEMS_FOR_INTERVAL:
        blocks.append(Paragraph([Span("Few items."), f" Every interval rests on {n_items} items "
                                 f"(fewer than {MIN_ITEMS_FOR_INTERVAL}); bootstrap intervals are "
                                 "rough at this size."], "warning"))  # fmt: skip
    return Section("Verdict", blocks, id="verdict")


def _dataset_section(data: ReportData, figs: dict[str, Any], show: bool) -> Section:
    facts = dataset_facts(data)
    if "annotations" in figs:
        blocks: list[Block] = [Group([facts, figs["annotations"]], "pair")]
    else:
        blocks = [facts]
        bins = count_bins(data.annotations_per_item)
        if bins and not show:  # the histogram's numbers, where there is no figure
            total = sum(n for _, n in bins)
            rows = [
                [label, format_count(n), format_percent(n / total, digits=1)] for label, n in bins
            ]
            blocks.append(Table(["Annotations", "Items", "Share"], rows, align="rrr",
                                caption="Annotations per item"))  # fmt: skip
    if "annotators" in figs:
        blocks.append(Section("Annotators", [Paragraph(
            "How reliable the annotator model behind the pointwise targets finds each annotator "
            "(accuracy, or MACE's competence); a reference line marks chance accuracy 1/K where "
            "it applies.", "legend"), figs["annotators"]]))  # fmt: skip
    agreement = agreement_table(data)
    if agreement.rows:
        blocks.append(Section("Agreement", [agreement]))
    return Section("Dataset at a glance", blocks, id="dataset")


def _summary_section(data: ReportData, figs: dict[str, Any]) -> Section:
    blocks: list[Block] = [
        Paragraph(["Mean [interval] per model and metric. ↓ lower is better, ↑ higher is "
                   "better; ", *_BEST, " marks the best model per metric."], "legend"),
        summary_table(data),
    ]  # fmt: skip
    means = np.concatenate(
        [data.summary["mean"].to_numpy(dtype=float), data.by_bin["mean"].to_numpy(dtype=float)]
    )
    if np.isinf(means).any():
        blocks.append(Paragraph(
            "∞: the mean is infinite because the model gives probability zero to a label some "
            "annotator chose, and cross-entropy (or KL divergence) of a zero prediction is "
            "infinite. It is a result, not a missing value; smooth the predictions to get a "
            "finite score.", "note", id="infinite-note"))  # fmt: skip
    if "summary" in figs:
        blocks.append(figs["summary"])
    return Section("Summary", blocks, id="summary")


def _by_bin_section(data: ReportData, figs: dict[str, Any], show: bool) -> Section | None:
    tables = [
        t
        for i, m in enumerate(data.metrics, 1)
        if (t := by_bin_table(data, m, id=f"by-bin-{i}")).rows
    ]
    if "by_bin" not in figs and not tables:
        return None
    blocks: list[Block] = [figs["by_bin"]] if "by_bin" in figs else []
    if not show and tables:
        blocks.append(
            Paragraph("The HTML report plots these numbers; Markdown shows them as tables.", "note")
        )
    if tables:
        blocks.append(Paragraph(["Mean per bin of annotations per item; “Items” is the number of "
                                 "items in the bin; ", *_BEST, " marks the best model in the bin."],
                                "legend"))  # fmt: skip
    items = data.by_bin.groupby(data.by_bin["bin"].astype(str))["n_items"].max()
    few = [b for b in data.bins() if b in items.index and int(items[b]) < MIN_ITEMS_FOR_INTERVAL]
    if few:
        blocks.append(Paragraph(f"Bins {', '.join(few)} hold fewer than {MIN_ITEMS_FOR_INTERVAL} "
                                "items: their means are rough.", "note"))  # fmt: skip
    blocks.append(Group(tables, "grid"))
    return Section("Results by number of annotations per item", blocks, id="by-bin")


def _rankings_section(data: ReportData) -> Section | None:
    rankings = rankings_table(data)
    if not rankings.rows:
        return None
    blocks: list[Block] = [
        Paragraph(["Rank 1 is best; “=” marks a tie. ", Span("⇄ highlighted", "swatch"),
                   " ranks are involved in a reversal: two models that two metrics order "
                   "differently."], "legend"),
        rankings,
    ]  # fmt: skip
    reversals = reversals_table(data)
    if reversals.rows:
        n, n_both = len(data.reversals), int(np.count_nonzero(_n_significant(data.reversals) == 2))
        summary = f"Appendix: all {n} reversal{'' if n == 1 else 's'} ({n_both} significant under both metrics)"
        blocks.append(Details(summary, [Paragraph([
            "Differences are first model minus second; “Sig.” says whether the interval excludes "
            "zero; ", Span("shaded", "shaded"), " rows are significant under both metrics."],
            "legend"), reversals], id="reversals-appendix"))  # fmt: skip
    else:
        blocks.append(
            Paragraph(
                "No ranking reversals: every pair of models keeps its order across metrics.", "note"
            )
        )
    return Section("Rankings", blocks, id="rankings")


def _metrics_section(data: ReportData) -> Section | None:
    if not len(data.metrics_info):
        return None
    rows = [
        [str(r.name), str(r.kind), "lower is better" if bool(r.lower_is_better) else "higher is better",
         str(r.description)]
        for r in data.metrics_info.itertuples(index=False)
    ]  # fmt: skip
    blocks: list[Block] = [
        Table(
            ["Metric", "Kind", "Direction", "Description"], rows, align="llll", id="metrics-table"
        )
    ]
    audit = data.metric_audit
    if audit is not None and not audit.empty:
        K, n_trials, seed = (int(audit[k].iloc[0]) for k in ("classes", "n_trials", "seed"))
        pairs = audit[["property", "title"]].astype(str).drop_duplicates("property")
        names = "; ".join(_property(k, t) for k, t in pairs.itertuples(index=False))
        legend = Paragraph([
            f"✓ holds (no counterexample found in {n_trials:,} seeded trials per property, seed "
            f"{seed}; not a proof), ✗ violated, – not applicable. Properties: {names}. Definitions "
            "in docs/audit.md; the full search (100,000 trials) is ",
            Span(f"dissensus audit --classes {K}", "code"),
            ". Debiased metrics are not audited: their properties are those of the metric they "
            "estimate."], "legend")  # fmt: skip
        matrix, examples = audit_tables(audit)
        summary = f"Appendix: properties of these metrics (machine audit, K = {K} classes)"
        appendix: list[Block] = [legend, matrix, *([examples] if examples.rows else [])]
        blocks.append(Details(summary, appendix, id="audit-appendix"))
    return Section("Metrics", blocks, id="metrics")


def build_document(data: ReportData, *, figures: bool = True) -> Document:
    """The report of ``data`` as a document; ``figures=False`` leaves the figures out."""
    show = figures
    figs = report_figures(data) if show else {}
    blocks: list[Block | None] = [_verdict_section(data)]
    reading = plain_reading(data)
    if reading:
        blocks.append(Section("Details in plain words", [Bullets(reading)], id="reading"))
    blocks += [
        _dataset_section(data, figs, show),
        _summary_section(data, figs),
        _by_bin_section(data, figs, show),
    ]
    items = reversal_item_figures(data) if show else []
    if items:
        blocks.append(Section("Where models disagree", [Paragraph(
            "For each reversal, the items that favour one model under the first metric and the "
            "other under the second the most.", "legend"), *items], id="where-models-disagree"))  # fmt: skip
    differences = differences_table(data)
    if differences.rows:
        blocks.append(Section("Paired differences", [Paragraph([
            Span("shaded", "shaded"), " rows: the interval of the difference (first model minus "
            "second) excludes zero; (n.s.) marks an interval that includes zero."], "legend"),
            differences], id="differences"))  # fmt: skip
    blocks.append(_rankings_section(data))
    agreement = metric_agreement_table(data)
    if agreement.rows:
        legend = Paragraph("How differently each pair of metrics ranks the models: the share of "
                           "models whose rank changes, the mean ± sd change of rank position, and "
                           "Kendall's τ between the two rankings.", "legend")  # fmt: skip
        summary = "Appendix: the table (share re-ranked, position change, Kendall's τ)"
        appendix_blocks: list[Block] = [legend, agreement]
        appendix = Details(
            summary,
            appendix_blocks,
            id="metric-agreement-appendix",
            open="agreement" not in figs,
        )
        section: list[Block] = [*([figs["agreement"]] if "agreement" in figs else []), appendix]
        blocks.append(Section("Metric agreement", section, id="metric-agreement"))
    blocks.append(_metrics_section(data))
    n_models, n_metrics = len(data.models), len(data.metrics)
    subtitle = (
        f"{n_models} model{'' if n_models == 1 else 's'} · {n_metrics} metric"
        f"{'' if n_metrics == 1 else 's'} · {format_count(data.dataset['n_items'])} items. "
        f"Generated by dissensus {VERSION}."
    )
    footer = (
        f"Generated by dissensus {VERSION}. Self-contained file: styles and figures are inline; "
        "nothing is loaded from the network."
    )
    return Document(
        data.title, [b for b in blocks if b is not None], subtitle=subtitle, footer=footer
    )
