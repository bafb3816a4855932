r"""What every soft-label baseline shares: target checks, softmax, the L-BFGS linear model.

Notation. ``N`` items, ``d`` features, ``K`` ordered classes. ``X`` (N, d)
features (dense or scipy.sparse), ``Y`` (N, K) target distributions,
``n`` (N,) annotations per item, ``W`` (d, K) weights, ``b`` (K,) biases,
``Z = X W + b`` the scores and ``Q = softmax(Z)`` the predicted
distributions. Every model minimises

.. math::

    \frac{1}{N}\Big(\sum_i \ell(y_i, q_i) + \frac{1}{2C}\lVert W\rVert_2^2\Big),

the objective of :class:`sklearn.linear_model.LogisticRegression` divided by
``C N`` (the same minimiser; the division only keeps L-BFGS's numbers of
order one), biases unpenalised.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import optimize, sparse
from sklearn.base import BaseEstimator
from threadpoolctl import threadpool_limits

from dissensus._exceptions import DataError
from dissensus._validation import as_prob_matrix
from dissensus.data import LabelCounts

__all__ = ["LinearParams", "Targets", "as_features", "as_targets", "softmax", "softmax_backward"]

FloatArray = npt.NDArray[np.float64]
#: A dense (N, d) float64 array or a scipy.sparse CSR matrix.
Features = Any


@dataclass(frozen=True)
class Targets:
    """Checked training targets.

    Attributes
    ----------
    proportions : ndarray, shape (N, K)
        Target distributions, rows on the simplex.
    n : ndarray or None, shape (N,)
        Annotations per item when known (a LabelCounts, or ``n=`` given).
    counts : ndarray or None, shape (N, K)
        Label counts when given as LabelCounts (whole numbers).
    """

    proportions: FloatArray
    n: FloatArray | None
    counts: FloatArray | None

    @property
    def K(self) -> int:
        """Number of classes."""
        return int(self.proportions.shape[1])


def as_features(X: Any, name: str = "X") -> Features:
    """``X`` as a float64 CSR matrix (sparse input) or a 2-D float64 array, all finite."""
    out: Any
    if sparse.issparse(X):
        given: Any = X  # scipy-stubs type issparse's argument as its abstract base
        out = given.tocsr().astype(np.float64)
        data = out.data
    else:
        arr = np.asarray(X, dtype=np.float64)
        if arr.ndim != 2:
            msg = f"`{name}` must be a 2-D (N items, d features) matrix; got shape {arr.shape}."
            raise DataError(msg)
        out = arr
        data = arr
    if not np.all(np.isfinite(data)):
        msg = f"`{name}` holds NaN or infinite features; impute or drop them before fitting."
        raise DataError(msg)
    return out


def as_targets(
    Y: Any,
    n_rows: int,
    *,
    n: npt.ArrayLike | None = None,
    n_classes: int | None = None,
    estimator: str = "fit",
) -> Targets:
    """Check training targets: a LabelCounts or an (N, K) matrix of distributions.

    Raises
    ------
    DataError
        Rows that do not sum to 1, NaN or negative entries, a number of rows
        other than ``X``'s, fewer than two classes, ``K`` other than
        ``n_classes``, or items without annotations.
    """
    counts: FloatArray | None = None
    if isinstance(Y, LabelCounts):
        n_arr = Y.n.astype(np.float64)
        empty = np.flatnonzero(n_arr == 0)
        if empty.size:
            msg = (
                f"{estimator}: {empty.size} training items have no annotations (e.g. item "
                f"{Y.items[empty[0]]!r}); their target distribution is undefined. Drop them."
            )
            raise DataError(msg)
        counts = Y.values.astype(np.float64)
        P = counts / n_arr[:, None]
        n_given: FloatArray | None = n_arr
    else:
        arr = np.asarray(Y)
        if arr.ndim == 1:
            msg = (
                f"{estimator}: `Y` is 1-D (hard labels?); give an (N, K) matrix of target "
                "distributions (one-hot rows for hard labels) or a LabelCounts."
            )
            raise DataError(msg)
        P = as_prob_matrix(arr, "Y")
        n_given = None
    if n is not None:
        n_arr = np.asarray(n, dtype=np.float64).ravel()
        if n_arr.shape[0] != P.shape[0] or not np.all(np.isfinite(n_arr) & (n_arr > 0)):
            msg = (
                f"{estimator}: `n` must hold one positive number of annotations per row of `Y` "
                f"({P.shape[0]}); got {n_arr.shape[0]} values, min {np.nanmin(n_arr) if n_arr.size else 'none'}."
            )
            raise DataError(msg)
        n_given = n_arr
    if P.shape[0] != n_rows:
        msg = f"{estimator}: `Y` has {P.shape[0]} rows but `X` has {n_rows}; give one target row per item."
        raise DataError(msg)
    K = P.shape[1]
    if K < 2:
        msg = f"{estimator}: `Y` has {K} class; a distribution needs at least 2 classes."
        raise DataError(msg)
    if n_classes is not None and n_classes != K:
        msg = (
            f"{estimator}: `Y` has {K} classes but the estimator was built with "
            f"n_classes={n_classes}; give targets over {n_classes} classes."
        )
        raise DataError(msg)
    return Targets(np.ascontiguousarray(P), n_given, counts)


def softmax(Z: FloatArray) -> FloatArray:
    """Row-wise softmax, shifted by the row maximum (no overflow)."""
    E = np.exp(Z - Z.max(axis=1, keepdims=True))
    out: FloatArray = E / E.sum(axis=1, keepdims=True)
    return out


def softmax_backward(Q: FloatArray, G: FloatArray) -> FloatArray:
    r"""Chain ``G = dL/dQ`` through the softmax: :math:`dL/dz_j = q_j (g_j - \sum_k q_k g_k)`."""
    out: FloatArray = Q * (G - (Q * G).sum(axis=1, keepdims=True))
    return out


def minimize_lbfgs(
    fun: Any, x0: FloatArray, *, max_iter: int, tol: float, n_jobs: int | None = 1
) -> tuple[FloatArray, int, bool]:
    """L-BFGS-B with an analytic gradient (``fun`` returns ``(value, grad)``).

    ``n_jobs`` limits the BLAS / OpenMP threads during the fit (see
    :class:`~dissensus.models.SoftmaxRegression`). Returns the solution, the
    number of iterations and whether it converged.
    """
    with threadpool_limits(limits=n_jobs):
        res = optimize.minimize(
            fun,
            x0,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": int(max_iter), "gtol": float(tol), "ftol": float(tol) * 1e-3},
        )
    return np.asarray(res.x, dtype=np.float64), int(res.nit), bool(res.success)


def check_positive(estimator: str, name: str, value: float) -> float:
    """The standard parameter error for a number that must be finite and > 0."""
    v = float(value)
    if not (np.isfinite(v) and v > 0):
        msg = (
            f"The {name!r} parameter of {estimator} must be finite and > 0. Got {value!r} instead."
        )
        raise ValueError(msg)
    return v


class LinearParams(BaseEstimator):  # type: ignore[misc]
    """The parameters every linear soft-label model shares, and its input checks.

    ``C`` inverse L2 strength (as scikit-learn's ``LogisticRegression``),
    ``max_iter`` and ``tol`` of L-BFGS, ``n_classes`` the number of classes
    the targets must have (None: from ``Y``), ``n_jobs`` the BLAS / OpenMP
    threads during the fit.
    """

    def __init__(
        self,
        *,
        C: float = 1.0,
        max_iter: int = 200,
        tol: float = 1e-5,
        n_classes: int | None = None,
        n_jobs: int | None = 1,
    ) -> None:
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        self.n_classes = n_classes
        self.n_jobs = n_jobs

    def _fit_inputs(self, X: Any, Y: Any, n: npt.ArrayLike | None) -> tuple[float, Any, Targets]:
        """``(C, X, targets)`` checked, as every ``fit`` starts."""
        name = type(self).__name__
        C = check_positive(name, "C", self.C)
        Xc = as_features(X)
        T = as_targets(Y, Xc.shape[0], n=n, n_classes=self.n_classes, estimator=f"{name}.fit")
        return C, Xc, T
