r"""Loss functions for label-distribution targets, each equal to the dissensus metric of its name.

Every function takes the model output ``input`` of shape (..., K) (classes
last, in their order for the ordinal losses) and a target of the same shape,
and returns the loss reduced over items:

- ``input_type="logits"`` (the default): unnormalised scores, turned into
  ``q = softmax(input)`` and ``ln q = log_softmax(input)`` (no ``log(softmax)``:
  stable for logits of any size); ``"probs"``: ``q`` itself, rows on the simplex.
- Plain forms (:func:`cross_entropy`, :func:`kl_divergence`, :func:`js_divergence`,
  :func:`manhattan`, :func:`squared_euclidean`, :func:`emd`, :func:`rps`):
  ``target`` is the label distribution ``p`` (rows on the simplex).
- Expected forms (``expected_*``): ``target`` is the label **counts**; the loss
  is :math:`\mathbb{E}_{p \sim \mathrm{Dir}(\alpha)}[f(p, q)]` with ``alpha =
  counts + prior``, ``prior`` as in :func:`dissensus.posterior.dirichlet`
  (default ``"jeffreys"``, 1/2 per class; ``"uniform"``, a number, a (K,) or
  (..., K) array or tensor). The fitted ``"empirical"`` and ``"hierarchical"``
  priors depend on the whole dataset, not a batch: fit them once
  (``fit_dirichlet_prior(train_counts).alpha0``) and pass the vector.
- Debiased forms (``debiased_*``): ``target`` is the label counts; the exact
  U-statistic of :mod:`dissensus.metrics.debiased`, unbiased for the distance to
  the TRUE distribution from 2 annotations per item on (an item with one
  annotation gets its empirical value, as the metric with ``single="empirical"``,
  without the warning). It can be negative.
- ``reduction``: ``"mean"`` (default), ``"sum"`` or ``"none"`` (shape
  ``input.shape[:-1]``); ``weight``: per-item weights of that shape, the mean
  then being :math:`\sum_i w_i \ell_i / \sum_i w_i`.

Each per-item value equals the NumPy metric (``get_metric(name)``, e.g.
``"emd"``, ``"E[emd]"``, ``"debiased[rps]"``) at the same inputs, in
float64 to 1e-12, with the same log base, normalisation and zero handling (a
``q_k = 0`` where ``p_k > 0`` gives ``inf`` under ``zero="inf"``; ``zero="clip"``
clips ``q`` to ``[eps, 1 - eps]``). The formulas are those of
:mod:`dissensus.metrics._pointwise`, :mod:`dissensus.metrics.expected` and
:mod:`dissensus.metrics.debiased`. Tensors stay on their device and dtype;
:func:`expected_emd` and :func:`expected_manhattan` need the regularised
incomplete beta, which PyTorch lacks: they run the NumPy definition on a
float64 CPU copy (see :mod:`dissensus.torch._autograd`). Gradients flow to
``input`` only (targets, counts and priors are data).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal, TypeAlias

import numpy as np
import numpy.typing as npt
import torch
import torch.nn.functional as F  # noqa: N812 (the PyTorch idiom)

from dissensus._exceptions import DataError
from dissensus._validation import check_option, log_scale
from dissensus.posterior import DEFAULT_PRIOR, prior_vector
from dissensus.torch._autograd import ExpectedAbsDev

__all__ = [
    "LOSSES",
    "cross_entropy",
    "debiased_rps",
    "debiased_squared_euclidean",
    "emd",
    "expected_cross_entropy",
    "expected_emd",
    "expected_kl_divergence",
    "expected_manhattan",
    "expected_rps",
    "expected_squared_euclidean",
    "get_loss",
    "js_divergence",
    "kl_divergence",
    "manhattan",
    "rps",
    "squared_euclidean",
]

InputType: TypeAlias = Literal["logits", "probs"]
Reduction: TypeAlias = Literal["mean", "sum", "none"]
ZeroPolicy: TypeAlias = Literal["inf", "clip"]
#: A Dirichlet prior: a name, a number, an array or a tensor (see :func:`dissensus.posterior.dirichlet`).
Prior: TypeAlias = str | float | npt.ArrayLike | torch.Tensor
Weight: TypeAlias = torch.Tensor | npt.ArrayLike | None

_INPUT_TYPES = ("logits", "probs")
_REDUCTIONS = ("mean", "sum", "none")
_ZERO = ("inf", "clip")
_BATCH_PRIORS = ("empirical", "hierarchical")


# --------------------------------------------------------------------------- inputs


def _check_input(input: torch.Tensor, input_type: str, func: str) -> None:
    """``input`` a tensor (..., K) and ``input_type`` a known one."""
    check_option(func, "input_type", input_type, _INPUT_TYPES)
    if not isinstance(input, torch.Tensor) or input.ndim == 0:
        msg = f"{func}: `input` must be a tensor of shape (..., K), classes last; got {input!r}."
        raise TypeError(msg)


def _prediction(input: torch.Tensor, input_type: str, func: str) -> torch.Tensor:
    """``q`` (..., K) from logits (softmax) or probabilities (as given)."""
    _check_input(input, input_type, func)
    return F.softmax(input, dim=-1) if input_type == "logits" else input


def _log_prediction(
    input: torch.Tensor, input_type: str, zero: str, eps: float, func: str
) -> torch.Tensor:
    """``ln q`` under the zero policy: ``-inf`` where ``q = 0`` (``"inf"``), or ``ln clip(q, eps, 1 - eps)``."""
    check_option(func, "input_type", input_type, _INPUT_TYPES)
    check_option(func, "zero", zero, _ZERO)
    if zero == "clip" and not 0.0 < float(eps) < 0.5:
        msg = f"The 'eps' parameter of {func} must be in (0, 0.5), e.g. 1e-12. Got {eps!r}."
        raise ValueError(msg)
    if input_type == "logits":
        logq = F.log_softmax(input, dim=-1)
        if zero == "clip":
            logq = logq.clamp(math.log(eps), math.log1p(-eps))
        return logq
    q = input.clamp(eps, 1.0 - eps) if zero == "clip" else input
    positive = q > 0
    # where() on a safe argument: log(0)'s infinite derivative must not reach the gradient as NaN
    return torch.where(positive, torch.log(torch.where(positive, q, 1.0)), -math.inf)


def _target(target: torch.Tensor | npt.ArrayLike, like: torch.Tensor, func: str) -> torch.Tensor:
    """``target`` as a tensor of ``like``'s device, dtype and shape."""
    t = torch.as_tensor(target, device=like.device).to(like.dtype)
    if t.shape != like.shape:
        msg = (
            f"{func}: `target` has shape {tuple(t.shape)} but `input` has shape "
            f"{tuple(like.shape)}; give one target row per prediction row, classes in the same order."
        )
        raise DataError(msg)
    return t


