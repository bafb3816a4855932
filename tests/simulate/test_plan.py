"""Tests of dissensus.simulate.plan: the N x n frontier calibrated to a pilot."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dissensus import DataDroppedWarning
from dissensus._exceptions import DataError
from dissensus.data import LabelCounts, Scale, read_convabuse
from dissensus.simulate import candidate_predictions, draw_truth, plan
from dissensus.simulate._plan import CompareCalibration, compare_power, mc_power


def _pilot(
    n_items: int = 100, n: int = 3, seed: int = 0
) -> tuple[LabelCounts, dict[str, np.ndarray], np.ndarray]:
    """A ConvAbuse-like pilot (skewed ordinal truth, K = 5) and two models close to each other."""
    rng = np.random.default_rng(seed)
    pi = draw_truth(n_items, 5, truth="skewed", seed=rng)
    counts = LabelCounts.from_array(rng.multinomial(n, pi), scale=Scale.ordinal([1, 2, 3, 4, 5]))
    preds = candidate_predictions(pi, ["noisy", "shrunk"], seed=rng)
    return counts, preds, pi


def test_frontier_is_minimal_and_monotone() -> None:
    counts, preds, _ = _pilot()
    p = plan(counts, preds, seed=1)
    f = p.frontier
    cal = p.compare
    assert cal is not None
    assert cal.metric == "rps"
    comp = f[f["goal"] == "compare"]
    assert (comp["achieved"] >= 0.8).all()
    n = comp["annotations_per_item"].to_numpy()
    grid = compare_power(cal, np.arange(5, 400, 7)[:, None], n[None, :], significance=0.05)
    assert np.all(np.diff(grid, axis=0) >= -1e-12)
    assert np.all(np.diff(grid, axis=1) >= -1e-12)
    agree = f[f["goal"] == "agreement"]
    width = agree["achieved"].to_numpy()
    assert np.all(width <= 0.05)
    sd = np.array([p.agreement["sd"][k] for k in agree["annotations_per_item"]])
    N_a = agree["n_items"].to_numpy(dtype=float)
    assert np.all(1.959964 * sd / np.sqrt(N_a - 1) > 0.05)


def test_monte_carlo_power_matches_the_t_test_on_normal_differences() -> None:
    """Without skewness the verdict's interval has the noncentral t's power (the first guess)."""
    cal = CompareCalibration("rps", "a", "b", -0.02, 0.0, 0.05, 0.0, 100, {})
    rng = np.random.default_rng(0)
    studies = rng.normal(-0.02, 0.05, size=(4000, 120))
    sizes = np.array([20, 50, 120])
    mc = mc_power(studies, sizes, sign=-1.0, significance=0.05)
    t = compare_power(cal, sizes, 1, significance=0.05)
    assert np.all(np.abs(mc - t) < 4 * np.sqrt(t * (1 - t) / 4000))
    assert np.all(np.diff(mc) > 0)


def test_cheapest_is_the_reached_row_with_fewest_labels() -> None:
    counts, preds, _ = _pilot()
    f = plan(counts, preds, seed=2).frontier
    for goal, part in f.groupby("goal"):
        reached = part[part["reached"]]
        marked = part[part["cheapest"]]
        assert len(marked) == (1 if len(reached) else 0), goal
        if len(reached):
            assert marked["reached"].all()
            assert marked["labels"].iloc[0] == reached["labels"].min()
    every = f[f["goal"] == "all"]
    need = f[f["goal"].isin(["compare", "agreement"])].pivot(
        index="annotations_per_item", columns="goal", values="n_items"
    )
    ok = every["reached"].to_numpy()
    assert np.array_equal(
        every["n_items"].to_numpy(dtype=float)[ok], need.max(axis=1).to_numpy(dtype=float)[ok]
    )


def test_same_seed_same_plan_other_seed_other_draws() -> None:
    counts, preds, _ = _pilot()
    a = plan(counts, preds, seed=3).frontier
    b = plan(counts, preds, seed=3).frontier
    c = plan(counts, preds, seed=4).frontier
    pd.testing.assert_frame_equal(a, b)
    drawn = a["goal"].isin(["agreement", "distribution"])
    assert not np.array_equal(a.loc[drawn, "achieved"], c.loc[drawn, "achieved"])


def test_variance_components_predict_a_fresh_design() -> None:
    """sigma_b^2 + sigma_w^2 / n from a pilot at n = 2 matches the variance of D at n = 6."""
    counts, preds, _ = _pilot(n_items=20_000, n=2, seed=5)
    cal = plan(counts, preds, goals=["compare"], metric="squared_euclidean").compare
    assert cal is not None
    rng = np.random.default_rng(6)
    pi = draw_truth(20_000, 5, truth="skewed", seed=rng)
    q = candidate_predictions(pi, ["noisy", "shrunk"], seed=rng)
    p6 = rng.multinomial(6, pi) / 6.0
    sq = {m: ((p6 - v) ** 2).sum(axis=1) for m, v in q.items()}
    D = sq[cal.best] - sq[cal.runner_up]
    assert float(cal.sd(6)) == pytest.approx(D.std(), rel=0.05)
    truth = (((pi - q[cal.best]) ** 2).sum(1) - ((pi - q[cal.runner_up]) ** 2).sum(1)).mean()
    assert cal.delta == pytest.approx(truth, abs=4 * cal.delta_se)


def test_distribution_goal_depends_on_annotations_only() -> None:
    counts, _, _ = _pilot()
    f = plan(counts, goals=["distribution"], error=0.25, error_measure="max_abs").frontier
    assert f["n_items"].isna().all()
    assert np.all(np.diff(f["achieved"].to_numpy()) < 0)
    assert (f["reached"] == (f["achieved"] <= 0.25)).all()


def test_one_annotation_per_item_cannot_calibrate() -> None:
    counts, preds, _ = _pilot(n=1)
    with pytest.raises(DataError, match="one annotation per item"):
        plan(counts, preds)


def test_bad_arguments_are_refused() -> None:
    counts, preds, _ = _pilot()
    with pytest.raises(ValueError, match="unbiased estimator"):
        plan(counts, preds, metric="emd")
    with pytest.raises(ValueError, match="predictions"):
        plan(counts, goals=["compare"])
    with pytest.raises(ValueError, match="annotations"):
        plan(counts, annotations=[0, 3])
    with pytest.raises(ValueError, match="goals"):
        plan(counts, goals=["speed"])
    with pytest.raises(ValueError, match="two or more"):
        plan(counts, {"only": preds["noisy"]})


def test_infinite_score_names_model_and_item() -> None:
    counts, preds, _ = _pilot()
    zero = preds["noisy"].copy()
    seen = int(np.argmax(counts.values[0]))
    zero[0, seen] = 0.0
    zero[0] /= zero[0].sum()
    with pytest.raises(DataError, match=r"model 'noisy'.*item 0"):
        plan(counts, {"noisy": zero, "shrunk": preds["shrunk"]}, metric="cross_entropy")


@pytest.mark.shared
def test_convabuse_pilot_of_100_items(convabuse_dir: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataDroppedWarning)
        counts = read_convabuse(convabuse_dir / "ConvAbuseEMNLPvalid.csv").counts()
    pilot = counts.take(np.arange(100))
    f = plan(pilot, goals=["agreement", "distribution"], seed=0).frontier
    assert f["cheapest"].sum() == 3
    agree = f[f["goal"] == "agreement"]
    assert agree["reached"].all()
