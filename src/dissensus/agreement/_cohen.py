r"""Rater-aware coefficients: Cohen's kappa, Scott's pi, Conger's and Light's kappas.

Notation (Cohen 1968; Gwet 2014). Two raters: a K × K table of proportions
``p_{kl}`` (rater A chose ``k``, rater B chose ``l``), marginals ``p_{k+}``
and ``p_{+l}``, agreement weights ``w_{kl}`` (identity unless weighted);
``P_a = \sum w_{kl} p_{kl}``, ``P_e = \sum w_{kl} p_{k+} p_{+l}`` and
``\kappa = (P_a - P_e) / (1 - P_e)``. Several raters: an (N items, R raters)
matrix of label codes with NaN where a rater did not rate an item.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import sparse

from dissensus._exceptions import DataError, DegenerateAgreementWarning
from dissensus._validation import examples
from dissensus.agreement._common import (
    BootStatistic,
    FloatArray,
    IntArray,
    ItemBootstrap,
    Weights,
    annotations_rater_matrix,
    check_table,
    contingency_to_counts,
    degenerate,
    patterns,
    two_sided_p,
    weight_matrix,
)
from dissensus.agreement._multirater import item_agreement, linearised_se
from dissensus.agreement._multirater import item_terms as item_stats
from dissensus.agreement._result import AgreementResult, Resampler
from dissensus.data import Annotations, Scale


def table_kappa(T: FloatArray, M: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Cohen's kappa, P_a and P_e of a batch of tables ``T`` (..., K, K)."""
    n = T.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = T / n[..., None, None]
        pa = (p * M).sum(axis=(-2, -1))
        row = p.sum(axis=-1)
        col = p.sum(axis=-2)
        pe = np.einsum("...k,kl,...l->...", row, M, col)
        kappa = np.where(pe < 1.0 - 1e-12, (pa - pe) / (1.0 - pe), np.nan)
    return np.asarray(kappa), np.asarray(pa), np.asarray(pe)


def _cohen_se(
    T: FloatArray, M: FloatArray, kappa: float, pa: float, pe: float
) -> tuple[float, float]:
    """Large-sample SE of (weighted) kappa and SE under independence (Fleiss et al. 1969)."""
    n = T.sum()
    p = T / n
    row, col = p.sum(axis=1), p.sum(axis=0)
    w_sum = (M @ col)[:, None] + (M.T @ row)[None, :]  # \bar w_{k.} + \bar w_{.l}
    s = (p * (M - (1.0 - kappa) * w_sum) ** 2).sum()
    var = (s - (pa - 2.0 * (1.0 - kappa) * pe) ** 2) / (n * (1.0 - pe) ** 2)
    s0 = (row[:, None] * col[None, :] * (M - w_sum) ** 2).sum()
    var0 = (s0 - pe**2) / (n * (1.0 - pe) ** 2)
    return float(np.sqrt(max(var, 0.0))), float(np.sqrt(max(var0, 0.0)))


def _as_scale(labels: Sequence[Any] | Scale) -> Scale:
    return labels if isinstance(labels, Scale) else Scale(tuple(labels))


def _encode_pair(
    a: Any, b: Any, labels: Sequence[Any] | Scale | None
) -> tuple[IntArray, IntArray, Scale, int]:
    sa = pd.Series(list(a) if not isinstance(a, pd.Series) else a.to_numpy(), dtype=object)
    sb = pd.Series(list(b) if not isinstance(b, pd.Series) else b.to_numpy(), dtype=object)
    if len(sa) != len(sb):
        msg = (
            f"`a` and `b` must be aligned label sequences of the same length; got {len(sa)} "
            f"and {len(sb)}."
        )
        raise DataError(msg)
    both = sa.notna().to_numpy() & sb.notna().to_numpy()
    n_excluded = int((~both).sum())
    sa, sb = sa[both], sb[both]
    if labels is None:
        scale = Scale.infer(pd.concat([sa, sb]), ordered=None) if both.any() else Scale((0,))
    else:
        scale = _as_scale(labels)
    ca, cb = scale.encode(sa), scale.encode(sb)
    off = (ca < 0) | (cb < 0)
    if off.any():
        bad = pd.concat([sa[ca < 0], sb[cb < 0]]).unique().tolist()
        msg = f"Labels {examples(bad)} are not in `labels` {examples(list(scale.labels), 10)}."
        raise DataError(msg)
    return ca, cb, scale, n_excluded


