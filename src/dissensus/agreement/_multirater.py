r"""Count-based agreement: Fleiss' kappa, its parts, Gwet's AC1/AC2, Brennan-Prediger.

Notation (Fleiss 1971; Gwet 2014). ``N`` items with at least two ratings,
``K`` categories, ``x_{ik}`` raters who put item ``i`` in category ``k``,
``n_i = \sum_k x_{ik}`` ratings of item ``i``. Agreement weights
``w_{kl}`` (identity unless weighted). Per item observed agreement

.. math:: p_{a,i} = \frac{\sum_k x_{ik} (x^w_{ik} - 1)}{n_i (n_i - 1)},
          \qquad x^w_{ik} = \sum_l w_{kl} x_{il},

``P_a = \frac1N \sum_i p_{a,i}``; category shares
``\pi_k = \frac1N \sum_i x_{ik} / n_i`` (the mean of per-item proportions,
so items with many ratings do not dominate; for a fixed number of raters
this is the share of all ratings); chance agreement ``P_e`` depends on the
coefficient; every coefficient is ``(P_a - P_e) / (1 - P_e)``.

Parameters shared by the functions below: ``annotations`` (Annotations,
LabelCounts or an (N, K) array of label counts per item, columns in the
scale's order; items with fewer than two ratings are excluded with a
:class:`~dissensus.DegenerateAgreementWarning`); ``table``, instead of
``annotations``, a two-rater K × K contingency table (the standard error
then follows Gwet's two-rater formula, divisor ``n`` instead of ``n - 1``);
``weights``, agreement weights for ordered categories, a named scheme of
:func:`~dissensus.agreement.agreement_weights` (over the label values of a
numeric scale, codes ``0 .. K-1`` for an array) or a (K, K) matrix with 1 on
the diagonal; ``population_size``, the number of items in the population
the rated ones were sampled from, for Gwet's finite-population correction
:math:`\sqrt{1 - n / N}` of the standard error (default: infinite).
Undefined values are NaN with the reason in ``note`` (and a warning).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus.agreement._common import (
    BootStatistic,
    Core,
    CountInput,
    FloatArray,
    ItemBootstrap,
    Weights,
    contingency_to_counts,
    count_rows,
    degenerate,
    prepare_counts,
    two_sided_p,
    weight_matrix,
)
from dissensus.agreement._result import AgreementResult, Resampler
from dissensus.data import Annotations, LabelCounts, Scale

Chance = Literal["fleiss", "gwet", "uniform"]


def item_agreement(
    Xt: FloatArray, n: FloatArray, M: FloatArray
) -> tuple[FloatArray, FloatArray | None]:
    r"""Per-item observed agreement :math:`p_{a,i}` of counts in the (K, N) layout.

    The one implementation behind the point estimates and the bootstrap
    cores (which pass their pattern rows transposed). Also returns the
    squared counts when ``M`` is the identity (the linearised variance
    reuses them), else None.
    """
    K = Xt.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        if np.array_equal(M, np.eye(K)):
            sq = Xt * Xt
            agree = sq.sum(axis=0) - n
        else:
            sq = None
            agree = (Xt * (M @ Xt)).sum(axis=0) - n
        pa_i: FloatArray = agree / (n * (n - 1.0))
    return pa_i, sq


def chance_agreement_of(pi: FloatArray, M: FloatArray, chance: Chance) -> FloatArray:
    """Chance agreement :math:`P_e` of category shares ``pi`` (..., K): shape (...)."""
    K = pi.shape[-1]
    if chance == "fleiss":
        out = np.einsum("...k,kl,...l->...", pi, M, pi)
    elif chance == "gwet":
        out = M.sum() * (pi * (1.0 - pi)).sum(axis=-1) / (K * (K - 1.0))
    else:
        out = np.full(pi.shape[:-1], M.sum() / K**2)
    return np.asarray(out, dtype=np.float64)


def _parts(
    P: FloatArray, W: FloatArray, M: FloatArray, chance: Chance
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Batch ``(P_a, P_e, pi)`` for weight rows ``W`` (B, U) over count rows ``P`` (U, K)."""
    n = P.sum(axis=1)
    pa_i, _ = item_agreement(P.T, n, M)
    Nw = W.sum(axis=1)
    pa = (W @ pa_i) / Nw
    pi = (W @ (P / n[:, None])) / Nw[:, None]
    return pa, chance_agreement_of(pi, M, chance), pi


