r"""Krippendorff's alpha from label counts, through the coincidence matrix.

Notation (Krippendorff 2011). Pairable items are those with ``n_i >= 2``
values; ``x_{ic}`` values ``c`` in item ``i``. Coincidences

.. math:: o_{ck} = \sum_i \frac{x_{ic} x_{ik} - [c = k]\, x_{ic}}{n_i - 1},

marginals ``n_c = \sum_k o_{ck}``, total ``n_{\cdot\cdot}``; squared
distances ``\delta^2_{ck}`` by level of measurement; disagreements
``D_o = \sum o_{ck} \delta^2_{ck} / n_{\cdot\cdot}`` and
``D_e = \sum n_c n_k \delta^2_{ck} / (n_{\cdot\cdot}(n_{\cdot\cdot} - 1))``;
``\alpha = 1 - D_o / D_e``. Memory is O(N K + K^2): no item-by-value-pair
arrays.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from dissensus._validation import check_option, examples
from dissensus.agreement._common import (
    BootStatistic,
    FloatArray,
    ItemBootstrap,
    count_rows,
    degenerate,
    prepare_counts,
    require_order,
)
from dissensus.agreement._result import AgreementResult
from dissensus.agreement._sets import SetDistance, set_alpha_input
from dissensus.data import Annotations, LabelCounts, Scale, SetAnnotations

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS = ("nominal", "ordinal", "interval", "ratio")
#: A user difference function on label values, a (K, K) matrix of them, or a set distance.
Distance = Callable[[Any, Any], Any] | npt.ArrayLike | SetDistance


def _values(scale: Scale, level: str) -> FloatArray:
    try:
        return scale.values
    except TypeError:
        msg = (
            f"Krippendorff's alpha at the {level!r} level needs numeric labels; the scale is "
            f"{scale!r}. Use level='ordinal' (order of the scale) or level='nominal'."
        )
        raise TypeError(msg) from None


def _delta(level: str, v: FloatArray) -> FloatArray:
    """Squared distances between category values ``v`` for a fixed-metric level."""
    K = v.size
    if level == "nominal":
        return 1.0 - np.eye(K)
    diff = v[:, None] - v[None, :]
    if level == "interval":
        return diff**2
    tot = v[:, None] + v[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(tot == 0, 0.0, (diff / np.where(tot == 0, 1.0, tot)) ** 2)
    return np.asarray(out, dtype=np.float64)


def _ordinal_delta(nc: FloatArray) -> FloatArray:
    """Ordinal distances from marginals ``nc`` (..., K): ranks by cumulative frequency."""
    cum = np.cumsum(nc, axis=-1)
    # sum_{g=c..k} n_g for c <= k, = cum_k - cum_{c-1}
    between = cum[..., None, :] - cum[..., :, None] + nc[..., :, None]
    between = np.maximum(between, np.swapaxes(between, -1, -2))
    half = (nc[..., :, None] + nc[..., None, :]) / 2.0
    return np.asarray((between - half) ** 2, dtype=np.float64)


def alpha_row_stats(
    Pt: FloatArray, level: str, v: FloatArray | None, delta: FloatArray | None = None
) -> tuple[FloatArray, FloatArray]:
    r"""Ratings ``n`` and observed disagreement sums of each count column of ``Pt`` (K, U).

    Nominal and interval use moments, so no K × K array is formed:
    :math:`\sum_{ck} x_c x_k [c \ne k] = n^2 - \sum_c x_c^2` and
    :math:`\sum_{ck} x_c x_k (v_c - v_k)^2 = 2 (n \sum_c x_c v_c^2 - (\sum_c x_c v_c)^2)`.
    Ordinal returns the flattened per-item coincidences (U, K²) instead.
    """
    n = Pt.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        if level == "nominal":
            return n, (n * n - (Pt * Pt).sum(axis=0)) / (n - 1.0)
        if level == "interval":
            assert v is not None
            s1 = v @ Pt
            s2 = (v * v) @ Pt
            return n, 2.0 * (n * s2 - s1 * s1) / (n - 1.0)
        if level in ("ratio", "custom"):
            d = level_metric(level, v, delta)
            # the diagonal of d is 0, so the -[c = k] x_c term of o vanishes
            return n, quadratic_forms(Pt, d) / (n - 1.0)
        K, U = Pt.shape
        P = Pt.T
        o_i = (P[:, :, None] * P[:, None, :]) / (n - 1.0)[:, None, None]
        o_i[:, np.arange(K), np.arange(K)] -= P / (n - 1.0)[:, None]
        return n, o_i.reshape(U, K * K)


def quadratic_forms(Pt: FloatArray, M: FloatArray) -> FloatArray:
    r""":math:`x_u^\top M x_u` for each column :math:`x_u` of the (K, U) counts ``Pt``.

    Dense, ``((M @ Pt) * Pt).sum(0)``, costs K² U. With many categories and
    few labels per item (a user distance over hundreds of values, the
    distinct sets of set-valued labels) the columns are sparse, and the sum
    over the pairs of nonzero entries within each column costs
    :math:`\sum_u m_u^2` for :math:`m_u` nonzeros: that path is taken when
    it is clearly cheaper. Both give the same numbers up to rounding.
    """
    K, U = Pt.shape
    if K <= 16:
        return np.asarray(((M @ Pt) * Pt).sum(axis=0), dtype=np.float64)
    c, u = np.nonzero(Pt)  # scanned in memory order, then grouped by column
    order = np.argsort(u, kind="stable")
    c, u = c[order], u[order]
    m = np.bincount(u, minlength=U)
    reps = m[u]
    n_pairs = int(reps.sum())
    if 16 * n_pairs >= K * K * U:
        return np.asarray(((M @ Pt) * Pt).sum(axis=0), dtype=np.float64)
    x = Pt[c, u]
    start = np.cumsum(m) - m
    left = np.repeat(np.arange(u.size), reps)
    right = start[u[left]] + (np.arange(n_pairs) - np.repeat(np.cumsum(reps) - reps, reps))
    values = x[left] * x[right] * M[c[left], c[right]]
    return np.asarray(np.bincount(u[left], weights=values, minlength=U), dtype=np.float64)


def level_metric(level: str, v: FloatArray | None, delta: FloatArray | None) -> FloatArray:
    """The (K, K) squared distances: the user's matrix for ``"custom"``, else the level's."""
    if level == "custom":
        assert delta is not None
        return delta
    assert v is not None
    return _delta(level, v)


def _expected_sum(
    nc: FloatArray, level: str, v: FloatArray | None, delta: FloatArray | None = None
) -> FloatArray:
    r""":math:`\sum_{ck} n_c n_k \delta^2_{ck}` for marginals ``nc`` (B, K), not ordinal."""
    if level == "nominal":
        ntot = nc.sum(axis=1)
        return np.asarray(ntot * ntot - (nc * nc).sum(axis=1), dtype=np.float64)
    if level == "interval":
        assert v is not None
        t1 = nc @ v
        t2 = nc @ (v * v)
        return np.asarray(2.0 * (nc.sum(axis=1) * t2 - t1 * t1), dtype=np.float64)
    d = level_metric(level, v, delta)
    return np.asarray(((nc @ d) * nc).sum(axis=1), dtype=np.float64)


def _make_core(level: str, v: FloatArray | None, delta: FloatArray | None = None) -> Any:
    """``core(P, W)``: alpha of the datasets that weight count rows ``P`` by ``W``.

    Per-row quantities depend on ``P`` only, so they are computed once per
    ``P`` and reused across chunks of resamples. The cache holds ``P`` itself
    and checks identity with ``is``: an ``id()`` key alone would be reused by
    a new array allocated at a freed one's address and return a stale alpha.
    """
    cached: list[Any] = [None, ()]  # [P, per-row quantities]

    def core(P: FloatArray, W: FloatArray) -> FloatArray:
        if cached[0] is not P:
            n, stat = alpha_row_stats(P.T, level, v, delta)
            if level == "interval":
                assert v is not None
                # interval needs only the first two moments of each row, not its counts
                cached[:] = [P, (n, stat, P @ v, P @ (v * v))]
            else:
                cached[:] = [P, (n, stat)]
        n, stat, *moments = cached[1]
        ntot = W @ n
        if level == "ordinal":
            K = P.shape[1]
            return alpha_from_coincidences((W @ stat).reshape(-1, K, K), level, v)
        if level == "interval":
            do = W @ stat
            t1 = W @ moments[0]
            de = 2.0 * (ntot * (W @ moments[1]) - t1 * t1)
        else:
            do = W @ stat
            de = _expected_sum(W @ P, level, v, delta)
        return np.asarray(1.0 - (ntot - 1.0) * do / de, dtype=np.float64)

    return core


def alpha_from_coincidences(o: FloatArray, level: str, v: FloatArray | None) -> FloatArray:
    """Alpha of each coincidence matrix ``o`` (B, K, K) at ``level``.

    Coincidence matrices add up over disjoint sets of items, so this turns
    the sum of per-partition (or per-resample) matrices into alpha at any
    level; ``v`` are the values of :func:`level_values`.
    """
    nc = o.sum(axis=2)
    ntot = nc.sum(axis=1)
    if level == "ordinal":
        d = _ordinal_delta(nc)
        do = (o * d).sum(axis=(1, 2))
        de = np.einsum("bc,bck,bk->b", nc, d, nc)
    else:
        K = o.shape[1]
        d = _delta(level, np.zeros(K) if v is None else v)
        do = (o * d).sum(axis=(1, 2))
        de = _expected_sum(nc, level, v)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(1.0 - (ntot - 1.0) * do / de, dtype=np.float64)


def level_values(scale: Scale, level: str) -> FloatArray | None:
    """Category values of a fixed-metric level (interval: centred), else None.

    The ordinal level needs the scale's order (:func:`require_order`).
    """
    if level == "ordinal":
        require_order(scale, "Krippendorff's alpha at the 'ordinal' level")
    if level not in ("interval", "ratio"):
        return None
    v = _values(scale, level)
    # distances are shift-invariant; centring avoids cancellation
    return v - v.mean() if level == "interval" else v


def alpha_statistic(
    scale: Scale, level: str, theta_hat: float, n_patterns: int, delta: FloatArray | None = None
) -> BootStatistic:
    """The bootstrap core of alpha at ``level`` (used by the coefficient and the report)."""
    K = scale.K
    width = n_patterns + {"ordinal": 4 * K * K, "interval": 4}.get(level, 3 * K)
    core = _make_core(level, level_values(scale, level), delta)
    return BootStatistic(core, theta_hat, width)


def distance_matrix(distance: Distance, scale: Scale) -> FloatArray:
    r"""The (K, K) squared distances :math:`\delta^2_{ck}` of a user ``distance`` on ``scale``.

    A matrix is used as given; a callable is called once on the broadcast
    label values ``(labels[:, None], labels[None, :])`` and, when that does not
    give a (K, K) array (a function of two scalars), pair by pair.

    Raises
    ------
    ValueError
        When the distances are not finite, negative, asymmetric or nonzero on
        the diagonal.
    """
    K = scale.K
    func = "krippendorff_alpha"
    if callable(distance):
        labels = np.asarray(scale.labels, dtype=np.float64 if scale.is_numeric else object)
        try:
            raw = np.asarray(distance(labels[:, None], labels[None, :]), dtype=np.float64)
        except (TypeError, ValueError):
            raw = np.empty(0)
        if raw.shape != (K, K):
            raw = np.array(
                [[float(distance(a, b)) for b in labels] for a in labels], dtype=np.float64
            )
        what = "The 'distance' function"
    else:
        raw = np.asarray(distance, dtype=np.float64)
        what = "The 'distance' matrix"
        if raw.shape != (K, K):
            msg = (
                f"{what} of {func} must be ({K}, {K}) for the {K} labels of the scale; got "
                f"shape {raw.shape}."
            )
            raise ValueError(msg)
    problem = ""
    if not np.isfinite(raw).all():
        problem = "has non-finite values"
    elif (raw < 0).any():
        problem = "has negative values"
    elif not np.allclose(np.diag(raw), 0.0, atol=1e-12):
        problem = f"is not 0 between a label and itself (diagonal {examples(np.diag(raw))})"
    elif not np.allclose(raw, raw.T, rtol=1e-12, atol=1e-12):
        problem = "is not symmetric"
    if problem:
        msg = (
            f"{what} of {func} {problem}; Krippendorff's difference function must satisfy "
            "delta(c, c) = 0, delta(c, k) = delta(k, c) >= 0."
        )
        raise ValueError(msg)
    out = (raw + raw.T) / 2.0
    np.fill_diagonal(out, 0.0)
    return np.asarray(out, dtype=np.float64)


def alpha_weights(delta: FloatArray) -> FloatArray | None:
    r"""Gwet's agreement weights :math:`w = 1 - \delta^2 / \max \delta^2` (None if all 0)."""
    top = float(delta.max()) if delta.size else 0.0
    if top <= 0:
        return None
    return np.asarray(1.0 - delta / top, dtype=np.float64)


