r"""Count-based agreement of distributed counts, from their distinct count rows.

Each partition sends its distinct count rows (items with two or more ratings)
and their multiplicities, which merge exactly: a few thousand rows, whatever the
number of items, finalised with the formulas of :mod:`dissensus.agreement`
(Notes of :func:`agreement`). The Poisson bootstrap weights of
:func:`dissensus.stats.poisson_weights` depend on (seed, item id, resample)
only, so the intervals do not depend on the partitioning.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from dissensus._exceptions import DegenerateAgreementWarning
from dissensus._validation import SeedLike, check_option, check_probability_level, examples
from dissensus.agreement import AgreementResult, Resampler, agreement_weights
from dissensus.agreement.kernels import (
    LEVELS,
    alpha_from_coincidences,
    alpha_item_terms,
    alpha_linear_terms,
    alpha_row_stats,
    alpha_weights,
    chance_agreement_of,
    item_terms,
    level_metric,
    level_values,
    linearised_terms,
)
from dissensus.data import Scale
from dissensus.distributed._common import FloatArray, compute, dask_modules, merge
from dissensus.distributed._counts import DistributedCounts, rows_of
from dissensus.stats import ConfidenceInterval, item_keys, percentile_interval, poisson_weights

Chance = Literal["fleiss", "gwet", "uniform"]
#: Chance-corrected count coefficients: (chance model, agreement weights).
_KAPPAS: dict[str, tuple[Chance, str | None]] = {
    "fleiss_kappa": ("fleiss", None),
    "gwet_ac2_quadratic": ("gwet", "quadratic"),
    "gwet_ac1": ("gwet", None),
    "brennan_prediger": ("uniform", None),
}
_ALPHAS = tuple(
    "krippendorff_alpha" if lvl == "nominal" else f"krippendorff_alpha_{lvl}" for lvl in LEVELS
)
#: Every coefficient :func:`agreement` computes (alpha at each level of measurement).
COEFFICIENTS = (
    "share_unanimous", "fleiss_kappa", "observed_agreement", "chance_agreement",
    "krippendorff_alpha", "gwet_ac2_quadratic", "gwet_ac1", "brennan_prediger",
)  # fmt: skip
#: Intervals already computed, by (confidence level, resamples, seed), then coefficient.
_Cache = dict[tuple[float, int, int], dict[str, ConfidenceInterval]]
#: float64 intermediates per chunk of bootstrap weights inside a partition.
_CHUNK_FLOATS = 4_000_000


def _note(name: str, N: int, K: int) -> str:
    """Why ``name`` is undefined, in the words of the in-memory coefficient."""
    alpha = name in _ALPHAS
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


def _alpha_level(name: str) -> str:
    return name.removeprefix("krippendorff_alpha").removeprefix("_") or "nominal"


def _item_values(X: FloatArray, Ms: Sequence[FloatArray]) -> dict[str, FloatArray]:
    """Per-item (or per-row) terms of the coefficients: agreement under each ``M``, shares, etc."""
    Xt = np.ascontiguousarray(X.T)
    K = X.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):  # an empty partition is fine
        out = {f"pa{j}": item_terms(Xt, M).pa_i for j, M in enumerate(Ms)}
        out["shares"] = X / X.sum(axis=1)[:, None]
    out["unanimous"] = (X.max(axis=1) == X.sum(axis=1)).astype(np.float64)
    out["coinc"] = alpha_row_stats(Xt, "ordinal", None)[1].reshape(-1, K * K)
    return out


def _partition_stats(
    wide: pd.DataFrame, Ms: Sequence[FloatArray], n_resamples: int, seed: int
) -> dict[str, Any]:
    """Distinct count rows (with two or more ratings) of one partition, and its bootstrap sums."""
    X = wide.to_numpy(dtype=np.int64)
    keep = X.sum(axis=1) >= 2
    excluded = wide.index[~keep]
    X = X[keep]
    out: dict[str, Any] = {
        "n_excluded": int(excluded.size),
        "excluded": excluded[:5].tolist(),
        "distinct": [pd.DataFrame(X).value_counts(sort=False)],
    }
    if n_resamples:
        values = _item_values(X.astype(np.float64), Ms)
        keys = item_keys(wide.index[keep])
        step = max(1, _CHUNK_FLOATS // max(X.shape[0], 1))
        chunks: dict[str, list[FloatArray]] = {"w": [], **{k: [] for k in values}}
        for start in range(0, n_resamples, step):
            W = poisson_weights(keys, min(step, n_resamples - start), seed=seed, start=start)
            chunks["w"].append(W.sum(axis=1))
            for k, v in values.items():
                chunks[k].append(W @ v)
        out["boot"] = [{k: np.concatenate(v) for k, v in chunks.items()}]
    return out


def _statistics(
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
            if name in _KAPPAS:
                chance, weights = _KAPPAS[name]
                j = int(weights is not None)
                pe = out[f"pe:{name}"] = chance_agreement_of(pi, Ms[j], chance)
                out[f"pa:{name}"] = sums[f"pa{j}"] / w
                out[name] = (out[f"pa:{name}"] - pe) / (1.0 - pe)
            elif name in _ALPHAS:
                lvl = _alpha_level(name)
                o = sums["coinc"].reshape(-1, K, K)
                out[name] = alpha_from_coincidences(o, lvl, level_values(scale, lvl))
    return out


def _kappa_se(
    P: FloatArray, m: FloatArray, M: FloatArray, chance: Chance, *, value: float, pe: float
) -> float:
    r"""Gwet's linearised SE :math:`\sqrt{\sum_u m_u (k_u - \kappa)^2 / (N (N - 1))}`, per row."""
    N = m.sum()
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


