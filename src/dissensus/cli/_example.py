"""``dissensus example NAME --out PATH``: write a shipped example file to try the commands on."""

from __future__ import annotations

from pathlib import Path

import click

from dissensus._atomic import write_file_atomically
from dissensus.cli import _reader_options as opt
from dissensus.datasets import EXAMPLE_FILES, example_path

__all__ = ["example_command"]


@click.command("example")
@click.argument("name", type=click.Choice(list(EXAMPLE_FILES)))
@opt.out_option("File or directory to write (default: the example's file name, here).", kind="any", required=False)  # fmt: skip
def example_command(*, name: str, out: Path | None) -> None:
    r"""Write example NAME: ratings (annotations), a and b (two models' predictions), convabuse.

    \b
    dissensus example ratings --out ratings.csv
    dissensus example a && dissensus example b
    dissensus evaluate ratings.csv --pred a=a.csv --pred b=b.csv --out results/
    """
    target = Path.cwd() if out is None else out
    if target.is_dir():
        target = target / EXAMPLE_FILES[name]
    source = example_path(name)
    written = write_file_atomically(target, source.read_bytes(), inputs=[source])
    click.echo(f"wrote {written}")
