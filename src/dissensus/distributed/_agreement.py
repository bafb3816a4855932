r"""Count-based agreement of distributed counts, from their distinct count rows.

Each partition sends its distinct count rows (items with two or more ratings)
and their multiplicities, which merge exactly: a few thousand rows, whatever the
number of items, finalised by
:func:`dissensus.agreement.kernels.count_row_results`, the function that builds
the in-memory :func:`dissensus.agreement.report`'s rows: the two tables are
bit-identical. The Poisson bootstrap weights of
:func:`dissensus.stats.poisson_weights` depend on (seed, item id, resample)
only, so the intervals do not depend on the partitioning.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from dissensus._exceptions import DegenerateAgreementWarning
from dissensus._validation import SeedLike, check_option, check_probability_level, examples
from dissensus.agreement import AgreementResult, Resampler
from dissensus.agreement.kernels import (
    ALPHA_NAMES,
    LEVELS,
    alpha_level,
    count_row_results,
    count_weights,
    row_terms,
    statistics_of_sums,
)
from dissensus.distributed._common import FloatArray, compute, dask_modules, merge
from dissensus.distributed._counts import DistributedCounts, rows_of
from dissensus.stats import ConfidenceInterval, item_keys, percentile_interval, poisson_weights

#: Every coefficient :func:`agreement` computes (alpha at each level of measurement).
COEFFICIENTS = (
    "share_unanimous", "fleiss_kappa", "observed_agreement", "chance_agreement",
    "krippendorff_alpha", "gwet_ac2_quadratic", "gwet_ac1", "brennan_prediger",
)  # fmt: skip
#: Intervals already computed, by (confidence level, resamples, seed), then coefficient.
_Cache = dict[tuple[float, int, int], dict[str, ConfidenceInterval]]
#: float64 intermediates per chunk of bootstrap weights inside a partition.
_CHUNK_FLOATS = 4_000_000


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
        values = row_terms(X.astype(np.float64), Ms)
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
        linearised standard errors equal :func:`dissensus.agreement.report`'s
        bit for bit (and the single coefficients' to ~1e-16); ``z``, ``pvalue``
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
    alphas = [ALPHA_NAMES[LEVELS.index(lvl)] for lvl in levels]
    names = list(
        dict.fromkeys(n for c in coefficients for n in (alphas if c == ALPHA_NAMES[0] else [c]))
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
    Ms = count_weights(counts.scale)
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
    P, m = rows.astype(np.float64), mult.astype(np.float64)
    results = count_row_results(P, m, counts.scale, names, n_excluded=tot["n_excluded"])
    cache: _Cache = {}
    if level is not None:
        boot = statistics_of_sums(merge(tot["boot"]), names, Ms, counts.scale)
        cache[level, B, seed] = intervals = {}
        for name in names:  # percentile intervals, NaN for an undefined coefficient
            with np.errstate(invalid="ignore"):
                lo, hi = map(float, percentile_interval(boot[name], confidence_level=level))
            if not math.isfinite(results[name].statistic):
                lo = hi = math.nan
            intervals[name] = ConfidenceInterval(lo, hi)
    return {
        name: dataclasses.replace(res, _resampler=_resampler(counts, name, cache))
        for name, res in results.items()
    }


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
            lvl = alpha_level(name) if name in ALPHA_NAMES else "nominal"
            res = agreement(
                counts, [name if name not in ALPHA_NAMES else ALPHA_NAMES[0]], levels=(lvl,),
                confidence_level=level, n_resamples=n_resamples, seed=seed,
            )  # fmt: skip
            cache[key] = {
                name: res[name].confidence_interval(
                    level, n_resamples=n_resamples, bootstrap="poisson", seed=seed
                )
            }
        return cache[key][name]

    return resample
