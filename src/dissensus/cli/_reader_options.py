"""Reader options shared by every command that loads annotations.

``@reader_options`` adds the options; :func:`load_annotations` maps them onto
:func:`dissensus.data.read_annotations`. A command does::

    @click.command("info")
    @click.argument("file", type=click.Path(dir_okay=False))
    @reader_options
    def info_command(file: str, **options: Any) -> None:
        ann = load_annotations(file, **options)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from dissensus._exceptions import DataError, DissensusWarning
from dissensus.cli._messages import echo_warnings, format_hint
from dissensus.data import (
    Annotations,
    Label,
    Predictions,
    Scale,
    read_annotations,
    read_predictions,
)
from dissensus.posterior import DEFAULT_PRIOR

__all__ = [
    "READER_OPTION_NAMES",
    "alignment_options",
    "load_annotations",
    "load_predictions",
    "parse_labels",
    "parse_prior",
    "prediction_options",
    "prior_option",
    "reader_options",
]

F = TypeVar("F", bound=Callable[..., Any])

#: The keyword arguments ``reader_options`` adds to a command.
READER_OPTION_NAMES = (
    "format",
    "layout",
    "item",
    "annotator",
    "no_annotator",
    "label",
    "annotators",
    "labels",
    "ordered",
    "meta",
    "dropna",
    "duplicates",
)

_FORMATS = ("csv", "tsv", "parquet", "jsonl", "lewidi", "convabuse")


def _columns(text: str | None) -> list[str]:
    return [] if not text else [c.strip() for c in text.split(",") if c.strip()]


def parse_labels(text: str) -> list[Label]:
    """Labels from ``"-3,-2,-1,0,1"`` or ``"NEG,POS"``: numbers where they read as numbers.

    Examples
    --------
    >>> parse_labels("0.5, 1, 1.5")
    [0.5, 1, 1.5]
    >>> parse_labels("low,mid,high")
    ['low', 'mid', 'high']
    """
    out: list[Label] = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        try:
            number = float(token)
        except ValueError:
            out.append(token)
            continue
        if not math.isfinite(number):
            out.append(token)
        else:
            out.append(int(number) if number.is_integer() else number)
    return out


def reader_options(func: F) -> F:
    """Add the options that say how to read an annotation file."""
    options = [
        click.option(
            "--format",
            "format",
            type=click.Choice(_FORMATS),
            default=None,
            help="File format (default: from the extension; .json = LeWiDi).",
        ),
        click.option(
            "--layout",
            type=click.Choice(["long", "wide"]),
            default="long",
            show_default=True,
            help="long: one row per annotation; wide: one row per item, one column per annotator.",
        ),
        click.option("--item", default="item", show_default=True, help="Item id column."),
        click.option(
            "--annotator", default="annotator", show_default=True, help="Annotator id column."
        ),
        click.option(
            "--no-annotator",
            is_flag=True,
            help="The file has no annotator ids (annotator-specific measures then refuse).",
        ),
        click.option("--label", default="label", show_default=True, help="Label column."),
        click.option(
            "--annotators",
            default=None,
            metavar="COL,COL",
            help="Wide layout: the annotator columns (default: all but item and meta).",
        ),
        click.option(
            "--labels",
            default=None,
            metavar="L1,L2,...",
            help="The label set in scale order, e.g. -3,-2,-1,0,1 (default: inferred).",
        ),
        click.option(
            "--ordinal/--nominal",
            "ordered",
            default=None,
            help="Whether the labels are ordered (default: numbers ordinal, strings nominal).",
        ),
        click.option("--meta", default=None, metavar="COL,COL", help="Item-level columns to keep."),
        click.option(
            "--dropna",
            is_flag=True,
            help="Drop rows with missing values (reported) instead of failing.",
        ),
        click.option(
            "--duplicates",
            type=click.Choice(["error", "first", "last", "keep"]),
            default=None,
            help="Repeated (item, annotator) pairs (default: error; ConvAbuse: first).",
        ),
        click.option(
            "--na-values",
            default=None,
            metavar="TEXT,TEXT",
            help="Cell texts meaning 'missing' besides an empty cell (default: none, so NA is data).",
        ),
        click.option(
            "--strip-labels",
            is_flag=True,
            help="Remove whitespace around labels (' pos' and 'pos ' become 'pos').",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def alignment_options(func: F) -> F:
    """Add ``--how`` and ``--normalize``: how predictions meet the annotations.

    The library's messages name ``how='inner'`` and ``normalize=True``; these
    are the flags that do it (see :mod:`dissensus.cli._messages`).
    """
    options = [
        click.option(
            "--how",
            type=click.Choice(["exact", "inner"]),
            default="exact",
            show_default=True,
            help="exact: every model must predict exactly the annotated items; inner: keep the "
            "items every model predicts (the others are reported).",
        ),
        click.option(
            "--normalize",
            is_flag=True,
            help="Rescale prediction rows that do not sum to 1 instead of failing.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def prior_option(func: F) -> F:
    """Add ``--prior`` (the Dirichlet prior of the expected metrics); read it with :func:`parse_prior`."""
    return click.option(
        "--prior",
        default=DEFAULT_PRIOR,
        show_default=True,
        help="Dirichlet prior of the expected metrics: uniform, jeffreys, empirical, "
        "hierarchical or a number.",
    )(func)


def parse_prior(value: str) -> Any:
    """The ``--prior`` text as :func:`dissensus.posterior.dirichlet` takes it: a number or a name.

    Examples
    --------
    >>> parse_prior("0.5"), parse_prior("jeffreys")
    (0.5, 'jeffreys')
    """
    try:
        return float(value)
    except ValueError:
        return value


def prediction_options(func: F) -> F:
    """Add ``--pred NAME=PATH`` (repeatable), ``--pred-layout`` and ``--pred-item``."""
    options = [
        click.option(
            "--pred",
            "preds",
            multiple=True,
            required=True,
            metavar="NAME=PATH",
            help="Model predictions: a CSV/TSV/Parquet/JSONL file with an item column and one "
            "column per label. Repeat per model.",
        ),
        click.option(
            "--pred-layout",
            type=click.Choice(["wide", "long"]),
            default="wide",
            show_default=True,
            help="Layout of the prediction files (long: item,label,prob rows).",
        ),
        click.option(
            "--pred-item",
            default="item",
            show_default=True,
            help="Item id column of the prediction files.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def load_annotations(path: str, **options: Any) -> Annotations:
    """Read ``path`` with the options collected by :func:`reader_options`.

    Options that are not reader options are ignored, so a command can pass
    all of its keyword arguments. What the readers report with a
    :class:`DissensusWarning` (dropped repeats, rows dropped by
    ``--dropna``, a disagreeing LeWiDi soft label) is printed as one line on
    stderr, ``dissensus: warning: …``.
    """
    fmt = options.get("format")
    layout = options.get("layout") or "long"
    labels = options.get("labels")
    ordered = options.get("ordered")
    scale: Scale | None = None
    if labels:
        parsed = parse_labels(labels)
        scale = Scale(tuple(parsed), ordered=True if ordered is None else ordered)
    kwargs: dict[str, Any] = {
        "scale": scale,
        "ordered": ordered if scale is None else None,
        "meta": tuple(_columns(options.get("meta"))),
        "dropna": bool(options.get("dropna", False)),
        "duplicates": options.get("duplicates"),
    }
    # Column options go through even for formats with fixed columns, so that
    # read_annotations refuses them instead of silently ignoring them.
    kwargs.update(
        layout=layout,
        item=options.get("item") or "item",
        annotator=None
        if options.get("no_annotator")
        else (options.get("annotator") or "annotator"),
        label=options.get("label") or "label",
        annotators=_columns(options.get("annotators")) or None,
    )
    if options.get("na_values"):
        kwargs["na_values"] = tuple(_columns(options.get("na_values")))
    if options.get("strip_labels"):
        kwargs["strip_labels"] = True
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DissensusWarning)
        try:
            ann = read_annotations(path, fmt, **kwargs)
        except DataError as exc:
            guess = format_hint(path) if fmt is None else None
            if guess is None:
                raise
            msg = f"{exc} The file looks like {guess}: add --format {guess}."
            raise DataError(msg) from exc
    echo_warnings(caught)
    return ann


def load_predictions(
    path: Path, *, pred_layout: str, pred_item: str, normalize: bool = False, **options: Any
) -> Predictions:
    """Read a ``--pred`` file with the command's reader options that apply to predictions.

    ``--na-values`` and ``--strip-labels`` mean for a prediction file what
    they mean for the annotations (so an item named ``NA`` is data unless
    ``--na-values NA`` says otherwise, and ``--strip-labels`` strips the
    label columns of both, keeping them comparable); ``normalize`` is
    ``--normalize``.
    """
    return read_predictions(
        path,
        layout=pred_layout,  # type: ignore[arg-type]
        item=pred_item,
        normalize=normalize,
        na_values=tuple(_columns(options.get("na_values"))),
        strip_labels=bool(options.get("strip_labels", False)),
    )
