"""dissensus.torch losses: equal to the dissensus metric of the same name, with exact gradients."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="dissensus.torch needs the optional torch extra: pip install 'dissensus[torch]'"
)

from dissensus import DataError  # noqa: E402
from dissensus.metrics import get_metric  # noqa: E402
from dissensus.posterior import dirichlet  # noqa: E402
from dissensus.torch import (  # noqa: E402
    LOSSES,
    EMDLoss,
    ExpectedEMDLoss,
    SoftCrossEntropyLoss,
    get_loss,
)
from dissensus.torch import functional as LF  # noqa: E402

PLAIN = tuple(n for n in LOSSES if "[" not in n)
EXPECTED = tuple(n for n in LOSSES if n.startswith("E["))
DEBIASED = tuple(n for n in LOSSES if n.startswith("debiased["))
ATOL = 1e-12
N = 40


def _rows_with_zeros(rng: np.random.Generator, n: int, K: int) -> np.ndarray:
    """Distributions with some exact zeros (never an all-zero row)."""
    P = rng.dirichlet(np.full(K, 0.7), n)
    P[rng.random((n, K)) < 0.3] = 0.0
    P[P.sum(axis=1) == 0, 0] = 1.0
    return P / P.sum(axis=1, keepdims=True)


def _counts(rng: np.random.Generator, n: int, K: int, low: int = 0) -> np.ndarray:
    C = rng.integers(0, 4, (n, K))
    C[rng.random((n, K)) < 0.4] = 0
    short = C.sum(axis=1) < low
    C[short, 0] += low
    return C


def _t(x: np.ndarray, **kw) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64, **kw)


def _close(loss: torch.Tensor, metric: np.ndarray) -> None:
    np.testing.assert_allclose(loss.detach().numpy(), metric, rtol=0, atol=ATOL)


PLAIN_OPTIONS = {
    "cross_entropy": [{}, {"zero": "clip"}, {"zero": "clip", "eps": 1e-3, "base": 2}],
    "kl_divergence": [{}, {"zero": "clip"}, {"base": 2}],
    "js_divergence": [{}, {"base": 2}],
    "emd": [{}, {"normalized_distance": False}],
}


@pytest.mark.parametrize("K", range(2, 12))
@pytest.mark.parametrize("name", PLAIN)
class TestPlainEqualsMetric:
    def test_probabilities_with_zeros(self, name, K):
        rng = np.random.default_rng(K)
        P, Q = _rows_with_zeros(rng, N, K), _rows_with_zeros(rng, N, K)
        for opts in PLAIN_OPTIONS.get(name, [{}]):
            with np.errstate(divide="ignore"):
                want = get_metric(name)(P, Q, **opts)
            got = get_loss(name)(_t(Q), _t(P), input_type="probs", reduction="none", **opts)
            _close(got, want)  # infinite where q_k = 0 < p_k (zero="inf"), as the metric

    def test_logits(self, name, K):
        rng = np.random.default_rng(100 + K)
        P = _rows_with_zeros(rng, N, K)
        Z = rng.normal(0, 3, (N, K))
        Q = np.exp(Z - Z.max(axis=1, keepdims=True))
        Q /= Q.sum(axis=1, keepdims=True)
        for opts in PLAIN_OPTIONS.get(name, [{}]):
            got = get_loss(name)(_t(Z), _t(P), reduction="none", **opts)
            _close(got, get_metric(name)(P, Q, **opts))


EXPECTED_OPTIONS = {
    "E[cross_entropy]": [{}, {"zero": "clip"}, {"zero": "clip", "eps": 1e-3}],
    "E[kl_divergence]": [{}, {"zero": "clip"}, {"zero": "clip", "eps": 1e-3}],
    "E[emd]": [{}, {"normalized_distance": False}],
}


@pytest.mark.parametrize("K", range(2, 12))
@pytest.mark.parametrize("name", EXPECTED)
class TestExpectedEqualsMetric:
    @pytest.mark.parametrize("prior", ["jeffreys", "uniform", 0.3, "vector"])
    def test_counts_and_prior(self, name, K, prior):
        rng = np.random.default_rng(K)
        C = _counts(rng, N, K)
        pr = rng.uniform(0.2, 2.0, K) if prior == "vector" else prior
        alpha = dirichlet(C, prior=pr)
        Q = _rows_with_zeros(rng, N, K)
        for opts in EXPECTED_OPTIONS.get(name, [{}]):
            with np.errstate(divide="ignore"):
                want = get_metric(name)(alpha, Q, **opts)
            got = get_loss(name)(
                _t(Q), _t(C), input_type="probs", reduction="none", prior=pr, **opts
            )
            _close(got, want)

    def test_logits_and_a_tensor_prior_per_item(self, name, K):
        rng = np.random.default_rng(200 + K)
        C = _counts(rng, N, K)
        pr = rng.uniform(0.2, 2.0, (N, K))
        Z = rng.normal(0, 2, (N, K))
        Q = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
        got = get_loss(name)(_t(Z), torch.tensor(C), reduction="none", prior=_t(pr))
        _close(got, get_metric(name)(C + pr, Q))


@pytest.mark.parametrize("K", range(2, 12))
@pytest.mark.parametrize("name", DEBIASED)
def test_debiased_equals_metric(name, K):
    rng = np.random.default_rng(K)
    C = _counts(rng, N, K, low=1)  # some items with one annotation: their empirical value
    Q = _rows_with_zeros(rng, N, K)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the metric's one-annotation warning
        want = get_metric(name)(C, Q)
    got = get_loss(name)(_t(Q), _t(C), input_type="probs", reduction="none")
    _close(got, want)


def test_losses_cover_the_metrics_of_their_names():
    for name in LOSSES:
        assert get_metric(name).name == name
    with pytest.raises(ValueError, match=r"No dissensus\.torch loss"):
        get_loss("hellinger")


@pytest.mark.parametrize("name", list(LOSSES))
def test_gradcheck_logits(name):
    rng = np.random.default_rng(7)
    K = 4
    Z = _t(rng.normal(0, 1, (5, K)), requires_grad=True)
    if name in EXPECTED or name in DEBIASED:
        target = _t(_counts(rng, 5, K, low=2))
    else:
        target = _t(rng.dirichlet(np.ones(K), 5))
    fn = get_loss(name)
    w = _t(rng.uniform(0.5, 2.0, 5))
    assert torch.autograd.gradcheck(lambda z: fn(z, target, reduction="none"), (Z,))
    assert torch.autograd.gradcheck(lambda z: fn(z, target, weight=w), (Z,))


@pytest.mark.parametrize("name", [n for n in LOSSES if n not in ("E[emd]", "E[manhattan]")])
def test_gradcheck_probabilities(name):
    """The pure-torch losses are smooth in q off the simplex too (E[EMD], E[L1] check the simplex)."""
    rng = np.random.default_rng(8)
    K = 3
    Q = _t(rng.dirichlet(np.ones(K) * 3, 4), requires_grad=True)
    if name in EXPECTED or name in DEBIASED:
        target = _t(_counts(rng, 4, K, low=2))
    else:
        target = _t(rng.dirichlet(np.ones(K), 4))
    fn = get_loss(name)
    assert torch.autograd.gradcheck(lambda q: fn(q, target, input_type="probs"), (Q,))


@pytest.mark.parametrize("K", [2, 3, 5, 11])
def test_squared_emd_on_one_hot_targets_is_the_ranked_probability_score(K):
    """Epstein's RPS from the class index: (1/(K-1)) sum_k (Q_k - 1[y <= k])^2."""
    rng = np.random.default_rng(K)
    y = rng.integers(0, K, 30)
    Z = rng.normal(0, 2, (30, K))
    Q = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    observed_cdf = (np.arange(K - 1)[None, :] >= y[:, None]).astype(float)
    rps_formula = ((np.cumsum(Q, axis=1)[:, :-1] - observed_cdf) ** 2).sum(axis=1) / (K - 1)
    got = LF.rps(_t(Z), _t(np.eye(K)[y]), reduction="none")
    _close(got, rps_formula)
    # the squared EMD of Hou et al. (2016), ground distance |i - j|: K - 1 times the RPS
    sq_emd = ((np.cumsum(Q, axis=1) - np.cumsum(np.eye(K)[y], axis=1)) ** 2).sum(axis=1)
    _close(got * (K - 1), sq_emd)


