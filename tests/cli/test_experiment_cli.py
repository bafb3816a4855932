"""Tests of `dissensus experiment` and `dissensus demo` (end to end on tiny data)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, main
from tests.experiments._tiny import tiny_frame


@pytest.fixture
def tiny_csv(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.csv"
    tiny_frame(120).rename(columns={"text": "review"}).to_csv(path, index=False)
    return path


class TestExperimentCommand:
    def test_own_file_end_to_end(self, tiny_csv, tmp_path, capsys):
        out = tmp_path / "out"
        code = main(
            [
                "experiment", str(tiny_csv), "--text-column", "review", "--models", "A,C,marginal",
                "--out", str(out), "--n-resamples", "50", "--max-iter", "30",
            ]
        )  # fmt: skip
        printed = capsys.readouterr()
        assert code == EXIT_OK, printed.err
        lines = printed.out.splitlines()
        assert lines[0].startswith("tiny.csv: ")
        assert lines[1].split() == ["metric", "A", "C", "marginal"]
        assert any(line.startswith("E[emd] ↓") for line in lines)
        assert any(line.startswith("test items per bin: 2–3: ") for line in lines)
        # the verdict: one answer per metric (emd ranks by the selected estimator), then the
        # expected metrics' place as the posterior view
        assert any(" under emd (" in line and "simulated replicas" in line for line in lines)
        assert any(
            line.startswith("The expected metrics (E[...]) are the posterior view")
            for line in lines
        )
        assert f"report: {out / 'report.html'}" in printed.out
        assert {p.name for p in out.iterdir()} >= {"report.html", "experiment.json", "summary.csv"}
        assert printed.err == ""  # no progress bar when stderr is not a terminal

    def test_user_errors_exit_2(self, tiny_csv, tmp_path, capsys):
        assert main(["experiment", "nowhere.csv", "--out", str(tmp_path / "o")]) == EXIT_BAD_INPUT
        assert "neither a built-in dataset" in capsys.readouterr().err
        assert main(["experiment", "convabuse", "--out", str(tmp_path / "o")]) == EXIT_BAD_INPUT
        assert "needs --data PATH" in capsys.readouterr().err
        code = main(["experiment", "movielens", "--models", "A,Q", "--out", str(tmp_path / "o")])
        assert code == EXIT_BAD_INPUT
        assert "distinct codes" in capsys.readouterr().err
        assert main(["experiment", str(tiny_csv), "--out", str(tmp_path / "o")]) == EXIT_BAD_INPUT
        assert "'text'" in capsys.readouterr().err


class TestDemoCommand:
    def test_help(self, capsys):
        assert main(["demo", "--help"]) == EXIT_OK
        assert "MovieLens" in capsys.readouterr().out
