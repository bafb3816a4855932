r"""Benchmark scales for agreement coefficients, and Gwet's benchmarking procedure.

The scales (Landis and Koch 1977, Fleiss 1981, Altman 1991) are conventions
proposed for kappa, not properties of the data: they ignore the number of
categories, prevalence and the uncertainty of the estimate. Gwet's (2014,
ch. 6) procedure answers the last objection: with :math:`\hat\kappa` and its
standard error, the probability that the true coefficient lies in the
interval :math:`[a, b)` of a benchmark is

.. math:: P_{ab} = \frac{\Phi\big((\hat\kappa - a)/se\big) - \Phi\big((\hat\kappa - b)/se\big)}
                        {\Phi\big((\hat\kappa + 1)/se\big) - \Phi\big((\hat\kappa - 1)/se\big)}

(normal, truncated to :math:`[-1, 1]`); cumulating from the top interval
down, the benchmark retained is the first whose cumulative probability
reaches the threshold (0.95).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import special

from dissensus._validation import check_option, check_probability_level
from dissensus.agreement._result import AgreementResult

BenchmarkScale = Literal["landis_koch", "fleiss", "altman"]

#: (lower bound, upper bound, label), highest interval first.
BENCHMARK_SCALES: dict[str, tuple[tuple[float, float, str], ...]] = {
    "landis_koch": (
        (0.8, 1.0, "almost perfect"),
        (0.6, 0.8, "substantial"),
        (0.4, 0.6, "moderate"),
        (0.2, 0.4, "fair"),
        (0.0, 0.2, "slight"),
        (-1.0, 0.0, "poor"),
    ),
    "fleiss": ((0.75, 1.0, "excellent"), (0.4, 0.75, "intermediate to good"), (-1.0, 0.4, "poor")),
    "altman": (
        (0.8, 1.0, "very good"),
        (0.6, 0.8, "good"),
        (0.4, 0.6, "moderate"),
        (0.2, 0.4, "fair"),
        (-1.0, 0.2, "poor"),
    ),
}


def _scale(scale: str, func: str) -> tuple[tuple[float, float, str], ...]:
    check_option(func, "scale", scale, tuple(BENCHMARK_SCALES))
    return BENCHMARK_SCALES[scale]


def interpret_agreement(
    value: float | AgreementResult, *, scale: BenchmarkScale = "landis_koch"
) -> str:
    """The label of the benchmark interval a coefficient falls in (a convention).

    Parameters
    ----------
    value : float or AgreementResult
        The coefficient.
    scale : {"landis_koch", "fleiss", "altman"}, default "landis_koch"
        The benchmark scale (see :data:`BENCHMARK_SCALES`). Intervals are
        closed below: 0.6 is "substantial" on Landis–Koch.

    Returns
    -------
    str
        The label; ``"undefined"`` for NaN.

    Notes
    -----
    The point estimate alone ignores its uncertainty; prefer
    :func:`benchmark_agreement`, which takes the standard error into
    account (Gwet 2014). The scales' sources are listed under
    :func:`benchmark_agreement`.

    Examples
    --------
    >>> interpret_agreement(0.41), interpret_agreement(0.41, scale="fleiss")
    ('moderate', 'intermediate to good')
    """
    bands = _scale(scale, "interpret_agreement")
    x = float(value)
    if math.isnan(x):
        return "undefined"
    for low, _high, label in bands:
        if x >= low:
            return label
    return bands[-1][2]


@dataclass(frozen=True)
class BenchmarkResult:
    """Gwet's benchmarking of one coefficient on one scale.

    Attributes
    ----------
    label : str
        The retained benchmark: the highest interval whose cumulative
        membership probability reaches ``threshold``.
    table : pandas.DataFrame
        One row per interval, highest first: ``low``, ``high``, ``label``,
        ``probability`` (that the true coefficient is in it) and
        ``cumulative``.
    statistic, standard_error : float
        The coefficient and its standard error.
    scale : str
        The benchmark scale.
    threshold : float
        The cumulative probability required.
    """

    label: str
    table: pd.DataFrame
    statistic: float
    standard_error: float
    scale: str
    threshold: float

    def __str__(self) -> str:
        return self.label


def benchmark_agreement(
    result: float | AgreementResult,
    *,
    standard_error: float | None = None,
    scale: BenchmarkScale = "landis_koch",
    threshold: float = 0.95,
) -> BenchmarkResult:
    """Gwet's benchmarking: where the true coefficient lies, with its uncertainty.

    Parameters
    ----------
    result : AgreementResult or float
        A coefficient with a standard error (``result.standard_error``), or a
        value with ``standard_error=``.
    standard_error : float, optional
        Standard error, overriding ``result.standard_error`` (e.g. a bootstrap standard
        error for Krippendorff's alpha, which has no analytic one here).
    scale : {"landis_koch", "fleiss", "altman"}, default "landis_koch"
        The benchmark scale (a convention; see :data:`BENCHMARK_SCALES`).
    threshold : float, default 0.95
        Cumulative probability that the retained interval (and all above it,
        down to it) must reach.

    Returns
    -------
    BenchmarkResult
        ``label`` and the per-interval ``table``.

    Raises
    ------
    ValueError
        Without a finite positive standard error, or a NaN coefficient.

    Notes
    -----
    See the module formula. The membership probabilities use the normal
    approximation truncated to ``[-1, 1]``, as Gwet and irrCAC's
    ``Benchmark`` do.

    References
    ----------
    Landis, J. R. and Koch, G. G. (1977). The measurement of observer
    agreement for categorical data. *Biometrics* 33(1), 159–174.
    https://doi.org/10.2307/2529310

    Fleiss, J. L. (1981). *Statistical Methods for Rates and Proportions*,
    2nd ed. Wiley.

    Altman, D. G. (1991). *Practical Statistics for Medical Research*.
    Chapman and Hall.

    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability*, 4th ed.,
    Advanced Analytics, ch. 6 (benchmarking).

    Examples
    --------
    Gwet's example (irrCAC): kappa 0.67 with standard error 0.15 is "good" by
    its point on Altman's scale, but only "moderate" is reached with 95%:

    >>> b = benchmark_agreement(0.67, standard_error=0.15, scale="altman")
    >>> b.label, b.table["cumulative"].round(5).tolist()
    ('moderate', [0.18168, 0.67511, 0.96356, 0.99912, 1.0])
    """
    func = "benchmark_agreement"
    bands = _scale(scale, func)
    threshold = check_probability_level(func, "threshold", threshold)
    value = float(result)
    s = (
        float(standard_error)
        if standard_error is not None
        else float(getattr(result, "standard_error", math.nan))
    )
    if not (math.isfinite(s) and s > 0):
        msg = (
            f"{func} needs a finite positive standard error; got {s!r}. Pass standard_error=... (for "
            "Krippendorff's alpha, e.g. the standard deviation of bootstrap replicates)."
        )
        raise ValueError(msg)
    if math.isnan(value):
        msg = f"{func}: the coefficient is NaN (undefined), so it has no benchmark."
        raise ValueError(msg)
    low = np.array([b[0] for b in bands])
    high = np.array([b[1] for b in bands])
    total = special.ndtr((value + 1.0) / s) - special.ndtr((value - 1.0) / s)
    prob = (special.ndtr((value - low) / s) - special.ndtr((value - high) / s)) / total
    cum = np.cumsum(prob)
    reached = np.flatnonzero(cum >= threshold - 1e-12)
    pick = int(reached[0]) if reached.size else len(bands) - 1
    table = pd.DataFrame(
        {
            "low": low,
            "high": high,
            "label": [b[2] for b in bands],
            "probability": prob,
            "cumulative": cum,
        }
    )
    return BenchmarkResult(
        label=bands[pick][2],
        table=table,
        statistic=value,
        standard_error=s,
        scale=scale,
        threshold=threshold,
    )
