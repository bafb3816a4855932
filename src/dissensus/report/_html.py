"""Self-contained HTML rendering of a report (inline CSS and SVG, no scripts, no fetches)."""

from __future__ import annotations

from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dissensus._validation import require_extra
from dissensus.report._data import (
    ReportData,
    Table,
    agreement_table,
    by_bin_table,
    dataset_facts,
    differences_table,
    direction_arrow,
    metric_agreement_table,
    rankings_table,
    reversals_table,
    significant_reversals,
    summary_table,
)
from dissensus.report._plots import figures
from dissensus.report._reading import plain_reading

if TYPE_CHECKING:
    import jinja2

__all__ = ["render_html", "write_html"]

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
    str
        An HTML5 document. Styles and SVG figures are inline; there are no
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
    numbers = {key: i for i, key in enumerate(figs, start=1)}
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
    return template.render(
        title=data.title,
        version=_version(),
        css=_css(),
        n_models=len(data.models),
        n_metrics=len(data.metrics),
        facts=dataset_facts(data),
        reading=plain_reading(data),
        figs=figs,
        numbers=numbers,
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
