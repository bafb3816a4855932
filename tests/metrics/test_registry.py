"""Tests of dissensus.metrics._registry, and shared metric tests driven by its property sets."""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dissensus.metrics import (
    REGISTRY,
    Metric,
    _registry,
    entropy,
    expected,
    get_metric,
    list_metrics,
    register_metric,
)
from tests.strategies import simplex_rows

POINTWISE = list_metrics(kind="pointwise")
SYMMETRIC_METRICS = frozenset(list_metrics(symmetric=True, unary=None))
BOUNDED_METRICS = frozenset(list_metrics(bounded=True, unary=None))
ORDINAL_METRICS = frozenset(list_metrics(needs_order=True, unary=None))
EXPECTED_METRICS = frozenset(list_metrics(kind="expected", unary=None))
ASYMMETRIC = [n for n in POINTWISE if n not in SYMMETRIC_METRICS]
SIMILARITIES = [n for n in POINTWISE if not REGISTRY[n].lower_is_better]
#: Divergences and distances: 0 exactly when the prediction equals the target.
ZERO_AT_IDENTITY = [n for n in POINTWISE if REGISTRY[n].lower_is_better and n != "cross_entropy"]


@pytest.fixture
def clean_registry() -> Iterator[None]:
    """Let a test register metrics without leaking them into other tests."""
    saved = dict(_registry._REGISTRY)
    yield
    _registry._REGISTRY.clear()
    _registry._REGISTRY.update(saved)


class TestGetMetric:
    def test_pointwise_entry(self) -> None:
        m = get_metric("kl_divergence")
        assert isinstance(m, Metric)
        assert m.name == "kl_divergence"
        assert m.kind == "pointwise"
        assert m.lower_is_better
        assert not m.symmetric
        assert not m.needs_posterior
        assert m.zero_policy
        assert m.expected == "E[kl_divergence]"
        assert m.bounds == (0.0, math.inf)

    def test_call_forwards_to_func(self) -> None:
        m = get_metric("manhattan")
        np.testing.assert_array_equal(m([[1.0, 0.0]], [[0.0, 1.0]]), [2.0])

    def test_expected_entry(self) -> None:
        m = get_metric("E[emd]")
        assert m.kind == "expected"
        assert m.needs_posterior
        assert m.pointwise == "emd"
        assert m.needs_order
        assert m.lower_is_better
        assert not m.symmetric
        assert m.bounds == (0.0, 1.0)

    def test_metric_instance_passes_through(self) -> None:
        m = get_metric("emd")
        assert get_metric(m) is m

    def test_unknown_name_suggests_close_matches(self) -> None:
        with pytest.raises(ValueError, match=r"Unknown metric 'kl_divergense'\. Did you mean "
                           r"'kl_divergence'.*Available: cross_entropy, kl_divergence"):  # fmt: skip
            get_metric("kl_divergense")
        with pytest.raises(ValueError, match=r"Unknown metric 'zzz'\. Available: "):
            get_metric("zzz")

    @pytest.mark.parametrize(
        ("given", "name"),
        [
            ("KL_Divergence", "kl_divergence"),
            ("kl-divergence", "kl_divergence"),
            ("e[EMD]", "E[emd]"),
            (" E[cross entropy] ", "E[cross_entropy]"),
        ],
    )
    def test_case_and_separators_do_not_matter(self, given: str, name: str) -> None:
        assert get_metric(given).name == name

    def test_misspelt_expected_name_suggests_expected_form(self) -> None:
        with pytest.raises(ValueError, match=r"Did you mean 'E\[manhattan\]'"):
            get_metric("E[manhatan]")
        with pytest.raises(ValueError, match=r"Did you mean 'E\[kl_divergence\]'"):
            get_metric("E[KL_divergense]")

    def test_expected_form_that_does_not_exist(self) -> None:
        with pytest.raises(ValueError, match=r"Unknown metric 'E\[chebyshev\]'"):
            get_metric("E[chebyshev]")

    def test_name_must_be_a_string(self) -> None:
        with pytest.raises(TypeError, match="The 'name' parameter of get_metric must be a str"):
            get_metric(3)  # type: ignore[arg-type]

    def test_repr(self) -> None:
        assert repr(get_metric("E[emd]")) == (
            "Metric('E[emd]': expected, lower is better, bounds=(0.0, 1.0), ordinal, "
            "needs posterior)"
        )