def _table_input(
    func: str, a: Any, b: Any, table: npt.ArrayLike | None, labels: Sequence[Any] | Scale | None
) -> tuple[FloatArray, Scale, int]:
    if table is not None:
        if a is not None or b is not None:
            msg = f"{func} takes either two label sequences `a`, `b` or `table=`, not both."
            raise TypeError(msg)
        T = check_table(table)
        return T, _as_scale(range(T.shape[0]) if labels is None else labels), 0
    if a is None or b is None:
        msg = f"{func} needs two label sequences `a` and `b`, or a contingency `table=`."
        raise TypeError(msg)
    ca, cb, scale, n_excluded = _encode_pair(a, b, labels)
    K = scale.K
    T = np.bincount(ca * K + cb, minlength=K * K).reshape(K, K).astype(np.float64)
    return T, scale, n_excluded


def _table_resampler(name: str, T: FloatArray, M: FloatArray, value: float, stat: str) -> Resampler:
    """The item bootstrap of a two-rater coefficient: items are the table's cells."""
    K = T.shape[0]
    flat = T.reshape(-1).astype(np.int64)
    cells = np.flatnonzero(flat)

    def core(P_: FloatArray, W: FloatArray) -> FloatArray:
        Tb = (W @ P_).reshape(-1, K, K)
        if stat == "cohen":
            return table_kappa(Tb, M)[0]
        row, col = Tb.sum(axis=2), Tb.sum(axis=1)
        n = Tb.sum(axis=(1, 2))
        pa = (Tb * M).sum(axis=(1, 2)) / n
        pi = (row + col) / (2.0 * n[:, None])
        pe = np.einsum("bk,kl,bl->b", pi, M, pi)
        return np.asarray((pa - pe) / (1.0 - pe), dtype=np.float64)

    return ItemBootstrap(
        name, lambda _: BootStatistic(core, value), lambda: (np.eye(K * K)[cells], flat[cells])
    )


