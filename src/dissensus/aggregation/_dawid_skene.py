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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._validation import SeedLike
from dissensus.aggregation._em import (
    EPS,
    AnnotatorModel,
    Data,
    answer_sums,
    check_nonnegative,
    confusion_e_step,
    data_codes,
    initial_posteriors,
    run_em,
)
from dissensus.data import Annotations

__all__ = ["DawidSkeneResult", "dawid_skene"]

FloatArray = npt.NDArray[np.float64]
Init = Literal["majority", "random"]
R = TypeVar("R", bound="DawidSkeneResult")


@dataclass(frozen=True)
class DawidSkeneResult(AnnotatorModel):
    r"""A fitted Dawid–Skene model: item posteriors and annotator confusion matrices.

    Everything of :class:`~dissensus.aggregation._em.AnnotatorModel`
    (``posterior``, ``annotators``, ``n_annotations``, ``scale``,
    ``log_likelihood``, ``n_iter``, ``converged``, ``tol``, ``labels``), and:

    Attributes
    ----------
    priors : pandas.Series
        Class prior :math:`\rho_c`, indexed by label.
    confusion : ndarray of float64, shape (R, K, K)
        ``confusion[a, c, y]`` = P(annotator ``a`` answers ``y`` | true ``c``);
        each ``confusion[a, c]`` sums to 1.
    """

    priors: pd.Series
    confusion: FloatArray = field(repr=False)

    def confusion_matrix(self, annotator: object) -> pd.DataFrame:
        """One annotator's confusion matrix: rows the true label, columns the answer."""
        pos = self.annotators.get_indexer(pd.Index([annotator], dtype=object))[0]
        if pos < 0:
            msg = f"No annotator {annotator!r} in this model."
            raise KeyError(msg)
        labels = pd.Index(self.scale.labels)
        return pd.DataFrame(self.confusion[pos], labels.rename("true"), labels.rename("answer"))

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


def fit_confusions(
    cls: type[R],
    annotations: Annotations,
    d: Data,
    *,
    func: str,
    confusion: Callable[[FloatArray], FloatArray],
    extra: Callable[[], dict[str, Any]] = dict,
    init: str,
    n_iter: int,
    tol: float,
    seed: SeedLike,
) -> R:
    """Fit a confusion-matrix model by EM; ``cls`` built from its last priors and matrices.

    ``confusion(T)`` is the model's M step for the (R, K true, K answer)
    matrices; the priors' M step and the E step are Dawid and Skene's.
    ``extra()`` gives the model's own fields once the fit is done.
    """
    last: dict[str, FloatArray] = {}

    def step(T: FloatArray) -> tuple[FloatArray, float]:
        last["rho"] = np.maximum(T.mean(axis=0), EPS)
        last["conf"] = confusion(T)
        return confusion_e_step(last["rho"], last["conf"], d)

    run = run_em(initial_posteriors(d, init, seed), step, d, n_iter=n_iter, tol=tol)
    run.warn_unless_converged(func, stacklevel=4)
    labels = pd.Index(annotations.scale.labels, name="label")
    priors = pd.Series(last["rho"] / last["rho"].sum(), index=labels, name="prior")
    return cls(**AnnotatorModel.core(annotations, d, run), priors=priors, confusion=last["conf"],
               **extra())  # fmt: skip


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
    smoothing = check_nonnegative(func, "smoothing", smoothing)
    d = data_codes(func, annotations, n_iter=n_iter, tol=tol, init=init)

    def confusion(T: FloatArray) -> FloatArray:
        conf = answer_sums(T, d) + smoothing  # (a, c, y)
        np.maximum(conf, EPS, out=conf)
        conf /= conf.sum(axis=2, keepdims=True)
        return conf

    return fit_confusions(DawidSkeneResult, annotations, d, func=func, confusion=confusion,
                          init=init, n_iter=n_iter, tol=tol, seed=seed)  # fmt: skip