class TestReductionsAndWeights:
    def setup_method(self):
        rng = np.random.default_rng(3)
        self.Z = _t(rng.normal(0, 1, (6, 4)))
        self.P = _t(rng.dirichlet(np.ones(4), 6))
        self.C = _t(_counts(rng, 6, 4, low=2))
        self.w = _t(rng.uniform(0, 3, 6))

    @pytest.mark.parametrize("name", list(LOSSES))
    def test_mean_sum_none_and_weighted_mean(self, name):
        fn = get_loss(name)
        target = self.C if name in EXPECTED or name in DEBIASED else self.P
        each = fn(self.Z, target, reduction="none")
        assert each.shape == (6,)
        assert torch.allclose(fn(self.Z, target, reduction="sum"), each.sum(), rtol=0, atol=ATOL)
        assert torch.allclose(fn(self.Z, target), each.mean(), rtol=0, atol=ATOL)
        weighted = fn(self.Z, target, weight=self.w)
        assert torch.allclose(weighted, (self.w * each).sum() / self.w.sum(), rtol=0, atol=ATOL)
        assert torch.allclose(
            fn(self.Z, target, weight=self.w, reduction="none"), self.w * each, rtol=0, atol=ATOL
        )

    def test_batch_dimensions_beyond_items(self):
        Z, P = self.Z.reshape(2, 3, 4), self.P.reshape(2, 3, 4)
        assert LF.emd(Z, P, reduction="none").shape == (2, 3)
        got = LF.expected_emd(Z, self.C.reshape(2, 3, 4), reduction="none")
        assert torch.allclose(got.reshape(-1), LF.expected_emd(self.Z, self.C, reduction="none"))

    def test_a_module_with_a_prior_vector_for_its_classes(self):
        prior = np.array([0.5, 1.0, 1.5, 2.0])
        loss = ExpectedEMDLoss(prior=prior, reduction="none")
        want = get_metric("E[emd]")(self.C.numpy() + prior, torch.softmax(self.Z, -1).numpy())
        _close(loss(self.Z, self.C), want)

    def test_modules_equal_the_functions(self):
        assert torch.equal(EMDLoss()(self.Z, self.P), LF.emd(self.Z, self.P))
        loss = ExpectedEMDLoss(prior="uniform", reduction="sum")
        assert torch.equal(
            loss(self.Z, self.C), LF.expected_emd(self.Z, self.C, prior="uniform", reduction="sum")
        )
        loss = SoftCrossEntropyLoss(zero="clip", input_type="probs")
        assert "zero='clip'" in repr(loss)
        Q = torch.softmax(self.Z, dim=-1)
        assert torch.equal(
            loss(Q, self.P, self.w),
            LF.cross_entropy(Q, self.P, input_type="probs", zero="clip", weight=self.w),
        )

    def test_bad_options_are_refused(self):
        with pytest.raises(ValueError, match="'reduction' parameter"):
            LF.emd(self.Z, self.P, reduction="avg")
        with pytest.raises(ValueError, match="'input_type' parameter"):
            LF.emd(self.Z, self.P, input_type="softmax")
        with pytest.raises(ValueError, match="'reduction' parameter"):
            EMDLoss(reduction="avg")
        with pytest.raises(ValueError, match="'input_type' parameter"):
            EMDLoss(input_type="softmax")
        with pytest.raises(TypeError, match="unexpected keyword argument 'prior'"):
            EMDLoss(prior="uniform")
        with pytest.raises(ValueError, match="'eps' parameter"):
            LF.cross_entropy(self.Z, self.P, zero="clip", eps=0.7)
        with pytest.raises(ValueError, match="'base' parameter"):
            LF.kl_divergence(self.Z, self.P, base=1)
        with pytest.raises(ValueError, match="fit_dirichlet_prior"):
            LF.expected_emd(self.Z, self.C, prior="empirical")
        with pytest.raises(ValueError, match="'prior' parameter"):
            LF.expected_rps(self.Z, self.C, prior=-1.0)
        with pytest.raises(ValueError, match="'prior' parameter"):
            LF.expected_rps(self.Z, self.C, prior=torch.zeros(6, 4))

    def test_bad_data_is_refused_where_it_enters(self):
        with pytest.raises(DataError, match="shape"):
            LF.emd(self.Z, self.P[:, :3])
        with pytest.raises(DataError, match="one weight per item"):
            LF.emd(self.Z, self.P, weight=self.w[:5])
        bad = self.C.clone()
        bad[2, 1] = -1
        with pytest.raises(DataError, match="row 2"):
            LF.expected_squared_euclidean(self.Z, bad)
        empty = self.C.clone()
        empty[4] = 0
        with pytest.raises(DataError, match="item 4"):
            LF.debiased_rps(self.Z, empty)


