import numpy as np
import pandas as pd
import pytest

from dissensus.allocate import default_objective, expected_gain, next_items
from dissensus.data import LabelCounts, Scale
from dissensus.metrics import get_metric


class TestExpectedGain:
    def test_cross_entropy_closed_form(self):
        rng = np.random.default_rng(0)
        alpha = rng.integers(0, 6, size=(50, 4)) + 1.0
        qa = rng.dirichlet(np.ones(4), 50)
        qb = rng.dirichlet(np.ones(4), 50)
        g = expected_gain(alpha, [qa, qb], metric="E[cross_entropy]")
        d = np.log(qb) - np.log(qa)
        m = alpha / alpha.sum(axis=1, keepdims=True)
        var = (m * d**2).sum(axis=1) - (m * d).sum(axis=1) ** 2
        np.testing.assert_allclose(g, var / (alpha.sum(axis=1) + 1) ** 2, rtol=1e-10)

    def test_matches_brute_force_variance_reduction(self):
        # Var before - E_j Var after, both by Monte Carlo, for E[emd] (the
        # gain itself is exact): agree within Monte Carlo error
        rng = np.random.default_rng(1)
        alpha = np.array([[1.0, 2.0, 1.0]])
        qa = np.array([[0.6, 0.3, 0.1]])
        qb = np.array([[0.1, 0.3, 0.6]])
        emd = get_metric("emd").func

        def var(a, draws=400_000):
            p = rng.dirichlet(a[0], draws)
            return np.var(emd(p, np.repeat(qa, draws, 0)) - emd(p, np.repeat(qb, draws, 0)))

        w = alpha[0] / alpha.sum()
        after = sum(w[j] * var(alpha + np.eye(3)[j]) for j in range(3))
        brute = var(alpha) - after
        g = expected_gain(alpha, [qa, qb], metric="E[emd]")[0]
        # each variance carries ~1e-4 of Monte Carlo error at 400k draws
        assert g == pytest.approx(brute, abs=6e-4)

    def test_identical_models_gain_nothing(self):
        q = np.full((3, 3), 1 / 3)
        g = expected_gain(np.ones((3, 3)), [q, q], metric="E[emd]")
        np.testing.assert_allclose(g, 0.0, atol=1e-15)

    def test_monte_carlo_path_for_metrics_without_expected_form(self):
        alpha = np.array([[1.0, 1.0, 1.0], [30.0, 30.0, 30.0]])
        qa = np.array([[0.7, 0.2, 0.1]] * 2)
        qb = np.array([[0.1, 0.2, 0.7]] * 2)
        g1 = expected_gain(alpha, [qa, qb], metric="chebyshev", n_samples=4000, seed=3)
        g2 = expected_gain(alpha, [qa, qb], metric="chebyshev", n_samples=4000, seed=3)
        np.testing.assert_array_equal(g1, g2)
        assert g1[0] > 10 * g1[1]

    def test_needs_two_models(self):
        with pytest.raises(ValueError, match="two or more"):
            expected_gain(np.ones((2, 2)), [np.full((2, 2), 0.5)])


class TestNextItems:
    def test_planted_case(self):
        # items 0-49: the models agree (nothing to learn); 50-99: they differ
        rng = np.random.default_rng(0)
        counts = rng.multinomial(3, [0.3, 0.4, 0.3], size=100)
        a = np.full((100, 3), 1 / 3)
        b = a.copy()
        b[50:] = [0.7, 0.2, 0.1]
        lc = LabelCounts.from_array(counts, items=[f"i{k}" for k in range(100)])
        out = next_items(lc, {"a": a, "b": b}, metric="E[emd]", budget=20)
        assert len(out) == 20
        assert out["item"].str.slice(1).astype(int).min() >= 50
        assert out["rank"].tolist() == list(range(1, 21))
        assert out["expected_gain"].is_monotonic_decreasing
        assert set(out["item"]) <= set(lc.items)

    def test_aligns_dataframes_by_item(self):
        lc = LabelCounts.from_array([[2, 0], [1, 1], [0, 5]], items=["x", "y", "z"])
        a = pd.DataFrame({"item": ["z", "y", "x"], 0: [0.5, 0.5, 0.5], 1: [0.5, 0.5, 0.5]})
        b = pd.DataFrame({"item": ["x", "y", "z"], 0: [0.9, 0.9, 0.9], 1: [0.1, 0.1, 0.1]})
        out = next_items(lc, {"a": a, "b": b}, metric="E[manhattan]", budget=3)
        assert out["item"].iloc[-1] == "z"  # the most annotated item is last

    def test_errors(self):
        q = np.full((2, 2), 0.5)
        with pytest.raises(ValueError, match="two or more"):
            next_items([[1, 1], [2, 0]], {"a": q})
        with pytest.raises(ValueError, match="'budget' parameter"):
            next_items([[1, 1], [2, 0]], {"a": q, "b": q}, budget=3)
        with pytest.raises(TypeError, match="map model names"):
            next_items([[1, 1], [2, 0]], [q, q])  # type: ignore[arg-type]


class TestDefaultObjective:
    @pytest.mark.parametrize(
        ("scale", "objective"),
        [
            (Scale.ordinal([1, 2, 3, 4, 5]), "E[rps]"),
            (Scale.nominal(["a", "b", "c"]), "E[squared_euclidean]"),
            (Scale.ordinal([0, 1]), "E[squared_euclidean]"),  # K = 2: one objective
        ],
    )
    def test_by_scale(self, scale, objective):
        assert default_objective(scale) == objective

    def test_next_items_uses_it(self):
        rng = np.random.default_rng(3)
        counts = LabelCounts.from_array(
            rng.integers(0, 4, size=(30, 5)), scale=Scale.ordinal([1, 2, 3, 4, 5])
        )
        preds = {m: rng.dirichlet(np.ones(5), 30) for m in ("a", "b")}
        chosen = next_items(counts, preds, budget=10)
        explicit = next_items(counts, preds, metric="E[rps]", budget=10)
        other = next_items(counts, preds, metric="E[emd]", budget=10)
        pd.testing.assert_frame_equal(chosen, explicit)
        assert not np.allclose(chosen["expected_gain"], other["expected_gain"])
