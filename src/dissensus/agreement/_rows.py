r"""Count-based coefficients from distinct count rows and their multiplicities.

The one finaliser of the agreement table's count-based rows, for both engines:
:func:`dissensus.agreement.report` gives it the distinct rows of the items in
memory, :func:`dissensus.distributed.agreement` the rows merged from its
partitions. Both sum ``m_u f(P_u)`` over the same rows in the same order
(sorted), so the two engines print bit-identical tables. Each item sum
:math:`\sum_i f(x_i)` of a coefficient is written :math:`\sum_u m_u f(P_u)`.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from dissensus._exceptions import DegenerateAgreementWarning
from dissensus.agreement._alpha import (
    LEVELS,
    alpha_from_coincidences,
    alpha_item_terms,
    alpha_linear_terms,
    alpha_row_stats,
    alpha_weights,
    level_metric,
    level_values,
)
from dissensus.agreement._common import agreement_weights, require_order
from dissensus.agreement._multirater import (
    Chance,
    chance_agreement_of,
    item_terms,
    linearised_terms,
)
from dissensus.agreement._result import AgreementResult
from dissensus.data import Scale

FloatArray = npt.NDArray[np.float64]

#: Chance-corrected count coefficients: (chance model, agreement weights).
KAPPAS: dict[str, tuple[Chance, str | None]] = {
    "fleiss_kappa": ("fleiss", None),
    "gwet_ac2_quadratic": ("gwet", "quadratic"),
    "gwet_ac1": ("gwet", None),
    "brennan_prediger": ("uniform", None),
}
ALPHA_NAMES = tuple(
    "krippendorff_alpha" if lvl == "nominal" else f"krippendorff_alpha_{lvl}" for lvl in LEVELS
)


def _note(name: str, N: int, K: int) -> str:
    """Why ``name`` is undefined, in the words of the in-memory coefficient."""
    alpha = name in ALPHA_NAMES
    name = "krippendorff_alpha" if alpha else name.removesuffix("_quadratic")  # gwet_ac2
    if not N:
        reason = "no item has two or more " + (
            "values (nothing is pairable)" if alpha else "ratings"
        )
    elif name.startswith("gwet") and K < 2:
        reason = "the scale has a single category"
    elif alpha:
        reason = "the expected disagreement is 0 (every pairable value is the same, so there is no variation to agree on)"
    else:
        reason = "chance agreement is 1 (every rating falls in one category, so the expected disagreement is 0)"
    return f"{name} is undefined: {reason}"


def alpha_level(name: str) -> str:
    return name.removeprefix("krippendorff_alpha").removeprefix("_") or "nominal"


def row_terms(X: FloatArray, Ms: Sequence[FloatArray]) -> dict[str, FloatArray]:
    """Per-item (or per-row) terms of the coefficients: agreement under each ``M``, shares, etc."""
    Xt = np.ascontiguousarray(X.T)
    K = X.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):  # an empty partition is fine
        out = {f"pa{j}": item_terms(Xt, M).pa_i for j, M in enumerate(Ms)}
        out["shares"] = X / X.sum(axis=1)[:, None]
    out["unanimous"] = (X.max(axis=1) == X.sum(axis=1)).astype(np.float64)
    out["coinc"] = alpha_row_stats(Xt, "ordinal", None)[1].reshape(-1, K * K)
    return out


def statistics_of_sums(
    sums: dict[str, FloatArray], names: Sequence[str], Ms: Sequence[FloatArray], scale: Scale
) -> dict[str, FloatArray]:
    """Each coefficient (and each kappa's ``pe:<name>``) of weighted sums, one row per resample.

    ``sums`` are :func:`_item_values` summed with weights whose totals are ``sums["w"]``.
    """
    K = scale.K
    w = sums["w"]
    out: dict[str, FloatArray] = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        pi = sums["shares"] / w[:, None]
        out["share_unanimous"] = sums["unanimous"] / w
        out["observed_agreement"] = sums["pa0"] / w
        out["chance_agreement"] = chance_agreement_of(pi, Ms[0], "fleiss")
        for name in names:
            if name in KAPPAS:
                chance, weights = KAPPAS[name]
                j = int(weights is not None)
                pe = out[f"pe:{name}"] = chance_agreement_of(pi, Ms[j], chance)
                out[f"pa:{name}"] = sums[f"pa{j}"] / w
                out[name] = (out[f"pa:{name}"] - pe) / (1.0 - pe)
            elif name in ALPHA_NAMES:
                lvl = alpha_level(name)
                o = sums["coinc"].reshape(-1, K, K)
                out[name] = alpha_from_coincidences(o, lvl, level_values(scale, lvl))
    return out


def _kappa_se(
    P: FloatArray, m: FloatArray, M: FloatArray, chance: Chance, *, value: float, pe: float
) -> float:
    r"""Gwet's linearised SE :math:`\sqrt{\sum_u m_u (k_u - \kappa)^2 / (N (N - 1))}`, per row.

    NaN below two items (as :func:`_alpha_se`): the formula divides by :math:`N - 1`.
    """
    N = m.sum()
    if N < 2:
        return math.nan
    it = item_terms(np.ascontiguousarray(P.T), M)
    it = dataclasses.replace(it, pi=(m @ (P / it.n[:, None])) / N)  # the shares of all items
    k = linearised_terms(it, M, chance, value=value, pe=pe) - value
    return math.sqrt(float(m @ (k * k)) / (N * (N - 1.0)))


def _alpha_se(P: FloatArray, m: FloatArray, scale: Scale, lvl: str) -> float:
    """Gwet's linearised SE of alpha at a fixed-distance level (NaN at the ordinal level)."""
    N = m.sum()
    if lvl == "ordinal":  # distances depend on the data: no linearised SE, as in memory
        return math.nan
    v = level_values(scale, lvl)
    delta = 1.0 - np.eye(scale.K) if lvl == "nominal" else level_metric(lvl, v, None)
    W = alpha_weights(delta)
    if W is None or N < 2:
        return math.nan
    Y = alpha_item_terms(np.ascontiguousarray(P.T), W)
    mean = (m @ Y) / N
    terms = alpha_linear_terms(int(N), mean[0], mean[1], mean[2:], W)
    if terms is None:
        return math.nan
    a0, a = terms
    k = a0 + Y @ a
    return math.sqrt(float(m @ (k * k)) / (N * (N - 1.0)))


def count_weights(scale: Scale) -> list[FloatArray]:
    """The agreement weights of the count rows: identity, then quadratic (Gwet's AC2).

    Quadratic weights need the labels' order: without one (text labels inferred
    from the data) they are NaN, and :func:`count_row_results` refuses AC2.
    """
    if not (scale.ordered or scale.is_numeric or scale.K <= 2):
        return [np.eye(scale.K), np.full((scale.K, scale.K), np.nan)]
    return [np.eye(scale.K), agreement_weights("quadratic", scale).to_numpy(np.float64)]


def count_row_results(
    rows: npt.ArrayLike,
    mult: npt.ArrayLike,
    scale: Scale,
    names: Sequence[str],
    *,
    n_excluded: int = 0,
) -> dict[str, AgreementResult]:
    """Coefficients ``names`` of the distinct count rows ``rows`` seen ``mult`` times each.

    Statistic, linearised standard error, parts and note of each coefficient
    (no ``z``/``pvalue``; no interval: the caller attaches its resampler).
    Rows are sorted first, so any order of the same rows gives the same bits.
    """
    P = np.asarray(rows, dtype=np.float64).reshape(-1, scale.K)
    m = np.asarray(mult, dtype=np.float64)
    order = np.lexsort(P.T[::-1])
    P, m = P[order], m[order]
    N = int(m.sum())
    if "gwet_ac2_quadratic" in names:
        require_order(scale, "Gwet's AC2 with quadratic weights")
    Ms = count_weights(scale)
    sums = {k: np.asarray(m @ v)[None] for k, v in row_terms(P, Ms).items()}
    stats = statistics_of_sums({**sums, "w": np.array([float(N)])}, names, Ms, scale)
    point = {k: float(v[0]) for k, v in stats.items()}
    for name in KAPPAS:
        if name in point and point[f"pe:{name}"] >= 1.0 - 1e-12:
            point[name] = math.nan  # every rating in one category: no chance-corrected value
    n_annotations = int(m @ P.sum(axis=1))
    out: dict[str, AgreementResult] = {}
    for name in names:
        value = point[name] if N else math.nan
        se, note, parts = math.nan, "", dict[str, float]()
        if name in KAPPAS:
            pe = point[f"pe:{name}"]
            parts = {"observed_agreement": point[f"pa:{name}"], "chance_agreement": pe}
            if math.isfinite(value):
                chance, weights = KAPPAS[name]
                se = _kappa_se(P, m, Ms[weights is not None], chance, value=value, pe=pe)
        elif name in ALPHA_NAMES and math.isfinite(value):
            se = _alpha_se(P, m, scale, alpha_level(name))
        elif name == "share_unanimous" and N:
            se = math.sqrt(value * (1.0 - value) / N)
        if not math.isfinite(value):  # the in-memory coefficient's note
            note = _note(name, N, scale.K)
            warnings.warn(note, DegenerateAgreementWarning, stacklevel=3)
        out[name] = AgreementResult(
            name=name, statistic=value, standard_error=se, n_items=N, n_items_excluded=n_excluded,
            n_annotations=n_annotations, parts=parts, note=note,
        )  # fmt: skip
    return out
