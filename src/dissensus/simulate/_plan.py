r"""How many items, and how many annotations per item? A plan calibrated to a pilot.

Notation. The pilot has ``P`` items with label counts :math:`c_i` over ``K``
classes, :math:`m_i = \sum_k c_{ik}` annotations and shares :math:`\hat p_i =
c_i / m_i`. A design is ``N`` new items with ``n`` annotations each (cost
:math:`N n` labels); for each ``n`` of ``annotations`` the plan finds the
smallest ``N`` that reaches each goal, so the rows trace the ``N × n``
frontier; the cheapest reached row of a goal is marked. Items of the planned
study are drawn from the population the pilot was drawn from, and annotators
are exchangeable (a Dirichlet-multinomial world: no annotator effects).

**compare** (with two or more models' predictions): tell the best model from
the runner-up (by their pilot scores) on the TRUE distribution under
``metric``, one whose paired difference is linear in the target
(``Metric.difference_degree == 1``: cross-entropy, KL, squared Euclidean,
RPS; the verdict's unbiased estimate, :mod:`dissensus.evaluation._true`).
Then :math:`f(p, q_A) - f(p, q_B) = \sum_k p_k d_{ik}` with
:math:`d_{ik} = f(e_k, q_{iA}) - f(e_k, q_{iB})`, so one annotation with label
``k`` scores :math:`d_{ik}` and the per-item estimate from ``n`` annotations,
:math:`D_i = \sum_k \hat p_{ik} d_{ik}`, has exactly

.. math::

    \operatorname{E} D_i = \delta, \qquad
    \operatorname{Var} D_i = \sigma_b^2 + \sigma_w^2 / n,

with :math:`\delta` the mean true difference, :math:`\sigma_b^2` the spread
of the true per-item differences and :math:`\sigma_w^2` the mean variance of
one annotation's score within an item. These three are estimated from the
pilot without bias (method of moments): :math:`\hat\delta = \bar D`,
:math:`\hat\sigma_w^2` the mean over items with :math:`m_i \ge 2` of
:math:`s_i^2 = \frac{m_i}{m_i - 1} (\sum_k \hat p_{ik} d_{ik}^2 - D_i^2)`, and
:math:`\hat\sigma_b^2 = \max(0, s_D^2 - \hat\sigma_w^2\, \overline{1/m})`.
No simulation is needed for this goal, and none would do better: drawing
truths from a posterior fitted to the counts alone would ignore that a good
model's predictions follow the truth beyond what the counts show, and bias
:math:`\delta` towards the prior. The test is the verdict's: the interval
for the mean of ``N`` differences (:func:`dissensus.stats.mean_interval`,
with Hall's skewness correction) excludes zero on the side of
:math:`\hat\delta` (two-sided level ``significance``). The noncentral t,
:math:`P(T_{N-1}(\sqrt N |\hat\delta| / \sigma(n)) > t_{N-1, 1 - a/2})`
(:func:`compare_power`), gives a first ``N``; but per-item differences are
often skewed (a few items with a rare label far from the models' mass), and
then the corrected interval's power at a few hundred items is off the t's by
ten points or more, either way. So the power is measured by Monte Carlo
(:func:`mc_power`) up to :data:`_MC_MAX_ITEMS` items: studies resampled from
a pool of per-item differences with the pilot's shape (:func:`compare_pool`:
pilot items, truths from their posterior, ``n`` labels) rescaled to
:math:`\hat\delta` and :math:`\sigma(n)`; the smallest ``N`` is found on a
grid around the t's answer, then by bisection, on the same studies.

**agreement**: Krippendorff's alpha (``agreement_level`` nominal or interval)
within a confidence half-width ``half_width``:
:math:`z_{1 - a/2}\, \sigma_\alpha(n) / \sqrt N \le h`, with
:math:`\sigma_\alpha(n)^2 / N` the variance of Gwet's (2014) linearisation
(the standard error :func:`dissensus.agreement.krippendorff_alpha` reports,
:mod:`dissensus.agreement.kernels`), computed on ``n_draws`` items drawn from
the world calibrated to the pilot: true distributions
:math:`\pi \sim \mathrm{Dir}(\alpha^{(0)})`, :math:`\alpha^{(0)}` the prior
:func:`dissensus.posterior.fit_dirichlet_prior` fits to the pilot, and ``n``
labels from :math:`\pi` (nested: the first ``n`` of the same draws for every
``n``, common random numbers). Items are independent, so the variance scales
as ``1/N`` and ``N = ceil((z σ / h)^2)``.

**distribution**: each item's label distribution within ``error`` of the
truth on average, measured by ``error_measure``: ``"mean_l1"``
:math:`\operatorname{E}\lVert \hat p - \pi \rVert_1` or ``"max_abs"``
:math:`\operatorname{E}\max_k |\hat p_k - \pi_k|`, from the same draws. It
depends on ``n`` only: rows have no ``n_items`` and cost ``n`` labels per item.

**all** (when two or more goals are asked): the design that meets every goal,
``N`` the largest the goals need at that ``n``.

The pilot must hold some items with two or more annotations: with one per
item, neither :math:`\sigma_w^2` (how the comparison improves with more
annotations per item) nor the prior's strength is identified.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats

from dissensus._exceptions import DataError
from dissensus._validation import SeedLike, as_generator, check_option, check_probability_level
from dissensus.agreement.kernels import (
    alpha_item_terms,
    alpha_linear_terms,
    alpha_weights,
    level_metric,
    level_values,
)
from dissensus.data import (
    Annotations,
    LabelCounts,
    PredictionLike,
    aligned_predictions,
    as_label_counts,
)
from dissensus.metrics import Metric, get_metric
from dissensus.posterior import PriorFitWarning, fit_dirichlet_prior
from dissensus.stats import mean_interval

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: The goals a plan can aim at, in table order.
GOALS: tuple[str, ...] = ("compare", "agreement", "distribution")
#: Annotations per item of the frontier.
DEFAULT_ANNOTATIONS: tuple[int, ...] = (2, 3, 5, 10, 20, 50)
#: Levels of Krippendorff's alpha with a linearised standard error.
AGREEMENT_LEVELS: tuple[str, ...] = ("nominal", "interval")
#: Per-item errors of the distribution goal.
ERROR_MEASURES: tuple[str, ...] = ("mean_l1", "max_abs")
#: Columns of :attr:`Plan.frontier`.
FRONTIER_COLUMNS: tuple[str, ...] = (
    "goal",
    "annotations_per_item",
    "n_items",
    "labels",
    "achieved",
    "target",
    "reached",
    "cheapest",
)
#: Search span above the normal-approximation N for the t-test's exact N.
_T_SEARCH = 64
#: Monte Carlo power of the compare goal: studies up to this many items (above: the t test).
_MC_MAX_ITEMS = 3000
#: ... per-item differences drawn per n, studies per power, their floor, values per power.
_POOL_SIZE = 50_000
_MC_REPLICATES = 2000
_MC_MIN_REPLICATES = 400
_MC_BUDGET = 2_000_000
#: Study sizes tried, as multiples of the t test's N (then bisection).
_GRID = np.array([0.5, 0.65, 0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0])


@dataclass(frozen=True)
class CompareCalibration:
    r"""The pilot's estimates behind the compare goal (module docstring).

    ``best`` and ``runner_up`` are the models compared, ``delta`` the pilot's
    mean difference ``best - runner_up`` under ``metric`` (negative for a loss)
    and ``delta_se`` its standard error, ``sd_between`` :math:`\hat\sigma_b`,
    ``sd_within`` :math:`\hat\sigma_w`, ``n_items`` the pilot items used and
    ``scores`` each model's pilot mean score.
    """

    metric: str
    best: str
    runner_up: str
    delta: float
    delta_se: float
    sd_between: float
    sd_within: float
    n_items: int
    scores: dict[str, float]
    #: (P, K) vertex differences d_ik and posterior Dirichlet parameters of the pilot items
    #: (:func:`compare_pool`); empty for a calibration given by hand.
    pilot_d: FloatArray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)
    pilot_alpha: FloatArray = field(default_factory=lambda: np.zeros((0, 0)), repr=False)

    def sd(self, n: npt.ArrayLike) -> FloatArray:
        """Standard deviation of one item's estimated difference with ``n`` annotations."""
        m = np.asarray(n, dtype=np.float64)
        return np.asarray(np.sqrt(self.sd_between**2 + self.sd_within**2 / m), dtype=np.float64)