def agreement(
    counts: DistributedCounts,
    coefficients: Sequence[str] = COEFFICIENTS,
    *,
    levels: Sequence[str] = ("nominal",),
    confidence_level: float | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, AgreementResult]:
    r"""Count-based agreement coefficients of distributed counts, in one pass over the data.

    Parameters
    ----------
    coefficients : sequence of str, default :data:`COEFFICIENTS`
        Any of :data:`COEFFICIENTS`.
    levels : sequence of str, default ("nominal",)
        Levels of measurement of Krippendorff's alpha (nominal, ordinal,
        interval, ratio), one result each, named as in memory
        (``krippendorff_alpha``, ``krippendorff_alpha_ordinal``, ...).
    confidence_level : float, optional
        Also compute, in the same pass, the Poisson-bootstrap percentile
        intervals of ``n_resamples`` resamples with ``seed``: then
        ``res[name].confidence_interval(confidence_level, n_resamples=n_resamples,
        bootstrap="poisson", seed=seed)`` costs nothing (other arguments
        make another pass over the data).
    n_resamples : int, default 1000
        Bootstrap resamples.
    seed : int, default 0
        Seed of the Poisson bootstrap weights.

    Returns
    -------
    dict of str to AgreementResult
        Keyed by coefficient, in the order asked. Statistics and the
        linearised standard errors equal the in-memory ones (the same
        formulas over the distinct count rows, to 1e-12); ``z``, ``pvalue``
        and Fleiss' ``se0`` are not computed. The interval of a result is
        the Poisson bootstrap only (``bootstrap="poisson"``, an int seed).

    Notes
    -----
    With :math:`P_u` the distinct count rows of the items having two or
    more ratings and :math:`m_u` their multiplicities, every point estimate
    is the in-memory formula with the item sums :math:`\sum_i f(x_i)`
    written :math:`\sum_u m_u f(P_u)` (e.g. :math:`P_a = \frac1N \sum_u m_u
    p_{a,u}`); under resample :math:`b` the per-item sums carry the Poisson
    weights :math:`w_{bi}` and :math:`N` becomes :math:`\sum_i w_{bi}`.

    Examples
    --------
    >>> import pandas as pd
    >>> from dissensus.distributed import label_counts
    >>> long = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3],
    ...                      "label": ["a", "a", "a", "b", "b", "b"]})
    >>> res = agreement(label_counts(long), ["fleiss_kappa"])
    >>> round(float(res["fleiss_kappa"]), 4)
    0.3333
    """
    for name in coefficients:
        check_option("agreement", "coefficients", name, COEFFICIENTS)
    for lvl in levels:
        check_option("agreement", "levels", lvl, LEVELS)
    alphas = [_ALPHAS[LEVELS.index(lvl)] for lvl in levels]
    names = list(
        dict.fromkeys(n for c in coefficients for n in (alphas if c == _ALPHAS[0] else [c]))
    )
    level, B = None, 0
    if confidence_level is not None:
        level = check_probability_level("agreement", "confidence_level", confidence_level)
        B = int(n_resamples)
        if B < 2:
            msg = (
                f"The 'n_resamples' parameter of agreement must be at least 2. Got {n_resamples!r}."
            )
            raise ValueError(msg)
    Ms = [np.eye(counts.K), agreement_weights("quadratic", counts.scale).to_numpy(np.float64)]
    dask, _ = dask_modules()
    tasks = [dask.delayed(_partition_stats)(p, Ms, B, seed) for p in counts.frame.to_delayed()]
    tot = merge(compute(*tasks))
    if tot["n_excluded"]:
        warnings.warn(
            f"agreement: {tot['n_excluded']} items have fewer than 2 ratings and are excluded "
            f"({examples(tot['excluded'])}).",
            DegenerateAgreementWarning,
            stacklevel=2,
        )
    distinct = pd.concat(tot["distinct"]).groupby(level=list(range(counts.K))).sum()
    rows, mult = rows_of(distinct, counts.K)
    P, m, N = rows.astype(np.float64), mult.astype(np.float64), int(mult.sum())
    sums = {k: np.asarray(m @ v)[None] for k, v in _item_values(P, Ms).items()}
    stats = _statistics({**sums, "w": np.array([float(N)])}, names, Ms, counts.scale)
    point = {k: float(v[0]) for k, v in stats.items()}
    for name in _KAPPAS:
        if name in point and point[f"pe:{name}"] >= 1.0 - 1e-12:
            point[name] = math.nan  # every rating in one category: no chance-corrected value
    cache: _Cache = {}
    if level is not None:
        boot = _statistics(merge(tot["boot"]), names, Ms, counts.scale)
        cache[level, B, seed] = intervals = {}
        for name in names:  # percentile intervals, NaN for an undefined coefficient
            with np.errstate(invalid="ignore"):
                lo, hi = map(float, percentile_interval(boot[name], confidence_level=level))
            if not math.isfinite(point[name]):
                lo = hi = math.nan
            intervals[name] = ConfidenceInterval(lo, hi)
    common = {
        "n_items": N,
        "n_items_excluded": tot["n_excluded"],
        "n_annotations": int(m @ P.sum(axis=1)),
    }
    out: dict[str, AgreementResult] = {}
    for name in names:
        value = point[name] if N else math.nan
        se, note, parts = math.nan, "", dict[str, float]()
        if name in _KAPPAS:
            pe = point[f"pe:{name}"]
            parts = {"observed_agreement": point[f"pa:{name}"], "chance_agreement": pe}
            if math.isfinite(value):
                chance, weights = _KAPPAS[name]
                se = _kappa_se(P, m, Ms[weights is not None], chance, value=value, pe=pe)
        elif name in _ALPHAS and math.isfinite(value):
            se = _alpha_se(P, m, counts.scale, _alpha_level(name))
        elif name == "share_unanimous" and N:
            se = math.sqrt(value * (1.0 - value) / N)
        if not math.isfinite(value):  # the in-memory coefficient's note
            note = _note(name, N, counts.K)
            warnings.warn(note, DegenerateAgreementWarning, stacklevel=2)
        out[name] = AgreementResult(
            name=name, statistic=value, standard_error=se, parts=parts, note=note,
            _resampler=_resampler(counts, name, cache), **common,
        )  # fmt: skip
    return out


def _resampler(counts: DistributedCounts, name: str, cache: _Cache) -> Resampler:
    """The Poisson-bootstrap interval of ``name``: from ``cache``, else one more pass."""

    def resample(
        level: float, n_resamples: int, method: str, bootstrap: str, seed: SeedLike
    ) -> ConfidenceInterval:
        if bootstrap != "poisson" or not isinstance(seed, int):
            msg = (
                f"{name} of distributed counts resamples with the Poisson bootstrap: pass "
                "bootstrap='poisson' and an int seed (the in-memory result gives the same interval)."
            )
            raise ValueError(msg)
        key = (level, int(n_resamples), seed)
        if key not in cache:
            lvl = _alpha_level(name) if name in _ALPHAS else "nominal"
            res = agreement(
                counts, [name if name not in _ALPHAS else _ALPHAS[0]], levels=(lvl,),
                confidence_level=level, n_resamples=n_resamples, seed=seed,
            )  # fmt: skip
            cache[key] = {
                name: res[name].confidence_interval(
                    level, n_resamples=n_resamples, bootstrap="poisson", seed=seed
                )
            }
        return cache[key][name]

    return resample
