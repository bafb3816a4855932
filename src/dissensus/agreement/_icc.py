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
import numpy.typing as npt
import pandas as pd
from scipy import special, stats

from dissensus._exceptions import DataError
from dissensus._validation import SeedLike, check_option
from dissensus.agreement._common import FloatArray, degenerate
from dissensus.agreement._icc_reml import Design, bootstrap_components, fit_components
from dissensus.agreement._result import AgreementResult
from dissensus.data import Annotations
from dissensus.stats import (
    ConfidenceInterval,
    bootstrap_weights,
    percentile_interval,
    warn_few_items,
)

Kind = Literal["1,1", "A,1", "C,1", "1,k", "A,k", "C,k"]
KINDS = ("1,1", "A,1", "C,1", "1,k", "A,k", "C,k")
_ALIASES = {
    "ICC1": "1,1", "ICC2": "A,1", "ICC3": "C,1", "ICC1k": "1,k", "ICC2k": "A,k", "ICC3k": "C,k",
    "ICC(1,1)": "1,1", "ICC(2,1)": "A,1", "ICC(3,1)": "C,1",
    "ICC(1,k)": "1,k", "ICC(2,k)": "A,k", "ICC(3,k)": "C,k",
}  # fmt: skip


def check_kind(kind: str) -> str:
    """The McGraw-Wong name of ``kind`` (Shrout-Fleiss aliases accepted), or a ValueError."""
    kind = _ALIASES.get(kind, kind)
    check_option("icc", "kind", kind, KINDS)
    return kind


def _refuse_duplicates(data: Annotations) -> None:
    """A rater who rated a target twice is refused by name (pingouin averages silently)."""
    acodes, annotators = data._require_annotators("icc")
    cell = data.item_codes * len(annotators) + acodes
    uniq, first, counts = np.unique(cell, return_index=True, return_counts=True)
    if uniq.size == cell.size:
        return
    where = np.flatnonzero(counts > 1)
    row = int(first[where[0]])
    item = data.items[int(data.item_codes[row])]
    rater = annotators[int(acodes[row])]
    msg = (
        f"icc needs at most one rating per (target, rater); rater {rater!r} rated target "
        f"{item!r} {int(counts[where[0]])} times ({where.size} such pairs in all). An ICC model "
        "has no place for a repeated rating, and averaging them (as pingouin does silently) "
        "changes the coefficient; keep one (load with duplicates='first' or 'last') or make "
        "the repeat its own rater."
    )
    raise DataError(msg)


def _ratings(data: Any, nan_policy: str) -> tuple[FloatArray, int]:
    if isinstance(data, Annotations):
        if not data.scale.is_numeric:
            msg = f"icc needs numeric ratings; the scale is {data.scale!r}."
            raise DataError(msg)
        _refuse_duplicates(data)
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
    if nan_policy == "keep":
        return arr, 0
    complete = np.isfinite(arr).all(axis=1)
    n_excluded = int((~complete).sum())
    if n_excluded and nan_policy == "raise":
        rows = np.flatnonzero(~complete)
        msg = (
            f"icc needs every target rated by every rater (balanced data); {n_excluded} of "
            f"{arr.shape[0]} targets have missing ratings (rows {rows[:5].tolist()}). Pass "
            "method='reml' to fit the model to every rating (or nan_policy='omit' to drop those "
            "targets)."
        )
        raise DataError(msg)
    return arr[complete], n_excluded


def standardize(x: FloatArray) -> tuple[FloatArray, float]:
    """``(x - m) / u`` and ``u``: the ratings centred on their mean and divided by their spread.

    The ICC of ``a x + b`` is that of ``x`` (a > 0). Centring first on a rating (the
    smallest: the difference of two close floats is exact) and then on the mean keeps
    sums of squares of ratings near 1e9 from cancelling; ``u`` (the largest distance to
    the mean, so ``a x + b`` gives the same standardised ratings to rounding) keeps the
    REML optimiser's path and tolerances independent of the unit. NaN entries stay NaN.
    """
    finite = np.isfinite(x)
    if not finite.any():
        return x, 1.0
    z = x - np.min(x, where=finite, initial=np.inf)
    z = z - np.mean(z, where=finite)
    spread = float(np.max(np.abs(z), where=finite, initial=0.0))
    unit = spread if spread > 0 else 1.0
    return z / unit, unit


