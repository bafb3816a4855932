"""``dissensus agreement [FILE]``: every agreement coefficient, overall and per group."""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Sequence
from typing import Any

import click
import pandas as pd

from dissensus._atomic import check_not_inputs, check_output_file, write_file_atomically
from dissensus._exceptions import DataError
from dissensus.agreement import label_patterns, report
from dissensus.cli._agreement_sets import (
    check_set_options,
    describe,
    load_set_annotations,
    set_agreement_table,
)
from dissensus.cli._messages import warnings_as_lines
from dissensus.cli._reader_options import RESAMPLES_RANGE, load_annotations, reader_options
from dissensus.data import LabelCounts, as_label_counts
from dissensus.datasets import load_example

_LEVELS = ("nominal", "ordinal", "interval", "ratio")
#: Groups with more items than this get no majority-label table (it would not be readable).
_MAX_MAJORITY_ITEMS = 12


def _num(x: float, digits: int = 3) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _table(df: pd.DataFrame, right: set[str]) -> list[str]:
    cols = list(df.columns)
    cells = [[str(v) for v in row] for row in df.itertuples(index=False)]
    widths = [max(len(str(c)), *(len(r[i]) for r in cells)) for i, c in enumerate(cols)]

    pads = [str.rjust if c in right else str.ljust for c in cols]

    def line(values: list[str]) -> str:
        row = zip(pads, values, widths, strict=True)
        return "  " + "  ".join(pad(v, w) for pad, v, w in row).rstrip()

    return [line([str(c) for c in cols]), line(["-" * w for w in widths]), *map(line, cells)]


def format_agreement(table: pd.DataFrame, *, by: str | None = None) -> str:
    """The readable text of a :func:`dissensus.agreement.report` table."""
    lines: list[str] = []
    has_ci = table["ci_low"].notna().any()
    if by is None:
        show = table[["coefficient"]].copy()
        show["value"], show["se"] = table["value"].map(_num), table["standard_error"].map(_num)
        if has_ci:
            show["ci"] = [
                f"[{_num(lo)}, {_num(hi)}]" if not math.isnan(lo) else ""
                for lo, hi in zip(table["ci_low"], table["ci_high"], strict=True)
            ]
        show["items"] = table["n_items"].astype(str)
        show["excluded"] = table["n_items_excluded"].astype(str)
        lines += _table(show, {"value", "se", "items", "excluded"})
    else:
        value = table.pivot(index=by, columns="coefficient", values="value")
        order = list(dict.fromkeys(table[by]))
        coefs = list(dict.fromkeys(table["coefficient"]))
        value = value.loc[order, coefs]
        items = table.groupby(by, sort=False)["n_items"].first()
        show = pd.DataFrame({by: order})
        # the report's names, shortened only by dropping their qualifier; a legend follows
        short = {
            "share_unanimous": "unanimous",
            "fleiss_kappa": "kappa",
            "observed_agreement": "observed",
            "chance_agreement": "chance",
            "gwet_ac1": "ac1",
            "gwet_ac2_quadratic": "ac2",
            "brennan_prediger": "bp",
        }
        for c in coefs:
            name = short.get(c, "alpha" if c.startswith("krippendorff") else c)
            show[name] = [_num(v) for v in value[c]]
        show["items"] = [str(items[g]) for g in order]
        lines += _table(show, set(show.columns) - {by})
        legend = ", ".join(
            f"{short.get(c, 'alpha')} = {c}"
            for c in coefs
            if c in short or c.startswith("krippendorff")
        )
        lines += textwrap.wrap(f"({legend})", 96, initial_indent="  ", subsequent_indent="   ")
        if has_ci:
            lines += ["", "  Bootstrap intervals over items:", ""]
            ci_cols = [c for c in coefs if c == "fleiss_kappa" or c.startswith("krippendorff")]
            ci_show = pd.DataFrame({by: order})
            for c in ci_cols:
                sub = table[table["coefficient"] == c].set_index(by)
                ci_show[c] = [
                    f"[{_num(sub.loc[g, 'ci_low'])}, {_num(sub.loc[g, 'ci_high'])}]" for g in order
                ]
            lines += _table(ci_show, set())
            few = int(table["n_items"].min())
            if few < 20:
                lines.append("")
                lines += textwrap.wrap(
                    f"note: some groups have only {few} items; a bootstrap over so few items "
                    "gives rough, wide intervals.",
                    96,
                    initial_indent="  ",
                    subsequent_indent="    ",
                )
    notes = [n for n in dict.fromkeys(table["note"]) if n]
    if notes:
        lines.append("")
        for n in notes:
            lines += textwrap.wrap(f"note: {n}", 96, initial_indent="  ", subsequent_indent="    ")
    return "\n".join(lines)


