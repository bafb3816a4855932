r"""Allocation by expected gain against uniform and random: accuracy against budget.

Each replicate draws ``N`` items with known truth and ``initial`` annotations
each, then spends ``budget`` more annotations in ``rounds`` equal batches
under three strategies, from the same starting data:

``"expected_gain"``
    each batch goes to the items with the largest expected gain of
    :func:`dissensus.allocate.expected_gain` (recomputed after each batch);
``"uniform"``
    each batch goes to the items with the fewest annotations so far
    (round-robin);
``"random"``
    each batch is a uniformly random set of items.

Labels come from one pre-drawn stream per item (its ``t``-th extra label is
the same under every strategy: common random numbers), so the strategies
differ only in where they spend. After every batch the models are ranked
by the mean expected metric (and by the empirical metric) and compared with
the true ranking (mean pointwise metric against the truth). Replicates are
stacked into one array of ``R N`` items: the gain is per item, and each
replicate's batch is its top items (one ``argsort`` of an ``(R, N)`` array).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._validation import check_option
from dissensus.allocate import expected_gain
from dissensus.metrics import get_metric
from dissensus.posterior import DEFAULT_PRIOR, PriorLike, dirichlet
from dissensus.simulate._study import ranking_hits
from dissensus.simulate._synthetic import (
    TruthLike,
    _sample_labels,
    candidate_predictions,
    check_integer,
    draw_truth,
)

__all__ = ["STRATEGIES", "allocation_study"]

FloatArray = npt.NDArray[np.float64]
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

    Parameters
    ----------
    n_items, n_classes : int, default 500, 5
    replicates : int, default 50
    truth : truth family, default "mixture"
    candidates : sequence of str, default ("truth", "noisy", "tempered", "smoothed")
        Models to rank (:func:`~dissensus.simulate.candidate_predictions`;
        ``"overfit"`` uses ``initial`` training labels per item).
    metric : str, default "E[emd]"
        Expected metric the models are ranked by (and its pointwise form
        for the empirical ranking and the truth).
    prior : default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        Prior of the posterior (:func:`dissensus.posterior.dirichlet`);
        ``"empirical"`` is fitted once to the stacked replicates after each
        batch (they are independent draws of the same law, so this is the
        pooled fit).
    initial : int, default 2
        Annotations per item before any allocation.
    budget : int, optional
        Extra annotations in total; default ``2 N``.
    rounds : int, default 10
        Batches; each spends ``budget / rounds`` annotations on distinct
        items, so ``budget / rounds <= N``.
    strategies : sequence of str, default ("expected_gain", "uniform", "random")
    candidate_options : dict, optional
        Passed to :func:`~dissensus.simulate.candidate_predictions`.
    seed : int, default 0

    Returns
    -------
    DataFrame
        ``strategy, round, spent`` (extra annotations so far),
        ``annotations_per_item`` (mean), ``estimator`` (``"expected"`` or
        ``"empirical"``), ``p_same_ranking, se_same_ranking,
        p_pairs_correct, se_pairs_correct``. Round 0 (nothing spent) is
        the same for every strategy.

    Examples
    --------
    >>> curve = allocation_study(60, 3, replicates=2, rounds=2, metric="E[manhattan]", seed=0)
    >>> sorted(set(curve["strategy"]))
    ['expected_gain', 'random', 'uniform']
    """
    func = "allocation_study"
    N, K = check_integer(func, "n_items", n_items), check_integer(func, "n_classes", n_classes, 2)
    R = check_integer(func, "replicates", replicates)
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

    def means(f: Any, target: FloatArray) -> FloatArray:  # (R, J): each model's mean per replicate
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
