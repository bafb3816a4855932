"""Evaluation reports rendered from plain tables: HTML, Markdown, and a plain reading.

The report layer knows nothing of how the numbers were computed: the
evaluation layer fills a :class:`ReportData` (DataFrames with fixed columns)
and calls :func:`render_html`, :func:`render_markdown` or :func:`write_html`.
The HTML file is self-contained (inline CSS and SVG figures, no scripts, no
network fetches). Figures need the ``report`` extra (matplotlib, jinja2).
"""

from dissensus.report._data import DATASET_KEYS, REQUIRED_COLUMNS, ReportData
from dissensus.report._html import render_html, write_html
from dissensus.report._markdown import render_markdown
from dissensus.report._plots import annotator_reliability_figure
from dissensus.report._reading import plain_reading

__all__ = [
    "DATASET_KEYS",
    "REQUIRED_COLUMNS",
    "ReportData",
    "annotator_reliability_figure",
    "plain_reading",
    "render_html",
    "render_markdown",
    "write_html",
]
