r"""What every soft-label baseline shares (input checks, fit template, linear objective).

Also the reference predictors: the label marginal, and shrinkage towards it
by annotation count. Notation. ``N`` items, ``d`` features, ``K`` ordered classes. ``X`` (N, d)
features (dense or scipy.sparse), ``Y`` (N, K) target distributions,
``n`` (N,) annotations per item, ``W`` (d, K) weights, ``b`` (K,) biases,
``Z = X W + b`` the scores and ``Q = softmax(Z)`` the predicted
distributions. Every linear model minimises

.. math::

    \frac{1}{N}\Big(\sum_i \ell(y_i, q_i) + \frac{1}{2C}\lVert W\rVert_2^2\Big),

the objective of :class:`sklearn.linear_model.LogisticRegression` divided by
``C N`` (the same minimiser, with L-BFGS's numbers of order one), biases
unpenalised; :meth:`LinearModel._minimize` adds the penalty and the scaling
to each model's summed loss. The estimators are dataclasses whose fields,
all keyword-only, are scikit-learn's ``get_params()``; ``fit`` sets
``n_features_in_``, ``n_classes_`` and ``fit_time_`` (seconds).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from typing import Any, Self, TypeAlias

import numpy as np
import numpy.typing as npt
from scipy import optimize, sparse
from sklearn.base import BaseEstimator, clone
from threadpoolctl import threadpool_limits

from dissensus._exceptions import DataError
from dissensus._validation import as_prob_matrix
from dissensus.data import LabelCounts

FloatArray = npt.NDArray[np.float64]
#: Features given to ``fit`` and ``predict_proba``: an (N, d) array or a scipy.sparse matrix.
FeaturesLike: TypeAlias = npt.ArrayLike | sparse.spmatrix | sparse.sparray
#: Training targets: label counts, or an (N, K) matrix of distributions.
TargetsLike: TypeAlias = LabelCounts | npt.ArrayLike
#: A summed loss of the parameters and its gradient.
Loss: TypeAlias = Callable[[FloatArray], tuple[float, FloatArray]]
#: Checked features: a float64 CSR matrix or 2-D array (scipy-stubs type CSR products loosely).
Features: TypeAlias = Any


@dataclass(frozen=True)
class Targets:
    """Checked targets: distributions (N, K), and annotation counts (N,) and (N, K) if known."""

    proportions: FloatArray
    n: FloatArray | None
    counts: FloatArray | None

    @property
    def K(self) -> int:
        """Number of classes."""
        return int(self.proportions.shape[1])


def as_features(X: FeaturesLike, name: str = "X") -> Features:
    """``X`` as a float64 CSR matrix (sparse input) or a 2-D float64 array, all finite."""
    if isinstance(X, sparse.spmatrix | sparse.sparray):
        given: Any = X  # scipy-stubs do not give every sparse class .tocsr()
        out = given.tocsr().astype(np.float64)
        data = out.data
    else:
        out = data = np.asarray(X, dtype=np.float64)
        if out.ndim != 2:
            msg = f"`{name}` must be a 2-D (N items, d features) matrix; got shape {out.shape}."
            raise DataError(msg)
    if not np.all(np.isfinite(data)):
        msg = f"`{name}` holds NaN or infinite features; impute or drop them before fitting."
        raise DataError(msg)
    return out


def as_targets(
    Y: TargetsLike,
    n_rows: int,
    *,
    n: npt.ArrayLike | None = None,
    n_classes: int | None = None,
    estimator: str = "fit",
) -> Targets:
    """Check training targets (label counts or an (N, K) matrix of distributions), or DataError.

    Counts are a LabelCounts or an integer-typed (N, K) array (what
    scikit-learn's ``GridSearchCV`` passes on, see :mod:`dissensus.sklearn`);
    a float array holds distributions.
    """
    counts: FloatArray | None = None
    n_given: FloatArray | None = None
    if not isinstance(Y, LabelCounts) and np.asarray(Y).dtype.kind in "iu":
        Y = LabelCounts.from_array(Y)
    if isinstance(Y, LabelCounts):
        n_given = Y.n.astype(np.float64)
        empty = np.flatnonzero(n_given == 0)
        if empty.size:
            msg = (
                f"{estimator}: {empty.size} training items have no annotations (e.g. item "
                f"{Y.items[empty[0]]!r}); their target distribution is undefined. Drop them."
            )
            raise DataError(msg)
        counts = Y.values.astype(np.float64)
        P = counts / n_given[:, None]
    else:
        if np.ndim(Y) == 1:
            msg = (
                f"{estimator}: `Y` is 1-D (hard labels?); give an (N, K) matrix of target "
                "distributions (one-hot rows for hard labels) or a LabelCounts."
            )
            raise DataError(msg)
        P = as_prob_matrix(np.asarray(Y), "Y")
    if n is not None:
        n_given = np.asarray(n, dtype=np.float64).ravel()
        if n_given.shape[0] != P.shape[0] or not np.all(np.isfinite(n_given) & (n_given > 0)):
            least = np.nanmin(n_given) if n_given.size else "none"
            msg = (
                f"{estimator}: `n` must hold one positive number of annotations per row of `Y` "
                f"({P.shape[0]}); got {n_given.shape[0]} values, min {least}."
            )
            raise DataError(msg)
    N, K = P.shape
    for bad, why in [
        (n_rows != N, f"`Y` has {N} rows but `X` has {n_rows}; give one target row per item."),
        (K < 2, f"`Y` has {K} class; a distribution needs at least 2 classes."),
        (n_classes not in (None, K), f"`Y` has {K} classes but the estimator was built with "
         f"n_classes={n_classes}; give targets over {n_classes} classes."),
    ]:  # fmt: skip
        if bad:
            msg = f"{estimator}: {why}"
            raise DataError(msg)
    return Targets(np.ascontiguousarray(P), n_given, counts)


def check_positive(estimator: str, name: str, value: float) -> float:
    """The standard parameter error for a number that must be finite and > 0."""
    v = float(value)
    if not (np.isfinite(v) and v > 0):
        msg = f"The {name!r} parameter of {estimator} must be finite and > 0. Got {value!r}."
        raise ValueError(msg)
    return v


@dataclass(eq=False, repr=False, kw_only=True)
class SoftLabelModel(BaseEstimator):  # type: ignore[misc]
    """``fit`` and ``predict_proba`` with every input check, around ``_fit`` and ``_predict``."""

    n_classes: int | None = None

    def _check_params(self) -> None:
        """Refuse bad constructor parameters (called first by :meth:`fit`)."""

    def _fit(self, X: Features, T: Targets) -> None:
        raise NotImplementedError

    def _predict(self, X: Features) -> FloatArray:
        raise NotImplementedError

    def fit(self, X: FeaturesLike, Y: TargetsLike, *, n: npt.ArrayLike | None = None) -> Self:
        """Fit to targets ``Y``: an (N, K) matrix of distributions, or label counts.

        Counts: a LabelCounts or an integer (N, K) array.

        ``n`` (annotations per item) is needed only by models that use counts
        (:class:`~dissensus.models.ExpectedEMDRegression`) when ``Y`` is a matrix.
        """
        t0 = time.perf_counter()
        self._check_params()
        Xc = as_features(X)
        name = f"{type(self).__name__}.fit"
        T = as_targets(Y, Xc.shape[0], n=n, n_classes=self.n_classes, estimator=name)
        self._fit(Xc, T)
        self.n_features_in_, self.n_classes_ = Xc.shape[1], T.K
        self.fit_time_ = time.perf_counter() - t0
        return self

    def predict_proba(self, X: FeaturesLike) -> FloatArray:
        """Predicted distributions, shape (N, K), rows summing to 1."""
        name = type(self).__name__
        if not hasattr(self, "n_features_in_"):
            msg = f"This {name} is not fitted yet; call fit(X, Y) first."
            raise ValueError(msg)
        Xc = as_features(X)
        if Xc.shape[1] != self.n_features_in_:
            msg = (
                f"`X` has {Xc.shape[1]} features but {name} was fitted with "
                f"{self.n_features_in_}; transform it with the featuriser fitted on the training items."
            )
            raise DataError(msg)
        return self._predict(Xc)


@dataclass(eq=False, repr=False, kw_only=True)
class LinearModel(SoftLabelModel):
    """L2-penalised weights (``C``) fitted by L-BFGS on ``n_jobs`` BLAS / OpenMP threads."""

    C: float = 1.0
    max_iter: int = 200
    tol: float = 1e-5
    n_jobs: int | None = 1

    def _check_params(self) -> None:
        check_positive(type(self).__name__, "C", self.C)

    def _minimize(self, loss: Loss, x0: FloatArray, *, n_weights: int, N: int) -> FloatArray:
        """Minimise ``(loss(x) + |x[:n_weights]|² / 2C) / N`` from ``x0`` (``loss``: sum, gradient)."""
        C = float(self.C)

        def fun(x: FloatArray) -> tuple[float, FloatArray]:
            value, grad = loss(x)
            w = x[:n_weights]
            grad[:n_weights] += w / C
            return (value + float((w * w).sum()) / (2.0 * C)) / N, grad / N

        tol = float(self.tol)
        options: Any = {"maxiter": int(self.max_iter), "gtol": tol, "ftol": tol * 1e-3}
        with threadpool_limits(limits=self.n_jobs):
            res = optimize.minimize(fun, x0, jac=True, method="L-BFGS-B", options=options)
        self.n_iter_, self.converged_ = int(res.nit), bool(res.success)
        return np.asarray(res.x, dtype=np.float64)


@dataclass(eq=False, repr=False, kw_only=True)
class Marginal(SoftLabelModel):
    r"""Predict the training items' mean target distribution for every item.

    :math:`\bar y = \frac{1}{N}\sum_i y_i`; ignores the features. The floor
    every model must beat (``n_classes``: see :mod:`dissensus.models`).

    Examples
    --------
    >>> Marginal().fit(np.zeros((2, 1)), [[1.0, 0.0], [0.5, 0.5]]).predict_proba(np.zeros((1, 1)))
    array([[0.75, 0.25]])
    """

    def _fit(self, X: Features, T: Targets) -> None:
        self.marginal_ = T.proportions.mean(axis=0)

    def _predict(self, X: Features) -> FloatArray:
        return np.tile(self.marginal_, (X.shape[0], 1))


@dataclass(eq=False, repr=False)
class Shrinkage(BaseEstimator):  # type: ignore[misc]
    r"""Blend a model's prediction with the label marginal, by each item's annotation count.

    .. math::

        q_i = w_i\, \hat q_i + (1 - w_i)\, \bar y, \qquad w_i = \frac{n_i}{n_i + \lambda},

    the posterior-mean weight of a Dirichlet prior of strength :math:`\lambda`
    centred on the marginal :math:`\bar y`: an item with few annotations
    gets a prediction close to the marginal. ``n_i``, the evaluated item's
    annotation count, is passed to :meth:`predict_proba`. ``estimator`` is
    a soft-label model, cloned and fitted by :meth:`fit` (with
    ``refit=False``: used as already fitted on the same items);
    ``strength`` is :math:`\lambda`, default ``K`` (the uniform Dirichlet prior's total).

    Examples
    --------
    >>> from dissensus.models import Marginal
    >>> X, Y = np.zeros((2, 1)), [[1.0, 0.0], [0.5, 0.5]]
    >>> s = Shrinkage(Marginal(), strength=2.0).fit(X, Y)
    >>> s.predict_proba(np.zeros((1, 1)), n=[2]).tolist()
    [[0.75, 0.25]]
    """

    estimator: SoftLabelModel
    _: KW_ONLY
    strength: float | None = None
    refit: bool = True

    def fit(self, X: FeaturesLike, Y: TargetsLike, *, n: npt.ArrayLike | None = None) -> Self:
        """Fit the model and the marginal on the same targets."""
        t0 = time.perf_counter()
        Xc = as_features(X)
        P = as_targets(Y, Xc.shape[0], n=n, estimator="Shrinkage.fit").proportions
        if self.refit:
            self.estimator_ = clone(self.estimator).fit(Xc, Y, n=n)
        elif getattr(self.estimator, "n_features_in_", None) != Xc.shape[1]:
            msg = (
                "Shrinkage(refit=False) needs an estimator already fitted on these training "
                f"items ({Xc.shape[1]} features); fit it first or use refit=True."
            )
            raise ValueError(msg)
        else:
            self.estimator_ = self.estimator
        self.marginal_, self.n_features_in_, self.n_classes_ = P.mean(0), Xc.shape[1], P.shape[1]
        self.strength_ = float(self.n_classes_)
        if self.strength is not None:
            self.strength_ = check_positive("Shrinkage", "strength", self.strength)
        self.fit_time_ = time.perf_counter() - t0
        return self

    def predict_proba(self, X: FeaturesLike, *, n: npt.ArrayLike | None = None) -> FloatArray:
        """Blended distributions; ``n`` (annotations per item, shape (N,)) is required."""
        if not hasattr(self, "estimator_"):
            msg = "This Shrinkage is not fitted yet; call fit(X, Y) first."
            raise ValueError(msg)
        q = np.asarray(self.estimator_.predict_proba(X), dtype=np.float64)
        if n is None:
            msg = (
                "Shrinkage.predict_proba needs `n`, the number of annotations of each item, "
                "to weigh the model against the marginal."
            )
            raise DataError(msg)
        n_arr = np.asarray(n, dtype=np.float64).ravel()
        if n_arr.shape[0] != q.shape[0] or not np.all(np.isfinite(n_arr) & (n_arr >= 0)):
            msg = (
                f"Shrinkage.predict_proba: `n` must hold {q.shape[0]} non-negative counts (one per "
                f"row of X); got {n_arr.shape[0]} values."
            )
            raise DataError(msg)
        w = (n_arr / (n_arr + self.strength_))[:, None]
        out: FloatArray = w * q + (1.0 - w) * self.marginal_
        return out
