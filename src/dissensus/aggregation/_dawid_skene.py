r"""Dawid–Skene: per-annotator confusion matrices and item posteriors by EM.

Notation (Dawid and Skene 1979). Items :math:`i = 1..N` with a latent true
class :math:`z_i \in \{1..K\}`, prior :math:`\rho_c = P(z_i = c)`; annotator
:math:`a` answers label :math:`y` to an item of true class :math:`c` with
probability :math:`\pi^{(a)}_{cy}` (row :math:`c` of its confusion matrix
sums to 1). With :math:`T_{ic} = P(z_i = c \mid \text{data})`:

- E-step: :math:`\log T_{ic} = \log \rho_c + \sum_{(a, y) \in i} \log \pi^{(a)}_{cy} - \log Z_i`;
- M-step: :math:`\rho_c = \frac1N \sum_i T_{ic}`,
  :math:`\pi^{(a)}_{cy} \propto s + \sum_{i:\,(a, y) \in i} T_{ic}`
  (``s`` the ``smoothing`` pseudo-count).

Every step is a handful of :func:`numpy.bincount` calls over the long
annotation arrays (one per class): no loop over items or annotators. The
log-likelihood :math:`\sum_i \log Z_i` never decreases; EM stops when no
posterior :math:`T_{ic}` moves by ``tol`` or more in an iteration.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import special

from dissensus._exceptions import DataError, DissensusWarning
from dissensus._validation import SeedLike, as_generator, check_option
from dissensus.data import Annotations, Scale

__all__ = ["ConvergenceWarning", "DawidSkeneResult", "dawid_skene"]

FloatArray = npt.NDArray[np.float64]
Init = Literal["majority", "random"]

#: Floor of the probabilities whose logs are taken (as crowd-kit's ``_EPS``).
_EPS = 1e-10


class ConvergenceWarning(DissensusWarning):
    """An iterative fit stopped at its iteration limit before converging."""


@dataclass(frozen=True)
class DawidSkeneResult:
    r"""A fitted Dawid–Skene model: item posteriors and annotator confusion matrices.

    Attributes
    ----------
    posterior : pandas.DataFrame
        ``T[i, c]``, the posterior probability that item ``i``'s true label is
        ``c``; rows are items (in the order of the annotations), columns the
        labels of the scale. Rows sum to 1.
    priors : pandas.Series
        Class prior :math:`\rho_c`, indexed by label.
    confusion : ndarray of float64, shape (R, K, K)
        ``confusion[a, c, y]`` = P(annotator ``a`` answers ``y`` | true ``c``);
        each ``confusion[a, c]`` sums to 1.
    annotators : pandas.Index
        Annotator ids, in the order of ``confusion``.
    n_annotations : ndarray of int64, shape (R,)
        Annotations per annotator.
    scale : Scale
        The labels.
    log_likelihood : tuple of float
        Observed-data log-likelihood per annotation after each iteration
        (non-decreasing).
    n_iter : int
        EM iterations run.
    converged : bool
        Whether the last iteration moved every posterior by less than ``tol``.
    tol : float
        The stopping tolerance.
    """

    posterior: pd.DataFrame
    priors: pd.Series
    confusion: FloatArray = field(repr=False)
    annotators: pd.Index
    n_annotations: npt.NDArray[np.int64] = field(repr=False)
    scale: Scale
    log_likelihood: tuple[float, ...] = field(repr=False)
    n_iter: int
    converged: bool
    tol: float

    @property
    def labels(self) -> pd.Series:
        """The most probable label of each item (the first on ties)."""
        cols = np.asarray(self.posterior.columns, dtype=object)
        best = cols[self.posterior.to_numpy().argmax(axis=1)]
        return pd.Series(best, index=self.posterior.index, name="label")

    def confusion_matrix(self, annotator: object) -> pd.DataFrame:
        """One annotator's confusion matrix: rows the true label, columns the answer."""
        pos = self.annotators.get_indexer(pd.Index([annotator], dtype=object))[0]
        if pos < 0:
            msg = f"No annotator {annotator!r} in this model."
            raise KeyError(msg)
        labels = pd.Index(self.scale.labels)
        return pd.DataFrame(
            self.confusion[pos],
            index=labels.rename("true"),
            columns=labels.rename("answer"),
        )

    def reliability(self) -> pd.DataFrame:
        r"""One row per annotator: how reliable the model finds them.

        Columns: ``n_annotations``; ``accuracy``
        :math:`\sum_c \rho_c \pi^{(a)}_{cc}`, the probability of a correct
        answer on an item drawn from the prior; ``mean_recall``, the mean of
        the diagonal of the confusion matrix (chance level is :math:`1/K`);
        ``spamminess``, :math:`1 - \|\pi^{(a)} - \mathbf{1}\bar\pi^{(a)}\|_F /
        \|I - \mathbf{1}\mathbf{1}^\top / K\|_F` in :math:`[0, 1]`, where
        :math:`\bar\pi^{(a)}` is the mean row: 1 when every row is the same
        (answers independent of the truth: a spammer in the sense of Raykar
        and Yu 2012), 0 for a perfect (or consistently permuting) annotator.
        """
        C = self.confusion
        K = C.shape[1]
        rho = self.priors.to_numpy()
        diag = np.einsum("acc->ac", C)
        mean_row = C.mean(axis=1, keepdims=True)
        # A spammer answers the same whatever the truth: every row equals the mean row.
        spread = np.sqrt(((C - mean_row) ** 2).sum(axis=(1, 2)))
        perfect = np.sqrt(((np.eye(K) - 1.0 / K) ** 2).sum())
        return pd.DataFrame(
            {
                "n_annotations": self.n_annotations,
                "accuracy": diag @ rho,
                "mean_recall": diag.mean(axis=1),
                "spamminess": np.clip(1.0 - spread / perfect, 0.0, 1.0),
            },
            index=self.annotators,
        )