def cohen_kappa(
    a: Sequence[Any] | npt.ArrayLike | None = None,
    b: Sequence[Any] | npt.ArrayLike | None = None,
    *,
    table: npt.ArrayLike | None = None,
    weights: Weights = None,
    labels: Sequence[Any] | Scale | None = None,
) -> AgreementResult:
    r"""Cohen's kappa between two raters, optionally weighted.

    Parameters
    ----------
    a, b : sequence
        Aligned labels of rater A and rater B, one per item; ``None`` / NaN
        marks a missing label, and pairs with a missing side are dropped
        (counted in ``n_items_excluded``).
    table : array_like of shape (K, K), optional
        Instead of ``a`` and ``b``: the contingency table (rows rater A).
    weights : None, str or array_like of shape (K, K)
        Agreement weights: a named scheme of :func:`agreement_weights`
        (``"linear"``, ``"quadratic"``, ``"ordinal"``, ``"radical"``,
        ``"ratio"``, ``"circular"``, ``"bipolar"``, ``"identity"``; over the
        label values when they are numbers, else positions ``1 .. K``) or a
        matrix.
    labels : sequence or Scale, optional
        The categories and their order. Default: the sorted union of the
        labels seen (numbers numerically, strings alphabetically).

    Returns
    -------
    AgreementResult
        ``statistic`` kappa, ``standard_error`` the large-sample standard error of Fleiss,
        Cohen and Everitt (1969), ``parts`` observed and chance agreement and
        ``se0``, the standard error under independence; ``z = kappa / se0``
        and its two-sided ``pvalue`` test the null of chance agreement.

    Notes
    -----
    See the module notation. Equal to ``sklearn.metrics.cohen_kappa_score``
    (with the same weights; sklearn's linear and quadratic weights are over
    label positions, which differ from values only for unequally spaced
    numeric labels).

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales.
    *Educational and Psychological Measurement* 20(1), 37–46.
    https://doi.org/10.1177/001316446002000104

    Fleiss, J. L., Cohen, J. and Everitt, B. S. (1969). Large sample standard
    errors of kappa and weighted kappa. *Psychological Bulletin* 72(5),
    323–327. https://doi.org/10.1037/h0028106

    Examples
    --------
    >>> r = cohen_kappa(["a", "a", "b", "b", None], ["a", "b", "b", "b", "a"])
    >>> round(float(r), 3), r.n_items, r.n_items_excluded
    (0.5, 4, 1)
    """
    name = "cohen_kappa" if weights is None else "weighted_cohen_kappa"
    T, scale, n_excluded = _table_input(name, a, b, table, labels)
    M = weight_matrix(weights, scale, name)
    n = int(T.sum())
    note = ""
    kappa_b, pa_b, pe_b = table_kappa(T, M)
    value, pa, pe = float(kappa_b), float(pa_b), float(pe_b)
    se = se0 = z = math.nan
    if n == 0:
        note = degenerate(name, "no item was rated by both raters")
    elif math.isnan(value):
        note = degenerate(name, "chance agreement is 1 (both raters used a single category)")
    else:
        se, se0 = _cohen_se(T, M, value, pa, pe)
        z = value / se0 if se0 > 0 else math.nan
    boot = _table_resampler(name, T, M, value, "cohen")
    return AgreementResult(
        name=name,
        statistic=value,
        standard_error=se,
        n_items=n,
        n_items_excluded=n_excluded,
        n_annotations=2 * n,
        parts={"observed_agreement": pa, "chance_agreement": pe, "se0": se0},
        z=z,
        pvalue=two_sided_p(z),
        note=note,
        _resampler=boot,
    )


def scott_pi(
    a: Sequence[Any] | npt.ArrayLike | None = None,
    b: Sequence[Any] | npt.ArrayLike | None = None,
    *,
    table: npt.ArrayLike | None = None,
    weights: Weights = None,
    labels: Sequence[Any] | Scale | None = None,
) -> AgreementResult:
    r"""Scott's pi between two raters (chance from the pooled label shares).

    Parameters
    ----------
    a, b, table, weights, labels
        As in :func:`cohen_kappa`.

    Returns
    -------
    AgreementResult
        ``standard_error`` is Gwet's (2014) linearised two-rater one.

    Notes
    -----
    With pooled shares :math:`\pi_k = (p_{k+} + p_{+k}) / 2`,
    :math:`P_e = \sum_{kl} w_{kl} \pi_k \pi_l`. For two raters Fleiss'
    kappa equals Scott's pi.

    References
    ----------
    Scott, W. A. (1955). Reliability of content analysis: the case of nominal
    scale coding. *Public Opinion Quarterly* 19(3), 321–325.
    https://doi.org/10.1086/266577

    Examples
    --------
    >>> round(float(scott_pi(table=[[13, 0, 0], [0, 20, 7], [0, 4, 56]])), 7)
    0.7962397
    """
    name = "scott_pi"
    T, scale, n_excluded = _table_input(name, a, b, table, labels)
    M = weight_matrix(weights, scale, name)
    n = T.sum()
    note = ""
    value = pa = pe = se = math.nan
    if n == 0:
        note = degenerate(name, "no item was rated by both raters")
    else:
        p = T / n
        pi = (p.sum(axis=1) + p.sum(axis=0)) / 2.0
        pa = float((p * M).sum())
        pe = float(pi @ M @ pi)
        if pe >= 1.0 - 1e-12:
            note = degenerate(name, "chance agreement is 1 (a single category was used)")
        else:
            value = (pa - pe) / (1.0 - pe)
            # Gwet's (2014) two-rater formulas divide by n, the item formulas by n - 1.
            counts = contingency_to_counts(T).values  # noqa: PD011 -- LabelCounts, not pandas
            it = item_stats(np.ascontiguousarray(counts.T, dtype=np.float64), M)
            se = linearised_se(it, M, "fleiss", value=value, pe=pe) * math.sqrt((n - 1.0) / n)
    boot = _table_resampler(name, T, M, value, "scott")
    return AgreementResult(
        name=name,
        statistic=value,
        standard_error=se,
        n_items=int(n),
        n_items_excluded=n_excluded,
        n_annotations=2 * int(n),
        parts={"observed_agreement": pa, "chance_agreement": pe},
        note=note,
        _resampler=boot,
    )


