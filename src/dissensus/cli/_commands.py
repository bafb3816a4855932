"""The subcommands, imported only when one runs: the CLI's one lazy-import mechanism.

``dissensus --help`` lists them from :data:`SUMMARIES`; running one imports
its module (:func:`load`), which imports what it needs at its top. So
``--help``, ``--version`` and the light commands do not pay for
scikit-learn (experiment), the simulation study, the audit or Dask.
"""

from __future__ import annotations

import click

__all__ = ["SUMMARIES", "LazyGroup", "load"]

#: Command name -> the line ``dissensus --help`` shows for it.
SUMMARIES = {
    "agreement": "Agreement coefficients of FILE, overall and per group.",
    "allocate": "Items whose next label sharpens a model comparison most.",
    "audit": "Which properties of a good soft metric each metric has.",
    "demo": "The study on MovieLens with the defaults.",
    "evaluate": "Score models' label distributions against ANNOTATIONS.",
    "example": "Write a shipped example file to try the commands on.",
    "experiment": "Train soft-label baselines and evaluate them.",
    "info": "Summarise an annotation FILE.",
    "leaderboard": "A shared task's ranking under every metric.",
    "metrics": "List the registered metrics.",
    "simulate": "Do metrics pick the truly better model? (synthetic data)",
    "tendency": "DIC: does a model reproduce who agrees with whom?",
}


def load(name: str) -> click.Command:
    """Import command ``name`` (one of :data:`SUMMARIES`)."""
    # Every import here is deferred for CLI start-up speed (module docstring).
    if name in ("agreement", "evaluate"):  # both also run on a Dask cluster (--engine)
        from dissensus.cli import _agreement, _engine, _evaluate  # noqa: PLC0415 (CLI start-up)

        command = (
            _agreement.agreement_command if name == "agreement" else _evaluate.evaluate_command
        )
        return _engine.with_engine(command)
    if name in ("experiment", "demo"):
        from dissensus.cli import _experiment  # noqa: PLC0415 (CLI start-up)

        return _experiment.experiment_command if name == "experiment" else _experiment.demo_command
    if name == "allocate":
        from dissensus.cli._allocate import allocate_command as command  # noqa: PLC0415 (CLI start-up)
    elif name == "audit":
        from dissensus.cli._audit import audit_command as command  # noqa: PLC0415 (CLI start-up)
    elif name == "example":
        from dissensus.cli._example import example_command as command  # noqa: PLC0415 (CLI start-up)
    elif name == "info":
        from dissensus.cli._info import info_command as command  # noqa: PLC0415 (CLI start-up)
    elif name == "leaderboard":
        from dissensus.cli._leaderboard import leaderboard_command as command  # noqa: PLC0415 (CLI start-up)
    elif name == "metrics":
        from dissensus.cli._metrics import metrics_command as command  # noqa: PLC0415 (CLI start-up)
    elif name == "simulate":
        from dissensus.cli._simulate import simulate_command as command  # noqa: PLC0415 (CLI start-up)
    else:
        from dissensus.cli._tendency import tendency_command as command  # noqa: PLC0415 (CLI start-up)
    return command


class LazyGroup(click.Group):
    """A group whose commands (:data:`SUMMARIES`) are imported when first used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*SUMMARIES, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in SUMMARIES:
            self.add_command(load(cmd_name), cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [
            (name, SUMMARIES.get(name) or self.commands[name].get_short_help_str())
            for name in self.list_commands(ctx)
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)