def alpha_linear_terms(
    N: int, u_mean: float, r_mean: float, x_mean: FloatArray, W: FloatArray
) -> tuple[float, FloatArray] | None:
    r"""Coefficients of Gwet's linearised alpha terms in :math:`y_i = (u_i, r_i, x_{i1..iK})`.

    With :math:`u_i = (x_i^\top w x_i - r_i) / (r_i - 1)` every per-item term
    of :func:`gwet_alpha_se` is linear in :math:`y_i`, with coefficients
    that depend on means only: :math:`\kappa_i - \alpha' = a_0 + a^\top y_i`,

    .. math::

        a_u = \frac{1}{\bar r (1 - p_e)}, \quad
        a_r = \frac{2 (1 - \alpha') p_e - p_a}{\bar r (1 - p_e)}, \quad
        a_x = -\frac{2 (1 - \alpha')}{\bar r (1 - p_e)} \frac{(w + w^\top) \pi}{2}, \quad
        a_0 = \frac{p_a - p_e}{1 - p_e} - \alpha',

    with :math:`\bar r`, :math:`p'_a = \bar u / \bar r`,
    :math:`p_a = (1 - \epsilon) p'_a + \epsilon`, :math:`\epsilon = 1 / (N \bar r)`,
    :math:`\pi = \bar x / \bar r`, :math:`p_e = \pi^\top w \pi` and
    :math:`\alpha' = (p'_a - p_e) / (1 - p_e)`. So
    :math:`\sum_i (\kappa_i - \alpha')^2` follows from the means and centred
    cross-products of :math:`y_i` (one pass, mergeable across partitions).
    None when :math:`p_e = 1` (no variance to agree on).
    """
    rbar = float(r_mean)
    eps = 1.0 / (N * rbar)
    pa_prime = float(u_mean) / rbar
    pa = (1.0 - eps) * pa_prime + eps
    pi = x_mean / rbar
    pe = float(pi @ W @ pi)
    if pe >= 1.0 - 1e-12:
        return None
    alpha_prime = (pa_prime - pe) / (1.0 - pe)
    scale = 1.0 / (rbar * (1.0 - pe))
    a_x = -2.0 * (1.0 - alpha_prime) * scale * (W @ pi + W.T @ pi) / 2.0
    a = np.concatenate([[scale, (2.0 * (1.0 - alpha_prime) * pe - pa) * scale], a_x])
    a0 = (pa - pe) / (1.0 - pe) - alpha_prime
    return a0, np.asarray(a, dtype=np.float64)