def _rater_onehot(R: FloatArray, K: int) -> FloatArray:
    """(N, R, K) one-hot of label codes, zeros where missing."""
    ok = np.isfinite(R)
    codes = np.where(ok, R, 0).astype(np.int64)
    Y = np.zeros((*R.shape, K))
    np.put_along_axis(Y, codes[..., None], ok[..., None].astype(np.float64), axis=-1)
    return Y


def _prepare_raters(
    data: Any, func: str, weights: Weights
) -> tuple[FloatArray, int, FloatArray, int, str]:
    """``(R, K, M, n_excluded, note)``: items with two ratings, raters who rated one of them."""
    R, scale = annotations_rater_matrix(data, func)
    keep = np.isfinite(R).sum(axis=1) >= 2
    n_excluded = int((~keep).sum())
    if n_excluded:
        msg = (
            f"{func}: {n_excluded} of {R.shape[0]} items have fewer than 2 ratings and are excluded"
        )
        warnings.warn(msg, DegenerateAgreementWarning, stacklevel=3)
    R = R[keep]
    R = R[:, np.isfinite(R).any(axis=0)]
    note = ""
    if R.shape[0] == 0 or R.shape[1] < 2:
        note = degenerate(func, "fewer than two raters share an item")
    return R, scale.K, weight_matrix(weights, scale, func), n_excluded, note


def _conger_core(M: FloatArray, n_raters: int, K: int) -> Any:
    def core(P: FloatArray, W: FloatArray) -> FloatArray:
        # P: (U, R*K) one-hot rows of rater x category.
        Y = P.reshape(-1, n_raters, K)
        x = Y.sum(axis=1)
        n = x.sum(axis=1)
        pa_i, _ = item_agreement(x.T, n, M)
        Nw = W.sum(axis=1)
        pa = (W @ pa_i) / Nw
        cls = (W @ P).reshape(-1, n_raters, K)
        p_gk = cls / cls.sum(axis=2, keepdims=True)
        pbar = p_gk.mean(axis=1)
        s2 = np.einsum("bgk,bgl->bkl", p_gk, p_gk) - n_raters * pbar[:, :, None] * pbar[:, None, :]
        s2 /= n_raters - 1.0
        pe = (M * (pbar[:, :, None] * pbar[:, None, :] - s2 / n_raters)).sum(axis=(1, 2))
        return np.asarray((pa - pe) / (1.0 - pe), dtype=np.float64)

    return core


def _conger_se(Y: FloatArray, M: FloatArray, value: float, pe: float) -> float:
    r"""Gwet's (2014) linearised standard error of Conger's kappa (as irrCAC).

    With :math:`\delta_{igl}` the one-hot ratings ``Y``, :math:`\epsilon_{ig}`
    whether rater ``g`` rated item ``i``, :math:`n_g` rater ``g``'s ratings
    and :math:`p_{gl}` their shares, the per-item chance agreement is
    :math:`p_{e|i} = \sum_g \lambda_{ig} / (R (R - 1))` with

    .. math:: \lambda_{ig} = \frac{N}{n_g} \sum_k \Big(\sum_l w_{kl}
              \big(\delta_{igl} - (\epsilon_{ig} - n_g / N) p_{gl}\big)\Big)
              (R \bar p_k - p_{gk}),

    and the variance that of
    :math:`\kappa_i - 2 (1 - \kappa)(p_{e|i} - p_e) / (1 - p_e)`.
    """
    N, R, _ = Y.shape
    if N < 2 or not math.isfinite(value):
        return math.nan
    rated = Y.sum(axis=2)
    ng = rated.sum(axis=0)
    pgk = Y.sum(axis=0) / ng[:, None]
    pbar = pgk.mean(axis=0)
    x = Y.sum(axis=1)
    n = x.sum(axis=1)
    pa_i = (x * (x @ M.T - 1.0)).sum(axis=1) / (n * (n - 1.0))
    inner = Y @ M.T - (rated - ng / N)[:, :, None] * (pgk @ M.T)[None, :, :]
    lam = (N / ng)[None, :, None] * inner * (R * pbar[None, None, :] - pgk[None, :, :])
    pe_i = lam.sum(axis=(1, 2)) / (R * (R - 1.0))
    k_i = (pa_i - pe) / (1.0 - pe) - 2.0 * (1.0 - value) * (pe_i - pe) / (1.0 - pe)
    return float(np.sqrt(((k_i - value) ** 2).sum() / (N * (N - 1.0))))


