r"""Gradients of metrics with respect to the prediction: the one definition training objectives use.

:func:`value_and_gradient` returns a metric's per-item values (from the
registry's function, the same numbers :func:`dissensus.evaluate` reports) and
the gradient :math:`\partial f(t_i, q_i) / \partial q_i` of each item's value
with respect to its predicted distribution (N, K), the target ``t`` (a
distribution, or Dirichlet ``alpha`` for ``E[...]``) held fixed. The linear
baselines (:mod:`dissensus.models`) train on these, so a training objective
and the metric it is named after cannot drift apart. The gradient is the
plain partial derivative in each ``q_k`` (no projection onto the simplex: the
softmax chain rule removes the component along the ones vector).

Cumulative metrics (EMD, RPS and the expected EMD), with :math:`P_k, Q_k`
the cumulative sums over the first k classes, have :math:`\partial f / \partial
q_j = \sum_{k \ge j} \partial f / \partial Q_k` (:func:`cumulative_backward`).
The derivatives (metrics at their default options):

- ``cross_entropy``: :math:`-p_k / q_k` (``inf`` where ``q_k = 0 < p_k``);
- ``squared_euclidean``: :math:`2 (q_k - p_k)`;
- ``rps``: :math:`\partial / \partial Q_k = 2 (Q_k - P_k) / (K - 1)`;
- ``emd``: :math:`\partial / \partial Q_k = \mathrm{sign}(Q_k - P_k) / (K - 1)`
  (the subgradient 0 where :math:`Q_k = P_k`);
- ``E[emd]``: :math:`\partial / \partial Q_k = (2 I_{Q_k}(A_k, B_k) - 1) / (K - 1)`,
  since :math:`\frac{d}{dc}\mathbb{E}|X - c| = 2 F_X(c) - 1 = 2 I_c(a, b) - 1`
  for :math:`X \sim \mathrm{Beta}(a, b)` (``A_k``, ``B_k``: the notation of
  :mod:`dissensus.metrics.expected`, ``Q_k`` clipped to [0, 1] as there;
  :func:`dissensus.metrics.expected.emd_gradient`);
- ``E[manhattan]``: :math:`2 I_{q_k}(\alpha_k, a_0 - \alpha_k) - 1`, the same
  derivative on the marginals (:func:`~dissensus.metrics.expected.manhattan_gradient`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from dissensus.metrics import expected
from dissensus.metrics._declare import FloatArray, pair
from dissensus.metrics._registry import Metric, get_metric

__all__ = [
    "GRADIENTS",
    "cumulative_backward",
    "gradient",
    "softmax",
    "softmax_backward",
    "value_and_gradient",
]

Gradient = Callable[[FloatArray, FloatArray], FloatArray]


def softmax(Z: FloatArray) -> FloatArray:
    r"""Row-wise softmax of scores ``Z`` (N, K), :math:`q_k = e^{z_k - m} / \sum_j e^{z_j - m}`, m the row maximum.

    The shift keeps every exponent <= 0 (no overflow; the row maximum's term is 1,
    so no row sums to 0). Computed on a contiguous (K, N) transpose (reductions
    over a small K along rows cost several times more) and returned as its
    transpose, an F-ordered (N, K) array.

    Examples
    --------
    >>> softmax(np.array([[0.0, np.log(3.0)]]))
    array([[0.25, 0.75]])
    """
    E = np.array(np.asarray(Z, dtype=np.float64).T, order="C")
    E -= E.max(axis=0)
    np.exp(E, out=E)
    E /= E.sum(axis=0)
    out: FloatArray = E.T
    return out


def softmax_backward(Q: FloatArray, G: FloatArray) -> FloatArray:
    r"""Chain ``G = dL/dq`` (N, K) through ``q = softmax(z)``: :math:`dL/dz_j = q_j (g_j - \sum_k q_k g_k)`.

    The one softmax chain rule of the linear models and of ``dissensus.torch``'s
    expected losses from logits (laid out as :func:`softmax`).

    Examples
    --------
    >>> softmax_backward(np.array([[0.25, 0.75]]), np.array([[1.0, 1.0]]))
    array([[0., 0.]])
    """
    QT, GT = Q.T, G.T
    inner = (QT * GT).sum(axis=0)
    out = GT - inner
    out *= QT
    Gz: FloatArray = out.T
    return Gz


def cumulative_backward(g: FloatArray) -> FloatArray:
    r"""Chain ``g = dL/dQ`` (N, K - 1) of the cumulative sums to ``dL/dq_j = \sum_{k >= j} g_k`` (N, K).

    Examples
    --------
    >>> cumulative_backward(np.array([[1.0, 2.0]]))
    array([[3., 2., 0.]])
    """
    G: FloatArray = np.pad(np.cumsum(g[:, ::-1], axis=1)[:, ::-1], ((0, 0), (0, 1)))
    return G


def _cross_entropy(P: FloatArray, Q: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore"):
        return -P / Q


def _squared_euclidean(P: FloatArray, Q: FloatArray) -> FloatArray:
    return 2.0 * (Q - P)


def _cumulative_difference(P: FloatArray, Q: FloatArray) -> FloatArray:
    """``Q_k - P_k`` for k = 1..K-1 (N, K - 1)."""
    out: FloatArray = np.cumsum(Q, axis=1)[:, :-1] - np.cumsum(P, axis=1)[:, :-1]
    return out


def _rps(P: FloatArray, Q: FloatArray) -> FloatArray:
    return cumulative_backward(2.0 * _cumulative_difference(P, Q) / max(P.shape[1] - 1, 1))


def _emd(P: FloatArray, Q: FloatArray) -> FloatArray:
    return cumulative_backward(np.sign(_cumulative_difference(P, Q)) / max(P.shape[1] - 1, 1))


#: The metrics with a gradient here, by registry name: ``func(target, q) -> (N, K)``.
GRADIENTS: dict[str, Gradient] = {
    "cross_entropy": _cross_entropy,
    "squared_euclidean": _squared_euclidean,
    "rps": _rps,
    "emd": _emd,
    # the expected forms' derivatives live with their values
    "E[emd]": expected.emd_gradient,
    "E[manhattan]": expected.manhattan_gradient,
}


def _resolve(metric: str | Metric) -> tuple[Metric, Gradient]:
    m = get_metric(metric)
    grad = GRADIENTS.get(m.name)
    if grad is None:
        msg = (
            f"No gradient is defined for metric {m.name!r}; metrics with one: "
            f"{', '.join(GRADIENTS)}."
        )
        raise ValueError(msg)
    return m, grad


def _checked(
    m: Metric, target: npt.ArrayLike, q_pred: npt.ArrayLike
) -> tuple[FloatArray, FloatArray]:
    if m.needs_posterior:
        return expected._inputs(target, q_pred)
    T, Q, _ = pair(target, q_pred, normalize=False)
    return T, Q


def gradient(metric: str | Metric, target: npt.ArrayLike, q_pred: npt.ArrayLike, /) -> FloatArray:
    """The gradient (N, K) of each item's metric value with respect to its prediction.

    ``metric``: a registry name with an entry in :data:`GRADIENTS`;
    ``target``: (N, K) distributions, or Dirichlet ``alpha`` for an ``E[...]``
    metric; ``q_pred``: (N, K) predictions. ValueError for a metric without a
    gradient, DataError for invalid input (the metric's own checks).

    Examples
    --------
    >>> gradient("squared_euclidean", [[1.0, 0.0]], [[0.5, 0.5]])
    array([[-1.,  1.]])
    >>> gradient("E[emd]", [[1.0, 1.0]], [[0.5, 0.5]])  # Q_1 = 0.5 is the posterior median
    array([[0., 0.]])
    """
    m, grad = _resolve(metric)
    return grad(*_checked(m, target, q_pred))


def value_and_gradient(
    metric: str | Metric, target: npt.ArrayLike, q_pred: npt.ArrayLike, /, **options: Any
) -> tuple[FloatArray, FloatArray]:
    """Each item's metric value (N,), from the registry's function, and :func:`gradient` (N, K).

    ``options`` go to the metric's function (e.g. ``n_jobs=1`` for an
    expected metric) and must not change its value: the gradient is that of
    the metric at its default options.

    Examples
    --------
    >>> v, g = value_and_gradient("rps", [[1.0, 0.0, 0.0]], [[0.5, 0.5, 0.0]])
    >>> v, g
    (array([0.125]), array([[-0.5,  0. ,  0. ]]))
    """
    m, grad = _resolve(metric)
    T, Q = _checked(m, target, q_pred)
    values = np.asarray(m.func(T, Q, **options), dtype=np.float64)
    return values, grad(T, Q)