def _core(M: FloatArray, chance: Chance) -> Any:
    def core(P: FloatArray, W: FloatArray) -> FloatArray:
        pa, pe, _ = _parts(P, W, M, chance)
        return (pa - pe) / (1.0 - pe)

    return core


def count_core(weights: Weights, chance: Chance, scale: Scale, name: str) -> Any:
    """Bootstrap core of a chance-corrected count coefficient (shared with the report)."""
    return _core(weight_matrix(weights, scale, name), chance)


@dataclass(frozen=True)
class _Items:
    """Per-item quantities of the point estimate, in the (K, N) layout.

    Everything per item is a sum over K contiguous rows or a matrix-vector
    product: no (N, K) temporaries beyond the squared counts.
    """

    Xt: FloatArray
    n: FloatArray
    inv_n: FloatArray
    sq: FloatArray | None
    pa_i: FloatArray
    pi: FloatArray


def item_terms(Xt: FloatArray, M: FloatArray) -> _Items:
    n = Xt.sum(axis=0)
    N = Xt.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        inv_n = 1.0 / n
    pa_i, sq = item_agreement(Xt, n, M)
    pi = (Xt @ inv_n) / N
    return _Items(Xt, n, inv_n, sq, pa_i, pi)


def linearised_se(it: _Items, M: FloatArray, chance: Chance, *, value: float, pe: float) -> float:
    """Gwet's (2014) linearisation variance, with no finite-population correction."""
    N = it.n.size
    if N < 2 or not math.isfinite(value):
        return math.nan
    k_i = linearised_terms(it, M, chance, value=value, pe=pe)
    return float(np.sqrt(((k_i - value) ** 2).sum() / (N * (N - 1.0))))


def linearised_terms(
    it: _Items, M: FloatArray, chance: Chance, *, value: float, pe: float
) -> FloatArray:
    """Per-item terms ``k_i`` of Gwet's linearisation (``it.pi`` the shares of all items)."""
    N = it.n.size
    K = it.pi.size
    if chance == "fleiss":
        pe_i = (((M @ it.pi + M.T @ it.pi) / 2.0) @ it.Xt) * it.inv_n
    elif chance == "gwet":
        pe_i = M.sum() / (K * (K - 1.0)) * ((1.0 - it.pi) @ it.Xt) * it.inv_n
    else:
        pe_i = np.full(N, pe)
    return np.asarray(
        (it.pa_i - pe) / (1.0 - pe) - 2.0 * (1.0 - value) * (pe_i - pe) / (1.0 - pe),
        dtype=np.float64,
    )


