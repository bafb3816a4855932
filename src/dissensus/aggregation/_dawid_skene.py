r"""Dawid–Skene and its ordinal variant: annotator confusion matrices and item posteriors by EM.

Notation (Dawid and Skene 1979). Items :math:`i = 1..N` with a latent true
class :math:`z_i \in \{1..K\}`, prior :math:`\rho_c = P(z_i = c)`; annotator
:math:`a` answers label :math:`y` to an item of true class :math:`c` with
probability :math:`\pi^{(a)}_{cy}` (row :math:`c` of its confusion matrix
sums to 1). With :math:`T_{ic} = P(z_i = c \mid \text{data})`:

- E-step: :math:`\log T_{ic} = \log \rho_c + \sum_{(a, y) \in i} \log \pi^{(a)}_{cy} - \log Z_i`;
- M-step: :math:`\rho_c = \frac1N \sum_i T_{ic}`,
  :math:`\pi^{(a)}_{cy} \propto s + \sum_{i:\,(a, y) \in i} T_{ic}`
  (``s`` the ``smoothing`` pseudo-count).

Every step is one :func:`numpy.bincount` per class over the annotations (no
loop over items or annotators); the log-likelihood :math:`\sum_i \log Z_i`
never decreases.

**Ordinal variant.** Classes at the positions :math:`0..K-1` of the
ordered labels; annotator :math:`a` perceives :math:`u = z_i + b_a +
\sigma_a \varepsilon`, :math:`\varepsilon \sim N(0, 1)`, and answers the
label whose cell :math:`(k - \tfrac12, k + \tfrac12]` holds :math:`u` (the
end cells are open): a confusion matrix banded by an ordered probit,

.. math::

    \pi^{(a)}_{ck} = \Phi\!\left(\frac{k + \frac12 - c - b_a}{\sigma_a}\right)
                   - \Phi\!\left(\frac{k - \frac12 - c - b_a}{\sigma_a}\right),

two numbers per annotator instead of :math:`K(K-1)`. The bias :math:`b_a`
and the noise scale :math:`\sigma_a` are in label steps (positive bias:
answers above the truth). Its M-step maximises
:math:`\sum_{c,k} W_{ack} \log \pi^{(a)}_{ck}`,
:math:`W_{ack} = \sum_{i:\,(a, k) \in i} T_{ic}`, by Newton's method on
:math:`(\beta_a, \lambda_a) = (b_a / \sigma_a, 1 / \sigma_a)`, in which the
ordered-probit log-likelihood is concave (Pratt 1981), for all annotators
at once.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import numpy as np
import pandas as pd
from scipy import special

from dissensus._exceptions import DataError
from dissensus._validation import SeedLike, as_generator
from dissensus.aggregation._em import (
    EPS,
    AnnotatorModel,
    Data,
    FloatArray,
    check_number,
    data_codes,
    log_normalize,
    run_em,
)
from dissensus.data import Annotations

Init = Literal["majority", "random"]
R = TypeVar("R", bound="DawidSkeneResult")
#: Bounds of 1 / sigma: a noise scale between 1e-3 and 1e3 label steps.
_LAMBDA = (1e-3, 1e3)


@dataclass(frozen=True)
class DawidSkeneResult(AnnotatorModel):
    r"""A fitted Dawid–Skene model: the fields of an annotator model, and those below.

    Attributes
    ----------
    priors : pandas.Series
        Class prior :math:`\rho_c`, indexed by label.
    confusion : ndarray of float64, shape (R, K, K)
        ``confusion[a, c, y]`` = P(annotator ``a`` answers ``y`` | true ``c``);
        each ``confusion[a, c]`` sums to 1.
    """

    priors: pd.Series
    confusion: FloatArray = field(repr=False)

    def confusion_matrix(self, annotator: object) -> pd.DataFrame:
        """One annotator's confusion matrix: rows the true label, columns the answer."""
        pos = self.annotators.get_indexer(pd.Index([annotator], dtype=object))[0]
        if pos < 0:
            msg = f"No annotator {annotator!r} in this model."
            raise KeyError(msg)
        labels = pd.Index(self.scale.labels)
        return pd.DataFrame(self.confusion[pos], labels.rename("true"), labels.rename("answer"))

    def reliability(self) -> pd.DataFrame:
        r"""One row per annotator: how reliable the model finds them.

        Columns: ``n_annotations``; ``accuracy``
        :math:`\sum_c \rho_c \pi^{(a)}_{cc}`, the probability of a correct
        answer on an item drawn from the prior; ``mean_recall``, the mean of
        the diagonal of the confusion matrix (chance level is :math:`1/K`);
        ``spamminess``, :math:`1 - \|\pi^{(a)} - \mathbf{1}\bar\pi^{(a)}\|_F /
        \|I - \mathbf{1}\mathbf{1}^\top / K\|_F` in :math:`[0, 1]`, where
        :math:`\bar\pi^{(a)}` is the mean row: 1 when every row is the same
        (answers independent of the truth: a spammer in the sense of Raykar
        and Yu 2012), 0 for a perfect (or consistently permuting) annotator.
        """
        C = self.confusion
        K = C.shape[1]
        rho = self.priors.to_numpy()
        diag = np.einsum("acc->ac", C)
        mean_row = C.mean(axis=1, keepdims=True)
        spread = np.sqrt(((C - mean_row) ** 2).sum(axis=(1, 2)))
        perfect = np.sqrt(((np.eye(K) - 1.0 / K) ** 2).sum())
        spamminess = np.clip(1.0 - spread / perfect, 0.0, 1.0)
        return self._per_annotator(
            accuracy=diag @ rho, mean_recall=diag.mean(axis=1), spamminess=spamminess
        )


