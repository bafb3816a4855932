r"""Custom autograd functions for the expected L1 and EMD: NumPy forward, closed-form backward.

PyTorch has no regularised incomplete beta :math:`I_x(a, b)`, which both the
value and the gradient of :math:`\mathbb{E}|X - c|`, :math:`X \sim
\mathrm{Beta}(a, b)`, need. The forward pass is the NumPy definition itself
(:func:`dissensus.metrics.expected.emd`, :func:`~dissensus.metrics.expected.manhattan`)
and the backward pass its closed-form derivative
(:func:`dissensus.metrics.expected.emd_gradient`,
:func:`~dissensus.metrics.expected.manhattan_gradient`): both on detached
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
    """Per-item E[EMD] (``cumulative=True``) or E[L1] of predictions ``q`` (N, K) under Dir(``alpha``)."""

    @staticmethod
    def forward(
        q: torch.Tensor, alpha: torch.Tensor, cumulative: bool, normalized_distance: bool
    ) -> torch.Tensor:
        a, Q = _host(alpha), _host(q)
        if cumulative:
            value = expected.emd(a, Q, normalized_distance=normalized_distance)
        else:
            value = expected.manhattan(a, Q)
        return torch.from_numpy(np.ascontiguousarray(value)).to(device=q.device, dtype=q.dtype)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        q, alpha, cumulative, normalized_distance = inputs
        ctx.save_for_backward(q, alpha)
        ctx.cumulative = cumulative
        ctx.normalized_distance = normalized_distance

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, None, None, None]:
        if not ctx.needs_input_grad[0]:
            return None, None, None, None
        q, alpha = ctx.saved_tensors
        a, Q = _host(alpha), _host(q)
        if ctx.cumulative:
            G = expected.emd_gradient(a, Q, normalized_distance=ctx.normalized_distance)
        else:
            G = expected.manhattan_gradient(a, Q)
        dq = torch.from_numpy(G).to(device=q.device, dtype=q.dtype)
        return grad.unsqueeze(-1) * dq, None, None, None
