"""Tests of the pointwise metrics (dissensus.metrics._pointwise): published cases, scipy / POT cross-checks, numerics."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import ot
import pytest
from scipy.spatial import distance
from scipy.stats import entropy as scipy_entropy
from scipy.stats import wasserstein_distance

from dissensus import DataError
from dissensus.metrics import (
    _declare,
    canberra,
    chebyshev,
    clark,
    cosine,
    cross_entropy,
    emd,
    entropy,
    euclidean,
    fidelity,
    hellinger,
    intersection,
    js_distance,
    js_divergence,
    kl_divergence,
    kl_divergence_reverse,
    manhattan,
    rps,
    sorensen,
    squared_chi2,
    squared_euclidean,
)
from tests.conftest import reference_cases

PAIR_METRICS = [
    canberra,
    chebyshev,
    clark,
    cosine,
    cross_entropy,
    emd,
    euclidean,
    fidelity,
    hellinger,
    intersection,
    js_distance,
    js_divergence,
    kl_divergence,
    kl_divergence_reverse,
    manhattan,
    rps,
    sorensen,
    squared_chi2,
    squared_euclidean,
]


def random_rows(rng: np.random.Generator, n: int, k: int, zero_share: float = 0.3) -> np.ndarray:
    """Dirichlet rows with exact zeros (every row keeps at least one positive entry)."""
    x = rng.dirichlet(np.full(k, 0.7), size=n)
    x[rng.random((n, k)) < zero_share] = 0.0
    x[x.sum(axis=1) == 0, rng.integers(k)] = 1.0
    return x / x.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def pq() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20240601)
    return random_rows(rng, 300, 6), random_rows(rng, 300, 6)


# --------------------------------------------------------------------------- published cases

_METRIC_BY_CASE_NAME: dict[str, Any] = {
    "cross_entropy_clip_1e-12": lambda p, q: cross_entropy(p, q, zero="clip", eps=1e-12),
    "cross_entropy": cross_entropy,
    "kl_divergence": kl_divergence,
    "js_distance": js_distance,
    "manhattan": manhattan,
    "euclidean": euclidean,
    "emd_normalized": lambda p, q: emd(p, q, normalized_distance=True),
}


def _printed_tolerance(value: float) -> float:
    """Half a unit in the last printed decimal of a published value."""
    text = repr(float(value))
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0**-decimals + 1e-12


def _published_pairs() -> list[Any]:
    out = []
    for name, case in reference_cases("soft_metric_cases").items():
        for i, pair in enumerate(case.get("pairs", [])):
            metric = pair.get("metric", case.get("metric"))
            out.append(pytest.param(metric, pair["p"], pair["q"], pair["value"], id=f"{name}-{i}"))
    return out


class TestPublishedCases:
    """../shared/reference/soft_metric_cases.json (seeds 000 and 001), values as printed."""

    @pytest.mark.parametrize(("metric", "p", "q", "value"), _published_pairs())
    def test_pair(self, metric: str, p: list[float], q: list[float], value: float) -> None:
        got = float(_METRIC_BY_CASE_NAME[metric](p, q))
        assert got == pytest.approx(value, abs=_printed_tolerance(value))

    def test_seed001_triangle_sum(self) -> None:
        # seed 001 example 2: H(p, r) + H(r, q) = 2.3162 < H(p, q) = 8.2893 (clipped CE).
        case = reference_cases("soft_metric_cases").get("seed001_example2_triangle")
        if case is None:
            pytest.skip("../shared/reference/soft_metric_cases.json is absent")
        check = case["sum_check"]
        total = sum(float(cross_entropy(p, q, zero="clip")) for p, q in check["pairs"])
        assert total == pytest.approx(check["sum"], abs=5e-5)

    def test_seed000_example2_kl_and_ce_equal_across_scenarios(self) -> None:
        # DESIGN.md "Known errors": the paper prints KL 0.97 and CE 1.83; ln gives 0.832, 1.332.
        p = [[0, 0.8, 0.2, 0, 0], [0, 0.8, 0, 0, 0.2]]
        q = [[0, 0.2, 0.8, 0, 0], [0, 0.2, 0, 0, 0.8]]
        np.testing.assert_allclose(kl_divergence(p, q), [0.831777] * 2, atol=5e-7)
        np.testing.assert_allclose(cross_entropy(p, q), [1.332179] * 2, atol=5e-7)
        # cumulative sums of decimal fractions: a few ulp of 1
        np.testing.assert_allclose(emd(p, q), [0.15, 0.45], rtol=0, atol=1e-14)


# --------------------------------------------------------------------------- cross-checks


def _scipy_rows(func: Any, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    return np.array([func(a, b) for a, b in zip(p, q, strict=True)])


class TestCrossEntropy:
    def test_equals_entropy_plus_kl_from_scipy(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq
        expected = scipy_entropy(p, axis=1) + scipy_entropy(p, q, axis=1)
        got = cross_entropy(p, q)
        finite = np.isfinite(expected)
        assert (~finite).any()  # the fixture has q_i = 0 < p_i somewhere
        np.testing.assert_allclose(got[finite], expected[finite], rtol=0, atol=1e-12)
        assert np.isposinf(got[~finite]).all()

    def test_clip_is_the_lewidi_convention(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq
        qc = np.clip(q, 1e-12, 1 - 1e-12)
        expected = -(p * np.log(qc)).sum(axis=1)
        np.testing.assert_allclose(cross_entropy(p, q, zero="clip"), expected, atol=1e-12)
        got = cross_entropy(p, q, zero="clip", eps=1e-3)
        qc3 = np.clip(q, 1e-3, 1 - 1e-3)
        np.testing.assert_allclose(got, -(p * np.log(qc3)).sum(axis=1), atol=1e-12)

    def test_base_2(self) -> None:
        assert float(cross_entropy([0.5, 0.5], [0.5, 0.5], base=2)) == pytest.approx(1.0)

    def test_perfect_one_hot_gives_positive_zero(self) -> None:
        got = cross_entropy([[0.0, 1.0]], [[0.0, 1.0]])
        assert got[0] == 0.0
        assert not np.signbit(got[0])

    @pytest.mark.parametrize("zero", ["nan", "eps", None])
    def test_bad_zero_option(self, zero: Any) -> None:
        with pytest.raises(ValueError, match="The 'zero' parameter of cross_entropy must be one"):
            cross_entropy([0.5, 0.5], [0.5, 0.5], zero=zero)

    @pytest.mark.parametrize("eps", [0.0, -1e-12, 0.5, 2.0])
    def test_bad_eps(self, eps: float) -> None:
        with pytest.raises(ValueError, match="The 'eps' parameter of cross_entropy"):
            cross_entropy([0.5, 0.5], [0.5, 0.5], zero="clip", eps=eps)

    @pytest.mark.parametrize("base", [1.0, 0.0, -2.0, math.inf])
    def test_bad_base(self, base: float) -> None:
        with pytest.raises(ValueError, match="The 'base' parameter of cross_entropy"):
            cross_entropy([0.5, 0.5], [0.5, 0.5], base=base)


class TestKlDivergence:
    def test_equals_scipy_entropy(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq
        expected = scipy_entropy(p, q, axis=1)
        got = kl_divergence(p, q)
        finite = np.isfinite(expected)
        np.testing.assert_allclose(got[finite], expected[finite], rtol=0, atol=1e-12)
        assert np.isposinf(got[~finite]).all()
        np.testing.assert_allclose(
            kl_divergence(p, q, base=2)[finite], scipy_entropy(p, q, base=2, axis=1)[finite],
            atol=1e-12,
        )  # fmt: skip

    def test_inf_exactly_where_q_misses_mass(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq
        missing = ((q == 0) & (p > 0)).any(axis=1)
        np.testing.assert_array_equal(np.isinf(kl_divergence(p, q)), missing)

    def test_clip_is_finite_and_close(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq
        got = kl_divergence(p, q, zero="clip")
        assert np.isfinite(got).all()
        expected = (
            np.where(p > 0, p * np.log(np.where(p > 0, p, 1) / np.clip(q, 1e-12, 1)), 0)
        ).sum(1)
        np.testing.assert_allclose(got, expected, atol=1e-12)

    def test_subnormal_q_gives_a_finite_value(self) -> None:
        # p / q overflows to inf for q = 5e-324 although the divergence is finite (~371.5).
        tiny = 5e-324
        got = float(kl_divergence([0.5, 0.5], [1.0 - tiny, tiny]))
        expected = 0.5 * math.log(0.5) + 0.5 * (math.log(0.5) - math.log(tiny))
        assert got == pytest.approx(expected, rel=1e-12)
        assert got == pytest.approx(scipy_entropy([0.5, 0.5], [1.0 - tiny, tiny]), rel=1e-12)

    def test_reverse_is_kl_with_arguments_swapped(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq
        np.testing.assert_array_equal(kl_divergence_reverse(p, q), kl_divergence(q, p))
        np.testing.assert_array_equal(
            kl_divergence_reverse(p, q, zero="clip"), kl_divergence(q, p, zero="clip")
        )


class TestJsDivergence:
    @pytest.mark.parametrize("base", [None, 2.0])
    def test_equals_scipy_jensenshannon(
        self, pq: tuple[np.ndarray, np.ndarray], base: float | None
    ) -> None:
        p, q = pq
        expected = distance.jensenshannon(p, q, axis=1, base=base)
        np.testing.assert_allclose(js_distance(p, q, base=base), expected, rtol=0, atol=1e-12)
        np.testing.assert_allclose(js_divergence(p, q, base=base), expected**2, atol=1e-12)

    def test_bounds_reached_for_disjoint_supports(self) -> None:
        assert float(js_divergence([1, 0, 0], [0, 0.5, 0.5])) == pytest.approx(math.log(2))
        assert float(js_divergence([1, 0], [0, 1], base=2)) == pytest.approx(1.0)

    def test_identity_gives_exact_zero_not_nan(self) -> None:
        p = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
        np.testing.assert_array_equal(js_distance(p, p), [0.0, 0.0])


class TestEntropy:
    def test_equals_scipy(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, _ = pq
        np.testing.assert_allclose(entropy(p), scipy_entropy(p, axis=1), atol=1e-12)
        np.testing.assert_allclose(entropy(p, base=2), scipy_entropy(p, axis=1, base=2), atol=1e-12)

    def test_uniform_is_log_k(self) -> None:
        for k in (2, 5, 100):
            assert float(entropy(np.full(k, 1 / k))) == pytest.approx(math.log(k))


class TestEmd:
    def test_equals_scipy_wasserstein(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq
        k = p.shape[1]
        support = np.arange(k)
        expected = np.array(
            [wasserstein_distance(support, support, a, b) for a, b in zip(p, q, strict=True)]
        )
        np.testing.assert_allclose(
            emd(p, q, normalized_distance=False), expected, rtol=0, atol=1e-12
        )
        np.testing.assert_allclose(emd(p, q), expected / (k - 1), rtol=0, atol=1e-12)

    def test_equals_pot_emd2(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq
        k = p.shape[1]
        cost = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(np.float64)
        expected = np.array([ot.emd2(a, b, cost) for a, b in zip(p, q, strict=True)])
        np.testing.assert_allclose(
            emd(p, q, normalized_distance=False), expected, rtol=0, atol=1e-12
        )

    def test_order_matters(self) -> None:
        # Same L1, different EMD: mass moved one step vs three steps (seed 000, example 2).
        assert float(emd([0, 1, 0, 0, 0], [0, 0, 1, 0, 0])) == pytest.approx(0.25)
        assert float(emd([0, 1, 0, 0, 0], [0, 0, 0, 0, 1])) == pytest.approx(0.75)

    def test_single_class_is_zero(self) -> None:
        np.testing.assert_array_equal(emd([[1.0]], [[1.0]]), [0.0])

    def test_normalize_rescales_rows_like_every_metric(self) -> None:
        with pytest.raises(DataError, match=r"pass `normalize=True` to rescale"):
            emd([[1.0, 1.0]], [[0.5, 0.5]])
        np.testing.assert_allclose(emd([[2.0, 2.0]], [[0.0, 3.0]], normalize=True), [0.5])


class TestRps:
    def test_equals_direct_formula(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq
        K = p.shape[1]
        direct = [
            sum((p[i, : k + 1].sum() - q[i, : k + 1].sum()) ** 2 for k in range(K - 1)) / (K - 1)
            for i in range(p.shape[0])
        ]
        np.testing.assert_allclose(rps(p, q), direct, rtol=1e-12, atol=1e-15)

    def test_binary_is_the_brier_score(self) -> None:
        rng = np.random.default_rng(3)
        p, q = rng.dirichlet(np.ones(2), 50), rng.dirichlet(np.ones(2), 50)
        # the binary Brier score (p_1 - q_1)^2, half the two-class squared Euclidean distance
        np.testing.assert_allclose(rps(p, q), (p[:, 0] - q[:, 0]) ** 2, rtol=1e-12)
        np.testing.assert_allclose(rps(p, q), squared_euclidean(p, q) / 2, rtol=1e-12)

    def test_order_matters_and_scale(self) -> None:
        # moving mass one step costs less than moving it across the scale; the worst is 1
        assert rps([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]) == pytest.approx(0.5)
        assert rps([1.0, 0.0, 0.0], [0.0, 0.0, 1.0]) == pytest.approx(1.0)
        assert squared_euclidean([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]) == squared_euclidean(
            [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]
        )

    def test_single_class_is_zero(self) -> None:
        assert rps([[1.0], [1.0]], [[1.0], [1.0]]).tolist() == [0.0, 0.0]

    def test_large_k(self) -> None:
        rng = np.random.default_rng(4)
        p, q = rng.dirichlet(np.ones(40), 20), rng.dirichlet(np.ones(40), 20)
        cum = np.cumsum(p - q, axis=1)[:, :-1]
        np.testing.assert_allclose(rps(p, q), (cum**2).sum(axis=1) / 39, rtol=1e-12)


class TestGeometric:
    """Manhattan, (squared) Euclidean, Chebyshev, Canberra, cosine, Hellinger vs scipy."""

    @pytest.mark.parametrize(
        ("ours", "theirs"),
        [
            (manhattan, distance.cityblock),
            (euclidean, distance.euclidean),
            (squared_euclidean, distance.sqeuclidean),
            (chebyshev, distance.chebyshev),
            (canberra, distance.canberra),
            (cosine, lambda a, b: 1.0 - distance.cosine(a, b)),
            (
                hellinger,
                lambda a, b: distance.euclidean(np.sqrt(a), np.sqrt(b)) / math.sqrt(2),
            ),
            (intersection, lambda a, b: 1.0 - 0.5 * distance.cityblock(a, b)),
            (sorensen, distance.braycurtis),
            # Bhattacharyya coefficient: 1 - |sqrt p - sqrt q|^2 / 2 on the simplex
            (fidelity, lambda a, b: 1.0 - distance.sqeuclidean(np.sqrt(a), np.sqrt(b)) / 2),
        ],
        ids=lambda f: getattr(f, "__name__", ""),
    )
    def test_equals_scipy(self, pq: tuple[np.ndarray, np.ndarray], ours: Any, theirs: Any) -> None:
        p, q = pq
        np.testing.assert_allclose(ours(p, q), _scipy_rows(theirs, p, q), rtol=0, atol=1e-12)

    def test_clark_against_direct_formula(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq

        def direct(a: np.ndarray, b: np.ndarray) -> float:
            return math.sqrt(
                sum(((x - y) / (x + y)) ** 2 for x, y in zip(a, b, strict=True) if x + y > 0)
            )

        np.testing.assert_allclose(clark(p, q), _scipy_rows(direct, p, q), rtol=0, atol=1e-12)

    def test_squared_chi2_against_direct_formula(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq

        def direct(a: np.ndarray, b: np.ndarray) -> float:
            return sum((x - y) ** 2 / (x + y) for x, y in zip(a, b, strict=True) if x + y > 0)

        np.testing.assert_allclose(
            squared_chi2(p, q), _scipy_rows(direct, p, q), rtol=0, atol=1e-12
        )
        # triangular-discrimination identity on the simplex (Cha 2007)
        with np.errstate(invalid="ignore", divide="ignore"):
            harmonic = np.where(p + q > 0, p * q / (p + q), 0.0).sum(axis=-1)
        np.testing.assert_allclose(squared_chi2(p, q), 2.0 - 4.0 * harmonic, atol=1e-12)

    def test_ldl_metrics_by_hand(self) -> None:
        # (0.5-0.25)^2/0.75 twice + 0.5^2/0.5 = 1/6 + 1/2
        assert float(squared_chi2([0.5, 0.5, 0.0], [0.25, 0.25, 0.5])) == pytest.approx(2 / 3)
        assert float(squared_chi2([1.0, 0.0], [0.0, 1.0])) == pytest.approx(2.0)
        # sqrt(0.25 * 0.75) twice
        assert float(fidelity([0.25, 0.75], [0.75, 0.25])) == pytest.approx(math.sqrt(3) / 2)
        assert float(fidelity([1.0, 0.0], [0.0, 1.0])) == 0.0
        assert float(sorensen([1.0, 0.0], [0.0, 1.0])) == pytest.approx(1.0)

    def test_clark_and_canberra_maximum_for_disjoint_full_supports(self) -> None:
        assert float(clark([0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5])) == pytest.approx(2.0)
        assert float(canberra([0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5])) == pytest.approx(4.0)

    def test_seed001_example9(self) -> None:
        # seed 001, example 9: Euclidean ranks a spread prediction closer than a wrong one-hot.
        p = [0, 0, 0, 0, 0.3, 0.7]
        got = euclidean(p, [[0.25, 0.25, 0.25, 0.25, 0, 0], [0, 0, 0, 0, 1, 0]])
        np.testing.assert_allclose(got, [0.911, 0.99], atol=5e-4)


# --------------------------------------------------------------------------- numerics


class TestNumerics:
    @pytest.mark.parametrize("k", [2, 3, 5, 10, 37, 100])
    @pytest.mark.parametrize("metric", PAIR_METRICS, ids=lambda f: f.__name__)
    def test_no_nan_inf_only_where_infinite(self, metric: Any, k: int) -> None:
        rng = np.random.default_rng(k)
        p = random_rows(rng, 200, k, zero_share=0.5)
        q = random_rows(rng, 200, k, zero_share=0.5)
        # extremes: one-hot rows, identical rows, disjoint rows, tiny masses
        p[:k, :] = np.eye(k)[:k]
        q[:k, :] = np.eye(k)[::-1][:k]
        q[k : 2 * k] = p[k : 2 * k]
        p[-1] = np.r_[1 - 1e-300 * (k - 1), np.full(k - 1, 1e-300)]
        q[-1] = np.r_[np.full(k - 1, 1e-300), 1 - 1e-300 * (k - 1)]
        got = metric(p, q)
        assert got.shape == (200,)
        assert not np.isnan(got).any()
        name = metric.__name__
        if name in {"cross_entropy", "kl_divergence"}:
            expected_inf = ((q == 0) & (p > 0)).any(axis=1)
        elif name == "kl_divergence_reverse":
            expected_inf = ((p == 0) & (q > 0)).any(axis=1)
        else:
            expected_inf = np.zeros(200, dtype=bool)
        np.testing.assert_array_equal(np.isposinf(got), expected_inf)
        assert np.isfinite(got[~expected_inf]).all()
        if name in {"cross_entropy", "kl_divergence", "kl_divergence_reverse"}:
            clipped = metric(p, q, zero="clip")
            assert np.isfinite(clipped).all()

    @pytest.mark.parametrize("k", [2, 5, 100])
    def test_entropy_no_nan(self, k: int) -> None:
        p = random_rows(np.random.default_rng(k), 100, k, zero_share=0.6)
        p[0] = np.eye(k)[0]
        h = entropy(p)
        assert np.isfinite(h).all()
        assert h[0] == 0.0
        assert (h >= 0).all()
        assert (h <= math.log(k) + 1e-12).all()


# --------------------------------------------------------------------------- input handling


class TestInputs:
    @pytest.mark.parametrize("metric", PAIR_METRICS, ids=lambda f: f.__name__)
    def test_single_rows_give_a_float_scalar(self, metric: Any) -> None:
        got = metric([0.2, 0.8], [0.5, 0.5])
        assert isinstance(got, np.float64)
        assert np.ndim(got) == 0
        assert got == metric([[0.2, 0.8]], [[0.5, 0.5]])[0]

    def test_single_row_broadcasts_against_a_matrix(self) -> None:
        p = np.array([[0.2, 0.8], [0.6, 0.4], [1.0, 0.0]])
        q = np.array([0.5, 0.5])
        np.testing.assert_array_equal(manhattan(p, q), manhattan(p, np.tile(q, (3, 1))))
        np.testing.assert_array_equal(kl_divergence(q, p), kl_divergence(np.tile(q, (3, 1)), p))

    def test_different_k(self) -> None:
        with pytest.raises(DataError, match=r"`p_true` has 2 categories .* `q_pred` has 3"):
            manhattan([[0.5, 0.5]], [[0.2, 0.3, 0.5]])

    def test_different_n(self) -> None:
        with pytest.raises(DataError, match=r"`p_true` has 2 items but `q_pred` has 3"):
            manhattan([[0.5, 0.5]] * 2, [[0.5, 0.5]] * 3)

    def test_rows_off_the_simplex_name_the_argument(self) -> None:
        with pytest.raises(DataError, match=r"`q_pred` row 1 sums to 0.9.*normalize=True"):
            kl_divergence([[0.5, 0.5]] * 2, [[0.5, 0.5], [0.5, 0.4]])
        with pytest.raises(DataError, match=r"`p_true` row 0 column 1 is -0.1"):
            cross_entropy([[1.1, -0.1]], [[0.5, 0.5]])
        with pytest.raises(DataError, match=r"`p` row 0 column 0 is nan"):
            entropy([[np.nan, 1.0]])

    def test_normalize_rescales(self) -> None:
        got = js_distance([[2.0, 2.0]], [[1.0, 3.0]], normalize=True)
        np.testing.assert_allclose(got, js_distance([[0.5, 0.5]], [[0.25, 0.75]]))

    def test_three_dimensional_input(self) -> None:
        with pytest.raises(DataError, match="must be a 2-D"):
            manhattan(np.ones((2, 2, 2)) / 2, np.ones((2, 2, 2)) / 2)

    @pytest.mark.parametrize("metric", PAIR_METRICS, ids=lambda f: f.__name__)
    def test_row_blocks_do_not_change_values(
        self, metric: Any, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # With blocks of 16,384 entries, 10,001 rows x 5 are computed in blocks of 3,276
        # rows (the last one ragged); every row must get the value it gets on its own.
        monkeypatch.setattr(_declare, "CHUNK_ELEMENTS", 16_384)
        rng = np.random.default_rng(99)
        p, q = random_rows(rng, 10_001, 5), random_rows(rng, 10_001, 5)
        whole = metric(p, q)
        rows = np.array([metric(p[i], q[i]) for i in range(0, 10_001, 997)])
        np.testing.assert_array_equal(whole[::997], rows)
        if metric is js_distance:
            np.testing.assert_allclose(whole, distance.jensenshannon(p, q, axis=1), atol=1e-12)

    def test_inputs_not_modified(self, pq: tuple[np.ndarray, np.ndarray]) -> None:
        p, q = pq
        p0, q0 = p.copy(), q.copy()
        for metric in PAIR_METRICS:
            metric(p, q)
        np.testing.assert_array_equal(p, p0)
        np.testing.assert_array_equal(q, q0)
