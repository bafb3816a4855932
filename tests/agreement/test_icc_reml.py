"""Tests of icc(method='reml' | 'ml'): closed forms, statsmodels MixedLM, duplicates, bootstrap."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dissensus import Annotations, DataError, DissensusWarning, FewItemsWarning
from dissensus.agreement import icc
from dissensus.agreement._icc_reml import Design, bootstrap_components, fit_components

KINDS = ["1,1", "A,1", "C,1", "1,k", "A,k", "C,k"]
# Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges.
SF = np.array(
    [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
    dtype=float,
)


def _table(seed: int, n: int, k: int, missing: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = 1.5 * rng.normal(size=(n, 1)) + rng.normal(size=(1, k)) + rng.normal(size=(n, k))
    x[rng.random((n, k)) < missing] = np.nan
    return x


def _design(x: np.ndarray, model: str) -> Design:
    t, r = np.nonzero(np.isfinite(x))
    return Design.build(x[t, r], t.astype(np.int64), r.astype(np.int64),
                        n=x.shape[0], k=x.shape[1], model=model)  # fmt: skip


def _long(x: np.ndarray) -> pd.DataFrame:
    t, r = np.nonzero(np.isfinite(x))
    return pd.DataFrame({"y": x[t, r], "t": t, "r": r, "g": 1})


class TestIccReml:
    @pytest.mark.parametrize("kind", KINDS)
    @pytest.mark.parametrize("data", ["sf", "random"])
    def test_balanced_equals_closed_forms(self, kind: str, data: str) -> None:
        x = SF if data == "sf" else _table(0, 40, 5)
        ref = icc(x, kind=kind)
        got = icc(x, kind=kind, method="reml")
        assert got.statistic == pytest.approx(ref.statistic, abs=1e-8)
        assert got.n_annotations == x.size

    def test_one_way_ml_closed_form(self) -> None:
        # balanced one-way ML: sigma_e^2 = MS_W, sigma_r^2 = ((1 - 1/n) MS_R - MS_W) / k
        x = _table(1, 30, 4)
        n, k = x.shape
        ms_r = k * x.mean(axis=1).var(ddof=1)
        ms_w = ((x - x.mean(axis=1, keepdims=True)) ** 2).sum() / (n * (k - 1))
        s_r = ((1 - 1 / n) * ms_r - ms_w) / k
        r = icc(x, kind="1,1", method="ml")
        assert r.parts["sigma2_residual"] == pytest.approx(ms_w, rel=1e-9)
        assert r.parts["sigma2_target"] == pytest.approx(s_r, rel=1e-9)

    @pytest.mark.parametrize("reml", [True, False])
    @pytest.mark.parametrize("model", ["1", "C", "A"])
    def test_unbalanced_equals_statsmodels(self, model: str, reml: bool) -> None:
        import statsmodels.formula.api as smf  # noqa: PLC0415 -- test-only dependency

        x = _table(2, 30, 4, missing=0.3)
        df = _long(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # statsmodels' convergence chatter
            if model == "1":
                m = smf.mixedlm("y ~ 1", df, groups="t").fit(reml=reml)
                ref = {"target": float(m.cov_re.iloc[0, 0])}
            elif model == "C":
                m = smf.mixedlm("y ~ C(r)", df, groups="t").fit(reml=reml)
                ref = {"target": float(m.cov_re.iloc[0, 0])}
            else:  # crossed random effects: one group, a variance component per factor
                vc = {"t": "0 + C(t)", "r": "0 + C(r)"}
                m = smf.mixedlm("y ~ 1", df, groups="g", re_formula="0", vc_formula=vc)
                m = m.fit(reml=reml)
                ref = {"rater": float(m.vcomp[0]), "target": float(m.vcomp[1])}
        c = fit_components(_design(x, model), reml=reml)
        assert c.residual == pytest.approx(m.scale, rel=1e-4)
        for name, value in ref.items():
            assert getattr(c, name) == pytest.approx(value, rel=1e-4)
        assert c.gradient < 1e-8

    def test_missing_ratings_used_not_dropped(self) -> None:
        x = _table(3, 25, 4, missing=0.25)
        r = icc(x, kind="A,1", method="reml")
        assert r.n_annotations == int(np.isfinite(x).sum())
        assert r.n_items_excluded == 0
        assert r.parts["k_mean"] == pytest.approx(np.isfinite(x).sum() / 25)
        omit = icc(x, kind="A,1", method="reml", nan_policy="omit")
        complete = x[np.isfinite(x).all(axis=1)]
        assert omit.n_items == complete.shape[0]
        assert omit.statistic == pytest.approx(icc(complete, kind="A,1").statistic, abs=1e-8)
        with pytest.raises(DataError, match="method='reml'"):
            icc(x)

    def test_negative_closed_form_is_zero(self) -> None:
        x = np.array([[1.0, 3.0], [3.0, 1.0], [2.0, 2.5], [2.5, 2.0]])
        assert icc(x, kind="1,1").statistic < 0
        r = icc(x, kind="1,1", method="reml")
        assert r.statistic == pytest.approx(0.0, abs=1e-8)
        assert r.pvalue == 1.0

    def test_duplicate_rating_refused_by_item_and_rater(self) -> None:
        df = pd.DataFrame(
            {
                "item": ["t1", "t1", "t2", "t2", "t2", "t3", "t3"],
                "annotator": ["a", "b", "a", "b", "b", "a", "b"],
                "label": [1, 2, 3, 3, 5, 4, 4],
            }
        )
        ann = Annotations.from_frame(df, duplicates="keep")
        for method in ("anova", "reml"):
            with pytest.raises(DataError, match=r"rater 'b' rated target 't2' 2 times"):
                icc(ann, method=method)  # type: ignore[arg-type]

    def test_annotations_with_missing(self) -> None:
        x = _table(4, 20, 3, missing=0.2)
        t, r = np.nonzero(np.isfinite(x))
        df = pd.DataFrame({"item": t, "annotator": r, "label": np.round(x[t, r], 1)})
        ann = Annotations.from_frame(df)
        wide = np.full(x.shape, np.nan)
        wide[t, r] = np.round(x[t, r], 1)
        a = icc(ann, kind="C,1", method="reml")
        b = icc(wide, kind="C,1", method="reml")
        assert a.statistic == pytest.approx(b.statistic, abs=1e-10)

    def test_bootstrap_refit_equals_a_fit_on_the_resample(self) -> None:
        # a resample with multiplicities w is the data with target i repeated w_i times
        x = _table(5, 15, 4, missing=0.2)
        w = np.random.default_rng(0).multinomial(15, np.full(15, 1 / 15), size=3).astype(float)
        for model in ("1", "A", "C"):
            d = _design(x, model)
            full = fit_components(d)
            t, c, e = bootstrap_components(d, w, full.gamma)
            for b in range(3):
                rep = x[np.repeat(np.arange(15), w[b].astype(int))]
                ref = fit_components(_design(rep, model))
                np.testing.assert_allclose([t[b], c[b], e[b]],
                                           [ref.target, ref.rater, ref.residual], rtol=1e-5, atol=1e-8)  # fmt: skip

    def test_interval_seeded_and_covers(self) -> None:
        x = _table(6, 40, 4, missing=0.2)
        a = icc(x, kind="A,1", method="reml")
        b = icc(x, kind="A,1", method="reml")
        assert a.confidence_interval() == b.confidence_interval()
        low, high = a.confidence_interval()
        assert low < a.statistic < high
        assert 0 <= a.pvalue < 1e-6

    def test_few_targets_warn(self) -> None:
        with pytest.warns(FewItemsWarning):
            icc(SF, kind="C,1", method="reml").confidence_interval()

    def test_bad_options(self) -> None:
        with pytest.raises(ValueError, match="'method' parameter of icc"):
            icc(SF, method="bayes")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="'n_resamples' parameter of icc"):
            icc(_table(7, 40, 3), method="reml").confidence_interval(n_resamples=1)


def _same(a: float, b: float, tol: float = 1e-9) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


@st.composite
def _ratings_and_map(draw: st.DrawFn) -> tuple[np.ndarray, float, float]:
    """Integer ratings (some missing) and ``a x + b`` exact in floats (a = m 2^e, b an integer).

    Exact so that the test is of the fit, not of the rounding of the data: ``1e-6 x + 1e9``
    of arbitrary floats keeps no digit of ``x``.
    """
    n, k = draw(st.integers(3, 8)), draw(st.integers(2, 4))
    x = draw(hnp.arrays(np.float64, (n, k), elements=st.integers(0, 10).map(float)))
    holes = draw(hnp.arrays(np.bool_, (n, k), elements=st.booleans()))
    holes[:, 0] = False  # every target keeps a rating
    holes[0, :] = False  # and every rater
    x[holes & draw(st.booleans())] = np.nan
    a = draw(st.sampled_from([1.0, 1.25, 1.5, 3.0])) * 2.0 ** draw(st.integers(-20, 19))
    b = float(draw(st.integers(-(10**9), 10**9)))
    return x, a, b


class TestAffineInvariance:
    """icc(a x + b) = icc(x) to 1e-9 for a > 0 (issue 23: + 1e9 gave 0.333 or LinAlgError)."""

    @settings(max_examples=15, deadline=None, derandomize=True)
    @given(_ratings_and_map(), st.sampled_from(KINDS), st.sampled_from(["anova", "reml", "ml"]))
    def test_exact_maps(
        self, case: tuple[np.ndarray, float, float], kind: str, method: str
    ) -> None:
        x, a, b = case
        if method == "anova":
            x = x[np.isfinite(x).all(axis=1)]
            if x.shape[0] < 2:
                return
        with warnings.catch_warnings():
            # constant ratings (undefined ICC) and small samples warn; both fits must agree
            warnings.simplefilter("ignore", DissensusWarning)
            ref, got = icc(x, kind=kind, method=method), icc(a * x + b, kind=kind, method=method)
            lo, hi = got.confidence_interval(n_resamples=20, seed=3)
            lo0, hi0 = ref.confidence_interval(n_resamples=20, seed=3)
        assert _same(got.statistic, ref.statistic)
        assert _same(lo, lo0)
        assert _same(hi, hi0)

    @settings(max_examples=10, deadline=None, derandomize=True)
    @given(st.floats(1e-6, 1e6), st.sampled_from(KINDS), st.sampled_from(["anova", "reml"]))
    def test_any_positive_scale(self, a: float, kind: str, method: str) -> None:
        x = _table(5, 12, 3)
        ref, got = icc(x, kind=kind, method=method), icc(a * x, kind=kind, method=method)
        assert _same(got.statistic, ref.statistic)

    @pytest.mark.parametrize("shift", [1e6, 1e9])
    def test_issue_shift(self, shift: float) -> None:
        x = np.round(_table(2, 30, 4) * 4) / 4  # quarter points: x + 1e9 is exact
        x[1, 2] = np.nan
        for kind in KINDS:
            ref = icc(x, kind=kind, method="reml").statistic
            assert icc(x + shift, kind=kind, method="reml").statistic == pytest.approx(
                ref, abs=1e-9
            )

    def test_components_in_the_ratings_unit(self) -> None:
        x = _table(3, 25, 4)
        ref, got = icc(x, kind="A,1", method="reml"), icc(1000.0 * x + 7, kind="A,1", method="reml")
        for part in ("sigma2_target", "sigma2_rater", "sigma2_residual"):
            assert got.parts[part] == pytest.approx(1e6 * ref.parts[part], rel=1e-8)
        assert got.parts["lrt"] == pytest.approx(ref.parts["lrt"], rel=1e-8)
