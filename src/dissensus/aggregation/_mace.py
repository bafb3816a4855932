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
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import special

from dissensus._validation import SeedLike, as_generator, check_option
from dissensus.aggregation._em import (
    AnnotatorModel,
    Data,
    EMRun,
    FloatArray,
    check_number,
    column_of_max,
    data_codes,
    log_normalize,
    run_em,
)
from dissensus.data import Annotations


@dataclass(frozen=True)
class MACEResult(AnnotatorModel):
    r"""A fitted MACE model: an annotator model (the best restart) with the fields below.

    Attributes
    ----------
    competence : pandas.Series
        :math:`\theta_a`, the probability that annotator ``a`` does not spam,
        indexed by annotator (with ``method="vb"`` the variational weight
        :math:`\exp E\log\theta_a`, as in MACE's own code).
    strategy : pandas.DataFrame
        :math:`\xi_a`, the answer distribution of annotator ``a`` when it
        spams; rows annotators, columns labels.
    restart_log_likelihoods : tuple of float
        Final log-likelihood per annotation of every restart (the best is kept).
    method : {"em", "vb"}
        The M-step used.
    """

    competence: pd.Series
    strategy: pd.DataFrame
    restart_log_likelihoods: tuple[float, ...] = field(repr=False)
    method: str

    def reliability(self) -> pd.DataFrame:
        r"""One row per annotator: ``n_annotations``, ``competence`` and ``spam_label``.

        ``spam_label`` is the label the annotator most often gives when it
        spams (the mode of :math:`\xi_a`): a spammer who always answers
        the same shows it here.
        """
        return self._per_annotator(
            competence=self.competence.to_numpy(), spam_label=column_of_max(self.strategy)
        )


def _e_step(
    theta: FloatArray, xi: FloatArray, d: Data
) -> tuple[FloatArray, FloatArray, FloatArray, float]:
    """Posteriors (N, K), expected knowing and spamming counts (M,), log-likelihood.

    ``theta`` (R, 2): the weights of knowing and spamming (VB's need not sum to 1).
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
    knew: FloatArray, spam: FloatArray, d: Data, *, method: str, smoothing: float,
    competence_prior: tuple[float, float], strategy_prior: float,
) -> tuple[FloatArray, FloatArray]:  # fmt: skip
    """Knowing/spamming weights (R, 2) and spamming distributions (R, K) from the counts."""
    n_know = np.bincount(d.a, weights=knew, minlength=d.R)
    n_spam = np.bincount(d.a, weights=spam, minlength=d.R)
    per_answer = np.bincount(d.a * d.K + d.y, weights=spam, minlength=d.R * d.K).reshape(d.R, d.K)
    if method == "em":
        total = n_know + n_spam + 2.0 * smoothing
        theta = np.stack([(n_know + smoothing) / total, (n_spam + smoothing) / total], axis=1)
        xi = (per_answer + smoothing) / (n_spam + d.K * smoothing)[:, None]
        return theta, xi
    (a, b), psi = competence_prior, special.digamma
    # mean-field update: exp E[log p] under the Beta / Dirichlet posteriors
    norm = psi(n_know + n_spam + a + b)
    theta = np.exp(np.stack([psi(n_know + a), psi(n_spam + b)], 1) - norm[:, None])
    xi = np.exp(psi(per_answer + strategy_prior) - psi(n_spam + d.K * strategy_prior)[:, None])
    return theta, xi


def _fit(
    d: Data, theta: FloatArray, xi: FloatArray, *, n_iter: int, tol: float, **m_options: Any
) -> tuple[EMRun, FloatArray, FloatArray]:
    """EM from one start: the run, competence weights (R, 2) and strategies (R, K)."""
    T, knew, spam, _ = _e_step(theta, xi, d)

    def step(T: FloatArray) -> tuple[FloatArray, float]:
        nonlocal theta, xi, knew, spam
        theta, xi = _m_step(knew, spam, d, **m_options)
        T_new, knew, spam, loglik = _e_step(theta, xi, d)
        return T_new, loglik

    run = run_em(T, step, d, n_iter=n_iter, tol=tol)
    return run, theta, xi


def mace(
    annotations: Annotations,
    *,
    method: Literal["em", "vb"] = "em",
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
    method : {"em", "vb"}, default "em"
        M-step: smoothed maximum likelihood, or variational Bayes with the
        priors below (MACE's ``-em`` and ``-vb``).
    n_restarts : int, default 10
        Random starts (from ``seed``); the one of highest final log-likelihood is kept.
    smoothing : float, optional
        EM pseudo-count added to every expected count; default ``0.01 / K`` (MACE's).
    competence_prior, strategy_prior : (float, float), float, default (0.5, 0.5), 10.0
        ``method="vb"``: the Beta prior ``(a, b)`` on competence and the
        symmetric Dirichlet prior on each spamming distribution.
    init_noise : float, default 0.5
        Starts are normalised draws of :math:`U(1, 1 + \text{init\_noise})` per entry.

    ``n_iter`` and ``tol`` apply to each start; see the package conventions.

    Notes
    -----
    MACE's own code runs 50 iterations per restart, here each runs to
    ``tol``. Equal (to the tolerance) to ``crowdkit.aggregation.MACE`` from
    the same start (crowd-kit draws its starts from :math:`U(1, 2.5)`, MACE
    and this function from :math:`U(1, 1.5)`).

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
    n_restarts = int(check_number(func, "n_restarts", n_restarts, count=True))
    d = data_codes(func, annotations, n_iter=n_iter, tol=tol)
    eps = 0.01 / d.K if smoothing is None else check_number(func, "smoothing", smoothing)
    a, b = (check_number(func, "competence_prior", float(v)) for v in competence_prior)
    if method == "vb" and min(a, b, strategy_prior) <= 0:
        msg = (
            f"The priors of {func}(method='vb') must be > 0. Got competence_prior="
            f"{competence_prior!r}, strategy_prior={strategy_prior!r}."
        )
        raise ValueError(msg)
    noise = check_number(func, "init_noise", init_noise)
    rng, finals = as_generator(seed), []

    def restart() -> tuple[EMRun, FloatArray, FloatArray]:
        u = 1.0 + noise * rng.random((d.R, 2 + d.K))
        theta0, xi0 = (x / x.sum(axis=1, keepdims=True) for x in (u[:, :2], u[:, 2:]))
        fit = _fit(d, theta0, xi0, n_iter=int(n_iter), tol=tol, method=method, smoothing=eps,
                   competence_prior=(a, b), strategy_prior=float(strategy_prior))  # fmt: skip
        finals.append(fit[0].history[-1])
        return fit

    # the first of equally good restarts
    run, theta, xi = max((restart() for _ in range(n_restarts)), key=lambda f: f[0].history[-1])
    run.warn_unless_converged(func)
    return MACEResult(
        **AnnotatorModel.core(annotations, d, run),
        competence=pd.Series(theta[:, 0], index=d.annotators, name="competence"),
        strategy=pd.DataFrame(xi, index=d.annotators, columns=d.labels),
        restart_log_likelihoods=tuple(finals),
        method=method,
    )