def alpha_item_terms(Xt: FloatArray, W: FloatArray) -> FloatArray:
    r"""The (N, K + 2) rows :math:`y_i = (u_i, r_i, x_{i1}, \dots, x_{iK})` of the counts ``Xt``."""
    r = Xt.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):  # only items with r_i >= 2 are given
        u = (quadratic_forms(Xt, W) - r) / (r - 1.0)
    return np.column_stack([u, r, Xt.T])


def gwet_alpha_se(Xt: FloatArray, delta: FloatArray) -> float:
    r"""Gwet's (2014) linearised standard error of alpha with fixed distances ``delta``.

    Alpha with squared distances :math:`\delta^2` is Gwet's weighted alpha
    with weights :math:`w = 1 - \delta^2 / \max \delta^2` (:func:`alpha_weights`);
    ``Xt`` are the (K, N) counts of the pairable items. The variance is that
    of the per-item terms :math:`\kappa_i - 2 (1 - \alpha')(p_{e|i} - p_e) / (1 - p_e)`
    around :math:`\alpha'` (Gwet 2014, ch. 5; as irrCAC), linear in per-item
    sums with the coefficients and notation of :func:`alpha_linear_terms`
    (which the Dask engine sums per partition).
    """
    N = Xt.shape[1]
    W = alpha_weights(delta)
    if N < 2 or W is None:
        return math.nan
    Y = alpha_item_terms(Xt, W)
    terms = alpha_linear_terms(N, float(Y[:, 0].mean()), float(Y[:, 1].mean()), Xt.mean(axis=1), W)
    if terms is None:
        return math.nan
    a0, a = terms
    k_i = a0 + Y @ a  # kappa_i - alpha'
    return float(np.sqrt((k_i**2).sum() / (N * (N - 1.0))))