def _m_step(
    T: FloatArray,
    i: npt.NDArray[np.int64],
    ay: npt.NDArray[np.int64],
    R: int,
    smoothing: float,
) -> tuple[FloatArray, FloatArray]:
    """Priors (K,) and confusion (R, K true, K answer) from the posteriors ``T``."""
    K = T.shape[1]
    rho = np.maximum(T.mean(axis=0), _EPS)
    # column c: sum of T[i, c] over the annotations with (annotator, answer) = (a, y)
    sums = np.stack([np.bincount(ay, weights=T[i, c], minlength=R * K) for c in range(K)], axis=1)
    conf = sums.reshape(R, K, K).transpose(0, 2, 1) + smoothing  # (a, c, y)
    np.maximum(conf, _EPS, out=conf)
    conf /= conf.sum(axis=2, keepdims=True)
    return rho, np.ascontiguousarray(conf)


def _e_step(
    rho: FloatArray,
    conf: FloatArray,
    *,
    i: npt.NDArray[np.int64],
    a: npt.NDArray[np.int64],
    y: npt.NDArray[np.int64],
    N: int,
) -> tuple[FloatArray, float]:
    """Posteriors (N, K) and the log-likelihood (total) under ``rho`` and ``conf``."""
    K = rho.size
    log_c = np.log(conf)[a, :, y]  # (M, K): log P(answer y | true c) of each annotation
    L = np.log(rho)[None, :] + np.stack(
        [np.bincount(i, weights=log_c[:, c], minlength=N) for c in range(K)], axis=1
    )
    logz = special.logsumexp(L, axis=1)
    return np.exp(L - logz[:, None]), float(logz.sum())


