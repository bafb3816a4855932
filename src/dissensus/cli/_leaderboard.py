"""``dissensus leaderboard``: a shared task's ranking under every metric, and how it moves."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click

from dissensus import leaderboard as lb
from dissensus._atomic import locked_dir
from dissensus.cli import _reader_options as opt

__all__ = ["leaderboard_command", "split_sets"]

_SEPARATOR = "+"
_FILES = ("leaderboard.md", "leaderboard.html", "scores.csv", "rerank.csv", "adjacent.csv")


def split_sets(args: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """``GOLD SUB... + GOLD SUB...`` -> ``[(gold, [sub, ...]), ...]``."""
    sets: list[list[str]] = [[]]
    for a in args:
        if a == _SEPARATOR:
            sets.append([])
        else:
            sets[-1].append(a)
    for i, group in enumerate(sets, 1):
        if len(group) < 2:
            msg = f"dataset {i}: give a GOLD file and at least one SUBMISSION (datasets are separated by a lone '{_SEPARATOR}'); got {group}."
            raise click.BadParameter(msg, param_hint="GOLD SUBMISSION...")
    return [(group[0], group[1:]) for group in sets]


@click.command("leaderboard")
@click.argument("args", nargs=-1, required=True, metavar="GOLD SUBMISSION... [+ GOLD SUBMISSION...]")  # fmt: skip
@opt.reader_options
@opt.metrics_option(help="Registry metrics (default: cross_entropy, manhattan, euclidean, js_distance "
                    "and E[cross_entropy], E[manhattan]).")  # fmt: skip
@opt.prior_option
@opt.resamples_option
@opt.seed_option
@opt.out_option("Write leaderboard.md, leaderboard.html (bump charts) and CSV tables here.", required=False)  # fmt: skip
def leaderboard_command(
    *, args: tuple[str, ...], metrics: tuple[str, ...], out: Path | None, **options: Any
) -> None:
    """Rank the teams under every metric and measure how the metric re-ranks them.

    GOLD is an annotation file in any format dissensus reads (LeWiDi JSON
    included; DATASET=PATH names the dataset), each SUBMISSION a team's
    predictions (LeWiDi 2023/2025 TSV, or a wide CSV/TSV/Parquet/JSONL with
    an item column and one column per label; TEAM=PATH names the team).
    Separate datasets with a lone '+': their Table 2 is also averaged. A
    paired bootstrap compares adjacent teams.
    """
    tasks = [(lb.team_names([gold])[0], lb.team_names(subs)) for gold, subs in split_sets(args)]
    inputs = [path for gold, teams in tasks for _, path in (gold, *teams)]
    names = opt.split_names(metrics) or list(lb.DEFAULT_METRICS)
    settings = {key: options[key] for key in ("n_resamples", "seed")}
    with locked_dir(out, inputs=inputs, names=_FILES) if out else nullcontext():
        boards = [
            lb.leaderboard(
                opt.load_annotations(gold_path, **options),
                {team: lb.read_submission(path) for team, path in teams},
                metrics=names,
                dataset=dataset,
                prior=opt.parse_prior(options["prior"]),
                **settings,
            )
            for (dataset, gold_path), teams in tasks
        ]
        board = lb.combine_leaderboards(boards)
        if out is not None:
            params = {"command": "leaderboard", "metrics": names, "prior": options["prior"]}
            board.save(out, inputs=inputs, params={**params, **settings})
            click.echo(f"wrote {out}/{', '.join(_FILES)}", err=True)
    click.echo(board.to_markdown(), nl=False)