def _rater_patterns(R: FloatArray, K: int) -> tuple[FloatArray, IntArray]:
    codes = np.where(np.isfinite(R), R + 1.0, 0.0).astype(np.int64)
    rows, mult, _ = patterns(codes)
    onehot = _rater_onehot(np.where(rows > 0, rows - 1.0, np.nan), K)
    return onehot.reshape(len(rows), -1), mult


def conger_kappa(
    annotations: Annotations | npt.ArrayLike, *, weights: Weights = None
) -> AgreementResult:
    r"""Conger's kappa: Cohen's kappa generalised to several raters.

    Parameters
    ----------
    annotations : Annotations or array_like of shape (N items, R raters)
        Annotations with annotator ids, or label codes ``0 .. K-1`` with
        NaN where a rater did not rate an item.
    weights : None, str or array_like of shape (K, K)
        Agreement weights: a named scheme of :func:`agreement_weights` (over
        the label values of the scale; codes ``0 .. K-1`` for an array) or
        a matrix.

    Returns
    -------
    AgreementResult
        ``standard_error`` Gwet's (2014) linearised one (as irrCAC; items
        with fewer than two ratings are excluded first).

    Notes
    -----
    With :math:`p_{gk}` the share of rater ``g``'s ratings in category
    ``k``, :math:`\bar p_k` its mean over raters and
    :math:`s^2_{kl}` the covariance of :math:`p_{gk}` and :math:`p_{gl}`
    across raters,

    .. math:: P_e = \sum_{kl} w_{kl} \left(\bar p_k \bar p_l - s^2_{kl} / R\right).

    :math:`P_a` is as in :func:`fleiss_kappa` (items with two or more
    ratings). For two raters and complete data this is Cohen's kappa.

    References
    ----------
    Conger, A. J. (1980). Integration and generalization of kappas for
    multiple raters. *Psychological Bulletin* 88(2), 322–328.
    https://doi.org/10.1037/0033-2909.88.2.322

    Examples
    --------
    >>> r = conger_kappa([[0, 0, 1], [1, 1, 1], [0, 1, 1], [0, 0, 0]])
    >>> round(float(r), 4)
    0.3846
    """
    name = "conger_kappa"
    R, K, M, n_excluded, note = _prepare_raters(annotations, name, weights)
    N, n_raters = R.shape
    value = pa = pe = se = math.nan
    if not note:
        P = _rater_onehot(R, K).reshape(N, -1)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = float(_conger_core(M, n_raters, K)(P, np.ones((1, N)))[0])
        x = P.reshape(N, n_raters, K).sum(axis=1)
        n = x.sum(axis=1)
        pa = float(((x * (x @ M.T - 1.0)).sum(axis=1) / (n * (n - 1.0))).mean())
        pe = (pa - value) / (1.0 - value) if value != 1.0 else math.nan
        if math.isnan(value):
            note = degenerate(name, "chance agreement is 1 (a single category was used)")
        else:
            se = _conger_se(P.reshape(N, n_raters, K), M, value, pe)
    core = _conger_core(M, n_raters, K)
    boot = ItemBootstrap(name, lambda _: BootStatistic(core, value), lambda: _rater_patterns(R, K))
    return AgreementResult(
        name=name,
        statistic=value,
        standard_error=se,
        n_items=N,
        n_items_excluded=n_excluded,
        n_annotations=int(np.isfinite(R).sum()),
        parts={"observed_agreement": pa, "chance_agreement": pe},
        note=note,
        _resampler=boot,
    )


