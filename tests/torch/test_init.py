"""``import dissensus`` must not import torch (the ``torch`` extra is optional)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dissensus

SRC = Path(dissensus.__file__).resolve().parents[1]


def test_import_dissensus_never_imports_torch():
    code = (
        "import sys, dissensus\n"
        "from dissensus.metrics import expected, debiased, get_metric\n"
        "import dissensus.posterior, dissensus.models\n"
        "for name in ('evaluate', 'metrics', 'DataError'):\n"
        "    getattr(dissensus, name)\n"
        "get_metric('E[emd]')\n"
        "assert 'torch' not in sys.modules, sorted(m for m in sys.modules if 'torch' in m)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
