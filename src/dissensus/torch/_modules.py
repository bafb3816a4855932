"""``torch.nn.Module`` wrappers of :mod:`dissensus.torch.functional`: options fixed at construction.

``loss(input, target, weight=None)`` calls the functional form with the options
given to the constructor (``input_type``, ``reduction``, and the loss's own:
``zero``, ``eps``, ``base``, ``prior``, ``normalized_distance``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ClassVar

import torch

from dissensus._validation import check_option
from dissensus.torch import functional

__all__ = [
    "DebiasedRPSLoss",
    "DebiasedSquaredEuclideanLoss",
    "EMDLoss",
    "ExpectedCrossEntropyLoss",
    "ExpectedEMDLoss",
    "ExpectedKLDivergenceLoss",
    "ExpectedManhattanLoss",
    "ExpectedRPSLoss",
    "ExpectedSquaredEuclideanLoss",
    "JSDivergenceLoss",
    "KLDivergenceLoss",
    "ManhattanLoss",
    "RPSLoss",
    "SoftCrossEntropyLoss",
    "SquaredEuclideanLoss",
]


class _MetricLoss(torch.nn.Module):
    """A loss module: the options of :attr:`function`, fixed; ``forward(input, target, weight=None)``."""

    function: ClassVar[Callable[..., torch.Tensor]]

    def __init__(
        self,
        *,
        input_type: functional.InputType = "logits",
        reduction: functional.Reduction = "mean",
        **options: Any,
    ) -> None:
        super().__init__()
        func = type(self).function.__name__
        check_option(func, "input_type", input_type, ("logits", "probs"))
        check_option(func, "reduction", reduction, ("mean", "sum", "none"))
        common = {"input", "target", "input_type", "reduction", "weight"}
        known = set(inspect.signature(type(self).function).parameters) - common
        unknown = sorted(set(options) - known)
        if unknown:
            msg = (
                f"{type(self).__name__}() got an unexpected keyword argument {unknown[0]!r}; "
                f"its options are {', '.join(sorted(known)) or 'none'}."
            )
            raise TypeError(msg)
        self.input_type = input_type
        self.reduction = reduction
        self.options = options

    def forward(
        self, input: torch.Tensor, target: torch.Tensor, weight: functional.Weight = None
    ) -> torch.Tensor:
        return type(self).function(
            input,
            target,
            input_type=self.input_type,
            reduction=self.reduction,
            weight=weight,
            **self.options,
        )

    def extra_repr(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return f"input_type={self.input_type!r}, reduction={self.reduction!r}{opts}"


def _loss_class(name: str, function: Callable[..., torch.Tensor], metric: str) -> type[_MetricLoss]:
    doc = (
        f"Module form of :func:`dissensus.torch.functional.{function.__name__}` (metric "
        f"``{metric}``): ``{name}(*, input_type='logits', reduction='mean', **options)``, "
        "called as ``loss(input, target, weight=None)``."
    )
    return type(name, (_MetricLoss,), {"function": staticmethod(function), "__doc__": doc})


SoftCrossEntropyLoss = _loss_class(
    "SoftCrossEntropyLoss", functional.cross_entropy, "cross_entropy"
)
KLDivergenceLoss = _loss_class("KLDivergenceLoss", functional.kl_divergence, "kl_divergence")
JSDivergenceLoss = _loss_class("JSDivergenceLoss", functional.js_divergence, "js_divergence")
ManhattanLoss = _loss_class("ManhattanLoss", functional.manhattan, "manhattan")
SquaredEuclideanLoss = _loss_class(
    "SquaredEuclideanLoss", functional.squared_euclidean, "squared_euclidean"
)
EMDLoss = _loss_class("EMDLoss", functional.emd, "emd")
RPSLoss = _loss_class("RPSLoss", functional.rps, "rps")
ExpectedCrossEntropyLoss = _loss_class(
    "ExpectedCrossEntropyLoss", functional.expected_cross_entropy, "E[cross_entropy]"
)
ExpectedKLDivergenceLoss = _loss_class(
    "ExpectedKLDivergenceLoss", functional.expected_kl_divergence, "E[kl_divergence]"
)
ExpectedSquaredEuclideanLoss = _loss_class(
    "ExpectedSquaredEuclideanLoss", functional.expected_squared_euclidean, "E[squared_euclidean]"
)
ExpectedRPSLoss = _loss_class("ExpectedRPSLoss", functional.expected_rps, "E[rps]")
ExpectedEMDLoss = _loss_class("ExpectedEMDLoss", functional.expected_emd, "E[emd]")
ExpectedManhattanLoss = _loss_class(
    "ExpectedManhattanLoss", functional.expected_manhattan, "E[manhattan]"
)
DebiasedSquaredEuclideanLoss = _loss_class(
    "DebiasedSquaredEuclideanLoss",
    functional.debiased_squared_euclidean,
    "debiased[squared_euclidean]",
)
DebiasedRPSLoss = _loss_class("DebiasedRPSLoss", functional.debiased_rps, "debiased[rps]")
