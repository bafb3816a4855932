"""The ``dissensus`` command: a thin layer over the public API.

Exit codes: 0 ok, 1 internal error, 2 bad input. A bad input prints one line on stderr
(``dissensus: error: …``); a traceback appears only with ``--debug``.

Importing this module imports click and nothing heavy (no NumPy, pandas or SciPy): the
commands are imported when one runs (:mod:`dissensus.cli._commands`), so ``--help`` and
``--version`` answer at once.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import click

from dissensus._exceptions import DataError, MissingExtraError, OutputError
from dissensus.cli._commands import LazyGroup
from dissensus.cli._messages import cli_message, warnings_as_lines

__all__ = ["EXIT_BAD_INPUT", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_OK", "cli", "main"]

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2
#: 128 + SIGINT, the shell's convention for a run stopped by Ctrl-C.
EXIT_INTERRUPTED = 130
#: Errors the user fixes (usage errors too): one line on stderr, EXIT_BAD_INPUT.
_BAD_INPUT = (
    OutputError,
    DataError,
    MissingExtraError,
    ValueError,
    TypeError,
    FileNotFoundError,
    IsADirectoryError,
    PermissionError,
)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    # not click.version_option: it would need the version (package metadata, ~30 ms) on every run
    if not value or ctx.resilient_parsing:
        return
    from dissensus import __version__  # noqa: PLC0415

    click.echo(f"dissensus, version {__version__}")
    ctx.exit()


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
@click.option("--debug", is_flag=True, help="Show the full traceback on errors.")
def cli(debug: bool) -> None:
    """Measure annotator agreement and evaluate models against disagreeing annotators."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code (used by the console script)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        with _terminate_as_exception(), warnings_as_lines():
            cli.main(args=args, prog_name="dissensus", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt, _Terminated) as exc:
        # Outputs are committed as a set, so an interrupted run has left the
        # earlier files as they were and removed its temporaries.
        how = "terminated" if isinstance(exc, _Terminated) else "interrupted"
        click.echo(f"dissensus: {how}; earlier output files are unchanged", err=True)
        return 128 + signal.SIGTERM if isinstance(exc, _Terminated) else EXIT_INTERRUPTED
    except Exception as exc:
        if "--debug" in args:
            raise
        text = cli_message(" ".join((str(exc) or type(exc).__name__).split()))
        if isinstance(exc, click.ClickException):
            text = exc.format_message()
        elif not isinstance(exc, _BAD_INPUT):  # the tool's own failure: say so, in one line
            click.echo(
                f"dissensus: internal error: {type(exc).__name__}: {text} (rerun with --debug for the traceback)",
                err=True,
            )
            return EXIT_INTERNAL
        click.echo(f"dissensus: error: {text}", err=True)
        return EXIT_BAD_INPUT
    return EXIT_OK


class _Terminated(BaseException):
    """SIGTERM as an exception, so that temporaries are cleaned up."""


@contextmanager
def _terminate_as_exception() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(*_: object) -> None:
        raise _Terminated

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)