class TestListMetrics:
    def test_default_lists_two_argument_metrics_of_both_kinds(self) -> None:
        names = list_metrics()
        assert "entropy" not in names
        assert "E[entropy]" not in names
        assert {"cross_entropy", "emd", "E[emd]", "E[cross_entropy]"} <= set(names)
        assert names == (
            list_metrics(kind="pointwise")
            + list_metrics(kind="expected")
            + list_metrics(kind="debiased")
        )

    def test_unary(self) -> None:
        assert list_metrics(unary=True) == ["entropy", "E[entropy]", "debiased[entropy]"]
        assert len(list_metrics(unary=None, corpus=None)) == len(REGISTRY)

    def test_filters(self) -> None:
        assert list_metrics(needs_order=True) == [
            "emd",
            "rps",
            "E[emd]",
            "E[rps]",
            "debiased[emd]",
            "debiased[rps]",
        ]
        assert set(list_metrics(symmetric=False, kind="pointwise")) == {
            "cross_entropy",
            "kl_divergence",
            "kl_divergence_reverse",
        }
        assert "cross_entropy" in list_metrics(bounded=False)
        assert "clark" in list_metrics(bounded=True)

    def test_bad_kind(self) -> None:
        with pytest.raises(ValueError, match="The 'kind' parameter of list_metrics must be one"):
            list_metrics(kind="pointwize")  # type: ignore[arg-type]

    def test_property_sets(self) -> None:
        assert {"emd", "E[emd]", "debiased[emd]", "rps", "E[rps]", "debiased[rps]"} == (
            ORDINAL_METRICS
        )
        assert "js_distance" in SYMMETRIC_METRICS
        assert "kl_divergence" not in SYMMETRIC_METRICS
        assert "hellinger" in BOUNDED_METRICS
        assert "kl_divergence" not in BOUNDED_METRICS
        assert all(n.startswith("E[") for n in EXPECTED_METRICS)
        # every expected form named on a pointwise entry is registered, and links back
        for name in [*POINTWISE, "entropy"]:
            exp = REGISTRY[name].expected
            if exp is not None:
                assert REGISTRY[exp].pointwise == name

    def test_polynomial_degrees(self) -> None:
        degrees = {
            name: (REGISTRY[name].degree, REGISTRY[name].difference_degree)
            for name in list_metrics(kind="pointwise")
            if REGISTRY[name].difference_degree is not None
        }
        assert degrees == {
            "cross_entropy": (1, 1),
            "kl_divergence": (None, 1),
            "squared_euclidean": (2, 1),
            "rps": (2, 1),
        }
        for name in list_metrics(kind="debiased"):
            base = REGISTRY[str(REGISTRY[name].pointwise)]
            assert (REGISTRY[name].degree, REGISTRY[name].difference_degree) == (
                base.degree,
                base.difference_degree,
            )
        assert all(
            REGISTRY[name].degree is None and REGISTRY[name].difference_degree is None
            for name in list_metrics(kind="expected", unary=None)
        )

    @pytest.mark.parametrize("degree", [-1, 1.5, True, "2"])
    def test_bad_degree(self, degree: object) -> None:
        with pytest.raises(ValueError, match="'degree' parameter of register_metric"):
            register_metric("x", entropy, lower_is_better=True, degree=degree)  # type: ignore[arg-type]
        assert "x" not in REGISTRY

    @pytest.mark.parametrize("name", list_metrics(kind="pointwise", unary=None))
    def test_zero_policy_flag_matches_the_signature(self, name: str) -> None:
        m = get_metric(name)
        params = inspect.signature(m.func).parameters
        assert ("zero" in params and "eps" in params) == m.zero_policy

    def test_registry_is_read_only(self) -> None:
        with pytest.raises(TypeError):
            REGISTRY["x"] = get_metric("emd")  # type: ignore[index]


