"""Tests of dissensus.models._sklearn.TextFeatures."""

from __future__ import annotations

import pandas as pd
import pytest

from dissensus import DataError
from dissensus.models import TextFeatures


class TestTextFeatures:
    def test_fit_on_train_only_and_unseen_category(self):
        train = pd.DataFrame(
            {"text": ["red car", "red wine", "blue car"], "decade": ["1990s", "1990s", None]}
        )
        test = pd.DataFrame({"text": ["green car"], "decade": ["2010s"]})
        f = TextFeatures(categorical=["decade"], min_df=1, ngram_range=(1, 1)).fit(train)
        X = f.transform(test)
        assert X.shape == (1, 4 + 2)
        assert X.nnz == 1  # "car" only: "green" and 2010s were not seen in training
        assert (f.transform(train).data >= 0).all()

    def test_errors(self):
        with pytest.raises(DataError, match="no column 'body'"):
            TextFeatures(text="body").fit(pd.DataFrame({"text": ["a"]}))
        with pytest.raises(DataError, match="has no text"):
            TextFeatures().fit(pd.DataFrame({"text": ["ok", None]}, index=["i1", "i2"]))
        with pytest.raises(TypeError, match="DataFrame"):
            TextFeatures().fit(["a", "b"])
