"""Tests of dissensus.tendency._consistency: consistency_matrix, dic, tau_curve, perturbation_curve."""

from __future__ import annotations

import itertools
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from dissensus import Annotations, DataError, DegenerateAgreementWarning
from dissensus.agreement import pairwise
from dissensus.report import format_interval, format_number
from dissensus.stats import bootstrap_weights, percentile_interval
from dissensus.tendency import (
    consensus_baseline,
    consistency_matrix,
    dic,
    perturbation_curve,
    random_baseline,
    tau_curve,
)
from tests.tendency._pools import clique_model, clique_pool, one_clique_model


@pytest.fixture(scope="module")
def pool() -> tuple[Annotations, pd.DataFrame, np.ndarray]:
    return clique_pool(n_items=200, n_annotators=6, seed=0)


class TestConsistencyMatrix:
    def test_shows_the_cliques(self, pool) -> None:
        ann, _, _ = pool
        M = consistency_matrix(ann).statistic
        for i, j in itertools.combinations(range(6), 2):
            kappa = M.loc[f"a{i}", f"a{j}"]
            if i % 2 == j % 2:
                assert kappa > 0.6
            else:
                assert abs(kappa) < 0.2
        np.testing.assert_array_equal(np.diag(M.to_numpy()), 1.0)

    def test_is_pairwise_with_diagonal_one(self, pool) -> None:
        ann, _, _ = pool
        M = consistency_matrix(ann, measure="alpha", level="ordinal", min_overlap=5)
        P = pairwise(ann, "alpha", level="ordinal", min_overlap=5)
        off = ~np.eye(6, dtype=bool)
        np.testing.assert_allclose(M.statistic.to_numpy()[off], P.statistic.to_numpy()[off])
        pd.testing.assert_frame_equal(M.overlap, P.overlap)

    def test_nan_below_min_overlap(self) -> None:
        df = pd.DataFrame(
            {
                "item": [1, 1, 2, 2, 3],
                "annotator": ["a", "b", "a", "b", "c"],
                "label": [0, 1, 1, 1, 0],
            }
        )
        M = consistency_matrix(Annotations.from_frame(df), min_overlap=2).statistic
        assert np.isnan(M.loc["a", "c"])
        assert M.loc["c", "c"] == 1.0

    def test_options_reach_pairwise(self) -> None:
        # regression: min_overlap, weights and level were dropped on the way to pairwise
        df = pd.DataFrame(
            {
                "item": [1, 1, 2, 2, 3, 3, 4, 4],
                "annotator": ["a", "b"] * 4,
                "label": [0, 1, 1, 2, 2, 2, 0, 0],
            }
        )
        ann = Annotations.from_frame(df, scale=[0, 1, 2])
        assert np.isnan(consistency_matrix(ann, min_overlap=5).statistic.loc["a", "b"])
        for kw in ({"measure": "weighted_cohen", "weights": "linear"},
                   {"measure": "alpha", "level": "interval"}):  # fmt: skip
            got = consistency_matrix(ann, min_overlap=1, **kw).statistic.loc["a", "b"]
            measure = kw.pop("measure")
            assert got == pairwise(ann, measure, **kw).statistic.loc["a", "b"]
        linear = consistency_matrix(ann, measure="weighted_cohen", weights="linear", min_overlap=1)
        quadratic = consistency_matrix(ann, measure="weighted_cohen", min_overlap=1)
        assert linear.statistic.loc["a", "b"] != quadratic.statistic.loc["a", "b"]

    def test_bad_min_overlap(self, pool) -> None:
        with pytest.raises(ValueError, match="'min_overlap' parameter of consistency_matrix"):
            consistency_matrix(pool[0], min_overlap=0)


