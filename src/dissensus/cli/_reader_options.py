"""The options several commands share, each defined once, and the readers behind them.

Commands import this module as ``opt``, take a group by decorator (``@opt.reader_options``)
and read it with the function beside it (``opt.load_annotations(file, **options)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import partial, reduce
from pathlib import Path
from typing import Any, Literal, TypeVar

import click

from dissensus import data
from dissensus._exceptions import DataError
from dissensus.cli._messages import format_hint, warnings_as_lines
from dissensus.posterior import DEFAULT_PRIOR

F = TypeVar("F", bound=Callable[..., Any])


def option(*flags: str, help: str, **settings: Any) -> Callable[[F], F]:
    """:func:`click.option` showing its default in ``--help``; a list as ``type`` is a choice."""
    if isinstance(settings.get("type"), list):
        settings["type"] = click.Choice(settings["type"])
    default = settings.get("default")
    settings.setdefault("show_default", not (default is None or default is False or default == ()))
    return click.option(*flags, help=help, **settings)


def _group(*options: Callable[[F], F]) -> Callable[[F], F]:
    """One decorator that adds ``options`` in the order given."""
    return lambda func: reduce(lambda f, add: add(f), reversed(options), func)


def count_option(*flags: str, default: int, minimum: int, help: str) -> Callable[[F], F]:
    """A whole-number option of at least ``minimum`` (replicates, trials, budget, ...)."""
    return option(*flags, default=default, type=click.IntRange(min=minimum), help=help)


reader_options = _group(
    option("--format", "format", type=["csv", "tsv", "parquet", "jsonl", "lewidi", "convabuse",
                                       "labelstudio", "prodigy", "doccano", "argilla", "sagemaker",
                                       "mturk"],
           help="File format (default: an annotation-tool export from its content, else from the "
           "extension; .json = LeWiDi)."),
    option("--question", metavar="NAME",
           help="Annotation-tool exports: the labelling question to read when there are several."),
    option("--layout", type=["long", "wide"], default="long",
           help="long: one row per annotation; wide: one row per item, one column per annotator."),
    option("--item", help="Item id column (default: item, else the one column named like an "
           "item id: item_id, id, text_id, ...; the choice is printed)."),
    option("--annotator", help="Annotator id column (default: annotator, else the one column "
           "named like an annotator id: rater, worker_id, user, coder, ...)."),
    option("--no-annotator", is_flag=True,
           help="The file has no annotator ids (annotator-specific measures then refuse)."),
    option("--label", help="Label column (default: label, else the one column named like a "
           "label: rating, stars, score, answer, ..., or the only column left)."),
    option("--annotators", metavar="COL,COL",
           help="Wide layout: the annotator columns (default: all but item and meta)."),
    option("--labels", metavar="L1,L2,...",
           help="The label set in scale order, e.g. -3,-2,-1,0,1 (default: inferred)."),
    option("--ordinal/--nominal", "ordered", default=None,
           help="Whether the labels are ordered (default: numbers ordinal, strings nominal)."),
    option("--meta", metavar="COL,COL", help="Item-level columns to keep."),
    option("--dropna", is_flag=True,
           help="Drop rows with missing values (reported) instead of failing."),
    option("--duplicates", type=["error", "first", "last", "keep"],
           help="Repeated (item, annotator) pairs (default: error; ConvAbuse: first)."),
    option("--na-values", metavar="TEXT,TEXT",
           help="Cell texts meaning 'missing' besides an empty cell (default: none, so NA is data)."),
    option("--strip-labels", is_flag=True,
           help="Remove whitespace around labels (' pos' and 'pos ' become 'pos')."),
)  # fmt: skip
"""How to read an annotation file: format, layout, columns, scale, missing values, repeats."""

alignment_options = _group(
    option("--how", type=["exact", "inner"], default="exact",
           help="exact: every model must predict exactly the annotated items; inner: keep the "
           "items every model predicts (the others are reported)."),
    option("--normalize", is_flag=True,
           help="Rescale prediction rows that do not sum to 1 instead of failing."),
)  # fmt: skip
"""``--how`` and ``--normalize``: the flags the library's ``how='inner'`` and ``normalize=True`` hints name."""


