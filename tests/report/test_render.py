"""Tests of the document model and its one renderer (HTML page, fragment, Markdown)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dissensus.report import (
    Bullets,
    Cell,
    Details,
    Document,
    Figure,
    FullFrame,
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
    format_pvalue,
    format_rank,
    html_fragment,
    to_html,
    to_markdown,
)

EVIL = "<script>alert('x')</script> | *bold* _x_"


def _doc() -> Document:
    table = Table(
        ["Model", "Mean", "Rank"],
        [["A", Cell("0.400", best=True), Cell("1", flagged=True)], [EVIL, "0.450", "2"]],
        caption="Means",
        id="means",
        flagged_rows=[True, False],
        omitted=3,
    )
    figure = Figure(svg='<svg role="img"></svg>', caption="A figure.", alt="alt", id="fig-a")
    return Document(
        "Title " + EVIL,
        Section(
            "First",
            Paragraph("Plain ", Span("bold"), " and ", Span("code()", "code"), "."),
            None,  # dropped
            Paragraph(Span("Warning."), " Careful.", style="warning"),
            Group(table, figure, layout="pair"),
            Section("Nested", Bullets(["one", [Span("two"), " parts"]])),
            Details("More", Paragraph("inside", style="legend"), id="more"),
            id="first",
        ),
        subtitle="2 models",
        footer="Footer.",
    )


class TestHtml:
    def test_page_is_self_contained_and_escaped(self):
        page = to_html(_doc())
        assert page.startswith("<!DOCTYPE html>")
        assert "<script" not in page
        assert "&lt;script&gt;" in page
        assert "<style>" in page
        assert "http" not in page.split("</style>")[1]
        assert to_html(_doc()) == page  # the same document gives the same bytes

    def test_structure(self):
        page = to_html(_doc())
        assert '<section id="first">\n<h2>First</h2>' in page
        assert "<h3>Nested</h3>" in page
        assert '<p class="warning" role="note"><b>Warning.</b> Careful.</p>' in page
        assert "<p>Plain <b>bold</b> and <code>code()</code>.</p>" in page
        assert '<div class="pair">' in page
        assert '<details id="more">\n<summary>More</summary>' in page
        assert '<figure id="fig-a">' in page
        assert "<figcaption><b>Figure 1.</b> A figure.</figcaption>" in page
        assert '<p class="meta">2 models</p>' in page
        assert "<footer>Footer.</footer>" in page

    def test_table_cells_rows_and_note(self):
        page = to_html(_doc())
        assert '<table id="means">' in page
        assert "<caption>Means</caption>" in page
        assert '<tr class="flagged"><th scope="row" class="txt">A</th>' in page
        assert (
            '<td class="num best">0.400<span class="mark" aria-label="best">★</span></td>' in page
        )
        assert (
            '<td class="num flagged">1<span class="mark" aria-label="flagged">⇄</span></td>' in page
        )
        assert '<p class="note">Showing 2 of 5 rows.</p>' in page

    def test_fragment_has_no_page(self):
        fragment = html_fragment(Table(["a"], [["1"]]))
        assert fragment.startswith('<div class="table-wrap"><table>')
        assert "<html" not in fragment


class TestMarkdown:
    def test_document(self):
        text = to_markdown(_doc())
        assert text.startswith(
            "# Title \\<script\\>alert('x')\\</script\\> \\| \\*bold\\* \\_x\\_\n"
        )
        assert "\n## First\n" in text
        assert "\n### Nested\n" in text
        assert "\n### More\n" in text  # an appendix is a heading
        assert "Plain **bold** and `code()`." in text
        assert "> **Warning.** Careful." in text
        assert "- **two** parts" in text
        assert "_Figure 1. A figure._" in text
        assert "| A | **0.400** ★ | 1 ⇄ |" in text
        assert "_Showing 2 of 5 rows._" in text
        assert "<script>" not in text

    def test_block_alone(self):
        table = Table(["x", "y"], [["a", "1"]], align="lc")
        assert to_markdown(table) == "| x | y |\n| --- | :-: |\n| a | 1 |\n"


class TestTableFromFrame:
    def test_types_and_alignment(self):
        frame = pd.DataFrame(
            {"name": ["a", None], "n": [1234, 5], "x": [0.5, np.nan], "ok": [True, False]}
        )
        table = Table.from_frame(frame, digits=2)
        assert table.alignment() == "lrrl"
        assert table.rows == [["a", "1,234", "0.50", "True"], ["–", "5", "–", "False"]]

    def test_full_frame_notebook_view(self):
        page = FullFrame({"model": ["A"] * 30, "mean": np.linspace(0, 1, 30)})._repr_html_()
        assert page.count("<tr>") == 31
        assert "..." not in page


class TestFormatter:
    @pytest.mark.parametrize(
        ("got", "want"),
        [
            (format_number(-0.0), "0.000"),
            (format_number(1234.5), "1,234"),
            (format_number(123.45), "123.5"),
            (format_number(0.0004, digits=3), "0.0004"),
            (format_number(0.0004, digits=3, fixed=True), "0.000"),
            (format_interval(0.1, None), "[0.100, –]"),
            (format_pm(-1.0, 0.25, digits=2), "−1.00 ± 0.25"),
            (format_count(np.int64(12000)), "12,000"),
            (format_percent(0.995), "100%"),
            (format_pvalue(1.23456e-9), "1.235e−09"),
            (format_rank(np.float64(3.0)), "3"),
            (format_rank(2.5), "2.50"),
        ],
    )
    def test_values(self, got, want):
        assert got == want
