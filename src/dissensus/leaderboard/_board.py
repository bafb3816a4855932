"""Leaderboards under several metrics: how much the choice of metric re-ranks the teams."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from dissensus._deprecation import keyword_only_options
from dissensus.data import Annotations, LabelCounts
from dissensus.evaluation import PredictionLike, evaluate
from dissensus.metrics import get_metric
from dissensus.posterior import DEFAULT_PRIOR
from dissensus.stats import bootstrap_test, competition_ranks, wilcoxon_test

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AVERAGE",
    "DEFAULT_METRICS",
    "Leaderboard",
    "combine_leaderboards",
    "leaderboard",
]

FloatArray = npt.NDArray[np.float64]

#: Seed 001's four metrics (its "Jensen-Shannon" is the distance) and the registered
#: expected forms of each.
DEFAULT_METRICS = (
    "cross_entropy", "manhattan", "euclidean", "js_distance",
    "E[cross_entropy]", "E[manhattan]",
)  # fmt: skip
#: The ``dataset`` value of the rows averaged over datasets.
AVERAGE = "average"


def _adjacent(
    dataset: str,
    values: FloatArray,
    ranks: FloatArray,
    teams: list[str],
    metrics: list[str],
    *,
    n_resamples: int,
    seed: int,
) -> list[dict[str, Any]]:
    """Each team against the next one down, per metric: Wilcoxon and paired bootstrap over items."""
    rows = []
    for m, metric in enumerate(metrics):
        order = sorted(range(len(teams)), key=lambda j: (ranks[m, j], teams[j]))
        for pos in range(len(order) - 1):
            j, k = order[pos], order[pos + 1]
            x, y = values[m, j], values[m, k]
            finite = bool(np.isfinite(x).all() and np.isfinite(y).all())
            w = wilcoxon_test(x, y) if finite else None
            b = bootstrap_test(x, y, n_resamples=n_resamples, seed=seed) if finite else None
            rows.append(
                {
                    "dataset": dataset,
                    "metric": metric,
                    "rank": float(ranks[m, j]),
                    "team": teams[j],
                    "next_team": teams[k],
                    "mean_difference": float(np.mean(x - y)) if finite else math.nan,
                    "wilcoxon_p": w.pvalue if w else math.nan,
                    "bootstrap_p": b.pvalue if b else math.nan,
                }
            )
    return rows


@dataclass(frozen=True)
class Leaderboard:
    """Leaderboards of one or several datasets under several metrics.

    Attributes
    ----------
    scores : DataFrame
        ``dataset, team, metric, mean, rank`` (rank 1 = best, ties share
        the smallest rank), one row per dataset, team and metric.
    rerank : DataFrame
        Seed 001's Table 2: ``dataset`` and the columns of
        :meth:`dissensus.Evaluation.metric_agreement` (``metric_1, metric_2,
        share_reranked, mean_abs_change, sd_abs_change, kendall_tau``: the
        share of teams whose rank differs, the mean and population sd of the
        absolute rank change, Kendall's tau), per dataset and, with several
        datasets, averaged (``dataset == "average"``: the mean of each column
        over the datasets, as the seed reports it).
    adjacent : DataFrame
        Top-to-bottom significance: ``dataset, metric, rank, team,
        next_team, mean_difference, wilcoxon_p, bootstrap_p`` (Wilcoxon
        signed-rank over items, as the seed; and a paired bootstrap of the
        mean difference).
    datasets, metrics : list of str
    """

    scores: pd.DataFrame
    rerank: pd.DataFrame
    adjacent: pd.DataFrame
    datasets: list[str]
    metrics: list[str]

    def ranks(self, dataset: str | None = None) -> pd.DataFrame:
        """Teams × metrics ranks of one dataset (default: the first), or mean ranks over all.

        ``dataset="average"`` gives each team's mean rank over the datasets.
        """
        name = self.datasets[0] if dataset is None else dataset
        table = self.scores if name == AVERAGE else self.scores[self.scores["dataset"] == name]
        if table.empty:
            msg = f"No dataset {name!r}; this leaderboard has {self.datasets}."
            raise KeyError(msg)
        wide = table.pivot_table(index="team", columns="metric", values="rank", aggfunc="mean")
        return wide[self.metrics].sort_values(self.metrics[0], kind="stable")

    def _repr_html_(self) -> str:
        """Compact notebook view: teams × metrics ranks (mean rank over several datasets)."""
        import html  # noqa: PLC0415

        name = self.datasets[0] if len(self.datasets) == 1 else AVERAGE
        wide = self.ranks(name)
        head = "".join(f"<th>{html.escape(m)}</th>" for m in self.metrics)
        rows = []
        for team, ranks in zip(wide.index, wide.to_numpy(dtype=float), strict=True):
            cells = "".join(
                f"<td><b>{r:g}</b></td>" if r == 1 else f"<td>{r:g}</td>" for r in ranks
            )
            rows.append(f"<tr><th>{html.escape(str(team))}</th>{cells}</tr>")
        what = (
            f"dataset {html.escape(name)}"
            if len(self.datasets) == 1
            else f"mean rank over {len(self.datasets)} datasets"
        )
        caption = (
            f"Leaderboard: {len(wide)} teams × {len(self.metrics)} metrics, {what}; "
            "rank 1 (<b>bold</b>) is best. Re-ranking: <code>.rerank</code>; report: "
            "<code>.to_html()</code>."
        )
        return (
            f'<table class="dissensus-leaderboard"><caption>{caption}</caption>'
            f"<thead><tr><th>team</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )

    def to_markdown(self) -> str:
        """Leaderboards, Table 2 and the adjacent-rank tests as Markdown."""
        from dissensus.leaderboard._render import render_markdown  # noqa: PLC0415

        return render_markdown(self)

    def to_html(self) -> str:
        """A self-contained HTML report with a bump chart of ranks across metrics."""
        from dissensus.leaderboard._render import render_html  # noqa: PLC0415

        return render_html(self)


@keyword_only_options(2)
def leaderboard(
    gold: Annotations | LabelCounts,
    submissions: Mapping[str, PredictionLike],
    *,
    metrics: Sequence[str] | None = None,
    dataset: str = "dataset",
    prior: Any = DEFAULT_PRIOR,
    n_resamples: int = 1000,
    seed: int = 0,
) -> Leaderboard:
    r"""Rank the teams of a shared task under several metrics and measure how the ranks move.

    Parameters
    ----------
    gold : Annotations, LabelCounts, dask.dataframe.DataFrame or DistributedCounts
        The gold annotations of one dataset. A Dask DataFrame of long
        annotations (or :class:`~dissensus.distributed.DistributedCounts`) is
        scored on the cluster by :func:`dissensus.evaluate`, which collects
        the per-item scores; the ranks and the bootstrap between teams run in
        memory on them.
    submissions : mapping of str to predictions
        Team name -> predicted distributions (anything
        :func:`dissensus.evaluate` takes: Predictions, DataFrame, (N, K) array
        in the order of ``gold``; a Dask DataFrame beside in-memory gold is
        computed into this process).
    metrics : sequence of str, optional
        Registry names; default :data:`DEFAULT_METRICS` (seed 001's four
        metrics and their expected forms).
    dataset : str, default "dataset"
        Name of the dataset in the tables.
    prior : str, float or array_like, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        Dirichlet prior of the expected metrics.
    n_resamples : int, default 1000
        Resamples of the paired bootstrap between adjacent teams.
    seed : int, default 0
        Seed of the bootstrap.

    Returns
    -------
    Leaderboard

    Notes
    -----
    Ranks are competition ranks of each team's mean score (best = 1). For
    metrics ``a`` and ``b`` the re-ranking row is the share of teams with
    :math:`r_a \ne r_b` and the mean and (population) standard deviation of
    :math:`|r_a - r_b|`, seed 001's Table 2 (:func:`dissensus.stats.rank_agreement`).

    Examples
    --------
    >>> counts = LabelCounts.from_array([[3, 1], [0, 2], [1, 1], [2, 0]])
    >>> subs = {"A": [[0.7, 0.3], [0.1, 0.9], [0.5, 0.5], [0.9, 0.1]],
    ...         "B": [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]}
    >>> lb = leaderboard(counts, subs, metrics=["manhattan", "euclidean"], n_resamples=200)
    >>> lb.ranks()["manhattan"].to_dict()
    {'A': 1.0, 'B': 2.0}
    """
    import pandas as pd  # noqa: PLC0415

    names = list(metrics) if metrics is not None else list(DEFAULT_METRICS)
    ev = evaluate(gold, submissions, metrics=names, prior=prior, seed=seed)
    teams, met = list(ev.models), list(ev.metrics)
    values = np.asarray(ev.values)
    with np.errstate(invalid="ignore", over="ignore"):
        means = values.mean(axis=2)
    lower = [get_metric(m).lower_is_better for m in met]
    ranks, _ = competition_ranks(means, lower_is_better=lower)
    scores = pd.DataFrame(
        [
            {"dataset": dataset, "team": t, "metric": m, "mean": float(means[i, j]),
             "rank": float(ranks[i, j])}
            for i, m in enumerate(met)
            for j, t in enumerate(teams)
        ]
    )  # fmt: skip
    rerank = ev.metric_agreement()
    rerank.insert(0, "dataset", dataset)
    adjacent = pd.DataFrame(
        _adjacent(dataset, values, ranks, teams, met, n_resamples=n_resamples, seed=seed)
    )
    return Leaderboard(scores, rerank, adjacent, [dataset], met)


def combine_leaderboards(boards: Sequence[Leaderboard]) -> Leaderboard:
    """Several datasets in one leaderboard, with Table 2 averaged over the datasets.

    Parameters
    ----------
    boards : sequence of Leaderboard
        One per dataset (distinct dataset names, the same metrics).

    Returns
    -------
    Leaderboard
        Per-dataset rows as given, plus ``dataset == "average"`` rows of
        :attr:`Leaderboard.rerank` (the mean of each column over datasets).
    """
    import pandas as pd  # noqa: PLC0415

    if not boards:
        msg = "combine_leaderboards needs at least one leaderboard."
        raise ValueError(msg)
    names = [d for b in boards for d in b.datasets]
    if len(set(names)) != len(names):
        msg = f"Dataset names must be distinct to combine leaderboards; got {names}."
        raise ValueError(msg)
    metrics = boards[0].metrics
    for b in boards[1:]:
        if b.metrics != metrics:
            msg = f"All leaderboards must use the same metrics: {metrics} vs {b.metrics}."
            raise ValueError(msg)
    per = pd.concat([b.rerank[b.rerank["dataset"] != AVERAGE] for b in boards], ignore_index=True)
    avg = (
        per.groupby(["metric_1", "metric_2"], sort=False)[
            ["share_reranked", "mean_abs_change", "sd_abs_change", "kendall_tau"]
        ]
        .mean()
        .reset_index()
    )
    avg.insert(0, "dataset", AVERAGE)
    rerank = pd.concat([per, avg], ignore_index=True) if len(names) > 1 else per
    return Leaderboard(
        scores=pd.concat([b.scores for b in boards], ignore_index=True),
        rerank=rerank,
        adjacent=pd.concat([b.adjacent for b in boards], ignore_index=True),
        datasets=names,
        metrics=list(metrics),
    )
