"""The list of subcommands, in help order."""

from __future__ import annotations

import click

from dissensus.cli._agreement import agreement_command
from dissensus.cli._evaluate import evaluate_command
from dissensus.cli._example import example_command
from dissensus.cli._info import info_command
from dissensus.cli._metrics import metrics_command

__all__ = ["COMMANDS"]

COMMANDS: list[click.Command] = [info_command, agreement_command, evaluate_command]
COMMANDS.append(metrics_command)
COMMANDS.append(example_command)
