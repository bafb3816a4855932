"""The README's test command never passes with the browser tests silently skipped."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.report._chromium import chromium_or_skip

ROOT = Path(__file__).resolve().parent.parent


def _bin_without_chromium(tmp_path: Path) -> Path:
    """A PATH with the few tools run-tests needs before installing, and no browser."""
    fake = tmp_path / "bin"
    fake.mkdir()
    for tool in ("bash", "dirname", "id"):
        found = shutil.which(tool)
        if found is None:
            pytest.skip(f"{tool} is not installed")
        (fake / tool).symlink_to(found)
    return fake


class TestRunTestsWithoutChromium:
    def test_stops_and_names_the_install_command(self, tmp_path):
        # no chromium, and no apt-get or sudo to install it: the script must say how,
        # before creating any venv (the old script ran pytest, which skipped the tests)
        fake = _bin_without_chromium(tmp_path)
        done = subprocess.run(
            ["bash", str(ROOT / "run-tests")],
            env={"PATH": str(fake), "HOME": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2, done.stderr
        assert "sudo apt-get install chromium" in done.stderr
        assert "DISSENSUS_BROWSER=skip" in done.stderr

    def test_browser_fixture_fails_when_required(self, tmp_path, monkeypatch):
        monkeypatch.setenv("PATH", str(_bin_without_chromium(tmp_path)))
        monkeypatch.delenv("CI", raising=False)
        monkeypatch.setenv("DISSENSUS_BROWSER", "required")
        with pytest.raises(
            pytest.fail.Exception, match="install it with: sudo apt-get install chromium"
        ):
            chromium_or_skip()
        monkeypatch.delenv("DISSENSUS_BROWSER")
        with pytest.raises(pytest.skip.Exception):
            chromium_or_skip()
