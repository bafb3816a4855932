from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from dissensus import DataError
from dissensus._dirichlet import others_sum
from dissensus.metrics import _beta
from dissensus.metrics import _pointwise as pw
from dissensus.metrics import expected as E
from dissensus.posterior import dirichlet
from tests.conftest import reference_cases
from tests.strategies import count_matrices, simplex_rows

SOFT = reference_cases("soft_metric_cases")

# E[phi(X, c)] with phi(x, c) = x ln x + c ln c - (x + c) ln(x + c), X ~ Beta(a, b):
# mpmath 1.3.0, mp.dps = 40, mp.quad over y = logit(x) on (-inf, inf) with breakpoints
# at the logit mean +- (1, 3, 10, 30) sd, at +-(1, 3, 10, ..., 1e6) and at ln c:
#     f(y) = phi(expit(y), c) * exp(a ln x + b ln(1 - x) - ln B(a, b))
# (a, b, c, value)
PHI_REFERENCE = [
    (0.001, 0.001, 1e-12, -1.4518701287927194e-11),
    (0.001, 0.001, 1e-06, -7.4625847603306725e-06),
    (0.001, 0.001, 0.5, -0.47794105997059083),
    (0.001, 0.001, 1, -0.6937971833592355),
    (0.001, 0.2, 1e-12, -5.391890442078552e-13),
    (0.001, 0.2, 1e-06, -1.7906072280462446e-07),
    (0.001, 0.2, 0.5, -0.005734737988632776),
    (0.001, 0.2, 1, -0.008042611640197898),
    (0.001, 3, 1e-12, -3.6746828778629125e-13),
    (0.001, 3, 1e-06, -9.100797060814958e-08),
    (0.001, 3, 0.5, -0.0007806679338643442),
    (0.001, 3, 1, -0.0009808505151779074),
    (0.001, 1000000000.0, 1e-12, -2.9755081294714e-14),
    (0.001, 1000000000.0, 1e-06, -8.483827377950672e-12),
    (0.001, 1000000000.0, 0.5, -2.160569058967716e-11),
    (0.001, 1000000000.0, 1, -2.2298837769735912e-11),
    (0.2, 0.001, 1e-12, -2.8604967098044705e-11),
    (0.2, 0.001, 1e-06, -1.4790767349677436e-05),
    (0.2, 0.001, 0.5, -0.9508485913098558),
    (0.2, 0.001, 1, -1.38037737688738),
    (0.2, 0.2, 1e-12, -2.5912696753609753e-11),
    (0.2, 0.2, 1e-06, -1.223574179055455e-05),
    (0.2, 0.2, 0.5, -0.5533188727295533),
    (0.2, 0.2, 1, -0.7825641987929295),
    (0.2, 3, 1e-12, -2.236654814868138e-11),
    (0.2, 3, 1e-06, -8.898587720383904e-06),
    (0.2, 3, 0.5, -0.13360615961345765),
    (0.2, 3, 1, -0.17043710857499053),
    (0.2, 1000000000.0, 1e-12, -3.836706402929157e-12),
    (0.2, 1000000000.0, 1e-06, -1.639478947067272e-09),
    (0.2, 1000000000.0, 0.5, -4.263831710122965e-09),
    (0.2, 1000000000.0, 1, -4.402461146087228e-09),
    (3, 0.001, 1e-12, -2.8630626258899284e-11),
    (3, 0.001, 1e-06, -1.4815116201184344e-05),
    (3, 0.001, 0.5, -0.9546174140877803),
    (3, 0.001, 1, -1.3860362988496076),
    (3, 0.2, 1e-12, -2.8554966559740966e-11),
    (3, 0.2, 1e-06, -1.4739456551775922e-05),
    (3, 0.2, 0.5, -0.9253398773279335),
    (3, 0.2, 1, -1.3370713592600534),
    (3, 3, 1e-12, -2.7847687782596465e-11),
    (3, 3, 1e-06, -1.4032178474629273e-05),
    (3, 3, 0.5, -0.6730242542322703),
    (3, 3, 1, -0.9285107778128958),
    (3, 1000000000.0, 1e-12, -8.830789528536043e-12),
    (3, 1000000000.0, 1e-06, -1.9960902812119058e-08),
    (3, 1000000000.0, 0.5, -5.932200280839799e-08),
    (3, 1000000000.0, 1, -6.14014443378395e-08),
    (1000000000.0, 0.001, 1e-12, -2.8631021115928048e-11),
    (1000000000.0, 0.001, 1e-06, -1.4815511057963107e-05),
    (1000000000.0, 0.001, 0.5, -0.9547712524418137),
    (1000000000.0, 0.001, 1, -1.3862943611191976),
    (1000000000.0, 0.2, 1e-12, -2.8631021115729046e-11),
    (1000000000.0, 0.2, 1e-06, -1.4815511057764107e-05),
    (1000000000.0, 0.2, 0.5, -0.9547712523611263),
    (1000000000.0, 0.2, 1, -1.3862943609812612),
    (1000000000.0, 3, 1e-12, -2.8631021112929047e-11),
    (1000000000.0, 3, 1e-06, -1.4815511054964108e-05),
    (1000000000.0, 3, 0.5, -0.954771251225824),
    (1000000000.0, 3, 1, -1.386294359040449),
    (1000000000.0, 1000000000.0, 1e-12, -2.7937873935119604e-11),
    (1000000000.0, 1000000000.0, 1e-06, -1.4122364377153661e-05),
    (1000000000.0, 1000000000.0, 0.5, -0.6931471804974453),
    (1000000000.0, 1000000000.0, 1, -0.9547712523588859),
    (1, 1, 0.1, -0.24943409354599136),
    (1, 50, 0.1, -0.04669125990113469),
    (1, 10000.0, 0.1, -0.0007485371198463525),
    (50, 1, 0.1, -0.3331952952983525),
    (50, 50, 0.1, -0.26991897883388566),
    (50, 10000.0, 0.1, -0.019978841784102714),
    (10000.0, 1, 0.1, -0.33509017611019626),
    (10000.0, 50, 0.1, -0.33462437582118193),
    (10000.0, 10000.0, 0.1, -0.2703346419589635),
    (0.2, 50, 0.1, -0.012018361470961515),
    # out of sample: log-uniform a, b in [1e-3, 1e9], c in [1e-14, 1] (numpy seed 123)
    (154249.0006410674, 0.004424378015029797, 1.2162930322502185e-11, -3.1784933666141783e-10),
    (0.09791470479485484, 940.735692602495, 1.4392789330872965e-06, -3.1134000843022015e-06),
    (725.4474766792949, 20976.737310844837, 0.0002596016822843534, -0.0015215759257487086),
    (0.14502783484300386, 1114.4306458892004, 1.7176587169091614e-05, -2.4940503731296955e-05),
    (0.001525875136068991, 15.4911700592367, 1.699574726975549e-05, -1.0521510026278388e-06),
    (0.04404277110058337, 1.7068175117893531, 0.0007642497488888204, -0.000895296190483519),
    (270266779.02231467, 0.08934628522986648, 9.550709437507044e-12, -2.5189428521005735e-10),
    (2.0667189338904572, 4402.8626563804255, 3.4198063288065646e-07, -2.723461159558712e-06),
    (0.19872497633709998, 10.876663249492545, 1.1806693604873175e-11, -2.1881529272043148e-10),
    (582.210581450487, 62619570.59046777, 1.2302842776252932e-14, -2.638015101516903e-13),
    (0.07961954296652056, 30.44549078389623, 6.538499338694417e-09, -4.5842127888288883e-08),
]

