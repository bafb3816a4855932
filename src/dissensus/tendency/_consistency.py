r"""Inter-annotator consistency structure and DIC.

Section 3.1 of "A Unified Evaluation Framework for Multi-Annotator Tendency
Learning", arXiv:2508.10393 (2025), the tendency paper. Notation (the
paper's): ``M`` the true consistency matrix, ``M'`` the predicted one, entry
:math:`(k, l)` the agreement of annotators ``k`` and ``l`` on the items both
labelled (:math:`S_{kl}`), :math:`\tau` the minimum overlap ``min_overlap``.

Every pair's agreement is a function of its ``K × K`` table, and all tables
come from one sparse incidence matrix ``P`` (items × pairs·K·K): row ``i``
holds the outer products of the labels (or predicted distributions) of the
annotator pairs that both labelled item ``i``. With ``w`` the item weights,
the tables are ``w @ P``: ``w = 1`` for the point estimate, ``W @ P`` with the
bootstrap weights of :mod:`dissensus.stats` for every resample at once. The
coefficients of the tables are :func:`dissensus.agreement.pairwise`'s, one
implementation.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import sparse

from dissensus._exceptions import DegenerateAgreementWarning
from dissensus._validation import (
    SeedLike,
    as_generator,
    check_option,
    check_probability_level,
    examples,
)
from dissensus.agreement import PairwiseAgreement, pairwise
from dissensus.agreement.kernels import LEVELS, MEASURES, Level, Weights, table_values
from dissensus.data import Annotations, Scale
from dissensus.report import Table, format_count, format_interval, format_number, html_fragment
from dissensus.stats import ConfidenceInterval, iter_bootstrap_weights, percentile_interval
from dissensus.tendency._align import AlignedPredictions, align_predictions, check_annotations

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
MeasureArg = str | Callable[[IntArray, IntArray], float]

#: Table cells per chunk of bootstrap resamples (64 MB of float64).
_CHUNK_CELLS = 8 * 2**20


def _check_common(func: str, measure: MeasureArg, level: str, min_overlap: int) -> None:
    if not callable(measure):
        check_option(func, "measure", measure, MEASURES)
    check_option(func, "level", level, LEVELS)
    if int(min_overlap) < 1:
        msg = f"The 'min_overlap' parameter of {func} must be at least 1. Got {min_overlap!r}."
        raise ValueError(msg)


def consistency_matrix(
    annotations: Annotations,
    *,
    measure: MeasureArg = "cohen",
    min_overlap: int = 20,
    weights: Weights = "quadratic",
    level: Level = "nominal",
) -> PairwiseAgreement:
    r"""Inter-annotator consistency matrix: agreement of every annotator pair.

    The paper's :math:`M_{kl}` is Cohen's kappa of annotators ``k`` and ``l``
    on the items both labelled, when they share at least :math:`\tau` items.
    This is :func:`dissensus.agreement.pairwise` with the diagonal set to 1
    (an annotator is consistent with themself).

    Parameters
    ----------
    annotations : Annotations
        With annotator ids, one label per (item, annotator).
    measure : {"cohen", "weighted_cohen", "alpha", "pearson"} or callable, default "cohen"
        The pair agreement. For ordinal or interval scales (the paper's open
        question 2): ``"weighted_cohen"`` (``weights``), ``"alpha"`` with
        ``level="ordinal"`` or ``"interval"``, or ``"pearson"`` (label values).
    min_overlap : int, default 20
        :math:`\tau`: pairs sharing fewer items are NaN. The paper leaves it
        open; 20 keeps the standard error of a kappa near 0.2 or below
        (:func:`tau_curve` shows what the choice does).
    weights, level : default "quadratic", "nominal"
        The weights of ``"weighted_cohen"`` (or an array) and the measurement
        level of ``"alpha"``.

    Returns
    -------
    PairwiseAgreement
        ``.statistic`` (diagonal 1, NaN below ``min_overlap``) and ``.overlap``.

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "annotator": list("ababab"),
    ...                    "label": ["x", "x", "y", "y", "x", "y"]})
    >>> consistency_matrix(Annotations.from_frame(df), min_overlap=3).statistic.round(2)
                  a    b
    annotator
    a          1.00  0.40
    b          0.40  1.00
    """
    _check_common("consistency_matrix", measure, level, min_overlap)
    check_annotations(annotations, "annotations", "consistency_matrix")
    # the diagonal is set to 1 below; a one-category annotator's own NaN is not news
    with warnings.catch_warnings(action="ignore", category=DegenerateAgreementWarning):
        pw = pairwise(
            annotations,
            measure,  # type: ignore[arg-type]  # a name checked by _check_common
            min_overlap=int(min_overlap),
            weights=weights,
            level=level,
        )
    values = pw.statistic.to_numpy(copy=True)
    np.fill_diagonal(values, 1.0)
    undefined = int((~np.isfinite(values) & (pw.overlap.to_numpy() >= min_overlap)).sum()) // 2
    if undefined:
        warnings.warn(
            f"consistency_matrix {pw.measure}: {undefined} annotator pairs share at least "
            f"{min_overlap} items but have an undefined coefficient (e.g. both used a single "
            "category); they are NaN.",
            DegenerateAgreementWarning,
            stacklevel=2,
        )
    return PairwiseAgreement(
        statistic=pd.DataFrame(values, index=pw.statistic.index, columns=pw.statistic.columns),
        overlap=pw.overlap,
        measure=pw.measure,
    )


# -- the table engine -----------------------------------------------------------------
@dataclass(frozen=True)
class _Pairs:
    """Cell pairs on a shared item: cells ``u``, ``v`` with annotator(u) < annotator(v)."""

    u: IntArray
    v: IntArray
    item: IntArray  # dense index among items with at least two cells
    pair: IntArray  # upper-triangle index of (annotator(u), annotator(v))
    n_items: int
    R: int

    @property
    def n_pairs(self) -> int:
        return self.R * (self.R - 1) // 2


def _cell_pairs(item_codes: IntArray, annotator_codes: IntArray, R: int) -> _Pairs:
    order = np.lexsort((annotator_codes, item_codes))
    it = item_codes[order]
    starts = np.flatnonzero(np.r_[True, it[1:] != it[:-1]])
    ends = np.r_[starts[1:], it.size]
    size = ends - starts
    end_of = np.repeat(ends, size)
    pos = np.arange(it.size)
    n_after = end_of - pos - 1
    total = int(n_after.sum())
    u_sorted = np.repeat(pos, n_after)
    first = np.repeat(np.cumsum(n_after) - n_after, n_after)
    v_sorted = u_sorted + 1 + (np.arange(total) - first)
    u, v = order[u_sorted], order[v_sorted]
    au, av = annotator_codes[u], annotator_codes[v]
    # upper-triangle index of (au < av), row-major as np.triu_indices
    pair = au * R - au * (au + 1) // 2 + (av - au - 1)
    multi = np.flatnonzero(size >= 2)
    dense = np.full(size.size, -1, dtype=np.int64)
    dense[multi] = np.arange(multi.size)
    group = np.repeat(np.arange(size.size), size)  # group of each sorted position
    item = dense[group[u_sorted]]
    return _Pairs(
        u.astype(np.int64), v.astype(np.int64), item, pair.astype(np.int64), int(multi.size), R
    )


def _incidence(pairs: _Pairs, q: FloatArray, keep: IntArray) -> sparse.csr_matrix:
    """Items × (kept pairs · K · K): outer products of the two cells' distributions."""
    K = q.shape[1]
    col_of = np.full(pairs.n_pairs, -1, dtype=np.int64)
    col_of[keep] = np.arange(keep.size)
    sel = np.flatnonzero(col_of[pairs.pair] >= 0)
    qu, qv = q[pairs.u[sel]], q[pairs.v[sel]]
    outer = (qu[:, :, None] * qv[:, None, :]).reshape(sel.size, K * K)
    r, c = np.nonzero(outer)
    cols = col_of[pairs.pair[sel]][r] * K * K + c
    return sparse.csr_matrix(
        (outer[r, c], (pairs.item[sel][r], cols)), shape=(pairs.n_items, keep.size * K * K)
    )


