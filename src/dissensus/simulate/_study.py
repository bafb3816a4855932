r"""Do empirical or expected metrics rank models as the truth does? Measured on synthetic data.

Notation. ``R`` replicates, each a fresh dataset of ``N`` items and ``K``
classes (:mod:`dissensus.simulate._synthetic`); ``J`` candidate models;
``M`` pointwise metrics ``f``. For each replicate, bin ``b`` of items (by
annotation count, plus ``"all"``) and metric, three kinds of mean score per
model ``j``:

- the **true** score :math:`T_{j} = \operatorname{mean}_i f(\pi_i, q_{ij})`,
  against the known truth (what we would like to rank by);
- the **empirical** score :math:`\operatorname{mean}_i f(\hat p_i, q_{ij})`
  with :math:`\hat p_i = n_{ik} / n_i`;
- the **expected** score
  :math:`\operatorname{mean}_i \mathbb{E}_{p \sim \mathrm{Dir}(\alpha_i)} f(p, q_{ij})`,
  :math:`\alpha_i = \alpha^{(0)} + n_i`, for each prior :math:`\alpha^{(0)}`
  (uniform, Jeffreys, empirical Bayes fitted to the replicate's counts).

An estimator (empirical, or expected under one prior) then gets, per
replicate, bin and metric: whether its ranking of the ``J`` models equals
the true ranking (competition ranks, :func:`dissensus.stats.competition_ranks`),
Kendall's :math:`\tau_b` between its scores and the true ones, whether it
picks the truly best model, and, for each pair of models, whether it orders
the pair as the truth does (a tie in the estimate counts one half). The
tables report the mean over replicates and its Monte Carlo standard error
:math:`\mathrm{sd} / \sqrt{R}` (replicates where the bin is empty are left
out and counted in ``n_replicates``).

Replicates are drawn in blocks of about :data:`_BLOCK_ROWS` item rows,
every metric is one call on a block and the per-(replicate, bin) means are
one sparse product. Each block has its own stream spawned from ``seed``
(:class:`numpy.random.SeedSequence`) and its size depends on ``N`` only, so
the same arguments give the same bytes (``seed``, an int, defaults to 0).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import sparse, special

from dissensus._validation import check_option, examples
from dissensus.allocate import expected_gain
from dissensus.metrics import get_metric
from dissensus.posterior import (
    DEFAULT_PRIOR,
    PriorFitWarning,
    PriorLike,
    dirichlet,
    fit_dirichlet_prior,
    fit_hierarchical_prior,
)
from dissensus.simulate._synthetic import (
    DEFAULT_CANDIDATES,
    TruthLike,
    _sample_labels,
    annotation_counts,
    candidate_predictions,
    check_integer,
    draw_truth,
)
from dissensus.stats import BinsLike, annotation_bins, competition_ranks, kendall_tau_b_rows

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Pointwise metrics of the study; each is also scored in its expected form.
DEFAULT_STUDY_METRICS: tuple[str, ...] = (
    "cross_entropy",
    "kl_divergence",
    "js_divergence",
    "manhattan",
    "emd",
)
#: Priors of the expected forms.
DEFAULT_PRIORS: tuple[str, ...] = ("uniform", "jeffreys", "empirical", "hierarchical")
#: Priors fitted to each replicate's counts.
_FITTED = {"empirical": fit_dirichlet_prior, "hierarchical": fit_hierarchical_prior}
#: Item rows per block of replicates (memory: a few (rows, K) arrays per candidate).
_BLOCK_ROWS = 1 << 17


# --------------------------------------------------------------------------- helpers


def _check_sizes(func: str, n_items: int, n_classes: int, replicates: int) -> tuple[int, int, int]:
    return (check_integer(func, "n_items", n_items), check_integer(func, "n_classes", n_classes, 2),
            check_integer(func, "replicates", replicates))  # fmt: skip


@dataclass(frozen=True)
class _Block:
    """Replicates drawn together: truth, counts, (replicate, bin) groups, posteriors per prior."""

    rng: np.random.Generator
    reps: int
    pi: FloatArray
    n: IntArray
    counts: IntArray
    labels: list[str]
    G: sparse.csr_matrix
    sizes: FloatArray
    alphas: list[FloatArray]
    strengths: dict[str, list[float]]


def _blocks(
    truth: TruthLike,
    seeds: np.random.SeedSequence,
    *,
    size: tuple[int, int, int],
    law: tuple[tuple[int, int], float],
    bins: BinsLike,
    priors: Sequence[str | float],
) -> Iterator[_Block]:
    """The blocks of ``size = (R, N, K)``, ``law = (n_range, zipf_exponent)`` (module docstring)."""
    R, N, K = size
    per_block = max(1, _BLOCK_ROWS // N)
    starts = range(0, R, per_block)
    for start, ss in zip(starts, seeds.spawn(len(starts)), strict=True):
        rng = np.random.default_rng(ss)
        reps = min(per_block, R - start)
        rows = reps * N
        pi = draw_truth(rows, K, truth=truth, seed=rng)
        n = annotation_counts(rows, n_range=law[0], zipf_exponent=law[1], seed=rng)
        counts = rng.multinomial(n, pi / pi.sum(axis=1, keepdims=True))
        # named bins are fixed by n_range, not by each replicate's min and max
        named = isinstance(bins, str)
        codes, labels = annotation_bins(np.r_[law[0], n] if named else n, bins)
        codes = codes[2:] if named else codes
        # item -> (replicate, bin) 0/1 matrix, each item also in its replicate's "all"
        B, rep = len(labels) + 1, np.repeat(np.arange(reps), N)
        cols = np.r_[rep * B + codes, rep * B + B - 1]
        G = sparse.csr_matrix(
            (np.ones(2 * rows), (np.r_[np.arange(rows), np.arange(rows)], cols)),
            shape=(rows, reps * B),
        )
        sizes = np.asarray(G.sum(axis=0), dtype=np.float64).ravel()
        alphas, strengths = [], {}
        for prior in priors:  # posterior alpha (rows, K); fitted priors: strength per replicate
            if not (isinstance(prior, str) and prior in _FITTED):
                alphas.append(dirichlet(counts, prior=prior))
                continue
            with warnings.catch_warnings(action="ignore", category=PriorFitWarning):
                fits = [_FITTED[prior](b) for b in counts.reshape(reps, N, -1)]
            strengths[prior] = [f.strength for f in fits]
            alpha0 = np.repeat(np.stack([f.alpha0 for f in fits]), N, 0)
            alphas.append(dirichlet(counts, prior=alpha0))
        yield _Block(rng, reps, pi, n, counts, [*labels, "all"], G, sizes, alphas, strengths)


def _group_means(S: FloatArray, G: sparse.csr_matrix, sizes: FloatArray) -> FloatArray:
    """Means of the last axis of ``S`` over the groups of ``G`` (NaN for empty groups)."""
    flat = S.reshape(-1, S.shape[-1])
    sums = np.asarray((G.T @ flat.T).T)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / sizes
    means[:, sizes == 0] = np.nan
    out: FloatArray = means.reshape(*S.shape[:-1], -1)
    return out


def _se(x: FloatArray, axis: int) -> tuple[FloatArray, FloatArray, IntArray]:
    """Mean, Monte Carlo standard error and count of the non-NaN values along ``axis``."""
    ok = ~np.isnan(x)
    cnt = ok.sum(axis=axis)
    with (
        np.errstate(invalid="ignore", divide="ignore"),
        warnings.catch_warnings(action="ignore", category=RuntimeWarning),
    ):
        mean = np.nanmean(x, axis=axis)
        sd = np.nanstd(x, axis=axis, ddof=1)
    se = np.where(cnt > 1, sd / np.sqrt(np.maximum(cnt, 1)), np.nan)
    return mean, se, cnt.astype(np.int64)


# --------------------------------------------------------------------------- result


@dataclass(frozen=True)
class StudyResult:
    """What :func:`study` measured.

    Attributes
    ----------
    rankings : DataFrame
        One row per (truth, metric, estimator, bin): ``truth, metric, form``
        (``"empirical"``, ``"expected"``, ``"debiased"``), ``prior`` (``"-"``
        unless expected), ``estimator`` (``"empirical"``, ``"E[uniform]"`` …),
        ``bin``, then the four measures of the module docstring with their
        ``se_``: ``p_same_ranking``, ``kendall_tau``, ``p_best_correct``,
        ``p_pairs_correct``; ``n_replicates``.
    pairs : DataFrame
        One row per (truth, metric, estimator, bin, model pair):
        ``model_a, model_b, p_correct, se``, ``true_diff`` (mean over
        replicates of the true score of ``a`` minus ``b``) and
        ``p_a_truly_better``.
    scores : DataFrame
        Mean over replicates of each model's mean score: ``truth, metric,
        estimator, bin, model, estimate, true_score, n_replicates``.
    prior_strength : DataFrame
        Each fitted prior's strength per truth family: ``truth, prior,
        strength_mean, strength_median, strength_min, strength_max`` over
        replicates (1e8 or more: the empirical fit ran to infinity).
    config, timings : dict
        The arguments, and seconds per truth family.
    """

    rankings: pd.DataFrame
    pairs: pd.DataFrame
    scores: pd.DataFrame
    prior_strength: pd.DataFrame
    config: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    def __repr__(self) -> str:
        c = self.config
        return (
            f"<StudyResult: {c.get('replicates')} replicates × {c.get('n_items')} items, "
            f"truths {examples(c.get('truths', []))}, {len(c.get('candidates', []))} candidates, "
            f"metrics {examples(c.get('metrics', []))}>"
        )

    def table(self, column: str = "p_same_ranking", *, bin: str | None = None) -> pd.DataFrame:
        """A wide table: one row per (truth, metric, bin), one column per estimator, of ``column``.

        ``bin`` keeps one bin (e.g. ``"all"``).
        """
        df = self.rankings if bin is None else self.rankings[self.rankings["bin"] == bin]
        rows = pd.MultiIndex.from_frame(df[["truth", "metric", "bin"]].drop_duplicates())
        wide = df.pivot(index=list(rows.names), columns="estimator", values=column)
        return wide.reindex(index=rows, columns=list(dict.fromkeys(df["estimator"]))).reset_index()


# --------------------------------------------------------------------------- study


def study(
    n_items: int = 1000,
    n_classes: int = 5,
    *,
    replicates: int = 200,
    truths: Sequence[TruthLike] | TruthLike = ("mixture",),
    candidates: Sequence[str] = DEFAULT_CANDIDATES,
    metrics: Sequence[str] = DEFAULT_STUDY_METRICS,
    priors: Sequence[str] = DEFAULT_PRIORS,
    bins: BinsLike = "auto",
    n_range: tuple[int, int] = (2, 1000),
    zipf_exponent: float = 2.0,
    n_annotations: int | None = None,
    candidate_options: dict[str, Any] | None = None,
    debiased: bool = False,
    seed: int = 0,
) -> StudyResult:
    r"""Measure how often each metric form ranks candidate models as the truth does.

    Parameters
    ----------
    n_items, n_classes, replicates : int, default 1000, 5, 200
        ``N`` items per replicate dataset, ``K``, and ``R`` datasets per truth family.
    truths, candidates : default ("mixture",), :data:`DEFAULT_CANDIDATES`
        Families of :func:`~dissensus.simulate.draw_truth` (names or Dirichlet
        parameter vectors), each studied separately, and the models of
        :func:`~dissensus.simulate.candidate_predictions` (keyword arguments:
        ``candidate_options``).
    metrics : sequence of str, default :data:`DEFAULT_STUDY_METRICS`
        Pointwise registry metrics with an expected form ``E[name]``, scored
        too (``emd`` assumes the classes' order).
    priors : sequence of {"uniform", "jeffreys", "empirical", "hierarchical"} or float
        Priors of the expected forms; ``"empirical"`` and ``"hierarchical"``
        are refitted to each replicate's counts
        (:func:`~dissensus.posterior.fit_dirichlet_prior`,
        :func:`~dissensus.posterior.fit_hierarchical_prior`).
    bins, n_range, zipf_exponent, n_annotations : default "auto", (2, 1000), 2.0, None
        Annotation-count bins (:func:`dissensus.stats.annotation_bins`;
        ``"auto"`` cuts ``n_range`` with the ladder 2, 4, 6, 11, 21, 51, …) and
        the law of :func:`~dissensus.simulate.annotation_counts`, or exactly
        ``n_annotations`` per item.
    debiased : bool, default False
        Also score each metric's debiased form (``debiased[name]``,
        :mod:`dissensus.metrics.debiased`) as the estimator and form
        ``"debiased"``; items with one annotation get their empirical value.

    Returns
    -------
    StudyResult

    Raises
    ------
    ValueError
        Unknown metric, a metric without an expected form, a bad prior or size.

    Notes
    -----
    Each estimator is judged against the ranking by the true mean score on
    the replicate's own items (finite-sample truth): the question a user
    asks of one test set. KL and CE differ by the entropy of the target, the
    same for every model, so they rank alike.

    Examples
    --------
    >>> res = study(200, 3, replicates=4, metrics=["manhattan"], priors=["uniform"],
    ...             candidates=["truth", "tempered", "uniform"], seed=0)
    >>> res.table(bin="all")[["truth", "metric", "empirical", "E[uniform]"]].shape
    (1, 4)
    """
    N, K, R = _check_sizes("study", n_items, n_classes, replicates)
    truth_list = _truth_list(truths)
    mets = _resolve(metrics, debiased=debiased)
    prior_names = [str(p) for p in priors]
    for p in priors:
        if isinstance(p, str):
            check_option("study", "priors", p, DEFAULT_PRIORS)
    cands = list(candidates)
    if len(cands) < 2:
        msg = f"The 'candidates' parameter of study needs at least two models. Got {cands!r}."
        raise ValueError(msg)
    opts = dict(candidate_options or {})
    lo, hi = (int(v) for v in n_range)
    if n_annotations is not None:
        lo = hi = check_integer("study", "n_annotations", n_annotations)
    estimators = ["empirical", *(f"E[{p}]" for p in prior_names)]
    if debiased:
        estimators.append("debiased")
    tables: list[tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]] = []
    strength_rows = []
    timings = {}
    truth_seeds = np.random.SeedSequence(seed).spawn(len(truth_list))
    for truth, seeds in zip(truth_list, truth_seeds, strict=True):
        t0 = time.perf_counter()
        tname = truth
        if not isinstance(truth, str):
            tname = f"dirichlet{np.round(np.asarray(truth, dtype=np.float64), 3).tolist()}"
        est_blocks, true_blocks = [], []
        strengths: dict[str, list[float]] = {}
        blocks = _blocks(truth, seeds, size=(R, N, K), law=((lo, hi), zipf_exponent), bins=bins,
                         priors=priors)  # fmt: skip
        for b in blocks:
            q = candidate_predictions(b.pi, cands, n=b.n, groups=b.reps, seed=b.rng, **opts)
            est, tru = _scores(b, q, cands, mets, debiased=debiased)
            est_blocks.append(est)
            true_blocks.append(tru)
            for key, vals in b.strengths.items():
                strengths.setdefault(key, []).extend(vals)
        est_all = np.concatenate(est_blocks, axis=3)  # (F, M, J, R, B)
        true_all = np.concatenate(true_blocks, axis=2)  # (M, J, R, B)
        tables.append(_summarise(est_all, true_all, tname, mets, estimators, cands, b.labels))
        for key, vals in strengths.items():
            v = np.asarray(vals)
            strength_rows.append((tname, key, v.mean(), np.median(v), v.min(), v.max()))
        timings[tname] = time.perf_counter() - t0
    truths_ = [t if isinstance(t, str) else list(np.asarray(t)) for t in truth_list]
    config = {
        "n_items": N,
        "n_classes": K,
        "replicates": R,
        "truths": truths_,
        "candidates": cands,
        "metrics": mets,
        "priors": prior_names,
        "n_range": (lo, hi),
        "zipf_exponent": float(zipf_exponent),
        "seed": seed,
        "candidate_options": opts,
    }
    rankings, pairs, scores = (pd.concat(t, ignore_index=True) for t in zip(*tables, strict=True))
    columns = ["truth", "prior", "strength_mean", "strength_median", "strength_min", "strength_max"]
    strength = pd.DataFrame(strength_rows, columns=columns)
    return StudyResult(rankings, pairs, scores, strength, config=config, timings=timings)


def _truth_list(truths: Any) -> list[Any]:
    """One family name, one parameter vector, or a sequence of either."""
    if isinstance(truths, str):
        return [truths]
    seq = list(truths)
    if seq and not isinstance(seq[0], str) and np.ndim(seq[0]) == 0:
        return [np.asarray(seq, dtype=np.float64)]  # one Dirichlet parameter vector
    return seq


def _resolve(metrics: Sequence[str], *, debiased: bool = False) -> list[str]:
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        msg = "The 'metrics' parameter of study must name at least one metric."
        raise ValueError(msg)
    for name in names:
        met = get_metric(name)
        if met.kind != "pointwise" or met.expected is None or met.unary:
            msg = f"The 'metrics' parameter of study takes pointwise metrics with an expected form (e.g. 'emd', scored as 'emd' and 'E[emd]'); {name!r} is not one."
            raise ValueError(msg)
        if debiased and met.debiased is None:
            msg = f"study(debiased=True) needs metrics with a debiased form; {name!r} has none (see dissensus.metrics.debiased.DEBIASED_METRICS)."
            raise ValueError(msg)
    return names


def _scores(
    b: _Block, q: dict[str, FloatArray], cands: list[str], mets: list[str], *, debiased: bool
) -> tuple[FloatArray, FloatArray]:
    """Group means of one block: estimates (F, M, J, reps, B) and truth (M, J, reps, B)."""
    pi, counts, alphas, rows, B = b.pi, b.counts, b.alphas, b.pi.shape[0], len(b.labels)
    phat = counts / b.n[:, None].astype(np.float64)
    J, M, F = len(cands), len(mets), 1 + len(alphas) + int(debiased)
    S = np.empty((F, M, J, rows))
    T = np.empty((M, J, rows))
    for m, name in enumerate(mets):
        f = get_metric(name).func
        ef = get_metric(f"E[{name}]").func
        for j, c in enumerate(cands):
            T[m, j] = f(pi, q[c])
            S[0, m, j] = f(phat, q[c])
            for a, alpha in enumerate(alphas):
                S[1 + a, m, j] = ef(alpha, q[c])
        if debiased:
            df = get_metric(f"debiased[{name}]").func
            # one-annotation items: documented fallback
            with warnings.catch_warnings(action="ignore", category=RuntimeWarning):
                for j, c in enumerate(cands):
                    S[F - 1, m, j] = df(counts, q[c])
    est = _group_means(S, b.G, b.sizes).reshape(F, M, J, b.reps, B)
    return est, _group_means(T, b.G, b.sizes).reshape(M, J, b.reps, B)


def _keys(truth: str, **levels: Sequence[Any]) -> pd.DataFrame:
    """The product of ``levels`` as columns (in order), after a constant ``truth`` column."""
    out = pd.MultiIndex.from_product(list(levels.values()), names=list(levels))
    frame = out.to_frame(index=False)
    frame.insert(0, "truth", truth)
    return frame


def ranking_hits(
    e: FloatArray, t: FloatArray, lower: bool | npt.NDArray[np.bool_]
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_], FloatArray]:
    """Estimated and true scores of ``J`` models (last axis) compared: ranks and hits.

    Returns the competition ranks of ``e`` and ``t``, whether the two rankings
    are the same, and for each pair of models (``np.triu_indices(J, 1)``)
    1 if ``e`` orders it as ``t`` does, 0 if not, 0.5 if ``e`` ties it.
    ``lower`` (broadcast to the leading axes) is each row's direction.
    """
    J = e.shape[-1]
    lib = np.broadcast_to(lower, e.shape[:-1]).ravel()
    re = competition_ranks(e.reshape(-1, J), lower_is_better=lib)[0].reshape(e.shape)
    rt = competition_ranks(t.reshape(-1, J), lower_is_better=lib)[0].reshape(e.shape)
    i, k = np.triu_indices(J, k=1)
    se_, st_ = np.sign(e[..., i] - e[..., k]), np.sign(t[..., i] - t[..., k])
    pair_ok: FloatArray = np.where(se_ == 0, 0.5, (se_ == st_).astype(np.float64))
    return re, rt, np.all(re == rt, axis=-1), pair_ok


def _summarise(  # noqa: PLR0917  (private; one call site)
    est: FloatArray,
    tru: FloatArray,
    tname: str,
    mets: list[str],
    estimators: list[str],
    cands: list[str],
    labels: list[str],
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Ranking agreement of every estimator with the truth, per replicate, then summarised."""
    F, M, J, _R, B = est.shape
    e = np.moveaxis(est, 2, -1)  # (F, M, R, B, J)
    t = np.broadcast_to(np.moveaxis(tru, 1, -1), e.shape)  # (F, M, R, B, J)
    empty: npt.NDArray[np.bool_] = np.asarray(np.isnan(e).any(axis=-1) | np.isnan(t).any(axis=-1))
    lower = np.array([get_metric(m).lower_is_better for m in mets], dtype=bool)
    re, rt, same_, pair_ok = ranking_hits(e, t, lower[None, :, None, None])
    same = np.where(empty, np.nan, same_)
    best = np.where(
        empty, np.nan, np.take_along_axis(re, np.argmin(rt, axis=-1)[..., None], -1)[..., 0] == 1
    )
    tau = kendall_tau_b_rows(e, t)
    i, k = np.triu_indices(J, k=1)
    pair_ok[empty] = np.nan

    def rows(x: npt.NDArray[Any]) -> npt.NDArray[Any]:  # (F, M, ...) -> rows ordered (M, F, ...)
        return np.swapaxes(x, 0, 1).ravel()

    # (F, M, R, B) -> stats over R -> (F, M, B)
    cols: dict[str, Any] = {}
    kinds = {"same_ranking": same, "kendall_tau": tau, "best_correct": best,
             "pairs_correct": pair_ok.mean(axis=-1)}  # fmt: skip
    for key, arr in kinds.items():
        mean, se, cnt = _se(arr.astype(np.float64), axis=2)
        cols[key if key == "kendall_tau" else f"p_{key}"] = rows(mean)
        cols["se_" + key], cols["n_replicates"] = rows(se), rows(cnt)
    index = _keys(tname, metric=mets, estimator=estimators, bin=labels)
    rk = pd.concat([index, pd.DataFrame(cols)], axis=1)
    plain = rk["estimator"].isin(["empirical", "debiased"])
    rk.insert(2, "form", np.where(plain, rk["estimator"], "expected"))
    rk.insert(3, "prior", rk["estimator"].str.slice(2, -1).where(~plain, "-"))

    # pairs: (F, M, R, B, P)
    pm, pse, pcnt = _se(pair_ok, axis=2)  # (F, M, B, P)
    dt = np.where(empty[..., None], np.nan, t[..., i] - t[..., k])
    with warnings.catch_warnings(action="ignore", category=RuntimeWarning):
        true_diff = np.nanmean(dt[0], axis=1)  # (M, B, P)
        a_better = np.nanmean(
            np.where(np.isnan(dt[0]), np.nan, (dt[0] < 0) == lower[:, None, None, None]), axis=1
        )
    P = i.size
    pidx = _keys(tname, metric=mets, estimator=estimators, bin=labels, pair=range(P))
    pr = pidx.assign(
        model_a=np.array(cands)[i][pidx["pair"]],
        model_b=np.array(cands)[k][pidx["pair"]],
        p_correct=rows(pm),
        se=rows(pse),
        true_diff=np.broadcast_to(true_diff[:, None], (M, F, B, P)).ravel(),
        p_a_truly_better=np.broadcast_to(a_better[:, None], (M, F, B, P)).ravel(),
        n_replicates=rows(pcnt),
    ).drop(columns="pair")

    # scores: (F, M, J, R, B) -> mean over R
    with warnings.catch_warnings(action="ignore", category=RuntimeWarning):
        em = np.nanmean(est, axis=3)  # (F, M, J, B)
        tm = np.nanmean(tru, axis=2)  # (M, J, B)
        cnt = (~np.isnan(est)).sum(axis=3)
    sc = _keys(tname, metric=mets, estimator=estimators, model=cands, bin=labels).assign(
        estimate=rows(em),
        true_score=np.broadcast_to(tm[:, None], (M, F, J, B)).ravel(),
        n_replicates=rows(cnt),
    )
    return rk, pr, sc


