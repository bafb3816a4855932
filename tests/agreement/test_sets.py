"""Tests of dissensus.agreement._sets: MASI / Jaccard distances and alpha on set-valued labels."""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import jaccard_distance, masi_distance

from dissensus import Annotations, DegenerateAgreementWarning, SetAnnotations
from dissensus.agreement import fleiss_kappa, krippendorff_alpha
from dissensus.agreement._sets import set_distance_matrix

LABELS = ["a", "b", "c", "d", "e"]
NLTK_DISTANCES = {"masi": masi_distance, "jaccard": jaccard_distance}


def random_sets(
    seed: int, *, n_items: int, n_annotators: int, L: int = 4, missing: float = 0.2
) -> pd.DataFrame:
    """Long (item, annotator, label) rows with nonempty random sets; ``missing`` share left out."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        # a per-item "true" set that annotators copy with noise, so alpha is far from 0
        core = rng.random(L) < 0.4
        for a in range(n_annotators):
            if rng.random() < missing:
                continue
            z = core ^ (rng.random(L) < 0.2)
            if not z.any():
                z[rng.integers(L)] = True  # nltk's distances divide by zero on empty sets
            rows.append((f"i{i}", f"r{a}", [LABELS[k] for k in np.flatnonzero(z)]))
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


def nltk_alpha(df: pd.DataFrame, distance: str) -> float:
    task = AnnotationTask(
        data=[(a, i, frozenset(s)) for i, a, s in df.itertuples(index=False)],
        distance=NLTK_DISTANCES[distance],
    )
    return float(task.alpha())


def hand_example() -> pd.DataFrame:
    """Two coders, three items: {x}/{x}, {x, y}/{x}, {y}/{z}."""
    return pd.DataFrame(
        {
            "item": [1, 1, 2, 2, 3, 3],
            "annotator": ["A", "B"] * 3,
            "label": [["x"], ["x"], ["x", "y"], ["x"], ["y"], ["z"]],
        }
    )


class TestSetDistanceMatrix:
    @pytest.mark.parametrize("distance", ["masi", "jaccard"])
    def test_equals_nltk_on_every_pair_of_subsets(self, distance: str) -> None:
        # all 15 nonempty subsets of 4 labels: every case of MASI's weight appears
        Z = np.array([[(s >> k) & 1 for k in range(4)] for s in range(1, 16)], dtype=bool)
        got = set_distance_matrix(Z, distance)  # type: ignore[arg-type]
        as_sets = [frozenset(np.flatnonzero(z).tolist()) for z in Z]
        ref = np.array([[NLTK_DISTANCES[distance](a, b) for b in as_sets] for a in as_sets])
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-15)

    @pytest.mark.parametrize("distance", ["masi", "jaccard"])
    def test_empty_set_convention(self, distance: str) -> None:
        Z = np.array([[0, 0], [1, 0], [0, 0]], dtype=bool)
        d = set_distance_matrix(Z, distance)  # type: ignore[arg-type]
        assert d.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]

    def test_masi_weights_are_passonneau_thirds(self) -> None:
        # {a, b} vs {a}: J = 1/2, subset weight 2/3; {a, b} vs {a, c}: J = 1/3, overlap weight 1/3
        d = set_distance_matrix([[1, 1, 0], [1, 0, 0], [1, 0, 1]], "masi")
        assert d[0, 1] == pytest.approx(1 - 1 / 2 * 2 / 3, abs=1e-15)
        assert d[0, 2] == pytest.approx(1 - 1 / 3 * 1 / 3, abs=1e-15)

    def test_unknown_distance(self) -> None:
        with pytest.raises(ValueError, match=r"'distance' parameter of set_distance_matrix"):
            set_distance_matrix([[1]], "dice")  # type: ignore[arg-type]


class TestKrippendorffAlphaOnSets:
    @pytest.mark.filterwarnings("ignore::dissensus.DegenerateAgreementWarning")
    @pytest.mark.parametrize("distance", ["masi", "jaccard"])
    @pytest.mark.parametrize(
        ("seed", "n_annotators"), [(0, 3), (1, 4), (2, 5), (3, 6), (4, 8), (5, 3)]
    )
    def test_equals_nltk(self, seed: int, n_annotators: int, distance: str) -> None:
        df = random_sets(seed, n_items=40, n_annotators=n_annotators)
        sets = SetAnnotations.from_frame(df)
        got = krippendorff_alpha(sets, distance=distance)  # type: ignore[arg-type]
        assert got.name == f"krippendorff_alpha_{distance}"
        assert got.statistic == pytest.approx(nltk_alpha(df, distance), abs=1e-12)

    @pytest.mark.parametrize("distance", ["masi", "jaccard"])
    def test_equals_nltk_with_items_of_one_annotation(self, distance: str) -> None:
        df = random_sets(11, n_items=30, n_annotators=3, missing=0.5)
        sets = SetAnnotations.from_frame(df)
        assert (sets.annotations_per_item < 2).any()  # nltk and alpha skip those items
        with pytest.warns(DegenerateAgreementWarning, match=r"fewer than 2 ratings"):
            got = krippendorff_alpha(sets, distance=distance)  # type: ignore[arg-type]
        assert got.statistic == pytest.approx(nltk_alpha(df, distance), abs=1e-12)

    @pytest.mark.parametrize("distance", ["masi", "jaccard"])
    def test_empty_sets_with_nltk_extended_by_the_convention(self, distance: str) -> None:
        # nltk divides by zero on empty sets; give it d(∅, ∅) = 0 and d(∅, B) = 1
        df = random_sets(21, n_items=30, n_annotators=4, missing=0.0)
        rng = np.random.default_rng(21)
        df["label"] = [[] if rng.random() < 0.15 else s for s in df["label"]]
        base = NLTK_DISTANCES[distance]

        def extended(a: frozenset[str], b: frozenset[str]) -> float:
            if not a or not b:
                return 0.0 if a == b else 1.0
            return float(base(a, b))

        task = AnnotationTask(
            data=[(a, i, frozenset(s)) for i, a, s in df.itertuples(index=False)],
            distance=extended,
        )
        got = krippendorff_alpha(SetAnnotations.from_frame(df), distance=distance)  # type: ignore[arg-type]
        assert got.statistic == pytest.approx(task.alpha(), abs=1e-12)

    def test_hand_computed_example(self) -> None:
        # Values {x} x3, {x,y}, {y}, {z}; n.. = 6.
        # MASI: d({x,y},{x}) = 1 - (1/2)(2/3) = 2/3, disjoint sets 1.
        #   D_o = (2 * 2/3 + 2 * 1) / 6 = 5/9
        #   D_e = 2 (3*2/3 + 3 + 3 + 2/3 + 1 + 1) / (6 * 5) = 32/45
        #   alpha = 1 - (5/9) / (32/45) = 7/32
        # Jaccard: d({x,y},{x}) = 1/2; D_o = 1/2, D_e = 2/3, alpha = 1/4
        sets = SetAnnotations.from_frame(hand_example())
        masi = krippendorff_alpha(sets, distance="masi")
        assert masi.statistic == pytest.approx(float(Fraction(7, 32)), abs=1e-15)
        assert masi.parts["observed_disagreement"] == pytest.approx(5 / 9, abs=1e-15)
        assert masi.parts["expected_disagreement"] == pytest.approx(32 / 45, abs=1e-15)
        assert krippendorff_alpha(sets, distance="jaccard").statistic == pytest.approx(
            0.25, abs=1e-15
        )
        assert nltk_alpha(hand_example(), "masi") == pytest.approx(7 / 32, abs=1e-15)

    def test_singletons_reduce_to_nominal_alpha(self) -> None:
        # one label per set: MASI and Jaccard are 0/1, i.e. nominal alpha on the labels
        df = random_sets(7, n_items=30, n_annotators=4, missing=0.0)
        df["label"] = [s[:1] for s in df["label"]]
        sets = SetAnnotations.from_frame(df)
        single = df.assign(label=[s[0] for s in df["label"]])
        nominal = krippendorff_alpha(Annotations.from_frame(single)).statistic
        for distance in ("masi", "jaccard"):
            got = krippendorff_alpha(sets, distance=distance).statistic  # type: ignore[arg-type]
            assert got == pytest.approx(nominal, abs=1e-12)

    def test_bootstrap_interval_is_seeded(self) -> None:
        sets = SetAnnotations.from_frame(random_sets(3, n_items=60, n_annotators=4, missing=0.0))
        a = krippendorff_alpha(sets, distance="masi")
        b = krippendorff_alpha(sets, distance="masi")
        assert a.confidence_interval(0.9, n_resamples=200, seed=5) == b.confidence_interval(
            0.9, n_resamples=200, seed=5
        )
        assert a.confidence_interval(0.9, n_resamples=200, seed=5) is not None
        assert (
            a.confidence_interval(0.9, n_resamples=200, seed=5).low
            < a.statistic
            < a.confidence_interval(0.9, n_resamples=200, seed=5).high
        )
        assert np.isfinite(a.standard_error)

    def test_exact_match_agreement_through_set_counts(self) -> None:
        sets = SetAnnotations.from_frame(hand_example())
        # {x}/{x} agree, the other two items disagree: nominal alpha over the 4 distinct
        # sets, D_o = 4/6, D_e = (6^2 - (3^2 + 1 + 1 + 1)) / (6 * 5) = 24/30, alpha = 1/6
        counts = sets.set_counts()
        assert counts.K == 4
        assert krippendorff_alpha(counts).statistic == pytest.approx(1 / 6, abs=1e-12)

    def test_sets_need_a_set_distance(self) -> None:
        sets = SetAnnotations.from_frame(hand_example())
        with pytest.raises(ValueError, match=r"needs distance='masi' or 'jaccard'"):
            krippendorff_alpha(sets)
        with pytest.raises(ValueError, match=r"'distance' parameter of krippendorff_alpha"):
            krippendorff_alpha(sets, distance="dice")  # type: ignore[arg-type]

    def test_set_distance_on_single_labels_refused(self) -> None:
        with pytest.raises(ValueError, match=r"needs set-valued annotations"):
            krippendorff_alpha([[1, 1], [2, 0]], distance="masi")

    def test_other_coefficients_say_what_to_pass(self) -> None:
        sets = SetAnnotations.from_frame(hand_example())
        with pytest.raises(TypeError, match=r"set_counts\(\) \(each distinct set is a category\)"):
            fleiss_kappa(sets)
        assert float(fleiss_kappa(sets.binary_counts("x"))) == pytest.approx(
            float(fleiss_kappa([[0, 2], [0, 2], [2, 0]])), abs=1e-15
        )


@st.composite
def agreeing_sets(draw: st.DrawFn) -> tuple[list[list[str]], int]:
    """Per-item sets (at least two distinct overall) and an annotator count."""
    n_items = draw(st.integers(2, 8))
    subsets = st.lists(st.sampled_from(LABELS[:4]), unique=True, max_size=4)
    per_item = draw(st.lists(subsets, min_size=n_items, max_size=n_items))
    return per_item, draw(st.integers(2, 5))


@st.composite
def random_set_frames(draw: st.DrawFn) -> pd.DataFrame:
    """Long frames of 2-5 annotators on 3-10 items, every item with two or more sets."""
    n_items = draw(st.integers(3, 10))
    n_ann = draw(st.integers(2, 5))
    subsets = st.lists(st.sampled_from(LABELS[:4]), unique=True, max_size=4)
    rows = []
    for i in range(n_items):
        for a in range(n_ann):
            rows.append((f"i{i}", f"r{a}", draw(subsets)))
    return pd.DataFrame(rows, columns=["item", "annotator", "label"])


def _alpha(df: pd.DataFrame, distance: Any, scale: Any = None) -> float:
    with warnings.catch_warnings():
        # a draw where every set is the same has no variation: NaN with a warning
        warnings.simplefilter("ignore", DegenerateAgreementWarning)
        return krippendorff_alpha(
            SetAnnotations.from_frame(df, scale=scale), distance=distance
        ).statistic


class TestInvariants:
    @pytest.mark.parametrize("distance", ["masi", "jaccard"])
    @settings(max_examples=30, deadline=None)
    @given(case=agreeing_sets())
    def test_one_when_every_annotator_agrees(self, case: Any, distance: str) -> None:
        per_item, n_ann = case
        if len({tuple(sorted(s)) for s in per_item}) < 2:
            per_item = [*per_item, ["a"] if per_item[0] != ["a"] else ["b"]]
        rows = [(f"i{i}", f"r{a}", s) for i, s in enumerate(per_item) for a in range(n_ann)]
        df = pd.DataFrame(rows, columns=["item", "annotator", "label"])
        assert _alpha(df, distance, scale=LABELS[:4]) == pytest.approx(1.0, abs=1e-12)

    @pytest.mark.parametrize("distance", ["masi", "jaccard"])
    @settings(max_examples=30, deadline=None)
    @given(df=random_set_frames(), data=st.data())
    def test_symmetric_in_annotator_order(
        self, df: pd.DataFrame, data: st.DataObject, distance: str
    ) -> None:
        perm = data.draw(st.permutations(range(len(df))))
        shuffled = df.iloc[list(perm)].reset_index(drop=True)
        renamed = shuffled.assign(annotator=shuffled["annotator"].map(lambda a: a[::-1] + "x"))
        a = _alpha(df, distance, scale=LABELS[:4])
        b = _alpha(renamed, distance, scale=LABELS[:4])
        assert a == pytest.approx(b, abs=1e-12, nan_ok=True)

    @pytest.mark.parametrize("distance", ["masi", "jaccard"])
    @settings(max_examples=30, deadline=None)
    @given(df=random_set_frames(), data=st.data())
    def test_invariant_to_relabelling_the_universe(
        self, df: pd.DataFrame, data: st.DataObject, distance: str
    ) -> None:
        new = data.draw(st.permutations(["w", "x", "y", "z"]))
        mapping = dict(zip(LABELS[:4], new, strict=True))
        relabelled = df.assign(label=[[mapping[v] for v in s] for s in df["label"]])
        a = _alpha(df, distance, scale=LABELS[:4])
        b = _alpha(relabelled, distance, scale=sorted(new, reverse=True))
        assert a == pytest.approx(b, abs=1e-12, nan_ok=True)