def _values(
    T: FloatArray, measure: str, scale: Scale, *, weights: Weights, level: Level, func: str
) -> FloatArray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return table_values(T, measure, scale, weights=weights, level=level, func=func)


def _square(upper: FloatArray, names: pd.Index, diagonal: float | IntArray) -> pd.DataFrame:
    """The symmetric matrix of the upper-triangle pair values, ``diagonal`` on its diagonal."""
    R = len(names)
    full = np.full((R, R), np.nan)
    iu, ju = np.triu_indices(R, 1)
    full[iu, ju] = upper
    full[ju, iu] = upper
    np.fill_diagonal(full, diagonal)
    return pd.DataFrame(full, index=names, columns=names.rename(None))


def _dic_of(vt: FloatArray, vp: FloatArray, diagonal_terms: float) -> FloatArray:
    """DIC along the last axis over the pairs finite in both (NaN when none)."""
    ok = np.isfinite(vt) & np.isfinite(vp)
    num = np.where(ok, (vt - vp) ** 2, 0.0).sum(axis=-1)
    den = np.where(ok, vt**2, 0.0).sum(axis=-1) + diagonal_terms
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(ok.any(axis=-1) & (den > 0), np.sqrt(num / den), np.nan)
    return np.asarray(out, dtype=np.float64)