def dawid_skene(
    annotations: Annotations,
    *,
    init: Init = "majority",
    n_iter: int = 1000,
    tol: float = 1e-6,
    smoothing: float = 0.0,
    seed: SeedLike = 0,
) -> DawidSkeneResult:
    r"""Fit the Dawid–Skene model: who is reliable, and what each item probably is.

    Parameters
    ----------
    annotations : Annotations
        With annotator ids (each annotator gets a confusion matrix).
    init : {"majority", "random"}, default "majority"
        Starting posteriors: each item's label shares (majority vote, as
        crowd-kit and Dawid and Skene), or a seeded Dirichlet(1) draw per
        item (to probe other local optima).
    n_iter : int, default 1000
        Maximum EM iterations.
    tol : float, default 1e-6
        Stop when no posterior probability moved by more than this in an
        iteration.
    smoothing : float, default 0.0
        Pseudo-count added to every confusion-matrix cell in the M-step (a
        symmetric Dirichlet prior; 0 is maximum likelihood, as in the paper
        and crowd-kit). Probabilities are floored at 1e-10 either way.
    seed : int, Generator or None, default 0
        Randomness of ``init="random"``.

    Returns
    -------
    DawidSkeneResult
        Posteriors, priors, confusion matrices, :meth:`~DawidSkeneResult.reliability`
        and the convergence record (``n_iter``, ``converged``,
        ``log_likelihood``).

    Raises
    ------
    DataError
        Without annotator ids.
    ValueError
        For bad options.

    Warns
    -----
    ConvergenceWarning
        When ``n_iter`` iterations did not reach ``tol``.

    Notes
    -----
    See the module notation. EM finds a local maximum of the likelihood; the
    majority-vote start is the usual one. The labels are exchangeable in the
    model, so a start with most annotators wrong can converge to permuted
    classes; ``init="random"`` with several seeds shows how stable the fit is.
    Equal (to the convergence tolerance) to ``crowdkit.aggregation.DawidSkene``.

    References
    ----------
    Dawid, A. P. and Skene, A. M. (1979). Maximum likelihood estimation of
    observer error-rates using the EM algorithm. *Journal of the Royal
    Statistical Society C* 28(1), 20–28. https://doi.org/10.2307/2346806

    Raykar, V. C. and Yu, S. (2012). Eliminating spammers and ranking
    annotators for crowdsourced labeling tasks. *Journal of Machine Learning
    Research* 13, 491–518.

    Examples
    --------
    >>> df = pd.DataFrame({
    ...     "item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
    ...     "annotator": ["a", "b", "c"] * 4,
    ...     "label": ["x", "x", "y", "y", "y", "y", "x", "x", "x", "y", "y", "x"],
    ... })
    >>> fit = dawid_skene(Annotations.from_frame(df))
    >>> fit.labels.tolist(), fit.converged
    (['x', 'y', 'x', 'y'], True)
    """
    func = "dawid_skene"
    check_option(func, "init", init, ("majority", "random"))
    if int(n_iter) < 1:
        msg = f"The 'n_iter' parameter of {func} must be at least 1. Got {n_iter!r} instead."
        raise ValueError(msg)
    if not (math.isfinite(tol) and tol >= 0):
        msg = f"The 'tol' parameter of {func} must be a finite number >= 0. Got {tol!r} instead."
        raise ValueError(msg)
    if not (math.isfinite(smoothing) and smoothing >= 0):
        msg = (
            f"The 'smoothing' parameter of {func} must be a finite number >= 0. "
            f"Got {smoothing!r} instead."
        )
        raise ValueError(msg)
    given: object = annotations  # users pass other things despite the annotation
    if not isinstance(given, Annotations):
        msg = f"{func} expects Annotations with annotator ids; got {type(given).__name__}."
        raise TypeError(msg)
    if annotations.annotator_codes is None or annotations.annotators is None:
        msg = (
            f"{func} models each annotator, so it needs annotator ids; load the annotations "
            "with annotator='<column>'."
        )
        raise DataError(msg)
    i = annotations.item_codes
    a = annotations.annotator_codes
    y = annotations.label_codes
    N, R, K = annotations.n_items, len(annotations.annotators), annotations.scale.K
    ay = a * K + y
    if init == "majority":
        X = np.stack([np.bincount(i, weights=(y == c), minlength=N) for c in range(K)], axis=1)
        T = X / X.sum(axis=1, keepdims=True)
    else:
        T = as_generator(seed).dirichlet(np.ones(K), size=N)
    history: list[float] = []
    converged = False
    M = max(y.size, 1)
    rho = conf = np.empty(0)
    change = math.inf
    for _ in range(int(n_iter)):
        rho, conf = _m_step(T, i, ay, R, smoothing)
        T_new, loglik = _e_step(rho, conf, i=i, a=a, y=y, N=N)
        change = float(np.abs(T_new - T).max())
        T = T_new
        history.append(loglik / M)
        if change < tol:
            converged = True
            break
    if not converged:
        warnings.warn(
            f"{func} stopped after {n_iter} iterations without converging (the posteriors "
            f"still moved by {change:.3g} > tol={tol:g}); raise n_iter.",
            ConvergenceWarning,
            stacklevel=2,
        )
    labels = pd.Index(annotations.scale.labels, name="label")
    return DawidSkeneResult(
        posterior=pd.DataFrame(T, index=annotations.items, columns=labels),
        priors=pd.Series(rho / rho.sum(), index=labels, name="prior"),
        confusion=conf,
        annotators=annotations.annotators,
        n_annotations=np.bincount(a, minlength=R).astype(np.int64),
        scale=annotations.scale,
        log_likelihood=tuple(history),
        n_iter=len(history),
        converged=converged,
        tol=float(tol),
    )