@dataclass(frozen=True)
class OrdinalDawidSkeneResult(DawidSkeneResult):
    r"""A fitted ordinal Dawid–Skene model: a :class:`DawidSkeneResult` (banded) with these.

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
        return super().reliability().assign(bias=self.bias.to_numpy(), noise=self.noise.to_numpy())


def answer_sums(T: FloatArray, d: Data) -> FloatArray:
    """``W[a, c, y]``: the sum of ``T[i, c]`` over annotator ``a``'s answers ``y``."""
    ay, K = d.a * d.K + d.y, d.K  # the (annotator, answer) cell of each annotation
    sums = np.stack([np.bincount(ay, weights=T[d.i, c], minlength=d.R * K) for c in range(K)], 1)
    out: FloatArray = np.ascontiguousarray(sums.reshape(d.R, K, K).transpose(0, 2, 1))
    return out


def fit_confusions(
    cls: type[R], annotations: Annotations, d: Data, *, func: str,
    confusion: Callable[[FloatArray], FloatArray], extra: Callable[[], dict[str, Any]] = dict,
    init: str, n_iter: int, tol: float, seed: SeedLike,
) -> R:  # fmt: skip
    """Fit a confusion-matrix model by EM; ``cls`` built from its last priors and matrices.

    ``confusion(T)``: the model's M step for the (R, K true, K answer) matrices (the priors'
    and the E step are Dawid and Skene's); ``extra()``: the model's own fields, once fitted.
    """
    last: dict[str, FloatArray] = {}

    def step(T: FloatArray) -> tuple[FloatArray, float]:
        last["rho"] = rho = np.maximum(T.mean(axis=0), EPS)
        last["conf"] = conf = confusion(T)
        log_c = np.log(conf)[d.a, :, d.y]  # (M, K): log P(answer y | true c) of each annotation
        L = np.log(rho)[None, :] + np.stack(
            [np.bincount(d.i, weights=log_c[:, c], minlength=d.N) for c in range(d.K)], axis=1
        )
        return log_normalize(L)

    T0: FloatArray
    if init == "majority":  # each item's label shares
        X = np.bincount(d.i * d.K + d.y, minlength=d.N * d.K).reshape(d.N, d.K)
        T0 = X / X.sum(axis=1, keepdims=True)
    else:
        T0 = as_generator(seed).dirichlet(np.ones(d.K), size=d.N)
    run = run_em(T0, step, d, n_iter=n_iter, tol=tol)
    run.warn_unless_converged(func, stacklevel=4)
    priors = pd.Series(last["rho"] / last["rho"].sum(), index=d.labels, name="prior")
    return cls(**AnnotatorModel.core(annotations, d, run), priors=priors, confusion=last["conf"],
               **extra())  # fmt: skip