@dataclass(frozen=True)
class Plan:
    r"""What :func:`plan` found.

    Attributes
    ----------
    frontier : DataFrame
        One row per goal and annotations per item (:data:`FRONTIER_COLUMNS`):
        ``goal``, ``annotations_per_item`` (n), ``n_items`` (the smallest N
        reaching the goal at that n; missing when none up to ``max_items``
        does, or for the distribution goal, which does not depend on N),
        ``labels`` (N n; n for the distribution goal: labels per item),
        ``achieved`` (power for compare, half-width for agreement, error for
        distribution, at that design; NaN for ``all``: each goal's own row
        gives it), ``target``, ``reached``, ``cheapest`` (the
        reached row of the goal with the fewest labels; ties: fewer
        annotations per item).
    prior : ndarray (K,)
        The Dirichlet prior fitted to the pilot (agreement and distribution goals).
    compare : CompareCalibration or None
        The estimates behind the compare goal (None without predictions).
    agreement : dict
        ``level``, ``value`` (alpha of the calibrated world) and ``sd`` per n
        (:math:`\sigma_\alpha(n)`), when the goal is asked.
    settings : dict
        The arguments that shaped the plan.
    """

    frontier: pd.DataFrame
    prior: FloatArray
    compare: CompareCalibration | None
    agreement: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    def cheapest(self, goal: str = "all") -> pd.Series | None:
        """The cheapest reached design of ``goal`` (None when no row reaches it)."""
        rows = self.frontier[(self.frontier["goal"] == goal) & self.frontier["cheapest"]]
        return None if rows.empty else rows.iloc[0]