def krippendorff_alpha(
    annotations: Annotations | LabelCounts | SetAnnotations | npt.ArrayLike,
    *,
    level: Level = "nominal",
    distance: Distance | None = None,
) -> AgreementResult:
    r"""Krippendorff's alpha at the nominal, ordinal, interval or ratio level, or any distance.

    Parameters
    ----------
    annotations : Annotations, LabelCounts, SetAnnotations or array_like of shape (N, K)
        Label counts per item (raters need not be identified; any number of
        ratings per item). Columns follow the scale's order. For an array the
        labels are ``0 .. K-1`` (their values for interval / ratio).
        Set-valued annotations (:class:`~dissensus.SetAnnotations`) need a
        set distance, ``distance="masi"`` or ``"jaccard"``.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of measurement. Ordinal uses the scale's order and ranks by
        cumulative frequency; interval and ratio use the numeric labels.
    distance : {"masi", "jaccard"}, callable or array_like of shape (K, K), optional
        For set-valued annotations: the MASI (Passonneau 2006) or Jaccard
        distance between two annotators' sets (see Notes); each distinct
        set observed is one value, and the result is named
        ``"krippendorff_alpha_masi"`` / ``"krippendorff_alpha_jaccard"``.
        Instead of a level: Krippendorff's difference function
        :math:`\delta^2_{ck}` (already squared, as ``(c - k) ** 2`` is for
        the interval level), either a (K, K) matrix in the scale's order or
        a function of two label values. A function is called once with the
        broadcast arrays ``labels[:, None]`` and ``labels[None, :]`` (float,
        or object for text labels), and pair by pair if that does not give a
        (K, K) array. It must be 0 between a label and itself, symmetric and
        non-negative.

    Returns
    -------
    AgreementResult
        ``statistic`` alpha; ``standard_error`` Gwet's (2014) linearised standard error
        (:func:`gwet_alpha_se`, as irrCAC) at the nominal, interval and ratio
        levels and for a user distance; NaN at the ordinal level, whose
        distances depend on the data (Krippendorff recommends resampling:
        ``result.confidence_interval()``); ``parts`` observed and expected disagreement.

    Raises
    ------
    TypeError
        For ``level="interval"`` or ``"ratio"`` with string labels.
    ValueError
        For a ``distance`` that is not a difference function (see above),
        or both ``distance`` and a level other than nominal.

    Warns
    -----
    DegenerateAgreementWarning
        When items with fewer than two values are excluded, or when the
        expected disagreement is 0 (every pairable value the same: NaN).

    Notes
    -----
    See the module notation. Squared distances:
    nominal :math:`[c \ne k]`; ordinal
    :math:`\left(\sum_{g=c}^{k} n_g - \frac{n_c + n_k}{2}\right)^2`;
    interval :math:`(v_c - v_k)^2`; ratio
    :math:`\left(\frac{v_c - v_k}{v_c + v_k}\right)^2` (0 when both are 0).
    With ``distance`` the user's :math:`\delta^2_{ck}` replaces them (the
    result is named ``"krippendorff_alpha_custom"``); the result equals
    ``krippendorff.alpha(level_of_measurement=<the same function>)``.

    Set distances, for sets :math:`A, B` of labels, enter as
    :math:`\delta^2` unsquared (as in nltk's ``AnnotationTask``, which this
    equals): Jaccard :math:`1 - |A \cap B| / |A \cup B|`, MASI
    :math:`1 - M(A, B)\, |A \cap B| / |A \cup B|` with :math:`M = 1` for
    equal sets, :math:`2/3` when one contains the other, :math:`1/3` for
    other overlaps and 0 for disjoint sets. The empty set is a value:
    :math:`d(\emptyset, \emptyset) = 0`, :math:`d(\emptyset, B) = 1`. Passing
    set-valued data through the same core (one function for Krippendorff's
    alpha, whatever the values are) keeps the bootstrap, the standard
    error and the degenerate-case rules identical to single labels.

    The interval resamples *items* (the unit of sampling in most
    annotation studies); Krippendorff's own bootstrap resamples pairable
    values, so its intervals differ.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
    https://repository.upenn.edu/asc_papers/43

    Hayes, A. F. and Krippendorff, K. (2007). Answering the call for a
    standard reliability measure for coding data. *Communication Methods and
    Measures* 1(1), 77–89. https://doi.org/10.1080/19312450709336664

    Passonneau, R. (2006). Measuring agreement on set-valued items (MASI)
    for semantic and pragmatic annotation. *Proc. LREC 2006*.
    https://aclanthology.org/L06-1392/

    Examples
    --------
    Krippendorff's (2011) binary example, two coders, ten units:

    >>> counts = [[1, 1], [0, 2], [1, 1], [2, 0], [2, 0],
    ...           [1, 1], [2, 0], [2, 0], [1, 1], [2, 0]]
    >>> round(float(krippendorff_alpha(counts)), 4)
    0.0952

    A distance of one's own, e.g. absolute rather than squared differences:

    >>> ratings = [[2, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 2]]
    >>> round(float(krippendorff_alpha(ratings, distance=lambda c, k: abs(c - k))), 4)
    0.5333

    Sets of labels, two coders, three items ({x} / {x}, {x, y} / {x},
    {y} / {z}; 7/32 by hand):

    >>> import pandas as pd
    >>> from dissensus import SetAnnotations
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "annotator": ["A", "B"] * 3,
    ...                    "label": [["x"], ["x"], ["x", "y"], ["x"], ["y"], ["z"]]})
    >>> float(krippendorff_alpha(SetAnnotations.from_frame(df), distance="masi"))
    0.21875
    """
    name = "krippendorff_alpha"
    check_option(name, "level", level, LEVELS)
    set_name = ""
    if isinstance(annotations, SetAnnotations) or isinstance(distance, str):
        set_name = str(distance)
        annotations, distance = set_alpha_input(annotations, distance)
    if distance is not None and level != "nominal":
        msg = (
            f"{name} takes a level or a distance, not both; got level={level!r} and a distance. "
            "Drop one of them."
        )
        raise ValueError(msg)
    inp = prepare_counts(annotations, name)
    delta_user = None
    if distance is not None:
        level = "custom"  # type: ignore[assignment]  # internal level of a user distance
        delta_user = distance_matrix(distance, inp.scale)
    v = level_values(inp.scale, level)
    Xt = inp.Xt
    K = inp.scale.K
    note = ""
    do = de = value = se = math.nan
    if inp.N == 0:
        note = degenerate(name, "no item has two or more values (nothing is pairable)")
    else:
        nc = Xt.sum(axis=1)
        ntot = float(nc.sum())
        if level == "ordinal":
            scaled = Xt / (Xt.sum(axis=0) - 1.0)
            o = scaled @ Xt.T
            o[np.arange(K), np.arange(K)] -= scaled.sum(axis=1)
            delta = _ordinal_delta(nc)
            do_sum = float((o * delta).sum())
            de_sum = float(nc @ delta @ nc)
        else:
            do_sum = float(alpha_row_stats(Xt, level, v, delta_user)[1].sum())
            de_sum = float(_expected_sum(nc[None, :], level, v, delta_user)[0])
        do = do_sum / ntot
        de = de_sum / (ntot * (ntot - 1.0))
        if np.count_nonzero(nc) < 2 or de <= 0.0:
            note = degenerate(
                name,
                "the expected disagreement is 0 (every pairable value is the same, so "
                "there is no variation to agree on)",
            )
        else:
            value = 1.0 - do / de
            if level != "ordinal":  # ordinal distances depend on the data: bootstrap
                fixed = delta_user
                if fixed is None:
                    fixed = 1.0 - np.eye(K) if level == "nominal" else level_metric(level, v, None)
                se = gwet_alpha_se(Xt, fixed)
    scale, lvl_ = inp.scale, level
    boot = ItemBootstrap(
        name, lambda U: alpha_statistic(scale, lvl_, value, U, delta_user), count_rows(inp), inp
    )
    return AgreementResult(
        name=f"{name}_{set_name or level}" if set_name or level != "nominal" else name,
        statistic=value,
        standard_error=se,
        n_items=inp.N,
        n_items_excluded=inp.n_excluded,
        n_annotations=inp.n_annotations,
        parts={"observed_disagreement": do, "expected_disagreement": de},
        note=note,
        _resampler=boot,
    )