def dawid_skene(
    annotations: Annotations,
    *,
    init: Init = "majority",
    n_iter: int = 1000,
    tol: float = 1e-6,
    smoothing: float = 0.0,
    seed: SeedLike = 0,
) -> DawidSkeneResult:
    r"""Fit the Dawid–Skene model: who is reliable, and what each item probably is.

    Parameters
    ----------
    init : {"majority", "random"}, default "majority"
        Starting posteriors: each item's label shares (majority vote, as
        Dawid and Skene and crowd-kit), or a Dirichlet(1) draw per item from ``seed``.
    smoothing : float, default 0.0
        Pseudo-count added to every confusion-matrix cell in the M-step (0:
        maximum likelihood, as the paper and crowd-kit); probabilities are floored at 1e-10.

    ``n_iter``, ``tol`` and ``seed``: see the package conventions.

    Notes
    -----
    EM finds a local maximum: a start with most annotators wrong can
    converge to permuted classes (``init="random"`` with several seeds shows
    how stable the fit is). Equal (to the tolerance) to
    ``crowdkit.aggregation.DawidSkene``.

    References
    ----------
    Dawid, A. P. and Skene, A. M. (1979). Maximum likelihood estimation of
    observer error-rates using the EM algorithm. *Journal of the Royal
    Statistical Society C* 28(1), 20–28. https://doi.org/10.2307/2346806

    Raykar, V. C. and Yu, S. (2012). Eliminating spammers and ranking
    annotators for crowdsourced labeling tasks. *Journal of Machine Learning
    Research* 13, 491–518.

    Examples
    --------
    >>> df = pd.DataFrame({
    ...     "item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
    ...     "annotator": ["a", "b", "c"] * 4,
    ...     "label": ["x", "x", "y", "y", "y", "y", "x", "x", "x", "y", "y", "x"],
    ... })
    >>> fit = dawid_skene(Annotations.from_frame(df))
    >>> fit.labels.tolist(), fit.converged
    (['x', 'y', 'x', 'y'], True)
    """
    func = "dawid_skene"
    smoothing = check_number(func, "smoothing", smoothing)
    d = data_codes(func, annotations, n_iter=n_iter, tol=tol, init=init)

    def confusion(T: FloatArray) -> FloatArray:
        conf = answer_sums(T, d) + smoothing  # (a, c, y)
        np.maximum(conf, EPS, out=conf)
        conf /= conf.sum(axis=2, keepdims=True)
        return conf

    return fit_confusions(DawidSkeneResult, annotations, d, func=func, confusion=confusion,
                          init=init, n_iter=n_iter, tol=tol, seed=seed)  # fmt: skip


def _offsets(K: int) -> tuple[FloatArray, FloatArray]:
    """``t[c, k]`` upper and lower cell edges minus the true class (inf at the ends)."""
    k = np.arange(K, dtype=np.float64)
    upper, lower = k[None, :] - k[:, None] + 0.5, k[None, :] - k[:, None] - 0.5
    upper[:, -1], lower[:, 0] = np.inf, -np.inf
    return upper, lower


