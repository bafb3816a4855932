"""Tests of dissensus.tendency._baselines."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from dissensus import Annotations, DataDroppedWarning, DataError, read_convabuse
from dissensus.tendency import (
    consensus_baseline,
    dic,
    itl_bias_baseline,
    random_baseline,
    split_items,
    subset_items,
)
from tests.conftest import shared_path
from tests.tendency._pools import clique_pool


@pytest.fixture(scope="module")
def pool() -> tuple[Annotations, pd.DataFrame, np.ndarray]:
    return clique_pool(n_items=200, n_annotators=6, seed=1)


class TestSplitItems:
    def test_disjoint_cover_and_size(self, pool) -> None:
        ann = pool[0]
        train, test = split_items(ann, test_size=0.25, seed=3)
        assert set(train.items).isdisjoint(test.items)
        assert train.n_items + test.n_items == ann.n_items
        assert test.n_items == 50
        assert train.n_annotations + test.n_annotations == ann.n_annotations
        assert list(train.annotators) == list(ann.annotators)

    def test_seeded(self, pool) -> None:
        a = split_items(pool[0], seed=1)[1].items
        b = split_items(pool[0], seed=1)[1].items
        assert a.equals(b)

    def test_bad_size(self, pool) -> None:
        with pytest.raises(ValueError, match="'test_size' parameter of split_items"):
            split_items(pool[0], test_size=1.0)

    def test_subset_keeps_labels(self, pool) -> None:
        ann, df, _ = pool
        keep = np.zeros(ann.n_items, dtype=bool)
        keep[:10] = True
        sub = subset_items(ann, keep).to_frame()
        ref = df[df.item.isin(ann.items[:10])].reset_index(drop=True)
        pd.testing.assert_frame_equal(sub.astype(object), ref.astype(object), check_names=False)


class TestRandomBaseline:
    def test_one_label_per_cell_and_seeded(self, pool) -> None:
        ann, df, _ = pool
        a = random_baseline(ann, seed=0)
        assert a[["item", "annotator"]].equals(df[["item", "annotator"]])
        assert a.equals(random_baseline(ann, seed=0))
        assert not a.equals(random_baseline(ann, seed=1))

    def test_keeps_each_annotators_marginal(self) -> None:
        rng = np.random.default_rng(0)
        rows = [
            (i, a, int(rng.random() < (0.1 if a == "low" else 0.9)))
            for i in range(2000)
            for a in ("low", "high")
        ]
        ann = Annotations.from_frame(pd.DataFrame(rows, columns=["item", "annotator", "label"]))
        pred = random_baseline(ann, seed=2)
        share = pred.groupby("annotator").label.mean()
        assert share["low"] == pytest.approx(0.1, abs=0.03)
        assert share["high"] == pytest.approx(0.9, abs=0.03)

    def test_annotator_absent_from_training_gets_the_pooled_marginal(self, pool) -> None:
        ann, df, _ = pool
        train = Annotations.from_frame(df[df.annotator != "a0"], scale=ann.scale)
        pred = random_baseline(ann, train=train, seed=0)
        assert len(pred) == ann.n_annotations


class TestConsensusBaseline:
    def test_majority_ties_to_the_lowest_label(self) -> None:
        df = pd.DataFrame(
            {
                "item": [1, 1, 2, 2, 2],
                "annotator": ["a", "b", "a", "b", "c"],
                "label": ["y", "x", "y", "y", "x"],
            }
        )
        ann = Annotations.from_frame(df, scale=["x", "y"])
        pred = consensus_baseline(ann)
        assert pred.label.tolist() == ["x", "x", "y", "y", "y"]

    def test_soft_rows_are_the_item_distribution(self, pool) -> None:
        ann = pool[0]
        soft = consensus_baseline(ann, soft=True)
        q = soft[list(ann.scale.labels)].to_numpy()
        np.testing.assert_allclose(q.sum(axis=1), 1.0)
        counts = ann.counts().to_frame().drop(columns="n")
        first = soft.iloc[0]
        expected = counts.loc[first["item"]].to_numpy() / counts.loc[first["item"]].sum()
        np.testing.assert_allclose(q[0], expected)


def _threshold_pool(seed: int = 0) -> tuple[Annotations, pd.Series]:
    """Two cliques that differ by strictness: a lenient and a strict threshold on one score."""
    rng = np.random.default_rng(seed)
    n = 160
    score = rng.random(n)
    words = np.array(["calm", "mild", "edgy", "rude", "vile"])
    texts = pd.Series(
        [f"{words[min(int(s * 5), 4)]} w{int(s * 10)} filler{i % 3}" for i, s in enumerate(score)],
        index=[f"i{i}" for i in range(n)],
    )
    rows = []
    for a in range(6):
        cut = 0.3 if a % 2 == 0 else 0.7
        lab = (score + rng.normal(0, 0.05, n) > cut).astype(int)
        rows += [(f"i{i}", f"a{a}", int(lab[i])) for i in range(n)]
    return Annotations.from_frame(pd.DataFrame(rows, columns=["item", "annotator", "label"])), texts


class TestItlBiasBaseline:
    def test_per_annotator_bias_reproduces_strictness_cliques(self) -> None:
        ann, texts = _threshold_pool()
        train, test = split_items(ann, test_size=0.4, seed=0)
        pred = itl_bias_baseline(train, test, text=texts, seed=0)
        q = pred[[0, 1]].to_numpy()
        np.testing.assert_allclose(q.sum(axis=1), 1.0)
        assert len(pred) == test.n_annotations
        itl = dic(test, pred, n_resamples=100).statistic
        rnd = dic(test, random_baseline(test, train=train, seed=0), n_resamples=100).statistic
        cons = dic(test, consensus_baseline(test), n_resamples=100).statistic
        assert itl < 0.5 * min(rnd, cons)

    def test_text_from_meta_columns(self) -> None:
        df = pd.DataFrame(
            {"item": np.repeat(np.arange(20), 2), "annotator": ["a", "b"] * 20,
             "label": np.tile([0, 1], 20), "text": np.repeat([f"t{i % 4} common" for i in range(20)], 2)}
        )  # fmt: skip
        ann = Annotations.from_frame(df, meta=["text"])
        train, test = split_items(ann, seed=0)
        pred = itl_bias_baseline(train, test, text="text", n_folds=2)
        assert set(pred.columns) == {"item", "annotator", 0, 1}
        with pytest.raises(DataError, match="names item columns"):
            itl_bias_baseline(train, test, text="body")

    def test_missing_text(self, pool) -> None:
        ann = pool[0]
        train, test = split_items(ann, seed=0)
        with pytest.raises(DataError, match="no text for"):
            itl_bias_baseline(train, test, text=pd.Series({"i0": "x"}))

    def test_missing_text_is_empty_and_repeated_ids_refused(self) -> None:
        df = pd.DataFrame(
            {"item": np.repeat(np.arange(20), 2), "annotator": ["a", "b"] * 20,
             "label": np.tile([0, 1], 20)}
        )  # fmt: skip
        ann = Annotations.from_frame(df)
        train, test = split_items(ann, seed=0)
        texts = pd.Series([f"t{i % 3} word" if i % 5 else None for i in range(20)], index=range(20))
        pred = itl_bias_baseline(train, test, text=texts, n_folds=2)
        assert len(pred) == test.n_annotations
        with pytest.raises(DataError, match="repeats item ids"):
            itl_bias_baseline(train, test, text=pd.concat([texts, texts]))

    def test_annotator_without_training_labels(self, pool) -> None:
        ann, df, _ = pool
        train_df = df[(df.annotator != "a5") & df.item.isin(ann.items[:150])]
        train = Annotations.from_frame(train_df, scale=ann.scale)
        test = Annotations.from_frame(df[~df.item.isin(ann.items[:150])], scale=ann.scale)
        texts = pd.Series("x", index=ann.items)
        with pytest.raises(DataError, match="no training labels"):
            itl_bias_baseline(train, test, text=texts)


@pytest.mark.shared
class TestOnConvAbuse:
    def test_random_baseline_far_from_zero(self) -> None:
        path = shared_path("data", "convabuse", "ConvAbuseEMNLPtest.csv")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataDroppedWarning)  # the repeated annotations
            ann = read_convabuse(path)
        r = dic(ann, random_baseline(ann, seed=0), min_overlap=20, confidence_level=None)
        assert r.n_pairs >= 20
        assert r.statistic > 0.85
