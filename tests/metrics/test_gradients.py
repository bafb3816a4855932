"""Tests of dissensus.metrics.gradients: each gradient is the derivative of its registered metric."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from dissensus import DataError
from dissensus.metrics import get_metric, gradients
from dissensus.metrics.gradients import GRADIENTS, cumulative_backward, gradient, value_and_gradient


def _inputs(name: str, K: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A target (distribution, or Dirichlet alpha for E[...]) with zeros, and interior predictions."""
    rng = np.random.default_rng(seed)
    N = 7
    Q = 0.8 * rng.dirichlet(np.full(K, 2.0), size=N) + 0.2 / K  # interior: steps stay >= 0
    if get_metric(name).needs_posterior:
        counts = rng.multinomial(4, np.full(K, 1 / K), size=N)
        return counts + rng.uniform(0.3, 1.5, size=(N, K)), Q
    P = rng.dirichlet(np.ones(K), size=N)
    P[0] = np.eye(K)[0]  # a one-hot target: zeros in p
    return P, Q


def _central_difference(name: str, T: np.ndarray, Q: np.ndarray, h: float) -> np.ndarray:
    """d f(t_i, q_i) / d q_ik by central differences of the registry's own code.

    Pointwise metrics: their kernel (no simplex check) at ``q +- h e_k``. Expected metrics check
    the simplex: the derivatives along ``e_k - e_K`` (inside it), returned in column k < K.
    """
    m = get_metric(name)
    N, K = Q.shape
    out = np.empty((N, K if m.kernel is not None else K - 1))
    for k in range(out.shape[1]):  # K columns, each a vectorised call over the items
        step = np.zeros(K)
        step[k] = h
        if m.kernel is None:
            step[-1] = -h
        f = m.kernel if m.kernel is not None else m.func
        out[:, k] = (f(T, Q + step) - f(T, Q - step)) / (2 * h)
    return out


@pytest.mark.parametrize("K", [2, 3, 5, 11])
@pytest.mark.parametrize("name", list(GRADIENTS))
def test_gradient_is_the_metric_derivative(name: str, K: int) -> None:
    T, Q = _inputs(name, K, seed=K)
    if name == "emd":
        # |Q_k - P_k| has a kink at equality: away from it the derivative is the sign
        Q = 0.5 * Q + 0.5 * np.roll(T, 1, axis=1)
    expect = _central_difference(name, T, Q, h=1e-6)
    G = gradient(name, T, Q)
    if expect.shape[1] < K:  # directional derivatives along e_k - e_K
        G = G[:, :-1] - G[:, -1:]
    np.testing.assert_allclose(G, expect, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", list(GRADIENTS))
def test_value_is_the_registered_metric(name: str) -> None:
    T, Q = _inputs(name, 4, seed=3)
    values, G = value_and_gradient(name, T, Q)
    np.testing.assert_array_equal(values, get_metric(name)(T, Q))
    np.testing.assert_array_equal(G, gradient(name, T, Q))


def test_cross_entropy_at_a_zero_prediction_is_infinite() -> None:
    G = gradient("cross_entropy", [[0.5, 0.5]], [[1.0, 0.0]])
    assert G[0, 0] == -0.5
    assert G[0, 1] == -np.inf


def test_cumulative_backward_sums_from_the_tail() -> None:
    g = np.array([[1.0, 2.0, 4.0]])
    np.testing.assert_array_equal(cumulative_backward(g), [[7.0, 6.0, 4.0, 0.0]])


def test_metric_without_gradient_is_named() -> None:
    with pytest.raises(
        ValueError, match=r"No gradient is defined for metric 'hellinger'.*E\[emd\]"
    ):
        gradient("hellinger", [[1.0, 0.0]], [[0.5, 0.5]])


def test_bad_input_is_the_metric_s_error() -> None:
    with pytest.raises(DataError, match="q_pred"):
        gradient("rps", [[1.0, 0.0]], [[0.5, 0.6]])


class TestSoftmax:
    def test_against_scipy(self):
        rng = np.random.default_rng(4)
        Z = rng.normal(scale=30.0, size=(500, 6))
        Z[0] = [800.0, -800.0, 0.0, 1.0, 2.0, 3.0]  # no overflow from the shift
        np.testing.assert_allclose(gradients.softmax(Z), special.softmax(Z, axis=1), rtol=1e-14)

    def test_backward_is_the_chain_rule(self):
        # against the Jacobian diag(q) - q q^T applied to G
        rng = np.random.default_rng(5)
        Z, G = rng.normal(size=(50, 4)), rng.normal(size=(50, 4))
        Q = gradients.softmax(Z)
        J = np.einsum("ij,jk->ijk", Q, np.eye(4)) - np.einsum("ij,ik->ijk", Q, Q)
        np.testing.assert_allclose(
            gradients.softmax_backward(Q, G), np.einsum("ijk,ij->ik", J, G), atol=1e-15
        )
