"""Tests of dissensus.cli._progress: stages on a terminal, nothing on a pipe, warnings on their own line."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from dissensus import DissensusWarning
from dissensus.cli import main
from dissensus.cli._messages import warnings_as_lines
from dissensus.cli._progress import stages
from dissensus.datasets import write_example

SRC = Path(__file__).resolve().parents[2] / "src"


class _Terminal(io.StringIO):
    """A stream that says it is a terminal and records what was written to it."""

    def isatty(self) -> bool:
        return True


def _screen(raw: str) -> list[str]:
    """The lines a terminal shows after ``raw``: '\\r' goes to the line's start, ESC[K erases to its end."""
    lines = [""]
    col = 0
    for token in re.split(r"(\r|\n|\x1b\[K)", raw):
        if token == "\r":
            col = 0
        elif token == "\n":
            lines.append("")
            col = 0
        elif token == "\x1b[K":
            lines[-1] = lines[-1][:col]
        elif token:
            lines[-1] = lines[-1][:col] + token + lines[-1][col + len(token) :]
            col += len(token)
    return lines


def test_screen_model() -> None:
    assert _screen("abc\r\x1b[Kde\nf") == ["de", "f"]
    assert _screen("abc\rX") == ["Xbc"]


class TestStages:
    def test_terminal_shows_each_stage_then_erases_the_line(self) -> None:
        tty = _Terminal()
        with stages(2, stream=tty) as stage:
            stage("reading")
            assert _screen(tty.getvalue())[-1].endswith("1/2 reading")
            stage("scoring")
            assert _screen(tty.getvalue())[-1].endswith("2/2 scoring")
        assert _screen(tty.getvalue()) == [""]  # the output that follows starts a clean line

    def test_without_total_no_count(self) -> None:
        tty = _Terminal()
        with stages(stream=tty) as stage:
            stage("figures")
            assert re.fullmatch(r"\[ +\d+\.\ds\] figures", _screen(tty.getvalue())[-1])

    def test_pipe_gets_nothing(self) -> None:
        pipe = io.StringIO()
        with stages(3, stream=pipe) as stage:
            stage("reading")
        assert pipe.getvalue() == ""

    def test_nested_blocks_share_the_outer_line(self) -> None:
        tty = _Terminal()
        with stages(stream=tty) as outer:
            outer("reading")
            with stages(5) as inner:  # would be silent on its own: pytest's stderr is no terminal
                inner("scoring")
            assert _screen(tty.getvalue())[-1].endswith("scoring")
            outer("report")
        assert "report" in tty.getvalue()

    def test_line_erased_when_the_block_fails(self) -> None:
        tty = _Terminal()

        def fail() -> None:
            with stages(stream=tty) as stage:
                stage("scoring")
                raise RuntimeError

        with pytest.raises(RuntimeError):
            fail()
        assert _screen(tty.getvalue()) == [""]

    def test_long_text_fits_one_row(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("COLUMNS", "40")
        tty = _Terminal()
        with stages(stream=tty) as stage:
            stage("x" * 100)
            assert len(_screen(tty.getvalue())[-1]) <= 39


def test_warning_mid_stage_starts_its_own_line(monkeypatch: pytest.MonkeyPatch) -> None:
    tty = _Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    with stages(3) as stage:
        stage("loading")
        with warnings_as_lines():
            warnings.warn("few items", DissensusWarning, stacklevel=1)
        stage("training")
        shown = _screen(tty.getvalue())
        assert shown[0] == "dissensus: warning: few items"
        assert shown[-1].endswith("2/3 training")


def _run_on_a_terminal(args: list[str], cwd: Path) -> tuple[str, int]:
    """Run the CLI with stderr on a pseudo-terminal; its stderr text and the exit code."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
    }
    code = "import sys; from dissensus.cli import main; sys.exit(main())"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=slave,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # the other end closed (Linux)
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return b"".join(chunks).decode(), proc.wait(timeout=600)


def test_audit_on_a_terminal_shows_its_searches(tmp_path: Path) -> None:
    args = [
        "audit",
        "--metric",
        "manhattan",
        "--metric",
        "emd",
        "--property",
        "P1",
        "--n-trials",
        "50",
    ]
    err, rc = _run_on_a_terminal(args, tmp_path)
    assert rc == 0
    assert "1/2 manhattan P1" in err
    assert "2/2 emd P1" in err


def test_audit_on_a_pipe_shows_nothing(tmp_path: Path) -> None:
    args = ["audit", "--metric", "manhattan", "--property", "P1", "--n-trials", "50"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])),
    }
    code = "import sys; from dissensus.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stderr == ""


def test_evaluate_reports_the_stages_after_scoring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ratings", "a", "b"):
        write_example(name, tmp_path)
    tty = _Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    monkeypatch.chdir(tmp_path)
    args = ["evaluate", "ratings.csv", "--pred", "a=a.csv", "--pred", "b=b.csv"]
    assert main([*args, "--n-resamples", "20", "--no-scores", "--out", "out"]) == 0
    raw = tty.getvalue()
    stages_shown = [line.split("] ", 1)[1] for line in raw.split("\r\x1b[K") if "] " in line]
    assert stages_shown[0] == "reading ratings.csv"
    for text in (
        "scoring",
        "property audit of the metrics",
        "verdict: true differences and estimator selection",
        "figures",
    ):
        assert text in stages_shown, text
    # the warnings (40 items) come after the line is erased, each on its own line
    assert all(line.startswith("dissensus: warning:") for line in _screen(raw) if line)


def test_tendency_on_a_terminal_shows_its_stages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_example("reviews", tmp_path)
    tty = _Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    monkeypatch.chdir(tmp_path)
    args = [
        "tendency",
        "reviews.csv",
        "--label",
        "stars",
        "--baselines",
        "--tables-only",
        "--min-overlap",
        "2",
    ]
    assert main([*args, "--n-resamples", "20", "--out", "td"]) == 0
    raw = tty.getvalue()
    for text in (
        "reading reviews.csv",
        "baselines: random, consensus",
        "DIC and tau curve of random",
        "writing td",
    ):
        assert text in raw, text


def test_experiment_reports_the_report_stages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_example("reviews", tmp_path)
    tty = _Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    monkeypatch.chdir(tmp_path)
    args = ["experiment", "reviews.csv", "--text-column", "review", "--label", "stars"]
    assert (
        main([*args, "--models", "A,B", "--n-resamples", "20", "--max-iter", "5", "--out", "ex"])
        == 0
    )
    raw = tty.getvalue()
    stages_shown = [line.split("] ", 1)[1] for line in raw.split("\r\x1b[K") if "] " in line]
    assert stages_shown[0] == "1/6 loading reviews.csv"
    # the report's stages, after the training, on the same line
    for text in ("verdict: true differences and estimator selection", "figures"):
        assert any(shown.endswith(text) for shown in stages_shown), (text, stages_shown)
