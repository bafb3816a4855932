"""``dissensus agreement --sets``: agreement on set-valued labels (several labels per annotation).

The label column holds sets: JSON lists (``["entailment", "neutral"]``,
``[]`` the empty set), real lists in JSONL / Parquet, or text split by
``--label-sep`` (``entailment|neutral``); a LeWiDi multi-label file
(VariErrNLI) is read with :func:`dissensus.read_lewidi`. The table has
Krippendorff's alpha with the MASI and Jaccard set distances, then nominal
alpha per label (chosen or not), in the columns of
:func:`dissensus.agreement.report`.
"""

from __future__ import annotations

from typing import Any

import click
import pandas as pd

from dissensus.agreement import AgreementResult, agreement_table, krippendorff_alpha
from dissensus.cli._messages import warnings_as_lines
from dissensus.cli._reader_options import parse_labels, split_names
from dissensus.data import Scale, SetAnnotations, read_set_annotations

#: Reader options that have no meaning for set-valued labels, with what they would need.
_NOT_FOR_SETS = {
    "layout": ("long", "--layout wide"),
    "annotators": (None, "--annotators (wide layout)"),
    "ordered": (None, "--ordinal/--nominal (set distances ignore order)"),
    "strip_labels": (False, "--strip-labels"),
}


def load_set_annotations(path: str, *, label_sep: str | None, **options: Any) -> SetAnnotations:
    """Read ``path`` as set-valued annotations with the shared reader options."""
    given = [text for key, (default, text) in _NOT_FOR_SETS.items() if options.get(key) != default]
    if given:
        msg = f"{', '.join(given)} does not apply to set-valued labels (--sets); drop it."
        raise click.UsageError(msg)
    with warnings_as_lines():
        return read_set_annotations(
            path,
            options.get("format"),
            item=options.get("item") or "item",
            annotator=None
            if options.get("no_annotator")
            else (options.get("annotator") or "annotator"),
            label=options.get("label") or "label",
            label_sep=label_sep,
            scale=Scale.nominal(parse_labels(options["labels"])) if options.get("labels") else None,
            meta=split_names(options.get("meta")),
            dropna=bool(options.get("dropna", False)),
            duplicates=options.get("duplicates") or "error",
            na_values=split_names(options.get("na_values")),
            question=options.get("question"),
        )


def set_agreement_table(
    sets: SetAnnotations, *, confidence_level: float | None, n_resamples: int, seed: int
) -> pd.DataFrame:
    """Alpha with MASI and Jaccard distances, then per-label nominal alpha (warnings printed).

    Per-label alpha treats each label as a yes/no question (did the
    annotator include it?), on :meth:`SetAnnotations.binary_counts`.
    """
    results: dict[str, AgreementResult] = {}
    with warnings_as_lines():
        for r in (krippendorff_alpha(sets, distance=d) for d in ("masi", "jaccard")):
            results[r.name] = r
        for label in sets.scale.labels:
            results[f"krippendorff_alpha[{label}]"] = krippendorff_alpha(sets.binary_counts(label))
        intervals = None
        if confidence_level is not None:
            intervals = {
                name: r.confidence_interval(confidence_level, n_resamples=n_resamples, seed=seed)
                for name, r in results.items()
            }
    return agreement_table(results, intervals)


def check_set_options(*, by: str | None, level: str, example: str | None) -> None:
    """Refuse the options of the single-label report that sets do not support."""
    if example is not None:
        msg = "--sets reads FILE; the shipped examples hold single labels."
        raise click.UsageError(msg)
    if by is not None:
        msg = "--by is not available with --sets yet; split the file per group."
        raise click.UsageError(msg)
    if level != "auto":
        msg = "--level does not apply to --sets: set-valued labels use the MASI and Jaccard distances."
        raise click.UsageError(msg)


def describe(sets: SetAnnotations, title: str) -> str:
    """The first line of the human output."""
    n = sets.annotations_per_item
    return (
        f"Agreement of {title}: {sets.n_items:,} items, {sets.n_annotations:,} sets of labels "
        f"({int(n.min())}–{int(n.max())} per item), labels {list(sets.scale.labels)}"
    )
