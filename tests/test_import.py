"""What ``import dissensus`` and ``import dissensus.cli`` import: the public names on first use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import dissensus

SRC = Path(__file__).resolve().parents[1] / "src"
HEAVY = ("numpy", "pandas", "scipy", "pyarrow", "sklearn", "matplotlib", "dask")


def imported_after(code: str) -> list[str]:
    """The heavy top-level modules a fresh interpreter has imported after running ``code``."""
    probe = f"{code}\nimport sys\nprint(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    return eval(done.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    "code",
    [
        "import dissensus",
        "import dissensus.cli",
        "from dissensus.cli import main; main(['--help'])",
        "from dissensus.cli import main; main(['--version'])",
        "from dissensus import DataError, MissingExtraError, DissensusWarning",
    ],
)
def test_nothing_heavy_is_imported(code):
    assert imported_after(code) == []


def test_a_public_name_imports_its_module_on_first_use():
    assert "numpy" in imported_after("import dissensus as ds; ds.Annotations")
    assert "scipy" in imported_after("from dissensus import agreement")


@pytest.mark.parametrize("name", dissensus.__all__)
def test_every_public_name_resolves(name):
    value = getattr(dissensus, name)
    assert value is not None
    assert name in dir(dissensus)


def test_star_import_and_submodules():
    namespace: dict[str, object] = {}
    exec("from dissensus import *", namespace)
    assert set(dissensus.__all__) <= set(namespace)
    assert namespace["agreement"] is sys.modules["dissensus.agreement"]
    assert dissensus.Annotations is sys.modules["dissensus.data"].Annotations


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Annotation'"):
        dissensus.Annotation  # noqa: B018 - the lookup is the test
    assert not hasattr(dissensus, "no_such_name")
