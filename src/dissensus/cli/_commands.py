"""The list of subcommands, in help order."""

from __future__ import annotations

import click

from dissensus.cli._agreement import agreement_command
from dissensus.cli._engine import with_engine
from dissensus.cli._evaluate import evaluate_command
from dissensus.cli._info import info_command

__all__ = ["COMMANDS"]

COMMANDS: list[click.Command] = [info_command, with_engine(agreement_command), evaluate_command]