class TestRegisterMetric:
    @pytest.mark.usefixtures("clean_registry")
    def test_register_and_look_up(self) -> None:
        def tv(p: Any, q: Any, /) -> np.ndarray:
            return 0.5 * np.abs(np.asarray(p) - np.asarray(q)).sum(axis=1)

        m = register_metric("tv", tv, lower_is_better=True, bounds=(0, 1), symmetric=True)
        assert get_metric("tv") is m
        assert m.label == "tv"
        assert m.bounds == (0.0, 1.0)
        assert "tv" in list_metrics(symmetric=True)
        with pytest.raises(ValueError, match="already registered; pass overwrite=True"):
            register_metric("tv", tv, lower_is_better=True)
        m2 = register_metric("tv", tv, lower_is_better=False, overwrite=True)
        assert get_metric("tv") is m2

    @pytest.mark.usefixtures("clean_registry")
    def test_expected_kind_needs_expected_name(self) -> None:
        with pytest.raises(ValueError, match=r"named 'E\[<pointwise name>\]'"):
            register_metric("my_expected", entropy, lower_is_better=True, kind="expected")
        with pytest.raises(ValueError, match=r"named 'E\[<pointwise name>\]'"):
            register_metric("E[mine]", entropy, lower_is_better=True)
        m = register_metric("E[mine]", entropy, lower_is_better=True, kind="expected")
        assert m.needs_posterior

    # a refused call must not leak a half-registered name into later tests
    @pytest.mark.usefixtures("clean_registry")
    def test_bad_arguments(self) -> None:
        with pytest.raises(TypeError, match="'func' parameter of register_metric must be call"):
            register_metric("x", 3, lower_is_better=True)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match=r"low <= high"):
            register_metric("x", entropy, lower_is_better=True, bounds=(1, 0))
        with pytest.raises(ValueError, match="non-empty"):
            register_metric("", entropy, lower_is_better=True)
        with pytest.raises(ValueError, match="The 'kind' parameter of register_metric"):
            register_metric("x", entropy, lower_is_better=True, kind="other")  # type: ignore[arg-type]
        assert "x" not in REGISTRY


class TestKernel:
    """``Metric.kernel``: the same formula as ``func`` without the input checks."""

    @pytest.mark.parametrize("name", list_metrics(kind="pointwise", unary=None))
    def test_every_builtin_pointwise_metric_has_a_kernel_equal_to_func(self, name: str) -> None:
        m = REGISTRY[name]
        assert m.kernel is not None
        rng = np.random.default_rng(12)
        for K in (2, 5, 11):
            P = rng.dirichlet(np.full(K, 0.5), size=300)
            P[:40, 0] = 0.0  # zeros in the target
            P /= P.sum(axis=1, keepdims=True)
            Q = rng.dirichlet(np.ones(K), size=300)
            args = (P,) if m.unary else (P, Q)
            # the public function validates and calls the kernel: the same bytes
            np.testing.assert_array_equal(m.kernel(*args), m.func(*args))
            if m.zero_policy:
                np.testing.assert_array_equal(
                    m.kernel(*args, zero="clip", eps=1e-9), m.func(*args, zero="clip", eps=1e-9)
                )

    def test_kernel_checks_scalar_options(self) -> None:
        P = np.array([[0.5, 0.5]])
        kernel = REGISTRY["kl_divergence"].kernel
        assert kernel is not None
        with pytest.raises(ValueError, match="'zero'"):
            kernel(P, P, zero="drop")
        with pytest.raises(ValueError, match="'base'"):
            kernel(P, P, base=1.0)

    def test_expected_and_debiased_metrics_have_none(self) -> None:
        assert all(REGISTRY[n].kernel is None for n in list_metrics(kind="expected", unary=None))
        assert all(REGISTRY[n].kernel is None for n in list_metrics(kind="debiased"))

    @pytest.mark.usefixtures("clean_registry")
    def test_register_with_kernel(self) -> None:
        def tv(p: Any, q: Any, /) -> np.ndarray:
            return 0.5 * np.abs(np.asarray(p) - np.asarray(q)).sum(axis=1)

        m = register_metric("tv", tv, lower_is_better=True, kernel=tv)
        assert m.kernel is tv
        assert register_metric("tv2", tv, lower_is_better=True).kernel is None
        with pytest.raises(TypeError, match="'kernel' parameter of register_metric"):
            register_metric("tv3", tv, lower_is_better=True, kernel=3)  # type: ignore[arg-type]