# E|X - c|, X ~ Beta(a, b): mpmath 1.3.0 at 40-50 digits, (mu - c) + 2 (c I_c(a, b) -
# mu I_c(a + 1, b)) with mp.betainc for max(a, b) < 1e5, else mp.quad in logit space.
ABS_REFERENCE = [
    (1, 1, 0.5, 0.25),
    (2, 3, 0.1, 0.303612),
    (0.2, 0.2, 0.5, 0.39880975235242383),
    (0.001, 5, 0.3, 0.2998165210166742),
    (5, 0.001, 0.999, 0.001188340628404567),
    (1000000000.0, 1000000000.0, 0.5, 8.920620579648778e-06),
    (1000000000.0, 1000000000.0, 0.50001, 1.2268737101763076e-05),
    (1000000000.0, 2000000000.0, 0.3, 0.03333333333333335),
    (3000000000.0, 0.001, 1.0, 3.333333333332222e-13),
    (0.001, 1000000000.0, 0.0, 9.99999999999e-13),
    (0.001, 1000000000.0, 1e-12, 1.98539089439031e-12),
    (0.5, 0.5, 1e-06, 0.4999990008488264),
    (50, 50, 0.0, 0.5),
    (50, 50, 1.0, 0.5),
    (10000.0, 3, 0.9997, 0.000134378449381045),
    (7.5, 2.5, 0.75, 0.10539827747268),
    (1000000000.0, 1000000000.0, 0.4999, 9.999999999998899e-05),
    (1000000000.0, 1000000000.0, 0.0, 0.5),
]


# --------------------------------------------------------------------------- helpers

EXACT = {
    "cross_entropy": (E.cross_entropy, pw.cross_entropy),
    "kl_divergence": (E.kl_divergence, pw.kl_divergence),
    "kl_divergence_reverse": (
        E.kl_divergence_reverse,
        pw.kl_divergence_reverse,
    ),
    "squared_euclidean": (E.squared_euclidean, pw.squared_euclidean),
    "manhattan": (E.manhattan, pw.manhattan),
    "emd": (E.emd, pw.emd),
    "rps": (E.rps, pw.rps),
    "js_divergence": (E.js_divergence, pw.js_divergence),
    "entropy": (lambda a, q: E.entropy(a), lambda p, q: pw.entropy(p)),
}


def _definitions(P, q):
    """Each metric straight from its definition (no validation), for the Monte Carlo."""
    q = np.broadcast_to(q, P.shape)
    lq = np.log(q)
    plp = special.xlogy(P, P).sum(1)
    m = (P + q) / 2
    cum = np.cumsum(P - q, axis=1)[:, :-1]
    return {
        "cross_entropy": -(P * lq).sum(1),
        "kl_divergence": plp - (P * lq).sum(1),
        "kl_divergence_reverse": (q * (lq - np.log(P))).sum(1),
        "squared_euclidean": ((P - q) ** 2).sum(1),
        "manhattan": np.abs(P - q).sum(1),
        "emd": np.abs(cum).sum(1) / (P.shape[1] - 1),
        "rps": (cum**2).sum(1) / (P.shape[1] - 1),
        "js_divergence": 0.5 * (plp + (q * lq).sum(1)) - (special.xlogy(m, m)).sum(1),
        "entropy": -plp,
    }


