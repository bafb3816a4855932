r"""Custom autograd functions for the expected L1 and EMD: NumPy forward, closed-form backward.

PyTorch has no regularised incomplete beta :math:`I_x(a, b)`, which both the
value and the gradient of :math:`\mathbb{E}|X - c|`, :math:`X \sim
\mathrm{Beta}(a, b)`, need. The forward pass is the NumPy definition itself
(:func:`dissensus.metrics.expected.emd`, :func:`~dissensus.metrics.expected.manhattan`)
and the backward pass its closed-form derivative, both from one call
(:func:`dissensus.metrics.expected.emd_value_and_gradient`,
:func:`~dissensus.metrics.expected.manhattan_value_and_gradient`) on detached
float64 CPU copies, the results moved back to the prediction's device and dtype.
From logits, the softmax and its chain rule are taken in the same pass
(:func:`dissensus.metrics.gradients.softmax`, ``softmax_backward``): the logits
cross to the host instead of the probabilities, and the loss has one autograd
node. Gradients flow to the prediction only (the Dirichlet parameters are data).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from dissensus.metrics import expected, gradients

FloatArray = npt.NDArray[np.float64]


def _host(t: torch.Tensor) -> FloatArray:
    """A detached float64 CPU NumPy copy (a view when ``t`` already is one)."""
    out: FloatArray = t.detach().to(device="cpu", dtype=torch.float64).numpy()
    return out


class ExpectedAbsDev(torch.autograd.Function):
    """Per-item E[EMD] (``cumulative=True``) or E[L1] of predictions (N, K) under Dir(``alpha``).

    The predictions are probabilities, or logits (``from_logits``: the softmax and
    its chain rule are then taken here too, by :func:`dissensus.metrics.gradients.softmax`
    and :func:`~dissensus.metrics.gradients.softmax_backward`, on the same host copy).
    The forward pass computes the value and its gradient together (the incomplete
    betas are shared) and keeps the gradient for the backward pass.
    """

    @staticmethod
    def forward(  # noqa: PLR0917 -- Function.apply passes every argument by position
        ctx: Any,
        x: torch.Tensor,
        alpha: torch.Tensor,
        cumulative: bool,
        normalized_distance: bool,
        from_logits: bool,
    ) -> torch.Tensor:
        a, X = _host(alpha), _host(x)
        if from_logits:
            Q = gradients.softmax(X)
        elif x.dtype != torch.float64:
            # a float32 softmax row sums to 1 within ~K 6e-8 only; the metric checks 1e-6
            Q = X / X.sum(axis=1, keepdims=True)
        else:
            Q = X
        # One thread: this kernel's NumPy calls on cache-sized blocks hand the GIL back and
        # forth and 2 threads were slower than 1 (benchmarks/bench_torch.py); torch's own
        # threads do the rest of the step. The checks are skipped for logits: the caller
        # checked the counts and the prior, and a softmax is on the simplex.
        if cumulative:
            value, G = expected.emd_value_and_gradient(
                a,
                Q,
                normalized_distance=normalized_distance,
                n_jobs=1,
                check_input=not from_logits,
            )
        else:
            value, G = expected.manhattan_value_and_gradient(
                a, Q, n_jobs=1, check_input=not from_logits
            )
        if from_logits:
            G = gradients.softmax_backward(Q, G)
        ctx.dx = torch.from_numpy(np.ascontiguousarray(G)).to(device=x.device, dtype=x.dtype)
        return torch.from_numpy(value).to(device=x.device, dtype=x.dtype)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(
        ctx: Any, grad: torch.Tensor
    ) -> tuple[torch.Tensor | None, None, None, None, None]:
        dx: torch.Tensor = ctx.dx
        if not ctx.needs_input_grad[0]:
            return None, None, None, None, None
        return grad.unsqueeze(-1) * dx, None, None, None, None
