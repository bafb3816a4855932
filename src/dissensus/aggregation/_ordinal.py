r"""Ordinal Dawid–Skene: each annotator a bias and a noise scale on the ordered scale.

Notation. Items :math:`i` with a latent true class :math:`z_i \in
\{0..K-1\}` (the positions of the ordered labels), prior :math:`\rho_c`.
Annotator :math:`a` perceives :math:`u = z_i + b_a + \sigma_a \varepsilon`,
:math:`\varepsilon \sim N(0, 1)`, and answers the label whose cell
:math:`(k - \tfrac12, k + \tfrac12]` holds :math:`u` (the end cells are
open). Its confusion matrix is therefore banded by an ordered probit:

.. math::

    \pi^{(a)}_{ck} = \Phi\!\left(\frac{k + \frac12 - c - b_a}{\sigma_a}\right)
                   - \Phi\!\left(\frac{k - \frac12 - c - b_a}{\sigma_a}\right),

two numbers per annotator instead of Dawid–Skene's :math:`K(K-1)`. The bias
:math:`b_a` is in label steps (positive: answers above the truth), the noise
scale :math:`\sigma_a` too. The E-step is Dawid–Skene's; the M-step
maximises :math:`\sum_{c,k} W_{ack} \log \pi^{(a)}_{ck}` with
:math:`W_{ack} = \sum_{i:\,(a, k) \in i} T_{ic}`, by Newton's method on
:math:`(\beta_a, \lambda_a) = (b_a / \sigma_a, 1 / \sigma_a)`, in which the
ordered-probit log-likelihood is concave (Pratt 1981), for all annotators at
once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import special

from dissensus._exceptions import DataError
from dissensus._validation import SeedLike
from dissensus.aggregation._dawid_skene import DawidSkeneResult, Init, fit_confusions
from dissensus.aggregation._em import EPS, answer_sums, data_codes
from dissensus.data import Annotations

__all__ = ["OrdinalDawidSkeneResult", "ordinal_dawid_skene"]

FloatArray = npt.NDArray[np.float64]

#: Bounds of 1 / sigma: a noise scale between 1e-3 and 1e3 label steps.
_LAMBDA = (1e-3, 1e3)


@dataclass(frozen=True)
class OrdinalDawidSkeneResult(DawidSkeneResult):
    r"""A fitted ordinal Dawid–Skene model.

    Everything of :class:`DawidSkeneResult` (``confusion`` holds the banded
    matrices the biases and noise scales imply), and:

    Attributes
    ----------
    bias : pandas.Series
        :math:`b_a` in label steps, indexed by annotator (positive: the
        annotator answers above the truth).
    noise : pandas.Series
        :math:`\sigma_a` in label steps (small: consistent).
    """

    bias: pd.Series
    noise: pd.Series

    def reliability(self) -> pd.DataFrame:
        """Dawid–Skene's reliability table plus each annotator's ``bias`` and ``noise``."""
        table = super().reliability()
        table["bias"] = self.bias.to_numpy()
        table["noise"] = self.noise.to_numpy()
        return table


def _offsets(K: int) -> tuple[FloatArray, FloatArray]:
    """``t[c, k]`` upper and lower cell edges minus the true class (inf at the ends)."""
    k = np.arange(K, dtype=np.float64)
    t = k[None, :] - k[:, None]
    upper = t + 0.5
    lower = t - 0.5
    upper[:, -1] = np.inf
    lower[:, 0] = -np.inf
    return upper, lower


def _probit_parts(
    beta: FloatArray, lam: FloatArray, W: FloatArray, t_hi: FloatArray, t_lo: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Objective (R,), gradient (R, 2), Hessian (R, 2, 2) in (beta, lambda), and pi."""
    b = beta[:, None, None]
    lm = lam[:, None, None]
    fin_hi, fin_lo = np.isfinite(t_hi), np.isfinite(t_lo)
    th, tl = np.where(fin_hi, t_hi, 0.0), np.where(fin_lo, t_lo, 0.0)
    u_hi, u_lo = lm * th - b, lm * tl - b
    # P = Phi(u_hi) - Phi(u_lo), from the upper tails when both are positive (no cancellation)
    upper = (u_lo > 0) & fin_lo
    cdf_hi = np.where(fin_hi, special.ndtr(np.where(upper, -u_hi, u_hi)), np.where(upper, 0.0, 1.0))
    cdf_lo = np.where(fin_lo, special.ndtr(np.where(upper, -u_lo, u_lo)), 0.0)
    P = np.maximum(np.where(upper, cdf_lo - cdf_hi, cdf_hi - cdf_lo), EPS)
    f_hi = np.where(fin_hi, np.exp(-0.5 * u_hi * u_hi) / math.sqrt(2 * math.pi), 0.0)
    f_lo = np.where(fin_lo, np.exp(-0.5 * u_lo * u_lo) / math.sqrt(2 * math.pi), 0.0)
    d_b = -(f_hi - f_lo)
    d_l = th * f_hi - tl * f_lo
    d_bb = -(u_hi * f_hi - u_lo * f_lo)
    d_bl = th * u_hi * f_hi - tl * u_lo * f_lo
    d_ll = -(th * th * u_hi * f_hi - tl * tl * u_lo * f_lo)
    w = W / P
    obj = (W * np.log(P)).sum(axis=(1, 2))
    grad = np.stack([(w * d_b).sum(axis=(1, 2)), (w * d_l).sum(axis=(1, 2))], axis=1)
    w2 = W / (P * P)
    h_bb = (w * d_bb - w2 * d_b * d_b).sum(axis=(1, 2))
    h_bl = (w * d_bl - w2 * d_b * d_l).sum(axis=(1, 2))
    h_ll = (w * d_ll - w2 * d_l * d_l).sum(axis=(1, 2))
    hess = np.stack([np.stack([h_bb, h_bl], 1), np.stack([h_bl, h_ll], 1)], 1)
    return obj, grad, hess, P