def _mc_numpy(alpha, q, n_draws, seed):
    """Reference Monte Carlo, independent of E.monte_carlo: numpy's own Dirichlet
    sampler item by item, every metric on the same draws. Returns {name: (mean, se)}."""
    rng = np.random.default_rng(seed)
    out = {name: (np.empty(len(alpha)), np.empty(len(alpha))) for name in EXACT}
    chunk = 250_000
    for i, (a, qi) in enumerate(zip(alpha, q, strict=True)):
        sums = dict.fromkeys(EXACT, 0.0)
        sq = dict.fromkeys(EXACT, 0.0)
        for _ in range(n_draws // chunk):
            for name, v in _definitions(rng.dirichlet(a, size=chunk), qi).items():
                sums[name] += v.sum()
                sq[name] += (v * v).sum()
        for name in EXACT:
            mean = sums[name] / n_draws
            var = sq[name] / n_draws - mean * mean
            out[name][0][i] = mean
            out[name][1][i] = math.sqrt(max(var, 0.0) / n_draws)
    return out


def _random_case(rng, K, kind, n_items=3):
    if kind == "sparse":
        alpha = np.full((n_items, K), 0.2) + rng.integers(0, 3, (n_items, K)) * (
            rng.random((n_items, K)) < 0.3
        )
    elif kind == "jeffreys":
        alpha = dirichlet(rng.integers(0, 8, (n_items, K)), prior="jeffreys")
    elif kind == "huge":
        alpha = dirichlet(np.round(rng.dirichlet(np.ones(K), n_items) * 1e9), prior="uniform")
    else:
        alpha = rng.uniform(0.5, 20.0, (n_items, K))
    q = rng.dirichlet(np.full(K, 2.0), n_items)
    return alpha, q


# --------------------------------------------------------------------------- Monte Carlo agreement


MC_CASES = [(2, "mixed", 1), (5, "sparse", 2), (11, "jeffreys", 3), (3, "huge", 4)]


@pytest.fixture(scope="module", params=MC_CASES, ids=lambda c: f"K{c[0]}-{c[1]}")
def mc_case(request):
    K, kind, seed = request.param
    alpha, q = _random_case(np.random.default_rng(seed), K, kind)
    return alpha, q, _mc_numpy(alpha, q, 1_000_000, seed + 100)


class TestAgainstMonteCarlo:
    """Every expected metric within 4 standard errors of 10^6 numpy Dirichlet draws."""

    @pytest.mark.parametrize("name", list(EXACT))
    def test_within_4_se(self, mc_case, name):
        alpha, q, mc = mc_case
        exact = EXACT[name][0](alpha, q)
        mean, se = mc[name]
        # a floor for the 1e9 case, where the draws' own rounding (~1e-13) dominates the SE
        assert np.all(np.abs(exact - mean) <= 4 * se + 1e-12), (exact, mean, se)


# --------------------------------------------------------------------------- references


class TestSeedExamples:
    def test_example1_sample_size(self):
        case = SOFT.get("seed000_example1_sample_size")
        if case is None:
            pytest.skip("../shared/reference/soft_metric_cases.json is absent")
        base = np.asarray(case["base_counts"])
        prior = np.asarray(case["prior"], dtype=float)
        counts = np.array([base * m for m in case["multipliers"]])
        alpha = dirichlet(counts, prior=prior)
        match = E.cross_entropy(alpha, case["q_matching"])
        mismatch = E.cross_entropy(alpha, case["q_mismatched"])
        # "E[CE] decreases for both predictions as the multiplier grows"
        assert np.all(np.diff(match) < 0)
        assert np.all(np.diff(mismatch) < 0)
        # "the gap mismatched minus matching widens"
        gap = mismatch - match
        assert np.all(gap > 0)
        assert np.all(np.diff(gap) > 0)

    def test_example1_values_by_hand(self):
        # E[CE] is CE at the posterior mean (alpha_k + n_k) / (a0 + n): 15 = 5 + 10
        mu = np.array([2, 3, 5, 3, 2]) / 15
        q = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
        assert E.cross_entropy([[2.0, 3, 5, 3, 2]], q)[0] == pytest.approx(-(mu * np.log(q)).sum())


def _abs_dev(a, b, c):
    """E|X - c| for X ~ Beta(a, b), elementwise: the kernel behind E[manhattan] and E[emd]."""
    out = np.empty(np.broadcast(a, b, c).shape)
    _beta.abs_dev_into(a, b, np.clip(c, 0.0, 1.0), out)
    return out


class TestBetaAbsDeviation:
    @pytest.mark.parametrize(("a", "b", "c", "ref"), ABS_REFERENCE)
    def test_mpmath(self, a, b, c, ref):
        got = _abs_dev(np.array([a], float), np.array([b], float), np.array([c], float))[0]
        assert got == pytest.approx(ref, abs=1e-15, rel=1e-6)

    def test_matches_seed_formula_for_moderate_parameters(self):
        rng = np.random.default_rng(0)
        a, b, c = rng.uniform(0.3, 30, 200), rng.uniform(0.3, 30, 200), rng.random(200)
        mu = a / (a + b)
        seed = (mu - c) + 2 * (c * special.betainc(a, b, c) - mu * special.betainc(a + 1, b, c))
        np.testing.assert_allclose(_abs_dev(a, b, c), seed, atol=1e-14)


class TestJsQuadrature:
    @pytest.mark.parametrize(("a", "b", "c", "ref"), PHI_REFERENCE)
    def test_mpmath(self, a, b, c, ref):
        got = E._e_phi(np.array([a], float), np.array([b], float), np.array([c], float))[0]
        assert got == pytest.approx(ref, abs=3e-12, rel=0)

    def test_mpmath_pair_tables(self):
        # the per-pair table path (used for half-integer alpha) on the same grid
        pos = [r for r in PHI_REFERENCE if r[2] > 0]
        a, b, c, ref = (np.array(v, float) for v in zip(*pos, strict=True))
        tab = _beta.phi_tables(a, b)
        got = _beta.phi_terms(tab, np.arange(a.size), c)
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-11)

    def test_random_points_against_a_fine_rule(self):
        # held-out (a, b, c), log-uniform: the shipped 49-node rule against a 401-node rule
        # on a wider range. The contract is the shipped rule's 5e-12; the reference rule
        # only has to be an order of magnitude better than that, so it is checked against
        # the mpmath grid at 5e-13. Its own error is rounding in the exp/log of 401 nodes
        # (2.2e-15 with one libm, 2.9e-14 with another), not a property worth pinning.
        rng = np.random.default_rng(7)
        a = np.exp(rng.uniform(np.log(1e-3), np.log(1e9), 2000))
        b = np.exp(rng.uniform(np.log(1e-3), np.log(1e9), 2000))
        c = np.exp(rng.uniform(np.log(1e-14), 0.0, 2000))
        pid = np.arange(a.size)
        got = _beta.phi_terms(_beta.phi_tables(a, b), pid, c)
        fine = _beta.phi_terms(_beta.phi_tables(a, b, rule=(401, 4.5, 2.0)), pid, c)
        np.testing.assert_allclose(got, fine, rtol=0, atol=5e-12)
        pos = [r for r in PHI_REFERENCE if r[2] > 0]
        ra, rb, rc, ref = (np.array(v, float) for v in zip(*pos, strict=True))
        fine = _beta.phi_terms(_beta.phi_tables(ra, rb, rule=(401, 4.5, 2.0)), None, rc)
        np.testing.assert_allclose(fine, ref, rtol=0, atol=5e-13)

    def test_c_zero_is_zero(self):
        assert E._e_phi(np.array([2.0]), np.array([3.0]), np.array([0.0]))[0] == 0.0


