"""The README's Python blocks run as written, in order, in one namespace."""

from __future__ import annotations

import re
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
    assert "dissensus agreement" in first[1]
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