def format_majority(counts: LabelCounts, by: str) -> str | None:
    """:func:`~dissensus.agreement.label_patterns` as text: one row per group, odd groups flagged.

    ``None`` when groups are too large to show.
    """
    if counts.groups(by).value_counts().max() > _MAX_MAJORITY_ITEMS:
        return None
    lp = label_patterns(counts, by=by)
    cells = lp.labels.copy().astype(object)
    for col in cells.columns:
        cells[col] = [
            f"{lab} {share:.0%}" if lab is not None else "-"
            for lab, share in zip(lp.labels[col], lp.shares[col], strict=True)
        ]
    lines = ["  Majority label per item (its share of the ratings):", ""]
    show = cells.reset_index()
    show.columns = [str(c) for c in show.columns]
    lines += _table(show.fillna("-"), set(show.columns) - {by})
    if len(lp.deviations):
        lines.append("")
        for g, rows in lp.deviations.groupby(by, sort=False):
            diff = ", ".join(str(c) for c in rows[lp.key])
            text = (
                f"! {by} {g}: the majority label differs from the other groups' usual pattern "
                f"({' '.join(map(str, lp.usual))}) on {diff}."
            )
            lines += textwrap.wrap(text, 96, initial_indent="  ", subsequent_indent="    ")
        text = (
            "Agreement coefficients cannot show this: they measure how much raters agree, "
            "not on which label, so an item whose labels are swapped has the same kappa. "
            "Check whether these rows are attached to the right items."
        )
        lines += textwrap.wrap(text, 96, initial_indent="    ", subsequent_indent="    ")
    return "\n".join(lines)


#: One line per coefficient for ``--explain`` (docs/agreement-glossary.md has the long form).
GLOSSARY: tuple[tuple[str, str], ...] = (
    ("share_unanimous", "share of items on which every annotator gave the same label; no chance correction."),
    ("observed_agreement", "P_a: chance that two annotations of the same item agree, averaged over items."),
    ("chance_agreement", "P_e: the same chance if labels were drawn from the pooled label shares (Fleiss)."),
    ("fleiss_kappa", "(P_a − P_e) / (1 − P_e); nominal labels, many raters; low when one label dominates."),
    ("krippendorff_alpha", "1 − D_o / D_e with a distance for the level (nominal, ordinal, interval, ratio); handles missing ratings; prefer it for ordered scales."),
    ("gwet_ac1", "chance correction that stays stable when one label dominates (the kappa paradox); nominal."),
    ("gwet_ac2_quadratic", "AC1 with quadratic weights, for ordered labels."),
    ("brennan_prediger", "chance = 1/K (uniform); depends on the number of labels offered."),
    ("reading scales", "Landis–Koch (0.41–0.60 moderate, 0.61–0.80 substantial) and Krippendorff (α ≥ 0.8 reliable, ≥ 0.667 tentative) are conventions, not tests."),
)  # fmt: skip


def format_glossary() -> str:
    """The ``--explain`` text: one line per coefficient."""
    width = max(len(name) for name, _ in GLOSSARY)
    return "\n".join(f"  {name.ljust(width)}  {text}" for name, text in GLOSSARY)


