"""Tests of dissensus.metrics.lewidi against independent re-implementations of the official scorers.

The oracles below follow the organisers' published algorithms step by step
(Python loops, Python's round, left-to-right sums; POT for the Wasserstein
distance; scikit-learn for micro-F1). Source: LeWiDi 2023 starter kit and
LeWiDi_3-2025/Evaluation_LeWiDi_2025_Metrics.ipynb in
github.com/Le-Wi-Di/le-wi-di.github.io. Scores must agree bit for bit.
"""

from __future__ import annotations

import errno
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import ot
import pytest
from scipy.stats import wasserstein_distance
from sklearn.metrics import f1_score

from dissensus import DataError, LabelCounts, OutputError, Predictions, Scale
from dissensus.data import CONVABUSE_SCALE
from dissensus.metrics import cross_entropy, lewidi
from dissensus.metrics.lewidi import (
    SCALE_VALUES_2025,
    average_md,
    average_ws,
    cross_entropy_2023,
    error_rate,
    mean_absolute_distance,
    micro_f1_2023,
    multilabel_average_md,
    multilabel_error_rate,
    read_lewidi_predictions,
    targets_2023,
    write_lewidi_predictions,
)

# --------------------------------------------------------------------------- oracles


def oracle_ce_2023(targets: np.ndarray, predictions: np.ndarray) -> float:
    clipped = np.clip(predictions, 1e-12, 1.0 - 1e-12)
    return float(-np.sum(targets * np.log(clipped + 1e-9)) / predictions.shape[0])


def oracle_average_md(targets: Any, predictions: Any) -> float:
    per_item = []
    for t, p in zip(targets, predictions, strict=True):
        total = 0
        for a, b in zip(p, t, strict=True):
            total = total + abs(a - b)
        per_item.append(round(total, 5))
    return round(sum(per_item) / len(per_item), 5)


def oracle_multilabel_average_md(targets: Any, predictions: Any) -> float:
    scores = [oracle_average_md(t, p) for t, p in zip(targets, predictions, strict=True)]
    return round(sum(scores) / len(scores), 5)


def oracle_average_ws(targets: Any, predictions: Any) -> float:
    k = len(targets[0])
    cost = np.abs(np.arange(k).reshape(-1, 1) - np.arange(k)).astype(np.float64)
    dists = [
        ot.emd2(np.asarray(t, float), np.asarray(p, float), cost)
        for t, p in zip(targets, predictions, strict=True)
    ]
    return round(sum(dists) / len(targets), 5)


def oracle_error_rate(targets: Any, predictions: Any) -> float:
    scores = []
    for t, p in zip(targets, predictions, strict=True):
        errors = sum(abs(a - b) for a, b in zip(t, p, strict=True))
        scores.append(round(1 - ((len(t) - errors) / len(t)), 5))
    return float(np.mean(scores))


def oracle_multilabel_error_rate(targets: Any, predictions: Any) -> float:
    return float(
        np.mean([oracle_error_rate(t, p) for t, p in zip(targets, predictions, strict=True)])
    )


def oracle_mean_absolute_distance(targets: Any, predictions: Any, scale_values: float) -> float:
    out = []
    for t, p in zip(targets, predictions, strict=True):
        total = 0
        for a, b in zip(t, p, strict=True):
            total = total + abs(a - b)
        out.append(total / len(t) / scale_values)
    return float(np.mean(out))