# --------------------------------------------------------------------------- each metric


class TestCrossEntropy:
    def test_zero_policy(self):
        alpha = [[1.0, 2.0, 3.0]]
        assert np.isinf(E.cross_entropy(alpha, [0.5, 0.5, 0.0])[0])
        clipped = E.cross_entropy(alpha, [0.5, 0.5, 0.0], zero="clip")
        mu = np.array([[1.0, 2.0, 3.0]]) / 6
        # identical clipping to the pointwise metric: CE is linear, so E[CE] = CE(mu, q)
        assert clipped[0] == pytest.approx(
            pw.cross_entropy(mu, [[0.5, 0.5, 0.0]], zero="clip")[0], rel=1e-12
        )
        assert clipped[0] == pytest.approx(-(mu[0] * np.log([0.5, 0.5, 1e-12])).sum())

    def test_bad_options(self):
        with pytest.raises(ValueError, match="The 'zero' parameter of cross_entropy"):
            E.cross_entropy([[1.0, 1.0]], [0.5, 0.5], zero="nan")
        with pytest.raises(ValueError, match="eps"):
            E.cross_entropy([[1.0, 1.0]], [0.5, 0.5], zero="clip", eps=0.7)


class TestKlDivergence:
    def test_equals_ce_minus_entropy(self):
        rng = np.random.default_rng(1)
        alpha = rng.uniform(0.1, 10, (20, 4))
        q = rng.dirichlet(np.ones(4), 20)
        np.testing.assert_allclose(
            E.kl_divergence(alpha, q), E.cross_entropy(alpha, q) - E.entropy(alpha), atol=1e-13
        )

    def test_never_negative_unlike_seed_code(self):
        # the seed's psi(alpha) - psi(a0) version goes negative here; the right one does not
        alpha = np.array([[1.0, 1.0]])
        q = np.array([[0.5, 0.5]])
        mu = alpha / 2
        seed_code = (mu * (special.digamma(alpha) - special.digamma(2.0) - np.log(q))).sum()
        assert seed_code < 0
        assert E.kl_divergence(alpha, q)[0] > 0

    def test_uniform_binary_closed_form(self):
        # p ~ U(0,1): E[p ln p + (1-p) ln(1-p)] = -1/2, so E[KL(p || 1/2)] = ln 2 - 1/2
        assert E.kl_divergence([[1.0, 1.0]], [0.5, 0.5])[0] == pytest.approx(math.log(2) - 0.5)

    def test_zero_policy_clip_matches_pointwise_clip(self):
        alpha = np.array([[2.0, 1.0, 1e-3]])
        q = np.array([[0.6, 0.4, 0.0]])
        assert np.isinf(E.kl_divergence(alpha, q)[0])
        clip = E.kl_divergence(alpha, q, zero="clip")[0]
        assert np.isfinite(clip)
        plog = E.kl_divergence(alpha, q, zero="clip")[0] - E.cross_entropy(alpha, q, zero="clip")[0]
        assert plog == pytest.approx(-E.entropy(alpha)[0])


class TestKlDivergenceReverse:
    def test_uniform_binary_closed_form(self):
        # E[-ln p] for p ~ U(0,1) is 1: E[KL(q || p)] = ln(1/2) + 1
        assert E.kl_divergence_reverse([[1.0, 1.0]], [0.5, 0.5])[0] == pytest.approx(
            1 - math.log(2)
        )

    def test_zero_in_q_and_tiny_alpha_finite(self):
        out = E.kl_divergence_reverse([[1e-3, 5.0, 1e-3]], [0.0, 0.5, 0.5])
        assert np.isfinite(out[0])
        assert out[0] > 100
        # zero="clip" is accepted, validated, and exact (no effect)
        same = E.kl_divergence_reverse([[1e-3, 5.0, 1e-3]], [0.0, 0.5, 0.5], zero="clip")
        assert same[0] == out[0]
        with pytest.raises(ValueError, match="zero"):
            E.kl_divergence_reverse([[1.0, 1.0]], [0.5, 0.5], zero="bad")


class TestEntropy:
    def test_uniform_binary(self):
        assert E.entropy([[1.0, 1.0]])[0] == pytest.approx(0.5)

    def test_bounds(self):
        rng = np.random.default_rng(2)
        alpha = np.exp(rng.uniform(np.log(1e-3), np.log(1e9), (200, 6)))
        h = E.entropy(alpha)
        assert np.all(h >= 0)
        assert np.all(h < math.log(6))


class TestSquaredEuclidean:
    def test_bias_variance_by_hand(self):
        # U(0,1): Var = 1/12 per class, q = (1/2, 1/2): 2/12
        assert E.squared_euclidean([[1.0, 1.0]], [0.5, 0.5])[0] == pytest.approx(1 / 6)


class TestRps:
    def test_uniform_binary_by_hand(self):
        # U(0,1), q = (1/2, 1/2): E(U - 1/2)^2 = 1/12
        assert E.rps([[1.0, 1.0]], [0.5, 0.5])[0] == pytest.approx(1 / 12)

    def test_two_classes_equals_half_squared_euclidean(self):
        rng = np.random.default_rng(5)
        alpha = rng.uniform(0.2, 5, (10, 2))
        q = rng.dirichlet(np.ones(2), 10)
        np.testing.assert_allclose(E.rps(alpha, q), E.squared_euclidean(alpha, q) / 2, rtol=1e-12)

    def test_k1(self):
        np.testing.assert_array_equal(E.rps([[3.0], [1.0]], [[1.0], [1.0]]), [0.0, 0.0])