class TestDic:
    def test_perfect_prediction_is_zero(self, pool) -> None:
        ann, df, _ = pool
        r = dic(ann, df, n_resamples=100)
        assert r.statistic == 0.0
        assert r.confidence_interval == (0.0, 0.0)
        assert r.n_pairs == 15
        r_ann = dic(ann, ann, confidence_level=None)
        assert r_ann.statistic == 0.0

    def test_perfect_distributions_are_zero_hard_and_soft(self, pool) -> None:
        ann, df, _ = pool
        q = df[["item", "annotator"]].assign(
            **{"0": (df.label == 0) * 1.0, "1": (df.label == 1) * 1.0}
        )
        assert dic(ann, q, confidence_level=None).statistic == 0.0
        assert dic(ann, q, soft=True, confidence_level=None).statistic == 0.0

    def test_matches_the_formula_over_pairwise_matrices(self, pool) -> None:
        ann, df, z = pool
        pred = one_clique_model(df, z)
        r = dic(ann, pred, confidence_level=None)
        M = pairwise(ann).statistic.to_numpy()
        Mp = (
            pairwise(Annotations.from_frame(pred))
            .statistic.loc[r.true.index, r.true.index]
            .to_numpy()
        )
        iu = np.triu_indices(6, 1)
        expected = np.linalg.norm(M[iu] - Mp[iu]) / np.linalg.norm(M[iu])
        assert r.statistic == pytest.approx(expected, rel=1e-12)
        with_diag = np.linalg.norm(M - Mp) / np.linalg.norm(M)  # full matrices, seed literally
        r_diag = dic(ann, pred, diagonal=True, confidence_level=None)
        assert r_diag.statistic == pytest.approx(with_diag, rel=1e-12)

    def test_cliques_reproduced_beat_cliques_ignored(self, pool) -> None:
        ann, df, z = pool
        good = dic(ann, clique_model(df, z), n_resamples=200)
        bad = dic(ann, one_clique_model(df, z), n_resamples=200)
        # the clique model predicts without noise, so its within-clique kappa is 1, not ~0.66
        assert good.statistic < 0.5 < bad.statistic
        assert good.confidence_interval.high < bad.confidence_interval.low

    def test_random_baseline_is_far_from_zero(self, pool) -> None:
        ann, _, _ = pool
        r = dic(ann, random_baseline(ann, seed=1), n_resamples=200)
        assert r.statistic > 0.8
        assert r.confidence_interval.low > 0.7

    @settings(max_examples=10, deadline=None)
    @given(perm_seed=st.integers(0, 2**16))
    def test_invariant_to_relabelling_annotators(self, pool, perm_seed: int) -> None:
        ann, df, z = pool
        pred = one_clique_model(df, z)
        rng = np.random.default_rng(perm_seed)
        names = sorted(df.annotator.unique())
        rename = dict(zip(names, rng.permutation([f"x{k}" for k in range(6)]), strict=True))
        order = rng.permutation(len(df))
        df2 = df.iloc[order].assign(annotator=lambda d: d.annotator.map(rename))
        pred2 = pred.assign(annotator=pred.annotator.map(rename))
        a = dic(ann, pred, confidence_level=None).statistic
        b = dic(Annotations.from_frame(df2), pred2, confidence_level=None).statistic
        assert b == pytest.approx(a, rel=1e-12)

    def test_interval_is_the_item_bootstrap(self) -> None:
        ann, df, z = clique_pool(n_items=40, n_annotators=4, seed=5)
        pred = one_clique_model(df, z)
        B = 30
        r = dic(ann, pred, min_overlap=5, n_resamples=B, seed=11)
        # by hand: repeat each item as often as it is drawn, recompute DIC on the copies
        items = ann.items  # the engine orders items by their code
        multi = ann.annotations_per_item.loc[items] >= 2
        used = items[multi.to_numpy()]
        W = bootstrap_weights(len(used), B, seed=11)
        boot = []
        for w in W:
            reps = [(it, k) for it, n in zip(used, w, strict=True) for k in range(n)]
            key = pd.DataFrame(reps, columns=["item", "rep"])
            t = key.merge(df, on="item").assign(item=lambda d: d.item + "_" + d.rep.astype(str))
            p = key.merge(pred, on="item").assign(item=lambda d: d.item + "_" + d.rep.astype(str))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateAgreementWarning)
                t_ann = Annotations.from_frame(t.drop(columns="rep"))
                boot.append(
                    dic(
                        t_ann, p.drop(columns="rep"), min_overlap=1, confidence_level=None
                    ).statistic
                )
        lo, hi = percentile_interval(np.array(boot), confidence_level=0.95)
        assert r.confidence_interval.low == pytest.approx(float(lo), rel=1e-9)
        assert r.confidence_interval.high == pytest.approx(float(hi), rel=1e-9)

    def test_basic_interval_reflects_the_percentile_one(self, pool) -> None:
        ann, df, z = pool
        pred = one_clique_model(df, z)
        p = dic(ann, pred, n_resamples=200, seed=3)
        b = dic(ann, pred, n_resamples=200, seed=3, ci_method="basic")
        assert b.confidence_interval.low == pytest.approx(
            2 * p.statistic - p.confidence_interval.high
        )
        assert b.confidence_interval.high == pytest.approx(
            2 * p.statistic - p.confidence_interval.low
        )
        assert np.isfinite(p.bootstrap_bias)
        assert np.isnan(dic(ann, pred, confidence_level=None).bootstrap_bias)

    def test_same_seed_same_interval(self, pool) -> None:
        ann, df, z = pool
        pred = one_clique_model(df, z)
        a = dic(ann, pred, n_resamples=100, seed=3)
        b = dic(ann, pred, n_resamples=100, seed=3)
        assert a.confidence_interval == b.confidence_interval

    def test_argmax_ties_go_to_the_lowest_label(self, pool) -> None:
        ann, df, z = pool
        pred = one_clique_model(df, z)
        tied = pred[["item", "annotator"]].assign(**{"0": 0.5, "1": 0.5})
        zeros = pred.assign(label=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateAgreementWarning)
            a = dic(ann, tied, confidence_level=None)
            b = dic(ann, zeros, confidence_level=None)
        assert a.n_pairs == b.n_pairs == 0  # one label everywhere: kappa undefined
        assert a.n_pairs_undefined == 15

    def test_soft_consensus_is_an_expected_table(self, pool) -> None:
        ann, _, _ = pool
        soft = dic(ann, consensus_baseline(ann, soft=True), soft=True, confidence_level=None)
        hard = dic(ann, consensus_baseline(ann), confidence_level=None)
        assert 0.0 < soft.statistic < hard.statistic
        assert (soft.predicted.to_numpy() < 1.0 + 1e-12).all()

    def test_callable_measure_equals_cohen(self, pool) -> None:
        ann, df, z = pool
        pred = one_clique_model(df, z)
        r = dic(ann, pred, measure=cohen_kappa_score, confidence_level=None)
        ref = dic(ann, pred, confidence_level=None)
        assert r.statistic == pytest.approx(ref.statistic, rel=1e-10)
        with pytest.raises(ValueError, match="callable measure"):
            dic(ann, pred, measure=np.dot)

    @pytest.mark.parametrize(
        ("measure", "kw"),
        [("weighted_cohen", {}), ("alpha", {"level": "ordinal"}), ("pearson", {})],
    )
    def test_ordinal_measures(self, measure, kw) -> None:
        rng = np.random.default_rng(2)
        n = 150
        base = rng.integers(0, 5, size=(n, 2))
        rows = [
            (i, f"u{a}", int(np.clip(base[i, a % 2] + rng.integers(-1, 2), 0, 4)))
            for i in range(n)
            for a in range(4)
        ]
        df = pd.DataFrame(rows, columns=["item", "annotator", "label"])
        ann = Annotations.from_frame(df, scale=[0, 1, 2, 3, 4])
        assert dic(ann, df, measure=measure, confidence_level=None, **kw).statistic == 0.0
        shuffled = df.assign(label=rng.permutation(df.label.to_numpy()))
        r = dic(ann, shuffled, measure=measure, n_resamples=50, **kw)
        assert r.statistic > 0.5
        assert r.n_pairs == 6

    def test_missing_prediction_names_the_cell(self, pool) -> None:
        ann, df, _ = pool
        with pytest.raises(DataError, match=r"1 true \(item, annotator\) cells have no prediction"):
            dic(ann, df.iloc[1:], confidence_level=None)

    def test_label_off_the_scale(self, pool) -> None:
        ann, df, _ = pool
        with pytest.raises(DataError, match="not on the scale"):
            dic(ann, df.assign(label=7), confidence_level=None)

    def test_distribution_must_sum_to_one(self, pool) -> None:
        ann, df, _ = pool
        q = df[["item", "annotator"]].assign(**{"0": 0.5, "1": 0.6})
        with pytest.raises(DataError, match="not probabilities"):
            dic(ann, q, confidence_level=None)

    def test_repeated_prediction_cell(self, pool) -> None:
        ann, df, _ = pool
        with pytest.raises(DataError, match="repeated"):
            dic(ann, pd.concat([df, df.iloc[:1]]), confidence_level=None)

    def test_extra_predictions_are_counted(self, pool) -> None:
        ann, df, _ = pool
        extra = pd.DataFrame({"item": ["new"], "annotator": ["a0"], "label": [0]})
        r = dic(ann, pd.concat([df, extra]), confidence_level=None)
        assert r.n_unused_predictions == 1
        assert r.statistic == 0.0