def six_decimal_rows(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """Distributions written with 6 decimals, as in submission files: many rounding ties."""
    raw = rng.integers(0, 1_000_000, size=(n, k - 1))
    raw.sort(axis=1)
    edges = np.column_stack([np.zeros(n, dtype=np.int64), raw, np.full(n, 1_000_000)])
    return np.diff(edges, axis=1) / 1e6


def ragged_labels(
    rng: np.random.Generator, n: int, low: int, high: int
) -> tuple[list[list[int]], list[list[int]]]:
    counts = rng.integers(2, 7, size=n)
    t = [rng.integers(low, high + 1, size=c).tolist() for c in counts]
    p = [rng.integers(low, high + 1, size=c).tolist() for c in counts]
    return t, p


# --------------------------------------------------------------------------- 2023


class TestCrossEntropy2023:
    @pytest.mark.parametrize("seed", [0, 1, 2])
    def test_bit_identical_to_the_official_formula(self, seed: int) -> None:
        rng = np.random.default_rng(seed)
        t = rng.dirichlet([1, 1], size=500)
        p = rng.dirichlet([0.3, 0.3], size=500)
        p[:20] = [[1.0, 0.0]] * 20  # exercises the clipping
        assert cross_entropy_2023(t, p) == oracle_ce_2023(t, p)

    def test_hard_zero_prediction_is_finite(self) -> None:
        # -0.3 ln(1e-12 + 1e-9) = 6.2157: the 1e-9 shift, not the clip, sets the penalty.
        got = cross_entropy_2023([[0.7, 0.3]], [[1.0, 0.0]])
        assert got == pytest.approx(-0.7 * math.log(1 - 1e-12 + 1e-9) - 0.3 * math.log(1.001e-9))

    def test_differs_from_the_seed_convention(self) -> None:
        seed_value = float(cross_entropy([0.7, 0.3], [1.0, 0.0], zero="clip"))
        assert seed_value == pytest.approx(8.2893, abs=5e-5)
        assert cross_entropy_2023([[0.7, 0.3]], [[1.0, 0.0]]) < seed_value

    def test_errors(self) -> None:
        with pytest.raises(DataError, match=r"must have the same shape; got \(1, 2\) and \(2, 2\)"):
            cross_entropy_2023([[0.5, 0.5]], [[0.5, 0.5]] * 2)
        with pytest.raises(DataError, match=r"must be a non-empty 2-D array \(N, K\)"):
            cross_entropy_2023([0.5, 0.5], [0.5, 0.5])
        with pytest.raises(DataError, match="`predictions` of cross_entropy_2023 has a non-finite"):
            cross_entropy_2023([[0.5, 0.5]], [[np.nan, 0.5]])


class TestMicroF1:
    @pytest.mark.parametrize(("seed", "k"), [(0, 2), (1, 2), (2, 5)])
    def test_equals_sklearn(self, seed: int, k: int) -> None:
        rng = np.random.default_rng(seed)
        y, yhat = rng.integers(0, k, size=(2, 301))
        assert micro_f1_2023(y, yhat) == f1_score(y, yhat, average="micro")

    def test_string_labels(self) -> None:
        y = ["off", "not", "off", "off"]
        yhat = ["off", "off", "off", "not"]
        assert micro_f1_2023(y, yhat) == f1_score(y, yhat, average="micro") == 0.5

    def test_errors(self) -> None:
        with pytest.raises(DataError, match="same length; got shapes \\(2,\\) and \\(3,\\)"):
            micro_f1_2023([0, 1], [0, 1, 1])
        with pytest.raises(DataError, match="non-empty 1-D"):
            micro_f1_2023([], [])


# --------------------------------------------------------------------------- 2025 soft


class TestAverageMd:
    @pytest.mark.parametrize("seed", range(5))
    def test_bit_identical_on_six_decimal_submissions(self, seed: int) -> None:
        rng = np.random.default_rng(seed)
        t = six_decimal_rows(rng, 400, 2)
        p = six_decimal_rows(rng, 400, 2)
        assert average_md(t, p) == oracle_average_md(t.tolist(), p.tolist())
        # Submitted rows need not sum to 1 (the scorer does not check); then per-item
        # distances land on 5-decimal ties, where np.round and Python's round disagree.
        q = rng.integers(0, 1_000_000, size=(400, 2)) / 1e6
        assert average_md(t, q) == oracle_average_md(t.tolist(), q.tolist())

    def test_rounding_helper_matches_python_round(self) -> None:
        rng = np.random.default_rng(5)
        x = np.r_[rng.integers(0, 2_000_000, size=20_000) / 1e6, rng.random(1000) * 3]
        expected = np.array([round(float(v), 5) for v in x])
        np.testing.assert_array_equal(lewidi._round_like_python(x, 5), expected)
        assert (np.round(x, 5) != expected).any()  # the case the helper exists for

    def test_python_rounding_not_numpy_rounding(self) -> None:
        # 0.176545 is stored just above the tie: Python rounds up, np.round(x, 5) down.
        t, p = [[0.6, 0.4], [0.2, 0.8]], [[0.5, 0.5], [0.123455, 0.876545]]
        assert average_md(t, p) == oracle_average_md(t, p) == 0.17655
        assert np.round(0.176545, 5) == 0.17654

    def test_per_item_rounding(self) -> None:
        # distances 0.24691 and 0.000004 -> rounded per item to 0.24691 and 0.0; their mean
        # 0.123455 is stored just below the tie, so Python rounds it down.
        t = [[0.0, 1.0], [0.5, 0.5]]
        p = [[0.123455, 0.876545], [0.500002, 0.499998]]
        assert average_md(t, p) == oracle_average_md(t, p) == 0.12345


class TestMultilabelAverageMd:
    @pytest.mark.parametrize("seed", range(3))
    def test_bit_identical(self, seed: int) -> None:
        rng = np.random.default_rng(seed)
        t = np.stack([six_decimal_rows(rng, 300, 2) for _ in range(3)], axis=1)
        p = np.stack([six_decimal_rows(rng, 300, 2) for _ in range(3)], axis=1)
        assert multilabel_average_md(t, p) == oracle_multilabel_average_md(t.tolist(), p.tolist())

    def test_label_order_matters_only_when_the_two_sides_differ(self) -> None:
        # VariErrNLI dev item 49807 (soft_label keys contradiction, entailment, neutral)
        t = np.array([[[1.0, 0.0], [0.5, 0.5], [0.25, 0.75]]])
        p = np.array([[[0.9, 0.1], [0.6, 0.4], [0.2, 0.8]]])
        same = multilabel_average_md(t, p)
        order = [1, 2, 0]  # entailment, neutral, contradiction on both sides
        assert multilabel_average_md(t[:, order], p[:, order]) == same
        # predictions written entailment / neutral / contradiction against the file order
        assert multilabel_average_md(t, p[:, order]) != same

    def test_needs_three_dimensions(self) -> None:
        with pytest.raises(DataError, match=r"3-D array \(N, L, K\)"):
            multilabel_average_md([[0.5, 0.5]], [[0.5, 0.5]])


class TestAverageWs:
    @pytest.mark.parametrize(("seed", "k"), [(0, 6), (1, 11), (2, 6)])
    def test_equals_pot_loop(self, seed: int, k: int) -> None:
        rng = np.random.default_rng(seed)
        t = rng.dirichlet(np.ones(k), size=300)
        p = rng.dirichlet(np.full(k, 0.5), size=300)
        assert average_ws(t, p) == oracle_average_ws(t, p)

    def test_unnormalised_cost(self) -> None:
        # All mass moved from the first to the last of 6 points costs 5 steps.
        k = 6
        t, p = np.eye(k)[[0]], np.eye(k)[[k - 1]]
        assert average_ws(t, p) == 5.0
        support = np.arange(k)
        assert average_ws(t, p) == wasserstein_distance(support, support, t[0], p[0])

    def test_rows_must_be_distributions(self) -> None:
        with pytest.raises(DataError, match=r"`predictions` row 0 sums to 0\.9"):
            average_ws([[0.5, 0.5]], [[0.5, 0.4]])


# --------------------------------------------------------------------------- 2025 perspectivist


class TestErrorRate:
    @pytest.mark.parametrize("seed", range(3))
    def test_bit_identical_on_ragged_binary_labels(self, seed: int) -> None:
        t, p = ragged_labels(np.random.default_rng(seed), 300, 0, 1)
        assert error_rate(t, p) == oracle_error_rate(t, p)

    def test_nan_padded_matrix_with_gaps(self) -> None:
        t = np.array([[1, np.nan, 0, 1], [np.nan, 0, 0, np.nan]])
        p = np.array([[0, np.nan, 0, 1], [np.nan, 1, 0, np.nan]])
        expected = oracle_error_rate([[1, 0, 1], [0, 0]], [[0, 0, 1], [1, 0]])
        assert error_rate(t, p) == expected == pytest.approx((1 / 3 + 1 / 2) / 2, abs=1e-5)

    def test_items_count_equally(self) -> None:
        # 1 of 2 wrong on item 0, 0 of 6 wrong on item 1: (0.5 + 0) / 2, not 1 / 8.
        assert error_rate([[1, 0], [0] * 6], [[1, 1], [0] * 6]) == 0.25

    def test_missing_patterns_must_match(self) -> None:
        with pytest.raises(DataError, match=r"label different annotators: at index \(0, 1\)"):
            error_rate([[1, np.nan]], [[1, 0]])
        with pytest.raises(DataError, match="has no labels at all for row"):
            error_rate([[np.nan, np.nan]], [[np.nan, np.nan]])
        with pytest.raises(DataError, match="same shape"):
            error_rate([[1, 0], [1]], [[1, 0, 1], [1]])


class TestMultilabelErrorRate:
    def test_bit_identical(self) -> None:
        rng = np.random.default_rng(11)
        counts = rng.integers(2, 6, size=120)
        t = [rng.integers(0, 2, size=(3, c)).tolist() for c in counts]
        p = [rng.integers(0, 2, size=(3, c)).tolist() for c in counts]
        assert multilabel_error_rate(t, p) == oracle_multilabel_error_rate(t, p)


class TestMeanAbsoluteDistance:
    @pytest.mark.parametrize(("dataset", "low", "high"), [("Paraphrase", -5, 5), ("CSC", 1, 6)])
    def test_bit_identical(self, dataset: str, low: int, high: int) -> None:
        t, p = ragged_labels(np.random.default_rng(3), 250, low, high)
        s = SCALE_VALUES_2025[dataset]
        assert s == high - low + 1  # the official divisor is the number of scale points
        assert mean_absolute_distance(t, p, scale_values=s) == oracle_mean_absolute_distance(
            t, p, s
        )

    def test_scale_object_gives_its_number_of_points(self) -> None:
        t, p = [[1, 6], [3]], [[2, 4], [3]]
        scale = Scale.ordinal([1, 2, 3, 4, 5, 6])
        assert mean_absolute_distance(t, p, scale_values=scale) == oracle_mean_absolute_distance(
            t, p, 6
        )

    @pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf])
    def test_bad_scale_values(self, bad: float) -> None:
        with pytest.raises(ValueError, match="'scale_values' parameter of mean_absolute_distance"):
            mean_absolute_distance([[1]], [[1]], scale_values=bad)


