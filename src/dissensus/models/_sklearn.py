r"""Soft-label baselines on scikit-learn estimators, and the study's featuriser.

A soft target is a set of weighted hard rows: item :math:`i` with target
distribution :math:`y_i` becomes one row per class :math:`k` with
:math:`y_{ik} > 0`, label :math:`k` and sample weight :math:`y_{ik}`. For a multinomial loss this is exact:
:math:`\sum_k y_{ik}\,(-\ln q_{ik})` is the weighted sum of the hard losses,
and for Naive Bayes the weighted counts are the fractional counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import MultinomialNB
from sklearn.preprocessing import OneHotEncoder
from threadpoolctl import threadpool_limits

from dissensus._exceptions import DataError
from dissensus._validation import examples
from dissensus.models._base import Features, LinearModel, SoftLabelModel, Targets, check_positive
from dissensus.posterior import soft_labels

FloatArray = npt.NDArray[np.float64]


def expand_soft_targets(
    X: Features, P: FloatArray
) -> tuple[Features, npt.NDArray[np.int64], FloatArray]:
    """Rows of ``X`` repeated once per class with positive target mass: (X_rows, labels, weights).

    Examples
    --------
    >>> Xe, y, w = expand_soft_targets(np.eye(2), np.array([[0.25, 0.75], [1.0, 0.0]]))
    >>> y.tolist(), w.tolist()
    ([0, 1, 0], [0.25, 0.75, 1.0])
    """
    rows, labels = np.nonzero(P > 0)
    return X[rows], labels.astype(np.int64), P[rows, labels]


class _OnWeightedRows(SoftLabelModel):
    """A scikit-learn classifier ``model_`` fitted on weighted hard rows."""

    model_: Any

    def _predict(self, X: Features) -> FloatArray:
        """Columns for every class 0..K-1 (a class no training item had gets probability 0)."""
        out = np.zeros((X.shape[0], self.n_classes_))
        out[:, np.asarray(self.model_.classes_, dtype=np.int64)] = self.model_.predict_proba(X)
        return out


@dataclass(eq=False, repr=False, kw_only=True)
class SoftCrossEntropy(LinearModel, _OnWeightedRows):
    r"""Model A: multinomial logistic regression on soft targets (soft cross-entropy).

    Minimises :math:`\sum_i \sum_k y_{ik}(-\ln q_{ik}) + \lVert W\rVert^2/(2C)`
    with scikit-learn's ``LogisticRegression`` (L-BFGS) on weighted hard
    rows (see the module notes): the objective of
    :class:`~dissensus.models.SoftmaxRegression`, solved by scikit-learn.
    Deterministic. Parameters as the linear models' (:mod:`dissensus.models`;
    ``n_jobs`` MovieLens demo: 0.9 s with one thread, 31 s with two).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]] * 10)
    >>> Y = np.array([[0.9, 0.1], [0.2, 0.8]] * 10)
    >>> SoftCrossEntropy(C=100.0).fit(X, Y).predict_proba(X[:2]).round(2)
    array([[0.9, 0.1],
           [0.2, 0.8]])
    """

    def _targets(self, P: FloatArray) -> FloatArray:
        """The soft targets the model is fitted to (here the given distributions)."""
        return P

    def _fit(self, X: Features, T: Targets) -> None:
        Xe, y, w = expand_soft_targets(X, self._targets(T.proportions))
        self.model_ = LogisticRegression(C=float(self.C), max_iter=self.max_iter, tol=self.tol)
        with threadpool_limits(limits=self.n_jobs):
            self.model_.fit(Xe, y, sample_weight=w)
        self.n_iter_ = int(np.max(self.model_.n_iter_))
        self.converged_ = self.n_iter_ < self.max_iter


@dataclass(eq=False, repr=False, kw_only=True)
class SmoothedKL(SoftCrossEntropy):
    r"""Model B: multinomial logistic regression with KL to Gaussian-smoothed targets.

    The targets are :func:`dissensus.posterior.soft_labels` with
    ``method="gaussian"``: each class's mass spread over the ordered classes
    by a Gaussian kernel of width ``sigma`` class steps (default 0.5; the
    classes must be ordered: the column order). Minimising
    :math:`\mathrm{KL}(\tilde y \,\|\, q) = \sum_k \tilde y_k \ln(\tilde y_k/q_k)`
    is minimising the soft cross-entropy to :math:`\tilde y` (the two differ by
    the entropy of :math:`\tilde y`, which does not depend on the model).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]] * 10)
    >>> Y = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]] * 10)
    >>> SmoothedKL(C=100.0).fit(X, Y).predict_proba(X[:1]).round(2)
    array([[0.88, 0.12, 0.  ]])
    """

    sigma: float = 0.5

    def _targets(self, P: FloatArray) -> FloatArray:
        K = P.shape[1]
        # soft_labels is linear in the proportions: smoothing the one-hot rows
        # of an identity count matrix gives the kernel (columns in class order)
        kernel = soft_labels(np.eye(K, dtype=np.int64), method="gaussian", sigma=self.sigma)
        smooth: FloatArray = P @ kernel
        smooth /= smooth.sum(axis=1, keepdims=True)
        return smooth


@dataclass(eq=False, repr=False, kw_only=True)
class SoftNaiveBayes(_OnWeightedRows):
    r"""Multinomial Naive Bayes trained on soft labels (fractional counts).

    Class :math:`k` collects the feature counts of every item weighted by
    :math:`y_{ik}`, its prior is :math:`\sum_i y_{ik} / N`, features are
    smoothed with ``smoothing`` (default 1.0, Laplace): the Naive Bayes classifier
    of Teufel's MLRD lecture notes (University of Cambridge) with soft
    labels, as scikit-learn's ``MultinomialNB`` on weighted hard rows.
    Features must be non-negative (counts, TF-IDF).

    Examples
    --------
    >>> X = np.array([[3.0, 0.0], [0.0, 3.0]] * 10)
    >>> Y = np.array([[0.9, 0.1], [0.2, 0.8]] * 10)
    >>> q = SoftNaiveBayes().fit(X, Y).predict_proba(X[:2])
    >>> bool(q[0, 0] > 0.5 > q[1, 0])
    True
    """

    smoothing: float = 1.0

    def _check_params(self) -> None:
        check_positive("SoftNaiveBayes", "smoothing", self.smoothing)

    def _fit(self, X: Features, T: Targets) -> None:
        data = np.asarray(X.data if hasattr(X, "tocsr") else X)  # sparse: the stored values
        if data.size and float(data.min()) < 0:
            msg = (
                "SoftNaiveBayes needs non-negative features (counts or TF-IDF); `X` has negative "
                "values. Use a non-negative featuriser (e.g. one-hot instead of standardised columns)."
            )
            raise DataError(msg)
        Xe, y, w = expand_soft_targets(X, T.proportions)
        self.model_ = MultinomialNB(alpha=float(self.smoothing)).fit(Xe, y, sample_weight=w)


@dataclass(eq=False, repr=False, kw_only=True)
class TextFeatures(BaseEstimator):  # type: ignore[misc]
    """TF-IDF features of a text column, with optional one-hot categorical columns.

    A scikit-learn transformer of an item table (a DataFrame): the ``text``
    column by ``TfidfVectorizer`` (L2-normalised rows, sublinear term
    frequency; ``max_features`` most frequent terms of ``ngram_range``, each
    in at least ``min_df`` training items), each ``categorical`` column
    one-hot (missing is a category, an unseen one gives zeros); all
    non-negative. Fit on training items only.

    Examples
    --------
    >>> items = pd.DataFrame({"text": ["a red car", "a blue car", "red wine"], "decade": ["1990s", "2000s", None]})
    >>> f = TextFeatures(categorical=["decade"], min_df=1, ngram_range=(1, 1))
    >>> f.fit_transform(items).shape  # red, car, blue, wine ("a" is too short) + 3 decades
    (3, 7)
    """

    text: str = "text"
    categorical: Sequence[str] = ()
    max_features: int = 20000
    ngram_range: tuple[int, int] = (1, 2)
    min_df: int = 2

    def _check(self, items: object) -> pd.DataFrame:
        if not isinstance(items, pd.DataFrame):
            msg = f"TextFeatures expects the item table as a DataFrame; got {type(items).__name__}."
            raise TypeError(msg)
        missing = [c for c in [self.text, *self.categorical] if c not in items.columns]
        if missing:
            msg = (
                f"The item table has no column {examples(missing)} (columns: "
                f"{examples(list(items.columns), 10)}); name the text column with text=..."
            )
            raise DataError(msg)
        if items[self.text].isna().any():
            first = items.index[items[self.text].isna().to_numpy()][0]
            msg = f"Item {first!r} has no text in column {self.text!r}; fill it (e.g. with '')."
            raise DataError(msg)
        return items

    def fit(self, items: pd.DataFrame, y: object = None) -> Self:
        """Learn the vocabulary, IDF weights and categories from the training items."""
        items = self._check(items)
        self.vectorizer_ = TfidfVectorizer(max_features=self.max_features, min_df=self.min_df,
                                           ngram_range=tuple(self.ngram_range), sublinear_tf=True,
                                           dtype=np.float64)  # fmt: skip
        self.vectorizer_.fit(items[self.text].astype(str))
        self.encoder_: OneHotEncoder | None = None
        if self.categorical:
            self.encoder_ = OneHotEncoder(handle_unknown="ignore", dtype=np.float64)
            self.encoder_.fit(self._categories(items))
        return self

    def _categories(self, items: pd.DataFrame) -> pd.DataFrame:
        columns = items[list(self.categorical)]
        return columns.astype(object).where(columns.notna(), "missing").astype(str)

    def transform(self, items: pd.DataFrame) -> sparse.csr_matrix:
        """Features of ``items``, a sparse (N, d) matrix."""
        if not hasattr(self, "vectorizer_"):
            msg = "This TextFeatures is not fitted yet; call fit(items) first."
            raise ValueError(msg)
        items = self._check(items)
        blocks = [self.vectorizer_.transform(items[self.text].astype(str))]
        if self.encoder_ is not None:
            blocks.append(self.encoder_.transform(self._categories(items)))
        return sparse.csr_matrix(sparse.hstack(blocks, format="csr", dtype=np.float64))

    def fit_transform(self, items: pd.DataFrame, y: object = None) -> sparse.csr_matrix:
        """:meth:`fit`, then :meth:`transform` of the same items."""
        return self.fit(items).transform(items)
