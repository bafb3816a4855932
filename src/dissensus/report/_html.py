"""Self-contained HTML rendering of a report (inline CSS and SVG, no scripts, no fetches)."""

from __future__ import annotations

import html
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dissensus._validation import require_extra
from dissensus.report._data import (
    MIN_ITEMS_FOR_INTERVAL,
    ReportData,
    Table,
    agreement_table,
    audit_counterexample_table,
    audit_properties,
    audit_settings,
    audit_table,
    by_bin_table,
    dataset_facts,
    differences_table,
    direction_arrow,
    has_infinite,
    metric_agreement_table,
    prior_fit_table,
    prior_table,
    rankings_table,
    reversals_table,
    significant_reversals,
    summary_table,
    verdict_table,
)
from dissensus.report._plots import figures, reversal_item_figures
from dissensus.report._reading import plain_reading, prior_sentences, reversal_statements

if TYPE_CHECKING:
    import jinja2

__all__ = ["HtmlReport", "render_html", "write_html"]

_ALIGN_CLASS = {"l": "txt", "r": "num", "c": "mid"}


def _version() -> str:
    try:
        return version("dissensus")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0.0.0+unknown"


def _environment() -> jinja2.Environment:
    import jinja2  # noqa: PLC0415 - the report extra is optional (checked by render_html)

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("dissensus.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )

    def align_class(table: Table, column: int) -> str:
        return _ALIGN_CLASS[table.alignment()[column]]

    env.globals["align_class"] = align_class
    return env


def _css() -> str:
    return (resources.files("dissensus.report") / "templates" / "report.css").read_text("utf-8")


class HtmlReport(str):
    """The report's HTML text, which a notebook shows as the rendered page.

    A plain :class:`str` in every other respect (write it, search it,
    compare it); its ``repr`` is one line instead of the whole markup, and
    Jupyter renders it in a sandboxed ``<iframe>`` (the page's styles stay
    inside it).

    Examples
    --------
    >>> page = HtmlReport("<!DOCTYPE html><title>x</title>")
    >>> page
    <HTML report: 31 characters; write it with Evaluation.to_html(path) or show it in a notebook>
    >>> isinstance(page, str), page._repr_html_().startswith("<iframe")
    (True, True)
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return (
            f"<HTML report: {len(self):,} characters; write it with Evaluation.to_html(path) "
            "or show it in a notebook>"
        )

    def _repr_html_(self) -> str:
        srcdoc = html.escape(str(self), quote=True)
        return (
            f'<iframe srcdoc="{srcdoc}" sandbox="" title="dissensus report" '
            'style="width: 100%; height: 800px; border: 1px solid #d0d7de;"></iframe>'
        )


def render_html(data: ReportData) -> str:
    """Render the report as one self-contained HTML document.

    The page holds the dataset at a glance (facts, annotations-per-item
    histogram, agreement with intervals), the summary table with the best
    model per metric marked and a dot-and-interval figure, the metric-by-bin
    figure (a panel per metric, a line per model) with its tables, the
    paired differences, the rankings with reversals highlighted, the metric
    agreement table (share re-ranked, mean ± sd change, Kendall's τ), a
    metric glossary and the plain-language reading.

    Parameters
    ----------
    data : ReportData
        The report's tables.

    Returns
    -------
    HtmlReport
        A :class:`str`: an HTML5 document, shown rendered in a notebook. Styles and SVG figures are inline; there are no
        scripts, web fonts or external references, so it opens offline and
        can be attached to a paper as is. Every user string is escaped. The
        same input gives the same bytes.

    Raises
    ------
    dissensus.MissingExtraError
        If matplotlib or jinja2 (the ``report`` extra) is missing.

    Examples
    --------
    >>> from dissensus.report import render_html
    >>> from dissensus.report._data import example_report_data
    >>> page = render_html(example_report_data())
    >>> page.startswith("<!DOCTYPE html>"), page.count("<svg "), "<script" in page
    (True, 3, False)
    """
    require_extra("report", ("matplotlib", "jinja2"), "The HTML report")
    figs = figures(data)
    item_figs = reversal_item_figures(data)
    # figures are numbered in page order
    page_order = [
        "annotations",
        "annotators",
        "summary",
        "by_bin",
        *(f.id for f in item_figs),
        "agreement",
    ]
    present = [key for key in page_order if key in figs or key.startswith("fig-items-")]
    numbers = {key: i for i, key in enumerate(present, start=1)}
    prior_notes, prior_warning = prior_sentences(data)
    few_bins = [
        label
        for label, n_items in data.by_bin.groupby(data.by_bin["bin"].astype(str))["n_items"]
        .max()
        .items()
        if int(n_items) < MIN_ITEMS_FOR_INTERVAL
    ]
    reversals = reversals_table(data)
    by_bin_tables = [
        (f"{metric} {direction_arrow(data.lower_is_better(metric))}", table)
        for metric in data.metrics
        if (table := by_bin_table(data, metric)).rows
    ]
    metrics_info: list[dict[str, Any]] = [
        {
            "name": str(rec["name"]),
            "kind": str(rec["kind"]),
            "direction": "lower is better" if bool(rec["lower_is_better"]) else "higher is better",
            "description": str(rec["description"]),
        }
        for rec in data.metrics_info.to_dict("records")
    ]
    template = _environment().get_template("report.html.j2")
    return HtmlReport(
        template.render(
            title=data.title,
            version=_version(),
            css=_css(),
            n_models=len(data.models),
            n_metrics=len(data.metrics),
            facts=dataset_facts(data),
            reading=plain_reading(data),
            figs=figs,
            item_figs=item_figs,
            numbers=numbers,
            verdict=verdict_table(data),
            prior_table=prior_table(data),
            prior_fit=prior_fit_table(data),
            prior_notes=prior_notes,
            prior_warning=prior_warning,
            reversal_statements=reversal_statements(data),
            has_infinite=has_infinite(data),
            n_items=int(data.dataset["n_items"]),
            min_items=MIN_ITEMS_FOR_INTERVAL,
            few_bins=sorted(few_bins, key=data.bins().index) if few_bins else [],
            agreement=agreement_table(data),
            summary=summary_table(data),
            by_bin_tables=by_bin_tables,
            differences=differences_table(data),
            rankings=rankings_table(data),
            reversals=reversals,
            n_reversals=len(data.reversals),
            n_reversals_significant=significant_reversals(data),
            metric_agreement=metric_agreement_table(data),
            metrics_info=metrics_info,
            audit=audit_table(data),
            audit_counterexamples=audit_counterexample_table(data),
            audit_properties=audit_properties(data),
            audit_settings=audit_settings(data),
        )
    )


def write_html(data: ReportData, path: str | Path) -> Path:
    """Write :func:`render_html` output to ``path`` (UTF-8) and return the path.

    Parameters
    ----------
    data : ReportData
        The report's tables.
    path : str or Path
        Destination file; its parent directory must exist.

    Returns
    -------
    Path
        ``path`` as a :class:`~pathlib.Path`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from dissensus.report import write_html
    >>> from dissensus.report._data import example_report_data
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = write_html(example_report_data(), pathlib.Path(tmp) / "report.html")
    ...     out.read_text(encoding="utf-8").count("<figure")
    3
    """
    out = Path(path)
    out.write_text(render_html(data), encoding="utf-8")
    return out
