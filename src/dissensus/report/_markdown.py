"""Markdown rendering of a report: the same tables as the HTML file, without figures."""

from __future__ import annotations

import re

from dissensus.report._data import (
    Cell,
    ReportData,
    Table,
    agreement_table,
    audit_counterexample_table,
    audit_properties,
    audit_settings,
    audit_table,
    by_bin_table,
    count_bins,
    dataset_facts,
    differences_table,
    direction_arrow,
    metric_agreement_table,
    prior_fit_table,
    prior_table,
    rankings_table,
    reversals_table,
    significant_reversals,
    summary_table,
    verdict_table,
)
from dissensus.report._reading import plain_reading, prior_sentences, reversal_statements

__all__ = ["escape_markdown", "render_markdown"]

_SPECIAL = re.compile(r"([\\`*|<>#~])")
_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
_REVERSAL_MARK = "⇄"
_BEST_MARK = "★"


def escape_markdown(text: str) -> str:
    r"""Backslash-escape the characters that would make user text into markup.

    Table pipes, emphasis, code, raw HTML and link syntax are neutralised;
    newlines become spaces so a value cannot break a table row.

    Examples
    --------
    >>> escape_markdown("<b>A|B</b>")
    '\\<b\\>A\\|B\\</b\\>'
    >>> escape_markdown("E[CE]"), escape_markdown("cross_entropy"), escape_markdown("_x_")
    ('E[CE]', 'cross_entropy', '\\_x\\_')
    """
    text = _SPECIAL.sub(r"\\\1", " ".join(str(text).splitlines()))
    # Underscores inside a word (cross_entropy) never start emphasis; leave them readable.
    text = _UNDERSCORE.sub(r"\\_", text)
    return text.replace("](", "]\\(")


def _cell(cell: Cell, *, mark_flagged: bool = False) -> str:
    text = escape_markdown(cell.text)
    if cell.best:
        text = f"**{text}** {_BEST_MARK}"
    if mark_flagged and cell.flagged:
        text = f"{text} {_REVERSAL_MARK}"
    return text


_ALIGN = {"l": "---", "r": "--:", "c": ":-:"}


def _table(table: Table, *, mark_flagged: bool = False) -> list[str]:
    header = [escape_markdown(h) for h in table.header]
    align = [_ALIGN[a] for a in table.alignment()]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines.extend(
        "| " + " | ".join(_cell(c, mark_flagged=mark_flagged) for c in row) + " |"
        for row in table.rows
    )
    if table.omitted:
        lines += ["", f"_{_omitted_note(table)}_"]
    return lines


def _omitted_note(table: Table) -> str:
    shown = len(table.rows)
    return f"Showing {shown:,} of {shown + table.omitted:,} rows."


