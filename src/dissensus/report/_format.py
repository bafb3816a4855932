"""The one number formatter of every table, figure caption and sentence.

Conventions: fixed decimals (``digits``), a true minus sign (``−``, in an
exponent too: ``1.23e−05``), ``∞``
for an infinite value (a result, e.g. cross-entropy of a zero prediction,
not a gap), a dash ``–`` for a missing value (None, NaN, ``pd.NA``),
thousands separators for counts and for numbers of 1,000 or more.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

#: What a missing value prints as.
MISSING = "–"


def is_missing(value: Any) -> bool:
    """Whether ``value`` is None, NaN or ``pd.NA`` (a string or an array is not missing)."""
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _minus(text: str) -> str:
    """One minus sign everywhere, the exponent's included (``−3.07e−05``, never ``e-05``)."""
    return text.replace("-", "−")


def format_number(value: Any, *, digits: int = 3, fixed: bool = False) -> str:
    """A number with ``digits`` decimals; 3 significant digits below ``10**-digits`` unless ``fixed``.

    Examples
    --------
    >>> format_number(0.47312), format_number(float("nan")), format_number(12345.6)
    ('0.473', '–', '12,346')
    >>> format_number(float("inf")), format_number(float("-inf"))
    ('∞', '−∞')
    >>> format_number(0.000787), format_number(0.0000123), format_number(-0.5)
    ('0.000787', '1.23e−05', '−0.500')
    >>> format_number(-3.07e-05), format_pvalue(5.78e-05)
    ('−3.07e−05', '5.78e−05')
    """
    if isinstance(value, str):
        return value
    if is_missing(value):
        return MISSING
    x = float(value)
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    x += 0.0  # turns -0.0 into 0.0, which must not print as "−0.000"
    magnitude = abs(x)
    if magnitude >= 1000:
        text = f"{x:,.0f}"
    elif magnitude >= 100:
        text = f"{x:.1f}"
    elif 0 < magnitude < 10.0 ** (-digits) and not fixed:
        text = f"{x:.3g}"
    else:
        text = f"{x:.{digits}f}"
    return _minus(text)


def _shared(values: tuple[Any, ...], digits: int) -> list[str]:
    """Format ``values`` to one number of decimals (never ``[0.000508, 0.003]``).

    ``digits`` decimals, or 3 significant digits of the largest magnitude when it
    is below ``10**-digits``.
    """
    finite = [abs(float(v)) for v in values if not is_missing(v) and math.isfinite(float(v))]
    top = max(finite, default=0.0)
    if top == 0.0 or top >= 10.0 ** (-digits) or top >= 100:
        return [format_number(v, digits=digits, fixed=True) for v in values]
    decimals = min(-math.floor(math.log10(top)) + 2, 12)
    return [format_number(v, digits=decimals, fixed=True) for v in values]


def format_interval(low: Any, high: Any, *, digits: int = 3) -> str:
    """``[low, high]`` with both ends to the same decimals, or "" when both are missing.

    Examples
    --------
    >>> format_interval(-0.1, 0.2), format_interval(float("nan"), None)
    ('[−0.100, 0.200]', '')
    >>> format_interval(0.000508, 0.003), format_interval(0.000182, 0.000435)
    ('[0.001, 0.003]', '[0.000182, 0.000435]')
    """
    if is_missing(low) and is_missing(high):
        return ""
    a, b = _shared((low, high), digits)
    return f"[{a}, {b}]"


def format_estimate(value: Any, low: Any, high: Any, *, digits: int = 3) -> str:
    """``value [low, high]``, the three to the same decimals (:func:`format_interval`).

    Examples
    --------
    >>> format_estimate(0.000311, 0.000182, 0.000435), format_estimate(0.002, 0.000508, 0.003)
    ('0.000311 [0.000182, 0.000435]', '0.002 [0.001, 0.003]')
    >>> format_estimate(float("inf"), None, None)
    '∞'
    """
    if is_missing(low) and is_missing(high):
        return format_number(value, digits=digits)
    v, a, b = _shared((value, low, high), digits)
    return f"{v} [{a}, {b}]"


def format_pm(value: Any, spread: Any, *, digits: int = 3) -> str:
    """``value ± spread`` (a standard error or deviation), both to ``digits`` decimals; ``value`` alone without one.

    Examples
    --------
    >>> format_pm(1.25, 0.5, digits=1), format_pm(0.9, float("nan"), digits=2)
    ('1.2 ± 0.5', '0.90')
    >>> format_pm(0.952, 7.85e-17)
    '0.952 ± 0.000'
    """
    text = format_number(value, digits=digits, fixed=True)
    if is_missing(value) or is_missing(spread) or not math.isfinite(float(spread)):
        return text
    return f"{text} ± {format_number(spread, digits=digits, fixed=True)}"


def format_count(value: Any) -> str:
    """An integer with thousands separators, a dash when missing.

    Examples
    --------
    >>> format_count(1234567), format_count(None)
    ('1,234,567', '–')
    """
    return MISSING if is_missing(value) else f"{int(value):,}"


def format_percent(share: Any, *, digits: int = 0) -> str:
    """A share in [0, 1] as a percentage.

    Examples
    --------
    >>> format_percent(2 / 3), format_percent(0.0123, digits=1), format_percent(None)
    ('67%', '1.2%', '–')
    """
    return MISSING if is_missing(share) else f"{100 * float(share):.{digits}f}%"


def format_pvalue(p: Any, *, digits: int = 4) -> str:
    """A p-value with ``digits`` significant digits (scientific notation when tiny).

    Examples
    --------
    >>> format_pvalue(0.0312345), format_pvalue(1.9e-07), format_pvalue(float("nan"))
    ('0.03123', '1.9e−07', '–')
    """
    return MISSING if is_missing(p) else _minus(f"{float(p):.{digits}g}")


def format_rank(rank: Any) -> str:
    """A rank: an integer as is, a mean rank with two decimals.

    Examples
    --------
    >>> format_rank(2.0), format_rank(4 / 3), format_rank(None)
    ('2', '1.33', '–')
    """
    if is_missing(rank):
        return MISSING
    value = float(rank)
    return format_count(value) if value.is_integer() else format_number(value, digits=2)