class TestExpectedForms:
    """Expected entries are the functions of dissensus.metrics.expected, declared there."""

    def test_entry_is_the_expected_function(self) -> None:
        assert get_metric("E[emd]").func is expected.emd
        assert get_metric("E[entropy]").func is expected.entropy

    @pytest.mark.parametrize("name", sorted(EXPECTED_METRICS))
    def test_expected_module_provides_every_entry(self, name: str) -> None:
        metric = get_metric(name)
        func = getattr(expected, metric.pointwise or "", None)
        assert callable(func)
        params = inspect.signature(func).parameters
        assert ("zero" in params) == metric.zero_policy

    @pytest.mark.parametrize("name", list_metrics(kind="expected"))
    def test_expected_matches_monte_carlo_of_the_pointwise_metric(self, name: str) -> None:
        # The registry pairs E[f](alpha, q) with f(p, q): check the pairing and the argument
        # order against the mean of f over Dirichlet draws of p (not a test of the formulas,
        # which tests/metrics/test_expected.py does precisely).
        metric = get_metric(name)
        pointwise = get_metric(metric.pointwise or "")
        rng = np.random.default_rng(7)
        alpha = np.array([[2.0, 1.5, 3.0, 1.0], [0.7, 4.0, 1.0, 2.5]])
        q = np.array([[0.1, 0.2, 0.3, 0.4], [0.25, 0.35, 0.15, 0.25]])
        got = metric(alpha, q)
        assert got.shape == (2,)
        for i in range(2):
            draws = rng.dirichlet(alpha[i], size=40_000)
            vals = pointwise(draws, q[i])
            mc, se = vals.mean(), vals.std() / math.sqrt(len(vals))
            assert got[i] == pytest.approx(mc, abs=6 * se + 1e-9), (name, i)


# --------------------------------------------------------------------------- shared properties


@st.composite
def prob_pairs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    p = draw(simplex_rows())
    q = draw(simplex_rows(n=p.shape[0], k=p.shape[1]))
    return p, q


