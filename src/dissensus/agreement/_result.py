"""The result object every agreement coefficient returns."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from dissensus.stats._bootstrap import ConfidenceInterval

__all__ = ["AgreementResult"]


def _fmt(x: float | None) -> str:
    if x is None:
        return "None"
    return "nan" if math.isnan(x) else f"{x:.6g}"


@dataclass(frozen=True)
class AgreementResult:
    """An agreement coefficient with its parts, uncertainty and bookkeeping.

    Attributes
    ----------
    name : str
        The coefficient, e.g. ``"fleiss_kappa"``.
    value : float
        The estimate (NaN when undefined; see ``note``).
    se : float
        Analytic standard error where a standard one exists, else NaN.
    ci : ConfidenceInterval or None
        Bootstrap interval over items when asked for with ``ci=``.
    ci_level : float or None
        Coverage of ``ci``.
    n_items : int
        Items used.
    n_items_excluded : int
        Items left out (fewer than two ratings, or a missing side).
    n_annotations : int
        Ratings used.
    parts : Mapping[str, float]
        Components, e.g. ``observed_agreement`` and ``chance_agreement``.
    z, p_value : float
        Test of the null of chance agreement where one is standard, else NaN.
    note : str
        Why the value is NaN or suspicious, empty otherwise.
    """

    name: str
    value: float
    se: float = math.nan
    ci: ConfidenceInterval | None = None
    ci_level: float | None = None
    n_items: int = 0
    n_items_excluded: int = 0
    n_annotations: int = 0
    parts: Mapping[str, float] = field(default_factory=dict)
    z: float = math.nan
    p_value: float = math.nan
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", MappingProxyType(dict(self.parts)))

    def __float__(self) -> float:
        return float(self.value)

    def _repr_html_(self) -> str:
        """Compact notebook view: one row with value, se, interval and items."""
        ci = "" if self.ci is None else f"[{_fmt(self.ci.low)}, {_fmt(self.ci.high)}]"
        level = f" ({self.ci_level:.0%})" if self.ci is not None and self.ci_level else ""
        cells = [self.name, _fmt(self.value), _fmt(self.se), ci + level, str(self.n_items)]
        body = "".join(f"<td>{html.escape(c)}</td>" for c in cells)
        head = "".join(f"<th>{h}</th>" for h in ("coefficient", "value", "se", "interval", "items"))
        note = f"<caption>{html.escape(self.note)}</caption>" if self.note else ""
        return f"<table>{note}<thead><tr>{head}</tr></thead><tbody><tr>{body}</tr></tbody></table>"

    def __repr__(self) -> str:
        bits = [f"{self.name}={_fmt(self.value)}"]
        if not math.isnan(self.se):
            bits.append(f"se={_fmt(self.se)}")
        if self.ci is not None:
            level = f"{self.ci_level:.0%} " if self.ci_level is not None else ""
            bits.append(f"{level}CI=({_fmt(self.ci.low)}, {_fmt(self.ci.high)})")
        bits.append(f"n_items={self.n_items}")
        if self.n_items_excluded:
            bits.append(f"excluded={self.n_items_excluded}")
        bits.extend(f"{k}={_fmt(v)}" for k, v in self.parts.items())
        if not math.isnan(self.z):
            bits.append(f"z={_fmt(self.z)}, p={_fmt(self.p_value)}")
        if self.note:
            bits.append(f"note={self.note!r}")
        return f"AgreementResult({', '.join(bits)})"
