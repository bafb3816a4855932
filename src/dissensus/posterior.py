r"""Dirichlet posteriors over each item's label distribution, and soft labels.

Each item's true label distribution ``p`` (a point on the K-simplex) gets a
Dirichlet prior; the item's label counts update it by conjugacy.

Notation (as in the seed paper, Magnani 2025):

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

The functions here are pure NumPy/SciPy on (N, K) arrays; the expected
metrics that consume ``alpha`` live in :mod:`dissensus.metrics.expected`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import optimize, special

from dissensus._deprecation import renamed_parameters
from dissensus._dirichlet import others_sum
from dissensus._exceptions import DataError, DissensusWarning, PriorDominanceWarning
from dissensus._validation import (
    as_alpha_matrix,
    as_count_matrix,
    check_option,
    check_probability_level,
    dask_engine,
    examples,
    is_dask,
)
from dissensus.data import Annotations, LabelCounts, as_label_counts

__all__ = [
    "DEFAULT_PRIOR",
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
#: Jeffreys, from the study in docs/priors.md (``simulate.study``, 100 replicates
#: × 1,000 items per truth family, 5 metrics, 7 models): the share of model pairs
#: that expected metrics order as the truth does, averaged over the mixture,
#: ordinal, skewed (ConvAbuse-like) and flat families, is 0.509 under the uniform
#: prior, 0.713 under Jeffreys (>= uniform in 96% of the 140 cells), 0.787 under
#: the fitted priors ("empirical", "hierarchical"), which however fall to 0.599 on
#: the flat family (Jeffreys 0.928) and make every posterior depend on all items.
DEFAULT_PRIOR: str = "jeffreys"
_METHODS = ("empirical", "posterior_mean", "gaussian", "dawid_skene", "ordinal_dawid_skene", "mace")
#: Floor for fitted prior parameters of classes the data never (or hardly) use.
_MIN_ALPHA = 1e-6
#: The fixed point stops when no parameter moves by more than this, relatively.
_TOL = 1e-10


class PriorFitWarning(DissensusWarning):
    """The empirical Dirichlet prior could not be fitted cleanly.

    Raised when a class is never used (its parameter is floored), when no
    item has two or more annotations (the strength is not identified), or
    when the fixed point did not converge (the data show no overdispersion,
    so the maximum-likelihood strength is infinite).
    """


@dataclass(frozen=True)
class DirichletPrior:
    """A Dirichlet prior fitted to a dataset's counts by maximum likelihood.

    Attributes
    ----------
    alpha0 : ndarray of float64, shape (K,)
        Prior parameters, one per class.
    strength : float
        ``alpha0.sum()``: how many annotations' worth of weight the prior
        carries. Small values mean items disagree with each other a lot
        (overdispersion); large values mean every item looks like the
        dataset's average distribution.
    iterations : int
        Fixed-point iterations used.
    converged : bool
        Whether the relative change fell below the tolerance.
    log_likelihood : float
        Dirichlet-multinomial log-likelihood of the count vectors at
        ``alpha0`` (natural log, multinomial coefficients included).
    """

    alpha0: FloatArray
    strength: float
    iterations: int
    converged: bool
    log_likelihood: float

    @property
    def mean(self) -> FloatArray:
        """Prior mean label distribution, ``alpha0 / strength``."""
        return self.alpha0 / self.strength

    @property
    def value(self) -> FloatArray:
        """The prior parameters (same as :attr:`alpha0`)."""
        return self.alpha0

    def __float__(self) -> float:
        return self.strength

    def __repr__(self) -> str:
        a = ", ".join(f"{v:.4g}" for v in self.alpha0)
        state = "converged" if self.converged else "NOT converged"
        return (
            f"DirichletPrior(alpha0=[{a}], strength={self.strength:.4g}, "
            f"{state} in {self.iterations} iterations, log_likelihood={self.log_likelihood:.6g})"
        )


class CredibleInterval(NamedTuple):
    """Equal-tailed credible bounds, each of shape (N, K)."""

    low: FloatArray
    high: FloatArray


# --------------------------------------------------------------------------- input


def _counts_and_order(counts: Any) -> tuple[npt.NDArray[np.int64], Any, bool]:
    """(n, item ids (a pandas Index) or None, ordered) from LabelCounts | Annotations | array.

    A raw array carries no scale: its column order is taken as the class
    order (``ordered=True``); the item ids are its row numbers. The ids stay
    an Index (a list of a million ids cost more than the posterior itself).
    """
    if isinstance(counts, LabelCounts | Annotations) or callable(getattr(counts, "counts", None)):
        lc = as_label_counts(counts, "counts")
        return lc.values, lc.items, lc.scale.ordered
    if isinstance(counts, np.ndarray | list | tuple):
        return as_count_matrix(counts, "counts"), None, True
    lc = as_label_counts(counts, "counts")  # raises the helpful TypeError for DataFrames
    return lc.values, lc.items, True


def _prior_vector(prior: Any, n: npt.NDArray[np.int64], func: str) -> FloatArray:
    """The prior as an (N, K) or (K,) float array, validated."""
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


# --------------------------------------------------------------------------- prior fit


def _polya_loglik(alpha0: FloatArray, n: npt.NDArray[np.int64]) -> float:
    nf = n.astype(np.float64)
    ni = nf.sum(axis=1)
    s = alpha0.sum()
    ll = (
        special.gammaln(s)
        - special.gammaln(ni + s)
        + (special.gammaln(nf + alpha0) - special.gammaln(alpha0)).sum(axis=1)
        + special.gammaln(ni + 1.0)
        - special.gammaln(nf + 1.0).sum(axis=1)
    )
    return float(ll.sum())


def _check_fit_counts(n: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], FloatArray]:
    """(annotations per item, per class) of counts to fit a prior to; refuse or warn."""
    ni = n.sum(axis=1)
    total = n.sum(axis=0).astype(np.float64)
    if ni.sum() == 0:
        msg = "`counts` has no annotations at all; cannot fit a prior."
        raise DataError(msg)
    never = np.flatnonzero(total == 0)
    if never.size:
        msg = (
            f"Classes {examples(never)} are never used; their prior parameters are "
            f"floored at {_MIN_ALPHA:g} (the maximum-likelihood value is 0)."
        )
        warnings.warn(msg, PriorFitWarning, stacklevel=3)
    return ni, total


def _moment_strength(n: npt.NDArray[np.int64]) -> float:
    r"""Strength by moment matching, from items with two or more annotations.

    :math:`\operatorname{Var}(n_{ik} / n_i) = m_k (1 - m_k) (n_i + s) / (n_i (1 + s))`,
    solved for ``s`` (clipped to [0.1, 1e4]). The sums over items add sorted
    terms, so the start, and the fit, do not depend on the order of the items
    (:mod:`dissensus.distributed` fits the same prior to them in another order).
    """
    nf = n.astype(np.float64)
    ni = nf.sum(axis=1)
    multi = ni >= 2
    prop = nf[multi] / ni[multi, None]
    total = nf.sum(axis=0)
    m = total / total.sum()
    n_multi = prop.shape[0]
    v = np.sort(((prop - m) ** 2).sum(axis=1)).sum() / n_multi
    mv = (m * (1 - m)).sum()
    binom = mv * np.sort(1.0 / ni[multi]).sum() / n_multi
    # v = mv/(1+s) + binom*s/(1+s)  =>  s = (mv - v) / (v - binom)
    s = (mv - v) / (v - binom) if v > binom else np.inf
    return float(np.clip(s, 0.1, 1e4)) if np.isfinite(s) and s > 0 else 1e4


def fit_dirichlet_prior(
    counts: LabelCounts | Annotations | npt.ArrayLike,
    *,
    tol: float = _TOL,
    max_iter: int = 5000,
) -> DirichletPrior:
    r"""Fit a Dirichlet prior to a whole dataset's counts (Dirichlet-multinomial MLE).

    Each item's counts are modelled as multinomial with its own distribution
    ``p_i ~ Dir(alpha0)``; ``alpha0`` maximises the marginal (Pólya)
    likelihood of all items, found with Minka's fixed point.

    Parameters
    ----------
    counts : LabelCounts, Annotations or array_like of int, shape (N, K)
        Label counts. Items with no annotations carry no information and
        are ignored; items with one annotation inform the mean only.
    tol : float, default 1e-10
        Stop when no parameter changes by more than ``tol`` relatively.
    max_iter : int, default 5000
        Iteration cap.

    Returns
    -------
    DirichletPrior
        ``alpha0`` (K,), its ``strength`` ``alpha0.sum()``, the iterations
        used, whether they converged, and the log-likelihood.

    Raises
    ------
    DataError
        Bad counts, or no annotations at all.

    Warns
    -----
    PriorFitWarning
        A class is never used (its parameter is floored at 1e-6); no item
        has two or more annotations (the strength is not identified and is
        left at its moment-matching start); or the iteration did not
        converge (typically data without overdispersion, whose
        maximum-likelihood strength is infinite).

    Notes
    -----
    The fixed point (Minka 2000, eq. 55), vectorised over items:

    .. math::

        \alpha_k \leftarrow \alpha_k
        \frac{\sum_i \psi(n_{ik} + \alpha_k) - \psi(\alpha_k)}
             {\sum_i \psi(n_i + s) - \psi(s)}, \qquad s = \sum_k \alpha_k .

    Sums over items are taken over the distinct values of ``n_ik`` and
    ``n_i`` with their multiplicities, so a large dataset costs little per
    iteration. The start is moment matching (the pooled mean and a strength
    from the between-item variance of the proportions).

    References
    ----------
    T. Minka (2000). Estimating a Dirichlet distribution. Technical report,
    MIT. https://tminka.github.io/papers/dirichlet/

    Examples
    --------
    >>> fit = fit_dirichlet_prior([[3, 0], [0, 3], [3, 0], [0, 3], [2, 1]])
    >>> fit.converged, round(fit.strength, 3)
    (True, 0.365)
    """
    n, _, _ = _counts_and_order(counts)
    K = n.shape[1]
    ni, total = _check_fit_counts(n)

    # Distinct values with multiplicities: psi sums cost O(#distinct) per iteration.
    col_vals = [np.unique(n[:, k], return_counts=True) for k in range(K)]
    tot_vals, tot_mult = np.unique(ni, return_counts=True)
    tot_f = tot_vals.astype(np.float64)

    mean = np.maximum(total / total.sum(), _MIN_ALPHA)
    multi = ni >= 2
    if not multi.any():
        msg = (
            "No item has two or more annotations, so the prior's strength is not "
            "identified by the data; only its mean is fitted (strength left at 1)."
        )
        warnings.warn(msg, PriorFitWarning, stacklevel=2)
        alpha0 = mean / mean.sum()
        return DirichletPrior(alpha0, float(alpha0.sum()), 0, True, _polya_loglik(alpha0, n))

    alpha0 = mean / mean.sum() * _moment_strength(n)

    converged = False
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is reported
        a_sum = alpha0.sum()
        den = float(np.dot(tot_mult, special.digamma(tot_f + a_sum) - special.digamma(a_sum)))
        new = np.empty(K)
        for k, (vals, mult) in enumerate(col_vals):
            num = np.dot(mult, special.digamma(vals + alpha0[k]) - special.digamma(alpha0[k]))
            new[k] = alpha0[k] * num / den
        new = np.maximum(new, _MIN_ALPHA)
        change = float(np.max(np.abs(new - alpha0) / alpha0))
        alpha0 = new
        if change < tol:
            converged = True
            break
        if alpha0.sum() > 1e8:  # no overdispersion: the MLE strength is infinite
            break
    if not converged:
        msg = (
            f"The empirical prior did not converge in {it} iterations (strength "
            f"{alpha0.sum():.4g}); the items may show no more disagreement than "
            "binomial sampling would, in which case the best prior is infinitely strong. "
            "Consider a fixed prior."
        )
        warnings.warn(msg, PriorFitWarning, stacklevel=2)
    return DirichletPrior(alpha0, float(alpha0.sum()), it, converged, _polya_loglik(alpha0, n))


#: Hyperprior of the ``"hierarchical"`` prior: :math:`\log s \sim N(\log K + \mu, \sigma^2)`.
HYPERPRIOR_LOC: float = 0.0
#: Standard deviation of the hyperprior on the log strength (natural log).
HYPERPRIOR_SCALE: float = 2.0
#: Bounds of the fitted log parameters of the hierarchical prior.
_LOG_BOUNDS = (float(np.log(_MIN_ALPHA)), float(np.log(1e8)))


def fit_hierarchical_prior(
    counts: LabelCounts | Annotations | npt.ArrayLike,
    *,
    loc: float = HYPERPRIOR_LOC,
    scale: float = HYPERPRIOR_SCALE,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> DirichletPrior:
    r"""Fit a Dirichlet prior with a hyperprior on its strength (empirical Bayes, MAP).

    Like :func:`fit_dirichlet_prior`, each item's distribution is
    :math:`p_i \sim \mathrm{Dir}(\alpha^{(0)})` with :math:`\alpha^{(0)}`
    fitted to the whole dataset's counts; here the strength
    :math:`s = \sum_k \alpha^{(0)}_k` also gets a weakly-informative
    log-normal hyperprior, and :math:`\alpha^{(0)}` is its posterior mode.
    Where the items barely differ from each other (a near-flat truth, or
    two annotations per item), the maximum-likelihood strength runs to
    infinity, every posterior becomes the dataset's average and the
    annotations are ignored, even on items with hundreds of them. The
    hyperprior keeps the strength finite; where the data identify it, they
    dominate it.

    Parameters
    ----------
    counts : LabelCounts, Annotations or array_like of int, shape (N, K)
        Label counts. Items with no annotations are ignored.
    loc : float, default :data:`HYPERPRIOR_LOC` (0)
        Hyperprior centre, as an offset from :math:`\log K` (the uniform
        prior's strength): :math:`\log s \sim N(\log K + \text{loc}, \text{scale}^2)`.
    scale : float, default :data:`HYPERPRIOR_SCALE` (2)
        Hyperprior standard deviation of :math:`\log s`; ``numpy.inf`` gives
        a flat hyperprior, i.e. the maximum-likelihood fit of
        :func:`fit_dirichlet_prior`. The default puts 95% of the hyperprior
        on strengths within a factor :math:`e^{4} \approx 55` of ``K``.
    tol : float, default 1e-10
        Gradient tolerance of the optimiser (per item).
    max_iter : int, default 1000
        Iteration cap.

    Returns
    -------
    DirichletPrior
        ``alpha0`` at the posterior mode, its ``strength``, the iterations,
        whether the optimiser converged, and the Dirichlet-multinomial
        log-likelihood at ``alpha0`` (without the hyperprior term).

    Raises
    ------
    DataError
        Bad counts, or no annotations at all.
    ValueError
        ``scale`` not positive, ``loc`` not finite.

    Warns
    -----
    PriorFitWarning
        A class is never used (its parameter goes to the lower bound 1e-6),
        no item has two or more annotations (the strength is then the
        hyperprior's mode, :math:`K e^{\text{loc}}`), or the optimiser did
        not converge.

    Notes
    -----
    The fitted parameters maximise the log-likelihood plus the log
    hyperprior density,

    .. math::

        \ell(\alpha^{(0)}) - \frac{(\log s - \log K - \text{loc})^2}{2\,\text{scale}^2},
        \qquad s = \sum_k \alpha^{(0)}_k ,

    with :math:`\ell` the Dirichlet-multinomial (Pólya) log-likelihood of
    :func:`marginal_log_likelihood`: the posterior mode in the coordinates
    (prior mean, :math:`\log s`) under a flat density on the mean and the
    normal density on :math:`\log s` (a mode is coordinate-free once the
    densities are stated in those coordinates). As :math:`s \to \infty`,
    :math:`\ell` tends to a finite limit (the multinomial likelihood at the
    pooled mean), so the quadratic penalty always wins and the mode is
    finite. The gradient is Minka's (2000, eq. 52) plus the penalty's:

    .. math::

        \frac{\partial}{\partial \alpha_k} = \sum_i \big[\psi(n_{ik} + \alpha_k)
        - \psi(\alpha_k)\big] - \sum_i \big[\psi(n_i + s) - \psi(s)\big]
        - \frac{\log s - \log K - \text{loc}}{\text{scale}^2\, s},

    with sums over the distinct values of :math:`n_{ik}` and :math:`n_i`
    (weighted by their multiplicities); it is maximised over
    :math:`\log \alpha_k \in [\log 10^{-6}, \log 10^{8}]` by L-BFGS-B from
    the moment-matching start. Hyperpriors on the Dirichlet-multinomial
    strength follow the hierarchical beta-binomial of Gelman et al.
    (2013, sec. 5.3), which puts a diffuse proper-tailed prior on the
    strength for the same reason.

    References
    ----------
    T. Minka (2000). Estimating a Dirichlet distribution. Technical report,
    MIT. https://tminka.github.io/papers/dirichlet/

    A. Gelman, J. B. Carlin, H. S. Stern, D. B. Dunson, A. Vehtari,
    D. B. Rubin (2013). Bayesian Data Analysis, 3rd ed., sec. 5.3.
    CRC Press. https://doi.org/10.1201/b16018

    Examples
    --------
    Counts with no more disagreement than sampling: the maximum-likelihood
    strength is infinite, the hierarchical one finite.

    >>> flat = [[1, 1], [2, 0], [1, 1], [0, 2]] * 25
    >>> fit = fit_hierarchical_prior(flat)
    >>> fit.converged, round(fit.strength, 2)
    (True, 13.1)
    """
    n, _, _ = _counts_and_order(counts)
    loc = float(loc)
    scale = float(scale)
    if not np.isfinite(loc):
        msg = f"The 'loc' parameter of fit_hierarchical_prior must be finite. Got {loc!r}."
        raise ValueError(msg)
    if not scale > 0:
        msg = (
            "The 'scale' parameter of fit_hierarchical_prior must be > 0 "
            f"(numpy.inf for a flat hyperprior). Got {scale!r}."
        )
        raise ValueError(msg)
    K = n.shape[1]
    ni, total = _check_fit_counts(n)
    centre = float(np.log(K)) + loc
    mean = np.maximum(total / total.sum(), _MIN_ALPHA)
    mean /= mean.sum()
    if not (ni >= 2).any():
        msg = (
            "No item has two or more annotations, so the data say nothing about the prior's "
            f"strength; it is the hyperprior's mode, {np.exp(centre):.4g}."
        )
        warnings.warn(msg, PriorFitWarning, stacklevel=2)
        alpha0 = mean * np.exp(centre)
        return DirichletPrior(alpha0, float(alpha0.sum()), 0, True, _polya_loglik(alpha0, n))

    # distinct (value, class) pairs and distinct totals, with multiplicities
    kk = np.broadcast_to(np.arange(K), n.shape).ravel()
    pair, pair_mult = np.unique(n.ravel() * K + kk, return_counts=True)
    vals = (pair // K).astype(np.float64)
    cls = pair % K
    wts = pair_mult.astype(np.float64)
    tot_vals, tot_mult = np.unique(ni, return_counts=True)
    tot_f = tot_vals.astype(np.float64)
    tot_w = tot_mult.astype(np.float64)
    n_items = float(len(ni))
    inv_var = 0.0 if np.isinf(scale) else 1.0 / (scale * scale)

    def objective(x: FloatArray) -> tuple[float, FloatArray]:
        a = np.exp(x)
        s = a.sum()
        ac = a[cls]
        ll = float(np.dot(wts, special.gammaln(vals + ac) - special.gammaln(ac))) - float(
            np.dot(tot_w, special.gammaln(tot_f + s) - special.gammaln(s))
        )
        dev = np.log(s) - centre
        g: FloatArray = np.bincount(
            cls, wts * (special.digamma(vals + ac) - special.digamma(ac)), K
        ).astype(np.float64)
        g -= float(np.dot(tot_w, special.digamma(tot_f + s) - special.digamma(s)))
        g -= dev * inv_var / s
        value = -(ll - 0.5 * dev * dev * inv_var) / n_items
        grad: FloatArray = -(g * a) / n_items
        return value, grad

    start = np.log(
        mean * float(np.clip(_moment_strength(n), np.exp(centre - 3 * min(scale, 1e3)), 1e4))
    )
    start = np.clip(start, *_LOG_BOUNDS)
    res = optimize.minimize(
        objective,
        start,
        jac=True,
        method="L-BFGS-B",
        bounds=[_LOG_BOUNDS] * K,
        options={"maxiter": max_iter, "gtol": tol, "ftol": 0.0},
    )
    alpha0 = np.exp(res.x)
    grad_ok = float(np.max(np.abs(res.jac))) < 1e-6
    converged = bool(res.success) or grad_ok
    if not converged:
        msg = (
            f"The hierarchical prior did not converge in {res.nit} iterations (strength "
            f"{alpha0.sum():.4g}: {res.message})."
        )
        warnings.warn(msg, PriorFitWarning, stacklevel=2)
    return DirichletPrior(
        alpha0, float(alpha0.sum()), int(res.nit), converged, _polya_loglik(alpha0, n)
    )


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
    counts : LabelCounts, Annotations or array_like of int, shape (N, K)
        Label counts per item.
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
    alpha0 = _prior_vector(prior, n, "marginal_log_likelihood")
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
) -> FloatArray | Any:
    r"""Posterior Dirichlet parameters of each item's label distribution.

    Parameters
    ----------
    counts : LabelCounts, Annotations, array_like of int of shape (N, K), or Dask
        Label counts per item. A :class:`dask.dataframe.DataFrame` of long
        annotations (``item``, ``label`` columns) or a
        :class:`~dissensus.distributed.DistributedCounts` is computed on the
        cluster by :func:`dissensus.distributed.dirichlet` (see Returns).
    prior : {"uniform", "jeffreys", "empirical", "hierarchical"}, float or array_like, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        ``"uniform"``: all prior parameters 1 (the seed paper's choice);
        ``"jeffreys"``: all 0.5; ``"empirical"``: a prior fitted to the whole
        dataset by Dirichlet-multinomial maximum likelihood (call
        :func:`fit_dirichlet_prior` to see its parameters and strength);
        ``"hierarchical"``: the same fit with a weakly-informative hyperprior
        on its strength, which stays finite where the items barely differ
        (:func:`fit_hierarchical_prior`); a
        positive number for a symmetric prior; a positive array of shape
        (K,) or (N, K).

    Returns
    -------
    ndarray of float64, shape (N, K), or dask.dataframe.DataFrame
        ``alpha = prior + n``, every entry > 0. For a Dask input, a lazy Dask
        DataFrame indexed by item id, one column per label, nothing
        collected (a fitted prior is fitted once to all the items; a
        per-item (N, K) prior is refused).

    Raises
    ------
    DataError
        Bad counts (negative, fractional, NaN).
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
    variable sample sizes. ASSE 2025 (the seed paper).

    Examples
    --------
    >>> dirichlet([[0, 0, 2]], prior="uniform").tolist()
    [[1.0, 1.0, 3.0]]
    >>> dirichlet([[0, 0, 2]]).tolist()  # DEFAULT_PRIOR, Jeffreys
    [[0.5, 0.5, 2.5]]
    """
    if is_dask(counts):
        return dask_engine().dirichlet(counts, prior=prior)
    n, _, _ = _counts_and_order(counts)
    alpha0 = _prior_vector(prior, n, "dirichlet")
    out: FloatArray = n.astype(np.float64) + alpha0
    return out


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
    counts : LabelCounts, Annotations or array_like of int, shape (N, K)
        Label counts per item.
    prior : see :func:`dirichlet`, default :data:`DEFAULT_PRIOR`
        The prior to check (a fitted prior is fitted here).
    threshold : float, default 0.5
        Warn when at least this share of items has :math:`n_i \le s`.
    warn : bool, default True
        Issue :class:`~dissensus.PriorDominanceWarning` when the check fires.
    stacklevel : int, default 2
        Passed to :func:`warnings.warn`; a caller such as ``evaluate`` passes
        3 so that the warning points at its user's line.

    Returns
    -------
    PriorWarningInfo or None
        The numbers when the share reaches ``threshold``, else None.

    Raises
    ------
    DataError
        Bad counts.
    ValueError
        Bad prior, ``threshold`` outside (0, 1].

    Warns
    -----
    PriorDominanceWarning
        When the check fires and ``warn`` is true; the message says what to do.

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
        alpha0 = _prior_vector(prior, n, "prior_strength_check")
    s = alpha0.sum(axis=-1)
    ni = n.sum(axis=1)
    weak = ni <= s
    N = len(ni)
    share = float(weak.mean()) if N else 0.0
    if N == 0 or share < threshold:
        return None
    name = prior if isinstance(prior, str) else ("array" if np.ndim(prior) else f"{float(prior):g}")  # type: ignore[arg-type]
    info = PriorWarningInfo(
        prior=str(name),
        strength=float(np.median(s)),
        share_weak=share,
        n_weak=int(weak.sum()),
        n_items=N,
        median_annotations=float(np.median(ni)),
        threshold=threshold,
    )
    if warn:
        warnings.warn(info.message, PriorDominanceWarning, stacklevel=stacklevel)
    return info


def _gaussian_kernel(K: int, sigma: float) -> FloatArray:
    j = np.arange(K, dtype=np.float64)
    W = np.exp(-((j[:, None] - j[None, :]) ** 2) / (2.0 * sigma * sigma))
    kernel: FloatArray = W / W.sum(axis=1, keepdims=True)
    return kernel


def soft_labels(
    counts: LabelCounts | Annotations | npt.ArrayLike,
    *,
    method: SoftLabelMethod = "empirical",
    prior: PriorLike = DEFAULT_PRIOR,
    sigma: float = 0.5,
) -> FloatArray | Any:
    r"""Soft labels: one label distribution per item, rows on the simplex.

    Parameters
    ----------
    counts : LabelCounts, Annotations, array_like of int of shape (N, K), or Dask
        Label counts. A raw array's column order is taken as the class
        order (what ``method="gaussian"`` needs). Rows follow the items of
        the counts (of ``Annotations.counts()`` for Annotations). A
        :class:`dask.dataframe.DataFrame` of long annotations or a
        :class:`~dissensus.distributed.DistributedCounts` is computed on the
        cluster by :func:`dissensus.distributed.soft_labels` (see Returns).
    method : {"empirical", "posterior_mean", "gaussian", "dawid_skene", "ordinal_dawid_skene", \
"mace"}, default "empirical"
        ``"empirical"``: the proportions ``n_k / n``. ``"posterior_mean"``:
        the Dirichlet posterior mean ``(prior_k + n_k) / (a0 + n)``.
        ``"gaussian"``: the empirical proportions smoothed over ordered
        classes with a Gaussian kernel (the targets of the seed paper's
        Model B). ``"dawid_skene"``, ``"ordinal_dawid_skene"``, ``"mace"``:
        each item's posterior over its true label under that annotator
        model (:func:`dissensus.aggregation.soft_targets`, each model with
        its defaults; needs Annotations with annotator ids), so reliable
        annotators weigh more.
    prior : see :func:`dirichlet`, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        Used by ``method="posterior_mean"`` only.
    sigma : float, default 0.5
        Kernel width in class steps, for ``method="gaussian"``.

    Returns
    -------
    ndarray of float64, shape (N, K), or dask.dataframe.DataFrame
        Rows summing to 1. For a Dask input, a lazy Dask DataFrame indexed
        by item id, one column per label; the annotator models
        (``"dawid_skene"``, ``"ordinal_dawid_skene"``, ``"mace"``) fit all
        the items at once and are refused there (run them in memory).

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
    if is_dask(counts):
        return dask_engine().soft_labels(counts, method=method, prior=prior, sigma=sigma)
    if method in ("dawid_skene", "ordinal_dawid_skene", "mace"):
        # the annotator-id check and the fit live in one place, beside the models
        from dissensus.aggregation import fit_annotator_model  # noqa: PLC0415 -- optional layer

        fit = fit_annotator_model(counts, method, func="soft_labels")  # type: ignore[arg-type]
        posterior: FloatArray = fit.posterior.to_numpy(dtype=np.float64)
        return posterior
    n, items, ordered = _counts_and_order(counts)
    if method == "posterior_mean":
        alpha = n.astype(np.float64) + _prior_vector(prior, n, "soft_labels")
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
    smooth: FloatArray = phat @ _gaussian_kernel(n.shape[1], sigma)
    smooth /= smooth.sum(axis=1, keepdims=True)
    return smooth


@renamed_parameters(level="confidence_level")
def credible_interval(alpha: npt.ArrayLike, *, confidence_level: float = 0.95) -> CredibleInterval:
    r"""Equal-tailed credible interval of each class probability.

    Parameters
    ----------
    alpha : array_like, shape (N, K)
        Posterior Dirichlet parameters (e.g. from :func:`dirichlet`).
    confidence_level : float, default 0.95
        Posterior probability inside each interval (the glossary's one name for
        an interval's coverage; ``level`` is its old name, deprecated).

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
