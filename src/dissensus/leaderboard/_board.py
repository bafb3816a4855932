"""Leaderboards under several metrics (see :mod:`dissensus.leaderboard`): ranks, re-ranking, adjacent teams."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._atomic import AtomicFileSet
from dissensus.data import Annotations, LabelCounts
from dissensus.evaluation import Evaluation, PredictionLike, evaluate
from dissensus.posterior import DEFAULT_PRIOR, PriorLike
from dissensus.report import (
    Cell,
    Document,
    Paragraph,
    Section,
    Table,
    format_number,
    format_percent,
    format_pm,
    format_pvalue,
    format_rank,
    html_fragment,
    to_html,
    to_markdown,
)

#: Rizzi et al. (2024)'s four metrics (its "Jensen-Shannon" is the distance) and the
#: registered expected forms of the first two.
DEFAULT_METRICS = (
    "cross_entropy", "manhattan", "euclidean", "js_distance", "E[cross_entropy]", "E[manhattan]",
)  # fmt: skip
#: The ``dataset`` value of the rows averaged over datasets.
AVERAGE = "average"
_AGREEMENT = ["share_reranked", "mean_abs_change", "sd_abs_change", "kendall_tau"]


def _adjacent(
    ev: Evaluation, dataset: str, ranks: npt.NDArray[np.float64], n_resamples: int
) -> list[dict[str, Any]]:
    """Each team against the next one down, per metric: Wilcoxon and paired bootstrap over items."""
    rows, teams = [], ev.models
    for m, metric in enumerate(ev.metrics):
        order = sorted(range(len(teams)), key=lambda j: (ranks[m, j], teams[j]))
        for j, k in itertools.pairwise(order):
            x, y = ev.values[m, j], ev.values[m, k]  # noqa: PD011  (an Evaluation)
            pair = (teams[j], teams[k], metric)
            finite = bool(np.isfinite(x).all() and np.isfinite(y).all())
            w = ev.compare(*pair) if finite else None
            b = ev.compare(*pair, test="bootstrap", n_resamples=n_resamples) if finite else None
            rows.append(
                {"dataset": dataset, "metric": metric, "rank": float(ranks[m, j]), "team": teams[j],
                 "next_team": teams[k], "mean_difference": float(np.mean(x - y)) if finite else math.nan,
                 "wilcoxon_p": w.pvalue if w else math.nan, "bootstrap_p": b.pvalue if b else math.nan}
            )  # fmt: skip
    return rows


@dataclass(frozen=True)
class Leaderboard:
    """Leaderboards of one or several datasets under several metrics.

    ``scores``: ``dataset, team, metric, mean, rank``, a row per dataset, team
    and metric. ``rerank``: Rizzi et al. (2024)'s Table 2, ``dataset`` and the
    columns of :meth:`dissensus.Evaluation.metric_agreement`, per dataset and,
    with several, averaged (``dataset == "average"``, as the paper reports it).
    ``adjacent``: top-to-bottom significance, ``dataset, metric, rank, team,
    next_team, mean_difference, wilcoxon_p, bootstrap_p`` (Wilcoxon signed-rank
    over items, as the paper, and a paired bootstrap).
    """

    scores: pd.DataFrame
    rerank: pd.DataFrame
    adjacent: pd.DataFrame
    datasets: list[str]
    metrics: list[str]

    def ranks(self, dataset: str | None = None) -> pd.DataFrame:
        """Teams × metrics ranks of one dataset (default the first; ``"average"``: mean ranks)."""
        name = self.datasets[0] if dataset is None else dataset
        table = self.scores if name == AVERAGE else self.scores[self.scores["dataset"] == name]
        if table.empty:
            msg = f"No dataset {name!r}; this leaderboard has {self.datasets}."
            raise KeyError(msg)
        wide = table.pivot_table(index="team", columns="metric", values="rank", aggfunc="mean")
        return wide[self.metrics].sort_values(self.metrics[0], kind="stable")

    def ranks_table(self, dataset: str | None = None, *, caption: str = "") -> Table:
        """:meth:`ranks` as a table: rank 1 marked best, a rank other than under the first metric flagged."""
        wide = self.ranks(dataset)
        rows: list[list[Cell | str]] = [
            [str(team), *(Cell(format_rank(r), best=r == 1, flagged=r != ranks[0]) for r in ranks)]
            for team, ranks in zip(wide.index, wide.to_numpy(dtype=float), strict=True)
        ]
        return Table(["team", *self.metrics], rows, caption=caption)

    def _repr_html_(self) -> str:
        """Compact notebook view: teams × metrics ranks (mean rank over several datasets)."""
        one = len(self.datasets) == 1
        what = (
            f"dataset {self.datasets[0]}"
            if one
            else f"mean rank over {len(self.datasets)} datasets"
        )
        caption = (
            f"Leaderboard: {len(self.ranks(AVERAGE))} teams × {len(self.metrics)} metrics, {what}; "
            "rank 1 (★) is best, ⇄ differs from the first metric. Re-ranking: .rerank; report: "
            ".to_html()."
        )
        return html_fragment(
            self.ranks_table(self.datasets[0] if one else AVERAGE, caption=caption)
        )

    def document(self) -> Document:
        """Ranks per dataset (and mean ranks), Table 2 (re-ranking per pair of metrics), adjacent teams."""
        legend = Paragraph(
            f"Rank 1 (★) is best; ⇄ marks a rank other than under {self.metrics[0]}: there the "
            "metric re-ranks the team.", style="legend",
        )  # fmt: skip
        rerank = [
            [str(r.dataset), f"{r.metric_1} vs {r.metric_2}", format_percent(r.share_reranked),
             format_pm(r.mean_abs_change, r.sd_abs_change, digits=2), format_number(r.kendall_tau)]
            for r in self.rerank.itertuples(index=False)
        ]  # fmt: skip
        adjacent = [
            [str(r.dataset), str(r.metric), format_rank(r.rank), str(r.team), str(r.next_team),
             format_number(r.mean_difference), format_pvalue(r.wilcoxon_p), format_pvalue(r.bootstrap_p)]
            for r in self.adjacent.itertuples(index=False)
        ]  # fmt: skip
        header = ["dataset", "metric", "rank", "team", "next team", "mean difference"]
        return Document(
            "Leaderboard under several metrics",
            *(Section(f"{n}: ranks (1 = best)", legend, self.ranks_table(n)) for n in self.datasets),
            Section("Mean rank over the datasets", legend, self.ranks_table(AVERAGE))
            if len(self.datasets) > 1 else None,
            Section("How the metric re-ranks the teams (Rizzi et al. 2024, Table 2)", Table(
                ["dataset", "metrics", "re-ranked", "position change", "Kendall τ"], rerank, "llrrr")),
            Section("Adjacent teams, top to bottom (p-values)", Table(
                [*header, "Wilcoxon p", "bootstrap p"], adjacent, "llrllrrr")),
        )  # fmt: skip

    def to_markdown(self) -> str:
        """:meth:`document` as Markdown."""
        return to_markdown(self.document())

    def to_html(self) -> str:
        """:meth:`document` as a self-contained HTML page."""
        return to_html(self.document())

    def save(
        self, out_dir: str | Path, *, inputs: Sequence[str | Path] = (),
        params: Mapping[str, Any] | None = None,
    ) -> dict[str, Path]:  # fmt: skip
        """Write ``leaderboard.md``, ``leaderboard.html`` and the three tables as CSV, as one set.

        The files and a ``manifest.json`` (``params``, each file's SHA-256)
        are moved into place together (:class:`dissensus._atomic.AtomicFileSet`);
        an output that would overwrite one of ``inputs`` is refused. Returns
        file role (``markdown``, ``html``, ``scores``, ``rerank``, ``adjacent``) -> path.
        """
        with AtomicFileSet(out_dir, inputs=inputs, params=params) as files:
            paths = {"markdown": files.write("leaderboard.md", self.to_markdown())}
            paths["html"] = files.write("leaderboard.html", self.to_html())
            for name in ("scores", "rerank", "adjacent"):
                paths[name] = files.write(f"{name}.csv", getattr(self, name).to_csv(index=False))
        return paths


def leaderboard(
    gold: Annotations | LabelCounts, submissions: Mapping[str, PredictionLike], *,
    metrics: Sequence[str] | None = None, dataset: str = "dataset",
    prior: PriorLike = DEFAULT_PRIOR, n_resamples: int = 1000, seed: int = 0,
) -> Leaderboard:  # fmt: skip
    r"""Rank the teams of a shared task under several metrics and measure how the ranks move.

    Parameters
    ----------
    gold : Annotations, LabelCounts, dask.dataframe.DataFrame or DistributedCounts
        The gold annotations of one dataset, as :func:`dissensus.evaluate` takes them.
    submissions : mapping of str to predictions
        Team name -> predicted distributions, as :func:`dissensus.evaluate` takes them.
    metrics : sequence of str, optional
        Registry names; default :data:`DEFAULT_METRICS`.
    dataset : str, default "dataset"
        Name of the dataset in the tables.
    prior : str, float or array_like, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        Dirichlet prior of the expected metrics.
    n_resamples, seed : int, default 1000 and 0
        Resamples and seed of the paired bootstrap between adjacent teams.

    Returns a :class:`Leaderboard`.

    Notes
    -----
    For metrics ``a`` and ``b`` the re-ranking row is the share of teams with
    :math:`r_a \ne r_b` and the mean and (population) standard deviation of
    :math:`|r_a - r_b|` (:func:`dissensus.stats.rank_agreement`).

    Examples
    --------
    >>> counts = LabelCounts.from_array([[3, 1], [0, 2], [1, 1], [2, 0]])
    >>> subs = {"A": [[0.7, 0.3], [0.1, 0.9], [0.5, 0.5], [0.9, 0.1]],
    ...         "B": [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]}
    >>> lb = leaderboard(counts, subs, metrics=["manhattan", "euclidean"], n_resamples=200)
    >>> lb.ranks()["manhattan"].to_dict()
    {'A': 1.0, 'B': 2.0}

    References
    ----------
    Rizzi, Leonardelli, Poesio, Uma, Pavlovic, Paun, Rosso and Fersini (2024). Soft metrics
    for evaluation with disagreements: an assessment. NLPerspectives at LREC-COLING 2024.
    """
    _check_dataset_name(dataset)
    names = list(metrics) if metrics is not None else list(DEFAULT_METRICS)
    ev = evaluate(gold, submissions, metrics=names, prior=prior, seed=seed)
    scores = ev.rankings().rename(columns={"model": "team"})[["team", "metric", "mean", "rank"]]
    scores = scores.astype({"rank": float})
    scores.insert(0, "dataset", dataset)
    rerank = ev.metric_agreement()
    rerank.insert(0, "dataset", dataset)
    ranks = scores["rank"].to_numpy().reshape(len(ev.metrics), len(ev.models))
    adjacent = _adjacent(ev, dataset, ranks, n_resamples)
    return Leaderboard(scores, rerank, pd.DataFrame(adjacent), [dataset], list(ev.metrics))


def _check_dataset_name(name: str) -> None:
    """Refuse the name of the averaged rows as a dataset's: they would take its place."""
    if str(name) == AVERAGE:
        msg = (
            f"the dataset name {AVERAGE!r} is the name of the rows averaged over the datasets; "
            "name the dataset otherwise (DATASET=PATH on the command line, dataset= in Python)."
        )
        raise ValueError(msg)


def combine_leaderboards(boards: Sequence[Leaderboard]) -> Leaderboard:
    """Several datasets in one leaderboard: per-dataset rows, and Table 2 averaged over them.

    ``boards`` are one per dataset (distinct dataset names, the same
    metrics); the result's :attr:`Leaderboard.rerank` adds ``dataset ==
    "average"`` rows (the mean of each column over the datasets).
    """
    if not boards:
        msg = "combine_leaderboards needs at least one leaderboard."
        raise ValueError(msg)
    names = [d for b in boards for d in b.datasets]
    for name in names:
        _check_dataset_name(name)
    if len(set(names)) != len(names):
        msg = f"Dataset names must be distinct to combine leaderboards; got {names}."
        raise ValueError(msg)
    metrics = boards[0].metrics
    if (other := next((b.metrics for b in boards[1:] if b.metrics != metrics), None)) is not None:
        msg = f"All leaderboards must use the same metrics: {metrics} vs {other}."
        raise ValueError(msg)
    per = pd.concat([b.rerank[b.rerank["dataset"] != AVERAGE] for b in boards], ignore_index=True)
    avg = per.groupby(["metric_1", "metric_2"], sort=False)[_AGREEMENT].mean().reset_index()
    avg.insert(0, "dataset", AVERAGE)
    scores = pd.concat([b.scores for b in boards], ignore_index=True)
    adjacent = pd.concat([b.adjacent for b in boards], ignore_index=True)
    rerank = pd.concat([per, avg], ignore_index=True) if len(names) > 1 else per
    return Leaderboard(scores, rerank, adjacent, names, list(metrics))
