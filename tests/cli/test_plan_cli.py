"""Tests of `dissensus plan`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, main
from dissensus.simulate import candidate_predictions, draw_truth


def _write_pilot(tmp_path: Path, n: int = 3) -> tuple[Path, Path, Path]:
    """A 100-item long CSV pilot (labels 1..5, ``n`` annotators per item) and two models."""
    rng = np.random.default_rng(0)
    pi = draw_truth(100, 5, truth="skewed", seed=rng)
    labels = np.array([rng.choice(5, size=n, p=row) for row in pi]) + 1
    items = np.repeat(np.arange(100), n)
    frame = pd.DataFrame(
        {"item": items, "annotator": np.tile(np.arange(n), 100), "label": labels.ravel()}
    )
    pilot = tmp_path / "pilot.csv"
    frame.to_csv(pilot, index=False)
    paths = []
    for name, q in candidate_predictions(pi, ["noisy", "shrunk"], seed=1).items():
        path = tmp_path / f"{name}.csv"
        pd.DataFrame(q, columns=[str(k) for k in range(1, 6)]).assign(item=range(100)).to_csv(
            path, index=False
        )
        paths.append(path)
    return pilot, paths[0], paths[1]


def test_plan_prints_frontier_and_cheapest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pilot, a, b = _write_pilot(tmp_path)
    args = ["plan", str(pilot), "--pred", f"noisy={a}", "--pred", f"shrunk={b}"]
    assert main(args) == EXIT_OK
    text = capsys.readouterr().out
    for goal in ("compare:", "agreement:", "distribution:", "all:"):
        assert goal in text
    assert "under rps" in text
    assert text.count("<- cheapest") == 4
    assert "cheapest:" in text.splitlines()[-1]
    assert "labels" in text.splitlines()[-1]


def test_plan_without_predictions_and_chosen_annotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pilot, _, _ = _write_pilot(tmp_path)
    args = ["plan", str(pilot), "--goals", "agreement", "--annotations", "4,8", "--seed", "3"]
    assert main(args) == EXIT_OK
    text = capsys.readouterr().out
    assert "compare:" not in text
    assert "distribution:" not in text
    rows = [line.split()[0] for line in text.splitlines() if line.strip()[:1].isdigit()]
    assert rows == ["4", "8"]


def test_plan_refusals_name_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pilot, a, _ = _write_pilot(tmp_path)
    assert main(["plan", str(pilot), "--pred", f"noisy={a}"]) == EXIT_BAD_INPUT
    assert "--pred" in capsys.readouterr().err
    assert main(["plan", str(pilot), "--annotations", "2,x"]) == EXIT_BAD_INPUT
    assert "--annotations" in capsys.readouterr().err
    assert main(["plan", str(pilot), "--goals", "compare"]) == EXIT_BAD_INPUT
    assert "--pred" in capsys.readouterr().err
    assert (
        main(["plan", str(pilot), "--pred", f"a={a}", "--pred", f"b={a}", "--metric", "emd"])
        == EXIT_BAD_INPUT
    )
    assert "--metric" in capsys.readouterr().err
    single, _, _ = _write_pilot(tmp_path, n=1)
    assert main(["plan", str(single)]) == EXIT_BAD_INPUT
    assert "one annotation per item" in capsys.readouterr().err
