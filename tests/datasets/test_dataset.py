"""Tests of dissensus.datasets.Dataset and load_frame (a user's own data)."""

from __future__ import annotations

import pandas as pd
import pytest

from dissensus import DataError
from dissensus.datasets import Dataset, load_frame


def _frame():
    return pd.DataFrame(
        {
            "item": ["a", "a", "b", "b", "b"],
            "annotator": ["x", "y", "x", "y", "z"],
            "label": [1, 2, 3, 3, 2],
            "review": ["good", "good", "awful", "awful", "awful"],
        }
    )


class TestDataset:
    def test_from_frame(self):
        ds = Dataset.from_frame(_frame(), text="review", name="mine")
        assert ds.items["text"].tolist() == ["good", "awful"]
        assert ds.annotations.counts().values.tolist() == [[1, 1, 0], [0, 1, 2]]
        assert "mine" in repr(ds)

    def test_text_must_be_constant_per_item(self):
        df = _frame()
        df.loc[1, "review"] = "bad"
        with pytest.raises(DataError, match="'review' varies within item 'a'"):
            Dataset.from_frame(df, text="review")

    def test_missing_text(self):
        df = _frame()
        df["review"] = df["review"].where(df["item"] == "a")
        with pytest.raises(DataError, match="1 items have no text in column 'review'"):
            Dataset.from_frame(df, text="review")
        with pytest.raises(DataError, match="No item text column 'body'"):
            Dataset.from_frame(
                _frame().rename(columns={"review": "body"}).drop(columns="body"), text="body"
            )


class TestFromAnnotations:
    def test_texts_by_item_id(self):
        ann = Dataset.from_frame(_frame(), text="review").annotations
        ds = Dataset.from_annotations(ann, pd.Series({"b": "awful", "a": "good"}))
        assert ds.items["text"].tolist() == ["good", "awful"]
        with pytest.raises(
            DataError, match=r"`texts` has no row for 1 annotated items, e\.g\. 'b'"
        ):
            Dataset.from_annotations(ann, pd.Series({"a": "good"}))


class TestLoadFrame:
    def test_csv(self, tmp_path):
        path = tmp_path / "mine.csv"
        _frame().to_csv(path, index=False)
        ds = load_frame(path, text="review")
        assert ds.name == "mine.csv"
        assert ds.items.loc["b", "text"] == "awful"
