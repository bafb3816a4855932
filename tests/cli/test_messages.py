"""Reader messages in the command line's words (dissensus.cli._messages)."""

from __future__ import annotations

import os
import threading

import pytest

from dissensus.cli import EXIT_BAD_INPUT, main
from dissensus.cli._messages import FLAG_PARAMETERS, LONGEST_WORD, cli_message, format_hint


@pytest.mark.parametrize(
    ("library", "cli"),
    [
        ("pass layout='long' (CLI: --pred-layout long).", "pass --pred-layout long."),
        (
            "a.csv: `predictions` row 3 (item 'i003') column 1 is inf",
            "a.csv: row 3 (item 'i003') column 1 is inf",
        ),
        (
            "evaluate(method='mace') models each annotator; load them with annotator='<column>'.",
            "--targets mace models each annotator; load them with --annotator COLUMN.",
        ),
        ("name them with item=/annotator=/label=.", "name them with --item/--annotator/--label."),
        ("or pass the full scale with scale=.", "or pass the full scale with --labels."),
        ("pass na_values=[...] (CLI: --na-values) if", "pass --na-values if"),
        (
            "read both with strip_labels=True (CLI: --strip-labels).",
            "read both with --strip-labels.",
        ),
        ("read the file with read_set_annotations (CLI: --sets).", "read the file with --sets."),
        ("name it with item='...' (CLI: --pred-item COLUMN).", "name it with --pred-item COLUMN."),
        ("keep them with meta=[...] (CLI: --meta COL,COL).", "keep them with --meta COL,COL."),
        ("pass format='...', one of 'csv', 'tsv'", "pass --format FORMAT, one of 'csv', 'tsv'"),
        ("read it as Parquet (format='parquet', or", "read it as Parquet (--format parquet, or"),
        (
            "read the file with format='csv' / 'jsonl' to",
            "read the file with --format csv / --format jsonl to",
        ),
        (
            "the option(s) layout, na_values, strip_labels of read_annotations do not apply",
            "the option(s) --layout, --na-values, --strip-labels do not apply",
        ),
        (
            "annotators=[...] names the columns; pass layout='wide'.",
            "--annotators COL,COL names the columns; pass --layout wide.",
        ),
        ("drop scale/ordered.", "drop --labels/--ordinal."),
        (
            "dropna and duplicates apply to the long layout",
            "--dropna and --duplicates apply to the long layout",
        ),
    ],
)
def test_reader_hints_become_flags(library: str, cli: str) -> None:
    assert cli_message(library) == cli


def test_a_huge_quoted_value_is_shortened_to_one_readable_line() -> None:
    deep = "[" * 50_000 + "]" * 50_000
    text = cli_message(f"line 2: cannot read '{deep}' as a set of labels")
    assert len(text) < 400
    assert "(100,002 characters)" in text
    assert text.startswith("line 2: cannot read '[[[")
    assert text.endswith("as a set of labels")


def test_words_up_to_the_limit_are_kept() -> None:
    word = "x" * LONGEST_WORD
    assert cli_message(f"file {word} is bad") == f"file {word} is bad"


def _cli_flags() -> set[str]:
    """Every long flag of every dissensus command."""
    import click  # noqa: PLC0415

    from dissensus.cli import cli  # noqa: PLC0415

    ctx = click.Context(cli)
    flags: set[str] = set()
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None
        for param in command.params:
            flags.update(o for o in [*param.opts, *param.secondary_opts] if o.startswith("--"))
    return flags


def test_every_parameter_translated_to_a_flag_is_a_flag() -> None:
    flags = _cli_flags()
    missing = {f"--{p.replace('_', '-')}" for p in FLAG_PARAMETERS} - flags
    assert not missing


@pytest.mark.parametrize(
    ("library", "cli"),
    [
        ("The 'prior' parameter of dirichlet must be finite", "--prior must be finite"),
        ("The 'bins' parameter of annotation_bins must be increasing", "--bins must be increasing"),
        (
            "The 'confidence_level' parameter of report must be in (0, 1)",
            "--confidence-level must be in (0, 1)",
        ),
        (
            "The 'alpha' parameter of f must be positive",
            "The 'alpha' parameter of f must be positive",
        ),
    ],
)
def test_parameter_errors_name_the_flag_when_there_is_one(library: str, cli: str) -> None:
    assert cli_message(library) == cli


def test_a_negative_seed_is_refused_by_its_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agreement", "--seed", "-1"]) == EXIT_BAD_INPUT
    assert "--seed" in capsys.readouterr().err


def test_format_hint_never_opens_a_pipe_again(tmp_path) -> None:
    # The reader consumed the pipe; opening it again for a hint waited forever for a writer
    # (issue 23: `info` on an endless pipe hung after its refusal).
    fifo = tmp_path / "p.csv"
    os.mkfifo(fifo)
    got: list[object] = []
    worker = threading.Thread(target=lambda: got.append(format_hint(fifo)), daemon=True)
    worker.start()
    worker.join(5)
    assert got == [None]