def icc(
    annotations: Annotations | pd.DataFrame | npt.ArrayLike,
    *,
    kind: Kind | str = "A,1",
    nan_policy: Literal["raise", "omit"] | None = None,
    method: Literal["anova", "reml", "ml"] = "anova",
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
    nan_policy : {"raise", "omit"}, optional
        Missing ratings: refused (``"raise"``, the default of
        ``method="anova"``) or their targets dropped (``"omit"``, counted in
        ``n_items_excluded``). With ``method="reml"`` or ``"ml"`` the default
        fits the model to every rating there is.
    method : {"anova", "reml", "ml"}, default "anova"
        ``"anova"``: the closed forms from the mean squares of a complete
        table, with the F-test and McGraw–Wong's exact intervals.
        ``"reml"`` / ``"ml"``: variance components of the mixed model by
        restricted / full maximum likelihood, for missing ratings and
        unbalanced designs (see Notes); equal to the closed forms on a
        complete table whenever those components are positive.

    Returns
    -------
    AgreementResult
        ``statistic`` the ICC, ``parts`` the mean squares and the F statistic
        with its degrees of freedom, ``pvalue`` of the F-test of ICC = 0.
        ``confidence_interval(confidence_level)`` is McGraw and Wong's exact
        F interval (``method="anova"``: the resampling options are not
        used), or the percentile bootstrap over targets of the refitted
        components (``"reml"`` / ``"ml"``, multinomial only).

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

    With ``method="reml"`` or ``"ml"`` the ratings :math:`y_{ij}` follow
    :math:`y_{ij} = \mu + r_i + e_{ij}` (``1``),
    :math:`\mu + r_i + c_j + e_{ij}` with random raters :math:`c_j`
    (``A``), or :math:`\mu_j + r_i + e_{ij}` with fixed rater means
    (``C``), and

    .. math::

        ICC(1,1) = ICC(C,1) = \frac{\sigma_r^2}{\sigma_r^2 + \sigma_e^2}, \quad
        ICC(A,1) = \frac{\sigma_r^2}{\sigma_r^2 + \sigma_c^2 + \sigma_e^2},

    and the ``k`` forms divide the error variances by :math:`\bar k`, the
    mean number of ratings per target (``k`` on a complete table). The
    components are fitted directly (profiled deviance over the variance
    ratios, analytic gradient, L-BFGS-B then Newton steps; see
    :mod:`dissensus.agreement._icc_reml`); they equal statsmodels'
    ``MixedLM`` to its tolerance. They are kept >= 0, so where a closed form
    is negative (:math:`MS_R < MS_E`) the REML value is 0, and where
    :math:`MS_C < MS_E` the rater variance is 0 and ``A`` differs from the
    closed form. The interval is the percentile bootstrap over targets
    (``n_resamples``, ``seed``), each resample refitted; ``pvalue`` is the
    likelihood-ratio test of :math:`\sigma_r^2 = 0` against the
    :math:`\tfrac12\chi^2_0 + \tfrac12\chi^2_1` boundary mixture (Self and
    Liang 1987). A rater who rated a target twice is refused (pingouin
    averages the two silently, which can move ICC(A,1) from 0.90 to −0.25).

    References
    ----------
    Shrout, P. E. and Fleiss, J. L. (1979). Intraclass correlations: uses in
    assessing rater reliability. *Psychological Bulletin* 86(2), 420–428.
    https://doi.org/10.1037/0033-2909.86.2.420

    McGraw, K. O. and Wong, S. P. (1996). Forming inferences about some
    intraclass correlation coefficients. *Psychological Methods* 1(1), 30–46.
    https://doi.org/10.1037/1082-989X.1.1.30

    Bates, D., Mächler, M., Bolker, B. and Walker, S. (2015). Fitting linear
    mixed-effects models using lme4. *Journal of Statistical Software*
    67(1). https://doi.org/10.18637/jss.v067.i01

    Self, S. G. and Liang, K.-Y. (1987). Asymptotic properties of maximum
    likelihood estimators and likelihood ratio tests under nonstandard
    conditions. *JASA* 82(398), 605–610. https://doi.org/10.1080/01621459.1987.10478472

    Examples
    --------
    Shrout and Fleiss' (1979) six targets rated by four judges:

    >>> x = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
    ...      [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> round(float(icc(x, kind="1,1")), 3), round(float(icc(x, kind="C,k")), 3)
    (0.166, 0.909)

    One rating missing: REML uses the other 23.

    >>> x[2][1] = float("nan")
    >>> r = icc(x, kind="A,1", method="reml")
    >>> round(float(r), 3), r.n_annotations
    (0.278, 23)
    """
    kind = check_kind(kind)
    check_option("icc", "nan_policy", nan_policy, ("raise", "omit", None))
    check_option("icc", "method", method, ("anova", "reml", "ml"))
    if method != "anova":
        return _icc_mixed(annotations, kind, method=method, nan_policy=nan_policy)
    x, n_excluded = _ratings(annotations, nan_policy or "raise")
    n, k = x.shape
    if n < 2 or k < 2:
        msg = f"icc needs at least 2 complete targets and 2 raters; got {n} × {k}."
        raise DataError(msg)
    x, rating_unit = standardize(x)
    grand = x.mean()
    return anova_icc(
        kind,
        n=n,
        k=k,
        ss_r=float(k * ((x.mean(axis=1) - grand) ** 2).sum()),
        ss_c=float(n * ((x.mean(axis=0) - grand) ** 2).sum()),
        ss_t=float(((x - grand) ** 2).sum()),
        n_excluded=n_excluded,
        rating_unit=rating_unit,
    )


def anova_icc(
    kind: str,
    *,
    n: int,
    k: int,
    ss_r: float,
    ss_c: float,
    ss_t: float,
    n_excluded: int = 0,
    rating_unit: float = 1.0,
) -> AgreementResult:
    r"""The ICC ``kind`` of a complete n × k table from its sums of squares.

    The one implementation of the closed forms, the F-test and McGraw and
    Wong's (1996) exact intervals, shared by :func:`icc` and the Dask engine
    (:func:`dissensus.distributed.icc`, which sums the squares per
    partition). With :math:`SS_R = k \sum_i (\bar y_{i\cdot} - \bar y)^2`,
    :math:`SS_C = n \sum_j (\bar y_{\cdot j} - \bar y)^2` and
    :math:`SS_T = \sum_{ij} (y_{ij} - \bar y)^2`:
    :math:`MS_R = SS_R / (n - 1)`, :math:`MS_C = SS_C / (k - 1)`,
    :math:`MS_E = (SS_T - SS_R - SS_C) / ((n - 1)(k - 1))`,
    :math:`MS_W = (SS_T - SS_R) / (n (k - 1))`; the coefficients are those
    of :func:`icc`'s Notes. The sums of squares may be of ratings divided by
    ``rating_unit`` (:func:`standardize`); the mean squares reported are in the ratings' unit.
    """
    # NumPy scalars: a zero mean square gives NaN/inf under errstate, not ZeroDivisionError
    ss_r, ss_c, ss_t = np.float64(ss_r), np.float64(ss_c), np.float64(ss_t)
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
    statistic = float(value)
    if not math.isfinite(statistic):
        note = degenerate(f"icc({kind})", "the ratings have no variance")
        statistic = math.nan
    pvalue = float(special.fdtrc(df1, df2, F)) if math.isfinite(F) else math.nan

    def exact(confidence_level: float, *_: object) -> ConfidenceInterval:
        if note:
            return ConfidenceInterval(math.nan, math.nan)
        a = (1.0 - confidence_level) / 2.0
        with np.errstate(invalid="ignore", divide="ignore"):
            if form in ("1", "C"):
                f_lo = F / special.fdtri(df1, df2, 1.0 - a)
                f_hi = F * special.fdtri(df2, df1, 1.0 - a)
                if unit == "1":
                    return ConfidenceInterval(
                        float((f_lo - 1.0) / (f_lo + k - 1.0)),
                        float((f_hi - 1.0) / (f_hi + k - 1.0)),
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

    return AgreementResult(
        name=f"icc({kind})",
        statistic=statistic,
        n_items=n,
        n_items_excluded=n_excluded,
        n_annotations=n * k,
        parts={
            "MS_R": ms_r * rating_unit**2,
            "MS_C": ms_c * rating_unit**2,
            "MS_E": ms_e * rating_unit**2,
            "MS_W": ms_w * rating_unit**2,
            "F": float(F),
            "df1": df1,
            "df2": df2,
        },
        pvalue=pvalue,
        note=note,
        _resampler=exact,
    )


def _icc_from(target: Any, rater: Any, residual: Any, *, form: str, unit: str, kbar: float) -> Any:
    """The ICC of ``kind = form,unit`` from fitted components (floats or arrays of them)."""
    error = np.add(residual, rater if form == "A" else 0.0)
    if unit == "k":
        error = error / kbar
    with np.errstate(invalid="ignore", divide="ignore"):
        return target / (target + error)


def _icc_mixed(ratings: Any, kind: str, *, method: str, nan_policy: str | None) -> AgreementResult:
    """ICC from REML / ML variance components (missing ratings allowed)."""
    form, unit = kind.split(",")
    x, n_excluded = _ratings(ratings, nan_policy or "keep")
    if x.shape[0] == 0 or x.ndim != 2:
        msg = "icc needs at least 2 targets and 2 raters; got none."
        raise DataError(msg)
    rated = np.isfinite(x)
    empty_targets = ~rated.any(axis=1)
    n_excluded += int(empty_targets.sum())
    x, rated = x[~empty_targets], rated[~empty_targets]
    x, rated = x[:, rated.any(axis=0)], rated[:, rated.any(axis=0)]
    n, k = x.shape
    if n < 2 or k < 2:
        msg = f"icc needs at least 2 rated targets and 2 raters; got {n} × {k}."
        raise DataError(msg)
    target, rater = np.nonzero(rated)
    # the fit is of standardised ratings: the ICC of a x + b is that of x (a > 0)
    y, rating_unit = standardize(x[target, rater])
    design = Design.build(y, target.astype(np.int64), rater.astype(np.int64), n=n, k=k, model=form)
    if y.size <= design.p + 1:
        msg = f"icc({kind}, method={method!r}) needs more ratings than parameters; got {y.size}."
        raise DataError(msg)
    reml = method == "reml"
    comp = fit_components(design, reml=reml)
    kbar = y.size / n
    value = float(
        _icc_from(comp.target, comp.rater, comp.residual, form=form, unit=unit, kbar=kbar)
    )
    note = (
        "" if math.isfinite(value) else degenerate(f"icc({kind})", "the ratings have no variance")
    )
    null = fit_components(design, reml=reml, fix_target_zero=True, start=comp.gamma)
    lrt = max(null.deviance - comp.deviance, 0.0)
    pvalue = 0.5 * float(stats.chi2.sf(lrt, 1)) if lrt > 0 else 1.0

    def targets(
        confidence_level: float, n_resamples: int, method_: str, bootstrap: str, seed: SeedLike
    ) -> ConfidenceInterval:
        if method_ != "percentile" or bootstrap != "multinomial":
            msg = f"icc({kind}, method={method!r}) gives percentile multinomial intervals only."
            raise ValueError(msg)
        if note:
            return ConfidenceInterval(math.nan, math.nan)
        warn_few_items(n)
        W = bootstrap_weights(n, n_resamples, seed=seed).astype(np.float64)
        # every resample is a weighted refit, all refitted together from the full-data optimum
        t, c, e = bootstrap_components(design, W, comp.gamma, reml=reml)
        boot = _icc_from(t, c, e, form=form, unit=unit, kbar=kbar)
        lo, hi = percentile_interval(boot, confidence_level=confidence_level)
        return ConfidenceInterval(float(lo), float(hi))

    return AgreementResult(
        name=f"icc({kind})",
        statistic=value,
        n_items=n,
        n_items_excluded=n_excluded,
        n_annotations=int(y.size),
        parts={
            "sigma2_target": comp.target * rating_unit**2,
            "sigma2_rater": comp.rater * rating_unit**2,
            "sigma2_residual": comp.residual * rating_unit**2,
            "k_mean": kbar,
            # r^2 scales by unit^2 in the nu log r^2 term of the profiled deviance
            "deviance": comp.deviance
            + (y.size - (design.p if reml else 0)) * math.log(rating_unit**2),
            "lrt": lrt,
        },
        pvalue=pvalue,
        note=note,
        _resampler=targets,
    )
