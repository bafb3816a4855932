"""Tests of dissensus.aggregation._ordinal: planted biases, unbiased crowds, few items."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from dissensus import Annotations, DataError
from dissensus.aggregation import ConvergenceWarning, dawid_skene, ordinal_dawid_skene
from dissensus.aggregation._dawid_skene import _m_step_probit, _offsets, _probit_parts

PRIOR = [0.15, 0.25, 0.25, 0.2, 0.15]


def _ordinal_crowd(
    seed: int, *, n_items: int, bias: list[float], noise: list[float], per_item: int
) -> tuple[Annotations, np.ndarray]:
    """Annotators who see truth + bias + noise * N(0, 1) and answer the nearest label."""
    rng = np.random.default_rng(seed)
    K, R = len(PRIOR), len(bias)
    truth = rng.choice(K, size=n_items, p=PRIOR)
    who = np.argsort(rng.random((n_items, R)), axis=1)[:, :per_item]
    items = np.repeat(np.arange(n_items), per_item)
    raters = who.ravel()
    u = truth[items] + np.asarray(bias)[raters]
    u = u + np.asarray(noise)[raters] * rng.standard_normal(items.size)
    answers = np.clip(np.ceil(u - 0.5), 0, K - 1).astype(np.int64)
    df = pd.DataFrame({"task": items, "worker": [f"w{r}" for r in raters], "label": answers})
    ann = Annotations.from_frame(df, item="task", annotator="worker", scale=list(range(K)))
    return ann, truth[ann.items.to_numpy()]


def _by_worker(series: pd.Series, R: int) -> np.ndarray:
    return series.loc[[f"w{r}" for r in range(R)]].to_numpy()


class TestOrdinalDawidSkene:
    def test_recovers_planted_biases_within_monte_carlo_error(self) -> None:
        bias = [-0.3, 0.0, 0.35, 0.6, -0.65]
        noise = [0.35, 0.5, 0.7, 0.45, 0.6]
        est_b, est_s = [], []
        for seed in range(4):
            ann, _ = _ordinal_crowd(seed, n_items=800, bias=bias, noise=noise, per_item=3)
            fit = ordinal_dawid_skene(ann)
            est_b.append(_by_worker(fit.bias, 5))
            est_s.append(_by_worker(fit.noise, 5))
        for est, planted in ((np.array(est_b), bias), (np.array(est_s), noise)):
            # the spread over the four replications measures the Monte Carlo error
            se = est.std(axis=0, ddof=1) / 2.0
            assert (np.abs(est.mean(axis=0) - planted) < 4 * se + 0.03).all(), (est, planted)

    def test_unbiased_annotators(self) -> None:
        ann, truth = _ordinal_crowd(11, n_items=1500, bias=[0.0] * 4, noise=[0.5] * 4, per_item=3)
        fit = ordinal_dawid_skene(ann)
        assert np.abs(fit.bias.to_numpy()).max() < 0.06
        np.testing.assert_allclose(fit.noise.to_numpy(), 0.5, atol=0.06)
        # equal annotators weigh equally: the posterior mode is the item's mean answer
        # rounded whenever the answers agree enough to leave no doubt
        mean_answer = ann.counts().values @ np.arange(5) / 3
        sure = np.abs(mean_answer - np.rint(mean_answer)) < 0.2
        assert (fit.labels.to_numpy()[sure] == np.rint(mean_answer[sure])).all()
        assert (fit.labels.to_numpy() == truth).mean() > 0.8

    def test_beats_dawid_skene_on_few_items(self) -> None:
        # 30 items x 5 annotators: Dawid-Skene fits 20 parameters per annotator from 30
        # answers, the ordinal model 2
        bias, noise = [-0.3, 0.0, 0.35, 0.6, -0.65], [0.35, 0.5, 0.7, 0.45, 0.6]
        errors = []
        for seed in range(8):
            ann, truth = _ordinal_crowd(100 + seed, n_items=30, bias=bias, noise=noise, per_item=5)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                o = ordinal_dawid_skene(ann).labels.to_numpy().astype(int)
                d = dawid_skene(ann).labels.to_numpy().astype(int)
            errors.append((np.abs(o - truth).mean(), np.abs(d - truth).mean()))
        ordinal_mae, ds_mae = np.mean(errors, axis=0)
        assert ordinal_mae < 0.5 * ds_mae, (ordinal_mae, ds_mae)

    def test_m_step_is_the_maximum(self) -> None:
        # Newton in (beta, lambda) against a generic optimiser of the same objective
        rng = np.random.default_rng(3)
        W = rng.gamma(1.0, size=(3, 4, 4)) + 5 * np.eye(4)[None]
        beta, lam = _m_step_probit(W, np.zeros(3), np.ones(3))
        t_hi, t_lo = _offsets(4)
        for r in range(3):

            def neg(x: np.ndarray, r: int = r) -> float:
                return float(-_probit_parts(x[:1], x[1:], W[r : r + 1], t_hi, t_lo)[0][0])

            ref = optimize.minimize(neg, [0.0, 1.0], method="Nelder-Mead",
                                    options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})  # fmt: skip
            np.testing.assert_allclose([beta[r], lam[r]], ref.x, atol=1e-5)
            _, grad, _, _ = _probit_parts(beta[r : r + 1], lam[r : r + 1], W[r : r + 1], t_hi, t_lo)
            assert np.abs(grad).max() < 1e-8

    def test_em_invariants(self) -> None:
        ann, _ = _ordinal_crowd(5, n_items=200, bias=[0.2, -0.2, 0.0], noise=[0.5] * 3, per_item=3)
        fit = ordinal_dawid_skene(ann)
        np.testing.assert_allclose(fit.posterior.sum(axis=1), 1.0)
        np.testing.assert_allclose(fit.confusion.sum(axis=2), 1.0)
        ll = np.asarray(fit.log_likelihood)
        assert (np.diff(ll) >= -1e-10).all()
        table = fit.reliability()
        assert list(table.columns) == [
            "n_annotations", "accuracy", "mean_recall", "spamminess", "bias", "noise",
        ]  # fmt: skip
        assert table["n_annotations"].sum() == 600

    def test_random_init_is_seeded(self) -> None:
        ann, _ = _ordinal_crowd(6, n_items=100, bias=[0.2, -0.2, 0.0], noise=[0.5] * 3, per_item=3)
        a = ordinal_dawid_skene(ann, init="random", seed=7)
        b = ordinal_dawid_skene(ann, init="random", seed=7)
        assert a.posterior.to_numpy().tobytes() == b.posterior.to_numpy().tobytes()

    def test_nominal_scale_refused(self) -> None:
        df = pd.DataFrame({"item": [1, 1], "annotator": ["a", "b"], "label": ["x", "y"]})
        with pytest.raises(DataError, match=r"ordered scale.*use dawid_skene"):
            ordinal_dawid_skene(Annotations.from_frame(df, ordered=False))

    def test_not_converged_warns(self) -> None:
        ann, _ = _ordinal_crowd(7, n_items=60, bias=[0.2, -0.2, 0.0], noise=[0.5] * 3, per_item=3)
        with pytest.warns(ConvergenceWarning, match="ordinal_dawid_skene stopped after 1"):
            assert not ordinal_dawid_skene(ann, n_iter=1).converged
