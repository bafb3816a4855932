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

from dataclasses import dataclass, field
from typing import Literal, TypeVar

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._validation import SeedLike
from dissensus.aggregation._em import (
    EPS,
    ConvergenceWarning,
    Data,
    EMRun,
    answer_sums,
    check_em_options,
    check_nonnegative,
    confusion_e_step,
    data_codes,
    initial_posteriors,
    most_probable,
    run_em,
    warn_not_converged,
)
from dissensus.data import Annotations, Scale

__all__ = ["ConvergenceWarning", "DawidSkeneResult", "dawid_skene"]

FloatArray = npt.NDArray[np.float64]
Init = Literal["majority", "random"]
R = TypeVar("R", bound="DawidSkeneResult")


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
        return most_probable(self.posterior)

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


def _m_step(T: FloatArray, d: Data, smoothing: float) -> tuple[FloatArray, FloatArray]:
    """Priors (K,) and confusion (R, K true, K answer) from the posteriors ``T``."""
    rho = np.maximum(T.mean(axis=0), EPS)
    conf = answer_sums(T, d) + smoothing  # (a, c, y)
    np.maximum(conf, EPS, out=conf)
    conf /= conf.sum(axis=2, keepdims=True)
    return rho, conf


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
    check_em_options(func, n_iter=n_iter, tol=tol, init=init)
    smoothing = check_nonnegative(func, "smoothing", smoothing)
    d = data_codes(func, annotations)
    fitted: dict[str, FloatArray] = {}

    def step(T: FloatArray) -> tuple[FloatArray, float]:
        fitted["rho"], fitted["conf"] = _m_step(T, d, smoothing)
        return confusion_e_step(fitted["rho"], fitted["conf"], d)

    run = run_em(initial_posteriors(d, init, seed), step, n_iter=n_iter, tol=tol,
                 n_annotations=d.y.size)  # fmt: skip
    if not run.converged:
        warn_not_converged(func, n_iter, run.change, tol)
    return fitted_result(DawidSkeneResult, annotations, d, run, fitted=fitted, tol=tol)


def fitted_result(
    cls: type[R], annotations: Annotations, d: Data, run: EMRun, *,
    fitted: dict[str, FloatArray], tol: float, **extra: object,
) -> R:  # fmt: skip
    """A Dawid–Skene-type result from an EM run and its last priors and confusion matrices."""
    labels = pd.Index(annotations.scale.labels, name="label")
    rho = fitted["rho"]
    return cls(
        posterior=pd.DataFrame(run.T, index=annotations.items, columns=labels),
        priors=pd.Series(rho / rho.sum(), index=labels, name="prior"),
        confusion=fitted["conf"],
        annotators=d.annotators,
        n_annotations=d.n_annotations,
        scale=annotations.scale,
        log_likelihood=run.history,
        n_iter=len(run.history),
        converged=run.converged,
        tol=float(tol),
        **extra,
    )
