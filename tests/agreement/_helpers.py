"""Turn the layouts of ../shared/reference/agreement_cases.json into inputs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dissensus import LabelCounts, Scale


def decimals_tolerance(expected: float, tol: float) -> float:
    """The case tolerance, widened to half a unit of the printed last digit."""
    text = repr(float(expected))
    digits = len(text.split(".")[1]) if "." in text and "e" not in text else 6
    return max(tol, 0.5 * 10.0**-digits)


def rater_matrix(case: dict[str, Any]) -> tuple[np.ndarray, Scale]:
    """(N items, R raters) codes 0..K-1 with NaN, and the scale, from any rater layout."""
    cats = case["categories"]
    scale = Scale(tuple(cats))
    data = case["data"]
    if case["layout"] == "raters_x_items":
        data = list(map(list, zip(*data, strict=True)))
    codes = np.array(
        [[math.nan if v is None else float(scale.index(v)) for v in row] for row in data]
    )
    return codes, scale


def counts(case: dict[str, Any]) -> LabelCounts:
    """Label counts of a case in any layout."""
    if case["layout"] == "counts":
        return LabelCounts.from_array(case["data"], scale=case["categories"])
    codes, scale = rater_matrix(case)
    X = np.stack([(codes == k).sum(axis=1) for k in range(scale.K)], axis=1)
    return LabelCounts.from_array(X, scale=scale)


def pairable(lc: LabelCounts) -> LabelCounts:
    """Only the items with two or more ratings (to avoid the exclusion warning)."""
    return lc.take(lc.n >= 2)