class TestTauCurve:
    def test_matches_dic_at_each_tau(self, pool) -> None:
        ann, df, z = pool
        pred = one_clique_model(df, z)
        curve = tau_curve(ann, pred, taus=[1, 50, 120, 1000])
        for row in curve.itertuples():
            if row.n_pairs:
                ref = dic(ann, pred, min_overlap=row.min_overlap, confidence_level=None)
                assert row.dic == pytest.approx(ref.statistic, rel=1e-12)
                assert row.n_pairs == ref.n_pairs
            else:
                assert np.isnan(row.dic)
        assert curve.n_pairs_enough.is_monotonic_decreasing

    def test_default_grid_spans_the_overlaps(self, pool) -> None:
        ann, df, _ = pool
        curve = tau_curve(ann, df)
        assert curve.min_overlap.iloc[0] == 1
        assert (curve.dic.dropna() == 0.0).all()


class TestPerturbationCurve:
    def test_rises_with_the_corrupted_share(self, pool) -> None:
        ann, df, _ = pool
        c = perturbation_curve(ann, df, "a0", n_repeats=10, seed=4)
        assert c.dic_mean.is_monotonic_increasing
        assert c.dic_mean.iloc[0] == 0.0
        assert c.dic_std.iloc[0] == 0.0

    def test_a_noiseless_model_first_gets_closer(self, pool) -> None:
        # the clique model agrees too well within cliques; corrupting a little of
        # one annotator brings those pairs' kappa down towards the truth
        ann, df, z = pool
        pred = clique_model(df, z)
        c = perturbation_curve(ann, pred, "a0", shares=[0, 0.1, 1], n_repeats=10, seed=4)
        base = dic(ann, pred, confidence_level=None).statistic
        assert c.dic_mean.iloc[0] == pytest.approx(base)
        assert c.dic_mean.iloc[1] < base < c.dic_mean.iloc[2]

    def test_every_share_replaces_that_many_labels(self) -> None:
        # two annotators: at share 1 every label of a0 changes, so kappa of the
        # predicted pair is -1 on a binary scale where the truth had +1
        df = pd.DataFrame(
            {"item": np.repeat(np.arange(30), 2), "annotator": ["a", "b"] * 30,
             "label": np.repeat(np.arange(30) % 2, 2)}
        )  # fmt: skip
        ann = Annotations.from_frame(df)
        c = perturbation_curve(ann, df, "a", shares=[0, 1], n_repeats=3, min_overlap=5)
        assert c.dic_mean.tolist() == pytest.approx([0.0, 2.0])

    def test_unknown_annotator(self, pool) -> None:
        with pytest.raises(ValueError, match="not in the annotations"):
            perturbation_curve(pool[0], pool[1], "zz")


class TestReprHtml:
    def test_one_row_with_statistic_interval_and_escaped_names(self, pool) -> None:
        ann, df, _ = pool
        r = dic(ann, df, n_resamples=50)
        first = r.true.index[0]
        hostile = replace(
            r,
            measure="<script>m</script>",
            true=r.true.rename(index={first: "<script>"}),
        )
        page = hostile._repr_html_()
        assert "<script>" not in page
        assert '<th scope="row" class="txt">&lt;script&gt;m&lt;/script&gt;</th>' in page
        assert "'&lt;script&gt;'" in page  # the annotator, quoted as in errors
        assert f'<td class="num">{format_number(r.statistic, digits=4)}</td>' in page
        interval = r.confidence_interval
        assert interval is not None
        # the renderer joins an interval's two ends with a no-break space
        span = format_interval(interval.low, interval.high, digits=4).replace(" ", "\xa0")
        assert f'<td class="num">{span}</td>' in page
        assert f'<td class="num">{r.n_pairs:,}' in page
