"""The README's Python blocks run as written, in order, in one namespace."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_readme_has_two_setup_commands_first() -> None:
    text = README.read_text()
    fences = re.findall(r"```(\w*)\n(.*?)```", text, flags=re.DOTALL)
    first, second = fences[0], fences[1]
    assert first[0] == "bash"
    assert "dissensus demo" in first[1]
    assert "models" in first[1]  # the demo trains the soft-label baselines
    assert "dissensus agreement" in text  # the agreement example stays in the text
    assert second[0] == "bash"
    assert second[1].strip() == "./run-tests"
    # nothing but the title precedes the two commands
    assert text.index("```") < text.index("\n## ")


# The tour's evaluation runs on a 4-item toy: its intervals are rightly flagged
# as resting on too few items, which is not what this test checks.
@pytest.mark.filterwarnings("ignore::dissensus.FewItemsWarning")
def test_readme_python_blocks_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = _blocks()
    assert len(blocks) >= 4
    monkeypatch.chdir(tmp_path)  # the tour writes report.html
    namespace: dict[str, object] = {}
    for i, block in enumerate(blocks):
        code = compile(block, f"README.md python block {i + 1}", "exec")
        exec(code, namespace)
    assert (tmp_path / "report.html").stat().st_size > 10_000


# A command line of a code block: `dissensus ...` or `.venv/bin/dissensus ...`, after an
# optional console prompt.
_CLI_LINE = re.compile(r"^(?:\$ )?(?:\.venv/bin/)?dissensus\b", flags=re.MULTILINE)
# Words that stand for something the reader supplies (FILE, PATH, GOLD, SUBMISSION...):
# never allowed in a block the suite runs.
_PLACEHOLDER = re.compile(r"\b[A-Z]{3,}\b|\.\.\.")


def _fences() -> list[tuple[str, str]]:
    """Every fenced code block as (language, text), in README order."""
    return re.findall(r"```(\w*)\n(.*?)```", README.read_text(), flags=re.DOTALL)


def _shell_blocks() -> list[str]:
    """The command lines the suite runs: the set-up's ``dissensus`` commands, then every block.

    The first set-up block installs dissensus and then runs ``.venv/bin/dissensus
    demo``: the install is out of a test's reach, so only its ``dissensus``
    commands run (about 30 s), with the ``.venv/bin/dissensus ...`` commands the
    text around it gives. The second runs the suite. After them, a console
    block's commands are its ``$ `` lines (the rest is output) and a bash block's
    are its lines.
    """
    fences = _fences()
    setup = [
        part.strip()
        for part in fences[0][1].split("&&")
        if part.strip().startswith(".venv/bin/dissensus")
    ]
    prose = re.sub(r"```.*?```", "", README.read_text(), flags=re.DOTALL)
    setup += re.findall(r"`(\.venv/bin/dissensus [^`]*)`", prose)
    blocks = ["\n".join(setup)]
    for language, text in fences[2:]:
        if language == "console":
            blocks.append("\n".join(ln[2:] for ln in text.splitlines() if ln.startswith("$ ")))
        elif language == "bash":
            blocks.append(text)
    return blocks


def test_readme_cli_lines_are_in_runnable_blocks() -> None:
    fences = _fences()
    for language, text in fences[2:]:
        if _CLI_LINE.search(text):
            assert language in {"bash", "console"}, (
                f"a ```{language} block holds CLI lines:\n{text}"
            )
    for block in _shell_blocks():
        for line in block.splitlines():
            command = line.split("#", 1)[0]
            assert not _PLACEHOLDER.search(command), f"a placeholder in a runnable line: {line}"
    # every CLI line of the README's code blocks is in a block the next test runs
    runnable = "\n".join(_shell_blocks())
    for _, text in fences[2:]:
        for line in text.splitlines():
            if _CLI_LINE.match(line):
                assert line.removeprefix("$ ") in runnable, line
    assert ".venv/bin/dissensus demo" in runnable


def test_placeholder_pattern_catches_what_a_reader_must_replace() -> None:
    assert _PLACEHOLDER.search("dissensus leaderboard GOLD SUBMISSION --out DIR")
    assert _PLACEHOLDER.search("dissensus evaluate ... --targets mace")
    assert not _PLACEHOLDER.search("dissensus agreement ratings.csv --by year --out results/")


def test_readme_shell_blocks_run(tmp_path: Path) -> None:
    blocks = _shell_blocks()
    assert len(blocks) >= 2, "the README has command-line examples"
    assert any("dissensus experiment" in b for b in blocks)
    assert blocks[0].splitlines() == [
        ".venv/bin/dissensus demo",
        ".venv/bin/dissensus agreement --confidence-level 0.95",
    ]
    work = tmp_path / "work"
    # `dissensus` on PATH and `.venv/bin/dissensus` run the code under test with this interpreter
    bin_dir = work / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    launcher = bin_dir / "dissensus"
    launcher.write_text(
        f"#!/bin/sh\nexec {sys.executable} -c "
        "'import sys; from dissensus.cli import main; sys.exit(main())' \"$@\"\n"
    )
    launcher.chmod(0o755)
    src = Path(__file__).resolve().parent.parent / "src"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")])),
    }
    for i, block in enumerate(blocks, start=1):
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            # a guard against a hang, not a speed test: the blocks (seventeen commands) took
            # 345 s in all on a loaded 2-core machine
            timeout=1800,
            check=False,
        )
        assert done.returncode == 0, f"README shell block {i} failed:\n{done.stderr}"
    assert (work / "results" / "report.html").stat().st_size > 10_000
    for out in ("dissensus-demo", "ml", "ca", "mine", "tendency"):
        assert (work / out / "report.html").is_file(), out
