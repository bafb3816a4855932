r"""Dirichlet posteriors over each item's label distribution, and soft labels.

Each item's true label distribution ``p`` (a point on the K-simplex) gets a
Dirichlet prior; the item's label counts update it by conjugacy.

Notation (as in Magnani 2025, ASSE):

``n``
    (N, K) label counts, ``n[i, k]`` annotators gave item ``i`` class ``k``;
    ``n_i`` the item's total.
``alpha``
    (N, K) posterior Dirichlet parameters, ``alpha = prior + n``.
``a0``
    ``alpha.sum(1)``, the posterior strength of each item.
``A_k``
    cumulative sums ``alpha_1 + … + alpha_k`` (used by the ordinal metrics).

Marginals: :math:`p_k \sim \mathrm{Beta}(\alpha_k, a_0 - \alpha_k)`.

``counts``, the first argument of every function, is a :class:`LabelCounts`,
:class:`Annotations` or an (N, K) array of label counts (a raw array's
columns are the classes in order, as ``method="gaussian"`` needs); bad counts raise :class:`DataError`. The
functions are NumPy/SciPy on (N, K) arrays; the expected metrics that consume
``alpha`` live in :mod:`dissensus.metrics.expected`. For Dask collections
use :mod:`dissensus.distributed`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import special

from dissensus._dirichlet import others_sum
from dissensus._exceptions import DataError, PriorDominanceWarning
from dissensus._validation import (
    as_alpha_matrix,
    check_option,
    check_probability_level,
    examples,
    refuse_dask,
)
from dissensus.aggregation import fit_annotator_model
from dissensus.data import Annotations, LabelCounts
from dissensus.posterior._fit import (
    HYPERPRIOR_LOC,
    HYPERPRIOR_SCALE,
    DirichletPrior,
    PriorFitWarning,
    _counts_and_order,
    _polya_loglik,
    fit_dirichlet_prior,
    fit_hierarchical_prior,
)

__all__ = [
    "DEFAULT_PRIOR",
    "HYPERPRIOR_LOC",
    "HYPERPRIOR_SCALE",
    "CredibleInterval",
    "DirichletPrior",
    "PriorFitWarning",
    "PriorWarningInfo",
    "credible_interval",
    "dirichlet",
    "fit_dirichlet_prior",
    "fit_hierarchical_prior",
    "marginal_log_likelihood",
    "prior_strength_check",
    "prior_vector",
    "soft_labels",
]

FloatArray = npt.NDArray[np.float64]
PriorLike = Literal["uniform", "jeffreys", "empirical", "hierarchical"] | float | npt.ArrayLike
SoftLabelMethod = Literal[
    "empirical", "posterior_mean", "gaussian", "dawid_skene", "ordinal_dawid_skene", "mace"
]

_NAMED_PRIORS = ("uniform", "jeffreys", "empirical", "hierarchical")
#: The prior every public ``prior=`` default uses (``evaluate``, ``dirichlet``,
#: ``next_items``, ``leaderboard``, the models, the CLI's ``--prior``).
#: Jeffreys, from the study in docs/priors.md: expected metrics order model pairs as
#: the truth does in 0.713 of cases (uniform 0.509); the fitted priors reach 0.787 but
#: fall to 0.599 on flat truths (Jeffreys 0.928) and tie every posterior to all items.
DEFAULT_PRIOR: str = "jeffreys"
_METHODS = ("empirical", "posterior_mean", "gaussian", "dawid_skene", "ordinal_dawid_skene", "mace")


class CredibleInterval(NamedTuple):
    """Equal-tailed credible bounds, each of shape (N, K)."""

    low: FloatArray
    high: FloatArray


def prior_vector(prior: PriorLike, n: npt.NDArray[np.int64], func: str) -> FloatArray:
    """The prior of counts ``n`` as a validated (K,) or (N, K) float array (a named one fitted).

    ``func`` names the caller in error messages.

    Examples
    --------
    >>> prior_vector("jeffreys", np.array([[1, 2]]), "f").tolist()
    [0.5, 0.5]
    """
    K = n.shape[1]
    if isinstance(prior, str):
        check_option(func, "prior", prior, _NAMED_PRIORS)
        if prior == "uniform":
            return np.ones(K)
        if prior == "jeffreys":
            return np.full(K, 0.5)
        if prior == "hierarchical":
            return fit_hierarchical_prior(n).alpha0
        return fit_dirichlet_prior(n).alpha0
    arr = np.asarray(prior, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(K, float(arr))
    if arr.shape not in {(K,), n.shape}:
        msg = (
            f"The 'prior' parameter of {func} must be a name, a number, or an array of "
            f"shape ({K},) or {n.shape}. Got shape {arr.shape} instead."
        )
        raise ValueError(msg)
    if not (np.all(np.isfinite(arr)) and np.all(arr > 0)):
        bad = arr[~(np.isfinite(arr) & (arr > 0))]
        msg = (
            f"The 'prior' parameter of {func} must be finite and > 0 "
            f"(e.g. 1 = uniform, 0.5 = Jeffreys). Got {examples(bad.ravel())}."
        )
        raise ValueError(msg)
    return arr


def marginal_log_likelihood(
    counts: LabelCounts | Annotations | npt.ArrayLike,
    *,
    prior: PriorLike = DEFAULT_PRIOR,
) -> float:
    r"""Dirichlet-multinomial (Pólya) log-likelihood of the counts under a prior.

    How well a prior explains the data: each item's counts are multinomial
    with its own :math:`p_i \sim \mathrm{Dir}(\alpha^{(0)})`, integrated
    out. Comparing this number across priors says which one the data
    support; the ``"empirical"`` prior maximises it (it is the fit of
    :func:`fit_dirichlet_prior`).

    Parameters
    ----------
    prior : {"uniform", "jeffreys", "empirical", "hierarchical"}, float or array_like, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        As in :func:`dirichlet`.

    Returns
    -------
    float
        Natural log, multinomial coefficients included, summed over items.

    Notes
    -----
    .. math::

        \log P(n \mid \alpha^{(0)}) = \sum_i \Big[\log\Gamma(s) - \log\Gamma(n_i + s)
        + \sum_k \big(\log\Gamma(n_{ik} + \alpha^{(0)}_k) - \log\Gamma(\alpha^{(0)}_k)\big)
        + \log \binom{n_i}{n_{i1}, \dots, n_{iK}}\Big], \qquad s = \sum_k \alpha^{(0)}_k .

    References
    ----------
    T. Minka (2000). Estimating a Dirichlet distribution. Technical report,
    MIT. https://tminka.github.io/papers/dirichlet/

    Examples
    --------
    >>> round(marginal_log_likelihood([[2, 0], [0, 2]], prior="uniform"), 4)
    -2.1972
    >>> bool(marginal_log_likelihood([[2, 0], [0, 2]], prior="jeffreys")
    ...      > marginal_log_likelihood([[2, 0], [0, 2]], prior="uniform"))
    True
    """
    n, _, _ = _counts_and_order(counts)
    alpha0 = prior_vector(prior, n, "marginal_log_likelihood")
    if alpha0.ndim != 1:
        msg = (
            "The 'prior' parameter of marginal_log_likelihood must be one prior for every item "
            f"(a name, a number or shape ({n.shape[1]},)); got shape {alpha0.shape}."
        )
        raise ValueError(msg)
    return _polya_loglik(alpha0, n)


# --------------------------------------------------------------------------- posterior


def dirichlet(
    counts: LabelCounts | Annotations | npt.ArrayLike,
    *,
    prior: PriorLike = DEFAULT_PRIOR,
) -> FloatArray:
    r"""Posterior Dirichlet parameters of each item's label distribution.

    Parameters
    ----------
    prior : {"uniform", "jeffreys", "empirical", "hierarchical"}, float or array_like, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        ``"uniform"``: all prior parameters 1 (Magnani 2025); ``"jeffreys"``:
        all 0.5; ``"empirical"``: fitted to the whole dataset by
        Dirichlet-multinomial maximum likelihood (:func:`fit_dirichlet_prior`);
        ``"hierarchical"``: the same fit with a hyperprior on its strength
        (:func:`fit_hierarchical_prior`); a positive number (symmetric prior);
        a positive array of shape (K,) or (N, K).

    Returns
    -------
    ndarray of float64, shape (N, K)
        ``alpha = prior + n``, every entry > 0.

    Raises
    ------
    ValueError
        Unknown prior name, or a non-positive or wrongly shaped prior.

    Warns
    -----
    PriorFitWarning
        With ``prior="empirical"`` or ``"hierarchical"``, when the fit is
        degenerate (see :func:`fit_dirichlet_prior`).

    Notes
    -----
    Conjugacy: with :math:`p \sim \mathrm{Dir}(\alpha^{(0)})` and
    multinomial counts :math:`n`, :math:`p \mid n \sim \mathrm{Dir}(\alpha^{(0)} + n)`;
    the posterior mean is :math:`(\alpha^{(0)}_k + n_k) / (a^{(0)} + n)`.

    References
    ----------
    A. Magnani (2025). Soft metrics for ordinal label uncertainty with
    variable sample sizes. ASSE 2025.

    Examples
    --------
    >>> dirichlet([[0, 0, 2]], prior="uniform").tolist()
    [[1.0, 1.0, 3.0]]
    >>> dirichlet([[0, 0, 2]]).tolist()  # DEFAULT_PRIOR, Jeffreys
    [[0.5, 0.5, 2.5]]
    """
    refuse_dask(counts, "dirichlet", "dirichlet")
    n, _, _ = _counts_and_order(counts)
    alpha0 = prior_vector(prior, n, "dirichlet")
    return n.astype(np.float64) + alpha0


@dataclass(frozen=True)
class PriorWarningInfo:
    r"""How much a Dirichlet prior weighs against the annotations, item by item.

    Attributes
    ----------
    prior : str
        The prior's name (or ``"array"``/the number for a given one).
    strength : float
        The prior's pseudo-count :math:`s = \sum_k \alpha^{(0)}_k` (the
        median over items for a per-item prior).
    share_weak : float
        Share of items with :math:`n_i \le s`: the prior weighs at least as
        much as the item's annotations in its posterior.
    n_weak, n_items : int
        Those items, and all items.
    median_annotations : float
        Median annotations per item.
    threshold : float
        ``share_weak`` at or above which the check warns.
    """

    prior: str
    strength: float
    share_weak: float
    n_weak: int
    n_items: int
    median_annotations: float
    threshold: float

    @property
    def statistic(self) -> float:
        """The share of items where the prior dominates (same as :attr:`share_weak`)."""
        return self.share_weak

    def __float__(self) -> float:
        return self.share_weak

    @property
    def message(self) -> str:
        """The warning text: what is wrong and what to do."""
        advice = [
            "a weaker prior (prior='jeffreys' or a small number such as 0.1)",
            "a prior fitted to the data (prior='hierarchical')",
            "or more annotations per item",
        ]
        if self.prior == "hierarchical":
            advice = [
                "the items barely differ from each other, so the fitted prior is strong "
                "and right; expected metrics will then favour predictions near the average "
                "label distribution. Compare with prior='jeffreys', or add annotations"
            ]
        return (
            f"The {self.prior!r} prior weighs {self.strength:.3g} annotations, at least as much "
            f"as the annotations of {self.share_weak:.0%} of the items ({self.n_weak:,} of "
            f"{self.n_items:,}; median {self.median_annotations:g} annotations per item), so "
            "expected metrics lean towards predictions close to the prior's mean. Consider "
            + ", ".join(advice)
            + "."
        )


def prior_strength_check(
    counts: LabelCounts | Annotations | npt.ArrayLike,
    prior: PriorLike = DEFAULT_PRIOR,
    *,
    threshold: float = 0.5,
    warn: bool = True,
    stacklevel: int = 2,
) -> PriorWarningInfo | None:
    r"""Warn when the prior's pseudo-counts rival the annotations on most items.

    A Dirichlet prior of strength :math:`s` enters each posterior mean as
    :math:`s` extra annotations at the prior's mean,
    :math:`(\alpha^{(0)}_k + n_{ik}) / (s + n_i)`; where :math:`n_i \le s`
    the prior has at least half the say. On such data expected metrics
    reward predictions close to the prior's mean: the uniform prior's five
    pseudo-counts outweigh ConvAbuse's 2–3 annotations per item and make a
    flat predictor look better than the label marginal (docs/priors.md).

    Parameters
    ----------
    prior : see :func:`dirichlet`, default :data:`DEFAULT_PRIOR`
        The prior to check (a fitted prior is fitted here).
    threshold : float, default 0.5
        Warn when at least this share of items has :math:`n_i \le s`.
    warn : bool, default True
        Issue :class:`~dissensus.PriorDominanceWarning` when the check fires.
    stacklevel : int, default 2
        Of :func:`warnings.warn` (``evaluate`` passes 3: its user's line).

    Returns
    -------
    PriorWarningInfo or None
        The numbers when the share reaches ``threshold``, else None.

    Raises
    ------
    ValueError
        Bad prior, ``threshold`` outside (0, 1].

    Examples
    --------
    >>> info = prior_strength_check([[2, 0, 0, 0, 1], [0, 3, 0, 0, 0]], "uniform", warn=False)
    >>> info.strength, info.share_weak
    (5.0, 1.0)
    >>> prior_strength_check([[20, 10], [5, 25]], "uniform") is None
    True
    """
    threshold = float(threshold)
    if not 0 < threshold <= 1:
        msg = f"The 'threshold' parameter of prior_strength_check must be in (0, 1]. Got {threshold!r}."
        raise ValueError(msg)
    n, _, _ = _counts_and_order(counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PriorFitWarning)
        alpha0 = prior_vector(prior, n, "prior_strength_check")
    s, ni = alpha0.sum(axis=-1), n.sum(axis=1)
    weak = ni <= s
    N = len(ni)
    if N == 0 or weak.mean() < threshold:
        return None
    name = prior if isinstance(prior, str) else ("array" if np.ndim(prior) else f"{float(prior):g}")  # type: ignore[arg-type]
    info = PriorWarningInfo(
        prior=str(name),
        strength=float(np.median(s)),
        share_weak=float(weak.mean()),
        n_weak=int(weak.sum()),
        n_items=N,
        median_annotations=float(np.median(ni)),
        threshold=threshold,
    )
    if warn:
        warnings.warn(info.message, PriorDominanceWarning, stacklevel=stacklevel)
    return info


def soft_labels(
    counts: LabelCounts | Annotations | npt.ArrayLike,
    *,
    method: SoftLabelMethod = "empirical",
    prior: PriorLike = DEFAULT_PRIOR,
    sigma: float = 0.5,
) -> FloatArray:
    r"""Soft labels: one label distribution per item, rows on the simplex.

    Parameters
    ----------
    method : {"empirical", "posterior_mean", "gaussian", "dawid_skene", "ordinal_dawid_skene", \
"mace"}, default "empirical"
        ``"empirical"``: the proportions ``n_k / n``. ``"posterior_mean"``:
        the Dirichlet posterior mean ``(prior_k + n_k) / (a0 + n)``.
        ``"gaussian"``: the empirical proportions smoothed over ordered
        classes with a Gaussian kernel (the targets of Magnani 2025, Model
        B). ``"dawid_skene"``, ``"ordinal_dawid_skene"``, ``"mace"``: each
        item's posterior over its true label under that annotator
        model (:func:`dissensus.aggregation.soft_targets`, each model with
        its defaults; needs Annotations with annotator ids), so reliable
        annotators weigh more.
    prior : see :func:`dirichlet`, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        Used by ``method="posterior_mean"`` only.
    sigma : float, default 0.5
        Kernel width in class steps, for ``method="gaussian"``.

    Returns
    -------
    ndarray of float64, shape (N, K)
        Rows summing to 1, one per item of the counts (of ``Annotations.counts()``).

    Raises
    ------
    DataError
        Items without annotations with ``"empirical"`` or ``"gaussian"``
        (their proportions are undefined; use ``"posterior_mean"``), or
        ``"gaussian"`` on a nominal scale.
    ValueError
        Unknown method, ``sigma`` not positive and finite.

    Notes
    -----
    Gaussian smoothing moves the mass of each source class :math:`j` to the
    classes :math:`k` of the scale in proportion to
    :math:`w_{jk} = \exp(-(j - k)^2 / (2\sigma^2))`, renormalised over
    :math:`k` for each source :math:`j`:

    .. math::

        \tilde p_k = \sum_j \hat p_j \frac{w_{jk}}{\sum_{k'} w_{jk'}} .

    No mass leaks off the ends of the scale: what a kernel centred on an end
    class would put beyond it stays on the scale, so each source class keeps
    its total mass and every row still sums to 1 (rows are renormalised
    once more only against rounding). As :math:`\sigma \to 0` this is the
    identity.

    Examples
    --------
    >>> soft_labels([[1, 3, 0]]).tolist()
    [[0.25, 0.75, 0.0]]
    >>> soft_labels([[1, 3, 0]], method="posterior_mean", prior="uniform").round(4).tolist()
    [[0.2857, 0.5714, 0.1429]]
    >>> soft_labels([[0, 0, 4]], method="gaussian", sigma=0.5).round(4).tolist()
    [[0.0003, 0.1192, 0.8805]]
    """
    check_option("soft_labels", "method", method, _METHODS)
    refuse_dask(counts, "soft_labels", "soft_labels")
    if method in ("dawid_skene", "ordinal_dawid_skene", "mace"):
        # the annotator-id check and the fit live in one place, beside the models
        fit = fit_annotator_model(counts, method, func="soft_labels")  # type: ignore[arg-type]
        return np.asarray(fit.posterior, dtype=np.float64)
    n, items, ordered = _counts_and_order(counts)
    if method == "posterior_mean":
        alpha = n.astype(np.float64) + prior_vector(prior, n, "soft_labels")
        mean: FloatArray = alpha / alpha.sum(axis=1, keepdims=True)
        return mean
    if method == "gaussian":
        if not ordered:
            msg = (
                "Gaussian smoothing needs ordered classes, but the scale of `counts` is "
                "nominal; build it with Scale.ordinal(...) (or ordered=True) if the labels "
                "have an order."
            )
            raise DataError(msg)
        sigma = float(sigma)
        if not (np.isfinite(sigma) and sigma > 0):
            msg = f"The 'sigma' parameter of soft_labels must be finite and > 0. Got {sigma!r}."
            raise ValueError(msg)
    ni = n.sum(axis=1)
    empty = np.flatnonzero(ni == 0)
    if empty.size:
        ids = empty if items is None else np.asarray(items, dtype=object)[empty]
        msg = (
            f"{empty.size} items have no annotations, so their empirical distribution is "
            f"undefined: {examples(ids)}. Drop them or use method='posterior_mean'."
        )
        raise DataError(msg)
    phat: FloatArray = n / ni[:, None].astype(np.float64)
    if method == "empirical":
        return phat
    j = np.arange(n.shape[1], dtype=np.float64)
    W = np.exp(-((j[:, None] - j[None, :]) ** 2) / (2.0 * sigma * sigma))
    smooth: FloatArray = phat @ (W / W.sum(axis=1, keepdims=True))
    smooth /= smooth.sum(axis=1, keepdims=True)
    return smooth


def credible_interval(alpha: npt.ArrayLike, *, confidence_level: float = 0.95) -> CredibleInterval:
    r"""Equal-tailed credible interval of each class probability.

    Parameters
    ----------
    alpha : array_like, shape (N, K)
        Posterior Dirichlet parameters (e.g. from :func:`dirichlet`).
    confidence_level : float, default 0.95
        Posterior probability inside each interval.

    Returns
    -------
    CredibleInterval
        ``(low, high)``, each (N, K): the :math:`(1 \mp \text{level})/2`
        quantiles of the Beta marginals (:math:`\text{level}` = ``confidence_level``).

    Raises
    ------
    DataError
        ``alpha`` not finite and positive.
    ValueError
        ``confidence_level`` outside (0, 1).

    Notes
    -----
    :math:`p_k \sim \mathrm{Beta}(\alpha_k, a_0 - \alpha_k)`, with
    :math:`a_0 - \alpha_k` summed from the other classes (no cancellation).
    The intervals are marginal: they hold for each class separately, not
    jointly.

    Examples
    --------
    >>> interval = credible_interval([[1.0, 1.0]], confidence_level=0.9)
    >>> interval.low.tolist(), interval.high.tolist()
    ([[0.05, 0.05]], [[0.95, 0.95]])
    """
    a = as_alpha_matrix(alpha, "alpha")
    level = check_probability_level("credible_interval", "confidence_level", confidence_level)
    b = others_sum(a)
    tail = (1.0 - level) / 2.0
    low = np.asarray(special.betaincinv(a, b, tail), dtype=np.float64)
    high = np.asarray(special.betaincinv(a, b, 1.0 - tail), dtype=np.float64)
    return CredibleInterval(low, high)
