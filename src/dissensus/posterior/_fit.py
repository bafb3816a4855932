"""Dirichlet priors fitted to a whole dataset's counts: maximum likelihood or with a hyperprior."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import optimize, special

from dissensus._exceptions import DataError, DissensusWarning
from dissensus._validation import as_count_matrix, examples
from dissensus.data import Annotations, LabelCounts, as_label_counts

FloatArray = npt.NDArray[np.float64]
#: Floor for fitted prior parameters of classes the data never (or hardly) use.
_MIN_ALPHA = 1e-6


class PriorFitWarning(DissensusWarning):
    """A fitted Dirichlet prior is degenerate (see the Warns of :func:`fit_dirichlet_prior`)."""


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

    def __float__(self) -> float:
        return self.strength

    def __repr__(self) -> str:
        a = ", ".join(f"{v:.4g}" for v in self.alpha0)
        state = "converged" if self.converged else "NOT converged"
        return (
            f"DirichletPrior(alpha0=[{a}], strength={self.strength:.4g}, "
            f"{state} in {self.iterations} iterations, log_likelihood={self.log_likelihood:.6g})"
        )


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
    """(annotations per item, floored class shares) of counts to fit a prior to; refuse or warn."""
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
    mean = np.maximum(total / total.sum(), _MIN_ALPHA)
    return ni, mean / mean.sum()


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
    tol: float = 1e-10,
    max_iter: int = 5000,
) -> DirichletPrior:
    r"""Fit a Dirichlet prior to a whole dataset's counts (Dirichlet-multinomial MLE).

    Each item's counts are modelled as multinomial with its own distribution
    ``p_i ~ Dir(alpha0)``; ``alpha0`` maximises the marginal (Pólya)
    likelihood of all items, found with Minka's fixed point.

    Items with no annotations are ignored; items with one inform the mean only.

    Parameters
    ----------
    tol : float, default 1e-10
        Stop when no parameter changes by more than ``tol`` relatively.
    max_iter : int, default 5000
        Iteration cap.

    Returns
    -------
    DirichletPrior
        ``alpha0`` (K,), with its strength, iterations and log-likelihood.

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
    ni, mean = _check_fit_counts(n)

    # Distinct values with multiplicities: psi sums cost O(#distinct) per iteration.
    col_vals = [np.unique(n[:, k], return_counts=True) for k in range(K)]
    tot_vals, tot_mult = np.unique(ni, return_counts=True)
    tot_f = tot_vals.astype(np.float64)

    if not (ni >= 2).any():
        msg = (
            "No item has two or more annotations, so the prior's strength is not "
            "identified by the data; only its mean is fitted (strength left at 1)."
        )
        warnings.warn(msg, PriorFitWarning, stacklevel=2)
        return DirichletPrior(mean, float(mean.sum()), 0, True, _polya_loglik(mean, n))

    alpha0 = mean * _moment_strength(n)

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

    As :func:`fit_dirichlet_prior`, with a weakly-informative log-normal
    hyperprior on the strength :math:`s = \sum_k \alpha^{(0)}_k`:
    :math:`\alpha^{(0)}` is its posterior mode. Where the items barely
    differ (a near-flat truth, two annotations per item) the
    maximum-likelihood strength is infinite and every posterior becomes the
    dataset's average; the hyperprior keeps it finite, and where the data
    identify it, they dominate it.

    Parameters
    ----------
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
        ``alpha0`` at the posterior mode; its log-likelihood is without the hyperprior term.

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

    with :math:`\ell` the Pólya log-likelihood of :func:`marginal_log_likelihood`
    (the posterior mode in the coordinates (prior mean, :math:`\log s`), flat
    on the mean). As :math:`s \to \infty`, :math:`\ell` tends to a finite
    limit, so the penalty wins and the mode is finite. The gradient is
    Minka's (2000, eq. 52) plus the penalty's:

    .. math::

        \frac{\partial}{\partial \alpha_k} = \sum_i \big[\psi(n_{ik} + \alpha_k)
        - \psi(\alpha_k)\big] - \sum_i \big[\psi(n_i + s) - \psi(s)\big]
        - \frac{\log s - \log K - \text{loc}}{\text{scale}^2\, s},

    with sums over the distinct values of :math:`n_{ik}` and :math:`n_i`,
    maximised over :math:`\log \alpha_k \in [\log 10^{-6}, \log 10^{8}]`
    by L-BFGS-B from the moment-matching start. The hyperprior follows the
    hierarchical beta-binomial of Gelman et al. (2013, sec. 5.3).

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
    loc, scale = float(loc), float(scale)
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
    ni, mean = _check_fit_counts(n)
    centre = float(np.log(K)) + loc
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
    vals, cls = (pair // K).astype(np.float64), pair % K
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
        return -(ll - 0.5 * dev * dev * inv_var) / n_items, -(g * a) / n_items

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
