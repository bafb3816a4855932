"""The subcommands, imported only when one runs: the CLI's one lazy-import mechanism.

``dissensus --help`` lists them from :data:`SUMMARIES`; running one imports its module
(:func:`load`). So ``--help``, ``--version`` and the light commands do not pay for
scikit-learn (experiment), the simulation and tendency studies or Dask.

It is also where a missing optional extra becomes one line naming the command and
the extra (``dissensus demo needs scikit-learn (the 'models' extra) ...: pip install
'dissensus[models]'``), whether the command's import or its run needed it: see
:meth:`MissingExtraError.from_import_error <dissensus.MissingExtraError.from_import_error>`
and its table of extras.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from dissensus._exceptions import MissingExtraError

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
    "plan": "Items and annotations per item a study needs, from a PILOT.",
    "simulate": "Do metrics pick the truly better model? (synthetic data)",
    "tendency": "DIC: does a model reproduce who agrees with whom?",
}


def load(name: str) -> click.Command:
    """Import command ``name`` (one of :data:`SUMMARIES`) and the modules it needs, no more."""
    if name in ("agreement", "evaluate"):  # both also run on a Dask cluster (--engine)
        from dissensus.cli import _agreement, _engine, _evaluate  # noqa: PLC0415

        return _engine.with_engine(
            _agreement.agreement_command if name == "agreement" else _evaluate.evaluate_command
        )
    if name in ("experiment", "demo"):  # scikit-learn
        from dissensus.cli import _experiment as module  # noqa: PLC0415
    elif name == "allocate":
        from dissensus.cli import _evaluate as module  # type: ignore[no-redef]  # noqa: PLC0415
    elif name == "plan":
        from dissensus.cli import _plan as module  # type: ignore[no-redef]  # noqa: PLC0415
    elif name in ("leaderboard", "simulate", "tendency"):
        from dissensus.cli import _studies as module  # type: ignore[no-redef]  # noqa: PLC0415
    else:  # info, metrics, audit, example
        from dissensus.cli import _info as module  # type: ignore[no-redef]  # noqa: PLC0415
    command: click.Command = getattr(module, f"{name}_command")
    return command


class LazyGroup(click.Group):
    """A group whose commands (:data:`SUMMARIES`) are imported when first used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*SUMMARIES, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in SUMMARIES:
            with extras_named(cmd_name):
                self.add_command(load(cmd_name), cmd_name)
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ImportError:  # raised while the command ran (its import: get_command)
            if ctx.invoked_subcommand is None:
                raise
            with extras_named(ctx.invoked_subcommand):
                raise

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [
            (name, SUMMARIES.get(name) or self.commands[name].get_short_help_str())
            for name in self.list_commands(ctx)
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@contextmanager
def extras_named(command: str) -> Iterator[None]:
    """Turn a missing optional extra into :class:`MissingExtraError` naming ``dissensus command``.

    Any other import error is the tool's own failure and passes unchanged.
    """
    try:
        yield
    except ImportError as exc:
        error = MissingExtraError.from_import_error(exc, f"dissensus {command}")
        if error is None or error is exc:
            raise
        raise error from exc