class TestManhattanAndEmd:
    def test_uniform_binary(self):
        assert E.manhattan([[1.0, 1.0]], [0.5, 0.5])[0] == pytest.approx(0.5)
        assert E.emd([[1.0, 1.0]], [0.5, 0.5])[0] == pytest.approx(0.25)

    def test_emd_normalisation(self):
        rng = np.random.default_rng(3)
        alpha = rng.uniform(0.2, 5, (10, 5))
        q = rng.dirichlet(np.ones(5), 10)
        np.testing.assert_allclose(E.emd(alpha, q, normalized_distance=False), 4 * E.emd(alpha, q))

    def test_emd_k1(self):
        np.testing.assert_array_equal(E.emd([[3.0], [1.0]], [[1.0], [1.0]]), [0.0, 0.0])

    def test_emd_two_classes_equals_half_l1(self):
        rng = np.random.default_rng(4)
        alpha = rng.uniform(0.2, 5, (10, 2))
        q = rng.dirichlet(np.ones(2), 10)
        np.testing.assert_allclose(E.emd(alpha, q), E.manhattan(alpha, q) / 2, atol=1e-15)

    def test_emd_is_ordinal(self):
        # seed 000, Example 2 with a posterior: distant confusion costs more in E[EMD]
        n = np.array([[0, 8, 2, 0, 0], [0, 8, 0, 0, 2]])
        q = np.array([[0, 0.2, 0.8, 0, 0], [0, 0.2, 0, 0, 0.8]])
        out = E.emd(dirichlet(n), q)
        assert out[1] > out[0]


# --------------------------------------------------------------------------- limits and numerics


class TestConvergenceToPlugIn:
    @pytest.mark.parametrize("name", [n for n in EXACT if n != "entropy"])
    def test_huge_counts(self, name):
        rng = np.random.default_rng(9)
        p = rng.dirichlet(np.ones(5), 8)
        q = rng.dirichlet(np.ones(5) * 3, 8)
        alpha = p * 1e9 + 1e-3
        exact, point = EXACT[name]
        # posterior sd of each p_k is below 1/sqrt(4e9) = 1.6e-5
        np.testing.assert_allclose(exact(alpha, q), point(p, q), atol=1e-4)

    def test_entropy(self):
        p = np.random.default_rng(10).dirichlet(np.ones(5), 8)
        np.testing.assert_allclose(E.entropy(p * 1e9 + 1e-3), pw.entropy(p), atol=1e-6)

    def test_shrinks_with_counts(self):
        q = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
        counts = np.array([q * m for m in (10, 100, 1000, 10_000)])
        for f in (E.emd, E.manhattan, E.js_divergence, E.kl_divergence, E.squared_euclidean):
            v = f(dirichlet(counts), q)
            assert np.all(np.diff(v) < 0), f


