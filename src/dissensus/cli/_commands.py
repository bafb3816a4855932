"""The list of subcommands, in help order."""

from __future__ import annotations

import click

from dissensus.cli._agreement import agreement_command
from dissensus.cli._allocate import allocate_command
from dissensus.cli._audit import audit_command
from dissensus.cli._engine import with_engine
from dissensus.cli._evaluate import evaluate_command
from dissensus.cli._example import example_command
from dissensus.cli._experiment import demo_command, experiment_command
from dissensus.cli._info import info_command
from dissensus.cli._leaderboard import leaderboard_command
from dissensus.cli._metrics import metrics_command
from dissensus.cli._simulate import simulate_command
from dissensus.cli._tendency import tendency_command

__all__ = ["COMMANDS"]

COMMANDS: list[click.Command] = [
    demo_command,
    info_command,
    with_engine(agreement_command),
    with_engine(evaluate_command),
    metrics_command,
    example_command,
    experiment_command,
    simulate_command,
    allocate_command,
    audit_command,
    leaderboard_command,
    tendency_command,
]
