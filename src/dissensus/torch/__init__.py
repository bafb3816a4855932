"""PyTorch losses for label-distribution targets, each equal to the dissensus metric of its name.

Optional extra: ``pip install 'dissensus[torch]'`` (``import dissensus`` never
imports torch; import this subpackage explicitly). Functional forms in
:mod:`dissensus.torch.functional` (conventions: logits or probabilities in,
probability or count targets, ``reduction``, per-item ``weight``); module forms
here, e.g. ``ExpectedEMDLoss(prior="jeffreys")(logits, counts)``.

Examples
--------
>>> import torch
>>> from dissensus.torch import EMDLoss
>>> loss = EMDLoss(input_type="probs")
>>> float(loss(torch.tensor([[1.0, 0.0, 0.0]]), torch.tensor([[0.0, 0.0, 1.0]])))
1.0
"""

from __future__ import annotations

from dissensus.torch import functional
from dissensus.torch._modules import (
    DebiasedRPSLoss,
    DebiasedSquaredEuclideanLoss,
    EMDLoss,
    ExpectedCrossEntropyLoss,
    ExpectedEMDLoss,
    ExpectedKLDivergenceLoss,
    ExpectedManhattanLoss,
    ExpectedRPSLoss,
    ExpectedSquaredEuclideanLoss,
    JSDivergenceLoss,
    KLDivergenceLoss,
    ManhattanLoss,
    RPSLoss,
    SoftCrossEntropyLoss,
    SquaredEuclideanLoss,
)
from dissensus.torch.functional import LOSSES, get_loss

__all__ = [
    "LOSSES",
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
    "functional",
    "get_loss",
]