# --------------------------------------------------------------------------- reader


class TestReadLewidiPredictions:
    def test_2023(self, tmp_path: Path) -> None:
        f = tmp_path / "HS-Brexit_results.tsv"
        f.write_text("1\t0.3\t0.7\n0\t0.9\t0.1\n\n")
        sub = read_lewidi_predictions(f, year=2023)
        assert sub.items is None
        assert sub.hard is not None
        assert sub.soft is not None
        assert sub.hard.tolist() == [1, 0]
        assert sub.soft.tolist() == [[0.3, 0.7], [0.9, 0.1]]
        assert sub.n_items == 2
        assert repr(sub) == "LewidiPredictions(year=2023, task='soft', shape=(2, 2))"

    def test_2025_soft_and_to_predictions(self, tmp_path: Path) -> None:
        f = tmp_path / "csc_test_soft.tsv"
        f.write_text("a1\t[0.0, 0.5, 0.5]\na2\t[1, 0, 0]\n")
        sub = read_lewidi_predictions(f, year=2025)
        assert sub.items == ("a1", "a2")
        pred = sub.to_predictions()
        assert isinstance(pred, Predictions)
        assert list(pred.items) == ["a1", "a2"]
        assert average_ws([[0, 0, 1], [1, 0, 0]], sub.soft) == 0.25

    def test_2025_multilabel_soft(self, tmp_path: Path) -> None:
        f = tmp_path / "ven_test_soft.tsv"
        f.write_text("7\t[[0.5, 0.5], [1.0, 0.0], [0.0, 1.0]]\n")
        sub = read_lewidi_predictions(f, year=2025)
        assert sub.soft is not None
        assert sub.soft.shape == (1, 3, 2)
        with pytest.raises(DataError, match="Only \\(N, K\\) soft-label files convert"):
            sub.to_predictions()

    def test_2025_perspectivist_ragged(self, tmp_path: Path) -> None:
        f = tmp_path / "MP_test_pe.tsv"
        f.write_text("i1\t[1, 0, 1]\ni2\t[0, 0]\n")
        sub = read_lewidi_predictions(f, year=2025, task="pe")
        assert sub.labels is not None
        np.testing.assert_array_equal(sub.labels, [[1, 0, 1], [0, 0, np.nan]])
        gold = [[1, 1, 1], [0, 1]]
        assert error_rate(gold, sub.labels) == oracle_error_rate(gold, [[1, 0, 1], [0, 0]])

    @pytest.mark.parametrize(
        ("year", "content", "match"),
        [
            (2023, "1\t0.5\n", r"line 1: a 2023 submission row is 'hard_label<TAB>p_0<TAB>p_1'"),
            (2023, "1\t0.5\t0.5\n0\t0.5\t0.5\t0\n", "line 2"),
            (2023, "x\t0.5\t0.5\n", r"line 1: expected numbers"),
            (2025, "a\t[0.5, 0.5]\tz\n", r"line 1: a 2025 submission row is 'item_id<TAB>\[...\]'"),
            (2025, "a\t[0.5, 0.5]\nb\tnot a list\n", r"line 2: cannot read 'not a list'"),
            (2025, "a\t[0.5, 0.5]\na\t[0.5, 0.5]\n", "item id 'a' appears more than once"),
            (2025, "a\t[0.5, 0.5]\nb\t[1, 0, 0]\n", "same number of classes"),
            (2025, "\n\n", "is empty"),
        ],
    )
    def test_format_errors(self, tmp_path: Path, year: int, content: str, match: str) -> None:
        f = tmp_path / "sub.tsv"
        f.write_text(content)
        with pytest.raises(DataError, match=match):
            read_lewidi_predictions(f, year=year)  # type: ignore[arg-type]

    def test_options(self, tmp_path: Path) -> None:
        with pytest.raises(FileNotFoundError, match="No such file"):
            read_lewidi_predictions(tmp_path / "missing.tsv", year=2025)
        f = tmp_path / "x.tsv"
        f.write_text("1\t0.5\t0.5\n")
        with pytest.raises(ValueError, match="The 'year' parameter of read_lewidi_predictions"):
            read_lewidi_predictions(f, year=2024)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="no perspectivist task"):
            read_lewidi_predictions(f, year=2023, task="pe")


