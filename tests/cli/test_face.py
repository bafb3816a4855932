"""The CLI in the command line's words: flags in error messages, metrics, info, agreement."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, main
from dissensus.cli._messages import FLAG_HINTS, cli_message, format_hint
from dissensus.metrics import list_metrics
from tests.cli.test_evaluate_cli import _run, files  # noqa: F401  (fixture)


def _err(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().err.strip()


class TestCliMessage:
    @pytest.mark.parametrize(
        ("library", "cli"),
        [
            ("name the column with label=...", "name the column with --label COLUMN"),
            ("name the column with item=...", "name the column with --item COLUMN"),
            ("pass annotator=None if the data", "pass --no-annotator if the data"),
            ("Pass how='inner' to keep the common items.", "Pass --how inner to keep the common items."),
            ("pass `normalize=True` to rescale rows.", "pass --normalize to rescale rows."),
            ("pass dropna=True to drop", "pass --dropna to drop"),
            ("name the column with annotators=...", "name the column with --annotators COL,COL"),
            ("Load with duplicates='first' or 'last'.", "Load with --duplicates first or --duplicates last."),
            ("load the data with ordered=True (or Scale.ordinal)", "load the data with --ordinal"),
            ("e.g. metrics=['E[emd]']", "e.g. --metrics E[emd]"),
        ],
    )  # fmt: skip
    def test_keyword_hints_become_flags(self, library: str, cli: str) -> None:
        assert cli_message(library) == cli

    def test_leaves_other_text_alone(self) -> None:
        text = "Unknown metric 'emdd'. Did you mean 'emd'?"
        assert cli_message(text) == text

    def test_every_pattern_compiles_and_is_used(self) -> None:
        assert len(FLAG_HINTS) >= 10


class TestErrorsNameFlags:
    def test_missing_label_column_names_flag(self, tmp_path: Path, capsys) -> None:
        path = tmp_path / "a.csv"
        # two columns left ("lab" alone would be the label by elimination)
        path.write_text("item,annotator,lab,note\n1,a,1,x\n1,b,2,y\n")
        assert main(["info", str(path)]) == EXIT_BAD_INPUT
        err = _err(capsys)
        assert "--label COLUMN" in err
        assert "label=" not in err

    def test_other_items_suggest_how_inner(self, files, tmp_path: Path, capsys) -> None:  # noqa: F811
        df = pd.read_csv(files["bad"]).iloc[:-3]
        df.to_csv(files["bad"], index=False)
        assert _run(files, tmp_path / "o") == EXIT_BAD_INPUT
        err = _err(capsys)
        assert "--how inner" in err
        assert "how='inner'" not in err
        assert _run(files, tmp_path / "o2", "--how", "inner") == EXIT_OK
        assert "dropped 3 annotated items" in _err(capsys)

    def test_unnormalised_rows_suggest_normalize(self, files, tmp_path: Path, capsys) -> None:  # noqa: F811
        df = pd.read_csv(files["bad"])
        df.iloc[:, 1:] = df.iloc[:, 1:] * 2
        df.to_csv(files["bad"], index=False)
        assert _run(files, tmp_path / "o") == EXIT_BAD_INPUT
        err = _err(capsys)
        assert "--normalize" in err
        assert "normalize=True" not in err
        assert _run(files, tmp_path / "o2", "--normalize") == EXIT_OK

    def test_convabuse_file_suggests_format(self, tmp_path: Path, capsys) -> None:
        path = tmp_path / "ConvAbuseEMNLPtest.csv"
        path.write_text("example_id,Annotator1_is_abuse.1,Annotator1_is_abuse.0\nx,1,0\n")
        assert format_hint(path) == "convabuse"
        assert main(["info", str(path)]) == EXIT_BAD_INPUT
        assert "add --format convabuse" in _err(capsys)

    def test_lewidi_file_is_recognised(self, tmp_path: Path) -> None:
        path = tmp_path / "x.jsonl"
        path.write_text('{"1": {"annotations": "1,0", "soft_label": {"0": 0.5, "1": 0.5}}}')
        assert format_hint(path) == "lewidi"
        assert format_hint(tmp_path / "missing.csv") is None

    def test_by_names_the_by_option(self, tmp_path: Path, capsys) -> None:
        path = tmp_path / "a.csv"
        path.write_text("item,annotator,label,year\n1,a,1,2020\n1,b,2,2020\n")
        assert main(["agreement", str(path), "--by", "yaer"]) == EXIT_BAD_INPUT
        err = _err(capsys)
        assert "--by yaer: no column 'yaer'" in err
        assert "did you mean 'year'?" in err
        assert "meta 'yaer'" not in err


class TestMetricsCommand:
    def test_lists_every_metric_with_family_and_formula(self, capsys) -> None:
        assert main(["metrics"]) == EXIT_OK
        out = capsys.readouterr().out
        for name in list_metrics():
            assert name in out
        assert "−Σ p_k ln q_k" in out
        assert "E_{p ~ Dir(α)} [Σ |p_k − q_k|]" in out

    def test_json_and_kind(self, capsys) -> None:
        assert main(["metrics", "--kind", "expected", "--json"]) == EXIT_OK
        rows = json.loads(capsys.readouterr().out)
        assert [r["name"] for r in rows] == list_metrics(kind="expected")
        assert {r["family"] for r in rows} == {"expected"}
        emd = next(r for r in rows if r["name"] == "E[emd]")
        assert emd["needs_ordered_labels"] is True
        assert emd["direction"] == "lower is better"
        assert (emd["degree"], emd["difference_degree"]) == (None, None)

    def test_degree_column(self, capsys) -> None:
        assert main(["metrics", "--kind", "debiased"]) == EXIT_OK
        line = next(
            x for x in capsys.readouterr().out.splitlines() if x.startswith("debiased[rps]")
        )
        assert "2, diff 1" in line


class TestInfoOptions:
    @pytest.fixture
    def ratings(self, tmp_path: Path) -> Path:
        path = tmp_path / "r.csv"
        path.write_text("item,annotator,label\nq1,a,1\nq1,b,2\nq2,a,1\nq2,b,1\nq2,c,2\n")
        return path

    def test_items(self, ratings: Path, capsys) -> None:
        assert main(["info", str(ratings), "--items"]) == EXIT_OK
        out = capsys.readouterr().out
        assert "q1\t2" in out
        assert "q2\t3" in out

    def test_json(self, ratings: Path, capsys) -> None:
        assert main(["info", str(ratings), "--json", "--items"]) == EXIT_OK
        record = json.loads(capsys.readouterr().out)
        assert record["n_items"] == 2
        assert record["n_annotations"] == 5
        assert record["labels"] == [1, 2]
        assert record["items"] == [
            {"item": "q1", "n_annotations": 2},
            {"item": "q2", "n_annotations": 3},
        ]


class TestAgreementOptions:
    def test_explain_prints_one_line_per_coefficient(self, capsys) -> None:
        assert main(["agreement", "--explain"]) == EXIT_OK
        out = capsys.readouterr().out
        for name in ("share_unanimous", "fleiss_kappa", "krippendorff_alpha", "gwet_ac1"):
            assert name in out
        assert "Landis–Koch" in out
        assert "conventions" in out

    def test_ratio_refused_on_negative_labels(self, tmp_path: Path, capsys) -> None:
        path = tmp_path / "a.csv"
        path.write_text("item,annotator,label\n1,a,-1\n1,b,0\n2,a,1\n2,b,1\n")
        assert main(["agreement", str(path), "--level", "ratio"]) == EXIT_BAD_INPUT
        assert "--level ratio needs numeric labels with a true zero" in _err(capsys)
        assert main(["agreement", str(path), "--level", "interval"]) == EXIT_OK

    def test_names_match_the_report(self, capsys) -> None:
        assert main(["agreement"]) == EXIT_OK
        out = capsys.readouterr().out
        assert "share_unanimous" in out
        assert "percent_agreement" not in out
        assert "P_a" not in out
        assert main(["agreement", "--example", "course_reviews", "--by", "year"]) == EXIT_OK
        by = capsys.readouterr().out
        assert "observed = observed_agreement" in by
        assert "P_a" not in by


class TestPriorNote:
    def test_evaluate_says_when_the_prior_outweighs_the_annotations(self, files, tmp_path, capsys):  # noqa: F811
        # 2–6 annotations per item on 5 labels: the uniform prior's 5 pseudo-counts outweigh most
        assert _run(files, tmp_path / "o", "--prior", "uniform") == EXIT_OK
        out = capsys.readouterr().out
        note = next(line for line in out.splitlines() if line.startswith("note: "))
        assert "the uniform prior adds 5 pseudo-counts per item" in note
        assert "--prior" in note

    def test_no_note_for_empirical_metrics_only(self, files, tmp_path, capsys):  # noqa: F811
        assert _run(files, tmp_path / "o", "--metrics", "emd,manhattan") == EXIT_OK
        assert "note: " not in capsys.readouterr().out