def _confusion(beta: FloatArray, lam: FloatArray, K: int) -> FloatArray:
    """Banded confusion matrices (R, K true, K answer), rows summing to 1."""
    t_hi, t_lo = _offsets(K)
    P = _probit_parts(beta, lam, np.zeros((beta.size, K, K)), t_hi, t_lo)[3]
    out: FloatArray = P / P.sum(axis=2, keepdims=True)
    return out


def _m_step_probit(
    W: FloatArray, beta: FloatArray, lam: FloatArray, *, max_newton: int = 50
) -> tuple[FloatArray, FloatArray]:
    """Maximise each annotator's expected log-likelihood over (beta, lambda), vectorised.

    Damped Newton: a step that lowers an annotator's objective is halved
    (up to 30 times); lambda stays inside ``_LAMBDA``.
    """
    K = W.shape[1]
    t_hi, t_lo = _offsets(K)
    obj, grad, hess, _ = _probit_parts(beta, lam, W, t_hi, t_lo)
    for _ in range(max_newton):
        # keep the Newton matrix negative definite (the objective is concave, but
        # floors and bounds can flatten it)
        scale = np.abs(hess[:, 0, 0]) + np.abs(hess[:, 1, 1]) + 1e-12
        H = hess - (1e-10 * scale)[:, None, None] * np.eye(2)[None]
        det = H[:, 0, 0] * H[:, 1, 1] - H[:, 0, 1] ** 2
        nd = (H[:, 0, 0] < 0) & (det > 0)
        step_b = np.where(nd, -(H[:, 1, 1] * grad[:, 0] - H[:, 0, 1] * grad[:, 1]) / det, 0.0)
        step_l = np.where(nd, -(H[:, 0, 0] * grad[:, 1] - H[:, 0, 1] * grad[:, 0]) / det, 0.0)
        # gradient ascent where the Newton matrix is not usable
        step_b = np.where(nd, step_b, grad[:, 0] / scale)
        step_l = np.where(nd, step_l, grad[:, 1] / scale)
        # Newton decrement: how much the objective can still rise (0 when done)
        gain = grad[:, 0] * step_b + grad[:, 1] * step_l
        if gain.max() < 1e-10:
            break
        size = np.ones_like(beta)
        todo = np.ones(beta.size, dtype=bool)
        new_b, new_l, new_obj = beta.copy(), lam.copy(), obj.copy()
        for _ in range(30):
            cand_b = beta + size * step_b
            cand_l = np.clip(lam + size * step_l, *_LAMBDA)
            cand_obj = _probit_parts(cand_b, cand_l, W, t_hi, t_lo)[0]
            ok = todo & (cand_obj >= obj - 1e-12 * np.abs(obj))
            new_b = np.where(ok, cand_b, new_b)
            new_l = np.where(ok, cand_l, new_l)
            new_obj = np.where(ok, cand_obj, new_obj)
            todo &= ~ok
            if not todo.any():
                break
            size = np.where(todo, size / 2.0, size)
        moved = np.maximum(np.abs(new_b - beta), np.abs(new_l - lam) / np.maximum(lam, 1.0))
        beta, lam = new_b, new_l
        if moved.max() < 1e-12:
            break
        obj, grad, hess, _ = _probit_parts(beta, lam, W, t_hi, t_lo)
    return beta, lam


