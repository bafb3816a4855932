"""``dissensus leaderboard``: a shared task's ranking under every metric, and how it moves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from dissensus.cli._reader_options import (
    load_annotations,
    parse_prior,
    prior_option,
    reader_options,
)
from dissensus.leaderboard import (
    DEFAULT_METRICS,
    Leaderboard,
    combine_leaderboards,
    leaderboard,
    read_submission,
    team_names,
)

__all__ = ["leaderboard_command", "split_sets"]

_SEPARATOR = "+"


def split_sets(args: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """``GOLD SUB... + GOLD SUB...`` -> ``[(gold, [sub, ...]), ...]``."""
    sets: list[list[str]] = [[]]
    for a in args:
        if a == _SEPARATOR:
            sets.append([])
        else:
            sets[-1].append(a)
    out = []
    for i, group in enumerate(sets, 1):
        if len(group) < 2:
            msg = (
                f"dataset {i}: give a GOLD file and at least one SUBMISSION "
                f"(datasets are separated by a lone '{_SEPARATOR}'); got {group}."
            )
            raise click.BadParameter(msg, param_hint="GOLD SUBMISSION...")
        out.append((group[0], group[1:]))
    return out


def _metrics(values: tuple[str, ...]) -> list[str]:
    names = [m.strip() for v in values for m in v.split(",") if m.strip()]
    return names or list(DEFAULT_METRICS)


@click.command("leaderboard")
@click.argument(
    "args", nargs=-1, required=True, metavar="GOLD SUBMISSION... [+ GOLD SUBMISSION...]"
)
@reader_options
@click.option("--metrics", "metric_names", multiple=True, metavar="NAME[,NAME...]",
              help="Registry metrics (default: cross_entropy, manhattan, euclidean, js_distance "
                   "and E[cross_entropy], E[manhattan]).")  # fmt: skip
@prior_option
@click.option("--n-resamples", type=click.IntRange(min=2), default=1000, show_default=True,
              help="Paired-bootstrap resamples between adjacent teams.")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write leaderboard.md, leaderboard.html (bump charts) and CSV tables here.")  # fmt: skip
def leaderboard_command(
    *,
    args: tuple[str, ...],
    metric_names: tuple[str, ...],
    prior: str,
    n_resamples: int,
    seed: int,
    out: Path | None,
    **options: Any,
) -> None:
    """Rank the teams under every metric and measure how the metric re-ranks them.

    GOLD is an annotation file in any format dissensus reads (LeWiDi JSON
    included; DATASET=PATH names the dataset), each SUBMISSION a team's
    predictions (LeWiDi 2023/2025 TSV, or a wide CSV/TSV/Parquet/JSONL with
    an item column and one column per label; TEAM=PATH names the team).
    Separate datasets with a lone '+': their Table 2 is also averaged.
    """
    metrics = _metrics(metric_names)
    prior_value = parse_prior(prior)
    boards: list[Leaderboard] = []
    for gold_arg, subs in split_sets(args):
        name, sep, path = gold_arg.partition("=")
        if not (sep and name and path and not Path(gold_arg).exists()):
            name, path = Path(gold_arg).stem, gold_arg
        gold = load_annotations(path, **options)
        submissions = {team: read_submission(p) for team, p in team_names(subs)}
        boards.append(
            leaderboard(
                gold,
                submissions,
                metrics=metrics,
                dataset=name,
                prior=prior_value,
                n_resamples=n_resamples,
                seed=seed,
            )
        )
    board = combine_leaderboards(boards)
    text = board.to_markdown()
    if out is not None:
        inputs = [a if Path(a).exists() else a.partition("=")[2] for a in args if a != _SEPARATOR]
        params = {"command": "leaderboard", "metrics": metrics, "prior": prior, "seed": seed}
        board.save(out, inputs=inputs, params={**params, "n_resamples": n_resamples})
        click.echo(f"wrote {out}/leaderboard.md, leaderboard.html, scores.csv, rerank.csv, "
                   "adjacent.csv", err=True)  # fmt: skip
    click.echo(text, nl=False)
