"""Tests of the Markdown rendering."""

from __future__ import annotations

import re
from dataclasses import replace

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from dissensus.evaluation import _report
from dissensus.report import escape_markdown, to_markdown
from tests.report._sample import example_report_data, sample_report_data


def render_markdown(data):
    return to_markdown(data.document(figures=False))


class TestRenderMarkdown:
    def test_contains_every_table(self):
        text = render_markdown(sample_report_data())
        for heading in (
            "## Verdict",
            "## Dataset at a glance",
            "**Annotations per item**",
            "### Agreement",
            "## Summary",
            "## Paired differences",
            "## Results by number of annotations per item",
            "## Rankings",
            "### Appendix: all 12 reversals",
            "## Metric agreement",
            "## Metrics",
            "## Details in plain words",
        ):
            assert heading in text
        assert "| CE ↓ | **0.615 [0.582, 0.648]** ★ |" in text
        assert "| CE vs E[CE] | 67% | 1.3 ± 0.9 | −1.00 |" in text
        assert (
            "| Metrics compared | Models re-ranked | Mean position change ± sd | Kendall's τ |"
            in text
        )

    def test_tables_are_well_formed(self):
        lines = render_markdown(sample_report_data()).splitlines()
        blocks: list[list[str]] = [[]]
        for line in lines:
            if line.startswith("|"):
                blocks[-1].append(line)
            elif blocks[-1]:
                blocks.append([])
        for block in filter(None, blocks):
            widths = {line.count(" | ") for line in block}
            assert len(widths) == 1, block

    def test_figures_are_omitted_with_a_note(self):
        assert "Markdown shows them as tables" in render_markdown(sample_report_data())

    def test_user_strings_are_escaped(self):
        data = example_report_data()
        evil = "<script>alert(1)</script>|x"
        summary = data.summary.assign(model=data.summary["model"].replace("A", evil))
        text = render_markdown(replace(data, summary=summary, title="*bold* title"))
        assert "<script>" not in text
        assert "\\<script\\>alert(1)\\</script\\>\\|x" in text
        assert text.startswith("# \\*bold\\* title\n")

    def test_no_reversals_sentence(self):
        data = example_report_data()
        empty = data.reversals.iloc[0:0]
        text = render_markdown(replace(data, reversals=empty))
        assert "No ranking reversals" in text
        assert "reversals (" not in text

    def test_without_optional_tables(self):
        data = example_report_data()
        text = render_markdown(
            replace(
                data,
                differences=data.differences.iloc[0:0],
                by_bin=data.by_bin.iloc[0:0],
                metric_agreement=pd.DataFrame(columns=data.metric_agreement.columns),
            )
        )
        assert "## Paired differences" not in text
        assert "## Metric agreement" not in text


class TestEscapeMarkdown:
    def test_newlines_and_links(self):
        assert escape_markdown("a\nb") == "a b"
        assert escape_markdown("[x](javascript:1)") == "[x]\\(javascript:1)"


class TestLongTablesNote:
    def test_note_when_rows_are_left_out(self, monkeypatch):
        table = _report.reversals_table
        monkeypatch.setattr(_report, "reversals_table", lambda data: table(data, max_rows=2))
        text = render_markdown(sample_report_data())
        assert "_Showing 2 of 12 rows._" in text
        assert "all 12 reversals (10 significant under both metrics)" in text


class TestEscapeMarkdownProperties:
    @settings(max_examples=200, deadline=None)
    @given(st.text())
    def test_cell_text_cannot_break_a_row(self, text):
        row = f"| {escape_markdown(text)} | x |"
        unescaped_pipes = re.findall(r"(?<!\\)\|", row.replace("\\\\", ""))
        assert len(unescaped_pipes) == 3
        assert "\n" not in row
        assert not re.search(r"(?<!\\)<", row.replace("\\\\", ""))


class TestAuditAppendix:
    def test_section_from_the_table(self):
        from tests.report.test_data import _audit_frame  # noqa: PLC0415

        text = render_markdown(replace(example_report_data(), metric_audit=_audit_frame()))
        section = text[text.index("### Appendix: properties of these metrics") :]
        assert "K = 2 classes" in section
        assert "2,000 seeded trials" in section
        assert "`dissensus audit --classes 2`" in section
        assert (
            "| Metric | P1 | ordinal |\n| --- | :-: | :-: |\n| L1 | ✓ | – |\n| KL | ✗ | ✓ |"
            in section
        )
        assert "| KL | P1 symmetry | p = [0, 1], q = [0.5, 0.5]; M(p, q) = inf |" in section

    def test_no_section_without_the_table(self):
        assert "properties of these metrics" not in render_markdown(example_report_data())
