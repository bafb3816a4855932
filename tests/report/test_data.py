"""Tests of ReportData (schema validation), the number formatter and the report's table views."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dissensus import DataError
from dissensus.evaluation._data import REQUIRED_COLUMNS
from dissensus.evaluation._figures import count_bins
from dissensus.evaluation._report import (
    audit_tables,
    differences_table,
    rankings_tables,
    reversals_table,
    significant_best,
    summary_tables,
)
from dissensus.report import format_interval, format_number, to_markdown
from tests.report._sample import example_report_data, sample_report_data


class TestReportData:
    @pytest.mark.parametrize("table", sorted(REQUIRED_COLUMNS))
    def test_missing_column_is_named(self, table):
        data = example_report_data()
        frame = getattr(data, table)
        if frame is None:
            frame = pd.DataFrame({c: [] for c in REQUIRED_COLUMNS[table]})
        column = REQUIRED_COLUMNS[table][-1]
        with pytest.raises(
            DataError, match=rf"ReportData\.{table} is missing columns \['{column}'\]"
        ):
            replace(data, **{table: frame.drop(columns=column)})

    def test_lists_every_missing_column(self):
        data = example_report_data()
        with pytest.raises(DataError, match=r"missing columns \['mean', 'standard_error'\]"):
            replace(data, summary=data.summary.drop(columns=["mean", "standard_error"]))

    def test_missing_dataset_key(self):
        data = example_report_data()
        dataset = {k: v for k, v in data.dataset.items() if k != "prior"}
        with pytest.raises(DataError, match=r"dataset is missing keys \['prior'\]"):
            replace(data, dataset=dataset)

    def test_table_must_be_a_dataframe(self):
        data = example_report_data()
        with pytest.raises(TypeError, match=r"ReportData\.summary must be a pandas DataFrame"):
            replace(data, summary=data.summary.to_dict())

    def test_unknown_metric_kind(self):
        data = example_report_data()
        info = data.metrics_info.assign(kind=["pointwise", "bayesian"])
        with pytest.raises(
            DataError,
            match=r"kind must be 'pointwise', 'expected' or 'debiased'; got \['bayesian'\]",
        ):
            replace(data, metrics_info=info)

    @pytest.mark.parametrize("counts", [[2, -1], [2.5, 3], [[2, 3]]])
    def test_bad_annotation_counts(self, counts):
        with pytest.raises(DataError, match="annotations_per_item"):
            replace(example_report_data(), annotations_per_item=np.array(counts))

    def test_agreement_may_be_none_and_extra_columns_are_kept(self):
        data = example_report_data()
        extended = replace(data, summary=data.summary.assign(extra=1), agreement=None)
        assert "extra" in extended.summary.columns
        assert extended.annotations_per_item.dtype == np.int64

    def test_bins_follow_categorical_order(self):
        data = sample_report_data()
        shuffled = data.by_bin.sample(frac=1.0, random_state=3)
        assert replace(data, by_bin=shuffled).bins() == ["2–3", "4–5", "6–10", "11+"]
        plain = shuffled.assign(bin=shuffled["bin"].astype(str))
        assert set(replace(data, by_bin=plain).bins()) == {"2–3", "4–5", "6–10", "11+"}


class TestFormatting:
    def test_numbers(self):
        assert format_number(1.23456) == "1.235"
        assert format_number(-0.25) == "−0.250"
        assert format_number(None) == "–"
        assert format_number(np.inf) == "∞"  # a result, not a gap
        assert format_number(-np.inf) == "−∞"
        assert format_number(np.nan) == "–"
        assert format_interval(np.nan, np.nan) == ""
        assert format_interval(-0.1, 0.2) == "[−0.100, 0.200]"

    def test_count_bins_cover_every_item(self):
        counts = np.random.default_rng(0).integers(1, 400, size=1000)
        bins = count_bins(counts)
        assert sum(n for _, n in bins) == 1000
        assert len(bins) <= 15


class TestViews:
    def test_summary_marks_best(self):
        data = example_report_data()
        (table,) = summary_tables(data)
        assert table.header == ["Metric", "A", "B"]
        marked = significant_best(data)
        assert [c.best for c in table.cells()[0][1:]] == [("CE", m) in marked for m in "AB"]
        assert table.cells()[0][1].text == "0.400 [0.370, 0.430]"
        assert table.cells()[1][0].text == "E[CE] ↓"

    def test_highlight_only_a_significant_lead(self):
        # the best mean is marked only where its interval against every other model excludes 0
        data = sample_report_data()
        marked = significant_best(data)
        diffs = data.differences
        for metric in data.metrics:
            best = data.summary[(data.summary["metric"] == metric) & data.summary["best"]]
            (model,) = best["model"]
            rows = diffs[
                (diffs["metric"] == metric)
                & ((diffs["model_a"] == model) | (diffs["model_b"] == model))
            ]
            assert ((metric, model) in marked) == bool((rows["better"] == model).all())
        # a lead within the noise: no model is marked
        noisy = diffs.assign(better="tie")
        assert significant_best(replace(data, differences=noisy)) == set()
        for table in rankings_tables(replace(data, differences=noisy)):
            assert not any(c.best for row in table.cells() for c in row)
        assert any(c.best for t in rankings_tables(data) for row in t.cells() for c in row) == bool(
            marked
        )

    def test_reversals_significance_flags(self):
        table = reversals_table(example_report_data())
        assert table.flagged_rows == [False]  # significant under CE only
        assert [c.text for c in table.cells()[0]][4::3] == ["yes", "no"]


class TestLongTables:
    def test_reversals_capped_significant_first(self):
        data = sample_report_data()
        table = reversals_table(data, max_rows=3)
        assert len(table.rows) == 3
        assert table.omitted == len(data.reversals) - 3
        assert table.flagged_rows == [True, True, True]
        full = reversals_table(data)
        assert full.omitted == 0
        # significant-under-both rows first, then the two significant under one metric only
        assert full.flagged_rows == [True] * 10 + [False] * 2

    def test_differences_capped(self):
        data = sample_report_data()
        table = differences_table(data, max_rows=5)
        assert len(table.rows) == 5
        assert table.omitted == len(data.differences) - 5


class TestSummaryLayout:
    def test_many_models_transpose(self):
        data = sample_report_data(models=tuple("ABCDEF"))
        tables = summary_tables(data)
        # a row per model, a table per family of metrics: narrow enough for the page
        assert [t.header for t in tables] == [
            ["Model", "CE ↓", "EMD ↓"],
            ["Model", "E[CE] ↓", "E[EMD] ↓"],
        ]
        assert [t.caption for t in tables] == ["Empirical metrics", "Expected metrics"]
        assert [t.id for t in tables] == ["summary-table", "summary-table-2"]
        assert [row[0].text for row in tables[0].cells()] == list("ABCDEF")


class TestFormatNumberProperties:
    @settings(max_examples=200, deadline=None)
    @given(st.floats(min_value=-999, max_value=999, allow_nan=False))
    def test_close_to_the_value(self, x):
        text = format_number(x)
        value = float(text.replace("−", "-").replace(",", ""))
        assert abs(value - x) <= max(5e-4, 5e-2 * abs(x))
        assert (text.startswith("−")) == (value < 0)


def _audit_frame() -> pd.DataFrame:
    """A hand-written metric audit: two metrics, two properties, one violation."""
    return pd.DataFrame(
        {
            "metric": ["L1", "L1", "KL", "KL"],
            "property": ["P1", "ordinal", "P1", "ordinal"],
            "title": ["symmetry", "ordinal: distant moves cost more"] * 2,
            "status": ["holds", "not applicable", "violated", "holds"],
            "counterexample": ["", "", "p = [0, 1], q = [0.5, 0.5]; M(p, q) = inf", ""],
            "classes": [2] * 4,
            "n_trials": [2000] * 4,
            "seed": [0] * 4,
        }
    )


class TestAuditTables:
    def test_matrix_and_counterexamples(self):
        matrix, examples = audit_tables(_audit_frame())
        assert matrix.header == ["Metric", "P1", "ordinal"]
        assert [[c.text for c in row] for row in matrix.cells()] == [
            ["L1", "✓", "–"],
            ["KL", "✗", "✓"],
        ]
        assert [[c.text for c in row] for row in examples.cells()] == [
            ["KL", "P1 symmetry", "p = [0, 1], q = [0.5, 0.5]; M(p, q) = inf"]
        ]
        data = replace(example_report_data(), metric_audit=_audit_frame())
        text = to_markdown(data.document(figures=False))
        assert "Properties: P1 symmetry; ordinal: distant moves cost more." in text
        assert "K = 2 classes" in text
        assert "2,000 seeded trials per property, seed 0" in text

    def test_absent_by_default(self):
        data = example_report_data()
        assert data.metric_audit is None
        assert "audit" not in to_markdown(data.document(figures=False))

    def test_missing_column_refused(self):
        with pytest.raises(DataError, match=r"metric_audit is missing columns \['status'\]"):
            replace(example_report_data(), metric_audit=_audit_frame().drop(columns="status"))