#: ``--pred NAME=PATH``, repeatable (give ``help`` and ``required``); read it with :func:`parse_pred`.
pred_option = partial(option, "--pred", "preds", multiple=True, metavar="NAME=PATH")
#: What a ``--pred`` file may be (the help of every command's ``--pred``).
PRED_FILES = (
    "a CSV/TSV/Parquet/JSONL table (one column per label: named after it, p_<label>, "
    "prob_<label> or p1..pK in scale order; or item,label,prob rows), Hugging Face pipeline "
    "JSONL (top_k=None), or an .npy array with its ids in FILE.ids.txt"
)
pred_reading_options = _group(
    option("--pred-layout", type=["auto", "wide", "long"], default="auto",
           help="Layout of the prediction files (auto: long when they have label and "
           "probability columns)."),
    option("--pred-item", metavar="COLUMN",
           help="Item id column of the prediction files (default: the one named item, "
           "item_id, id, ... or the annotations' --item)."),
    option("--pred-labels", metavar="COL,COL",
           help="Wide prediction files: the label columns, each named after its label (default: "
           "detected; other columns are ignored, and a warning says so)."),
    option("--pred-label", metavar="COLUMN",
           help="Long prediction files: the label column (default: label, class or category)."),
    option("--pred-prob", metavar="COLUMN",
           help="Long prediction files: the probability column (default: prob, probability, "
           "proba, score, p or confidence)."),
    option("--pred-ids", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path),
           help=".npy prediction files: the item ids, one per line (default: FILE.ids.txt "
           "beside FILE.npy)."),
)  # fmt: skip
"""How to read the prediction files: the ``--pred-*`` options."""
prediction_options = _group(
    pred_option(required=True, help=f"Model predictions: {PRED_FILES}. Repeat per model."),
    pred_reading_options,
)
"""``--pred NAME=PATH`` (repeatable, required) and how to read the prediction files."""

prior_option = option(
    "--prior", default=DEFAULT_PRIOR, help="Dirichlet prior of the expected metrics: uniform, "
    "jeffreys, empirical, hierarchical or a number.",
)  # fmt: skip
seed_option = option(
    "--seed", type=click.IntRange(min=0), default=0, help="Seed of every random step."
)
#: Bounds of every ``--n-resamples``: the library refuses more than 10^7 resamples.
RESAMPLES_RANGE = click.IntRange(2, 10_000_000)
resamples_option = option(
    "--n-resamples",
    default=1000,
    type=RESAMPLES_RANGE,
    help="Bootstrap resamples (2 to 10,000,000).",
)
test_size_option = option(
    "--test-size", type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True), default=0.3,
    help="Share of items held out for testing; the others train.",
)  # fmt: skip


#: ``--classes``/``-k`` (give ``default``).
classes_option = partial(count_option, "--classes", "-k", minimum=2, help="Number of classes K.")
#: ``--metrics NAME,NAME``, repeatable (give ``help``); read it with :func:`split_names`.
metrics_option = partial(option, "--metrics", multiple=True, metavar="NAME,NAME")
#: ``--json`` (give ``help``): print JSON instead of the table.
json_option = partial(option, "--json", "as_json", is_flag=True)


def out_option(
    help: str, *, kind: Literal["dir", "file", "any"] = "dir", required: bool = True,
    default: Path | None = None,
) -> Callable[[F], F]:  # fmt: skip
    """``--out``: the directory (or file) the command writes through :mod:`dissensus._atomic`."""
    path = click.Path(file_okay=kind != "dir", dir_okay=kind != "file", path_type=Path)
    # no default=None: click (8.3+) then takes None as the value and never says --out is missing
    fallback = {} if default is None else {"default": default}
    return option("--out", required=required, type=path, help=help, **fallback)


def split_names(values: str | Iterable[str] | None) -> list[str]:
    """Names from ``"a,b"`` or repeated options ``("a,b", "c")``, blanks dropped."""
    values = [values] if isinstance(values, str) else (values or ())
    return [n.strip() for v in values for n in v.split(",") if n.strip()]


def _label(token: str) -> data.Label:
    try:
        number = float(token)
    except ValueError:
        return token
    return token if not math.isfinite(number) else int(number) if number.is_integer() else number


