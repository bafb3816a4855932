"""Tests of dissensus.aggregation._dawid_skene against crowd-kit and planted annotators."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from crowdkit.aggregation import DawidSkene

from dissensus import Annotations, DataError
from dissensus.aggregation import ConvergenceWarning, dawid_skene


def _crowd(
    seed: int, *, n_items: int, accuracies: list[float], per_item: int, prior: list[float]
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Annotators with planted symmetric confusion matrices (accuracy on the diagonal).

    An accuracy of ``1 / K`` is a spammer: the same answer distribution
    whatever the truth. Returns the long table, the truth and the planted
    confusion matrices (R, K true, K answer).
    """
    rng = np.random.default_rng(seed)
    K, R = len(prior), len(accuracies)
    acc = np.asarray(accuracies)[:, None, None]
    conf = np.where(np.eye(K, dtype=bool)[None], acc, (1.0 - acc) / (K - 1))
    truth = rng.choice(K, size=n_items, p=prior)
    who = np.argsort(rng.random((n_items, R)), axis=1)[:, :per_item]  # distinct annotators
    items = np.repeat(np.arange(n_items), per_item)
    raters = who.ravel()
    cum = conf[raters, truth[items]].cumsum(axis=1)
    answers = (rng.random(items.size)[:, None] > cum).sum(axis=1)
    df = pd.DataFrame({"task": items, "worker": [f"w{r}" for r in raters], "label": answers})
    return df, truth, conf


def _ann(df: pd.DataFrame) -> Annotations:
    return Annotations.from_frame(df, item="task", annotator="worker", label="label")