def _count_coefficient(  # noqa: PLR0917 -- one private caller per coefficient
    name: str,
    data: Any,
    M_spec: Weights,
    chance: Chance,
    table: npt.ArrayLike | None = None,
    population_size: float | None = None,
) -> tuple[AgreementResult, CountInput, _Items | None]:
    if table is not None:
        if data is not None:
            msg = f"{name} takes either `annotations` or `table=`, not both."
            raise TypeError(msg)
        data = contingency_to_counts(table)
    elif data is None:
        msg = f"{name} needs `annotations` (label counts) or a two-rater contingency `table=`."
        raise TypeError(msg)
    inp = prepare_counts(data, name)
    K = inp.scale.K
    M = weight_matrix(M_spec, inp.scale, name)
    note = ""
    value = pa = pe = se = math.nan
    it = None
    if inp.N == 0:
        note = degenerate(name, "no item has two or more ratings")
    elif chance == "gwet" and K < 2:
        note = degenerate(name, "the scale has a single category")
    else:
        it = item_terms(inp.Xt, M)
        pa = float(it.pa_i.mean())
        pe = float(chance_agreement_of(it.pi, M, chance))
        if pe >= 1.0 - 1e-12:
            note = degenerate(
                name,
                "chance agreement is 1 (every rating falls in one category, so the expected "
                "disagreement is 0)",
            )
        else:
            value = (pa - pe) / (1.0 - pe)
            se = linearised_se(it, M, chance, value=value, pe=pe)
    if table is not None and inp.N > 0:
        # Gwet's (2014) two-rater table formulas divide by n, the item formulas by n - 1.
        se *= math.sqrt((inp.N - 1.0) / inp.N)
    se *= finite_population_factor(name, inp.N, population_size)
    # Wald test with the linearised SE, as Gwet (2014) reports (two-sided).
    z = value / se if se > 0 else math.nan
    result = AgreementResult(
        name=name,
        statistic=value,
        standard_error=se,
        n_items=inp.N,
        n_items_excluded=inp.n_excluded,
        n_annotations=inp.n_annotations,
        parts={"observed_agreement": pa, "chance_agreement": pe},
        z=z,
        pvalue=two_sided_p(z),
        note=note,
        _resampler=count_resampler(name, inp, _core(M, chance), value),
    )
    return result, inp, it


def finite_population_factor(func: str, n: int, population_size: float | None) -> float:
    """Gwet's finite-population correction of a standard error, ``sqrt(1 - n / N)``.

    ``n`` is the number of items used, ``N`` the number of items in the
    population they were sampled from (``None``: an infinite population, 1).
    """
    if population_size is None:
        return 1.0
    size = float(population_size)
    if not (size >= n and size > 0) or math.isnan(size):
        msg = (
            f"The 'population_size' parameter of {func} must be at least the {n} items used. "
            f"Got {population_size!r} instead."
        )
        raise ValueError(msg)
    return math.sqrt(1.0 - n / size) if math.isfinite(size) else 1.0


