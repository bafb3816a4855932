"""Tests of dissensus.aggregation._mace against crowd-kit and planted spammers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps
from crowdkit.aggregation import MACE

from dissensus import Annotations, DataError
from dissensus.aggregation import ConvergenceWarning, mace
from dissensus.aggregation._em import data_codes
from dissensus.aggregation._mace import _fit


def _spam_crowd(
    seed: int, *, n_items: int, competence: list[float], per_item: int, K: int
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """MACE's generative story with planted competence and spamming distributions.

    Rows are sorted by worker then label, so that crowd-kit's factorized and
    sorted orders of workers and labels agree (its M-step mixes the two).
    """
    rng = np.random.default_rng(seed)
    R = len(competence)
    theta = np.asarray(competence)
    xi = rng.dirichlet(np.full(K, 2.0), size=R)
    truth = rng.integers(0, K, size=n_items)
    who = np.argsort(rng.random((n_items, R)), axis=1)[:, :per_item]
    items = np.repeat(np.arange(n_items), per_item)
    raters = who.ravel()
    spam = rng.random(items.size) >= theta[raters]
    spam_answer = (rng.random(items.size)[:, None] > xi[raters].cumsum(axis=1)).sum(axis=1)
    answers = np.where(spam, spam_answer, truth[items])
    df = pd.DataFrame({"task": items, "worker": [f"w{r:02d}" for r in raters], "label": answers})
    return df.sort_values(["worker", "label"], kind="stable").reset_index(drop=True), truth, xi


def _ann(df: pd.DataFrame) -> Annotations:
    return Annotations.from_frame(df, item="task", annotator="worker", label="label")


def _crowdkit_start(R: int, K: int, noise: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """crowd-kit's start: U(1, 1 + 1 + noise) draws, seed 0, normalised ([spam, know])."""
    spam = sps.uniform(1, 1 + noise).rvs(size=(R, 2), random_state=0)
    xi = sps.uniform(1, 1 + noise).rvs(size=(R, K), random_state=0)
    return spam / spam.sum(1, keepdims=True), xi / xi.sum(1, keepdims=True)


