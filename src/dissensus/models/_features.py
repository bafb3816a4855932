"""The featuriser of the study: TF-IDF of an item text column, plus one-hot item categories."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import OneHotEncoder

from dissensus._exceptions import DataError
from dissensus._validation import examples

__all__ = ["TextFeatures"]


@dataclass(eq=False, repr=False, kw_only=True)
class TextFeatures(BaseEstimator):  # type: ignore[misc]
    """TF-IDF features of a text column, with optional one-hot categorical columns.

    A scikit-learn transformer over an item table (a DataFrame): the text is
    vectorised by ``TfidfVectorizer`` (L2-normalised rows, sublinear term
    frequency), each categorical column (e.g. a release decade) becomes
    one-hot columns (a missing value is a category of its own; a category
    unseen in training gives zeros). Every feature is non-negative, so Naive
    Bayes can use them. Fit on training items only.

    Parameters
    ----------
    text : str, default "text"
        Text column.
    categorical : sequence of str, default ()
        Categorical columns.
    max_features : int, default 20000
        Vocabulary size (most frequent terms).
    ngram_range : tuple of int, default (1, 2)
    min_df : int, default 2
        Minimum number of training items a term must appear in.

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
        need = [self.text, *self.categorical]
        missing = [c for c in need if c not in items.columns]
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
        self.vectorizer_ = TfidfVectorizer(
            max_features=self.max_features,
            ngram_range=tuple(self.ngram_range),
            min_df=self.min_df,
            sublinear_tf=True,
            dtype=np.float64,
        )
        self.vectorizer_.fit(items[self.text].astype(str))
        self.encoder_: OneHotEncoder | None = None
        if self.categorical:
            self.encoder_ = OneHotEncoder(handle_unknown="ignore", dtype=np.float64)
            self.encoder_.fit(self._categories(items))
        self.n_features_out_ = int(self.transform(items.iloc[:1]).shape[1])
        return self

    def _categories(self, items: pd.DataFrame) -> pd.DataFrame:
        return (
            items[list(self.categorical)]
            .astype(object)
            .where(items[list(self.categorical)].notna(), "missing")
            .astype(str)
        )

    def transform(self, items: pd.DataFrame) -> sparse.csr_matrix:
        """Features of ``items``, a sparse (N, d) matrix."""
        if not hasattr(self, "vectorizer_"):
            msg = "This TextFeatures is not fitted yet; call fit(items) first."
            raise ValueError(msg)
        items = self._check(items)
        blocks = [self.vectorizer_.transform(items[self.text].astype(str))]
        if self.encoder_ is not None:
            blocks.append(self.encoder_.transform(self._categories(items)))
        out: sparse.csr_matrix = sparse.csr_matrix(
            sparse.hstack(blocks, format="csr", dtype=np.float64)
        )
        return out

    def fit_transform(self, items: pd.DataFrame, y: object = None) -> sparse.csr_matrix:
        """:meth:`fit`, then :meth:`transform` of the same items."""
        return self.fit(items).transform(items)