def render_markdown(data: ReportData) -> str:
    """Render the report as GitHub-flavoured Markdown.

    The Markdown holds every table of the HTML report (dataset, agreement,
    summary, paired differences, results per number of annotations,
    rankings, reversals, metric agreement, metric glossary) and the plain
    reading; the figures are left out, with a note, because their numbers
    are in the tables.

    Parameters
    ----------
    data : ReportData
        The report's tables.

    Returns
    -------
    str
        Markdown text ending with a newline. User strings (model, metric and
        coefficient names) are escaped.

    Examples
    --------
    >>> from dissensus.report import render_markdown
    >>> from dissensus.report._data import example_report_data
    >>> print(render_markdown(example_report_data()).split("## Summary")[1].split("## Paired")[0])
    <BLANKLINE>
    <BLANKLINE>
    Mean [interval] per model. ↓ lower is better, ↑ higher is better; **bold** ★ marks the best model per metric.
    <BLANKLINE>
    | Metric | A | B |
    | --- | --: | --: |
    | CE ↓ | **0.400 [0.370, 0.430]** ★ | 0.450 [0.420, 0.480] |
    | E[CE] ↓ | 1.230 [1.190, 1.270] | **1.200 [1.160, 1.240]** ★ |
    <BLANKLINE>
    <BLANKLINE>
    """
    out: list[str] = [f"# {escape_markdown(data.title)}", ""]

    verdict = verdict_table(data)
    if verdict.rows:
        out += ["## Verdict", "", *_table(verdict), ""]
    prior_notes, prior_warning = prior_sentences(data)
    if prior_warning:
        out += [f"> **Prior check.** {escape_markdown(prior_warning)}", ""]
    priors = prior_table(data)
    if priors.rows:
        out += [*(escape_markdown(n) for n in prior_notes), ""]
        out += [*_table(priors), "", *_table(prior_fit_table(data)), ""]
    statements = reversal_statements(data)
    if statements:
        out += [f"- {escape_markdown(sentence)}" for sentence in statements]
        out.append("")

    reading = plain_reading(data)
    if reading:
        out += ["## Reading", ""]
        out += [f"- {escape_markdown(sentence)}" for sentence in reading]
        out.append("")

    out += ["## Dataset", "", "| Quantity | Value |", "| --- | --- |"]
    out += [f"| {escape_markdown(k)} | {escape_markdown(v)} |" for k, v in dataset_facts(data)]
    out.append("")
    bins = count_bins(data.annotations_per_item)
    if bins:
        total = sum(n for _, n in bins)
        out += ["### Annotations per item", ""]
        out += ["| Annotations | Items | Share |", "| --: | --: | --: |"]
        out += [f"| {label} | {n:,} | {100 * n / total:.1f}% |" for label, n in bins]
        out.append("")
    agreement = agreement_table(data)
    if agreement.rows:
        out += ["### Agreement", "", *_table(agreement), ""]

    out += [
        "## Summary",
        "",
        f"Mean [interval] per model. {direction_arrow(True)} lower is better, "
        f"{direction_arrow(False)} higher is better; **bold** {_BEST_MARK} marks the best "
        "model per metric.",
        "",
        *_table(summary_table(data)),
        "",
    ]

    differences = differences_table(data)
    if differences.rows:
        out += [
            "## Paired differences",
            "",
            "Difference of means, first model minus second, with its interval; "
            "(n.s.) marks an interval that includes zero.",
            "",
            *_table(differences),
            "",
        ]

    if len(data.by_bin):
        out += [
            "## Results by number of annotations per item",
            "",
            "_The HTML report plots these numbers; Markdown shows them as tables._",
            "",
        ]
        for metric in data.metrics:
            table = by_bin_table(data, metric)
            if table.rows:
                arrow = direction_arrow(data.lower_is_better(metric))
                out += [f"### {escape_markdown(metric)} {arrow}", "", *_table(table), ""]

    rankings = rankings_table(data)
    if rankings.rows:
        out += [
            "## Rankings",
            "",
            f"Rank 1 is best; `=` marks a tie. {_REVERSAL_MARK} marks a rank involved in a "
            "reversal (two models ordered differently by two metrics).",
            "",
            *_table(rankings, mark_flagged=True),
            "",
        ]
    reversals = reversals_table(data)
    if reversals.rows:
        n_both = significant_reversals(data)
        noun = "reversal" if len(reversals.rows) + reversals.omitted == 1 else "reversals"
        out += [
            "### Reversals",
            "",
            f"{len(reversals.rows) + reversals.omitted} {noun}; {n_both} significant under both metrics "
            "(interval of the difference excludes zero). Differences are first model "
            "minus second.",
            "",
            *_table(reversals),
            "",
        ]
    elif rankings.rows:
        out += ["No ranking reversals: every pair of models keeps its order across metrics.", ""]

    agreement_rows = metric_agreement_table(data)
    if agreement_rows.rows:
        out += ["## Metric agreement", "", *_table(agreement_rows), ""]

    if len(data.metrics_info):
        out += ["## Metrics", "", "| Metric | Kind | Direction | Description |"]
        out += ["| --- | --- | --- | --- |"]
        for rec in data.metrics_info.itertuples(index=False):
            direction = "lower is better" if bool(rec.lower_is_better) else "higher is better"
            out.append(
                f"| {escape_markdown(str(rec.name))} | {escape_markdown(str(rec.kind))} | "
                f"{direction} | {escape_markdown(str(rec.description))} |"
            )
        out.append("")
    out += _audit_section(data)
    return "\n".join(out).rstrip("\n") + "\n"


def _audit_section(data: ReportData) -> list[str]:
    """The appendix with the property audit of the metrics used (empty without one)."""
    settings = audit_settings(data)
    matrix = audit_table(data)
    if settings is None or not matrix.rows:
        return []
    K = settings["classes"]
    names = "; ".join(audit_properties(data))
    out = [
        f"## Appendix: properties of these metrics (machine audit, K = {K} classes)",
        "",
        f"✓ holds (no counterexample found in {settings['n_trials']:,} seeded trials per "
        f"property, seed {settings['seed']}; not a proof), ✗ violated, – not applicable. "
        f"Properties: {escape_markdown(names)}. Definitions in docs/audit.md; the full search "
        f"(100,000 trials) is `dissensus audit --classes {K}`. Debiased metrics are not "
        "audited: their properties are those of the metric they estimate.",
        "",
        *_table(matrix),
        "",
    ]
    counterexamples = audit_counterexample_table(data)
    if counterexamples.rows:
        out += ["### Counterexamples", "", *_table(counterexamples), ""]
    return out
