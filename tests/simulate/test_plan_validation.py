"""Tests of dissensus.simulate.plan_validation (the check behind docs/plan_validation.md)."""

from __future__ import annotations

import numpy as np
import pytest

from dissensus.simulate.plan_validation import (
    WORLDS,
    main,
    plan_validation,
    plan_validation_markdown,
)


@pytest.fixture(scope="module")
def binary() -> object:
    return plan_validation([WORLDS[2]], [2000], replicates=300, seed=1)


def test_rows_cover_every_goal_and_design(binary: object) -> None:
    res = binary
    assert set(res["goal"]) == {"compare", "agreement", "distribution"}
    assert (res.groupby("goal").size() == 5).all()
    run = res[res["replicates"] > 0]
    assert run["achieved"].notna().all()
    assert (run["se"] > 0).all()


def test_planned_power_matches_the_oracle_calibration(binary: object) -> None:
    """The method: a plan calibrated on a huge pilot states the power that fresh studies reach."""
    comp = binary[binary["goal"] == "compare"]
    assert np.all(np.abs(comp["achieved"] - comp["oracle"]) <= 4 * comp["se"])


def test_planned_half_width_is_achieved_with_a_large_pilot(binary: object) -> None:
    """With 2000 pilot items alpha's planned half-width is met within Monte Carlo error."""
    agree = binary[binary["goal"] == "agreement"]
    assert np.all(np.abs(agree["achieved"] - agree["stated"]) <= 4 * agree["se"])


def test_markdown_names_the_command_and_every_world(binary: object) -> None:
    text = plan_validation_markdown(binary, command="python -m x --out y.md", settings="s")
    assert "`python -m x --out y.md`" in text
    assert "## Headline" in text
    assert f"## {WORLDS[2].name}; pilot of 2000 items" in text
    assert text.count("| compare |") == 5


def test_main_refuses_too_few_replicates() -> None:
    with pytest.raises(SystemExit):
        main(["--replicates", "3"])
