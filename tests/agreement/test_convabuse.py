"""Agreement on ConvAbuse (../shared/data/convabuse; skipped when absent)."""

from __future__ import annotations

import warnings
from pathlib import Path

import krippendorff
import pytest

from dissensus import DataDroppedWarning
from dissensus.agreement import fleiss_kappa, krippendorff_alpha, report
from dissensus.data import read_convabuse

pytestmark = pytest.mark.shared


def test_alpha_ordinal_and_fleiss_overall_and_per_bot(convabuse_dir: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataDroppedWarning)
        ann = read_convabuse(convabuse_dir / "ConvAbuseEMNLPfull.csv")
    counts = ann.counts()
    a = krippendorff_alpha(ann, level="ordinal")
    ref = krippendorff.alpha(value_counts=counts.values, level_of_measurement="ordinal")
    assert a.statistic == pytest.approx(ref, abs=1e-10)
    assert a.n_items == 4185
    k = fleiss_kappa(ann)
    assert 0.3 < k.statistic < 0.6
    t = report(ann, level="ordinal", by="bot")
    bots = set(t["bot"]) - {"all"}
    assert bots == set(counts.groups("bot").unique())
    per_bot = t[t["coefficient"] == "krippendorff_alpha_ordinal"].set_index("bot")
    assert per_bot.loc["all", "value"] == pytest.approx(a.statistic)
    assert per_bot.drop("all")["n_items"].sum() == 4185
