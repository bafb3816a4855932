"""Linear soft-label models trained by L-BFGS with analytic gradients (C, D, E).

Notation and objective: :mod:`dissensus.models._base`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from dissensus._exceptions import DataError
from dissensus.metrics import gradients
from dissensus.models._base import Features, FloatArray, LinearModel, Targets
from dissensus.posterior import DEFAULT_PRIOR, PriorLike, dirichlet

#: Smallest probability inside a logarithm (cumulative-link differences can underflow).
_TINY = 1e-300


def _transposed(X: Features) -> Features:
    """``X.T`` as CSR for a sparse ``X`` (fast products with the gradient)."""
    return X.T.tocsr() if hasattr(X, "tocsr") else X.T


@dataclass(eq=False, repr=False, kw_only=True)
class SoftmaxRegression(LinearModel):
    r"""Multinomial linear model ``q = softmax(X W + b)`` fitted to soft targets by L-BFGS.

    The loss is the soft cross-entropy :math:`-\sum_k y_k \ln q_k` (natural
    log); subclasses replace :meth:`_loss`. Zero initial weights, so a fit
    is deterministic: the same data give the same bytes. Parameters ``C``,
    ``max_iter``, ``tol``, ``n_classes``, ``n_jobs``: see :mod:`dissensus.models`;
    fitted ``coef_`` (d, K) and ``intercept_`` (K,).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]] * 10)
    >>> Y = np.array([[0.9, 0.1], [0.2, 0.8]] * 10)
    >>> SoftmaxRegression(C=100.0).fit(X, Y).predict_proba(X[:2]).round(2)
    array([[0.9, 0.1],
           [0.2, 0.8]])
    """

    def _prepare(self, T: Targets) -> Any:
        """Whatever the loss needs beyond the targets (computed once per fit)."""
        return T.proportions

    def _loss(self, Q: FloatArray, state: Any) -> tuple[float, FloatArray]:
        """Summed loss over items and its gradient ``dL/dQ`` (N, K), both the metric's.

        :func:`dissensus.metrics.gradients.value_and_gradient`, here of
        ``cross_entropy``; a probability that underflowed to 0 counts as ``_TINY``.
        """
        values, G = gradients.value_and_gradient("cross_entropy", state, np.maximum(Q, _TINY))
        return float(values.sum()), G

    def _objective(
        self, theta: FloatArray, X: Features, XT: Features, state: Any, K: int
    ) -> tuple[float, FloatArray]:
        r"""Summed loss over ``theta = (W.ravel(), b)`` and its gradient.

        Through the softmax: :math:`dL/dz_j = q_j (g_j - \sum_k q_k g_k)` with
        ``g = dL/dQ``.
        """
        d = X.shape[1]
        Q = gradients.softmax(np.asarray(X @ theta[: d * K].reshape(d, K)) + theta[d * K :])
        loss, G = self._loss(Q, state)
        Gz = gradients.softmax_backward(Q, G)
        return loss, np.concatenate([np.asarray(XT @ Gz).ravel(), Gz.sum(axis=0)])

    def _fit(self, X: Features, T: Targets) -> None:
        state, XT = self._prepare(T), _transposed(X)
        d, K = X.shape[1], T.K
        theta = self._minimize(
            lambda th: self._objective(th, X, XT, state, K),
            np.zeros(d * K + K),
            n_weights=d * K,
            N=X.shape[0],
        )
        self.coef_, self.intercept_ = theta[: d * K].reshape(d, K), theta[d * K :]

    def _predict(self, X: Features) -> FloatArray:
        return np.ascontiguousarray(gradients.softmax(np.asarray(X @ self.coef_) + self.intercept_))


@dataclass(eq=False, repr=False, kw_only=True)
class EMDRegression(SoftmaxRegression):
    r"""Model D: softmax regression trained with the earth mover's distance to the targets.

    .. math::

        \ell(y, q) = \frac{1}{K - 1}\sum_{k=1}^{K-1} |Y_k - Q_k|^r

    with cumulative sums :math:`Y_k, Q_k` (ordered classes, ground distance
    :math:`|i - j| / (K - 1)`). ``power=1`` is the EMD (a subgradient where
    :math:`Y_k = Q_k`); ``power=2`` (the default) is the smooth squared-EMD
    loss of Hou, Yu and Samaras (2016), which L-BFGS minimises reliably: the
    ranked probability score. The losses are the metrics ``emd`` and ``rps``,
    value and gradient from :mod:`dissensus.metrics.gradients`.

    References
    ----------
    Hou, L., Yu, C.-P. and Samaras, D. (2016). Squared Earth Mover's
    Distance-based loss for training deep neural networks. arXiv:1611.05916.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]] * 10)
    >>> Y = np.array([[0.8, 0.2, 0.0], [0.0, 0.2, 0.8]] * 10)
    >>> q = EMDRegression(C=100.0).fit(X, Y).predict_proba(X[:2])
    >>> bool(q[0, 0] > q[0, 2] and q[1, 2] > q[1, 0])
    True
    """

    power: int = 2

    def _check_params(self) -> None:
        super()._check_params()
        if self.power not in (1, 2):
            msg = f"The 'power' parameter of EMDRegression must be 1 or 2. Got {self.power!r} instead."
            raise ValueError(msg)

    def _loss(self, Q: FloatArray, state: Any) -> tuple[float, FloatArray]:
        # power 2 is the ranked probability score, power 1 the EMD: the metrics themselves
        values, G = gradients.value_and_gradient("emd" if self.power == 1 else "rps", state, Q)
        return float(values.sum()), G


@dataclass(eq=False, repr=False, kw_only=True)
class ExpectedEMDRegression(SoftmaxRegression):
    r"""Model E: softmax regression trained with the exact expected EMD under each item's posterior.

    .. math::

        \ell_i(q) = \mathbb{E}_{p \sim \mathrm{Dir}(\alpha_i)}[\mathrm{EMD}(p, q)]
        = \frac{1}{K - 1}\sum_{k=1}^{K-1}\mathbb{E}|P_k - Q_k|,
        \qquad P_k \sim \mathrm{Beta}(A_k, a_0 - A_k),

    with :math:`\alpha_i` = prior + counts and :math:`A_k = \alpha_1 + \dots +
    \alpha_k` (:func:`dissensus.metrics.expected.emd`). Its gradient is
    closed form, :math:`\frac{d}{dc}\mathbb{E}|X - c| = 2 I_c(a, b) - 1` for
    :math:`X \sim \mathrm{Beta}(a, b)`, chained through the cumulative sum
    (:mod:`dissensus.metrics.gradients`, where the value and gradient of
    every model's loss are defined) and the softmax. A wide posterior (few annotations) makes it change slowly
    in :math:`c`, so the item pulls less: the loss itself weighs items by
    annotation count. ``prior``: the Dirichlet prior of the posteriors (see
    :func:`dissensus.posterior.dirichlet`). Needs counts: ``fit(X, counts)``,
    or ``fit(X, P, n=n)`` with ``n P`` whole.

    Examples
    --------
    >>> from dissensus import LabelCounts
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]] * 10)
    >>> counts = LabelCounts.from_array([[4, 1, 0], [0, 1, 4]] * 10)
    >>> q = ExpectedEMDRegression(C=100.0).fit(X, counts).predict_proba(X[:2])
    >>> bool(q[0, 0] > q[0, 2] and q[1, 2] > q[1, 0])
    True
    """

    prior: PriorLike = DEFAULT_PRIOR

    def _prepare(self, T: Targets) -> Any:
        counts = T.counts
        if counts is None:
            if T.n is None:
                msg = (
                    "ExpectedEMDRegression.fit needs annotation counts for the posteriors: pass a "
                    "LabelCounts as `Y`, or distributions with `n=` (annotations per item)."
                )
                raise DataError(msg)
            counts = T.n[:, None] * T.proportions
            whole = np.round(counts)
            if not np.allclose(counts, whole, atol=1e-6):
                r = int(np.flatnonzero(~np.isclose(counts, whole, atol=1e-6).all(axis=1))[0])
                msg = (
                    f"ExpectedEMDRegression.fit: row {r} of n * Y is not whole numbers "
                    f"({counts[r].round(4).tolist()}); the targets must be proportions of counts."
                )
                raise DataError(msg)
            counts = whole
        # an int array: columns in class order
        return (dirichlet(np.asarray(counts, dtype=np.int64), prior=self.prior),)

    def _loss(self, Q: FloatArray, state: Any) -> tuple[float, FloatArray]:
        (alpha,) = state
        values, G = gradients.value_and_gradient("E[emd]", alpha, Q, n_jobs=1)
        return float(values.sum()), G


@dataclass(eq=False, repr=False, kw_only=True)
class CumulativeLink(LinearModel):
    r"""Model C: proportional-odds (cumulative logit) model fitted to soft targets.

    A linear score :math:`s = x^\top w` and ordered thresholds :math:`\theta_k`:

    .. math::

        P(y \le k \mid x) = \sigma(\theta_k - s), \qquad
        q_k = \sigma(\theta_k - s) - \sigma(\theta_{k-1} - s),

    (:math:`\theta_0 = -\infty`, :math:`\theta_K = +\infty`), fitted to the
    soft cross-entropy :math:`-\sum_k y_k \ln q_k` (see the objective);
    :math:`\theta_k = \theta_{k-1} + e^{\delta_k}` keeps them ordered.

    References
    ----------
    McCullagh, P. (1980). Regression models for ordinal data. *J. R. Stat. Soc. B*
    42(2), 109–142. https://doi.org/10.1111/j.2517-6161.1980.tb01109.x

    Examples
    --------
    >>> X = np.array([[1.0], [-1.0]] * 10)
    >>> Y = np.array([[0.7, 0.2, 0.1], [0.1, 0.2, 0.7]] * 10)
    >>> q = CumulativeLink(C=100.0).fit(X, Y).predict_proba(X[:2])
    >>> bool(q[0, 0] > q[0, 2] and q[1, 2] > q[1, 0])
    True
    """

    @staticmethod
    def _thresholds(t: FloatArray) -> FloatArray:
        return np.asarray(t[0] + np.concatenate([[0.0], np.cumsum(np.exp(t[1:]))]))

    @staticmethod
    def _proba(s: FloatArray, theta: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(q (N, K), F (N, K - 1)) with ``F_k = sigma(theta_k - s)``."""
        F = special.expit(theta[None, :] - s[:, None])
        Fpad = np.pad(F, ((0, 0), (1, 1)), constant_values=((0, 0), (0, 1)))
        return np.diff(Fpad, axis=1), F

    def _objective(
        self, params: FloatArray, X: Features, XT: Features, P: FloatArray
    ) -> tuple[float, FloatArray]:
        """Summed loss over ``params = (w, t)`` and its analytic gradient."""
        d = X.shape[1]
        w, t = params[:d], params[d:]
        q, F = self._proba(np.asarray(X @ w).ravel(), self._thresholds(t))
        qs = np.maximum(q, _TINY)
        gq = -P / qs  # dL/dq_k
        gF = gq[:, :-1] - gq[:, 1:]  # q_k = F_k - F_{k-1}: dL/dF_k = g_k - g_{k+1}
        dF = gF * F * (1.0 - F)
        g_theta = dF.sum(axis=0)  # dL/dtheta_k
        # theta_1 = t_0; theta_k = t_0 + sum_{j<=k} exp(t_j)
        tail = np.cumsum(g_theta[::-1])[::-1]
        g_t = np.concatenate([[g_theta.sum()], np.exp(t[1:]) * tail[1:]])
        g_w = np.asarray(XT @ -dF.sum(axis=1)).ravel()
        return float(-(P * np.log(qs)).sum()), np.concatenate([g_w, g_t])

    def _fit(self, X: Features, T: Targets) -> None:
        P, d = T.proportions, X.shape[1]
        # start at the thresholds of the training marginal (w = 0)
        cum = np.clip(np.cumsum(P.mean(axis=0))[:-1], 1e-4, 1 - 1e-4)
        theta0 = special.logit(np.maximum.accumulate(cum))
        t_init = np.concatenate([[theta0[0]], np.log(np.maximum(np.diff(theta0), 1e-3))])
        XT = _transposed(X)
        params = self._minimize(
            lambda x: self._objective(x, X, XT, P),
            np.concatenate([np.zeros(d), t_init]),
            n_weights=d,
            N=X.shape[0],
        )
        self.coef_, self.thresholds_ = params[:d], self._thresholds(params[d:])

    def _predict(self, X: Features) -> FloatArray:
        q, _ = self._proba(np.asarray(X @ self.coef_).ravel(), self.thresholds_)
        q = np.maximum(q, 0.0)
        out: FloatArray = q / q.sum(axis=1, keepdims=True)
        return out
