"""``dissensus example NAME --out PATH``: write a shipped example file to try the commands on."""

from __future__ import annotations

from pathlib import Path

import click

from dissensus.datasets import EXAMPLE_FILES, write_example

__all__ = ["example_command"]


@click.command("example")
@click.argument("name", type=click.Choice(list(EXAMPLE_FILES)))
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="File or directory to write (default: the example's file name, here).",
)
def example_command(*, name: str, out: Path | None) -> None:
    r"""Write example NAME: ratings (annotations), a and b (two models' predictions), convabuse.

    \b
    dissensus example ratings --out ratings.csv
    dissensus example a && dissensus example b
    dissensus evaluate ratings.csv --pred a=a.csv --pred b=b.csv --out results/
    """
    written = write_example(name, Path.cwd() if out is None else out)
    click.echo(f"wrote {written}")