def _counts(counts: torch.Tensor | npt.ArrayLike, like: torch.Tensor, func: str) -> torch.Tensor:
    """Label counts (finite, >= 0) as a tensor like ``like``."""
    c = _target(counts, like, func)
    # two reductions, no temporaries (NaN propagates through min and fails the test)
    if c.numel() and not (bool(c.min() >= 0) and bool(c.max() < math.inf)):
        ok = torch.isfinite(c) & (c >= 0)
        row = int(torch.nonzero(~ok.all(dim=-1).reshape(-1))[0])
        msg = (
            f"{func}: `target` must hold label counts (finite, >= 0) for the expected and "
            f"debiased losses; row {row} has {c.reshape(-1, c.shape[-1])[row].tolist()}."
        )
        raise DataError(msg)
    return c


def _alpha(counts: torch.Tensor, prior: Prior, func: str) -> torch.Tensor:
    """Posterior Dirichlet parameters ``counts + prior`` (as :func:`dissensus.posterior.dirichlet`)."""
    K = counts.shape[-1]
    if isinstance(prior, str) and prior in _BATCH_PRIORS:
        msg = (
            f"The 'prior' parameter of {func} cannot be {prior!r}: that prior is fitted to the "
            "whole dataset, not one batch. Fit it once, e.g. "
            "dissensus.posterior.fit_dirichlet_prior(train_counts).alpha0, and pass that vector."
        )
        raise ValueError(msg)
    if isinstance(prior, torch.Tensor) or np.ndim(prior) > 1:
        a0 = torch.as_tensor(prior, device=counts.device).to(counts.dtype)
        if not bool((torch.isfinite(a0) & (a0 > 0)).all()):
            msg = f"The 'prior' parameter of {func} must be finite and > 0 (e.g. 0.5 = Jeffreys)."
            raise ValueError(msg)
    else:
        vec = prior_vector(prior, np.zeros((1, K), dtype=np.int64), func)
        a0 = torch.as_tensor(vec, device=counts.device).to(counts.dtype)
    try:
        return counts + a0
    except RuntimeError as err:
        msg = (
            f"The 'prior' parameter of {func} has shape {tuple(a0.shape)}, which does not "
            f"broadcast to the counts' shape {tuple(counts.shape)}: give ({K},) or the counts' shape."
        )
        raise ValueError(msg) from err