@dataclass(frozen=True)
class DICResult:
    r"""Difference of inter-annotator consistency (lower is better).

    ``statistic`` is :math:`\lVert M - M' \rVert_F / \lVert M \rVert_F` over
    the ``n_pairs`` pairs used (overlap at least ``min_overlap``, coefficient
    defined in both matrices); ``n_pairs_undefined`` pairs had enough overlap
    but an undefined coefficient (e.g. a predicted annotator using one label).
    ``confidence_interval`` is the bootstrap interval over items (None without
    one), ``bootstrap_bias`` the mean of the bootstrap replicates minus
    ``statistic`` (NaN without an interval; see :func:`dic`). ``true`` and
    ``predicted`` are :math:`M` and :math:`M'` (diagonal 1), ``overlap`` the
    items each pair shares, ``n_unused_predictions`` the predictions for cells
    without a true label; the other fields are the settings.
    """

    statistic: float
    confidence_interval: ConfidenceInterval | None
    n_pairs: int
    n_pairs_undefined: int
    true: pd.DataFrame
    predicted: pd.DataFrame
    overlap: pd.DataFrame
    measure: str
    min_overlap: int
    diagonal: bool
    n_resamples: int
    n_unused_predictions: int
    bootstrap_bias: float = float("nan")

    def __float__(self) -> float:
        return self.statistic

    def __repr__(self) -> str:
        interval = self.confidence_interval
        span = f", CI [{interval.low:.3f}, {interval.high:.3f}]" if interval is not None else ""
        return (
            f"<DICResult {self.measure}, tau={self.min_overlap}: {self.statistic:.4f}{span} "
            f"over {self.n_pairs} pairs>"
        )

    def _repr_html_(self) -> str:
        """Compact notebook view: one row with DIC, its interval, the pairs and annotators."""
        ci, undefined = self.confidence_interval, self.n_pairs_undefined
        row = [self.measure, str(self.min_overlap), format_number(self.statistic, digits=4),
               "" if ci is None else format_interval(ci.low, ci.high, digits=4),
               format_count(self.n_pairs) + (f" ({undefined:,} undefined)" if undefined else ""),
               examples(self.true.index)]  # fmt: skip
        header = ["measure", "τ", "DIC", "interval", "pairs", "annotators"]
        caption = "DIC (lower is better): matrices .true, .predicted."
        return html_fragment(Table(header, [row], align="lrrrrl", caption=caption))