# --------------------------------------------------------------------------- coverage


def coverage(
    n_items: int = 2000,
    n_classes: int = 5,
    *,
    replicates: int = 50,
    truths: Sequence[TruthLike] = ("uniform", "jeffreys", "mixture", "ordinal", "skewed"),
    priors: Sequence[str] = DEFAULT_PRIORS,
    confidence_levels: Sequence[float] = (0.5, 0.9, 0.95),
    bins: BinsLike = "auto",
    n_range: tuple[int, int] = (2, 1000),
    zipf_exponent: float = 2.0,
    seed: int = 0,
) -> pd.DataFrame:
    r"""Coverage of the true class probabilities by the posterior credible intervals.

    Whether each :math:`\pi_{ik}` lies in the equal-tailed credible interval
    of :func:`dissensus.posterior.credible_interval` at each of ``confidence_levels``,
    under each of ``priors``, per annotation-count bin: exactly when its
    posterior CDF value :math:`u = I_{\pi_{ik}}(\alpha_k, a_0 - \alpha_k)` is
    in :math:`[(1 - L)/2, (1 + L)/2]`, one regularised incomplete beta per
    entry for every confidence level. In the ``"uniform"`` and ``"jeffreys"`` truth
    families the matching prior should cover at the nominal rate. The other
    arguments are :func:`study`'s. Returns ``truth, prior, confidence_level,
    bin, coverage, standard_error, n_replicates``: the share of (item, class) pairs covered,
    its mean over replicates and Monte Carlo standard error.

    Examples
    --------
    >>> cov = coverage(300, 3, replicates=3, truths=["uniform"], priors=["uniform"],
    ...               confidence_levels=[0.9])
    >>> sorted(cov.columns)
    ['bin', 'confidence_level', 'coverage', 'n_replicates', 'prior', 'standard_error', 'truth']
    """
    N, K, R = _check_sizes("coverage", n_items, n_classes, replicates)
    lv = np.asarray([float(v) for v in confidence_levels])
    if lv.size == 0 or np.any((lv <= 0) | (lv >= 1)):
        msg = f"The 'confidence_levels' parameter of coverage must hold numbers in (0, 1). Got {confidence_levels!r}."
        raise ValueError(msg)
    for p in priors:
        check_option("coverage", "priors", p, DEFAULT_PRIORS)
    lo, hi = (int(v) for v in n_range)
    law = ((lo, hi), zipf_exponent)
    tail = (1.0 - lv)[:, None, None] / 2.0
    frames = []
    for truth, seeds in zip(truths, np.random.SeedSequence(seed).spawn(len(truths)), strict=True):
        hits = []
        for b in _blocks(truth, seeds, size=(R, N, K), law=law, bins=bins, priors=list(priors)):
            block = np.empty((len(b.alphas), lv.size, b.reps * len(b.labels)))
            for a, alpha in enumerate(b.alphas):
                u = special.betainc(alpha, alpha.sum(axis=1, keepdims=True) - alpha, b.pi)[None]
                per_item = ((u >= tail) & (u <= 1.0 - tail)).sum(axis=2).astype(np.float64)
                block[a] = _group_means(per_item, b.G, b.sizes * K)  # (L, reps B)
            hits.append(block.reshape(len(b.alphas), lv.size, b.reps, -1))
        mean, se, cnt = _se(np.concatenate(hits, axis=2), axis=2)  # (P, L, B)
        idx = pd.MultiIndex.from_product(
            [list(priors), list(lv), b.labels], names=["prior", "confidence_level", "bin"]
        ).to_frame(index=False)
        tname = truth if isinstance(truth, str) else "dirichlet"
        frames.append(idx.assign(coverage=mean.ravel(), standard_error=se.ravel(),
                                 n_replicates=cnt.ravel(), truth=tname))  # fmt: skip
    out = pd.concat(frames, ignore_index=True)
    return out[
        ["truth", "prior", "confidence_level", "bin", "coverage", "standard_error", "n_replicates"]
    ]


