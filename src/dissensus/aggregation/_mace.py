r"""MACE: who spams, and what each item probably is (Hovy et al. 2013).

Notation (Hovy, Berg-Kirkpatrick, Vaswani and Hovy 2013). Items :math:`i`
with a true label :math:`z_i`, uniform over the :math:`K` labels. Annotator
:math:`a` spams an item with probability :math:`1 - \theta_a` and then
answers from its own spamming distribution :math:`\xi_a`; otherwise it gives
the true label:

.. math::

    P(y \mid z = c) = (1 - \theta_a)\, \xi_{a y} + \theta_a [y = c].

:math:`\theta_a` is the *competence*. With :math:`T_{ic} = P(z_i = c \mid
\text{data})`, the E-step's expected counts of each annotation are
:math:`k = T_{iy}\, \theta_a / P(y \mid z = y)` (knew the answer) and
:math:`s = 1 - k` (spammed, answering :math:`y`); the M-step normalises their
per-annotator sums plus a pseudo-count :math:`\epsilon` (EM), or, with
``method="vb"``, takes the mean-field variational update under
:math:`\theta_a \sim \mathrm{Beta}(a, b)` and
:math:`\xi_a \sim \mathrm{Dirichlet}(\gamma)`:
:math:`\exp\psi(\text{count} + \text{prior}) / \exp\psi(\text{total} + \text{priors})`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import special

from dissensus._validation import SeedLike, as_generator, check_option
from dissensus.aggregation._em import (
    Data,
    check_em_options,
    check_nonnegative,
    data_codes,
    log_normalize,
    most_probable,
    run_em,
    warn_not_converged,
)
from dissensus.data import Annotations, Scale

__all__ = ["MACEResult", "mace"]

FloatArray = npt.NDArray[np.float64]
Method = Literal["em", "vb"]


@dataclass(frozen=True)
class MACEResult:
    r"""A fitted MACE model: item posteriors, annotator competence and spamming habits.

    Attributes
    ----------
    posterior : pandas.DataFrame
        ``T[i, c]``, rows the items (in the order of the annotations), columns
        the labels; rows sum to 1.
    competence : pandas.Series
        :math:`\theta_a`, the probability that annotator ``a`` does not spam,
        indexed by annotator (with ``method="vb"`` the variational weight
        :math:`\exp E\log\theta_a`, as in MACE's own code).
    strategy : pandas.DataFrame
        :math:`\xi_a`, the answer distribution of annotator ``a`` when it
        spams; rows annotators, columns labels.
    annotators : pandas.Index
        Annotator ids.
    n_annotations : ndarray of int64, shape (R,)
        Annotations per annotator.
    scale : Scale
        The labels.
    log_likelihood : tuple of float
        Observed-data log-likelihood per annotation after each iteration of
        the best restart.
    restart_log_likelihoods : tuple of float
        Final log-likelihood per annotation of every restart (the best is kept).
    n_iter : int
        EM iterations of the best restart.
    converged : bool
        Whether the best restart stopped by ``tol``.
    tol : float
        The stopping tolerance.
    method : {"em", "vb"}
        The M-step used.
    """

    posterior: pd.DataFrame
    competence: pd.Series
    strategy: pd.DataFrame
    annotators: pd.Index
    n_annotations: npt.NDArray[np.int64] = field(repr=False)
    scale: Scale
    log_likelihood: tuple[float, ...] = field(repr=False)
    restart_log_likelihoods: tuple[float, ...] = field(repr=False)
    n_iter: int
    converged: bool
    tol: float
    method: str

    @property
    def labels(self) -> pd.Series:
        """The most probable label of each item (the first on ties)."""
        return most_probable(self.posterior)

    def reliability(self) -> pd.DataFrame:
        r"""One row per annotator: ``n_annotations``, ``competence`` and ``spam_label``.

        ``spam_label`` is the label the annotator most often gives when it
        spams (the mode of :math:`\xi_a`): a spammer who always answers
        the same shows it here.
        """
        xi = self.strategy.to_numpy()
        cols = np.asarray(self.strategy.columns, dtype=object)
        return pd.DataFrame(
            {
                "n_annotations": self.n_annotations,
                "competence": self.competence.to_numpy(),
                "spam_label": cols[xi.argmax(axis=1)],
            },
            index=self.annotators,
        )


def _e_step(
    theta: FloatArray, xi: FloatArray, d: Data
) -> tuple[FloatArray, FloatArray, FloatArray, float]:
    """Posteriors (N, K), expected knowing and spamming counts (M,), log-likelihood.

    ``theta`` is (R, 2): the weights of knowing and of spamming (they sum to 1
    after an EM step; a VB step gives geometric means that need not).
    """
    base = theta[d.a, 1] * xi[d.a, d.y]  # P(spam) P(answer y | spam)
    hit = base + theta[d.a, 0]  # P(answer y | z = y)
    log_base = np.log(base)
    per_item = np.bincount(d.i, weights=log_base, minlength=d.N).astype(np.float64)
    hits = np.bincount(d.i * d.K + d.y, weights=np.log(hit) - log_base, minlength=d.N * d.K)
    L: FloatArray = per_item[:, None] + hits.reshape(d.N, d.K)
    L -= math.log(d.K)  # the uniform prior over true labels
    T, loglik = log_normalize(L)
    knew = T[d.i, d.y] * theta[d.a, 0] / hit
    return T, knew, 1.0 - knew, loglik


def _m_step(
    knew: FloatArray,
    spam: FloatArray,
    d: Data,
    *,
    method: str,
    smoothing: float,
    competence_prior: tuple[float, float],
    strategy_prior: float,
) -> tuple[FloatArray, FloatArray]:
    """Knowing/spamming weights (R, 2) and spamming distributions (R, K) from the counts."""
    n_know = np.bincount(d.a, weights=knew, minlength=d.R)
    n_spam = np.bincount(d.a, weights=spam, minlength=d.R)
    per_answer = np.bincount(d.ay, weights=spam, minlength=d.R * d.K).reshape(d.R, d.K)
    if method == "em":
        total = n_know + n_spam + 2.0 * smoothing
        theta = np.stack([(n_know + smoothing) / total, (n_spam + smoothing) / total], axis=1)
        xi = (per_answer + smoothing) / (n_spam + d.K * smoothing)[:, None]
        return theta, xi
    a, b = competence_prior
    # mean-field update: exp E[log p] under the Beta / Dirichlet posteriors
    norm = special.digamma(n_know + n_spam + a + b)
    theta = np.exp(
        np.stack([special.digamma(n_know + a), special.digamma(n_spam + b)], 1) - norm[:, None]
    )
    xi = np.exp(
        special.digamma(per_answer + strategy_prior)
        - special.digamma(n_spam + d.K * strategy_prior)[:, None]
    )
    return theta, xi


def _fit(
    d: Data,
    theta: FloatArray,
    xi: FloatArray,
    *,
    method: str,
    n_iter: int,
    tol: float,
    smoothing: float,
    competence_prior: tuple[float, float],
    strategy_prior: float,
) -> tuple[FloatArray, FloatArray, FloatArray, list[float], float]:
    """EM from one start: posteriors, competence, strategy, log-likelihoods, last change."""
    T, knew, spam, _ = _e_step(theta, xi, d)
    state = {"theta": theta, "xi": xi, "knew": knew, "spam": spam}

    def step(T: FloatArray) -> tuple[FloatArray, float]:
        state["theta"], state["xi"] = _m_step(
            state["knew"], state["spam"], d, method=method, smoothing=smoothing,
            competence_prior=competence_prior, strategy_prior=strategy_prior,
        )  # fmt: skip
        T_new, state["knew"], state["spam"], loglik = _e_step(state["theta"], state["xi"], d)
        return T_new, loglik

    run = run_em(T, step, n_iter=n_iter, tol=tol, n_annotations=d.y.size)
    return run.T, state["theta"], state["xi"], list(run.history), run.change


def mace(
    annotations: Annotations,
    *,
    method: Method = "em",
    n_restarts: int = 10,
    n_iter: int = 1000,
    tol: float = 1e-6,
    smoothing: float | None = None,
    competence_prior: tuple[float, float] = (0.5, 0.5),
    strategy_prior: float = 10.0,
    init_noise: float = 0.5,
    seed: SeedLike = 0,
) -> MACEResult:
    r"""Fit MACE: each annotator's competence, spamming habits, and item posteriors.

    Parameters
    ----------
    annotations : Annotations
        With annotator ids.
    method : {"em", "vb"}, default "em"
        M-step: smoothed maximum likelihood, or variational Bayes with the
        priors below (MACE's ``-em`` and ``-vb``).
    n_restarts : int, default 10
        Random starts; the one with the highest final log-likelihood is kept.
    n_iter : int, default 1000
        Maximum EM iterations per start.
    tol : float, default 1e-6
        Stop a start when no posterior probability moved by more than this.
    smoothing : float, optional
        EM pseudo-count added to every expected count. Default ``0.01 / K``
        (MACE's default).
    competence_prior : (float, float), default (0.5, 0.5)
        ``(a, b)`` of the Beta prior on competence (``a`` pseudo-counts of
        knowing, ``b`` of spamming), for ``method="vb"``.
    strategy_prior : float, default 10.0
        Symmetric Dirichlet prior on each spamming distribution, for
        ``method="vb"``.
    init_noise : float, default 0.5
        Starting competence and spamming distributions are normalised
        draws of :math:`U(1, 1 + \text{init\_noise})` per entry (MACE's start).
    seed : int, Generator or None, default 0
        Randomness of the starts.

    Returns
    -------
    MACEResult
        Posteriors, competence, spamming distributions,
        :meth:`~MACEResult.reliability` and the convergence record.

    Raises
    ------
    DataError
        Without annotator ids.
    ValueError
        For bad options.

    Warns
    -----
    ConvergenceWarning
        When the best start did not reach ``tol`` in ``n_iter`` iterations.

    Notes
    -----
    See the module notation. MACE's own code runs a fixed 50 iterations per
    restart; here each start runs until ``tol``. Its prior over true labels
    is uniform (unlike Dawid–Skene's fitted class prior). Equal (to the
    convergence tolerance) to ``crowdkit.aggregation.MACE`` from the same
    start, but crowd-kit draws every restart from the same seed (its
    restarts are identical) and its starts from :math:`U(1, 2.5)`, while
    MACE and this function use :math:`U(1, 1.5)`.

    References
    ----------
    Hovy, D., Berg-Kirkpatrick, T., Vaswani, A. and Hovy, E. (2013).
    Learning whom to trust with MACE. *Proceedings of NAACL-HLT 2013*,
    1120–1130. https://aclanthology.org/N13-1132

    Examples
    --------
    >>> df = pd.DataFrame({
    ...     "item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
    ...     "annotator": ["a", "b", "c"] * 4,
    ...     "label": ["x", "x", "y", "y", "y", "y", "x", "x", "y", "y", "y", "y"],
    ... })
    >>> fit = mace(Annotations.from_frame(df))
    >>> fit.labels.tolist()
    ['x', 'y', 'x', 'y']
    >>> fit.competence.round(2).to_dict()
    {'a': 1.0, 'b': 1.0, 'c': 0.0}
    """
    func = "mace"
    check_option(func, "method", method, ("em", "vb"))
    check_em_options(func, n_iter=n_iter, tol=tol)
    if int(n_restarts) < 1:
        msg = f"The 'n_restarts' parameter of {func} must be at least 1. Got {n_restarts!r}."
        raise ValueError(msg)
    d = data_codes(func, annotations)
    eps = 0.01 / d.K if smoothing is None else check_nonnegative(func, "smoothing", smoothing)
    a, b = (check_nonnegative(func, "competence_prior", float(v)) for v in competence_prior)
    if method == "vb" and min(a, b, strategy_prior) <= 0:
        msg = (
            f"The priors of {func}(method='vb') must be > 0. Got competence_prior="
            f"{competence_prior!r}, strategy_prior={strategy_prior!r}."
        )
        raise ValueError(msg)
    noise = check_nonnegative(func, "init_noise", init_noise)
    rng = as_generator(seed)
    best: tuple[FloatArray, FloatArray, FloatArray, list[float], float] | None = None
    finals: list[float] = []
    for _ in range(int(n_restarts)):
        start = 1.0 + noise * rng.random((d.R, 2 + d.K))
        theta0 = start[:, :2] / start[:, :2].sum(axis=1, keepdims=True)
        xi0 = start[:, 2:] / start[:, 2:].sum(axis=1, keepdims=True)
        fit = _fit(
            d, theta0, xi0, method=method, n_iter=int(n_iter), tol=tol, smoothing=eps,
            competence_prior=(a, b), strategy_prior=float(strategy_prior),
        )  # fmt: skip
        finals.append(fit[3][-1])
        if best is None or fit[3][-1] > best[3][-1]:
            best = fit
    assert best is not None  # n_restarts >= 1
    T, theta, xi, history, change = best
    converged = change < tol
    if not converged:
        warn_not_converged(func, int(n_iter), change, tol)
    labels = pd.Index(annotations.scale.labels, name="label")
    annotators = d.annotators
    return MACEResult(
        posterior=pd.DataFrame(T, index=annotations.items, columns=labels),
        competence=pd.Series(theta[:, 0], index=annotators, name="competence"),
        strategy=pd.DataFrame(xi, index=annotators, columns=labels),
        annotators=annotators,
        n_annotations=d.n_annotations,
        scale=annotations.scale,
        log_likelihood=tuple(history),
        restart_log_likelihoods=tuple(finals),
        n_iter=len(history),
        converged=converged,
        tol=float(tol),
        method=method,
    )
