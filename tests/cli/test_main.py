"""Tests of the `dissensus` entry point: version, exit codes, one-line errors, --debug."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import click
import pytest

from dissensus import DataError, __version__
from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, cli, main
from dissensus.cli._commands import SUMMARIES, load
from dissensus.cli._info import info_command

if "info" not in cli.commands:  # until the command is registered in cli/_commands.py
    cli.add_command(info_command)


class TestMain:
    def test_version(self, capsys):
        assert main(["--version"]) == EXIT_OK
        out = capsys.readouterr().out
        assert out.strip() == f"dissensus, version {__version__}"

    def test_help_lists_info(self, capsys):
        assert main(["--help"]) == EXIT_OK
        assert "info" in capsys.readouterr().out

    def test_bad_input_is_one_line_and_exit_2(self, tmp_path, capsys):
        path = tmp_path / "a.csv"
        path.write_text("item,annotator,label\n1,a,2\n1,b,\n")
        assert main(["info", str(path)]) == EXIT_BAD_INPUT
        captured = capsys.readouterr()
        assert captured.out == ""
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1
        assert lines[0].startswith("dissensus: error: Missing 'label' values in ")
        assert "line 3" in lines[0]
        assert "Traceback" not in captured.err

    def test_debug_raises_with_traceback(self, tmp_path):
        path = tmp_path / "a.csv"
        path.write_text("item,annotator,label\n1,a,2\n1,b,\n")
        with pytest.raises(DataError, match="Missing 'label' values"):
            main(["--debug", "info", str(path)])

    def test_missing_file(self, tmp_path, capsys):
        missing = tmp_path / "nope.csv"
        assert main(["info", str(missing)]) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert err.strip() == f"dissensus: error: No such file: '{missing}'."

    def test_unknown_extension(self, tmp_path, capsys):
        path = tmp_path / "a.xlsx"
        path.write_text("")
        assert main(["info", str(path)]) == EXIT_BAD_INPUT
        assert "pass --format FORMAT" in capsys.readouterr().err

    def test_usage_error(self, capsys):
        assert main(["info"]) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert err.startswith("dissensus: error: Missing argument 'FILE'")

    def test_unknown_command(self, capsys):
        assert main(["frobnicate"]) == EXIT_BAD_INPUT
        assert "No such command 'frobnicate'" in capsys.readouterr().err

    def test_directory(self, tmp_path, capsys):
        assert main(["info", str(tmp_path)]) == EXIT_BAD_INPUT
        assert "dissensus: error:" in capsys.readouterr().err


class TestLazyCommands:
    def test_help_imports_no_command_module(self):
        # `dissensus --help` lists the commands from their summaries, without importing them
        code = (
            "import sys; from dissensus.cli import main; main(['--help']); "
            "print(sorted(m for m in sys.modules if m.startswith('dissensus.cli.') "
            "or m.split('.')[0] in ('sklearn', 'dask', 'matplotlib')))"
        )
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        assert (
            done.stdout.splitlines()[-1] == "['dissensus.cli._commands', 'dissensus.cli._messages']"
        )
        for name, summary in SUMMARIES.items():
            assert f"{name}  " in done.stdout
            assert summary in done.stdout

    @pytest.mark.parametrize("name", sorted(SUMMARIES))
    def test_every_command_loads_under_its_name(self, name):
        assert load(name).name == name
        assert cli.get_command(click.Context(cli), name) is not None


def test_console_script_entry_point():
    (ep,) = [e for e in entry_points(group="console_scripts") if e.name == "dissensus"]
    assert ep.value == "dissensus.cli:main"


def _requires_out(name: str) -> bool:
    return any(p.name == "out" and p.required for p in load(name).params)


@pytest.mark.parametrize("name", [n for n in sorted(SUMMARIES) if _requires_out(n)])
def test_a_missing_required_out_is_named(name, capsys):
    # click (8.3+) took an explicit default=None as the value: the command then failed on None
    # every other required parameter given (values are read only once --out is known)
    required = [p for p in load(name).params if p.required and p.name != "out"]
    args = [
        a
        for p in required
        for a in (["x.csv"] if isinstance(p, click.Argument) else [p.opts[0], "a=x.csv"])
    ]
    assert main([name, *args]) == EXIT_BAD_INPUT
    assert "Missing option '--out'" in capsys.readouterr().err