# --------------------------------------------------------------------------- inputs


def _check_annotations(annotations: Sequence[int]) -> IntArray:
    values = [annotations] if isinstance(annotations, int) else list(annotations)
    ok = values and all(
        isinstance(v, int | np.integer) and not isinstance(v, bool) and v >= 1 for v in values
    )
    if not ok:
        msg = f"The 'annotations' parameter of plan must be whole numbers >= 1 (annotations per item), e.g. (2, 3, 5, 10, 20); got {annotations!r}."
        raise ValueError(msg)
    return np.unique(np.asarray(values, dtype=np.int64))


def compare_metric(metric: str) -> Metric:
    """The pointwise metric behind ``metric``, refused unless its paired difference is linear."""
    met = get_metric(metric)
    if met.kind == "debiased" and met.pointwise is not None:
        met = get_metric(met.pointwise)  # linear difference: the debiased and plain forms agree
    if met.kind != "pointwise" or met.unary or met.difference_degree != 1:
        usable = sorted(m for m in ("cross_entropy", "kl_divergence", "squared_euclidean", "rps"))
        msg = (
            f"plan compares models on the TRUE distribution, which needs a metric whose paired "
            f"difference has an unbiased estimator (difference_degree 1); {metric!r} has none. "
            f"Use one of {', '.join(usable)}."
        )
        raise ValueError(msg)
    return met