class TestWriteLewidiPredictions:
    def test_round_trip_2023(self, tmp_path: Path) -> None:
        soft = np.array([[0.25, 0.75], [0.6, 0.4], [0.5, 0.5]])
        f = write_lewidi_predictions(tmp_path / "ArMIS_results.tsv", soft, year=2023)
        sub = read_lewidi_predictions(f, year=2023)
        assert sub.hard is not None
        assert sub.hard.tolist() == [1, 0, 0]  # argmax, first class on ties
        np.testing.assert_array_equal(sub.soft, soft)  # repr() keeps every bit
        f2 = write_lewidi_predictions(tmp_path / "x.tsv", soft, year=2023, hard=[1, 1, 1])
        assert read_lewidi_predictions(f2, year=2023).hard.tolist() == [1, 1, 1]  # type: ignore[union-attr]

    def test_round_trip_2025_soft(self, tmp_path: Path) -> None:
        rng = np.random.default_rng(1)
        soft = rng.dirichlet(np.ones(6), size=5)
        items = [f"id{i}" for i in range(5)]
        f = write_lewidi_predictions(tmp_path / "csc_test_soft.tsv", soft, year=2025, items=items)
        sub = read_lewidi_predictions(f, year=2025)
        assert sub.items == tuple(items)
        np.testing.assert_array_equal(sub.soft, soft)
        multi = rng.dirichlet([1, 1], size=(4, 3))
        f = write_lewidi_predictions(tmp_path / "ven.tsv", multi, year=2025, items="abcd")
        np.testing.assert_array_equal(read_lewidi_predictions(f, year=2025).soft, multi)

    def test_round_trip_2025_perspectivist(self, tmp_path: Path) -> None:
        labels = np.array([[1, 0, 1], [0, 1, np.nan]])
        f = write_lewidi_predictions(
            tmp_path / "pe.tsv", labels, year=2025, task="pe", items=[7, 8]
        )
        assert f.read_text() == "7\t[1, 0, 1]\n8\t[0, 1]\n"
        sub = read_lewidi_predictions(f, year=2025, task="pe")
        np.testing.assert_array_equal(sub.labels, labels)
        multi = np.array([[[1, 0], [0, 0], [1, 1]]])
        f = write_lewidi_predictions(
            tmp_path / "ven_pe.tsv", multi, year=2025, task="pe", items=[1]
        )
        assert f.read_text() == "1\t[[1, 0], [0, 0], [1, 1]]\n"

    def test_errors(self, tmp_path: Path) -> None:
        with pytest.raises(DataError, match="need one item id per row"):
            write_lewidi_predictions(tmp_path / "x.tsv", [[0.5, 0.5]], year=2025)
        with pytest.raises(DataError, match="one label per row"):
            write_lewidi_predictions(tmp_path / "x.tsv", [[0.5, 0.5]], year=2023, hard=[1, 0])
        with pytest.raises(DataError, match=r"non-empty \(N, K\) or \(N, L, K\)"):
            write_lewidi_predictions(tmp_path / "x.tsv", [0.5, 0.5], year=2023)
        with pytest.raises(ValueError, match="LeWiDi 2023 files hold one"):
            write_lewidi_predictions(tmp_path / "x.tsv", [[1, 0]], year=2023, task="pe")