def _reduce(loss: torch.Tensor, reduction: str, weight: Weight, func: str) -> torch.Tensor:
    """Apply per-item weights and the reduction to per-item losses (shape ``input.shape[:-1]``)."""
    check_option(func, "reduction", reduction, _REDUCTIONS)
    w = None
    if weight is not None:
        w = torch.as_tensor(weight, device=loss.device).to(loss.dtype)
        if w.shape != loss.shape:
            msg = (
                f"{func}: `weight` has shape {tuple(w.shape)}; give one weight per item, shape "
                f"{tuple(loss.shape)} (the input's shape without the class dimension)."
            )
            raise DataError(msg)
        loss = loss * w
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.mean() if w is None else loss.sum() / w.sum()


# --------------------------------------------------------------------------- kernels
# One per formula, shared by the plain, expected and debiased forms (as in the NumPy code).


def _neg_sum_xlogq(p: torch.Tensor, logq: torch.Tensor) -> torch.Tensor:
    """``-sum_k p_k ln q_k`` with ``0 ln q = 0`` (also for ``q = 0``)."""
    return -torch.where(p > 0, p * logq, 0.0).sum(dim=-1)


def _xlogx(p: torch.Tensor) -> torch.Tensor:
    """Elementwise ``p ln p``, ``0 ln 0 = 0``."""
    positive = p > 0
    return torch.where(positive, p * torch.log(torch.where(positive, p, 1.0)), 0.0)


