"""Tests of dissensus.simulate.entropy_bias: the enumeration behind docs/entropy_bias.md."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dissensus.simulate.entropy_bias import (
    bias_table,
    count_vectors,
    distributions,
    exact_bias,
    simulated_bias,
)


def test_count_vectors_are_all_compositions() -> None:
    C = count_vectors(4, 3)
    assert C.shape == (15, 3)
    assert (C.sum(axis=1) == 4).all()
    assert len({tuple(r) for r in C.tolist()}) == 15
    assert stats.multinomial.pmf(C, 4, [0.2, 0.3, 0.5]).sum() == pytest.approx(1.0)


def test_exact_plug_in_bias_against_a_direct_sum() -> None:
    p = np.array([0.6, 0.3, 0.1])
    C = count_vectors(3, 3)
    w = stats.multinomial.pmf(C, 3, p)
    want = float(w @ stats.entropy(C / 3, axis=1)) - stats.entropy(p)
    assert exact_bias(3, p)["plug_in"] == pytest.approx(want)


def test_bias_table_flags() -> None:
    table = bias_table(ns=[2, 4], Ks=[3])
    assert len(table) == 2 * len(distributions(3))
    assert (table["mm_smaller"] == (table["miller_madow"].abs() < table["plug_in"].abs())).all()
    assert table["jk_smaller"].all()


def test_simulation_agrees_with_enumeration() -> None:
    sim = simulated_bias([(3, 4, "uniform")], draws=20_000, seed=1)
    row = sim.iloc[0]
    assert abs(row["jackknife"] - row["exact_jackknife"]) < 4 * row["jackknife_standard_error"]
