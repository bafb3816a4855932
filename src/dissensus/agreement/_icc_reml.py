r"""Variance components of the ICC models by REML or ML, for missing and unbalanced ratings.

Notation (Bates, Mächler, Bolker and Walker 2015, for the profiled
criteria). Ratings :math:`y` (M of them) of ``n`` targets by ``k`` raters;
:math:`y = X\beta + Z_r u_r + Z_c u_c + e` with target effects
:math:`u_r \sim N(0, \sigma_r^2 I)`, rater effects either random
(:math:`u_c \sim N(0, \sigma_c^2 I)`, model ``"A"``), fixed (columns of
:math:`X`, model ``"C"``) or absent (model ``"1"``), and
:math:`e \sim N(0, \sigma_e^2 I)`. With relative scales
:math:`s_t = \sigma_t / \sigma_e`, :math:`\Lambda = \mathrm{diag}(s)` and
:math:`W = [Z\Lambda, X]`, the penalised system
:math:`A = W^\top W + \mathrm{diag}(I_q, 0_p)` gives the profiled deviances

.. math::

    d_{REML}(s) = \log|A| + \nu \log r^2(s), \qquad
    d_{ML}(s) = \log|A_{ZZ}| + M \log r^2(s),

up to constants, with :math:`r^2 = y^\top y - b^\top A^{-1} b`,
:math:`b = W^\top y`, :math:`\nu = M - p`, and
:math:`\hat\sigma_e^2 = r^2 / \nu` (REML) or :math:`r^2 / M` (ML). The target
block of :math:`A` is diagonal (:math:`D = 1 + s_r^2 n_i`); it is eliminated
first, leaving a dense system the size of the rater columns, so the cost is
linear in the number of targets. The gradient is analytic:
:math:`\partial r^2 / \partial s_t = -2 \hat c_t^\top Z_t^\top \hat e` and
:math:`\partial \log|A| / \partial s_t = 2 (q_t - \mathrm{tr}_t A^{-1}) / s_t`,
written without the division (in :math:`\gamma_t = s_t^2`:
:math:`\partial r^2/\partial\gamma_t = -\|Z_t^\top \hat e\|^2`, since
the spherical effects are :math:`\hat u_t = s_t Z_t^\top \hat e`).

A bootstrap resample of the targets is the same model with target weights
(multiplicities) :math:`w_i`: every sum over targets is weighted. The
criterion is evaluated for a stack of ``B`` weight vectors at once, and the
resamples are refitted together by projected Newton steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import optimize, sparse

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Design:
    """The long ratings and the model's matrices that do not change with ``gamma``."""

    y: FloatArray
    target: IntArray
    rater: IntArray
    n: int
    k: int
    model: str  # "1", "A" or "C"
    P: FloatArray  # (n, m2): Z_r' G, G = [Z_c (model A), X]: ratings per target and column
    PY: FloatArray  # (n, m2): Z_r' diag(y) G
    yy: FloatArray  # (n,): sum of y^2 per target
    Zry: FloatArray  # (n,): sum of y per target
    n_i: FloatArray  # (n,): ratings per target
    G: sparse.csr_matrix  # (M, m2)
    Zr: sparse.csr_matrix  # (n, M)
    Zc: sparse.csr_matrix  # (k, M)
    kc: int  # random rater columns (k for model A, else 0)
    p: int  # fixed-effect columns

    @classmethod
    def build(
        cls, y: FloatArray, target: IntArray, rater: IntArray, *, n: int, k: int, model: str
    ) -> Design:
        M = y.size
        rows = np.arange(M)
        ones = sparse.csr_matrix((np.ones(M), (rows, np.zeros(M, dtype=np.int64))), shape=(M, 1))
        Zc = sparse.csr_matrix((np.ones(M), (rows, rater)), shape=(M, k))
        if model == "1":
            G, kc, p = ones, 0, 1
        elif model == "A":
            G, kc, p = sparse.hstack([Zc, ones], format="csr"), k, 1
        else:
            G, kc, p = Zc, 0, k
        Zr = sparse.csr_matrix((np.ones(M), (target, rows)), shape=(n, M))
        G = sparse.csr_matrix(G)
        return cls(
            y=y,
            target=target,
            rater=rater,
            n=n,
            k=k,
            model=model,
            P=np.asarray((Zr @ G).toarray(), dtype=np.float64),
            PY=np.asarray(
                (Zr @ sparse.csr_matrix(G.multiply(y[:, None]))).toarray(), dtype=np.float64
            ),
            yy=np.bincount(target, weights=y * y, minlength=n).astype(np.float64),
            Zry=np.bincount(target, weights=y, minlength=n).astype(np.float64),
            n_i=np.bincount(target, minlength=n).astype(np.float64),
            G=G,
            Zr=Zr,
            Zc=sparse.csr_matrix(Zc.T),
            kc=kc,
            p=p,
        )

    def gtg(self, v: FloatArray) -> FloatArray:
        """``G' diag(w) G`` (B, m2, m2) from ``v = w @ P``: each rating has one rater."""
        B, m2 = v.shape
        out = np.zeros((B, m2, m2))
        out[:, np.arange(m2), np.arange(m2)] = v
        if self.model == "A":  # the intercept column meets each rater's column
            out[:, : self.k, self.k] = v[:, : self.k]
            out[:, self.k, : self.k] = v[:, : self.k]
        return out