def _sq_dist(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    return (p - q).square().sum(dim=-1)


def _cum_gap(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """``P_k - Q_k``, k = 1..K-1 (cumulative sums over the ordered classes)."""
    return torch.cumsum((p - q)[..., :-1], dim=-1)


def _rps(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    K = p.shape[-1]
    return _cum_gap(p, q).square().sum(dim=-1) / max(K - 1, 1)


def _others(a: torch.Tensor) -> torch.Tensor:
    """``a0 - alpha_k`` summed from the other parameters (:func:`dissensus._dirichlet.others_sum`)."""
    head = F.pad(torch.cumsum(a[..., :-1], dim=-1), (1, 0))
    tail = F.pad(torch.flip(torch.cumsum(torch.flip(a[..., 1:], (-1,)), dim=-1), (-1,)), (0, 1))
    return head + tail


# --------------------------------------------------------------------------- plain forms


def cross_entropy(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
    zero: ZeroPolicy = "inf",
    eps: float = 1e-12,
    base: float | None = None,
) -> torch.Tensor:
    r"""Soft cross-entropy :math:`H(p, q) = -\sum_k p_k \ln q_k` (metric ``cross_entropy``).

    ``zero``, ``eps``, ``base`` as for :func:`dissensus.metrics.cross_entropy`.
    With logits this is ``torch.nn.functional.cross_entropy`` with probability
    targets (natural log, ``zero="inf"``), per item.

    Examples
    --------
    >>> import torch
    >>> float(cross_entropy(torch.zeros(1, 2, dtype=torch.float64), [[0.5, 0.5]]))
    0.6931471805599453
    """
    func = "cross_entropy"
    logq = _log_prediction(input, input_type, zero, eps, func)
    p = _target(target, input, func)
    loss = _neg_sum_xlogq(p, logq) / log_scale(func, base)
    return _reduce(loss, reduction, weight, func)


def kl_divergence(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
    zero: ZeroPolicy = "inf",
    eps: float = 1e-12,
    base: float | None = None,
) -> torch.Tensor:
    r"""Kullback-Leibler divergence :math:`\mathrm{KL}(p \| q) = \sum_k p_k \ln(p_k / q_k)` (metric ``kl_divergence``).

    The cross-entropy minus the target's entropy (same gradient, 0 at ``q = p``).

    Examples
    --------
    >>> import torch
    >>> float(kl_divergence(torch.tensor([[0.5, 0.5]]), [[0.5, 0.5]], input_type="probs"))
    0.0
    """
    func = "kl_divergence"
    logq = _log_prediction(input, input_type, zero, eps, func)
    p = _target(target, input, func)
    loss = (_xlogx(p).sum(dim=-1) + _neg_sum_xlogq(p, logq)) / log_scale(func, base)
    return _reduce(loss, reduction, weight, func)


def js_divergence(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
    base: float | None = None,
) -> torch.Tensor:
    r"""Jensen-Shannon divergence :math:`\tfrac12 \mathrm{KL}(p \| m) + \tfrac12 \mathrm{KL}(q \| m)`, :math:`m = (p + q)/2` (metric ``js_divergence``).

    Finite for every input (no zero policy); at most :math:`\ln 2`.

    Examples
    --------
    >>> import torch
    >>> round(float(js_divergence(torch.tensor([[1.0, 0.0]]), [[0.0, 1.0]], input_type="probs")), 6)
    0.693147
    """
    func = "js_divergence"
    q = _prediction(input, input_type, func)
    logq = _log_prediction(input, input_type, "inf", 1e-12, func)
    p = _target(target, input, func)
    m = 0.5 * (p + q)
    logm = torch.log(torch.where(m > 0, m, 1.0))
    terms = _xlogx(p) - torch.where(p > 0, p * logm, 0.0)
    terms = terms + torch.where(q > 0, q * (logq - logm), 0.0)
    # KL(p||m) >= 0: a rounding error of -1e-17 is 0, as in the metric
    loss = terms.sum(dim=-1).clamp_min(0.0) * (0.5 / log_scale(func, base))
    return _reduce(loss, reduction, weight, func)


def manhattan(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
) -> torch.Tensor:
    r"""Manhattan (L1) distance :math:`\sum_k |p_k - q_k|` (metric ``manhattan``).

    A subgradient (0) where :math:`q_k = p_k`.

    Examples
    --------
    >>> import torch
    >>> float(manhattan(torch.tensor([[0.5, 0.5]]), [[1.0, 0.0]], input_type="probs"))
    1.0
    """
    func = "manhattan"
    q = _prediction(input, input_type, func)
    loss = (_target(target, input, func) - q).abs().sum(dim=-1)
    return _reduce(loss, reduction, weight, func)


def squared_euclidean(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
) -> torch.Tensor:
    r"""Squared Euclidean distance (multi-class Brier score) :math:`\sum_k (p_k - q_k)^2` (metric ``squared_euclidean``).

    Examples
    --------
    >>> import torch
    >>> float(squared_euclidean(torch.tensor([[0.5, 0.5]]), [[1.0, 0.0]], input_type="probs"))
    0.5
    """
    func = "squared_euclidean"
    q = _prediction(input, input_type, func)
    loss = _sq_dist(_target(target, input, func), q)
    return _reduce(loss, reduction, weight, func)


def emd(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
    normalized_distance: bool = True,
) -> torch.Tensor:
    r"""Earth mover's distance on ordered classes :math:`\sum_{k<K} |P_k - Q_k| / (K - 1)` (metric ``emd``).

    ``P``, ``Q`` cumulative sums over the classes in column order; without the
    :math:`1/(K - 1)` (ground distance :math:`|i - j|`) when
    ``normalized_distance`` is False; 0 for K = 1. For the smooth squared-EMD
    loss of Hou et al. (2016) use :func:`rps` (its value times :math:`K - 1`).

    Examples
    --------
    >>> import torch
    >>> float(emd(torch.tensor([[1.0, 0.0, 0.0]]), [[0.0, 0.0, 1.0]], input_type="probs"))
    1.0
    """
    func = "emd"
    q = _prediction(input, input_type, func)
    K = q.shape[-1]
    loss = _cum_gap(_target(target, input, func), q).abs().sum(dim=-1)
    if normalized_distance and K > 1:
        loss = loss / (K - 1)
    return _reduce(loss, reduction, weight, func)


def rps(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
) -> torch.Tensor:
    r"""Ranked probability score :math:`\sum_{k<K} (P_k - Q_k)^2 / (K - 1)` (metric ``rps``).

    The squared EMD (Hou, Yu and Samaras 2016, arXiv:1611.05916) divided by
    :math:`K - 1`; on one-hot targets the RPS of Epstein (1969). 0 for K = 1.

    Examples
    --------
    >>> import torch
    >>> float(rps(torch.tensor([[0.5, 0.5]]), [[1.0, 0.0]], input_type="probs"))
    0.25
    """
    func = "rps"
    q = _prediction(input, input_type, func)
    loss = _rps(_target(target, input, func), q)
    return _reduce(loss, reduction, weight, func)


# --------------------------------------------------------------------------- expected forms


def _mean_and_alpha(
    input: torch.Tensor, counts: torch.Tensor | npt.ArrayLike, prior: Prior, func: str
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``alpha`` (..., K), ``a0`` (..., 1) and the posterior mean ``mu = alpha / a0``."""
    a = _alpha(_counts(counts, input, func), prior, func)
    a0 = a.sum(dim=-1, keepdim=True)
    return a, a0, a / a0


def expected_cross_entropy(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
    prior: Prior = DEFAULT_PRIOR,
    zero: ZeroPolicy = "inf",
    eps: float = 1e-12,
) -> torch.Tensor:
    r"""Expected cross-entropy :math:`-\sum_k \frac{\alpha_k}{a_0} \ln q_k` (metric ``E[cross_entropy]``).

    ``target`` the label counts, ``alpha = counts + prior``: the soft
    cross-entropy to the posterior mean.

    Examples
    --------
    >>> import torch
    >>> float(expected_cross_entropy(torch.zeros(1, 2, dtype=torch.float64), [[3, 1]]))
    0.6931471805599453
    """
    func = "expected_cross_entropy"
    logq = _log_prediction(input, input_type, zero, eps, func)
    _, _, mu = _mean_and_alpha(input, target, prior, func)
    return _reduce(_neg_sum_xlogq(mu, logq), reduction, weight, func)


def expected_kl_divergence(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
    prior: Prior = DEFAULT_PRIOR,
    zero: ZeroPolicy = "inf",
    eps: float = 1e-12,
) -> torch.Tensor:
    r"""Expected KL divergence :math:`\sum_k \frac{\alpha_k}{a_0}(\psi(\alpha_k + 1) - \psi(a_0 + 1) - \ln q_k)` (metric ``E[kl_divergence]``).

    Floored at 0 under ``zero="inf"``, as the metric is.

    Examples
    --------
    >>> import torch
    >>> q = torch.tensor([[0.1, 0.2, 0.4, 0.2, 0.1]], dtype=torch.float64)
    >>> round(float(expected_kl_divergence(q, [[1, 2, 4, 2, 1]], input_type="probs", prior=1)), 4)
    0.1394
    """
    func = "expected_kl_divergence"
    logq = _log_prediction(input, input_type, zero, eps, func)
    a, a0, mu = _mean_and_alpha(input, target, prior, func)
    plogp = mu * (torch.special.digamma(a + 1.0) - torch.special.digamma(a0 + 1.0))
    loss = plogp.sum(dim=-1) + _neg_sum_xlogq(mu, logq)
    if zero == "inf":  # a KL is >= 0; huge a0 leaves a rounding residue of either sign
        loss = loss.clamp_min(0.0)
    return _reduce(loss, reduction, weight, func)


def expected_squared_euclidean(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
    prior: Prior = DEFAULT_PRIOR,
) -> torch.Tensor:
    r"""Expected Brier score :math:`\sum_k [\mu_k (1 - \mu_k)/(a_0 + 1) + (\mu_k - q_k)^2]` (metric ``E[squared_euclidean]``).

    Examples
    --------
    >>> import torch
    >>> round(float(expected_squared_euclidean(torch.tensor([[0.5, 0.5]]), [[0, 0]], input_type="probs", prior=1)), 6)
    0.166667
    """
    func = "expected_squared_euclidean"
    q = _prediction(input, input_type, func)
    a, a0, mu = _mean_and_alpha(input, target, prior, func)
    var = mu * (_others(a) / a0) / (a0 + 1.0)
    loss = var.sum(dim=-1) + _sq_dist(mu, q)
    return _reduce(loss, reduction, weight, func)


def expected_rps(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
    prior: Prior = DEFAULT_PRIOR,
) -> torch.Tensor:
    r"""Expected ranked probability score (metric ``E[rps]``); 0 for K = 1.

    :math:`\frac{1}{K - 1}\sum_{k<K} [m_k (1 - m_k)/(a_0 + 1) + (m_k - Q_k)^2]`,
    :math:`m_k = A_k / a_0`, :math:`1 - m_k` summed from the parameters above ``k``.

    Examples
    --------
    >>> import torch
    >>> round(float(expected_rps(torch.tensor([[0.5, 0.5]]), [[0, 0]], input_type="probs", prior=1)), 6)
    0.083333
    """
    func = "expected_rps"
    q = _prediction(input, input_type, func)
    a, a0, mu = _mean_and_alpha(input, target, prior, func)
    K = a.shape[-1]
    m = torch.cumsum(a[..., :-1], dim=-1) / a0
    rest = torch.flip(torch.cumsum(torch.flip(a[..., 1:], (-1,)), dim=-1), (-1,)) / a0
    spread = (m * rest / (a0 + 1.0)).sum(dim=-1) / max(K - 1, 1)
    loss = spread + _rps(mu, q)
    return _reduce(loss, reduction, weight, func)


def _expected_abs(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    input_type: str,
    prior: Prior,
    func: str,
    *,
    cumulative: bool,
    normalized_distance: bool = True,
) -> torch.Tensor:
    _check_input(input, input_type, func)  # the softmax, if any, is taken with the rest
    a = _alpha(_counts(target, input, func), prior, func)
    K = input.shape[-1]
    flat = ExpectedAbsDev.apply(  # type: ignore[no-untyped-call]
        input.reshape(-1, K),
        a.expand(input.shape).reshape(-1, K),
        cumulative,
        normalized_distance,
        input_type == "logits",
    )
    out: torch.Tensor = flat.reshape(input.shape[:-1])
    return out


def expected_emd(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
    prior: Prior = DEFAULT_PRIOR,
    normalized_distance: bool = True,
) -> torch.Tensor:
    r"""Exact expected EMD under each item's posterior (metric ``E[emd]``; model E's objective).

    :math:`\frac{1}{K - 1}\sum_{k<K} \mathbb{E}|P_k - Q_k|`,
    :math:`P_k \sim \mathrm{Beta}(A_k, B_k)`; gradient
    :math:`\frac{1}{K-1}\sum_{k \ge j}(2 I_{Q_k}(A_k, B_k) - 1)` in ``q_j``
    (:func:`dissensus.metrics.expected.emd_value_and_gradient`). Computed by the NumPy
    code on a float64 CPU copy, moved back to the input's device and dtype.

    Examples
    --------
    >>> import torch
    >>> float(expected_emd(torch.tensor([[0.5, 0.5]]), [[0, 0]], input_type="probs", prior=1))
    0.25
    """
    func = "expected_emd"
    loss = _expected_abs(
        input,
        target,
        input_type,
        prior,
        func,
        cumulative=True,
        normalized_distance=normalized_distance,
    )
    return _reduce(loss, reduction, weight, func)


def expected_manhattan(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
    prior: Prior = DEFAULT_PRIOR,
) -> torch.Tensor:
    r"""Exact expected L1 distance :math:`\sum_k \mathbb{E}|p_k - q_k|` (metric ``E[manhattan]``).

    Gradient :math:`2 I_{q_k}(\alpha_k, a_0 - \alpha_k) - 1`
    (:func:`dissensus.metrics.expected.manhattan_value_and_gradient`); computed by the
    NumPy code on a float64 CPU copy, moved back to the input's device and dtype.

    Examples
    --------
    >>> import torch
    >>> float(expected_manhattan(torch.tensor([[0.5, 0.5]]), [[0, 0]], input_type="probs", prior=1))
    0.5
    """
    func = "expected_manhattan"
    loss = _expected_abs(input, target, input_type, prior, func, cumulative=False)
    return _reduce(loss, reduction, weight, func)


# --------------------------------------------------------------------------- debiased forms


def _empirical(
    input: torch.Tensor, counts: torch.Tensor | npt.ArrayLike, func: str
) -> tuple[torch.Tensor, torch.Tensor]:
    """Empirical distributions ``counts / n`` and ``n`` (..., 1); every item needs an annotation."""
    c = _counts(counts, input, func)
    n = c.sum(dim=-1, keepdim=True)
    if not bool((n > 0).all()):
        row = int(torch.nonzero((n <= 0).reshape(-1))[0])
        msg = (
            f"{func}: item {row} (flattened) has no annotation; a debiased loss needs at least "
            "one (two for the debiasing). Drop these items."
        )
        raise DataError(msg)
    return c / n, n


def debiased_squared_euclidean(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
) -> torch.Tensor:
    r"""Unbiased Brier score to the true distribution (metric ``debiased[squared_euclidean]``).

    :math:`\lVert \hat p - q \rVert^2 - (1 - \sum_k \hat p_k^2)/(n - 1)` from
    the counts (exact U-statistic for :math:`n \ge 2`; the empirical value for
    :math:`n = 1`). Its gradient in ``q`` is that of the plain loss at
    :math:`\hat p`: the correction is a constant per item.

    Examples
    --------
    >>> import torch
    >>> debiased_squared_euclidean(torch.tensor([[0.5, 0.5], [0.5, 0.5]]), [[1, 1], [2, 0]],
    ...                            input_type="probs", reduction="none")
    tensor([-0.5000,  0.5000])
    """
    func = "debiased_squared_euclidean"
    q = _prediction(input, input_type, func)
    P, n = _empirical(input, target, func)
    f0 = _sq_dist(P, q)
    n1 = n.squeeze(-1)
    correction = (1.0 - P.square().sum(dim=-1)) / torch.clamp_min(n1 - 1.0, 1.0)
    loss = torch.where(n1 >= 2, f0 - correction, f0)
    return _reduce(loss, reduction, weight, func)


def debiased_rps(
    input: torch.Tensor,
    target: torch.Tensor | npt.ArrayLike,
    *,
    input_type: InputType = "logits",
    reduction: Reduction = "mean",
    weight: Weight = None,
) -> torch.Tensor:
    r"""Unbiased ranked probability score to the true distribution (metric ``debiased[rps]``).

    :math:`\mathrm{RPS}(\hat p, q) - \sum_{k<K} \hat P_k (1 - \hat P_k) / ((n - 1)(K - 1))`
    from the counts (exact U-statistic for :math:`n \ge 2`; the empirical value
    for :math:`n = 1`).

    Examples
    --------
    >>> import torch
    >>> debiased_rps(torch.tensor([[0.5, 0.5], [0.5, 0.5]]), [[1, 1], [2, 0]],
    ...              input_type="probs", reduction="none")
    tensor([-0.2500,  0.2500])
    """
    func = "debiased_rps"
    q = _prediction(input, input_type, func)
    P, n = _empirical(input, target, func)
    K = q.shape[-1]
    f0 = _rps(P, q)
    Pc = torch.cumsum(P[..., :-1], dim=-1)
    n1 = n.squeeze(-1)
    correction = (Pc * (1.0 - Pc)).sum(dim=-1) / (torch.clamp_min(n1 - 1.0, 1.0) * max(K - 1, 1))
    loss = torch.where(n1 >= 2, f0 - correction, f0)
    return _reduce(loss, reduction, weight, func)


#: The losses by the registry name of the metric each equals (``get_metric(name)``).
LOSSES: dict[str, Callable[..., torch.Tensor]] = {
    "cross_entropy": cross_entropy,
    "kl_divergence": kl_divergence,
    "js_divergence": js_divergence,
    "manhattan": manhattan,
    "squared_euclidean": squared_euclidean,
    "emd": emd,
    "rps": rps,
    "E[cross_entropy]": expected_cross_entropy,
    "E[kl_divergence]": expected_kl_divergence,
    "E[squared_euclidean]": expected_squared_euclidean,
    "E[rps]": expected_rps,
    "E[emd]": expected_emd,
    "E[manhattan]": expected_manhattan,
    "debiased[squared_euclidean]": debiased_squared_euclidean,
    "debiased[rps]": debiased_rps,
}


def get_loss(name: str) -> Callable[..., torch.Tensor]:
    """The functional loss equal to the metric ``name`` (e.g. ``"E[emd]"``).

    Examples
    --------
    >>> get_loss("debiased[rps]").__name__
    'debiased_rps'
    """
    try:
        return LOSSES[name]
    except KeyError:
        names = ", ".join(repr(k) for k in LOSSES)
        msg = f"No dissensus.torch loss for {name!r}; the losses are {names}."
        raise ValueError(msg) from None
