"""One presentation layer: a small document model, one renderer, one number formatter.

Analysis returns tables; a report is a :class:`Document` built from them
(headings, paragraphs, tables, figures, lists, appendices) and rendered by
:func:`to_html` (one self-contained page: one stylesheet, inline SVG, no
scripts or fetches), :func:`to_markdown` or, in a notebook,
:func:`html_fragment`. Numbers enter the document already formatted by
:func:`format_number` and its siblings; figures are drawn in one style by
:func:`render_figure` (matplotlib: the ``report`` extra).

This package is a low layer: it knows nothing of agreement, metrics or
evaluation, so every result class can build its notebook view from it
(examples: :func:`to_html`, :func:`to_markdown`).
"""

from dissensus.report._document import (
    Block,
    Bullets,
    Cell,
    Details,
    Document,
    Figure,
    Group,
    Paragraph,
    Section,
    Span,
    Table,
    Text,
)
from dissensus.report._figures import (
    COLOURS,
    GRID,
    INK,
    new_figure,
    panels,
    plot_text,
    render_figure,
    require_figures,
    series_style,
    top_legend,
)
from dissensus.report._format import (
    MISSING,
    format_count,
    format_estimate,
    format_interval,
    format_number,
    format_percent,
    format_pm,
    format_pvalue,
    format_rank,
    is_missing,
)
from dissensus.report._render import (
    VERSION,
    FullFrame,
    HtmlPage,
    escape_markdown,
    html_fragment,
    to_html,
    to_markdown,
)

__all__ = [
    "COLOURS", "GRID", "INK", "MISSING", "VERSION", "Block", "Bullets", "Cell", "Details",
    "Document", "Figure", "FullFrame", "Group", "HtmlPage", "Paragraph", "Section", "Span", "Table",
    "Text", "escape_markdown", "format_count", "format_estimate", "format_interval", "format_number", "format_percent",
    "format_pm", "format_pvalue", "format_rank", "html_fragment", "is_missing", "new_figure",
    "panels", "plot_text", "render_figure", "require_figures", "series_style", "to_html",
    "to_markdown", "top_legend",
]  # fmt: skip
