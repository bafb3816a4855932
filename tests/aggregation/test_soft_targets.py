"""Tests of dissensus.aggregation.soft_targets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dissensus import Annotations, DataError, LabelCounts
from dissensus.aggregation import (
    TARGET_METHODS,
    dawid_skene,
    mace,
    ordinal_dawid_skene,
    soft_targets,
)


@pytest.fixture(scope="module")
def ann() -> Annotations:
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 4, size=40)
    items = np.repeat(np.arange(40), 3)
    noise = rng.integers(-1, 2, size=items.size) * (rng.random(items.size) < 0.3)
    labels = np.clip(truth[items] + noise, 0, 3)
    df = pd.DataFrame(
        {"item": [f"i{k}" for k in items], "annotator": list("abc") * 40, "label": labels}
    )
    # shuffled rows: the item order is the order of first appearance, not sorted
    return Annotations.from_frame(df.sample(frac=1.0, random_state=1), scale=[0, 1, 2, 3])


class TestSoftTargets:
    @pytest.mark.parametrize("method", TARGET_METHODS)
    def test_aligned_with_the_counts(self, ann: Annotations, method: str) -> None:
        t = soft_targets(ann, method)  # type: ignore[arg-type]
        counts = ann.counts()
        assert t.values.shape == counts.values.shape
        assert list(t.items) == list(counts.items)
        assert t.scale == counts.scale
        np.testing.assert_allclose(t.values.sum(axis=1), 1.0)
        aligned, _ = t.align(counts)
        np.testing.assert_array_equal(aligned.values, t.values)

    def test_each_method_is_its_model(self, ann: Annotations) -> None:
        np.testing.assert_array_equal(soft_targets(ann).values, dawid_skene(ann).posterior)
        np.testing.assert_array_equal(
            soft_targets(ann, "ordinal_dawid_skene").values, ordinal_dawid_skene(ann).posterior
        )
        np.testing.assert_array_equal(
            soft_targets(ann, "mace", seed=3).values, mace(ann, seed=3).posterior
        )
        np.testing.assert_array_equal(
            soft_targets(ann, "empirical").values, ann.counts().proportions()
        )

    def test_empirical_from_counts(self) -> None:
        lc = LabelCounts.from_array([[1, 3], [2, 0]], items=["x", "y"])
        np.testing.assert_array_equal(soft_targets(lc, "empirical").values, [[0.25, 0.75], [1, 0]])
        with pytest.raises(DataError, match=r"1 items have no annotations.*'z'"):
            soft_targets(LabelCounts.from_array([[1, 0], [0, 0]], items=["x", "z"]), "empirical")

    def test_models_need_annotator_ids(self, ann: Annotations) -> None:
        with pytest.raises(DataError, match=r"method='mace'.*annotator ids"):
            soft_targets(ann.counts(), "mace")

    def test_unknown_method(self, ann: Annotations) -> None:
        with pytest.raises(ValueError, match="'method' parameter of soft_targets"):
            soft_targets(ann, "glad")  # type: ignore[arg-type]