def ordinal_dawid_skene(
    annotations: Annotations,
    *,
    init: Init = "majority",
    n_iter: int = 1000,
    tol: float = 1e-6,
    seed: SeedLike = 0,
) -> OrdinalDawidSkeneResult:
    r"""Fit the ordinal Dawid–Skene model: each annotator's bias and noise on an ordered scale.

    Parameters
    ----------
    annotations : Annotations
        On an ordered scale, with annotator ids.
    init, n_iter, tol, seed
        As in :func:`dawid_skene`.

    Returns
    -------
    OrdinalDawidSkeneResult
        Posteriors, class priors, ``bias`` and ``noise`` per annotator, the
        confusion matrices they imply, :meth:`~OrdinalDawidSkeneResult.reliability`
        and the convergence record.

    Raises
    ------
    DataError
        Without annotator ids, or on a nominal scale (use
        :func:`dawid_skene`).
    ValueError
        For bad options.

    Warns
    -----
    ConvergenceWarning
        When ``n_iter`` iterations did not reach ``tol``.

    Notes
    -----
    See the module notation. The labels are taken as equally spaced steps
    (their numeric values, if any, are not used). With :math:`2` parameters
    per annotator the model needs far fewer items than Dawid–Skene's
    :math:`K(K-1)`, and it cannot express confusions that skip the order
    (an annotator who swaps the two ends); use :func:`dawid_skene` for those.
    A bias shared by every annotator is confounded with the items' classes;
    the majority-vote start attributes it to the items. The noise scale is
    kept between 1e-3 and 1e3 label steps (a perfectly consistent annotator
    has no finite maximum-likelihood scale).

    This is the located latent class model of Uebersax and Grove (1990)
    with classes at the label positions and each rater's thresholds the
    label midpoints shifted by its bias, scaled by its own noise (the
    rater-specific thresholds and variances of Johnson's 1996 multirater
    ordinal probit), fitted by Dawid and Skene's EM.

    References
    ----------
    Dawid, A. P. and Skene, A. M. (1979). Maximum likelihood estimation of
    observer error-rates using the EM algorithm. *Journal of the Royal
    Statistical Society C* 28(1), 20–28. https://doi.org/10.2307/2346806

    Uebersax, J. S. and Grove, W. M. (1990). Latent class analysis of
    diagnostic agreement. *Statistics in Medicine* 9(5), 559–572.
    https://doi.org/10.1002/sim.4780090509

    Johnson, V. E. (1996). On Bayesian analysis of multirater ordinal data:
    an application to automated essay grading. *Journal of the American
    Statistical Association* 91(433), 42–51.
    https://doi.org/10.1080/01621459.1996.10476662

    Pratt, J. W. (1981). Concavity of the log likelihood. *Journal of the
    American Statistical Association* 76(373), 103–106.
    https://doi.org/10.1080/01621459.1981.10477613

    Examples
    --------
    Annotator ``c`` answers one step above the others:

    >>> df = pd.DataFrame({
    ...     "item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5],
    ...     "annotator": ["a", "b", "c"] * 5,
    ...     "label": [1, 1, 2, 2, 2, 3, 3, 3, 4, 1, 2, 2, 2, 2, 3],
    ... })
    >>> fit = ordinal_dawid_skene(Annotations.from_frame(df, scale=[1, 2, 3, 4]))
    >>> fit.labels.tolist()
    [1, 2, 3, 1, 2]
    >>> fit.bias.round(1).to_dict()
    {'a': -0.1, 'b': 0.4, 'c': 0.9}
    """
    func = "ordinal_dawid_skene"
    d = data_codes(func, annotations, n_iter=n_iter, tol=tol, init=init)
    if not annotations.scale.ordered:
        msg = (
            f"{func} models each annotator's bias on an ordered scale, but the scale is nominal "
            f"({annotations.scale!r}); use dawid_skene, or load the labels with ordered=True."
        )
        raise DataError(msg)
    beta, lam = np.zeros(d.R), np.ones(d.R)

    def confusion(T: FloatArray) -> FloatArray:
        nonlocal beta, lam
        beta, lam = _m_step_probit(answer_sums(T, d), beta, lam)
        return _confusion(beta, lam, d.K)

    def extra() -> dict[str, pd.Series]:
        return {"bias": pd.Series(beta / lam, index=d.annotators, name="bias"),
                "noise": pd.Series(1.0 / lam, index=d.annotators, name="noise")}  # fmt: skip

    return fit_confusions(OrdinalDawidSkeneResult, annotations, d, func=func, confusion=confusion,
                          extra=extra, init=init, n_iter=n_iter, tol=tol, seed=seed)  # fmt: skip