def _vertex_scores(met: Metric, q: FloatArray) -> FloatArray:
    """:math:`f(e_k, q_i)` for every item ``i`` and class ``k``: (N, K)."""
    N, K = q.shape
    targets = np.tile(np.eye(K), (N, 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        values = met.func(targets, np.repeat(q, K, axis=0))
    return np.asarray(values, dtype=np.float64).reshape(N, K)


# --------------------------------------------------------------------------- goals


def calibrate_compare(
    counts: LabelCounts,
    predictions: Mapping[str, PredictionLike],
    *,
    metric: str,
    prior: FloatArray | None = None,
) -> CompareCalibration:
    r"""The compare goal's :math:`\hat\delta, \hat\sigma_b, \hat\sigma_w` (module docstring)."""
    met = compare_metric(metric)
    preds = aligned_predictions(counts, predictions, func="the compare goal of plan")
    C = np.asarray(counts.values, dtype=np.float64)
    m = C.sum(axis=1)
    used = m > 0
    C, m = C[used], m[used]
    items = counts.items[used]
    phat = C / m[:, None]
    vertex = {name: _vertex_scores(met, q[used]) for name, q in preds.items()}
    for name, v in vertex.items():  # an infinite score where a label was seen cannot be planned for
        bad = ~np.isfinite(v) & (C > 0)
        if bad.any():
            i, k = np.argwhere(bad)[0]
            msg = (
                f"model {name!r} scores {met.name} = inf on item {items[i]!r}: it gives label "
                f"{counts.scale.labels[k]!r} probability 0 where an annotator chose it. Use a "
                "bounded metric (rps, squared_euclidean) or floor the predictions."
            )
            raise DataError(msg)
    with np.errstate(divide="ignore", invalid="ignore"):  # the empirical scores, as evaluated
        scores = {name: float(np.mean(met.func(phat, q[used]))) for name, q in preds.items()}
    order = sorted(scores, key=lambda n: scores[n], reverse=not met.lower_is_better)
    best, runner = order[0], order[1]
    with np.errstate(invalid="ignore"):
        full = vertex[best] - vertex[runner]
    d = np.where(C > 0, full, 0.0)  # labels never seen do not score
    D = (phat * d).sum(axis=1)
    multi = m >= 2
    if not multi.any():
        msg = (
            "the pilot has one annotation per item: how the comparison improves with more "
            "annotations per item (the within-item variance) cannot be estimated from it. "
            "Annotate some pilot items (a few dozen) two or more times."
        )
        raise DataError(msg)
    s2 = m[multi] / (m[multi] - 1.0) * ((phat[multi] * d[multi] ** 2).sum(axis=1) - D[multi] ** 2)
    var_w = max(float(s2.mean()), 0.0)
    var_D = float(D.var(ddof=1)) if D.size > 1 else 0.0
    var_b = max(var_D - var_w * float(np.mean(1.0 / m)), 0.0)
    return CompareCalibration(
        metric=met.name,
        best=best,
        runner_up=runner,
        delta=float(D.mean()),
        delta_se=math.sqrt(var_D / D.size),
        sd_between=math.sqrt(var_b),
        sd_within=math.sqrt(var_w),
        n_items=int(D.size),
        scores=scores,
        pilot_d=np.where(np.isfinite(full), full, 0.0),
        pilot_alpha=C + (np.ones(C.shape[1]) if prior is None else prior),
    )


def compare_power(
    cal: CompareCalibration, n_items: npt.ArrayLike, n: npt.ArrayLike, *, significance: float
) -> FloatArray:
    """Power of the compare goal's t test at designs ``(n_items, n)`` (broadcast)."""
    N = np.asarray(n_items, dtype=np.float64)
    sd = cal.sd(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        nc = np.where(sd > 0, np.sqrt(N) * abs(cal.delta) / sd, np.inf)
    crit = stats.t.ppf(1.0 - significance / 2.0, np.maximum(N - 1.0, 1.0))
    out = stats.nct.sf(crit, np.maximum(N - 1.0, 1.0), np.minimum(nc, 1e6))
    return np.asarray(np.where(N >= 2, out, np.nan), dtype=np.float64)


def _compare_items(
    cal: CompareCalibration, ns: IntArray, *, power: float, significance: float, max_items: int
) -> IntArray:
    """The smallest N of each ``n`` whose power reaches ``power`` (-1: none up to ``max_items``)."""
    if cal.delta == 0.0:
        return np.full(ns.size, -1, dtype=np.int64)
    z = stats.norm.ppf(1.0 - significance / 2.0) + stats.norm.ppf(power)
    guess = np.floor(np.minimum((z * cal.sd(ns) / abs(cal.delta)) ** 2, max_items + 1.0))
    guess = guess.astype(np.int64)
    start = np.clip(guess - 2, 2, max_items)
    grid = start[:, None] + np.arange(_T_SEARCH)[None, :]  # the t test needs a few more items
    ok = (compare_power(cal, grid, ns[:, None], significance=significance) >= power) & (
        grid <= max_items
    )
    first = np.where(ok.any(axis=1), grid[np.arange(ns.size), ok.argmax(axis=1)], -1)
    return np.asarray(first, dtype=np.int64)


def compare_pool(
    cal: CompareCalibration, n: int, *, size: int, rng: np.random.Generator
) -> FloatArray:
    r"""``size`` per-item differences at ``n`` annotations: the pilot's shape, the moments' scale.

    Pilot items drawn at random, a truth from each one's posterior
    :math:`\mathrm{Dir}(\alpha^{(0)} + c_i)`, ``n`` labels, the difference
    :math:`D = \sum_k \hat p_k d_{ik}`; then shifted and scaled to the unbiased
    :math:`\hat\delta` and :math:`\sigma(n)` (the posterior gets the shape,
    the skewness of the differences, not their centre).
    """
    if cal.pilot_d.size == 0:
        return np.full(size, cal.delta)
    idx = rng.integers(cal.pilot_d.shape[0], size=size)
    g = rng.standard_gamma(cal.pilot_alpha[idx])
    pi = g / g.sum(axis=1, keepdims=True)
    D = (rng.multinomial(n, pi) / float(n) * cal.pilot_d[idx]).sum(axis=1)
    sd = float(D.std())
    if not sd > 0:
        return np.full(size, cal.delta)
    return np.asarray(cal.delta + (D - D.mean()) * (float(cal.sd(n)) / sd), dtype=np.float64)


def mc_power(
    studies: FloatArray, sizes: npt.ArrayLike, *, sign: float, significance: float
) -> FloatArray:
    """Share of the rows of ``studies`` whose first N values' interval excludes 0 on side ``sign``.

    ``studies`` (R, N_max) holds R simulated studies (per-item differences);
    the study of N items is the first N of each row (nested, so power rises
    with N up to Monte Carlo noise). The interval is the verdict's,
    :func:`dissensus.stats.mean_interval`, at level ``1 - significance``.
    """
    Ns = np.asarray(sizes, dtype=np.int64).ravel()
    out = np.empty(Ns.size)
    for j, N in enumerate(Ns):  # a few study sizes, each one vectorised call over the studies
        r = mean_interval(studies[:, :N], confidence_level=1.0 - significance)
        out[j] = float(np.mean(r.ci_low > 0 if sign > 0 else r.ci_high < 0))
    return out


def _compare_design(
    cal: CompareCalibration,
    n: int,
    N0: int,
    *,
    power: float,
    significance: float,
    max_items: int,
    rng: np.random.Generator,
) -> tuple[int, float]:
    """The smallest N reaching ``power`` at ``n`` by the Monte Carlo test, and its power.

    Starts from the noncentral-t answer ``N0``; above :data:`_MC_MAX_ITEMS`
    items the t answer stands (skewness matters less as N grows).
    """
    if N0 < 0 or N0 > _MC_MAX_ITEMS:
        p0 = math.nan if N0 < 0 else float(compare_power(cal, N0, n, significance=significance))
        return N0, p0
    pool = compare_pool(cal, n, size=_POOL_SIZE, rng=rng)
    grid = np.unique(np.clip(np.round(N0 * _GRID), 2, max_items).astype(np.int64))
    R = max(_MC_MIN_REPLICATES, min(_MC_REPLICATES, _MC_BUDGET // int(grid.max())))
    studies = pool[rng.integers(pool.size, size=(R, int(grid.max())))]
    settings = {"sign": 1.0 if cal.delta > 0 else -1.0, "significance": significance}
    powers = []
    for N in grid:  # ascending; stop at the first size that reaches the power
        powers.append(float(mc_power(studies, [N], **settings)[0]))
        if powers[-1] >= power:
            break
    ok = np.flatnonzero(np.asarray(powers) >= power)
    if ok.size == 0:
        return -1, powers[-1]
    k = int(ok[0])
    hi, p_hi = int(grid[k]), float(powers[k])
    lo = int(grid[k - 1]) if k > 0 else 1
    while hi - lo > 1:  # bisection on the same studies
        mid = (lo + hi) // 2
        p_mid = float(mc_power(studies, [mid], **settings)[0]) if mid >= 2 else 0.0
        if p_mid >= power:
            hi, p_hi = mid, p_mid
        else:
            lo = mid
    return hi, p_hi


def _nested_counts(rng: np.random.Generator, pi: FloatArray, ns: IntArray) -> dict[int, FloatArray]:
    """Counts of the first ``n`` of the same ``max(ns)`` labels per item, for each ``n``."""
    M, K = pi.shape
    u = rng.random((M, int(ns.max())))
    labels = (u[:, :, None] > np.cumsum(pi, axis=1)[:, None, :-1]).sum(axis=2)
    onehot = labels[:, :, None] == np.arange(K)[None, None, :]
    cum = np.cumsum(onehot, axis=1, dtype=np.float64)
    return {int(n): cum[:, n - 1] for n in ns}


def agreement_sd(
    counts: FloatArray, *, level: str, values: FloatArray | None
) -> tuple[float, float]:
    r"""Alpha and :math:`\sigma_\alpha` of items ``counts`` (M, K): ``SE = σ / sqrt(M)``."""
    M, K = counts.shape
    W = alpha_weights(
        level_metric(level, np.arange(K, dtype=np.float64) if values is None else values, None)
    )
    if W is None:
        return math.nan, math.nan
    Xt = counts.T
    Y = alpha_item_terms(Xt, W)
    terms = alpha_linear_terms(M, float(Y[:, 0].mean()), float(Y[:, 1].mean()), Xt.mean(axis=1), W)
    if terms is None:
        return math.nan, math.nan
    a0, a = terms
    k = a0 + Y @ a  # kappa_i - alpha' (Gwet's linearised terms)
    # alpha' itself: the agreement of the calibrated world (a0 + mean(Y) @ a = mean(k) + 0)
    rbar = float(Y[:, 1].mean())
    pi = Xt.mean(axis=1) / rbar
    pe = float(pi @ W @ pi)
    alpha_value = (float(Y[:, 0].mean()) / rbar - pe) / (1.0 - pe)
    return alpha_value, float(np.sqrt((k**2).sum() / (M - 1.0)))


def distribution_error(counts: FloatArray, pi: FloatArray, n: int, measure: str) -> float:
    r"""Mean over items of :math:`\lVert c / n - \pi \rVert` (``mean_l1`` or ``max_abs``)."""
    diff = np.abs(counts / float(n) - pi)
    return float((diff.sum(axis=1) if measure == "mean_l1" else diff.max(axis=1)).mean())


# --------------------------------------------------------------------------- plan


def plan(
    counts: LabelCounts | Annotations | npt.ArrayLike,
    predictions: Mapping[str, PredictionLike] | None = None,
    *,
    goals: Sequence[str] | None = None,
    metric: str | None = None,
    power: float = 0.8,
    significance: float = 0.05,
    agreement_level: str = "nominal",
    half_width: float = 0.05,
    error: float = 0.2,
    error_measure: str = "mean_l1",
    annotations: Sequence[int] = DEFAULT_ANNOTATIONS,
    max_items: int = 10_000_000,
    n_draws: int = 20_000,
    seed: SeedLike = 0,
) -> Plan:
    r"""Items and annotations per item needed to compare models, know alpha, know each item.

    Parameters
    ----------
    counts : LabelCounts, Annotations or array_like (P, K)
        The pilot's annotations.
    predictions : mapping of model name to predictions, optional
        Two or more models' predictions for the pilot items (aligned by item
        id, as in :func:`dissensus.evaluation.evaluate`); they enable the
        compare goal.
    goals : sequence of {"compare", "agreement", "distribution"}, optional
        Default: all three with predictions, the last two without.
    metric : str, optional
        The compare goal's metric, one with a linear paired difference
        (:func:`compare_metric`): default ``"rps"`` on an ordered scale of
        three or more labels, else ``"squared_euclidean"`` (Brier).
    power, significance : float
        The compare goal's power and two-sided test level.
    agreement_level : {"nominal", "interval"}
        Krippendorff's alpha's level (the ordinal level has no linearised
        standard error: its distances depend on the data).
    half_width : float
        The agreement goal's target half-width of the ``1 - significance``
        interval for alpha.
    error, error_measure : float, {"mean_l1", "max_abs"}
        The distribution goal's target mean error per item.
    annotations : sequence of int
        The annotations per item of the frontier.
    max_items : int
        Largest N searched; goals that need more are not reached.
    n_draws : int
        Items drawn from the calibrated world for the agreement and
        distribution goals.
    seed : int or Generator
        Seed of the draws (the same arguments give the same plan).

    Returns
    -------
    Plan
        The frontier and the calibration (module docstring for the method).

    Raises
    ------
    DataError
        A pilot with one annotation per item (nothing says how more
        annotations per item help), or an infinite score.
    ValueError
        Bad parameters, or a compare metric without an unbiased difference.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> pilot = rng.multinomial(3, rng.dirichlet([0.5, 0.5, 0.5], size=100))
    >>> p = plan(pilot, goals=["distribution"], error=0.3)
    >>> int(p.cheapest("distribution")["annotations_per_item"])
    10
    """
    lc = as_label_counts(counts, "counts")
    K = lc.K
    if goals is None:
        goals = GOALS if predictions is not None else GOALS[1:]
    chosen = list(dict.fromkeys(goals))
    for goal in chosen:
        check_option("plan", "goals", goal, GOALS)
    if not chosen:
        msg = f"The 'goals' parameter of plan must name one or more of {', '.join(GOALS)}."
        raise ValueError(msg)
    if "compare" in chosen and predictions is None:
        msg = "The compare goal of plan needs two or more models' predictions (`predictions`)."
        raise ValueError(msg)
    power = check_probability_level("plan", "power", power)
    significance = check_probability_level("plan", "significance", significance)
    check_option("plan", "agreement_level", agreement_level, AGREEMENT_LEVELS)
    check_option("plan", "error_measure", error_measure, ERROR_MEASURES)
    for name, value in (("half_width", half_width), ("error", error)):
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
            msg = f"The {name!r} parameter of plan must be a positive number; got {value!r}."
            raise ValueError(msg)
    ns = _check_annotations(annotations)
    if lc.N < 2 or not (lc.n >= 2).any():
        msg = (
            f"the pilot has {'one annotation per item' if lc.N >= 2 else f'{lc.N} item'}: how "
            "the goals improve with more annotations per item cannot be calibrated from it "
            "(the within-item variance and the prior's strength are not identified). Annotate "
            "some pilot items (a few dozen) two or more times."
        )
        raise DataError(msg)
    if metric is None:
        metric = "rps" if lc.scale.ordered and K >= 3 else "squared_euclidean"
    rng = as_generator(seed)
    with warnings.catch_warnings(action="ignore", category=PriorFitWarning):
        prior = fit_dirichlet_prior(lc).alpha0
    rows: list[dict[str, Any]] = []
    needs: dict[str, IntArray] = {}
    cal = None
    if "compare" in chosen:
        assert predictions is not None
        cal = calibrate_compare(lc, predictions, metric=metric, prior=prior)
        N_t = _compare_items(cal, ns, power=power, significance=significance, max_items=max_items)
        designs = [
            _compare_design(
                cal,
                int(n),
                int(N0),
                power=power,
                significance=significance,
                max_items=max_items,
                rng=rng,
            )
            for n, N0 in zip(ns, N_t, strict=True)
        ]
        N_c = np.array([N for N, _ in designs], dtype=np.int64)
        achieved = np.array([p for _, p in designs])
        needs["compare"] = N_c
        rows += [
            _row("compare", n, N, a if N > 0 else math.nan, power)
            for n, N, a in zip(ns, N_c, achieved, strict=True)
        ]
    agreement: dict[str, Any] = {}
    if {"agreement", "distribution"} & set(chosen):
        pi = rng.dirichlet(prior, size=check_draws(n_draws))
        nested = _nested_counts(rng, pi, ns)
        if "agreement" in chosen:
            values = level_values(lc.scale, agreement_level)
            fits = [agreement_sd(nested[int(n)], level=agreement_level, values=values) for n in ns]
            sd = np.array([s for _, s in fits])
            z = stats.norm.ppf(1.0 - significance / 2.0)
            with np.errstate(invalid="ignore"):
                N_a = np.ceil((z * sd / half_width) ** 2)
            N_a = np.where(np.isfinite(N_a) & (N_a <= max_items), np.maximum(N_a, 2), -1)
            N_a = N_a.astype(np.int64)
            needs["agreement"] = N_a
            agreement = {
                "level": agreement_level,
                "value": float(np.nanmean([a for a, _ in fits])),
                "sd": dict(zip(ns.tolist(), sd.tolist(), strict=True)),
            }
            rows += [
                _row(
                    "agreement",
                    n,
                    N,
                    z * s / math.sqrt(N) if N > 0 else math.nan,
                    half_width,
                    higher=False,
                )
                for n, N, s in zip(ns, N_a, sd, strict=True)
            ]
        if "distribution" in chosen:
            errs = [distribution_error(nested[int(n)], pi, int(n), error_measure) for n in ns]
            for n, e in zip(ns, errs, strict=True):
                rows.append(
                    {
                        "goal": "distribution",
                        "annotations_per_item": int(n),
                        "n_items": None,
                        "labels": int(n),
                        "achieved": e,
                        "target": error,
                        "reached": bool(e <= error),
                    }
                )
            needs["distribution"] = np.where(np.asarray(errs) <= error, 0, -1).astype(np.int64)
    if len(chosen) >= 2:
        stack = np.vstack([needs[g] for g in chosen])
        N_all = np.where((stack >= 0).all(axis=0), stack.max(axis=0), -1)
        for i, n in enumerate(ns):
            N = int(N_all[i])
            rows.append(_row("all", n, N, math.nan, math.nan))
    frame = pd.DataFrame(rows, columns=[*FRONTIER_COLUMNS[:-1]])
    frame["n_items"] = frame["n_items"].astype("Int64")
    frame["labels"] = frame["labels"].astype("Int64")
    frame["cheapest"] = False
    for _, part in frame[frame["reached"]].groupby("goal", sort=False):
        best = part.sort_values(["labels", "annotations_per_item"], kind="stable").index[0]
        frame.loc[best, "cheapest"] = True
    settings = {
        "goals": chosen,
        "metric": metric if cal is not None else None,
        "power": power,
        "significance": significance,
        "agreement_level": agreement_level,
        "half_width": half_width,
        "error": error,
        "error_measure": error_measure,
        "annotations": ns.tolist(),
        "n_draws": n_draws,
        "pilot_items": lc.N,
    }
    return Plan(frame, np.asarray(prior, dtype=np.float64), cal, agreement, settings)


def check_draws(n_draws: int) -> int:
    """``n_draws`` as an int of at least 100 (the Monte Carlo error of the plan's σ and errors)."""
    if isinstance(n_draws, bool) or not isinstance(n_draws, int | np.integer) or n_draws < 100:
        msg = f"The 'n_draws' parameter of plan must be a whole number >= 100; got {n_draws!r}."
        raise ValueError(msg)
    return int(n_draws)


def _row(
    goal: str, n: int, N: int, achieved: float, target: float, *, higher: bool = True
) -> dict[str, Any]:
    """A frontier row of a goal that needs ``N`` items (``-1``: not reached)."""
    reached = N > 0
    return {
        "goal": goal,
        "annotations_per_item": int(n),
        "n_items": int(N) if reached else None,
        "labels": int(N) * int(n) if reached else None,
        "achieved": float(achieved),
        "target": float(target),
        "reached": reached,
    }