class TestTargets2023:
    def test_binary_tasks_are_the_proportions(self):
        lc = LabelCounts.from_array([[3, 1], [0, 2]], scale=Scale.nominal([0, 1]))
        np.testing.assert_array_equal(targets_2023(lc), lc.proportions())

    def test_convabuse_is_abusive_or_not(self):
        # columns -3 -2 -1 0 1: abusive = severity < 0
        lc = LabelCounts.from_array([[1, 0, 2, 0, 1], [0, 0, 0, 1, 3]], scale=CONVABUSE_SCALE)
        np.testing.assert_array_equal(targets_2023(lc), [[0.25, 0.75], [1.0, 0.0]])

    def test_scores_with_the_official_cross_entropy(self):
        lc = LabelCounts.from_array([[0, 0, 1, 1, 0]], scale=CONVABUSE_SCALE)
        got = cross_entropy_2023(targets_2023(lc), [[0.5, 0.5]])
        assert got == pytest.approx(-np.log(0.5 + 1e-9))

    def test_refuses_other_scales_and_empty_items(self):
        with pytest.raises(DataError, match="binary labels"):
            targets_2023(LabelCounts.from_array([[1, 1]], scale=Scale.nominal(["a", "b"])))
        with pytest.raises(DataError, match="binary labels"):
            targets_2023(LabelCounts.from_array([[1, 1, 1]], scale=Scale.ordinal([1, 2, 3])))
        with pytest.raises(DataError, match="1 items have no annotations"):
            targets_2023(LabelCounts.from_array([[0, 0], [1, 0]], scale=Scale.nominal([0, 1])))


class TestWriterIsAtomic:
    def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(self, tmp_path, monkeypatch):
        target = tmp_path / "ArMIS_results.tsv"
        target.write_text("old\n")

        def full(fd: int) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(os, "fsync", full)
        with pytest.raises(OutputError, match="No space left on device"):
            write_lewidi_predictions(target, [[0.5, 0.5]], year=2023)
        monkeypatch.undo()
        assert [p.name for p in tmp_path.iterdir()] == ["ArMIS_results.tsv"]
        assert target.read_text() == "old\n"
