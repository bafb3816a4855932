import numpy as np
import pytest

from dissensus.simulate import (
    CANDIDATES,
    annotation_counts,
    candidate_predictions,
    draw_truth,
    make_synthetic,
)


class TestDrawTruth:
    @pytest.mark.parametrize(
        "family", ["mixture", "ordinal", "skewed", "flat", "uniform", "jeffreys"]
    )
    def test_rows_on_simplex(self, family):
        pi = draw_truth(500, 5, truth=family, seed=0)
        assert pi.shape == (500, 5)
        assert np.all(pi >= 0)
        np.testing.assert_allclose(pi.sum(axis=1), 1.0)

    def test_skewed_mean_is_convabuse_marginal(self):
        pi = draw_truth(40_000, 5, truth="skewed", seed=1)
        np.testing.assert_allclose(pi.mean(axis=0), [0.022, 0.072, 0.063, 0.052, 0.789], atol=0.01)

    def test_dirichlet_parameters(self):
        pi = draw_truth(40_000, 3, truth=[2.0, 1.0, 1.0], seed=2)
        np.testing.assert_allclose(pi.mean(axis=0), [0.5, 0.25, 0.25], atol=0.01)

    def test_bad_truth(self):
        with pytest.raises(ValueError, match="'truth' parameter"):
            draw_truth(5, 3, truth="nope")
        with pytest.raises(ValueError, match="positive Dirichlet"):
            draw_truth(5, 3, truth=[1.0, -1.0, 1.0])


class TestAnnotationCounts:
    def test_law(self):
        n = annotation_counts(100_000, seed=0)
        assert n.min() == 2
        assert n.max() <= 1000
        # P(n = 2) = 2^-2 / sum_{m=2}^{1000} m^-2
        p2 = 0.25 / np.sum(np.arange(2, 1001, dtype=float) ** -2)
        assert abs((n == 2).mean() - p2) < 0.005

    def test_bad_range(self):
        with pytest.raises(ValueError, match="n_range"):
            annotation_counts(5, n_range=(5, 2))


class TestMakeSynthetic:
    def test_counts_match_n(self):
        d = make_synthetic(300, 4, seed=0)
        assert d.counts.N == 300
        np.testing.assert_array_equal(d.counts.values.sum(axis=1), d.n)
        assert d.counts.scale.ordered

    def test_fixed_n_and_determinism(self):
        a = make_synthetic(50, 3, n_annotations=7, seed=5)
        b = make_synthetic(50, 3, n_annotations=7, seed=5)
        assert (a.n == 7).all()
        np.testing.assert_array_equal(a.counts.values, b.counts.values)
        np.testing.assert_array_equal(a.truth, b.truth)

    def test_counts_follow_truth(self):
        d = make_synthetic(2000, 3, n_annotations=500, truth="flat", seed=3)
        np.testing.assert_allclose(d.counts.proportions(), d.truth, atol=0.1)

    def test_annotators_and_bias(self):
        d = make_synthetic(100, 5, n_annotations=6, n_annotators=12, bias_sd=2.0, seed=0)
        ann = d.annotations
        assert ann is not None
        assert ann.n_annotations == 600
        assert ann.n_annotators == 12
        # distinct annotators per item
        pairs = set(zip(ann.item_codes.tolist(), ann.annotator_codes.tolist(), strict=True))
        assert len(pairs) == 600
        assert d.annotator_bias is not None
        assert d.annotator_bias.shape == (12, 5)

    def test_too_few_annotators(self):
        with pytest.raises(ValueError, match="n_annotators"):
            make_synthetic(10, 3, n_annotations=5, n_annotators=3)

    def test_bias_needs_annotators(self):
        with pytest.raises(ValueError, match="bias_sd"):
            make_synthetic(10, 3, bias_sd=1.0)


class TestCandidatePredictions:
    def test_every_candidate_on_simplex(self):
        pi = draw_truth(200, 5, seed=0)
        q = candidate_predictions(pi, list(CANDIDATES), n=np.full(200, 3), seed=0)
        for name, arr in q.items():
            assert arr.shape == (200, 5), name
            assert np.all(arr > 0), name
            np.testing.assert_allclose(arr.sum(axis=1), 1.0, err_msg=name)

    def test_truth_is_truth_up_to_floor(self):
        pi = draw_truth(10, 3, seed=0)
        q = candidate_predictions(pi, ["truth"], floor=0.0, seed=0)["truth"]
        np.testing.assert_allclose(q, pi)

    def test_adding_a_candidate_moves_no_other(self):
        pi = draw_truth(50, 3, seed=0)
        a = candidate_predictions(pi, ["noisy"], seed=4)["noisy"]
        b = candidate_predictions(pi, ["uniform", "noisy"], seed=4)["noisy"]
        np.testing.assert_array_equal(a, b)

    def test_marginal_per_group(self):
        pi = draw_truth(20, 3, seed=0)
        q = candidate_predictions(pi, ["marginal"], groups=2, floor=0.0, seed=0)["marginal"]
        np.testing.assert_allclose(q[0], pi[:10].mean(axis=0))
        np.testing.assert_allclose(q[15], pi[10:].mean(axis=0))

    def test_errors(self):
        pi = draw_truth(4, 3, seed=0)
        with pytest.raises(ValueError, match="Unknown candidate"):
            candidate_predictions(pi, ["oracle"])
        with pytest.raises(ValueError, match="needs `n`"):
            candidate_predictions(pi, ["overfit"])
