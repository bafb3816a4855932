"""Shared fixtures: where ../shared lives, and the published reference cases."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from dissensus.cli._commands import SUMMARIES, load

# CI runs the same examples every time (no flaky "new" counterexamples on a
# busy machine) and never fails on timing; locally hypothesis explores.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Every command module is imported here, before any test patches a name one of them imports:
# a module imported for the first time under a monkeypatch would keep the patched object for
# the rest of the session, so the outcome would depend on which test happened to run first.
for _name in SUMMARIES:
    load(_name)

_HERE = Path(__file__).resolve().parent
#: ../shared beside the repository (CI has it; a user's checkout may not).
SHARED = Path(os.environ.get("DISSENSUS_SHARED", _HERE.parent.parent / "shared"))


def shared_path(*parts: str) -> Path:
    """Path under ../shared, or skip the test with the reason."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (the project's shared data lives beside the repository)")
    return path


def reference_cases(name: str) -> dict[str, Any]:
    """The published cases of ../shared/reference/<name>.json, keyed by case name.

    Returns an empty dict when the file is absent so that parametrised tests
    collect (and the test that uses ``require_reference`` skips).
    """
    path = SHARED / "reference" / f"{name}.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    return {case["name"]: case for case in data["cases"]}


@pytest.fixture
def convabuse_dir() -> Path:
    return shared_path("data", "convabuse")


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 100 KB tmpfs (for disk-full tests), when this machine lets the test mount one."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a tiny tmpfs needs root on Linux (mount -t tmpfs); not available here")
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=100k", "tmpfs", str(mnt)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], check=False)