def parse_labels(text: str) -> list[data.Label]:
    """Labels from ``"-3,-2,-1,0,1"`` or ``"NEG,POS"``: numbers where they read as numbers."""
    return [_label(token) for token in split_names(text)]


def parse_prior(value: str) -> float | str:
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


def parse_pred(values: Iterable[str], *, bare: bool = False) -> dict[str, Path]:
    """``--pred NAME=PATH`` values as name -> path; with ``bare``, a lone PATH is named by its stem."""
    preds: dict[str, Path] = {}
    for value in values:
        name, sep, path = value.partition("=")
        if bare and not sep:
            name, sep, path = Path(value).stem, "=", value
        if not sep or not name or not path:
            msg = f"--pred expects NAME=PATH (e.g. --pred bert=preds/bert.csv); got {value!r}."
            raise click.BadParameter(msg, param_hint="--pred")
        if name in preds:
            msg = f"model name {name!r} is given twice; each --pred needs its own NAME."
            raise click.BadParameter(msg, param_hint="--pred")
        preds[name] = Path(path)
    return preds


def scale_option(labels: str | None, ordered: bool | None) -> data.Scale | None:
    """The scale ``--labels`` (ordered unless ``--nominal``) gives; None without it."""
    return data.Scale(tuple(parse_labels(labels)), ordered=ordered is not False) if labels else None


def load_annotations(
    path: str | Path, *, meta_too: Iterable[str] = (), **options: Any
) -> data.Annotations:
    """Read ``path`` with the :func:`reader_options` among ``options`` (the others are ignored).

    ``meta_too``: item-level columns a command needs besides ``--meta``. The readers'
    warnings (dropped repeats, ``--dropna``, a disagreeing LeWiDi soft label) print now.
    """
    fmt, ordered = options.get("format"), options.get("ordered")
    scale = scale_option(options.get("labels"), ordered)
    annotator = None if options.get("no_annotator") else options.get("annotator") or "annotator"
    # Column options go through even for formats with fixed columns, so that
    # read_annotations refuses them instead of silently ignoring them.
    kwargs: dict[str, Any] = {
        **{key: options.get(key) or key for key in ("item", "label")},
        "annotator": annotator,
        "annotators": split_names(options.get("annotators")) or None,
        "meta": tuple(dict.fromkeys([*split_names(options.get("meta")), *meta_too])),
        "layout": options.get("layout") or "long",
        "scale": scale,
        "ordered": ordered if scale is None else None,
        "dropna": bool(options.get("dropna")),
        "duplicates": options.get("duplicates"),
    }
    if options.get("na_values"):
        kwargs["na_values"] = tuple(split_names(options["na_values"]))
    if options.get("strip_labels"):
        kwargs["strip_labels"] = True
    if options.get("question"):
        kwargs["question"] = options["question"]
    with warnings_as_lines():
        try:
            return data.read_annotations(path, fmt, **kwargs)
        except DataError as exc:
            guess = format_hint(path) if fmt is None else None
            if guess is None:
                raise
            msg = f"{exc} The file looks like {guess}: add --format {guess}."
            raise DataError(msg) from exc


def load_predictions(
    path: Path,
    *,
    pred_layout: str = "auto",
    pred_item: str | None = None,
    normalize: bool = False,
    scale: data.Scale | None = None,
    **options: Any,
) -> data.Predictions:
    """Read a ``--pred`` file with the ``--pred-*`` options; ``--na-values``, ``--strip-labels`` apply as to the annotations.

    So an item ``NA`` is data unless ``--na-values NA`` says otherwise; labels stay comparable.
    ``scale`` (the annotations') makes a label column that is not on it part of the file's one
    error. Without ``--pred-item``, a column named as the annotations' ``--item`` holds the
    ids. The reader's notes print as warnings.
    """
    with warnings_as_lines():
        return data.read_predictions(
            path,
            layout=pred_layout,  # type: ignore[arg-type]
            item=pred_item,
            annotation_item=options.get("item"),
            labels=split_names(options.get("pred_labels")) or None,
            label=options.get("pred_label"),
            prob=options.get("pred_prob"),
            ids=options.get("pred_ids"),
            scale=scale,
            normalize=normalize,
            na_values=tuple(split_names(options.get("na_values"))),
            strip_labels=bool(options.get("strip_labels")),
        )
