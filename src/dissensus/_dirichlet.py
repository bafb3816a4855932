"""Dirichlet helpers of :mod:`dissensus.posterior`, :mod:`dissensus.metrics` and :mod:`dissensus.simulate` (``alpha`` (N, K))."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def others_sum(alpha: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``a0 - alpha_k`` for every entry, summed from the other parameters.

    The marginal of ``p_k`` is ``Beta(alpha_k, a0 - alpha_k)``; forming the
    second parameter by subtraction loses every digit when ``alpha_k``
    dominates (``1e9 + 1 - 1e9``), summing the others does not.

    Examples
    --------
    >>> others_sum(np.array([[1e9, 1.0, 0.5]])).tolist()
    [[1.5, 1000000000.5, 1000000001.0]]
    """
    head = np.zeros_like(alpha)
    tail = np.zeros_like(alpha)
    head[:, 1:] = np.cumsum(alpha[:, :-1], axis=1)
    tail[:, :-1] = np.cumsum(alpha[:, :0:-1], axis=1)[:, ::-1]
    out: npt.NDArray[np.float64] = head + tail
    return out


def draw_rows(rng: np.random.Generator, alpha: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """One Dirichlet draw per row of ``alpha`` (N, K), by normalised gamma variates.

    A row whose gammas all underflow (tiny parameters) gets its largest-parameter class.
    """
    g = rng.standard_gamma(alpha)
    s = g.sum(axis=1, keepdims=True)
    empty = s[:, 0] <= 0
    if empty.any():
        g[empty, np.argmax(alpha[empty], axis=1)] = 1.0
        s = g.sum(axis=1, keepdims=True)
    out: npt.NDArray[np.float64] = g / s
    return out
