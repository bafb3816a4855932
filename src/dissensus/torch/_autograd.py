r"""Custom autograd functions for the expected L1 and EMD: NumPy forward, closed-form backward.

PyTorch has no regularised incomplete beta :math:`I_x(a, b)`, which both the
value and the gradient of :math:`\mathbb{E}|X - c|`, :math:`X \sim
\mathrm{Beta}(a, b)`, need. The forward pass is the NumPy definition itself
(:func:`dissensus.metrics.expected.emd`, :func:`~dissensus.metrics.expected.manhattan`)
and the backward pass its closed-form derivative, both from one call
(:func:`dissensus.metrics.expected.emd_value_and_gradient`,
:func:`~dissensus.metrics.expected.manhattan_value_and_gradient`) on detached
float64 CPU copies, the results moved back to the prediction's device and dtype.
Gradients flow to the prediction only (the Dirichlet parameters are data).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from dissensus.metrics import expected

FloatArray = npt.NDArray[np.float64]


def _host(t: torch.Tensor) -> FloatArray:
    """A detached float64 CPU NumPy copy (a view when ``t`` already is one)."""
    out: FloatArray = t.detach().to(device="cpu", dtype=torch.float64).numpy()
    return out


class ExpectedAbsDev(torch.autograd.Function):
    """Per-item E[EMD] (``cumulative=True``) or E[L1] of predictions ``q`` (N, K) under Dir(``alpha``).

    The forward pass computes the value and its gradient together (the
    incomplete betas are shared) and keeps the gradient for the backward pass.
    """

    @staticmethod
    def forward(
        ctx: Any,
        q: torch.Tensor,
        alpha: torch.Tensor,
        cumulative: bool,
        normalized_distance: bool,
    ) -> torch.Tensor:
        a, Q = _host(alpha), _host(q)
        if q.dtype != torch.float64:
            # a float32 softmax row sums to 1 within ~K 6e-8 only; the metric checks 1e-6
            Q = Q / Q.sum(axis=1, keepdims=True)
        if cumulative:
            value, G = expected.emd_value_and_gradient(
                a, Q, normalized_distance=normalized_distance
            )
        else:
            value, G = expected.manhattan_value_and_gradient(a, Q)
        ctx.dq = torch.from_numpy(G).to(device=q.device, dtype=q.dtype)
        return torch.from_numpy(value).to(device=q.device, dtype=q.dtype)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, None, None, None]:
        dq: torch.Tensor = ctx.dq
        if not ctx.needs_input_grad[0]:
            return None, None, None, None
        return grad.unsqueeze(-1) * dq, None, None, None