def check_level(level: str, labels: Sequence[Any]) -> None:
    """Refuse ``--level ratio`` (and ``interval``) on labels that cannot carry it.

    Ratio distances compare labels by their ratio, so they need numbers on a
    scale with a true zero: no negative labels. Interval needs numbers.

    Examples
    --------
    >>> check_level("ratio", [-3, -2, -1, 0, 1])
    Traceback (most recent call last):
    ...
    ValueError: --level ratio needs numeric labels with a true zero and no negative values, but the labels include -3, -2, -1; use --level interval (or ordinal).
    """
    if level not in ("ratio", "interval"):
        return
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in labels)
    if not numeric:
        msg = (
            f"--level {level} needs numeric labels; the labels are {', '.join(map(str, labels))}. "
            "Use --level ordinal (ordered labels) or nominal."
        )
        raise ValueError(msg)
    negative = [v for v in labels if v < 0]
    if level == "ratio" and negative:
        msg = (
            "--level ratio needs numeric labels with a true zero and no negative values, but the "
            f"labels include {', '.join(map(str, negative))}; use --level interval (or ordinal)."
        )
        raise ValueError(msg)


def _write(text: str, target: str, inputs: Sequence[str]) -> None:
    if target == "-":
        click.echo(text, nl=False)
    else:
        write_file_atomically(target, text, inputs=list(inputs))