@dataclass(frozen=True)
class _Prepared:
    """True and predicted cells of one comparison, with every annotator pair's items."""

    aligned: AlignedPredictions
    pairs: _Pairs
    q_true: FloatArray
    q_pred: FloatArray
    scale: Scale
    names: pd.Index
    overlap: IntArray
    acodes: IntArray

    @cached_property
    def tables(self) -> tuple[FloatArray, FloatArray]:
        """Every pair's true and predicted table on all shared items, (pairs, K, K) each."""
        K, every, ones = self.scale.K, np.arange(self.pairs.n_pairs), np.ones(self.pairs.n_items)
        Tt, Tp = ((ones @ _incidence(self.pairs, q, every)).reshape(-1, K, K)
                  for q in (self.q_true, self.q_pred))  # fmt: skip
        return Tt, Tp

    def values(self, measure: str, *, weights: Weights, level: Level, func: str) -> tuple[
        FloatArray, FloatArray
    ]:  # fmt: skip
        """Every pair's true and predicted coefficient (NaN where undefined)."""
        Tt, Tp = self.tables
        return tuple(_values(T, measure, self.scale, weights=weights, level=level, func=func)
                     for T in (Tt, Tp))  # type: ignore[return-value]  # fmt: skip

    def diagonal_terms(self, diagonal: bool) -> float:
        """The diagonal's share of ``|M|²``: upper pairs count once, so each 1 counts half."""
        return len(self.names) / 2.0 if diagonal else 0.0


def _prepare(
    true: Annotations, predicted: Annotations | pd.DataFrame, soft: bool, func: str
) -> _Prepared:
    aligned = align_predictions(true, predicted, func=func)
    acodes, names = true._require_annotators(func)
    q_true = np.eye(true.scale.K)[true.label_codes]
    q_pred = aligned.q
    if not soft and not aligned.hard:
        # argmax, ties to the lowest label index (numpy's argmax)
        q_pred = np.eye(true.scale.K)[q_pred.argmax(axis=1)]
    pairs = _cell_pairs(true.item_codes, acodes, len(names))
    names = pd.Index(names, name="annotator")
    overlap = np.bincount(pairs.pair, minlength=pairs.n_pairs).astype(np.int64)
    return _Prepared(aligned, pairs, q_true, q_pred, true.scale, names, overlap, acodes)