def pair_tables(R: FloatArray, K: int) -> FloatArray:
    """All rater-pair contingency tables (R, R, K, K) of label codes ``R`` (N, R; NaN missing)."""
    n, r = R.shape
    ok = np.isfinite(R)
    rows, cols = np.nonzero(ok)
    codes = R[rows, cols].astype(np.int64)
    Y = sparse.csr_matrix(
        (np.ones(rows.size), (rows, cols * K + codes)), shape=(n, r * K), dtype=np.float64
    )
    T = np.asarray((Y.T @ Y).toarray(), dtype=np.float64)
    return T.reshape(r, K, r, K).transpose(0, 2, 1, 3)


def _light_core(M: FloatArray, n_raters: int, K: int) -> Any:
    iu = np.triu_indices(n_raters, 1)

    def core(P: FloatArray, W: FloatArray) -> FloatArray:
        Y = P.reshape(-1, n_raters, K)
        Ya = Y[:, iu[0], :]
        Yb = Y[:, iu[1], :]
        Z = (Ya[:, :, :, None] * Yb[:, :, None, :]).reshape(len(P), -1)
        T = (W @ Z).reshape(W.shape[0], -1, K, K)
        kappa = table_kappa(T, M)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a resample with no defined pair
            return np.asarray(np.nanmean(kappa, axis=1), dtype=np.float64)

    return core


def light_kappa(
    annotations: Annotations | npt.ArrayLike, *, weights: Weights = None
) -> AgreementResult:
    r"""Light's kappa: the mean of Cohen's kappa over all pairs of raters.

    Parameters
    ----------
    annotations : Annotations or array_like of shape (N items, R raters)
        As in :func:`conger_kappa`.
    weights : None, str or array_like of shape (K, K)
        Agreement weights of each pairwise kappa, as in :func:`conger_kappa`.

    Returns
    -------
    AgreementResult
        ``parts["n_pairs"]`` rater pairs with a defined kappa.

    Notes
    -----
    .. math:: \kappa_L = \binom{R}{2}^{-1} \sum_{g < h} \kappa_{gh},

    each :math:`\kappa_{gh}` on the items both raters rated; pairs whose
    kappa is undefined (no shared item, or one category) are skipped.
    The bootstrap costs O(N R^2 K^2) per resample.

    References
    ----------
    Light, R. J. (1971). Measures of response agreement for qualitative data:
    some generalizations and alternatives. *Psychological Bulletin* 76(5),
    365–377. https://doi.org/10.1037/h0031643

    Examples
    --------
    >>> round(float(light_kappa([[0, 0, 1], [1, 1, 1], [0, 1, 1], [0, 0, 0]])), 4)
    0.4
    """
    name = "light_kappa"
    R, K, M, n_excluded, note = _prepare_raters(annotations, name, weights)
    n_raters = R.shape[1]
    value = math.nan
    n_pairs = 0
    if not note:
        T = pair_tables(R, K)
        iu = np.triu_indices(n_raters, 1)
        kappa = table_kappa(T[iu], M)[0]
        n_pairs = int(np.isfinite(kappa).sum())
        if n_pairs == 0:
            note = degenerate(name, "no pair of raters has a defined kappa")
        else:
            value = float(np.nanmean(kappa))
    core = _light_core(M, n_raters, K)
    boot = ItemBootstrap(
        name,
        lambda U: BootStatistic(core, value, U * (1 + n_raters * n_raters * K * K)),
        lambda: _rater_patterns(R, K),
    )
    return AgreementResult(
        name=name,
        statistic=value,
        n_items=R.shape[0],
        n_items_excluded=n_excluded,
        n_annotations=int(np.isfinite(R).sum()),
        parts={"n_pairs": float(n_pairs)},
        note=note,
        _resampler=boot,
    )
