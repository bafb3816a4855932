"""Notebook views: compact HTML for evaluations and agreement results, whole tables, the report."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dissensus import LabelCounts, load_example
from dissensus.agreement import fleiss_kappa
from dissensus.evaluation import evaluate
from dissensus.report import FullFrame, HtmlPage, to_html
from tests.report._sample import example_report_data


def _evaluation(n_metrics: int = 10):
    rng = np.random.default_rng(0)
    counts = rng.multinomial(4, [0.2] * 5, size=50)
    lc = LabelCounts.from_array(counts, items=[f"i{k}" for k in range(50)])
    models = {f"model_{j}": rng.dirichlet(np.ones(5), 50) for j in range(4)}
    return evaluate(lc, models)


class TestEvaluationRepr:
    def test_repr_html_is_compact_table_of_means(self):
        ev = _evaluation()
        page = ev._repr_html_()
        assert page.startswith('<div class="table-wrap"><table>')
        assert "<caption>Evaluation: 4 models × 12 metrics on 50 items" in page
        assert len(page) < 8_000
        for metric in ev.metrics:
            assert metric in page
        assert page.count('aria-label="best">★') >= len(ev.metrics)  # one best per metric

    def test_summary_prints_whole(self):
        ev = _evaluation()
        summary = ev.summary(n_resamples=50)
        assert isinstance(summary, FullFrame)
        text = repr(summary)
        assert "..." not in text
        assert len(text.splitlines()) == len(summary) + 1
        for column in summary.columns:
            assert column in text
        # operations give plain frames (only printing differs)
        assert type(summary.head()) is pd.DataFrame

    def test_by_bin_and_rankings_print_whole(self):
        ev = _evaluation()
        for table in (ev.by_bin(), ev.rankings()):
            assert isinstance(table, FullFrame)
            assert "..." not in repr(table)


class TestAgreementRepr:
    def test_repr_html(self):
        result = fleiss_kappa(load_example("course_29"))
        page = result._repr_html_()
        assert "<table" in page
        assert "fleiss_kappa" in page
        assert "0.4103" in page
        assert "29" in page


class TestHtmlInNotebook:
    def test_report_is_a_str_that_notebooks_render(self):
        page = to_html(example_report_data().document(figures=False))
        assert isinstance(page, HtmlPage)
        assert isinstance(page, str)
        assert len(repr(page)) < 200
        assert "characters" in repr(page)
        frame = page._repr_html_()
        assert frame.startswith("<iframe srcdoc=")
        assert 'sandbox=""' in frame
        assert "<!DOCTYPE" not in frame  # escaped inside srcdoc
