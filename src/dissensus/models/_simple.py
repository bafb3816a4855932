r"""Reference predictors: the global label marginal, and shrinkage towards it by annotation count."""

from __future__ import annotations

import time
from dataclasses import KW_ONLY, dataclass
from typing import Self

import numpy as np
import numpy.typing as npt
from sklearn.base import BaseEstimator, clone

from dissensus._exceptions import DataError
from dissensus.models._base import (
    Features,
    FeaturesLike,
    SoftLabelModel,
    Targets,
    TargetsLike,
    as_features,
    as_targets,
    check_positive,
)

__all__ = ["Marginal", "Shrinkage"]

FloatArray = npt.NDArray[np.float64]


@dataclass(eq=False, repr=False, kw_only=True)
class Marginal(SoftLabelModel):
    r"""Predict the training items' mean target distribution for every item.

    :math:`\bar y = \frac{1}{N}\sum_i y_i`; ignores the features. The floor
    every model must beat.

    Parameters
    ----------
    n_classes : int, optional

    Examples
    --------
    >>> Marginal().fit(np.zeros((2, 1)), [[1.0, 0.0], [0.5, 0.5]]).predict_proba(np.zeros((1, 1)))
    array([[0.75, 0.25]])
    """

    def _fit(self, X: Features, T: Targets) -> None:
        self.marginal_ = T.proportions.mean(axis=0)

    def _predict(self, X: Features) -> FloatArray:
        """The marginal, once per row of ``X``."""
        return np.tile(self.marginal_, (X.shape[0], 1))


@dataclass(eq=False, repr=False)
class Shrinkage(BaseEstimator):  # type: ignore[misc]
    r"""Blend a model's prediction with the label marginal, by each item's annotation count.

    .. math::

        q_i = w_i\, \hat q_i + (1 - w_i)\, \bar y, \qquad w_i = \frac{n_i}{n_i + \lambda},

    the posterior-mean weight of a Dirichlet prior of total strength
    :math:`\lambda` centred on the marginal :math:`\bar y`: an item with
    few annotations gets a prediction close to the marginal. ``n_i`` is the
    number of annotations the evaluated item has (known when the item is
    annotated, whatever its labels), passed to :meth:`predict_proba`.

    Parameters
    ----------
    estimator : estimator
        A soft-label model (cloned and fitted by :meth:`fit`).
    strength : float, optional
        :math:`\lambda`; default ``K`` (the uniform Dirichlet prior's total).
    refit : bool, default True
        ``False``: ``estimator`` is already fitted on the same training
        items and is used as is (no second fit).

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
        self.marginal_ = P.mean(axis=0)
        K = P.shape[1]
        self.strength_ = float(K)
        if self.strength is not None:
            self.strength_ = check_positive("Shrinkage", "strength", self.strength)
        self.n_features_in_ = Xc.shape[1]
        self.n_classes_ = K
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