STRATEGIES: tuple[str, ...] = ("expected_gain", "uniform", "random")
_COLUMNS = ["strategy", "round", "spent", "annotations_per_item", "estimator", "p_same_ranking",
            "se_same_ranking", "p_pairs_correct", "se_pairs_correct"]  # fmt: skip


def allocation_study(
    n_items: int = 500,
    n_classes: int = 5,
    *,
    replicates: int = 50,
    truth: TruthLike = "mixture",
    candidates: Sequence[str] = ("truth", "noisy", "tempered", "smoothed"),
    metric: str = "E[emd]",
    prior: PriorLike = DEFAULT_PRIOR,
    initial: int = 2,
    budget: int | None = None,
    rounds: int = 10,
    strategies: Sequence[str] = STRATEGIES,
    candidate_options: dict[str, Any] | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    r"""Accuracy of the model ranking against the annotation budget, per strategy.

    Each of ``replicates`` draws ``n_items`` items of ``truth`` with
    ``initial`` annotations each, then spends ``budget`` (default ``2 N``)
    more in ``rounds`` equal batches (each on at most ``N`` distinct items)
    under each strategy from the same start: ``"expected_gain"`` gives each
    batch to the items of largest :func:`dissensus.allocate.expected_gain`
    (recomputed after each batch), ``"uniform"`` to the items with the fewest
    annotations so far (round-robin), ``"random"`` to a uniformly random set.
    Each item's ``t``-th extra label is pre-drawn, the same under every
    strategy (common random numbers), so the strategies differ only in where
    they spend. After every batch the ``candidates`` (``"overfit"`` trained on
    the ``initial`` labels; ``candidate_options`` as in
    :func:`~dissensus.simulate.candidate_predictions`) are ranked by the mean
    expected ``metric`` under ``prior`` (``"empirical"``: one pooled fit over
    the stacked replicates after each batch) and by its pointwise form, and
    compared with the true ranking (the pointwise metric against the truth).
    Replicates are stacked into one array of ``R N`` items; each replicate's
    batch is its top items.

    Returns ``strategy, round, spent``, ``annotations_per_item`` (mean),
    ``estimator`` (``"expected"`` or ``"empirical"``), ``p_same_ranking,
    se_same_ranking, p_pairs_correct, se_pairs_correct``; round 0 is the same
    for every strategy.

    Examples
    --------
    >>> curve = allocation_study(60, 3, replicates=2, rounds=2, metric="E[manhattan]", seed=0)
    >>> sorted(set(curve["strategy"]))
    ['expected_gain', 'random', 'uniform']
    """
    func = "allocation_study"
    N, K, R = _check_sizes(func, n_items, n_classes, replicates)
    for s in strategies:
        check_option(func, "strategies", s, STRATEGIES)
    met = get_metric(metric)
    if met.kind != "expected" or met.pointwise is None:
        msg = f"The 'metric' parameter of {func} must be an expected metric such as 'E[emd]'. Got {metric!r}."
        raise ValueError(msg)
    point = get_metric(met.pointwise)
    total = 2 * N if budget is None else int(budget)
    batch = total // int(rounds)
    if not 1 <= batch <= N:
        msg = f"budget / rounds must be between 1 and n_items ({N}); got {total} / {rounds}."
        raise ValueError(msg)
    rng = np.random.default_rng(seed)
    pi = draw_truth(R * N, K, truth=truth, seed=rng)
    pin = pi / pi.sum(axis=1, keepdims=True)
    n0 = np.full(R * N, int(initial), dtype=np.int64)
    start = rng.multinomial(n0, pin)
    q = candidate_predictions(
        pi, list(candidates), n=n0, groups=R, seed=rng, **(candidate_options or {})
    )
    Q = [q[c] for c in candidates]
    # pre-drawn extra labels: stream[i, t] is item i's t-th extra label, for every strategy
    stream = _sample_labels(rng, np.repeat(pin, rounds, axis=0)).reshape(R * N, rounds)

    def means(f: Callable[..., FloatArray], target: FloatArray) -> FloatArray:  # (R, J) means
        return np.stack([f(target, qq).reshape(R, N).mean(axis=1) for qq in Q], axis=1)

    tru = means(point.func, pi)
    out = []
    for i, strategy in enumerate(strategies):
        choice = np.random.default_rng([seed, i])
        counts = start.copy()
        used = np.zeros(R * N, dtype=np.int64)
        for r in range(int(rounds) + 1):
            if r:  # spend one batch
                if strategy == "expected_gain":
                    score = expected_gain(dirichlet(counts, prior=prior), Q, metric=metric)
                elif strategy == "uniform":
                    # fewest annotations first; a fixed random tie-break per item
                    score = -(counts.sum(axis=1) + 0.5 * choice.random(R * N))
                else:
                    score = choice.random(R * N)
                top = np.argsort(-score.reshape(R, N), axis=1, kind="stable")[:, :batch]
                idx = (top + (np.arange(R) * N)[:, None]).ravel()
                np.add.at(counts, (idx, stream[idx, used[idx]]), 1)
                used[idx] += 1
            n = counts.sum(axis=1)
            expected = means(met.func, dirichlet(counts, prior=prior))
            empirical = means(point.func, counts / n[:, None])
            for name, est in (("expected", expected), ("empirical", empirical)):
                _, _, same, pairs = ranking_hits(est, tru, bool(met.lower_is_better))
                row = [strategy, r, r * batch, float(n.mean()), name]
                for x in (same.astype(np.float64), pairs.mean(axis=1)):
                    row += [float(x.mean()), float(x.std(ddof=1) / np.sqrt(R)) if R > 1 else np.nan]
                out.append(row)
    return pd.DataFrame(out, columns=_COLUMNS)