class TestNumerics:
    @pytest.mark.parametrize("K", [2, 3, 10, 100])
    def test_grid(self, K):
        rng = np.random.default_rng(K)
        N = 300
        alpha = np.exp(rng.uniform(np.log(1e-3), np.log(1e9), (N, K)))
        alpha[: N // 3] = np.exp(rng.uniform(np.log(1e-3), np.log(1.0), (N // 3, K)))
        q = rng.dirichlet(np.full(K, 0.3), N)
        q[rng.random((N, K)) < 0.3] = 0.0
        q[q.sum(1) == 0, 0] = 1.0
        q /= q.sum(1, keepdims=True)
        has_zero = (q == 0).any(1)
        for name, (f, _) in EXACT.items():
            v = f(alpha, q)
            assert v.shape == (N,)
            assert not np.isnan(v).any(), name
            if name in {"cross_entropy", "kl_divergence"}:
                assert np.all(np.isinf(v) == has_zero), name
                v = v[~has_zero]
            assert np.all(np.isfinite(v)), name
            assert np.all(v >= -1e-12), name
        for name, hi in [("manhattan", 2), ("emd", 1), ("js_divergence", math.log(2))]:
            assert np.all(EXACT[name][0](alpha, q) <= hi + 1e-12), name
        for f in (E.cross_entropy, E.kl_divergence):
            assert np.all(np.isfinite(f(alpha, q, zero="clip")))


# --------------------------------------------------------------------------- Monte Carlo


class TestMonteCarlo:
    def test_matches_exact_and_reproducible(self):
        alpha = np.array([[2.0, 3.0, 5.0], [0.2, 0.2, 0.2], [40.0, 1.0, 1.0]])
        q = np.array([0.2, 0.3, 0.5])
        res = E.monte_carlo(pw.squared_euclidean, alpha, q, n_samples=20_000, seed=1)
        exact = E.squared_euclidean(alpha, q)
        assert np.all(np.abs(res.estimate - exact) < 4 * res.standard_error)
        again = E.monte_carlo(pw.squared_euclidean, alpha, q, n_samples=20_000, seed=1)
        np.testing.assert_array_equal(res.estimate, again.estimate)
        assert res.n_samples == 20_000
        assert "3 items" in repr(res)

    def test_chunking_matches_single_pass_statistics(self):
        alpha = np.array([[2.0, 3.0, 5.0]])
        q = np.array([0.2, 0.3, 0.5])
        small = E.monte_carlo(pw.emd, alpha, q, n_samples=30_000, seed=2, chunk_bytes=1000)
        exact = E.emd(alpha, q)
        assert abs(small.estimate[0] - exact[0]) < 4 * small.standard_error[0]
        sd = np.std(pw.emd(np.random.default_rng(0).dirichlet(alpha[0], 200_000), q), ddof=1)
        assert small.std[0] == pytest.approx(sd, rel=0.03)

    def test_sparse_alpha_draws_are_valid(self):
        # 1e-3 parameters: gamma draws underflow in linear space; the sampler works in logs
        alpha = np.array([[1e-3, 1e-3, 1e-3]])
        res = E.monte_carlo(lambda p, q: p.sum(1), alpha, [1 / 3] * 3, n_samples=1000)
        np.testing.assert_allclose(res.estimate, 1.0)

    def test_infinite_values_reported(self):
        res = E.monte_carlo(pw.kl_divergence, [[1.0, 1.0]], [1.0, 0.0], n_samples=100)
        assert np.isinf(res.estimate[0])
        assert np.isnan(res.standard_error[0])

    def test_bad_arguments(self):
        with pytest.raises(ValueError, match="n_samples"):
            E.monte_carlo(pw.emd, [[1.0, 1.0]], [0.5, 0.5], n_samples=1)
        with pytest.raises(DataError, match="shape"):
            E.monte_carlo(lambda p, q: p, [[1.0, 1.0]], [0.5, 0.5], n_samples=10)


class TestPosteriorStd:
    def test_uniform_binary_closed_form(self):
        # |U - 1/2| is U(0, 1/2): sd 1/(2 sqrt 12); L1 = 2 |U - 1/2|
        sd = 1 / (2 * math.sqrt(12))
        assert E.emd_std([[1.0, 1.0]], [0.5, 0.5], n_samples=40_000)[0] == pytest.approx(
            sd, rel=0.02
        )
        assert E.manhattan_std([[1.0, 1.0]], [0.5, 0.5], n_samples=40_000)[0] == pytest.approx(
            2 * sd, rel=0.02
        )
        np.testing.assert_allclose(
            E.emd_std([[1.0, 1.0, 2.0]], [0.2, 0.3, 0.5], normalized_distance=False),
            2 * E.emd_std([[1.0, 1.0, 2.0]], [0.2, 0.3, 0.5]),
        )

    def test_shrinks_with_counts(self):
        q = np.array([0.2, 0.3, 0.5])
        alpha = dirichlet(np.array([q * 10, q * 1000]).round())
        sd = E.emd_std(alpha, q)
        assert sd[1] < sd[0] / 5


class TestValidation:
    def test_shapes(self):
        with pytest.raises(DataError, match="shape"):
            E.emd([[1.0, 1.0, 1.0]], [[0.5, 0.5]])
        with pytest.raises(DataError, match="Dirichlet parameters"):
            E.manhattan([[0.0, 1.0]], [0.5, 0.5])
        with pytest.raises(DataError, match="sums to"):
            E.js_divergence([[1.0, 1.0]], [0.5, 0.6])

    def test_single_prediction_row_broadcasts(self):
        alpha = np.array([[1.0, 2.0], [3.0, 4.0]])
        np.testing.assert_array_equal(
            E.manhattan(alpha, [0.3, 0.7]), E.manhattan(alpha, [[0.3, 0.7], [0.3, 0.7]])
        )


class TestJensenInequality:
    """Every metric here is convex in p, so E[f(p, q)] >= f(E[p], q) (equality for CE)."""

    @given(count_matrices(max_items=10, max_k=7), st.data())
    @settings(max_examples=40, deadline=None)
    def test_expected_at_least_plug_in_at_the_mean(self, counts, data):
        alpha = dirichlet(counts, prior="jeffreys")
        mu = alpha / alpha.sum(1, keepdims=True)
        q = data.draw(simplex_rows(n=counts.shape[0], k=counts.shape[1], zeros=False))
        for name, (exact, point) in EXACT.items():
            lhs = exact(alpha, q)
            rhs = np.asarray(point(mu, q))
            if name == "entropy":  # concave: the inequality flips
                assert np.all(lhs <= rhs + 1e-12), name
            elif name == "cross_entropy":
                np.testing.assert_allclose(lhs, rhs, rtol=1e-12)
            else:
                assert np.all(lhs >= rhs - 1e-12), name


# --------------------------------------------------------------------------- speed paths


def _posterior_case(N, K, seed, prior=1.0):
    """Posterior from integer counts (the fast path's input) and random predictions."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(rng.integers(2, 60), rng.dirichlet(np.ones(K)), size=N)
    q = rng.dirichlet(np.full(K, 2.0), N)
    q[rng.random((N, K)) < 0.05] = 0.0
    q[q.sum(1) == 0, 0] = 1.0
    return counts + prior, q / q.sum(1, keepdims=True)


class TestPairTables:
    """Half-integer alpha takes per-pair tables; they must agree with the general path."""

    @pytest.mark.parametrize(("prior", "K"), [(1.0, 5), (0.5, 5), (0.5, 4)])
    def test_abs_dev_table_matches_general(self, prior, K):
        # (Jeffreys with K = 4: half of the terms have no integer parameter and take
        # the tables; the others, as all with K = 5, the finite sums in both calls)
        alpha, q = _posterior_case(3000, K, 11, prior)
        assert _beta.half_grid(alpha) is not None
        fast, _ = E._abs_dev_rows(alpha, q, 1, cumulative=True)
        general, _ = E._abs_dev_rows(alpha, q, 1, cumulative=True, tables=False)
        # two roundings of the same sum of K - 1 terms in [0, 1]; the general path uses
        # Boost's Beta density (scipy's copy, documented to O(100) ulp at large a, b,
        # and updated with scipy). 1e-13 (~450 ulp of 1) holds across those versions;
        # a wrong table entry or index errs by > 1e-6. Seen: 4.4e-16.
        np.testing.assert_allclose(fast, general, rtol=0, atol=1e-13)

    def test_off_grid_rest_falls_back(self):
        # Jeffreys, K = 4: the terms k = 1, 3 have two half-integer parameters (no finite
        # sum), so they take the general path; one of them off the half grid sends all of
        # them to it without tables (bit-identical to a call without a grid)
        alpha, q = _posterior_case(3000, 4, 18, prior=0.5)
        alpha[2500, 0] += 0.3
        assert _beta.half_grid(alpha, check=False) is not None
        assert _beta.half_grid(alpha) is None
        np.testing.assert_array_equal(
            E._abs_dev_rows(alpha, q, 2, cumulative=True)[0],
            E._abs_dev_rows(alpha, q, 1, cumulative=True, tables=False)[0],
        )

    def test_density_path_matches_boost(self):
        # the log1p / Stirling density against Boost's Beta density, over half-integer
        # pairs up to the table limit (2 a0 < 2048)
        rng = np.random.default_rng(12)
        a2 = rng.integers(1, 2046, 50_000)
        b2 = rng.integers(1, 2047 - a2)
        a, b = a2 / 2.0, b2 / 2.0
        c = np.clip(rng.beta(a, b), 0.0, 1.0)
        c[:5000] = rng.random(5000)
        c[5000:5100] = 0.0
        c[5100:5200] = 1.0
        keys = _beta.pair_keys(a, b, 2048)
        fast = np.empty(a.size)
        general = np.empty(a.size)
        _beta.abs_dev_general(a, b, c, fast, (_beta.density_tables(keys, 2048), keys))
        _beta.abs_dev_general(a, b, c, general)
        # Boost's density (see test_abs_dev_table_matches_general for the 1e-13). Seen: 1.6e-16.
        np.testing.assert_allclose(fast, general, rtol=0, atol=1e-13)

    def test_exact_rational_reference(self):
        # integer a, b: I_c(a, b) is a binomial tail and 1/B(a, b) = a b C(a+b, a)/(a+b),
        # so E|X - c| is an exact rational in the binary value of c (fractions.Fraction)
        def exact(a, b, c):
            C, n = Fraction(c), a + b - 1
            tail = sum(math.comb(n, j) * C**j * (1 - C) ** (n - j) for j in range(a, n + 1))
            inv_beta = Fraction(a * b * math.comb(a + b, a), a + b)
            dens = C**a * (1 - C) ** b * inv_beta / (a + b)
            return float((C - Fraction(a, a + b)) * (2 * tail - 1) + 2 * dens)

        rng = np.random.default_rng(17)
        a = rng.integers(1, 150, 30)
        b = np.array([rng.integers(1, 300 - x) for x in a])
        c = np.clip(rng.beta(a, b), 1e-300, 1.0)
        c[:8] = rng.random(8)
        ref = [exact(int(x), int(y), float(z)) for x, y, z in zip(a, b, c, strict=True)]
        af, bf = a.astype(float), b.astype(float)
        keys = _beta.pair_keys(af, bf, 600)
        tables = np.empty(a.size)
        _beta.abs_dev_general(af, bf, c, tables, (_beta.density_tables(keys, 600), keys))
        # against exact values: the table path's own error, a few libm exp/log1p calls
        # (each within 1 ulp on the platforms numpy supports) on terms <= 1, so ~10 ulp
        # of 1 at worst; 1e-14 (45 ulp) leaves room for a libm without that bound.
        # Seen: 2.8e-17.
        np.testing.assert_allclose(tables, ref, rtol=0, atol=1e-14)
        # the finite sums (integers up to SUM_MAX; the rest goes to the general path)
        sums = np.full(a.size, np.nan)
        rest = _beta.abs_dev_sums(af, bf, c, sums)
        summed = np.setdiff1d(np.arange(a.size), rest)
        assert summed.size >= 10
        # Seen: 3.5e-17.
        np.testing.assert_allclose(sums[summed], np.asarray(ref)[summed], rtol=0, atol=1e-15)

    def test_stirling_remainder(self):
        # delta(1) = 1 - ln(2 pi)/2, delta(1/2) = (1 - ln 2)/2 (Gamma(1/2) = sqrt(pi))
        got = _beta.stirling(np.array([1.0, 0.5]))
        # the table is correctly rounded (50-digit decimals); the reference here subtracts
        # O(1) doubles, so it carries ~2 ulp of 1 (4.4e-16) of its own: atol 1e-15
        np.testing.assert_allclose(
            got, [1 - math.log(2 * math.pi) / 2, (1 - math.log(2)) / 2], rtol=0, atol=1e-15
        )
        # the exact table (x < 20) agrees with the asymptotic series where they meet: the
        # series' truncation, 691 / (360360 x^11), is 5e-15 relative at x = 18.5, and both
        # sides are plain IEEE arithmetic (no libm), so 1e-14 is the same on every machine
        x = np.array([18.5, 19.0, 19.5])
        y = 1 / x
        series = y / 12 - y**3 / 360 + y**5 / 1260 - y**7 / 1680 + y**9 / 1188
        np.testing.assert_allclose(_beta.stirling(x), series, rtol=1e-14)

    def test_not_half_integer_or_large_uses_general_path(self):
        m = _beta.half_grid(np.array([[1.0, 2.5], [3.0, 0.5]]))
        assert m is not None
        assert m > 7  # keys 2a * m + 2b need 2a, 2b < m
        assert _beta.half_grid(np.array([[1000.0, 23.5]])) is not None
        assert _beta.half_grid(np.array([[1.0, 2.3]])) is None
        assert _beta.half_grid(np.array([[1000.0, 30.0]])) is None
        assert _beta.half_grid(np.array([[600.0, 300.0, 300.0]])) is None

    def test_phi_table_matches_per_term(self):
        alpha, q = _posterior_case(2000, 5, 13, 0.5)
        a = alpha.T.reshape(-1)
        b = others_sum(alpha).T.reshape(-1)
        c = q.T.reshape(-1).copy()
        fast = E._e_phi(a, b, c, m=_beta.half_grid(alpha))
        general = E._e_phi(a, b, c)
        # the same quadrature with per-pair vs per-term node weights: rounding in the
        # exp/log of ~50 nodes of terms <= ln 2; 1e-13 holds with any libm, a wrong
        # table entry errs by > 1e-8. Seen: 2.5e-16.
        np.testing.assert_allclose(fast, general, rtol=0, atol=1e-13)
        assert np.all(fast[c == 0] == 0.0)

    def test_too_many_pairs_falls_back(self, monkeypatch):
        alpha, q = _posterior_case(300, 5, 14)
        ref = E.js_divergence(alpha, q, n_jobs=1)
        monkeypatch.setattr(E, "_MAX_PAIRS", 3)
        # table path vs per-term path: the 1e-13 of test_phi_table_matches_per_term
        np.testing.assert_allclose(E.js_divergence(alpha, q, n_jobs=1), ref, rtol=0, atol=1e-13)


class TestThreads:
    @pytest.mark.parametrize("prior", [1.0, 0.3])
    @pytest.mark.parametrize("name", ["emd", "manhattan", "js_divergence"])
    def test_bit_identical_for_any_number_of_threads(self, name, prior):
        # several blocks of each kernel (16384 terms for E|X - c|, 1024 for the quadrature)
        alpha, q = _posterior_case(4000 if name == "js_divergence" else 9000, 5, 15, prior)
        f = getattr(E, name)
        one = f(alpha, q, n_jobs=1)
        for n in (2, 3):
            np.testing.assert_array_equal(f(alpha, q, n_jobs=n), one)

    def test_environment_variable(self, monkeypatch):
        alpha, q = _posterior_case(50, 4, 16)
        ref = E.emd(alpha, q, n_jobs=1)
        monkeypatch.setenv("DISSENSUS_NUM_THREADS", "2")
        np.testing.assert_array_equal(E.emd(alpha, q), ref)
        monkeypatch.setenv("DISSENSUS_NUM_THREADS", "zero")
        with pytest.raises(ValueError, match="DISSENSUS_NUM_THREADS"):
            E.emd(alpha, q)

    @pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
    def test_bad_n_jobs(self, bad):
        with pytest.raises(ValueError, match="The 'n_jobs' parameter of manhattan"):
            E.manhattan([[1.0, 1.0]], [0.5, 0.5], n_jobs=bad)


class TestValueAndGradient:
    """emd/manhattan_value_and_gradient: the metric's value, and central differences of it."""

    @pytest.mark.parametrize("K", [2, 3, 5, 8])
    @pytest.mark.parametrize("normalized", [True, False])
    def test_match_the_metric_and_finite_differences_along_the_simplex(self, K, normalized):
        rng = np.random.default_rng(K)
        alpha = rng.integers(0, 6, (6, K)) + rng.choice([0.5, 1.0, 1.7], (6, K))
        q = rng.dirichlet(np.ones(K), 6)
        h = 1e-6
        v_emd, G_emd = E.emd_value_and_gradient(alpha, q, normalized_distance=normalized)
        v_l1, G_l1 = E.manhattan_value_and_gradient(alpha, q)
        assert np.array_equal(v_emd, E.emd(alpha, q, normalized_distance=normalized))
        assert np.array_equal(v_l1, E.manhattan(alpha, q))
        assert np.array_equal(G_emd, E.emd_gradient(alpha, q, normalized_distance=normalized))
        assert np.array_equal(G_l1, E.manhattan_gradient(alpha, q))
        for j in range(K):
            for i in range(K):
                if i == j:
                    continue
                # move mass from class i to class j: stays on the simplex
                d = np.zeros(K)
                d[j], d[i] = h, -h
                fd_emd = (
                    E.emd(alpha, q + d, normalized_distance=normalized)
                    - E.emd(alpha, q - d, normalized_distance=normalized)
                ) / (2 * h)
                fd_l1 = (E.manhattan(alpha, q + d) - E.manhattan(alpha, q - d)) / (2 * h)
                np.testing.assert_allclose(G_emd[:, j] - G_emd[:, i], fd_emd, atol=1e-6)
                np.testing.assert_allclose(G_l1[:, j] - G_l1[:, i], fd_l1, atol=1e-6)

    def test_k1_and_the_last_class(self):
        value, grad = E.emd_value_and_gradient([[2.0]], [1.0])
        assert value.tolist() == [0.0]
        assert grad.tolist() == [[0.0]]
        G = E.emd_value_and_gradient([[1.0, 2.0, 3.0]], [0.2, 0.3, 0.5])[1]
        assert G[0, -1] == 0.0

    def test_the_table_path_and_threads_give_the_same_bytes(self):
        rng = np.random.default_rng(5)
        alpha = rng.integers(0, 9, (6000, 5)) + 0.5  # half-integers: the per-pair tables
        q = rng.dirichlet(np.ones(5), 6000)
        one = E.emd_value_and_gradient(alpha, q, n_jobs=1)
        two = E.emd_value_and_gradient(alpha, q, n_jobs=2)
        assert np.array_equal(one[0], E.emd(alpha, q))
        assert np.array_equal(one[0], two[0])
        assert np.array_equal(one[1], two[1])
        # the slope is 2 I_c(a, b) - 1 of SciPy's incomplete beta
        A = np.cumsum(alpha, axis=1)[:, :-1]
        B = alpha.sum(axis=1, keepdims=True) - A
        slope = 2 * special.betainc(A, B, np.clip(np.cumsum(q, axis=1)[:, :-1], 0, 1)) - 1
        want = np.cumsum(slope[:, ::-1], axis=1)[:, ::-1] / 4
        np.testing.assert_allclose(one[1][:, :-1], want, rtol=0, atol=1e-14)


def test_value_and_gradient_leave_their_inputs_alone():
    # the marginal terms are laid out from q's transpose; an F-ordered q must not be clipped
    # in place (nor a read-only one refused)
    alpha, q = _posterior_case(50, 4, 3)
    qf = np.asfortranarray(q)
    qf.flags.writeable = False
    before = qf.copy()
    value, grad = E.manhattan_value_and_gradient(alpha, qf)
    np.testing.assert_array_equal(qf, before)
    np.testing.assert_array_equal(value, E.manhattan(alpha, q))
    assert np.isfinite(grad).all()


def test_sums_against_mpmath():
    # the finite sums of E|X - c| and its slope 2 I - 1 (absolute accuracy), one parameter an
    # integer up to 64, the other a half-integer up to 64; mpmath at 40 digits
    mpmath = pytest.importorskip(
        "mpmath", reason="mpmath (installed with sympy, the torch extra) gives the reference"
    )
    rng = np.random.default_rng(5)
    n = 150
    half = rng.integers(1, 129, n) / 2.0
    whole = rng.integers(1, 65, n).astype(float)
    flip = rng.random(n) < 0.5
    a, b = np.where(flip, half, whole), np.where(flip, whole, half)
    mu = a / (a + b)
    c = np.clip(mu + 2.0 * np.sqrt(mu * (1 - mu) / (a + b + 1)) * rng.normal(size=n), 0.0, 1.0)
    c[:30] = rng.random(30)
    out, slope = np.full(n, np.nan), np.full(n, np.nan)
    assert _beta.abs_dev_sums(a, b, c, out, slope).size == 0
    with mpmath.workdps(40):
        ref_value, ref_slope = [], []
        for x, y, z in zip(a, b, c, strict=True):
            A, B, C = mpmath.mpf(x), mpmath.mpf(y), mpmath.mpf(z)
            m = A / (A + B)
            i0 = mpmath.betainc(A, B, 0, C, regularized=True)
            i1 = mpmath.betainc(A + 1, B, 0, C, regularized=True)
            ref_value.append(float((m - C) + 2 * (C * i0 - m * i1)))
            ref_slope.append(float(2 * i0 - 1))
    # seen: 1.2e-15 and 1.1e-14 (the rounding of 1 - c times the density, up to ~40 here)
    np.testing.assert_allclose(out, ref_value, rtol=0, atol=3e-15)
    np.testing.assert_allclose(slope, ref_slope, rtol=0, atol=3e-14)
