"""``python -m benchmarks --quick``: the suite's code paths on small data."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from benchmarks import bench_allocation, bench_cli, suite

ROOT = Path(__file__).resolve().parent.parent


def _check_dissensus_rows(payload: dict, sections: list[str]) -> None:
    rows = payload["rows"]
    for section in (s for s in sections if s != "scaling"):  # scaling has its own table
        ours = [r for r in rows if r["section"] == section and r["tool"].startswith("dissensus")]
        assert ours, f"no dissensus row in {section}"
        for r in ours:
            assert r["seconds"] is not None, r
            assert r["seconds"] > 0, r
    for r in rows:
        # a peer either ran (seconds, ratio against our row) or says why not
        if r["seconds"] is None:
            assert r["note"].startswith(("not installed", "failed")), r


class TestQuickSuite:
    @pytest.mark.slow
    def test_every_section_runs_and_writes_json_and_markdown(self, tmp_path):
        sections = ["agreement", "metrics", "expected", "evaluation", "scaling"]
        rep = suite.run(
            ["--quick", "--out", str(tmp_path), "--sections", ",".join(sections), "--no-memory"]
        )
        payload = json.loads((tmp_path / "bench.json").read_text())
        _check_dissensus_rows(payload, sections)
        md = (tmp_path / "bench.md").read_text()
        assert "load average" in md
        assert "| fleiss_kappa | dissensus |" in md
        assert payload["meta"]["versions"]["numpy"]
        assert len(payload["meta"]["load_start"]) == 3
        # extrapolated rows say so
        extra = [r for r in payload["rows"] if "extrapolated" in r["note"]]
        assert extra
        assert all(r["seconds"] is not None for r in extra)
        # the scaling curve: every stage at 10^3 and 10^4 items, a slope each
        stages = {s["stage"] for s in rep.scaling}
        assert {s["n_items"] for s in rep.scaling} == {1_000, 10_000}
        assert set(rep.slopes) == stages
        # peers that ran agree with dissensus where they compute the same number
        by = {(r["task"], r["tool"]): r for r in payload["rows"]}
        ours = by[("krippendorff_alpha ordinal", "dissensus")]
        theirs = by.get(("krippendorff_alpha ordinal", "krippendorff (value_counts)"))
        if theirs is not None and theirs["seconds"] is not None:
            assert theirs["value"] == ours["value"]
            assert theirs["ratio"] == pytest.approx(theirs["seconds"] / ours["seconds"])

    def test_a_missing_peer_is_reported_not_installed(self, tmp_path, monkeypatch):
        real = suite.peer
        monkeypatch.setattr(suite, "peer", lambda name: None if name == "ot" else real(name))
        suite.run(["--quick", "--out", str(tmp_path), "--sections", "metrics"])
        payload = json.loads((tmp_path / "bench.json").read_text())
        _check_dissensus_rows(payload, ["metrics"])
        ot_rows = [r for r in payload["rows"] if r["tool"].startswith("ot.emd2")]
        assert ot_rows
        assert ot_rows[0]["note"] == "not installed"
        assert ot_rows[0]["seconds"] is None
        mem = [r["peak_mb"] for r in payload["rows"] if r["seconds"] is not None]
        assert all(m is not None and m >= 0 for m in mem)

    def test_default_output_is_a_temporary_directory(self, tmp_path, monkeypatch):
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
        suite.run(["--quick", "--sections", "scaling", "--max-items", "1000"])
        made = list(tmp_path.glob("dissensus-bench-*/bench.json"))
        assert len(made) == 1

    def test_unknown_section_is_refused(self, capsys):
        with pytest.raises(SystemExit):
            suite.run(["--quick", "--sections", "agreemnt"])
        assert "unknown section" in capsys.readouterr().err


class TestCliSection:
    def test_start_up_and_command_imports_against_the_reference(self, tmp_path):
        suite.run(["--quick", "--out", str(tmp_path), "--sections", "cli", "--no-memory"])
        payload = json.loads((tmp_path / "bench.json").read_text())
        _check_dissensus_rows(payload, ["cli"])
        rows = {r["task"]: r for r in payload["rows"]}
        for task in ("dissensus --help", "dissensus --version", "import dissensus.cli"):
            assert rows[task]["note"] == "goal <= 0.3 s"
        ref = rows[bench_cli.REFERENCE]
        assert ref["tool"] == "reference"
        for name in ("info", "evaluate"):
            row = rows[f"dissensus {name} (import)"]
            assert row["ratio"] == pytest.approx(ref["seconds"] / row["seconds"])
            assert row["note"].endswith("the reference (goal <= 1.2x)")
        assert "| dissensus --help | dissensus |" in (tmp_path / "bench.md").read_text()

    def test_markdown_says_ratio_goal_and_failure(self):
        timings = [
            bench_cli.Timing(bench_cli.REFERENCE, [], "reference", seconds=2.0),
            bench_cli.Timing("dissensus --help", [], "start-up", seconds=0.5),
            bench_cli.Timing("dissensus info (import)", [], "command", seconds=2.2),
            bench_cli.Timing("dissensus demo (import)", [], "command", note="failed: needs x"),
        ]
        text = bench_cli.markdown(timings, 5, ([1.0, 1.0, 1.0], [2.0, 2.0, 2.0]))
        assert "| dissensus --help | 0.500 | 0.25x | MISSED (<= 0.3 s) |  |" in text
        assert "| dissensus info (import) | 2.200 | 1.10x | met (<= 1.2x) |  |" in text
        assert "| dissensus demo (import) |  |  |  | failed: needs x |" in text
        assert "start [1.0, 1.0, 1.0], end [2.0, 2.0, 2.0]" in text

    def test_unknown_command_is_refused(self, capsys):
        with pytest.raises(SystemExit):
            bench_cli.main(["--commands", "infoo"])
        assert "unknown command" in capsys.readouterr().err


@pytest.mark.slow
def test_module_entry_point_with_dask_section(tmp_path):
    pytest.importorskip("dask.distributed")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks",
            "--quick",
            "--no-memory",
            "--out",
            str(tmp_path),
            "--sections",
            "distributed",
        ],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads((tmp_path / "bench.json").read_text())
    _check_dissensus_rows(payload, ["distributed"])
    dask_row = next(r for r in payload["rows"] if "dask" in r["tool"])
    assert dask_row["ratio"] is not None
    assert "fleiss_kappa=" in dask_row["value"]


class TestAllocationBenchmark:
    """``python -m benchmarks allocation``, tiny."""

    ARGS = ("--quick", "--seeds", "2", "--items", "30", "--rounds", "1")

    def test_every_strategy_has_a_row_with_paired_differences(self, tmp_path):
        page = tmp_path / "allocation.md"
        text = bench_allocation.main([*self.ARGS, "--markdown", str(page)])
        assert page.read_text(encoding="utf-8") == text
        assert text.count("\n## ") == len(bench_allocation.WORLDS)
        for name in bench_allocation.strategies():
            assert f"| {name} |" in text
        assert "Δtau vs random [95% CI]" in text
        rows = [line for line in text.splitlines() if line.startswith("| next_items[E[emd]] |")]
        assert len(rows) == len(bench_allocation.WORLDS)
        assert all(row.count("[") >= 1 + len(bench_allocation.OUTCOMES) for row in rows)

    def test_missing_activelab_is_reported_not_installed(self, monkeypatch):
        monkeypatch.setattr(bench_allocation, "get_active_learning_scores", None)
        text = bench_allocation.main(list(self.ARGS))
        assert text.count("| activelab | not installed |") == len(bench_allocation.WORLDS)

    def test_same_world_for_every_strategy(self):
        world = bench_allocation.WORLDS[0]
        a = bench_allocation.draw_world(world, 3, 20, 4)
        b = bench_allocation.draw_world(world, 3, 20, 4)
        np.testing.assert_array_equal(a.label, b.label)
        np.testing.assert_array_equal(a.who, b.who)
        assert (np.sort(a.who, axis=1)[:, 1:] != np.sort(a.who, axis=1)[:, :-1]).all()
