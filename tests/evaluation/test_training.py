"""Tests of dissensus.evaluation._training: score_counts and the Hugging Face compute_metrics."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

from dissensus import DataError, LabelCounts, Scale
from dissensus.evaluation import evaluate, hf_compute_metrics, score_counts
from dissensus.metrics import expected, get_metric
from dissensus.posterior import dirichlet

#: The shape of transformers.EvalPrediction, without importing transformers.
EvalPrediction = namedtuple("EvalPrediction", ["predictions", "label_ids"])


def _data(seed: int = 0, N: int = 40, K: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    counts = np.stack([rng.multinomial(n, np.full(K, 1 / K)) for n in rng.integers(2, 7, size=N)])
    logits = rng.normal(scale=2.0, size=(N, K))
    return counts, logits


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


METRICS = ["cross_entropy", "emd", "E[emd]", "E[squared_euclidean]", "debiased[emd]",
           "debiased[squared_euclidean]", "debiased[rps]"]  # fmt: skip


class TestScoreCounts:
    @pytest.mark.parametrize("name", METRICS)
    def test_same_scores_as_evaluate(self, name: str) -> None:
        counts, logits = _data()
        q = _softmax(logits)
        lc = LabelCounts.from_array(counts, scale=Scale.ordinal(list(range(5))))
        ev = evaluate(lc, {"m": q}, metrics=[name])
        np.testing.assert_array_equal(score_counts(name, counts, q), ev.values[0, 0])

    def test_each_kind_has_its_target(self) -> None:
        counts, logits = _data(seed=1)
        q = _softmax(logits)
        p = counts / counts.sum(axis=1, keepdims=True)
        np.testing.assert_array_equal(score_counts("emd", counts, q), get_metric("emd")(p, q))
        alpha = dirichlet(counts, prior=2.0)
        np.testing.assert_array_equal(
            score_counts("E[emd]", counts, q, prior=2.0), expected.emd(alpha, q)
        )

    def test_item_without_annotation_is_refused_by_a_pointwise_metric(self) -> None:
        counts = np.array([[1, 1], [0, 0]])
        with pytest.raises(DataError, match=r"rows 1.*'E\[emd\]'"):
            score_counts("emd", counts, [[0.5, 0.5], [0.5, 0.5]])
        assert np.isfinite(score_counts("E[emd]", counts, [[0.5, 0.5], [0.5, 0.5]])).all()

    def test_fractional_counts_are_refused(self) -> None:
        with pytest.raises(DataError, match="counts"):
            score_counts("emd", [[0.5, 0.5]], [[0.5, 0.5]])

    def test_unary_metric_is_refused(self) -> None:
        with pytest.raises(ValueError, match="target only"):
            score_counts("entropy", [[1, 1]], [[0.5, 0.5]])


class TestHfComputeMetrics:
    def test_means_of_the_metrics_from_logits(self) -> None:
        counts, logits = _data(seed=2)
        got = hf_compute_metrics(METRICS)(EvalPrediction(logits, counts))
        assert list(got) == METRICS
        q = _softmax(logits)
        for name in METRICS:
            assert got[name] == pytest.approx(score_counts(name, counts, q).mean(), rel=1e-12)
            assert isinstance(got[name], float)

    def test_tuple_probabilities_and_a_counts_key(self) -> None:
        counts, logits = _data(seed=3)
        q = _softmax(logits)
        ref = hf_compute_metrics("E[emd]")(EvalPrediction(logits, counts))
        probs = hf_compute_metrics("E[emd]", input_type="probs", counts_key="counts")
        assert probs((q, {"counts": counts})) == pytest.approx(ref, rel=1e-12)
        # a tuple of model outputs: the logits come first
        by_index = hf_compute_metrics("E[emd]", counts_key=1)
        assert by_index(((logits, np.zeros(3)), (np.zeros(3), counts))) == pytest.approx(
            ref, rel=1e-12
        )

    def test_large_logits_are_stable(self) -> None:
        got = hf_compute_metrics(["emd", "E[emd]"])(
            (np.array([[1000.0, 0.0, -1000.0]]), np.array([[2, 0, 0]]))
        )
        assert got["emd"] == 0.0
        assert np.isfinite(got["E[emd]"])

    def test_bad_inputs_are_named(self) -> None:
        with pytest.raises(ValueError, match="Unknown metric"):
            hf_compute_metrics(["emdd"])
        with pytest.raises(ValueError, match="input_type"):
            hf_compute_metrics(input_type="softmax")  # type: ignore[arg-type]
        compute = hf_compute_metrics("emd", counts_key="counts")
        with pytest.raises(DataError, match=r"no entry 'counts'.*\['labels'\]"):
            compute((np.zeros((1, 2)), {"labels": np.array([[1, 1]])}))
        with pytest.raises(TypeError, match="EvalPrediction"):
            hf_compute_metrics("emd")(np.zeros((2, 2)))
