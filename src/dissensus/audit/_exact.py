r"""The registry's pointwise metrics in 50-digit decimal arithmetic, to confirm counterexamples.

A counterexample found in float64 is confirmed by recomputing its metric
values independently: each value here is the metric's defining formula
evaluated in :mod:`decimal` with 50 significant digits on the exact binary
values of the rows, then rounded once to float64. A correctly rounded value
has a relative error of at most 2^-53 *of the value itself*, whereas the
float64 kernels lose digits to cancellation where the value is small next to
its terms (the Jensen-Shannon divergence of two close rows is a difference of
terms near ln 2): two such values compare correctly unless they agree to 16
digits. Conventions are the kernels': ``0 ln 0 = 0``, ``p ln(p / 0) = inf``
for ``p > 0``, a class with ``p_k = q_k = 0`` contributes 0 to Clark,
Canberra and χ²; similarities are returned as the similarity (the audit
turns them into losses).
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
Row = Sequence[decimal.Decimal]
_D = decimal.Decimal
_INF = _D("Infinity")
#: Significant digits of every decimal computation.
PRECISION = 50


def _xlnx_over(x: decimal.Decimal, y: decimal.Decimal) -> decimal.Decimal:
    """``x ln(x / y)`` with ``0 ln(0 / y) = 0`` and ``x ln(x / 0) = inf``."""
    if x == 0:
        return _D(0)
    if y == 0:
        return _INF
    return x * (x / y).ln()


def _cross_entropy(p: Row, q: Row) -> decimal.Decimal:
    total = _D(0)
    for a, b in zip(p, q, strict=True):
        if a == 0:
            continue
        if b == 0:
            return _INF
        total -= a * b.ln()
    return total


def _kl(p: Row, q: Row) -> decimal.Decimal:
    return sum((_xlnx_over(a, b) for a, b in zip(p, q, strict=True)), _D(0))


def _js(p: Row, q: Row) -> decimal.Decimal:
    m = [(a + b) / 2 for a, b in zip(p, q, strict=True)]
    return (_kl(p, m) + _kl(q, m)) / 2


def _ratio(p: Row, q: Row) -> list[decimal.Decimal]:
    return [abs(a - b) / (a + b) if a + b > 0 else _D(0) for a, b in zip(p, q, strict=True)]


def _emd(p: Row, q: Row) -> decimal.Decimal:
    run, total = _D(0), _D(0)
    for a, b in list(zip(p, q, strict=True))[:-1]:
        run += a - b
        total += abs(run)
    return total / (len(p) - 1) if len(p) > 1 else _D(0)


def _cosine(p: Row, q: Row) -> decimal.Decimal:
    dot = sum((a * b for a, b in zip(p, q, strict=True)), _D(0))
    return dot / (sum((a * a for a in p), _D(0)) * sum((b * b for b in q), _D(0))).sqrt()


def _squared(p: Row, q: Row) -> decimal.Decimal:
    return sum(((a - b) ** 2 for a, b in zip(p, q, strict=True)), _D(0))


_FORMULAS: dict[str, Callable[[Row, Row], decimal.Decimal]] = {
    "cross_entropy": _cross_entropy,
    "kl_divergence": _kl,
    "kl_divergence_reverse": lambda p, q: _kl(q, p),
    "js_divergence": _js,
    "js_distance": lambda p, q: _js(p, q).sqrt(),
    "manhattan": lambda p, q: sum((abs(a - b) for a, b in zip(p, q, strict=True)), _D(0)),
    "euclidean": lambda p, q: _squared(p, q).sqrt(),
    "squared_euclidean": _squared,
    "emd": _emd,
    "chebyshev": lambda p, q: max(abs(a - b) for a, b in zip(p, q, strict=True)),
    "clark": lambda p, q: sum((t * t for t in _ratio(p, q)), _D(0)).sqrt(),
    "canberra": lambda p, q: sum(_ratio(p, q), _D(0)),
    "cosine": _cosine,
    "intersection": lambda p, q: sum((min(a, b) for a, b in zip(p, q, strict=True)), _D(0)),
    "sorensen": lambda p, q: (
        sum((abs(a - b) for a, b in zip(p, q, strict=True)), _D(0))
        / (sum(p, _D(0)) + sum(q, _D(0)))
    ),
    "squared_chi2": lambda p, q: sum(
        ((a - b) ** 2 / (a + b) for a, b in zip(p, q, strict=True) if a + b > 0), _D(0)
    ),
    "fidelity": lambda p, q: sum(((a * b).sqrt() for a, b in zip(p, q, strict=True)), _D(0)),
    "hellinger": lambda p, q: (
        sum(((a.sqrt() - b.sqrt()) ** 2 for a, b in zip(p, q, strict=True)), _D(0)) / 2
    ).sqrt(),
}


def has_exact(name: str) -> bool:
    """Whether registry metric ``name`` (default options) has a decimal form here."""
    return name in _FORMULAS


def exact_values(name: str, P: FloatArray, Q: FloatArray) -> FloatArray:
    """Registry metric ``name`` of each row pair, in 50 digits, correctly rounded to float64.

    A loop over rows: it confirms a handful of candidate counterexamples, never a batch
    of trials.
    """
    formula = _FORMULAS[name]
    out = np.empty(len(P))
    with decimal.localcontext() as ctx:
        ctx.prec = PRECISION
        ctx.traps[decimal.InvalidOperation] = False
        for i, (p, q) in enumerate(zip(np.asarray(P), np.asarray(Q), strict=True)):
            value = formula([_D(float(v)) for v in p], [_D(float(v)) for v in q])
            out[i] = math.inf if value == _INF else float(value)
    return out
