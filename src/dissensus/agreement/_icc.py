r"""Intraclass correlation coefficients: the six Shrout-Fleiss / McGraw-Wong forms.

Notation (McGraw and Wong 1996). ``n`` targets (rows) rated by the same
``k`` raters (columns) on an interval scale. Mean squares of a two-way
ANOVA without replication: ``MS_R`` between targets (``n - 1`` df),
``MS_C`` between raters (``k - 1`` df), ``MS_E`` residual
(``(n - 1)(k - 1)`` df), and of a one-way ANOVA ``MS_W`` within targets
(``n (k - 1)`` df).
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import special

from dissensus._deprecation import renamed_parameters
from dissensus._exceptions import DataError
from dissensus._validation import check_option, check_probability_level
from dissensus.agreement._common import FloatArray, degenerate
from dissensus.agreement._result import AgreementResult
from dissensus.data import Annotations
from dissensus.stats._bootstrap import ConfidenceInterval

__all__ = ["icc"]

Kind = Literal["1,1", "A,1", "C,1", "1,k", "A,k", "C,k"]
KINDS = ("1,1", "A,1", "C,1", "1,k", "A,k", "C,k")
_ALIASES = {
    "ICC1": "1,1", "ICC2": "A,1", "ICC3": "C,1", "ICC1k": "1,k", "ICC2k": "A,k", "ICC3k": "C,k",
    "ICC(1,1)": "1,1", "ICC(2,1)": "A,1", "ICC(3,1)": "C,1",
    "ICC(1,k)": "1,k", "ICC(2,k)": "A,k", "ICC(3,k)": "C,k",
}  # fmt: skip


def _ratings(data: Any, nan_policy: str) -> tuple[FloatArray, int]:
    if isinstance(data, Annotations):
        if not data.scale.is_numeric:
            msg = f"icc needs numeric ratings; the scale is {data.scale!r}."
            raise DataError(msg)
        codes = data.rater_matrix()
        values = data.scale.values  # noqa: PD011 -- Scale.values is an ndarray
        ok = np.isfinite(codes)
        arr = np.where(ok, values[np.where(ok, codes, 0).astype(np.int64)], np.nan)
    elif isinstance(data, pd.DataFrame):
        arr = data.to_numpy(dtype=np.float64)
    else:
        arr = np.asarray(data, dtype=np.float64)
    if arr.ndim != 2:
        msg = f"`ratings` must be a 2-D (n targets, k raters) array; got shape {arr.shape}."
        raise DataError(msg)
    complete = np.isfinite(arr).all(axis=1)
    n_excluded = int((~complete).sum())
    if n_excluded and nan_policy == "raise":
        rows = np.flatnonzero(~complete)
        msg = (
            f"icc needs every target rated by every rater (balanced data); {n_excluded} of "
            f"{arr.shape[0]} targets have missing ratings (rows {rows[:5].tolist()}). Pass "
            "nan_policy='omit' to drop those targets, or use krippendorff_alpha(level="
            "'interval'), which handles missing ratings."
        )
        raise DataError(msg)
    return arr[complete], n_excluded


@renamed_parameters(ci="confidence_level", ratings="annotations")
def icc(
    annotations: Any,
    *,
    kind: Kind | str = "A,1",
    confidence_level: float | None = 0.95,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> AgreementResult:
    r"""Intraclass correlation of interval ratings, with its F-test and exact CI.

    Parameters
    ----------
    annotations : array_like or DataFrame of shape (n targets, k raters), or Annotations
        Numeric ratings; Annotations need a numeric scale and annotator ids.
    kind : {"1,1", "A,1", "C,1", "1,k", "A,k", "C,k"}, default "A,1"
        McGraw-Wong form: one-way random (``1``), two-way absolute agreement
        (``A``) or consistency (``C``), of a single rating (``1``) or of the
        mean of ``k`` ratings (``k``). Shrout-Fleiss names ``"ICC1"``,
        ``"ICC2"``, ``"ICC3"``, ``"ICC1k"``, ``"ICC2k"``, ``"ICC3k"`` are
        accepted too.
    confidence_level : float or None, default 0.95
        Coverage of the F-distribution confidence interval.
    nan_policy : {"raise", "omit"}, default "raise"
        Unbalanced data (missing ratings) is refused unless ``"omit"``
        drops the incomplete targets (counted in ``n_items_excluded``).

    Returns
    -------
    AgreementResult
        ``statistic`` the ICC, ``confidence_interval`` the exact interval, ``parts`` the mean
        squares and the F statistic with its degrees of freedom,
        ``pvalue`` of the F-test of ICC = 0.

    Raises
    ------
    DataError
        For missing ratings with ``nan_policy="raise"``, or fewer than two
        targets or raters.

    Notes
    -----
    .. math::

        ICC(1,1) = \frac{MS_R - MS_W}{MS_R + (k-1) MS_W}, \quad
        ICC(A,1) = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E + \frac{k}{n}(MS_C - MS_E)}, \quad
        ICC(C,1) = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E},

        ICC(1,k) = \frac{MS_R - MS_W}{MS_R}, \quad
        ICC(A,k) = \frac{MS_R - MS_E}{MS_R + (MS_C - MS_E)/n}, \quad
        ICC(C,k) = \frac{MS_R - MS_E}{MS_R}.

    The F-test uses :math:`MS_R / MS_W` for the one-way forms and
    :math:`MS_R / MS_E` otherwise; the intervals are those of McGraw and
    Wong (1996, Table 7), with Satterthwaite degrees of freedom for ``A``.

    References
    ----------
    Shrout, P. E. and Fleiss, J. L. (1979). Intraclass correlations: uses in
    assessing rater reliability. *Psychological Bulletin* 86(2), 420–428.
    https://doi.org/10.1037/0033-2909.86.2.420

    McGraw, K. O. and Wong, S. P. (1996). Forming inferences about some
    intraclass correlation coefficients. *Psychological Methods* 1(1), 30–46.
    https://doi.org/10.1037/1082-989X.1.1.30

    Examples
    --------
    Shrout and Fleiss' (1979) six targets rated by four judges:

    >>> x = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
    ...      [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> round(float(icc(x, kind="1,1")), 3), round(float(icc(x, kind="C,k")), 3)
    (0.166, 0.909)
    """
    kind = _ALIASES.get(kind, kind)
    check_option("icc", "kind", kind, KINDS)
    check_option("icc", "nan_policy", nan_policy, ("raise", "omit"))
    level = (
        None
        if confidence_level is None
        else check_probability_level("icc", "confidence_level", confidence_level)
    )
    x, n_excluded = _ratings(annotations, nan_policy)
    n, k = x.shape
    if n < 2 or k < 2:
        msg = f"icc needs at least 2 complete targets and 2 raters; got {n} × {k}."
        raise DataError(msg)
    grand = x.mean()
    ss_r = k * ((x.mean(axis=1) - grand) ** 2).sum()
    ss_c = n * ((x.mean(axis=0) - grand) ** 2).sum()
    ss_t = ((x - grand) ** 2).sum()
    ss_e = ss_t - ss_r - ss_c
    ms_r = ss_r / (n - 1)
    ms_c = ss_c / (k - 1)
    ms_e = ss_e / ((n - 1) * (k - 1))
    ms_w = (ss_c + ss_e) / (n * (k - 1))
    form, unit = kind.split(",")
    note = ""
    with np.errstate(invalid="ignore", divide="ignore"):
        if form == "1":
            value = (ms_r - ms_w) / (ms_r + (k - 1) * ms_w) if unit == "1" else (ms_r - ms_w) / ms_r
            F, df1, df2 = ms_r / ms_w, n - 1.0, n * (k - 1.0)
        elif form == "C":
            value = (ms_r - ms_e) / (ms_r + (k - 1) * ms_e) if unit == "1" else (ms_r - ms_e) / ms_r
            F, df1, df2 = ms_r / ms_e, n - 1.0, (n - 1.0) * (k - 1.0)
        else:
            value = (
                (ms_r - ms_e) / (ms_r + (k - 1) * ms_e + k * (ms_c - ms_e) / n)
                if unit == "1"
                else (ms_r - ms_e) / (ms_r + (ms_c - ms_e) / n)
            )
            F, df1, df2 = ms_r / ms_e, n - 1.0, (n - 1.0) * (k - 1.0)
    value = float(value)
    if not math.isfinite(value):
        note = degenerate(f"icc({kind})", "the ratings have no variance")
        value = math.nan
    pvalue = float(special.fdtrc(df1, df2, F)) if math.isfinite(F) else math.nan
    interval = None
    if level is not None and not note:
        interval = _icc_ci(
            form, unit, level, n=n, k=k, F=F, df1=df1, df2=df2, ms_r=ms_r, ms_c=ms_c, ms_e=ms_e
        )
    return AgreementResult(
        name=f"icc({kind})",
        statistic=value,
        confidence_interval=interval,
        confidence_level=level if interval is not None else None,
        n_items=n,
        n_items_excluded=n_excluded,
        n_annotations=n * k,
        parts={
            "MS_R": ms_r,
            "MS_C": ms_c,
            "MS_E": ms_e,
            "MS_W": ms_w,
            "F": float(F),
            "df1": df1,
            "df2": df2,
        },
        pvalue=pvalue,
        note=note,
    )


def _icc_ci(
    form: str,
    unit: str,
    level: float,
    *,
    n: int,
    k: int,
    F: float,
    df1: float,
    df2: float,
    ms_r: float,
    ms_c: float,
    ms_e: float,
) -> ConfidenceInterval:
    a = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        if form in ("1", "C"):
            f_lo = F / special.fdtri(df1, df2, 1.0 - a)
            f_hi = F * special.fdtri(df2, df1, 1.0 - a)
            if unit == "1":
                return ConfidenceInterval(
                    float((f_lo - 1.0) / (f_lo + k - 1.0)), float((f_hi - 1.0) / (f_hi + k - 1.0))
                )
            return ConfidenceInterval(float(1.0 - 1.0 / f_lo), float(1.0 - 1.0 / f_hi))
        # Two-way random, absolute agreement: Satterthwaite df (McGraw & Wong 1996).
        rho = (ms_r - ms_e) / (ms_r + (k - 1) * ms_e + k * (ms_c - ms_e) / n)
        fj = ms_c / ms_e
        vn = (k - 1) * (n - 1) * (k * rho * fj + n * (1 + (k - 1) * rho) - k * rho) ** 2
        vd = (n - 1) * k**2 * rho**2 * fj**2 + (n * (1 + (k - 1) * rho) - k * rho) ** 2
        v = vn / vd
        f_u = special.fdtri(n - 1, v, 1.0 - a)
        f_l = special.fdtri(v, n - 1, 1.0 - a)
        lo = n * (ms_r - f_u * ms_e) / (f_u * (k * ms_c + (k * n - k - n) * ms_e) + n * ms_r)
        hi = n * (f_l * ms_r - ms_e) / (k * ms_c + (k * n - k - n) * ms_e + n * f_l * ms_r)
        if unit == "k":
            lo, hi = lo * k / (1 + lo * (k - 1)), hi * k / (1 + hi * (k - 1))
    return ConfidenceInterval(float(lo), float(hi))
