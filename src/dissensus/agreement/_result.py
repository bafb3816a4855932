"""The result object every agreement coefficient returns."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from dissensus._deprecation import deprecated_attribute
from dissensus.stats import ConfidenceInterval

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
    statistic : float
        The estimate (NaN when undefined; see ``note``); also ``float(result)``.
    se : float
        Analytic standard error where a standard one exists, else NaN.
    confidence_interval : ConfidenceInterval or None
        Bootstrap interval over items when asked for with ``confidence_level=``.
    confidence_level : float or None
        Coverage of ``confidence_interval``.
    n_items : int
        Items used.
    n_items_excluded : int
        Items left out (fewer than two ratings, or a missing side).
    n_annotations : int
        Ratings used.
    parts : Mapping[str, float]
        Components, e.g. ``observed_agreement`` and ``chance_agreement``.
    z, pvalue : float
        Test of the null of chance agreement where one is standard, else NaN.
    note : str
        Why the value is NaN or suspicious, empty otherwise.
    """

    name: str
    statistic: float
    se: float = math.nan
    confidence_interval: ConfidenceInterval | None = None
    confidence_level: float | None = None
    n_items: int = 0
    n_items_excluded: int = 0
    n_annotations: int = 0
    parts: Mapping[str, float] = field(default_factory=dict)
    z: float = math.nan
    pvalue: float = math.nan
    note: str = ""

    # documented names before the glossary (docs/glossary.md); removed in 1.0
    value = deprecated_attribute("value", "statistic")
    ci = deprecated_attribute("ci", "confidence_interval")
    ci_level = deprecated_attribute("ci_level", "confidence_level")
    p_value = deprecated_attribute("p_value", "pvalue")

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", MappingProxyType(dict(self.parts)))

    def __float__(self) -> float:
        return float(self.statistic)

    def _repr_html_(self) -> str:
        """Compact notebook view: one row with value, se, interval and items."""
        interval = (
            ""
            if self.confidence_interval is None
            else f"[{_fmt(self.confidence_interval.low)}, {_fmt(self.confidence_interval.high)}]"
        )
        level = (
            f" ({self.confidence_level:.0%})"
            if self.confidence_interval is not None and self.confidence_level
            else ""
        )
        cells = [
            self.name,
            _fmt(self.statistic),
            _fmt(self.se),
            interval + level,
            str(self.n_items),
        ]
        body = "".join(f"<td>{html.escape(c)}</td>" for c in cells)
        head = "".join(f"<th>{h}</th>" for h in ("coefficient", "value", "se", "interval", "items"))
        note = f"<caption>{html.escape(self.note)}</caption>" if self.note else ""
        return f"<table>{note}<thead><tr>{head}</tr></thead><tbody><tr>{body}</tr></tbody></table>"

    def __repr__(self) -> str:
        bits = [f"{self.name}={_fmt(self.statistic)}"]
        if not math.isnan(self.se):
            bits.append(f"se={_fmt(self.se)}")
        if self.confidence_interval is not None:
            level = f"{self.confidence_level:.0%} " if self.confidence_level is not None else ""
            bits.append(
                f"{level}CI=({_fmt(self.confidence_interval.low)}, {_fmt(self.confidence_interval.high)})"
            )
        bits.append(f"n_items={self.n_items}")
        if self.n_items_excluded:
            bits.append(f"excluded={self.n_items_excluded}")
        bits.extend(f"{k}={_fmt(v)}" for k, v in self.parts.items())
        if not math.isnan(self.z):
            bits.append(f"z={_fmt(self.z)}, p={_fmt(self.pvalue)}")
        if self.note:
            bits.append(f"note={self.note!r}")
        return f"AgreementResult({', '.join(bits)})"
