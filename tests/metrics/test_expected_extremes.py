"""Expected metrics at the extremes of the Dirichlet parameters: correct limits, never NaN."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dissensus import DataError, LabelCounts, Scale, evaluate
from dissensus import metrics as pointwise
from dissensus.metrics import _beta, expected, get_metric
from dissensus.metrics import emd as emd_point
from dissensus.metrics import js_divergence as js_point
from dissensus.metrics import manhattan as l1_point

EXACT = ("emd", "manhattan", "js_divergence", "kl_divergence", "cross_entropy")
LN2 = float(np.log(2.0))


def _corner_value(metric: str, alpha: np.ndarray, q: np.ndarray) -> float:
    """alpha -> 0: p is the corner e_k with probability alpha_k / a0; the metric averaged."""
    f = get_metric(metric.removeprefix("E[").removesuffix("]")).func
    K = alpha.size
    corners = np.eye(K)
    values = np.array([float(f(corners[k : k + 1], q[None, :])[0]) for k in range(K)])
    return float((alpha / alpha.sum()) @ values)


class TestTinyAlpha:
    @pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-120])
    def test_emd_and_manhattan_put_the_mass_on_the_corners(self, scale):
        alpha = np.array([[scale, scale]])
        q = np.array([0.5, 0.5])
        assert expected.emd(alpha, q)[0] == pytest.approx(0.5, rel=1e-12)
        assert expected.manhattan(alpha, q)[0] == pytest.approx(1.0, rel=1e-12)

    def test_unequal_tiny_alpha_weights_the_corners(self):
        alpha = np.array([1e-200, 3e-200, 4e-200])
        q = np.array([0.2, 0.5, 0.3])
        for name in ("emd", "manhattan", "js_divergence"):
            got = getattr(expected, name)(alpha[None, :], q)[0]
            assert got == pytest.approx(_corner_value(name, alpha, q), rel=1e-9), name


class TestHugeAlpha:
    @pytest.mark.parametrize("scale", [1e13, 1e20, 1e100, 1e290])
    def test_the_metric_at_the_posterior_mean(self, scale):
        alpha = np.array([[scale, 2 * scale, scale]])
        q = np.array([0.3, 0.4, 0.3])
        mean = alpha / alpha.sum()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no raw numpy warnings either
            js = expected.js_divergence(alpha, q)[0]
            emd = expected.emd(alpha, q)[0]
            l1 = expected.manhattan(alpha, q)[0]
        assert js == pytest.approx(js_point(mean, q[None, :])[0], abs=1e-12)
        assert emd == pytest.approx(emd_point(mean, q[None, :])[0], abs=1e-12)
        assert l1 == pytest.approx(l1_point(mean, q[None, :])[0], abs=1e-12)

    def test_the_limits_agree_with_the_general_forms_where_both_hold(self, monkeypatch):
        # At a0 ~ 1e9 the quadrature and the Beta formula are verified against mpmath;
        # moving the switch below them must change nothing that matters.
        alpha = np.array([[1e9, 2e9, 1.5e9]])
        q = np.array([0.3, 0.4, 0.3])
        general = {
            n: getattr(expected, n)(alpha, q)[0] for n in ("js_divergence", "emd", "manhattan")
        }
        monkeypatch.setattr(_beta, "HUGE", 1e8)
        for name, value in general.items():
            limit = getattr(expected, name)(alpha, q)[0]
            assert limit == pytest.approx(value, rel=1e-4, abs=1e-13), name

    def test_beyond_the_valid_range_is_refused(self):
        with pytest.raises(DataError, match=r"a0 = sum\(alpha\) at most 1e\+300"):
            expected.emd([[1e300, 1e300]], [0.5, 0.5])


class TestJeffreysAndADenormalPrediction:
    def test_no_overflow_error(self):
        alpha = np.array([[5.5, 30.5, 2.5]])
        q = np.array([1e-307, 0.5, 0.5])
        for name in ("emd", "manhattan"):
            value = getattr(expected, name)(alpha, q)[0]
            mc = expected.monte_carlo(getattr(pointwise, name), alpha, q, seed=1)
            assert np.isfinite(value)
            assert value == pytest.approx(
                float(mc.estimate[0]), abs=5 * float(mc.standard_error[0]) + 1e-3
            )


class TestEvaluateAtTheExtremes:
    @pytest.mark.parametrize("prior", [1e20, "jeffreys", 1e-200])
    def test_summary_is_finite_and_ranks(self, prior):
        lc = LabelCounts.from_array([[5, 30, 2], [1, 2, 3]] * 20, scale=Scale.ordinal([1, 2, 3]))
        preds = {
            "m": np.array([[1e-307, 0.5, 0.5], [0.2, 0.3, 0.5]] * 20),
            "n": np.full((40, 3), 1 / 3),
        }
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            ev = evaluate(lc, preds, prior=prior)
            summary = ev.summary(n_resamples=50)
        expected_cols = summary[summary["metric"].str.startswith("E[")]
        assert np.isfinite(expected_cols["mean"].to_numpy(dtype=float)).all()
        assert ev.rankings()["rank"].notna().all()


alphas = st.floats(min_value=1e-300, max_value=1e300, allow_subnormal=False)
probabilities = st.lists(
    st.one_of(st.just(0.0), st.just(5e-324), st.just(1e-310), st.floats(1e-300, 1.0)),
    min_size=3,
    max_size=3,
).filter(lambda v: sum(v) > 0)


@settings(max_examples=150, deadline=None)
@given(a=st.lists(alphas, min_size=3, max_size=3), q=probabilities)
def test_finite_wherever_defined(a, q):
    alpha = np.array([a])
    pred = np.array(q) / np.sum(q)
    if alpha.sum() > expected.MAX_A0:
        with pytest.raises(DataError):
            expected.emd(alpha, pred)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # what matters is the value
        values = {
            "emd": expected.emd(alpha, pred)[0],
            "manhattan": expected.manhattan(alpha, pred)[0],
            "js_divergence": expected.js_divergence(alpha, pred)[0],
            "kl_divergence": expected.kl_divergence(alpha, pred, zero="clip")[0],
        }
    for name, v in values.items():
        assert np.isfinite(v), (name, a, q, v)
        # KL against a clipped (not renormalised) q may dip below 0 by rounding; its
        # digamma terms are of size log(a0) and cancel, so the rounding grows with it
        # (hypothesis found -1.02e-12 at a0 = 9.4e299, where log(a0) = 690)
        kl_tol = 1e-12 * max(1.0, math.log(float(alpha.sum())))
        assert v >= (-kl_tol if name == "kl_divergence" else 0.0), (name, a, q, v)
    assert values["emd"] <= 1.0 + 1e-9
    assert values["manhattan"] <= 2.0 + 1e-9
    assert values["js_divergence"] <= LN2 + 1e-12
