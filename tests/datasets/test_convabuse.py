"""Tests of dissensus.datasets.load_convabuse (../shared/data/convabuse; skipped when absent)."""

from __future__ import annotations

import warnings

import pytest

from dissensus import DataDroppedWarning
from dissensus.datasets import load_convabuse

pytestmark = pytest.mark.shared


class TestLoadConvabuse:
    def test_full_file_with_and_without_context(self, convabuse_dir):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataDroppedWarning)  # the 357 documented repeats
            plain = load_convabuse(convabuse_dir)
            ctx = load_convabuse(convabuse_dir / "ConvAbuseEMNLPfull.csv", context=True)
        assert plain.annotations.n_items == ctx.annotations.n_items == 4185
        assert plain.items["text"].equals(plain.items["user"])
        first = ctx.items.iloc[0]
        assert ctx.items["text"].iloc[0].startswith(first["user"])
        assert "ag_" in ctx.items["text"].iloc[0]
        n = plain.annotations.annotations_per_item
        assert (n.min(), n.max()) == (2, 7)

    def test_warns_about_repeats(self, convabuse_dir):
        with pytest.warns(DataDroppedWarning, match="357 repeated"):
            load_convabuse(convabuse_dir)
