"""Tests of `dissensus simulate` and `dissensus allocate`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, main


def test_simulate_writes_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sim"
    args = [
        "simulate",
        "--replicates",
        "3",
        "--items",
        "40",
        "--truths",
        "mixture",
        "--metrics",
        "manhattan,emd",
        "--coverage-replicates",
        "2",
        "--allocation-replicates",
        "2",
        "--out",
        str(out),
    ]
    assert main(args) == EXIT_OK
    text = capsys.readouterr().out
    assert "E[empirical] pairs" in text
    assert "allocation" in text
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<svg" in html
    assert "Reading" in html
    table = pd.read_csv(out / "decision_accuracy.csv")
    assert set(table["metric"]) == {"manhattan", "emd"}


def test_simulate_bad_metric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--replicates", "2", "--metrics", "chebyshev", "--out", str(tmp_path)])
    assert code == EXIT_BAD_INPUT
    assert "expected form" in capsys.readouterr().err


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    rng = np.random.default_rng(7)
    rows = []
    for i in range(30):
        for a in range(int(rng.integers(2, 6))):
            rows.append((f"i{i}", f"a{a}", int(rng.integers(1, 4))))
    ann = tmp_path / "ann.csv"
    pd.DataFrame(rows, columns=["item", "annotator", "label"]).to_csv(ann, index=False)
    out = {"ann": ann}
    for m in ("a", "b"):
        q = rng.dirichlet(np.ones(3), size=30)
        df = pd.DataFrame(q, columns=["1", "2", "3"])
        df.insert(0, "item", [f"i{i}" for i in range(30)])
        out[m] = tmp_path / f"{m}.csv"
        df.to_csv(out[m], index=False)
    return out


def test_allocate(files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "next.csv"
    code = main(
        [
            "allocate",
            str(files["ann"]),
            "--pred",
            f"a={files['a']}",
            "--pred",
            f"b={files['b']}",
            "--metric",
            "E[emd]",
            "--budget",
            "10",
            "--out",
            str(out),
        ]
    )
    assert code == EXIT_OK
    chosen = pd.read_csv(out)
    assert len(chosen) == 10
    assert list(chosen.columns) == ["item", "expected_gain", "n_annotations", "rank"]
    assert chosen["item"].str.startswith("i").all()
    assert chosen["expected_gain"].is_monotonic_decreasing


def test_allocate_needs_two_models(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "allocate",
            str(files["ann"]),
            "--pred",
            f"a={files['a']}",
            "--out",
            str(tmp_path / "x.csv"),
        ]
    )
    assert code == EXIT_BAD_INPUT
    assert "two or more" in capsys.readouterr().err


def test_simulate_debiased_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sim"
    args = [
        "simulate",
        "--replicates",
        "2",
        "--items",
        "40",
        "--truths",
        "skewed",
        "--metrics",
        "emd",
        "--priors",
        "uniform",
        "--candidates",
        "noisy,shrunk,uniform",
        "--debiased",
        "--coverage-replicates",
        "0",
        "--allocation-replicates",
        "0",
        "--out",
        str(out),
    ]
    assert main(args) == EXIT_OK
    text = capsys.readouterr().out
    assert "debiased: Kendall tau with the true ranking" in text
    assert "tau debiased" in text
    assert (out / "debiased.md").read_text(encoding="utf-8").startswith("| truth | metric")
    scores = pd.read_csv(out / "scores.csv")
    assert set(scores["model"]) == {"noisy", "shrunk", "uniform"}
    assert "Debiased metrics" in (out / "report.html").read_text(encoding="utf-8")


def test_simulate_unknown_candidate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["simulate", "--replicates", "2", "--candidates", "oracle,uniform", "--out", str(tmp_path)]
    )
    assert code == EXIT_BAD_INPUT
    assert "oracle" in capsys.readouterr().err
