"""The list of subcommands, in help order."""

from __future__ import annotations

import click

from dissensus.cli._agreement import agreement_command
from dissensus.cli._audit import audit_command
from dissensus.cli._evaluate import evaluate_command
from dissensus.cli._experiment import demo_command, experiment_command
from dissensus.cli._info import info_command
from dissensus.cli._leaderboard import leaderboard_command

__all__ = ["COMMANDS"]

COMMANDS: list[click.Command] = [info_command, agreement_command, evaluate_command]
COMMANDS += [experiment_command, demo_command, audit_command, leaderboard_command]