@dataclass(frozen=True)
class Components:
    """Fitted variance components and the fit's record."""

    target: float
    rater: float
    residual: float
    gamma: FloatArray
    deviance: float
    gradient: float


def _criterion(
    gamma: FloatArray, d: Design, w: FloatArray, reml: bool
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Profiled deviance (B,), gradient in ``gamma`` (B, dim), ``r^2`` (B,) and ``nu`` (B,).

    ``gamma`` (B, dim) the variance ratios (target, and rater for model A),
    ``w`` (B, n) the target weights of each of the ``B`` fits. In ``gamma``
    (not ``s``) the boundary ``gamma = 0`` is no stationary point.
    """
    B = w.shape[0]
    kc = d.kc
    m2 = d.P.shape[1]
    g_r = gamma[:, 0]
    lam = np.ones((B, m2))
    if kc:
        lam[:, :kc] = np.sqrt(gamma[:, 1])[:, None]
    v = w @ d.P
    # a fixed rater column no (weighted) rating uses is set aside: identity row, no data
    idle = np.zeros((B, m2), dtype=bool)
    if d.p > 1:
        idle[:, kc:] = v[:, kc:] <= 0
    D = 1.0 + g_r[:, None] * d.n_i[None, :]  # (B, n)
    wD = w / D
    PT = d.P.T[None, :, :]
    Q = (PT * wD[:, None, :]) @ d.P  # P' diag(w / D) P per fit, through BLAS
    Q2 = (PT * (wD / D)[:, None, :]) @ d.P
    Mat = d.gtg(v) - g_r[:, None, None] * Q  # the Schur complement before the rater scaling
    S = lam[:, :, None] * Mat * lam[:, None, :]
    diag = np.arange(m2)
    S[:, diag[:kc], diag[:kc]] += 1.0
    S = np.where(idle[:, :, None] | idle[:, None, :], 0.0, S)
    S[:, diag, diag] += idle
    h = lam * (w @ d.PY - g_r[:, None] * ((wD * d.Zry) @ d.P))
    h = np.where(idle, 0.0, h)
    # A resample with (nearly) no variance drives gamma so high that S loses definiteness
    # by cancellation: that fit gets an infinite deviance (a line search rejects the step).
    lost = ~np.isfinite(S).all(axis=(1, 2))
    S = np.where(lost[:, None, None], np.eye(m2)[None], S)
    lost |= np.linalg.eigvalsh(S)[:, 0] <= 0
    S = np.where(lost[:, None, None], np.eye(m2)[None], S)
    L = np.linalg.cholesky(S)
    Sinv = np.linalg.inv(S)
    c2 = np.einsum("bjk,bk->bj", Sinv, h)
    wZ = (wD * d.Zry * d.Zry).sum(axis=1)
    r2 = np.maximum(w @ d.yy - g_r * wZ - (h * c2).sum(axis=1), 1e-300)
    lc2 = lam * c2
    # residuals of the penalised fit; the spherical effects are u_t = s_t Z_t' e
    c1 = (d.Zry[None, :] - lc2 @ d.P.T) / D  # target coefficients / s_r
    E = d.y[None, :] - g_r[:, None] * c1[:, d.target] - np.asarray(d.G @ lc2.T).T
    Zre = np.asarray(d.Zr @ E.T).T  # (B, n)
    Q2s = lam[:, :, None] * Q2 * lam[:, None, :]
    sum_log_D = (w * np.log(D)).sum(axis=1)
    sum_nD = (wD * d.n_i).sum(axis=1)
    M = w @ d.n_i
    p = (~idle[:, kc:]).sum(axis=1)
    nu = M - p if reml else M
    logdet_S = 2.0 * np.log(np.einsum("bii->bi", L)).sum(axis=1)
    t_c = np.zeros(B)
    if reml:
        logdet = sum_log_D + logdet_S
        t_r = sum_nD - (Sinv * Q2s).sum(axis=(1, 2))
        if kc:  # model A: one fixed column (the intercept) eliminated from Mat
            Mcx = Mat[:, :kc, kc]
            Phi = Mat[:, :kc, :kc] - Mcx[:, :, None] * Mcx[:, None, :] / Mat[:, kc, kc, None, None]
            t_c = (Sinv[:, :kc, :kc] * Phi).sum(axis=(1, 2))
    elif kc:  # a leading block of a definite S is definite
        Lz = np.linalg.cholesky(S[:, :kc, :kc])
        Szz_inv = np.linalg.inv(S[:, :kc, :kc])
        logdet = sum_log_D + 2.0 * np.log(np.einsum("bii->bi", Lz)).sum(axis=1)
        t_r = sum_nD - (Szz_inv * Q2s[:, :kc, :kc]).sum(axis=(1, 2))
        t_c = (Szz_inv * Mat[:, :kc, :kc]).sum(axis=(1, 2))
    else:
        logdet, t_r = sum_log_D, sum_nD
    grads = [t_r - nu * (w * Zre * Zre).sum(axis=1) / r2]
    if kc:
        Zce = np.asarray(d.Zc @ (w[:, d.target] * E).T).T  # (B, k)
        grads.append(t_c - nu * (Zce * Zce).sum(axis=1) / r2)
    return np.where(lost, np.inf, logdet + nu * np.log(r2)), np.stack(grads, axis=1), r2, nu


def _newton(
    d: Design,
    w: FloatArray,
    x: FloatArray,
    reml: bool,
    *,
    fixed: npt.NDArray[np.bool_],
    n_steps: int,
    gtol: float,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Projected Newton steps for B fits at once (Hessian by central differences).

    ``fixed`` (dim,) marks coordinates held where they are. Returns gamma,
    the deviance and the gradient.
    """
    f, g, _, _ = _criterion(x, d, w, reml)
    dim = x.shape[1]
    for _ in range(n_steps):
        free = ((x > 0) | (g < 0)) & ~fixed[None, :]
        pg = np.where(free, g, 0.0)
        if np.abs(pg).max(initial=0.0) < gtol * max(1.0, float(np.abs(f).max())):
            break
        H = np.empty((x.shape[0], dim, dim))
        for j in range(dim):
            hj = 1e-5 * np.maximum(1.0, x[:, j])
            xp, xm = x.copy(), x.copy()
            xp[:, j] += hj
            xm[:, j] = np.maximum(x[:, j] - hj, 0.0)
            H[:, :, j] = (_criterion(xp, d, w, reml)[1] - _criterion(xm, d, w, reml)[1]) / (
                xp[:, j] - xm[:, j]
            )[:, None]
        H = 0.5 * (H + H.transpose(0, 2, 1))
        # Newton on the free coordinates; a gradient step where H is not positive definite
        Hf = np.where(free[:, :, None] & free[:, None, :], H, np.eye(dim)[None])
        eig = np.linalg.eigvalsh(Hf)
        ok = eig.min(axis=1) > 0
        step = np.where(
            ok[:, None],
            np.linalg.solve(np.where(ok[:, None, None], Hf, np.eye(dim)[None]), pg[:, :, None])[
                :, :, 0
            ],
            pg / (np.abs(np.einsum("bii->bi", H)).max(axis=1, keepdims=True) + 1.0),
        )
        size = np.ones(x.shape[0])
        todo = np.ones(x.shape[0], dtype=bool)
        new_x, new_f, new_g = x.copy(), f.copy(), g.copy()
        for _ in range(30):
            cand = np.maximum(x - size[:, None] * step, 0.0)
            fc, gc, _, _ = _criterion(cand, d, w, reml)
            accept = todo & (fc <= f + 1e-12 * np.abs(f))
            new_x[accept], new_f[accept], new_g[accept] = cand[accept], fc[accept], gc[accept]
            todo &= ~accept
            if not todo.any():
                break
            size = np.where(todo, size / 2.0, size)
        x, f, g = new_x, new_f, new_g
    return x, f, g


def _components(d: Design, w: FloatArray, x: FloatArray, reml: bool) -> tuple[FloatArray, ...]:
    """sigma^2 of targets, raters and residuals (B,) at gamma ``x``."""
    _, _, r2, nu = _criterion(x, d, w, reml)
    sigma_e = r2 / nu
    rater = x[:, 1] * sigma_e if d.kc else np.zeros_like(sigma_e)
    return x[:, 0] * sigma_e, rater, sigma_e


def fit_components(
    d: Design, *, reml: bool = True, start: FloatArray | None = None, fix_target_zero: bool = False
) -> Components:
    """Minimise the profiled deviance over the variance ratios ``gamma >= 0``.

    L-BFGS-B with the analytic gradient, then projected Newton steps until
    the gradient is at rounding level: the balanced closed forms are met to
    about 1e-12.
    """
    w = np.ones((1, d.n))
    dim = 2 if d.kc else 1
    x0 = np.ones(dim) if start is None else np.asarray(start, dtype=np.float64).copy()
    x0 = np.maximum(x0, 1e-3)  # off the boundary: there the gradient says where to go
    if fix_target_zero:
        x0[0] = 0.0
    bounds = [(0.0, 0.0) if fix_target_zero else (0.0, None)] + [(0.0, None)] * (dim - 1)

    def fun(x: FloatArray) -> tuple[float, FloatArray]:
        f, g, _, _ = _criterion(x[None, :], d, w, reml)
        return float(f[0]), g[0]

    res = optimize.minimize(
        fun, x0, jac=True, method="L-BFGS-B", bounds=bounds,
        options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 500},
    )  # fmt: skip
    fixed = np.zeros(dim, dtype=bool)
    fixed[0] = fix_target_zero
    x, f, g = _newton(d, w, np.asarray(res.x)[None, :], reml, fixed=fixed, n_steps=8, gtol=1e-13)
    target, rater, residual = _components(d, w, x, reml)
    free = ((x > 0) | (g < 0)) & ~fixed[None, :]
    return Components(
        target=float(target[0]),
        rater=float(rater[0]),
        residual=float(residual[0]),
        gamma=x[0],
        deviance=float(f[0]),
        gradient=float(np.abs(np.where(free, g, 0.0)).max()),
    )


def bootstrap_components(
    d: Design,
    weights: FloatArray,
    start: FloatArray,
    *,
    reml: bool = True,
    chunk: int | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Variance components of every resample (rows of ``weights``), refitted together.

    Each resample starts at the full-data ``start`` and takes up to 30
    projected Newton steps (to a relative gradient of 1e-8); chunks of
    ``chunk`` resamples (default: about 4 million residuals, at most 256)
    bound the memory.
    """
    if chunk is None:
        chunk = int(min(256, max(1, 4_000_000 // max(d.y.size, 1))))
    out = []
    fixed = np.zeros(start.size, dtype=bool)
    for lo in range(0, weights.shape[0], chunk):
        w = weights[lo : lo + chunk]
        x0 = np.repeat(np.maximum(start, 1e-3)[None, :], w.shape[0], axis=0)
        x, _, _ = _newton(d, w, x0, reml, fixed=fixed, n_steps=30, gtol=1e-8)
        out.append(_components(d, w, x, reml))
    return tuple(np.concatenate([o[j] for o in out]) for j in range(3))  # type: ignore[return-value]