def _plain(value: Any) -> Any:
    """A JSON value: NaN (and missing) as null, NumPy scalars as Python numbers."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value.item() if hasattr(value, "item") else value


def emit_table(
    table: pd.DataFrame, *, json_out: str | None, csv_out: str | None, inputs: Sequence[str]
) -> bool:
    """Write an agreement table as JSON and / or CSV (``"-"``: stdout); True if stdout took one.

    The one writer of both engines: JSON at full float precision (Python's
    ``repr`` of each float, NaN as ``null``), CSV through the atomic writer;
    an output never overwrites an input.
    """
    if json_out is not None:
        records = [
            {str(k): _plain(v) for k, v in row.items()} for row in table.to_dict(orient="records")
        ]
        _write(json.dumps(records, indent=1, ensure_ascii=False) + "\n", json_out, inputs)
    if csv_out is not None:
        _write(table.to_csv(index=False), csv_out, inputs)
    return "-" in (json_out, csv_out)


def check_outputs(json_out: str | None, csv_out: str | None, inputs: list[str]) -> None:
    """Refuse unusable outputs before computing: both on stdout, an input, a missing directory."""
    if json_out == "-" and csv_out == "-":
        msg = (
            "--json - and --csv - would mix two formats on stdout; send at most one of them to '-'."
        )
        raise click.UsageError(msg)
    targets = [check_output_file(t) for t in (json_out, csv_out) if t is not None and t != "-"]
    if len(targets) == 2 and targets[0].resolve() == targets[1].resolve():
        msg = f"--json and --csv both name {json_out}; give them different files."
        raise click.UsageError(msg)
    check_not_inputs(targets, inputs)


def emit_report(
    table: pd.DataFrame,
    header: str,
    *,
    json_out: str | None,
    csv_out: str | None,
    inputs: list[str],
    by: str | None = None,
) -> bool:
    """Write the outputs and the human table (both engines); False when stdout took a format."""
    if emit_table(table, json_out=json_out, csv_out=csv_out, inputs=inputs):
        return False
    click.echo(f"{header}\n\n{format_agreement(table, by=by)}")
    return True


@click.command("agreement")
# a directory is a doccano export (one file per annotator)
@click.argument("file", required=False, type=click.Path())
@reader_options
@click.option(
    "--example",
    type=click.Choice(["course_29", "course_reviews"]),
    default=None,
    help="Run on a shipped example instead of FILE (default without FILE: course_29).",
)
@click.option(
    "--level",
    type=click.Choice(["auto", *_LEVELS]),
    default="auto",
    show_default=True,
    help="Level of measurement of Krippendorff's alpha; auto: ordinal for an ordered scale, else nominal.",
)
@click.option("--by", default=None, metavar="COLUMN", help="Item-level column to group by.")
@click.option(
    "--explain",
    is_flag=True,
    help="Print what each coefficient measures and when to prefer it, then exit.",
)
@click.option(
    "--confidence-level", type=float, default=None, help="Bootstrap interval coverage, e.g. 0.95."
)
@click.option(
    "--n-resamples",
    type=RESAMPLES_RANGE,
    default=1000,
    show_default=True,
    help="Bootstrap resamples (2 to 10,000,000).",
)
@click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Bootstrap seed."
)
@click.option(
    "--json",
    "json_out",
    default=None,
    metavar="OUT",
    help="Write the table as JSON ('-' = stdout).",
)
@click.option(
    "--csv", "csv_out", default=None, metavar="OUT", help="Write the table as CSV ('-' = stdout)."
)
@click.option(
    "--sets",
    "set_valued",
    is_flag=True,
    help='The label column holds SETS of labels (JSON lists such as ["a", "b"], or text '
    "split by --label-sep; LeWiDi VariErrNLI files): alpha with MASI and Jaccard distances, "
    "and per label.",
)
@click.option(
    "--label-sep",
    default=None,
    metavar="SEP",
    help="With --sets: the separator of labels within a cell, e.g. '|' for a|b.",
)
def agreement_command(
    *,
    file: str | None,
    example: str | None,
    level: str,
    by: str | None,
    explain: bool,
    confidence_level: float | None,
    n_resamples: int,
    seed: int,
    json_out: str | None,
    csv_out: str | None,
    set_valued: bool,
    label_sep: str | None,
    **reader: Any,
) -> None:
    """Agreement coefficients of FILE (or a shipped example), overall and per group.

    Without FILE it runs on the worked example of the MLRD lecture notes
    (29 items, 4 raters); `--example course_reviews --by year` shows the
    class judgements per year. With --sets, FILE holds sets of labels.
    """
    if explain:
        click.echo(format_glossary())
        return
    if file is not None and example is not None:
        msg = "Give either FILE or --example, not both."
        raise click.UsageError(msg)
    inputs = [file] if file is not None else []
    check_outputs(json_out, csv_out, inputs)
    if label_sep is not None and not set_valued:
        msg = "--label-sep splits sets of labels; add --sets."
        raise click.UsageError(msg)
    if set_valued:
        check_set_options(by=by, level=level, example=example)
        if file is None:
            msg = "--sets needs FILE."
            raise click.UsageError(msg)
        sets = load_set_annotations(file, label_sep=label_sep, **reader)
        table = set_agreement_table(
            sets, confidence_level=confidence_level, n_resamples=n_resamples, seed=seed
        )
        emit_report(table, describe(sets, file), json_out=json_out, csv_out=csv_out, inputs=inputs)
        return
    if file is None:
        name = example or "course_29"
        counts = load_example(name)  # type: ignore[arg-type]
        title = f"example {name!r}"
    else:
        try:
            counts = as_label_counts(load_annotations(file, meta_too=[by] if by else [], **reader))
        except DataError as exc:
            if by and str(exc).startswith(f"No meta column {by!r}"):
                # the column came from --by: say so, not --meta
                detail = str(exc).split(";")[0].removeprefix("No meta column ")
                guess = str(exc).partition("Did you mean")[2]
                msg = f"--by {by}: no column {detail}" + (
                    f"; did you mean {guess.strip(' ?')}?" if guess else "."
                )
                raise DataError(msg) from None
            raise
        title = file
    if level == "auto":
        level = "ordinal" if counts.scale.ordered else "nominal"
    check_level(level, [v.item() if hasattr(v, "item") else v for v in counts.scale.labels])
    with warnings_as_lines():
        table = report(
            counts,
            level=level,  # type: ignore[arg-type]
            by=by,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            seed=seed,
        )
    n = counts.n
    header = (
        f"Agreement of {title}: {counts.N:,} items, {int(n.sum()):,} ratings "
        f"({int(n.min())}–{int(n.max())} per item), labels {list(counts.scale.labels)}"
    )
    shown = emit_report(table, header, json_out=json_out, csv_out=csv_out, inputs=inputs, by=by)
    if shown and by is not None and (text := format_majority(counts, by)):
        click.echo("\n" + text)