def _probit_parts(
    beta: FloatArray, lam: FloatArray, W: FloatArray, t_hi: FloatArray, t_lo: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Objective (R,), gradient (R, 2), Hessian (R, 2, 2) in (beta, lambda), and pi."""
    b, lm = beta[:, None, None], lam[:, None, None]
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


def _m_step_probit(
    W: FloatArray, beta: FloatArray, lam: FloatArray, *, max_newton: int = 50
) -> tuple[FloatArray, FloatArray]:
    """Maximise each annotator's expected log-likelihood over (beta, lambda), vectorised.

    Damped Newton: a step that lowers an annotator's objective is halved
    (up to 30 times); lambda stays inside ``_LAMBDA``.
    """
    t_hi, t_lo = _offsets(W.shape[1])
    obj, grad, hess, _ = _probit_parts(beta, lam, W, t_hi, t_lo)
    for _ in range(max_newton):
        # keep the Newton matrix negative definite (the objective is concave, but
        # floors and bounds can flatten it)
        scale = np.abs(hess[:, 0, 0]) + np.abs(hess[:, 1, 1]) + 1e-12
        H = hess - (1e-10 * scale)[:, None, None] * np.eye(2)[None]
        det = H[:, 0, 0] * H[:, 1, 1] - H[:, 0, 1] ** 2
        nd = (H[:, 0, 0] < 0) & (det > 0)
        # a Newton step, or gradient ascent where the Newton matrix is not usable
        step_b = np.where(nd, -(H[:, 1, 1] * grad[:, 0] - H[:, 0, 1] * grad[:, 1]) / det,
                          grad[:, 0] / scale)  # fmt: skip
        step_l = np.where(nd, -(H[:, 0, 0] * grad[:, 1] - H[:, 0, 1] * grad[:, 0]) / det,
                          grad[:, 1] / scale)  # fmt: skip
        # Newton decrement: how much the objective can still rise (0 when done)
        gain = grad[:, 0] * step_b + grad[:, 1] * step_l
        if gain.max() < 1e-10:
            break
        size = np.ones_like(beta)
        todo = np.ones(beta.size, dtype=bool)
        new_b, new_l = beta.copy(), lam.copy()
        for _ in range(30):
            cand_b = beta + size * step_b
            cand_l = np.clip(lam + size * step_l, *_LAMBDA)
            cand_obj = _probit_parts(cand_b, cand_l, W, t_hi, t_lo)[0]
            ok = todo & (cand_obj >= obj - 1e-12 * np.abs(obj))
            new_b = np.where(ok, cand_b, new_b)
            new_l = np.where(ok, cand_l, new_l)
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

    Options as in :func:`dawid_skene` (no smoothing); a DataError on a nominal scale.

    Notes
    -----
    The labels are equally spaced steps (their values are not used). With 2
    parameters per annotator it needs far fewer items than Dawid–Skene, and
    cannot express confusions that skip the order. A bias shared by every
    annotator is confounded with the classes (the majority start gives it to
    the items). The noise scale stays in [1e-3, 1e3] label steps. This is the
    located latent class model of Uebersax and Grove (1990), with each
    rater's thresholds and variance as in Johnson's (1996) multirater
    ordinal probit, fitted by Dawid and Skene's EM.

    References
    ----------
    Dawid and Skene (1979), as in :func:`dawid_skene`.

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
        # banded confusion matrices (R, K true, K answer), rows summing to 1
        P = _probit_parts(beta, lam, np.zeros((d.R, d.K, d.K)), *_offsets(d.K))[3]
        out: FloatArray = P / P.sum(axis=2, keepdims=True)
        return out

    def extra() -> dict[str, pd.Series]:
        return {"bias": pd.Series(beta / lam, index=d.annotators, name="bias"),
                "noise": pd.Series(1.0 / lam, index=d.annotators, name="noise")}  # fmt: skip

    return fit_confusions(OrdinalDawidSkeneResult, annotations, d, func=func, confusion=confusion,
                          extra=extra, init=init, n_iter=n_iter, tol=tol, seed=seed)  # fmt: skip