class TestMace:
    @pytest.mark.parametrize("method", ["em", "vb"])
    @pytest.mark.parametrize("n_iter", [1, 10])
    def test_each_step_equals_crowdkit(self, method: str, n_iter: int) -> None:
        # crowd-kit settings matched: one restart (its restarts all start from the same
        # seed), its U(1, 2.5) start, smoothing 0.01 / K, priors (0.5, 0.5) and 10.
        df, _, _ = _spam_crowd(0, n_items=150, competence=[0.9, 0.7, 0.5, 0.2], per_item=3, K=3)
        ref = MACE(n_restarts=1, n_iter=n_iter, method=method).fit(df)
        ann = _ann(df)
        d = data_codes("mace", ann, n_iter=n_iter, tol=0.0)
        spam0, xi0 = _crowdkit_start(d.R, d.K)
        run, theta, _ = _fit(
            d, spam0[:, ::-1].copy(), xi0, method=method, n_iter=n_iter, tol=0.0,
            smoothing=0.01 / d.K, competence_prior=(0.5, 0.5), strategy_prior=10.0,
        )  # fmt: skip
        T = run.T
        assert len(run.history) == n_iter
        assert ref.probas_ is not None
        P = ref.probas_.loc[ann.items, list(ann.scale.labels)].to_numpy()
        np.testing.assert_allclose(T, P, atol=1e-10)
        np.testing.assert_allclose(theta[:, ::-1], ref.spamming_, rtol=1e-10)

    def test_converged_fit_is_a_fixed_point_of_crowdkit_em(self) -> None:
        df, _, _ = _spam_crowd(1, n_items=200, competence=[0.9, 0.8, 0.6, 0.1], per_item=3, K=3)
        fit = mace(_ann(df), tol=1e-11, n_restarts=2)
        assert fit.converged
        ref = MACE(method="em")
        workers, worker_names = pd.factorize(df["worker"])
        labels, label_names = pd.factorize(df["label"])
        tasks, task_names = pd.factorize(df["task"])
        ref.smoothing_ = 0.01 / len(label_names)
        ref.spamming_ = np.column_stack([1 - fit.competence, fit.competence])[
            fit.annotators.get_indexer(worker_names)
        ]
        ref.thetas_ = fit.strategy.loc[worker_names, label_names].to_numpy()
        args = (df.copy(), task_names, worker_names, label_names, tasks, workers, labels)
        _, _, strategy_counts, knowing_counts = ref._e_step(*args)
        ref._m_step(knowing_counts, strategy_counts)
        _, gold, _, _ = ref._e_step(*args)
        P = gold.div(gold.sum(axis=1), axis=0).loc[fit.posterior.index, fit.posterior.columns]
        np.testing.assert_allclose(P.to_numpy(), fit.posterior.to_numpy(), atol=1e-8)
        np.testing.assert_allclose(ref.spamming_[:, 1], fit.competence.loc[worker_names], atol=1e-8)

    def test_recovers_planted_spammers(self) -> None:
        planted = [0.95, 0.85, 0.7, 0.5, 0.2, 0.0]
        df, truth, _ = _spam_crowd(2, n_items=1500, competence=planted, per_item=4, K=4)
        fit = mace(_ann(df), n_restarts=3)
        table = fit.reliability()
        est = table.loc[[f"w{r:02d}" for r in range(6)], "competence"].to_numpy()
        n_a = table.loc[[f"w{r:02d}" for r in range(6)], "n_annotations"].to_numpy()
        se = np.sqrt(np.maximum(np.asarray(planted) * (1 - np.asarray(planted)), 0.05) / n_a)
        assert (np.abs(est - planted) < 4 * se + 0.02).all(), (est, planted)
        assert list(table.sort_values("competence").index[:2]) == ["w05", "w04"]
        accuracy = (fit.labels.to_numpy() == truth[fit.posterior.index.to_numpy()]).mean()
        assert accuracy > 0.9

    def test_vb_is_seeded_and_sane(self) -> None:
        df, _, _ = _spam_crowd(3, n_items=300, competence=[0.9, 0.8, 0.1], per_item=3, K=2)
        a = mace(_ann(df), method="vb", seed=5, n_restarts=2)
        b = mace(_ann(df), method="vb", seed=5, n_restarts=2)
        assert a.posterior.to_numpy().tobytes() == b.posterior.to_numpy().tobytes()
        np.testing.assert_allclose(a.posterior.sum(axis=1), 1.0)
        assert a.competence.idxmin() == "w02"

    def test_em_invariants(self) -> None:
        df, _, _ = _spam_crowd(4, n_items=200, competence=[0.9, 0.6, 0.3], per_item=3, K=3)
        fit = mace(_ann(df), n_restarts=3)
        np.testing.assert_allclose(fit.strategy.sum(axis=1), 1.0)
        ll = np.asarray(fit.log_likelihood)
        assert (np.diff(ll) >= -1e-9).all()  # smoothing is a prior: tiny slack
        assert len(fit.restart_log_likelihoods) == 3
        assert max(fit.restart_log_likelihoods) == ll[-1]

    def test_not_converged_warns(self) -> None:
        df, _, _ = _spam_crowd(5, n_items=60, competence=[0.8, 0.6, 0.5], per_item=3, K=2)
        with pytest.warns(ConvergenceWarning, match="mace stopped after 1 iterations"):
            assert not mace(_ann(df), n_iter=1, n_restarts=1).converged

    def test_needs_annotator_ids(self) -> None:
        df = pd.DataFrame({"item": [1, 1], "label": ["x", "y"]})
        with pytest.raises(DataError, match="needs annotator ids"):
            mace(Annotations.from_frame(df, annotator=None))

    @pytest.mark.parametrize(
        ("option", "value", "message"),
        [
            ("method", "gibbs", "'method' parameter of mace must be one of"),
            ("n_restarts", 0, "'n_restarts' parameter of mace must be at least 1"),
            ("smoothing", -1.0, "'smoothing' parameter of mace"),
            ("init_noise", float("inf"), "'init_noise' parameter of mace"),
        ],
    )
    def test_bad_options(self, option: str, value: object, message: str) -> None:
        df = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": ["x", "y"]})
        with pytest.raises(ValueError, match=message):
            mace(Annotations.from_frame(df), **{option: value})  # type: ignore[arg-type]

    def test_vb_priors_must_be_positive(self) -> None:
        df = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": ["x", "y"]})
        with pytest.raises(ValueError, match="must be > 0"):
            mace(Annotations.from_frame(df), method="vb", strategy_prior=0.0)