def fleiss_kappa(
    annotations: Annotations | LabelCounts | npt.ArrayLike,
    *,
    weights: Weights = None,
    population_size: float | None = None,
) -> AgreementResult:
    r"""Fleiss' kappa for any number of raters, which may vary per item.

    ``annotations``, ``weights`` (default unweighted) and ``population_size``
    as in the module docstring.

    Returns
    -------
    AgreementResult
        ``statistic`` kappa; ``standard_error`` Gwet's linearised standard error; ``parts``
        observed and chance agreement, the Fleiss-Nee-Landis standard error
        under the null ``se0`` and per-category kappas ``kappa[<label>]``;
        ``z = kappa / se0`` and its two-sided ``pvalue``. Weighted
        (``name`` ``"weighted_fleiss_kappa"``): no ``se0`` nor per-category
        kappas, and ``z = kappa / standard_error`` (Wald, as Gwet reports).

    Notes
    -----
    With the module's notation, chance agreement is
    :math:`P_e = \sum_k \pi_k^2` and

    .. math:: \kappa = \frac{P_a - P_e}{1 - P_e}.

    Items with fewer than two ratings carry no pair and are excluded (and
    counted in ``n_items_excluded``). With a fixed number of raters this is
    the textbook statistic (equal to ``statsmodels``' ``fleiss_kappa``).

    Weighted (Gwet 2014, ch. 9): :math:`P_a` counts partial agreement through
    :math:`x^w_{ik}` (module notation) and
    :math:`P_e = \sum_{kl} w_{kl} \pi_k \pi_l`.

    The standard error under the null of chance agreement (Fleiss, Nee and
    Landis 1979) with :math:`q_k = 1 - \pi_k` is

    .. math:: se_0 = \frac{\sqrt{2}}{\sum_k \pi_k q_k \sqrt{\sum_i n_i (n_i - 1)}}
              \sqrt{\Big(\sum_k \pi_k q_k\Big)^2 - \sum_k \pi_k q_k (q_k - \pi_k)},

    where :math:`\sum_i n_i (n_i - 1)` replaces :math:`N m (m - 1)` of the
    fixed-``m`` original (identical when every item has ``m`` ratings, an
    approximation otherwise). ``standard_error`` is Gwet's linearised one
    (valid away from the null), as in irrCAC.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
    *Psychological Bulletin* 76(5), 378–382. https://doi.org/10.1037/h0031619

    Fleiss, J. L., Nee, J. C. M. and Landis, J. R. (1979). Large sample
    variance of kappa in the case of different sets of raters.
    *Psychological Bulletin* 86(5), 974–977. https://doi.org/10.1037/0033-2909.86.5.974

    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability*, 4th ed.

    Examples
    --------
    The worked example of the MLRD lecture notes (29 items, 4 raters):

    >>> from dissensus import load_example
    >>> r = fleiss_kappa(load_example("course_29"))
    >>> round(r.parts["observed_agreement"], 4), round(r.parts["chance_agreement"], 3)
    (0.5804, 0.288)
    >>> round(float(r), 2)
    0.41
    """
    name = "fleiss_kappa" if weights is None else "weighted_fleiss_kappa"
    result, inp, it = _count_coefficient(
        name, annotations, weights, "fleiss", population_size=population_size
    )
    if result.note or it is None or weights is not None:
        return result
    pi = it.pi
    q = 1.0 - pi
    pq = pi * q
    spq = pq.sum()
    pairs = (it.n * (it.n - 1.0)).sum()
    se0 = math.sqrt(2.0) / (spq * math.sqrt(pairs)) * math.sqrt(spq**2 - (pq * (q - pi)).sum())
    z = result.statistic / se0
    parts = dict(result.parts)
    parts["se0"] = se0
    cat = _category_kappa(it.Xt, it)
    parts.update({f"kappa[{lab}]": float(v) for lab, v in zip(inp.scale.labels, cat, strict=True)})
    return dataclasses.replace(result, parts=parts, z=float(z), pvalue=two_sided_p(float(z)))


def _category_kappa(Xt: FloatArray, it: _Items | None = None) -> FloatArray:
    """Per-category kappas from (K, N) counts."""
    if it is None:
        it = item_terms(Xt, np.eye(Xt.shape[0]))
    n = it.n
    sq = Xt * Xt if it.sq is None else it.sq
    N = n.size
    # sum_i x_ik (n_i - x_ik) / (n_i (n_i - 1)) as two matrix-vector products
    dis = (Xt @ (1.0 / (n - 1.0)) - sq @ (1.0 / (n * (n - 1.0)))) / N
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(1.0 - dis / (it.pi * (1.0 - it.pi)), dtype=np.float64)


def fleiss_category_kappa(annotations: Annotations | LabelCounts | npt.ArrayLike) -> pd.Series:
    r"""Fleiss' kappa of each category against all others.

    Returns
    -------
    pandas.Series
        One kappa per category, indexed by label (NaN for a category nobody,
        or everybody, used).

    Notes
    -----
    .. math:: \kappa_k = 1 - \frac{\frac1N \sum_i x_{ik} (n_i - x_{ik}) / (n_i (n_i - 1))}
                                   {\pi_k (1 - \pi_k)}

    (Fleiss 1971, eq. 19, with ``m`` replaced by each item's ``n_i``).

    References
    ----------
    Fleiss, J. L. (1971). *Psychological Bulletin* 76(5), 378–382.
    https://doi.org/10.1037/h0031619

    Examples
    --------
    >>> fleiss_category_kappa([[2, 0], [0, 2], [1, 1]]).round(3).tolist()
    [0.333, 0.333]
    """
    inp = prepare_counts(annotations, "fleiss_category_kappa")
    values = _category_kappa(inp.Xt) if inp.N else np.full(inp.scale.K, np.nan)
    return pd.Series(values, index=pd.Index(inp.scale.labels, name="label"), name="kappa")