class TestSharedProperties:
    """Every metric is checked against what its registry entry claims."""

    @pytest.mark.parametrize("name", sorted(SYMMETRIC_METRICS))
    @settings(max_examples=25, deadline=None)
    @given(pq=prob_pairs())
    def test_symmetric(self, name: str, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq
        f = get_metric(name)
        # operands swapped: sums of O(1) terms (entropies, cumulative sums) rounded in
        # another order, ~K ulp of 1 where the value itself is near 0, hence atol 1e-13
        np.testing.assert_allclose(f(p, q), f(q, p), rtol=1e-12, atol=1e-13)

    @pytest.mark.parametrize("name", ASYMMETRIC)
    def test_asymmetric_claims_are_true(self, name: str) -> None:
        f = get_metric(name)
        p, q = np.array([[0.7, 0.2, 0.1]]), np.array([[0.3, 0.3, 0.4]])
        assert abs(f(p, q)[0] - f(q, p)[0]) > 1e-3

    @pytest.mark.parametrize("name", sorted(n for n in BOUNDED_METRICS if n in POINTWISE))
    @settings(max_examples=25, deadline=None)
    @given(pq=prob_pairs())
    def test_within_bounds(self, name: str, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq
        f = get_metric(name)
        low, high = f.bounds_for(p.shape[1])
        got = f(p, q)
        assert (got >= low - 1e-12).all()
        assert (got <= high + 1e-12).all()
        g_low, g_high = f.bounds
        assert g_low <= low
        assert high <= g_high

    @pytest.mark.parametrize("name", sorted(n for n in BOUNDED_METRICS if n in POINTWISE))
    def test_bounds_are_attained(self, name: str) -> None:
        # disjoint one-hot targets at the ends of the scale reach the upper bound (K = 2)
        f = get_metric(name)
        low, high = f.bounds_for(2)
        far = f([[1.0, 0.0]], [[0.0, 1.0]])[0]
        same = f([[1.0, 0.0]], [[1.0, 0.0]])[0]
        best, worst = (low, high) if f.lower_is_better else (high, low)
        assert same == pytest.approx(best, abs=1e-12)
        assert far == pytest.approx(worst, abs=1e-12)

    @pytest.mark.parametrize("name", ZERO_AT_IDENTITY)
    @settings(max_examples=25, deadline=None)
    @given(p=simplex_rows())
    def test_identity_gives_zero(self, name: str, p: np.ndarray) -> None:
        got = get_metric(name)(p, p)
        np.testing.assert_allclose(got, 0.0, atol=1e-12)
        assert (got >= 0).all()

    @pytest.mark.parametrize("name", SIMILARITIES)
    @settings(max_examples=25, deadline=None)
    @given(p=simplex_rows())
    def test_identity_gives_one_for_similarities(self, name: str, p: np.ndarray) -> None:
        np.testing.assert_allclose(get_metric(name)(p, p), 1.0, atol=1e-12)

    @settings(max_examples=25, deadline=None)
    @given(p=simplex_rows())
    def test_cross_entropy_at_identity_is_entropy(self, p: np.ndarray) -> None:
        np.testing.assert_allclose(get_metric("cross_entropy")(p, p), entropy(p), atol=1e-12)

    @pytest.mark.parametrize("name", POINTWISE)
    @settings(max_examples=20, deadline=None)
    @given(pq=prob_pairs(), data=st.data())
    def test_class_order(self, name: str, pq: tuple[np.ndarray, np.ndarray], data: Any) -> None:
        # Metrics that ignore the order are invariant under a common column permutation.
        p, q = pq
        f = get_metric(name)
        perm = np.array(data.draw(st.permutations(range(p.shape[1]))))
        if not f.needs_order:
            # columns permuted: the sums round in another order (see test_symmetric)
            np.testing.assert_allclose(f(p[:, perm], q[:, perm]), f(p, q), rtol=1e-12, atol=1e-13)

    @pytest.mark.parametrize("name", sorted(n for n in ORDINAL_METRICS if n in POINTWISE))
    def test_ordinal_claims_are_true(self, name: str) -> None:
        f = get_metric(name)
        p, q = np.array([[1.0, 0.0, 0.0]]), np.array([[0.0, 0.0, 1.0]])
        perm = [1, 0, 2]
        assert f(p, q)[0] != pytest.approx(f(p[:, perm], q[:, perm])[0])

    @pytest.mark.parametrize("name", sorted(n for n in POINTWISE if not REGISTRY[n].bounded))
    def test_unbounded_claims_are_true(self, name: str) -> None:
        f = get_metric(name)
        assert math.isinf(f.bounds[1])
        assert (
            np.isinf(f([[0.5, 0.5]], [[1.0, 0.0]])).any()
            or np.isinf(f([[1.0, 0.0]], [[0.5, 0.5]])).any()
        )

    def test_entropy_bounds(self) -> None:
        m = get_metric("entropy")
        assert m.unary
        assert m.bounds_for(4) == (0.0, math.log(4))
        assert m.bounded
        assert float(m(np.full((1, 4), 0.25))[0]) == pytest.approx(math.log(4))