def dic(
    true: Annotations,
    predicted: Annotations | pd.DataFrame,
    *,
    measure: MeasureArg = "cohen",
    min_overlap: int = 20,
    weights: Weights = "quadratic",
    level: Level = "nominal",
    soft: bool = False,
    diagonal: bool = False,
    confidence_level: float | None = 0.95,
    ci_method: Literal["percentile", "basic"] = "percentile",
    n_resamples: int = 1000,
    seed: SeedLike = 0,
) -> DICResult:
    r"""Difference of inter-annotator consistency between truth and predictions.

    .. math::

        \mathrm{DIC} = \frac{\lVert M - M' \rVert_F}{\lVert M \rVert_F}

    over the annotator pairs :math:`k < l` that share at least :math:`\tau`
    items and whose coefficient is defined in both matrices (the paper's DIC;
    lower is better, 0 for a perfect copy).

    Parameters
    ----------
    true : Annotations
        True annotations with annotator ids.
    predicted : Annotations, DataFrame or dask.dataframe.DataFrame
        Per-annotator labels, or one probability column per label, one per true
        (item, annotator) cell (:func:`align_predictions
        <dissensus.tendency.align_predictions>`), so that ``M'`` uses the items
        of ``M``. A Dask DataFrame is computed into this process.
    measure, min_overlap, weights, level
        As in :func:`consistency_matrix` (the paper uses Cohen's kappa).
    soft : bool, default False
        ``False``: a predicted distribution becomes its argmax label (ties to the
        lowest index). ``True``: a pair's table sums the outer products of the
        two distributions over the shared items (the expected table when each
        draws independently); built-in measures only.
    diagonal : bool, default False
        Count the diagonal ones in :math:`\lVert M \rVert_F` (the paper's formula
        over full matrices). They add the number of annotators to the
        denominator only, so DIC would shrink with the pool size; excluded by
        default. Symmetric entries count once.
    confidence_level, ci_method, n_resamples, seed : default 0.95, "percentile", 1000, 0
        Bootstrap interval over the items labelled by at least two annotators
        (true and predicted labels resampled together; a pair undefined in a
        resample is left out of it); ``confidence_level=None``: none.
        ``"percentile"``: quantiles of the replicates; ``"basic"``: the reverse
        percentile interval :math:`[2\hat\theta - q_{hi}, 2\hat\theta - q_{lo}]`,
        which corrects for the upward bias of DIC with few items per pair
        (``bootstrap_bias``).

    Returns
    -------
    DICResult

    Raises
    ------
    DataError
        Predictions that do not cover the true cells.
    ValueError
        ``soft=True`` or an interval with a callable measure (no table form).

    References
    ----------
    "A Unified Evaluation Framework for Multi-Annotator Tendency Learning",
    arXiv:2508.10393 (2025), Section 3.1.

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "annotator": list("abababab"),
    ...                    "label": ["x", "x", "y", "y", "x", "y", "y", "y"]})
    >>> true = Annotations.from_frame(df)
    >>> float(dic(true, true, min_overlap=2, confidence_level=None))
    0.0
    >>> pred = df.assign(label=["x", "x", "y", "y", "x", "x", "y", "y"])
    >>> round(float(dic(true, pred, min_overlap=2, confidence_level=None)), 3)
    1.0
    """
    func = "dic"
    _check_common(func, measure, level, min_overlap)
    check_option(func, "ci_method", ci_method, ("percentile", "basic"))
    tau = int(min_overlap)
    if callable(measure) and (soft or confidence_level is not None):
        msg = "A callable measure works on label codes, so it has no soft form and no vectorised bootstrap; pass soft=False and confidence_level=None, or use a built-in measure."
        raise ValueError(msg)
    prep = _prepare(true, predicted, soft, func)
    R = len(prep.names)
    options: dict[str, Any] = {"weights": weights, "level": level, "func": func}
    if callable(measure):  # on the argmax labels of the predictions
        pred = replace(true, label_codes=prep.q_pred.argmax(axis=1).astype(np.int64))
        iu, ju = np.triu_indices(R, 1)
        with warnings.catch_warnings(action="ignore", category=DegenerateAgreementWarning):
            vt, vp = (
                pairwise(t, measure, min_overlap=tau).statistic.to_numpy()[iu, ju]
                for t in (true, pred)
            )
    else:
        vt, vp = prep.values(measure, **options)
    enough = prep.overlap >= tau
    vt, vp = np.where(enough, vt, np.nan), np.where(enough, vp, np.nan)
    used = enough & np.isfinite(vt) & np.isfinite(vp)
    n_diag = prep.diagonal_terms(diagonal)
    stat = float(_dic_of(vt[used], vp[used], n_diag))
    interval, bias, B = None, float("nan"), int(n_resamples)
    if confidence_level is not None and used.any() and not callable(measure):
        level_ = check_probability_level(func, "confidence_level", confidence_level)
        keep = np.flatnonzero(used)
        K = prep.scale.K
        P = [_incidence(prep.pairs, q, keep).T for q in (prep.q_true, prep.q_pred)]
        chunk = max(1, _CHUNK_CELLS // max(1, 2 * keep.size * K * K))
        parts = []
        for W in iter_bootstrap_weights(
            prep.pairs.n_items, B, seed=as_generator(seed), chunk=chunk
        ):
            Wt = W.astype(np.float64).T
            bt, bp = (np.asarray((Pq @ Wt).T).reshape(W.shape[0], keep.size, K, K) for Pq in P)
            vt_b = _values(bt, measure, prep.scale, **options)
            parts.append(_dic_of(vt_b, _values(bp, measure, prep.scale, **options), n_diag))
        boot = np.concatenate(parts)
        lo, hi = percentile_interval(boot, confidence_level=level_)
        if ci_method == "basic":
            lo, hi = 2.0 * stat - hi, 2.0 * stat - lo
        interval = ConfidenceInterval(float(lo), float(hi))
        bias = float(np.nanmean(boot)) - stat
    overlap = _square(
        prep.overlap.astype(np.float64), prep.names, np.bincount(prep.acodes, minlength=R)
    )
    return DICResult(
        statistic=stat,
        confidence_interval=interval,
        n_pairs=int(used.sum()),
        n_pairs_undefined=int((enough & ~used).sum()),
        true=_square(vt, prep.names, 1.0),
        predicted=_square(vp, prep.names, 1.0),
        overlap=overlap.astype(np.int64),
        measure=measure if isinstance(measure, str) else getattr(measure, "__name__", "custom"),
        min_overlap=tau,
        diagonal=diagonal,
        n_resamples=B if interval is not None else 0,
        n_unused_predictions=prep.aligned.n_unused,
        bootstrap_bias=bias,
    )


def tau_curve(
    true: Annotations,
    predicted: Annotations | pd.DataFrame,
    *,
    taus: Sequence[int] | None = None,
    measure: str = "cohen",
    weights: Weights = "quadratic",
    level: Level = "nominal",
    soft: bool = False,
    diagonal: bool = False,
) -> pd.DataFrame:
    r"""DIC as a function of the minimum overlap :math:`\tau` (the paper's first proposed check).

    ``true``, ``predicted``, ``measure`` (built-in only), ``weights``,
    ``level``, ``soft`` and ``diagonal`` are :func:`dic`'s; ``taus`` defaults
    to about 25 values spaced geometrically from 1 to the largest overlap.
    Returns one row per :math:`\tau`: ``min_overlap``, ``dic``, ``n_pairs``
    (used) and ``n_pairs_enough`` (sharing at least :math:`\tau` items).

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "annotator": list("ababab"),
    ...                    "label": ["x", "x", "y", "y", "x", "y"]})
    >>> true = Annotations.from_frame(df)
    >>> tau_curve(true, true, taus=[1, 4])
       min_overlap  dic  n_pairs  n_pairs_enough
    0            1  0.0        1               1
    1            4  NaN        0               0
    """
    func = "tau_curve"
    _check_common(func, measure, level, 1)
    prep = _prepare(true, predicted, soft, func)
    vt, vp = prep.values(measure, weights=weights, level=level, func=func)
    if taus is None:
        top = max(int(prep.overlap.max(initial=1)), 1)
        grid = np.unique(np.round(np.geomspace(1, top, 25)).astype(np.int64))
    else:
        grid = np.asarray(list(taus), dtype=np.int64)
    if grid.size == 0 or (grid < 1).any():
        msg = f"The 'taus' parameter of {func} must hold integers >= 1. Got {list(grid)!r}."
        raise ValueError(msg)
    enough = prep.overlap[None, :] >= grid[:, None]  # (T, pairs)
    used = enough & np.isfinite(vt) & np.isfinite(vp)
    values = _dic_of(np.where(used, vt, np.nan), np.where(used, vp, np.nan),
                     prep.diagonal_terms(diagonal))  # fmt: skip
    return pd.DataFrame({"min_overlap": grid, "dic": values, "n_pairs": used.sum(axis=1),
                         "n_pairs_enough": enough.sum(axis=1)})  # fmt: skip


def perturbation_curve(
    true: Annotations,
    predicted: Annotations | pd.DataFrame,
    annotator: Hashable,
    *,
    shares: Sequence[float] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    n_repeats: int = 20,
    measure: str = "cohen",
    min_overlap: int = 20,
    weights: Weights = "quadratic",
    level: Level = "nominal",
    diagonal: bool = False,
    seed: SeedLike = 0,
) -> pd.DataFrame:
    """DIC when a growing share of one annotator's predictions is corrupted (the paper's second).

    For each share ``s`` of ``shares``, ``round(s · n_a)`` of ``annotator``'s
    predicted labels (argmax of a distribution; chosen without replacement)
    become a label drawn uniformly from the *other* ``K − 1``, ``n_repeats``
    times. From predictions that reproduce the truth DIC rises with ``s``;
    from a model whose predicted annotators agree *more* than the real ones, a
    little corruption first brings them towards the truth and DIC dips before
    it rises. Only the ``M − 1`` pairs of ``a`` change: every version's tables
    are counted with one ``bincount``. The other arguments are :func:`dic`'s
    (built-in measures only). Returns ``share``, ``dic_mean``, ``dic_std``
    (over repeats) and ``n_pairs`` (uncorrupted).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"item": np.repeat(np.arange(60), 3),
    ...                    "annotator": np.tile(list("abc"), 60),
    ...                    "label": rng.choice(["x", "y"], 180)})
    >>> true = Annotations.from_frame(df)
    >>> c = perturbation_curve(true, true, "a", shares=[0, 0.5, 1], min_overlap=5, seed=1)
    >>> bool(c.dic_mean.is_monotonic_increasing), float(c.dic_mean[0])
    (True, 0.0)
    """
    func = "perturbation_curve"
    _check_common(func, measure, level, min_overlap)
    share = np.asarray(list(shares), dtype=np.float64)
    if share.size == 0 or (share < 0).any() or (share > 1).any():
        msg = f"The 'shares' parameter of {func} must hold numbers in [0, 1]. Got {list(shares)!r}."
        raise ValueError(msg)
    if int(n_repeats) < 1:
        msg = f"The 'n_repeats' parameter of {func} must be at least 1. Got {n_repeats!r}."
        raise ValueError(msg)
    prep = _prepare(true, predicted, False, func)
    names = prep.names
    where = names.get_indexer(pd.Index([annotator]))
    if where[0] < 0:
        msg = f"Annotator {annotator!r} is not in the annotations ({len(names)} annotators, e.g. {list(names[:5])!r})."
        raise ValueError(msg)
    a, K, V = int(where[0]), prep.scale.K, share.size * int(n_repeats)
    rng = as_generator(seed)
    enough = prep.overlap >= int(min_overlap)
    vt, vp_base = prep.values(measure, weights=weights, level=level, func=func)
    vt = np.where(enough, vt, np.nan)
    codes = prep.q_pred.argmax(axis=1)
    cells_a = np.flatnonzero(prep.acodes == a)
    n_a = cells_a.size
    n_bad = np.repeat(np.round(share * n_a).astype(np.int64), int(n_repeats))
    # a uniformly random subset of size n_bad[v]: the cells whose random key ranks below it
    rank = np.argsort(np.argsort(rng.random((V, n_a)), axis=1), axis=1)
    hit = rank < n_bad[:, None]
    shift = rng.integers(1, K, size=(V, n_a)) if K > 1 else np.zeros((V, n_a), dtype=np.int64)
    new = np.where(hit, (codes[cells_a][None, :] + shift) % K, codes[cells_a][None, :])
    pos_a = np.full(codes.size, -1, dtype=np.int64)
    pos_a[cells_a] = np.arange(n_a)
    pairs = prep.pairs
    on_u = prep.acodes[pairs.u] == a
    inc = np.flatnonzero(on_u | (prep.acodes[pairs.v] == a))
    on_u = on_u[inc]
    la = new[:, pos_a[np.where(on_u, pairs.u[inc], pairs.v[inc])]]  # (V, n_inc)
    lo = codes[np.where(on_u, pairs.v[inc], pairs.u[inc])][None, :]
    cell = np.where(on_u[None, :], la * K + lo, lo * K + la)
    a_pairs = np.unique(pairs.pair[inc])
    local = np.searchsorted(a_pairs, pairs.pair[inc])
    flat = (np.arange(V)[:, None] * a_pairs.size + local[None, :]) * K * K + cell
    Ta = np.bincount(flat.ravel(), minlength=V * a_pairs.size * K * K)
    Tv = np.broadcast_to(prep.tables[1], (V, pairs.n_pairs, K, K)).copy()
    Tv[:, a_pairs] = Ta.reshape(V, a_pairs.size, K, K)
    vp = _values(
        Tv.astype(np.float64), measure, prep.scale, weights=weights, level=level, func=func
    )
    vp = np.where(enough, vp, np.nan)
    values = _dic_of(np.broadcast_to(vt, vp.shape), vp, prep.diagonal_terms(diagonal))
    values = values.reshape(share.size, int(n_repeats))
    return pd.DataFrame(
        {
            "share": share,
            "dic_mean": values.mean(axis=1),
            "dic_std": values.std(axis=1, ddof=1) if int(n_repeats) > 1 else np.nan,
            "n_pairs": int((enough & np.isfinite(vt) & np.isfinite(vp_base)).sum()),
        }
    )
