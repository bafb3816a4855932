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


def _shell_blocks() -> list[str]:
    """Every ``bash`` block after the two set-up commands (which install and run the suite)."""
    return re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.DOTALL)[2:]


def test_readme_shell_blocks_run(tmp_path: Path) -> None:
    blocks = _shell_blocks()
    assert blocks, "the README has command-line examples"
    # `dissensus` on PATH runs the code under test with this interpreter
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "dissensus"
    launcher.write_text(
        f"#!/bin/sh\nexec {sys.executable} -c "
        "'import sys; from dissensus.cli import main; sys.exit(main())' \"$@\"\n"
    )
    launcher.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
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
            # a guard against a hang, not a speed test: the block (nine commands) took 175 s
            # alone and over 300 s on a loaded 2-core machine, where the suite then failed
            timeout=1800,
            check=False,
        )
        assert done.returncode == 0, f"README bash block {i} failed:\n{done.stderr}"
    assert (work / "results" / "report.html").stat().st_size > 10_000