class TestStabilityAndDevices:
    @pytest.mark.parametrize("name", list(LOSSES))
    def test_large_logits_give_finite_values_and_gradients(self, name):
        rng = np.random.default_rng(11)
        Z = _t(rng.normal(0, 1, (5, 4)) * 1e4, requires_grad=True)
        target = (
            _t(_counts(rng, 5, 4, low=2))
            if name in EXPECTED or name in DEBIASED
            else _t(rng.dirichlet(np.ones(4), 5))
        )
        loss = get_loss(name)(Z, target)
        loss.backward()
        assert torch.isfinite(loss)
        assert torch.isfinite(Z.grad).all()

    def test_cross_entropy_of_large_logits_is_the_log_softmax_value(self):
        Z = torch.tensor([[0.0, 1e4]], dtype=torch.float64)
        # softmax gives q_1 = 0 exactly, log_softmax the exact -1e4
        assert float(LF.cross_entropy(Z, [[0.5, 0.5]])) == pytest.approx(5e3)
        z32 = torch.tensor([[0.0, 200.0]], dtype=torch.float32)
        assert torch.isfinite(LF.kl_divergence(z32, [[1.0, 0.0]]))

    @pytest.mark.parametrize("name", list(LOSSES))
    def test_float32_in_float32_out(self, name):
        rng = np.random.default_rng(12)
        Z = torch.tensor(rng.normal(0, 1, (5, 4)), dtype=torch.float32, requires_grad=True)
        target = (
            _counts(rng, 5, 4, low=2)
            if name in EXPECTED or name in DEBIASED
            else rng.dirichlet(np.ones(4), 5)
        )
        loss = get_loss(name)(Z, torch.tensor(target), reduction="none")
        assert loss.dtype == torch.float32
        loss.sum().backward()
        assert Z.grad is not None
        assert Z.grad.dtype == torch.float32

    @pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")
    @pytest.mark.parametrize("name", list(LOSSES))
    def test_cuda_tensors_stay_on_the_device(self, name):
        rng = np.random.default_rng(13)
        Z = torch.tensor(rng.normal(0, 1, (5, 4)), device="cuda", requires_grad=True)
        target = (
            _counts(rng, 5, 4, low=2)
            if name in EXPECTED or name in DEBIASED
            else rng.dirichlet(np.ones(4), 5)
        )
        loss = get_loss(name)(Z, torch.tensor(target, device="cuda"))
        loss.backward()
        assert loss.device.type == "cuda"
        assert Z.grad is not None
        assert Z.grad.device.type == "cuda"


def test_readme_torch_example_runs():
    """The README's PyTorch block (fenced ``py``: tests/test_readme.py runs without torch)."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = text[text.index("### Train with the metric: PyTorch losses") :]
    block = re.search(r"```py\n(.*?)```", section, flags=re.DOTALL)
    assert block is not None
    torch.manual_seed(0)
    namespace: dict[str, object] = {}
    exec(compile(block.group(1), "README.md torch block", "exec"), namespace)
    logits = namespace["logits"]
    assert isinstance(logits, torch.Tensor)
    assert logits.grad is not None
    assert torch.isfinite(logits.grad).all()
