"""What the EM aggregators share: option checks, data codes, the EM loop, the result's core.

Notation as in :mod:`dissensus.aggregation._dawid_skene`: ``i``, ``a``, ``y``
the item, annotator and answer codes of each of the ``M`` annotations; ``N``
items, ``R`` annotators, ``K`` labels; ``T`` the (N, K) item posteriors.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError, DissensusWarning
from dissensus._validation import check_option
from dissensus.data import Annotations, Scale

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
#: One EM iteration: an M step then an E step, ``T -> (T_new, log-likelihood)``.
Step = Callable[[FloatArray], tuple[FloatArray, float]]

#: Floor of the probabilities whose logs are taken (as crowd-kit's ``_EPS``).
EPS = 1e-10


class ConvergenceWarning(DissensusWarning):
    """An iterative fit stopped at its iteration limit before converging."""


@dataclass(frozen=True)
class Data:
    """The long codes of annotations with annotator ids, and their sizes."""

    i: IntArray
    a: IntArray
    y: IntArray
    N: int
    R: int
    K: int
    annotators: pd.Index
    labels: pd.Index  # the scale's labels, named "label"


def check_number(func: str, name: str, value: float, *, count: bool = False) -> float:
    """A finite number >= 0 (a whole number >= 1 if ``count``), or ValueError naming it."""
    if (int(value) >= 1) if count else (math.isfinite(value) and value >= 0):
        return int(value) if count else float(value)
    need = "at least 1" if count else "a finite number >= 0"
    msg = f"The {name!r} parameter of {func} must be {need}. Got {value!r} instead."
    raise ValueError(msg)


def data_codes(
    func: str, annotations: Annotations, *, n_iter: int, tol: float, init: str | None = None
) -> Data:
    """Check the EM options (ValueError), then the codes of Annotations with annotator ids."""
    if init is not None:
        check_option(func, "init", init, ("majority", "random"))
    check_number(func, "n_iter", n_iter, count=True)
    check_number(func, "tol", tol)
    given: object = annotations  # users pass other things despite the annotation
    if not isinstance(given, Annotations):
        msg = f"{func} expects Annotations with annotator ids; got {type(given).__name__}."
        raise TypeError(msg)
    a = annotations
    if a.annotator_codes is None or a.annotators is None:
        msg = (
            f"{func} models each annotator, so it needs annotator ids; load the annotations "
            "with annotator='<column>'."
        )
        raise DataError(msg)
    return Data(a.item_codes, a.annotator_codes, a.label_codes, a.n_items, len(a.annotators),
                a.scale.K, a.annotators, pd.Index(a.scale.labels, name="label"))  # fmt: skip


def log_normalize(L: FloatArray) -> tuple[FloatArray, float]:
    """Rows of ``exp(L)`` normalised, and the sum of the rows' log normalisers.

    scipy's logsumexp costs more than the rest of an EM step on small data.
    """
    top = L.max(axis=1, keepdims=True)
    E = np.exp(L - top)
    total = E.sum(axis=1, keepdims=True)
    E /= total
    return E, float((np.log(total) + top).sum())


@dataclass(frozen=True)
class EMRun:
    """Where an EM run stopped: posteriors and the convergence record."""

    T: FloatArray
    history: tuple[float, ...]
    change: float
    tol: float
    converged: bool  # the last iteration moved every posterior by less than ``tol``

    def warn_unless_converged(self, func: str, *, stacklevel: int = 3) -> None:
        """The one ConvergenceWarning text of the aggregators (``stacklevel``: the user's call)."""
        if not self.converged:
            warnings.warn(
                f"{func} stopped after {len(self.history)} iterations without converging (the "
                f"posteriors still moved by {self.change:.3g} > tol={self.tol:g}); raise n_iter.",
                ConvergenceWarning,
                stacklevel=stacklevel,
            )


def column_of_max(frame: pd.DataFrame) -> npt.NDArray[np.object_]:
    """The column label of each row's maximum (the first on ties)."""
    columns = np.asarray(frame.columns, dtype=object)
    out: npt.NDArray[np.object_] = columns[frame.to_numpy().argmax(axis=1)]
    return out


def run_em(T: FloatArray, step: Step, d: Data, *, n_iter: int, tol: float) -> EMRun:
    """Iterate ``T, loglik = step(T)`` until no ``T`` moves by ``tol`` (or ``n_iter`` times).

    The history holds the log-likelihood per annotation after each iteration.
    """
    history: list[float] = []
    change = math.inf
    M = max(d.y.size, 1)
    for _ in range(int(n_iter)):
        T_new, loglik = step(T)
        change = float(np.abs(T_new - T).max())
        T = T_new
        history.append(loglik / M)
        if change < tol:
            break
    return EMRun(T, tuple(history), change, float(tol), change < tol)


@dataclass(frozen=True)
class AnnotatorModel:
    """What every fitted annotator model holds: item posteriors and the convergence record.

    Attributes
    ----------
    posterior : pandas.DataFrame
        ``T[i, c]``, P(item ``i``'s true label is ``c``): rows items (in the
        order of the annotations), columns the scale's labels; rows sum to 1.
    annotators, n_annotations : pandas.Index, ndarray of int64
        Annotator ids (the order of the per-annotator arrays), annotations of each.
    scale : Scale
    log_likelihood : tuple of float
        Observed-data log-likelihood per annotation after each iteration.
    n_iter, converged, tol : int, bool, float
        Iterations run; whether the last moved no posterior by ``tol`` or more.
    """

    posterior: pd.DataFrame
    annotators: pd.Index
    n_annotations: IntArray = field(repr=False)
    scale: Scale
    log_likelihood: tuple[float, ...] = field(repr=False)
    n_iter: int
    converged: bool
    tol: float

    @property
    def labels(self) -> pd.Series:
        """The most probable label of each item (the first on ties)."""
        return pd.Series(column_of_max(self.posterior), index=self.posterior.index, name="label")

    def _per_annotator(self, **columns: npt.ArrayLike) -> pd.DataFrame:
        """A reliability table: ``n_annotations`` and ``columns``, one row per annotator."""
        return pd.DataFrame({"n_annotations": self.n_annotations, **columns}, index=self.annotators)

    @staticmethod
    def core(annotations: Annotations, d: Data, run: EMRun) -> dict[str, Any]:
        """The shared fields of a result, from the annotations and the EM run."""
        return {"posterior": pd.DataFrame(run.T, index=annotations.items, columns=d.labels),
                "annotators": d.annotators, "n_annotations": np.bincount(d.a, minlength=d.R).astype(np.int64),
                "scale": annotations.scale, "log_likelihood": run.history,
                "n_iter": len(run.history), "converged": run.converged, "tol": run.tol}  # fmt: skip