class TestDawidSkene:
    @pytest.mark.parametrize("n_iter", [1, 8])
    def test_each_em_step_equals_crowdkit(self, n_iter: int) -> None:
        # Same start (majority vote), same E and M steps: after n iterations the two
        # agree up to the 1e-10 probability floor, even far from convergence.
        df, _, _ = _crowd(
            0, n_items=120, accuracies=[0.9, 0.8, 0.7, 0.6, 0.5, 0.45], per_item=4,
            prior=[0.5, 0.3, 0.2],
        )  # fmt: skip
        ref = DawidSkene(n_iter=n_iter, tol=-1.0).fit(df)  # tol < 0: run every iteration
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = dawid_skene(_ann(df), n_iter=n_iter, tol=0.0)
        assert fit.n_iter == len(ref.loss_history_) == n_iter
        labels = list(fit.posterior.columns)
        P = ref.probas_.loc[fit.posterior.index, labels].to_numpy()
        np.testing.assert_allclose(fit.posterior.to_numpy(), P, atol=1e-8)

    def test_converged_fit_is_a_fixed_point_of_crowdkit_em(self) -> None:
        # Running crowd-kit to convergence takes minutes (EM converges linearly);
        # instead: one crowd-kit EM step from our converged fit must leave it in place.
        df, _, _ = _crowd(
            6, n_items=150, accuracies=[0.95, 0.9, 0.85, 0.8], per_item=3, prior=[0.5, 0.3, 0.2]
        )
        fit = dawid_skene(_ann(df), tol=1e-10)
        assert fit.converged
        probas = fit.posterior.rename_axis(index="task")
        errors = DawidSkene._m_step(df, probas)
        again = DawidSkene._e_step(df, probas.mean(), errors)
        np.testing.assert_allclose(again.loc[probas.index].to_numpy(), probas.to_numpy(), atol=1e-8)
        labels = list(fit.posterior.columns)
        for worker in ("w0", "w3"):
            theirs = errors.loc[worker].loc[labels, labels].to_numpy().T  # (true, answer)
            np.testing.assert_allclose(fit.confusion_matrix(worker).to_numpy(), theirs, atol=1e-8)
        np.testing.assert_allclose(fit.priors.to_numpy(), probas.mean().to_numpy(), atol=1e-8)

    def test_recovers_planted_confusion_matrices(self) -> None:
        df, truth, conf = _crowd(
            1, n_items=3000, accuracies=[0.9, 0.75, 0.6, 0.5, 0.85], per_item=4,
            prior=[0.4, 0.35, 0.25],
        )  # fmt: skip
        fit = dawid_skene(_ann(df))
        order = [int(w[1:]) for w in fit.annotators]
        est = fit.confusion[np.argsort(order)]
        # each row is estimated from about n_items * per_item / R * prior_c answers
        n_row = 3000 * 4 / 5 * np.array([0.4, 0.35, 0.25])[None, :, None]
        se = np.sqrt(conf * (1 - conf) / n_row)
        assert (np.abs(est - conf) < 4 * se + 0.01).all()
        assert (fit.labels.to_numpy() == truth[fit.posterior.index.to_numpy()]).mean() > 0.9

    def test_spammer_and_reliability_table(self) -> None:
        df, _, _ = _crowd(
            2, n_items=1500, accuracies=[0.9, 0.85, 0.8, 1 / 3], per_item=3,
            prior=[1 / 3, 1 / 3, 1 / 3],
        )  # fmt: skip
        table = dawid_skene(_ann(df)).reliability()
        assert list(table.columns) == ["n_annotations", "accuracy", "mean_recall", "spamminess"]
        assert table.loc["w3", "spamminess"] > 0.85
        assert (table.drop(index="w3")["spamminess"] < 0.35).all()
        assert table.loc["w0", "accuracy"] == pytest.approx(0.9, abs=0.04)
        assert table["n_annotations"].sum() == 1500 * 3

    def test_em_invariants(self) -> None:
        df, _, _ = _crowd(3, n_items=150, accuracies=[0.8, 0.7, 0.6], per_item=3, prior=[0.6, 0.4])
        fit = dawid_skene(_ann(df))
        np.testing.assert_allclose(fit.posterior.sum(axis=1), 1.0)
        np.testing.assert_allclose(fit.confusion.sum(axis=2), 1.0)
        assert fit.priors.sum() == pytest.approx(1.0)
        ll = np.asarray(fit.log_likelihood)
        assert (np.diff(ll) >= -1e-12).all()  # EM never decreases the likelihood
        assert fit.n_iter == ll.size

    def test_random_init_is_seeded(self) -> None:
        df, _, _ = _crowd(4, n_items=100, accuracies=[0.8, 0.7, 0.6], per_item=3, prior=[0.5, 0.5])
        a = dawid_skene(_ann(df), init="random", seed=7)
        b = dawid_skene(_ann(df), init="random", seed=7)
        assert a.posterior.to_numpy().tobytes() == b.posterior.to_numpy().tobytes()

    def test_not_converged_warns(self) -> None:
        df, _, _ = _crowd(5, n_items=60, accuracies=[0.8, 0.6, 0.5], per_item=3, prior=[0.5, 0.5])
        with pytest.warns(ConvergenceWarning, match="stopped after 1 iterations"):
            fit = dawid_skene(_ann(df), n_iter=1)
        assert not fit.converged

    def test_needs_annotator_ids(self) -> None:
        df = pd.DataFrame({"item": [1, 1], "label": ["x", "y"]})
        with pytest.raises(DataError, match="needs annotator ids"):
            dawid_skene(Annotations.from_frame(df, annotator=None))

    @pytest.mark.parametrize(
        ("option", "value", "message"),
        [
            ("n_iter", 0, "'n_iter' parameter of dawid_skene must be at least 1"),
            ("tol", -1.0, "'tol' parameter of dawid_skene must be"),
            ("smoothing", float("nan"), "'smoothing' parameter of dawid_skene must be"),
            ("init", "spectral", "'init' parameter of dawid_skene must be one of"),
        ],
    )
    def test_bad_options(self, option: str, value: object, message: str) -> None:
        df = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": ["x", "y"]})
        with pytest.raises(ValueError, match=message):
            dawid_skene(Annotations.from_frame(df), **{option: value})  # type: ignore[arg-type]

    def test_unknown_annotator(self) -> None:
        df = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": ["x", "y"]})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = dawid_skene(Annotations.from_frame(df))
        with pytest.raises(KeyError, match="No annotator 'zz'"):
            fit.confusion_matrix("zz")