def _plain_statistic(
    name: str, data: Any, point: Any, core: Core, *, binomial_se: bool = False
) -> AgreementResult:
    """A share-type statistic (no chance correction) with its bootstrap interval."""
    inp = prepare_counts(data, name)
    note = ""
    value = se = math.nan
    if inp.N == 0:
        note = degenerate(name, "no item has two or more ratings")
    else:
        value = float(point(inp.Xt))
        if binomial_se:
            se = math.sqrt(value * (1.0 - value) / inp.N)
    return AgreementResult(
        name=name,
        statistic=value,
        standard_error=se,
        n_items=inp.N,
        n_items_excluded=inp.n_excluded,
        n_annotations=inp.n_annotations,
        note=note,
        _resampler=count_resampler(name, inp, core, value),
    )


def count_resampler(name: str, inp: CountInput, core: Core, value: float) -> Resampler:
    """The item bootstrap of a count statistic (multinomial or Poisson)."""
    return ItemBootstrap(name, lambda _: BootStatistic(core, value), count_rows(inp), inp)


# P_a and P_e on their own: the point estimates and the bootstrap cores take the
# same per-item agreement and chance formulas as the coefficients (one implementation).
def _pa_point(Xt: FloatArray) -> float:
    return float(item_terms(Xt, np.eye(Xt.shape[0])).pa_i.mean())


def _pa_core(P: FloatArray, W: FloatArray) -> FloatArray:
    return _parts(P, W, np.eye(P.shape[1]), "fleiss")[0]


def _pe_point(Xt: FloatArray) -> float:
    return float(
        chance_agreement_of(item_terms(Xt, np.eye(Xt.shape[0])).pi, np.eye(Xt.shape[0]), "fleiss")
    )


def _pe_core(P: FloatArray, W: FloatArray) -> FloatArray:
    return _parts(P, W, np.eye(P.shape[1]), "fleiss")[1]


def _unanimous_point(Xt: FloatArray) -> float:
    return float(np.mean(Xt.max(axis=0) == Xt.sum(axis=0)))


def unanimous_core(P: FloatArray, W: FloatArray) -> FloatArray:
    """Bootstrap core of :func:`share_unanimous` (shared with the report)."""
    unanimous = (P.max(axis=1) == P.sum(axis=1)).astype(np.float64)
    return np.asarray((W @ unanimous) / W.sum(axis=1), dtype=np.float64)


def observed_agreement(annotations: Annotations | LabelCounts | npt.ArrayLike) -> AgreementResult:
    r"""Mean share of agreeing rater pairs per item, :math:`P_a` (Fleiss' :math:`\bar P`).

    Returns
    -------
    AgreementResult
        .. math:: P_a = \frac1N \sum_i \frac{\sum_k x_{ik}(x_{ik} - 1)}{n_i (n_i - 1)};

        NaN when no item has two ratings.

    Examples
    --------
    >>> float(observed_agreement([[3, 2]]))  # 4 agreeing pairs out of 10
    0.4
    """
    return _plain_statistic("observed_agreement", annotations, _pa_point, _pa_core)


def chance_agreement(annotations: Annotations | LabelCounts | npt.ArrayLike) -> AgreementResult:
    r"""Fleiss' chance agreement :math:`P_e = \sum_k \pi_k^2`.

    Returns
    -------
    AgreementResult
        The probability that two ratings drawn independently from the
        category shares :math:`\pi_k` (mean per-item proportions) agree.

    Examples
    --------
    >>> float(chance_agreement([[1, 1], [1, 1]]))
    0.5
    """
    return _plain_statistic("chance_agreement", annotations, _pe_point, _pe_core)


