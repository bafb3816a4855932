"""Tests of dissensus.metrics.variation: corrected item entropy, entropy correlation, soft F1."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dissensus._exceptions import DataError
from dissensus.evaluation import evaluate
from dissensus.metrics import REGISTRY, entropy, get_metric, list_metrics
from dissensus.metrics.variation import (
    entropy_correlation,
    entropy_correlation_corrected,
    entropy_jackknife,
    entropy_miller_madow,
    soft_f1,
    soft_precision,
    soft_recall,
    split_halves,
)
from dissensus.simulate.entropy_bias import exact_bias


def _brute_jackknife(c: np.ndarray) -> float:
    """Leave each annotation out in turn (the textbook jackknife), one item."""
    labels = np.repeat(np.arange(c.size), c)
    n = labels.size
    full = stats.entropy(c / n)
    loo = [
        stats.entropy(np.bincount(np.delete(labels, i), minlength=c.size) / (n - 1))
        for i in range(n)
    ]
    return float(n * full - (n - 1) * np.mean(loo))


class TestItemEntropy:
    def test_plug_in_matches_scipy(self) -> None:
        C = np.random.default_rng(0).multinomial(7, [0.5, 0.3, 0.15, 0.05], size=50)
        P = C / 7
        np.testing.assert_allclose(entropy(P), stats.entropy(P, axis=1), atol=1e-12)
        np.testing.assert_allclose(entropy(P, base=2), stats.entropy(P, base=2, axis=1), atol=1e-12)

    def test_jackknife_is_the_leave_one_out_jackknife(self) -> None:
        C = np.random.default_rng(1).multinomial(6, [0.6, 0.3, 0.1], size=40)
        expected = [_brute_jackknife(c) for c in C]
        np.testing.assert_allclose(entropy_jackknife(C), expected, atol=1e-12)

    def test_miller_madow_formula_and_base(self) -> None:
        C = np.array([[3, 1, 0], [2, 2, 2], [4, 0, 0]])
        n = C.sum(axis=1)
        m = (C > 0).sum(axis=1)
        want = stats.entropy(C / n[:, None], axis=1) + (m - 1) / (2 * n)
        np.testing.assert_allclose(entropy_miller_madow(C), want)
        np.testing.assert_allclose(entropy_miller_madow(C, base=2), want / np.log(2))

    def test_one_annotation_jackknife_is_nan(self) -> None:
        out = entropy_jackknife([[1, 0], [1, 1]])
        assert np.isnan(out[0])
        assert out[1] == pytest.approx(2 * np.log(2))

    def test_empty_item_refused(self) -> None:
        with pytest.raises(DataError, match="no annotation"):
            entropy_miller_madow([[0, 0], [1, 1]])

    @pytest.mark.parametrize(
        ("n", "pi"),
        [
            (2, [0.5, 0.5]),
            (3, [0.7, 0.2, 0.1]),
            (5, [0.25, 0.25, 0.25, 0.25]),
            (4, [0.9, 0.025, 0.025, 0.025, 0.025]),
            (10, [0.4, 0.3, 0.2, 0.1]),
        ],
    )
    def test_exact_bias_below_plug_in(self, n: int, pi: list[float]) -> None:
        b = exact_bias(n, pi)
        assert b["plug_in"] < 0  # the plug-in is biased low
        assert abs(b["miller_madow"]) < abs(b["plug_in"])
        assert abs(b["jackknife"]) < abs(b["plug_in"])

    def test_exact_bias_against_a_hand_sum(self) -> None:
        # n = 2, fair coin: E[H(p̂)] = ln 2 / 2, E[jackknife] = ln 2 (unbiased)
        b = exact_bias(2, [0.5, 0.5])
        assert b["plug_in"] == pytest.approx(-np.log(2) / 2)
        assert b["jackknife"] == pytest.approx(0.0, abs=1e-12)
        assert b["miller_madow"] == pytest.approx(-np.log(2) / 2 + 0.125)


class TestCorpusMeasures:
    def test_entropy_correlation_is_pearson(self) -> None:
        rng = np.random.default_rng(2)
        p, q = rng.dirichlet(np.ones(3), 30), rng.dirichlet(np.ones(3), 30)
        want = stats.pearsonr(stats.entropy(p, axis=1), stats.entropy(q, axis=1))[0]
        assert entropy_correlation(p, q) == pytest.approx(want)

    def test_correction_undoes_attenuation(self) -> None:
        rng = np.random.default_rng(3)
        pi = rng.dirichlet(np.full(3, 0.7), 3000)
        q = 0.8 * pi + 0.2 / 3
        C = rng.multinomial(8, pi)
        truth = entropy_correlation(pi, q)
        plug = entropy_correlation(C / 8, q)
        corrected = entropy_correlation_corrected(C, q)
        assert plug < truth - 0.1  # attenuated
        assert abs(corrected - truth) < abs(plug - truth) / 2

    def test_correction_is_nan_without_two_per_half(self) -> None:
        C = np.random.default_rng(4).multinomial(3, [0.5, 0.3, 0.2], size=50)
        assert np.isnan(entropy_correlation_corrected(C, np.full((50, 3), 1 / 3) + 0))

    def test_split_halves(self) -> None:
        C = np.random.default_rng(5).multinomial(7, [0.5, 0.3, 0.2], size=40)
        A, B = split_halves(C, n_splits=3, seed=1)
        assert A.shape == B.shape == (3, 40, 3)
        np.testing.assert_array_equal(A + B, np.broadcast_to(C, A.shape))
        assert (A.sum(axis=2) == 3).all()
        assert (A >= 0).all()
        assert (B >= 0).all()
        again, _ = split_halves(C, n_splits=3, seed=1)
        np.testing.assert_array_equal(A, again)

    def test_correction_needs_two_annotations(self) -> None:
        with pytest.raises(DataError, match="one annotation"):
            entropy_correlation_corrected([[1, 0], [2, 1], [1, 2]], [[0.5, 0.5]] * 3)

    def test_soft_scores(self) -> None:
        p = np.array([[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]])
        q = np.array([[0.7, 0.3], [0.6, 0.4], [0.2, 0.8]])
        tv = 0.5 * np.abs(p - q).sum(axis=1).mean()
        for f in (soft_precision, soft_recall, soft_f1):
            assert f(p, q) == pytest.approx(1 - tv)  # micro, rows summing to one
        tp = np.minimum(p, q).sum(axis=0)
        prec, rec = (tp / q.sum(axis=0)).mean(), (tp / p.sum(axis=0)).mean()
        assert soft_precision(p, q, average="macro") == pytest.approx(prec)
        assert soft_recall(p, q, average="macro") == pytest.approx(rec)
        assert soft_f1(p, q, average="macro") == pytest.approx(2 * prec * rec / (prec + rec))
        assert soft_f1(p, p) == pytest.approx(1.0)
        with pytest.raises(ValueError, match="average"):
            soft_f1(p, q, average="weighted")  # type: ignore[arg-type]


class TestRegistry:
    def test_listing(self) -> None:
        assert list_metrics(corpus=True) == [
            "entropy_correlation",
            "soft_precision",
            "soft_recall",
            "soft_f1",
            "debiased[entropy_correlation]",
        ]
        per_item = list_metrics(unary=None)
        assert not set(per_item) & set(list_metrics(corpus=True))
        assert "debiased[entropy]" in list_metrics(unary=True, kind="debiased")
        assert len(list_metrics(unary=None, corpus=None)) == len(REGISTRY)

    def test_links_and_flags(self) -> None:
        assert get_metric("entropy").debiased == "debiased[entropy]"
        form = get_metric("debiased[entropy]")
        assert form.unary
        assert form.needs_counts
        assert form.pointwise == "entropy"
        assert get_metric("entropy_correlation").debiased == "debiased[entropy_correlation]"
        assert get_metric("soft_f1").corpus
        assert not get_metric("soft_f1").lower_is_better
        assert "corpus" in repr(get_metric("soft_f1"))

    def test_debiased_entropy_methods(self) -> None:
        C = np.array([[2, 1, 0], [1, 1, 1]])
        f = get_metric("debiased[entropy]")
        np.testing.assert_allclose(f(C), entropy_jackknife(C))
        np.testing.assert_allclose(f(C, method="miller_madow"), entropy_miller_madow(C))
        with pytest.raises(ValueError, match="method"):
            f(C, method="grassberger")

    def test_evaluate_refuses_a_corpus_metric(self) -> None:
        with pytest.raises(ValueError, match="corpus-level"):
            evaluate(
                np.array([[2, 1], [1, 2]]),
                {"a": [[0.5, 0.5]] * 2, "b": [[0.6, 0.4]] * 2},
                metrics=["soft_f1"],
            )
