"""Tests of the SVG figures."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from dissensus.evaluation._figures import (
    annotations_histogram,
    annotator_reliability_figure,
)
from dissensus.evaluation._figures import report_figures as figures
from tests.report._sample import example_report_data, sample_report_data


@pytest.fixture(scope="module")
def sample_figures():
    return figures(sample_report_data())


class TestFigures:
    def test_all_three(self, sample_figures):
        assert list(sample_figures) == ["annotations", "summary", "by_bin", "agreement"]

    @pytest.mark.parametrize("key", ["annotations", "summary", "by_bin"])
    def test_svg_is_clean_for_inlining(self, sample_figures, key):
        fig = sample_figures[key]
        svg = fig.svg
        assert svg.startswith("<svg ")
        assert svg.rstrip().endswith("</svg>")
        for forbidden in ("<?xml", "<!DOCTYPE", "<!--", "http", "<metadata", "@import", "*{"):
            assert forbidden not in svg, forbidden
        # text is text (small, selectable), drawn in the figure's font family
        assert "<text" in svg
        # the one stylesheet of a figure holds only its own classes (nothing leaks into the page)
        (rules,) = re.findall(r"<style>(.*?)</style>", svg)
        selectors = re.findall(r"([^{}]+)\{[^{}]*\}", rules)
        assert selectors
        assert all(re.fullmatch(rf"\.{fig.id}-s\d+", s) for s in selectors), selectors
        assert "  " not in svg  # no indentation
        tags = "".join(re.findall(r"<[^>]*>", svg.split("</title>", 1)[1]))
        assert not re.search(r"\d\.\d\d", tags)  # coordinates to 0.1 pt
        assert f'aria-labelledby="{fig.id}-title"' in svg
        assert f'<title id="{fig.id}-title">' in svg
        ids = re.findall(r'\bid="([^"]+)"', svg)
        assert all(i.startswith(f"{fig.id}-") for i in ids)
        assert len(ids) == len(set(ids))
        refs = re.findall(r'(?:href="#|url\(#)([^")]+)', svg)
        assert refs
        assert set(refs) <= set(ids)

    def test_deterministic(self, sample_figures):
        again = figures(sample_report_data())
        assert all(again[k].svg == sample_figures[k].svg for k in sample_figures)

    def test_one_line_per_model_and_panel_per_metric(self, sample_figures):
        svg = sample_figures["by_bin"].svg
        # one clipping rectangle per panel; one open polyline per model and panel
        assert len(re.findall(r"<clipPath ", svg)) == 4
        assert len(re.findall(r'<path d="M[^"z]*( L[^"z]*){2,}"', svg)) >= 4 * 3

    def test_smaller_than_glyph_paths(self, sample_figures):
        # text as text and styles as classes: each figure is a few kilobytes per panel
        sizes = {k: len(f.svg) for k, f in sample_figures.items()}
        assert sizes["annotations"] < 12_000, sizes
        assert sizes["by_bin"] < 40_000, sizes

    def test_alt_text_names_models_and_metrics(self, sample_figures):
        alt = sample_figures["by_bin"].alt
        assert "CE, EMD, E[CE], E[EMD]" in alt
        assert "A, B, C" in alt


class TestEdgeCases:
    def test_dollar_and_markup_in_model_names(self):
        data = example_report_data()
        evil = "$x_1$ <b>&"
        summary = data.summary.assign(model=data.summary["model"].replace("A", evil))
        by_bin = data.by_bin.assign(model=data.by_bin["model"].replace("A", evil))
        figs = figures(replace(data, summary=summary, by_bin=by_bin))
        assert "<b>" not in figs["by_bin"].svg
        assert "&lt;b&gt;&amp;" in figs["by_bin"].svg  # in the escaped <title>

    def test_empty_inputs_give_no_figure(self):
        data = example_report_data()
        assert annotations_histogram(np.array([], dtype=np.int64)) is None
        assert "by_bin" not in figures(replace(data, by_bin=data.by_bin.iloc[0:0]))
        assert "summary" not in figures(replace(data, summary=data.summary.iloc[0:0]))

    def test_many_distinct_counts_are_binned(self):
        counts = np.random.default_rng(1).integers(1, 342, size=2000)
        fig = annotations_histogram(counts)
        assert fig is not None
        assert "2,000 items" in fig.caption
        assert "range 1–341" in fig.caption

    def test_single_metric_single_model(self):
        data = example_report_data()
        keep_summary = (data.summary["model"] == "A") & (data.summary["metric"] == "CE")
        keep_bins = (data.by_bin["model"] == "A") & (data.by_bin["metric"] == "CE")
        figs = figures(
            replace(data, summary=data.summary[keep_summary], by_bin=data.by_bin[keep_bins])
        )
        assert set(figs) == {"annotations", "summary", "by_bin"}


class TestAnnotatorReliabilityFigure:
    def _table(self, n):
        rng = np.random.default_rng(0)
        return pd.DataFrame(
            {"n_annotations": rng.integers(1, 50, n), "competence": rng.random(n)},
            index=pd.Index([f"ann<{i}>" for i in range(n)], name="annotator"),
        )

    def test_sorted_and_named(self):
        table = self._table(5)
        fig = annotator_reliability_figure(table, reference=0.5)
        assert fig is not None
        best = table["competence"].idxmax()
        worst = table["competence"].idxmin()
        assert f"({best})" in fig.alt.split("from")[1].split("to")[0]
        assert fig.alt.endswith(f"({worst}).")
        assert "5 annotators" in fig.caption
        assert fig.svg.startswith("<svg")
        assert annotator_reliability_figure(table, reference=0.5).svg == fig.svg  # deterministic

    def test_column_choice(self):
        table = self._table(4).rename(columns={"competence": "accuracy"})
        table["mean_recall"] = 0.5
        assert "accuracy" in annotator_reliability_figure(table).caption
        assert "mean recall" in annotator_reliability_figure(table, column="mean_recall").caption
        with pytest.raises(ValueError, match="no column 'bias'"):
            annotator_reliability_figure(table, column="bias")
        with pytest.raises(ValueError, match="none of the columns"):
            annotator_reliability_figure(table[["n_annotations"]])

    def test_many_annotators_plot_ranks(self):
        fig = annotator_reliability_figure(self._table(300))
        assert fig is not None
        assert "300 annotators" in fig.caption

    def test_empty(self):
        assert annotator_reliability_figure(self._table(0)) is None