def share_unanimous(annotations: Annotations | LabelCounts | npt.ArrayLike) -> AgreementResult:
    """Share of items on which every rater chose the same category.

    Returns
    -------
    AgreementResult
        ``statistic`` the share of unanimous items (for two raters this is the
        plain percent agreement and equals :func:`observed_agreement`); ``standard_error``
        the binomial standard error.

    Examples
    --------
    >>> float(share_unanimous([[2, 0], [1, 1], [0, 2], [2, 0]]))
    0.75
    """
    return _plain_statistic(
        "share_unanimous", annotations, _unanimous_point, unanimous_core, binomial_se=True
    )


def gwet_ac1(
    annotations: Annotations | LabelCounts | npt.ArrayLike | None = None,
    *,
    table: npt.ArrayLike | None = None,
    population_size: float | None = None,
) -> AgreementResult:
    r"""Gwet's first-order agreement coefficient AC1 for any number of raters.

    ``annotations`` (``K`` counts every category on the scale, used or not),
    ``table`` and ``population_size`` as in the module docstring.

    Returns
    -------
    AgreementResult
        ``statistic`` AC1, ``standard_error`` Gwet's linearised standard error, ``parts``
        observed and chance agreement; ``z = statistic / standard_error`` and its two-sided
        ``pvalue`` (Wald test, as Gwet reports; AC2 and Brennan-Prediger
        likewise).

    Notes
    -----
    .. math:: P_e = \frac{1}{K - 1} \sum_k \pi_k (1 - \pi_k), \qquad
              AC_1 = \frac{P_a - P_e}{1 - P_e}.

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in
    the presence of high agreement. *British Journal of Mathematical and
    Statistical Psychology* 61(1), 29–48. https://doi.org/10.1348/000711006X126600

    Examples
    --------
    >>> round(float(gwet_ac1([[2, 0], [1, 1], [0, 2], [2, 0]])), 4)
    0.5
    """
    return _count_coefficient("gwet_ac1", annotations, None, "gwet", table, population_size)[0]


def gwet_ac2(
    annotations: Annotations | LabelCounts | npt.ArrayLike | None = None,
    *,
    table: npt.ArrayLike | None = None,
    weights: Weights = "quadratic",
    population_size: float | None = None,
) -> AgreementResult:
    r"""Gwet's weighted agreement coefficient AC2 for ordered categories.

    ``annotations``, ``table``, ``weights`` (default quadratic) and
    ``population_size`` as in the module docstring.

    Notes
    -----
    Observed agreement uses weighted counts (module notation) and

    .. math:: P_e = \frac{\sum_{kl} w_{kl}}{K (K - 1)} \sum_k \pi_k (1 - \pi_k).

    With identity weights AC2 is AC1.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability*, 4th ed., ch. 3.

    Examples
    --------
    >>> round(float(gwet_ac2([[2, 0, 0], [1, 1, 0], [0, 1, 1]])), 4)
    0.5
    """
    return _count_coefficient("gwet_ac2", annotations, weights, "gwet", table, population_size)[0]


def brennan_prediger(
    annotations: Annotations | LabelCounts | npt.ArrayLike | None = None,
    *,
    table: npt.ArrayLike | None = None,
    weights: Weights = None,
    population_size: float | None = None,
) -> AgreementResult:
    r"""Brennan and Prediger's coefficient (chance = uniform over categories).

    ``annotations`` (``K`` counts every category on the scale), ``table``,
    ``weights`` (default none) and ``population_size`` as in the module docstring.

    Notes
    -----
    .. math:: P_e = \frac{\sum_{kl} w_{kl}}{K^2}

    (``1/K`` unweighted); also known as Bennett's S or free-marginal kappa.

    References
    ----------
    Brennan, R. L. and Prediger, D. J. (1981). Coefficient kappa: some uses,
    misuses, and alternatives. *Educational and Psychological Measurement*
    41(3), 687–699. https://doi.org/10.1177/001316448104100307

    Examples
    --------
    >>> float(brennan_prediger([[2, 0], [1, 1], [0, 2], [2, 0]]))
    0.5
    """
    return _count_coefficient(
        "brennan_prediger", annotations, weights, "uniform", table, population_size
    )[0]
