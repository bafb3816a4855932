"""Tidy agreement tables: every count-based coefficient, overall and per group."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DegenerateAgreementWarning
from dissensus._validation import SeedLike, check_option, check_probability_level
from dissensus.agreement._alpha import LEVELS, Level, krippendorff_alpha
from dissensus.agreement._common import FloatArray, IntArray, ItemBootstrap, bootstrap_cis
from dissensus.agreement._multirater import (
    brennan_prediger,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    share_unanimous,
)
from dissensus.agreement._result import AgreementResult
from dissensus.agreement._rows import count_row_results
from dissensus.data import Annotations, LabelCounts, Scale, as_label_counts
from dissensus.stats import ConfidenceInterval

#: Columns of :func:`agreement_table` (after the group column of :func:`report` with ``by``).
COLUMNS = (
    "coefficient", "value", "standard_error", "ci_low", "ci_high",
    "n_items", "n_items_excluded", "n_annotations", "note",
)  # fmt: skip
#: The canonical row order: a table row ``name`` ranks with the first prefix it starts with.
_ORDER = (
    "share_unanimous", "fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "gwet_ac2_quadratic",
    "brennan_prediger",
)  # fmt: skip


def table_coefficients(level: str, ordered: bool) -> tuple[str, ...]:
    """The coefficients of the agreement table, in its order, for Krippendorff's ``level``.

    Gwet's AC2 with quadratic weights joins for any level but nominal, or an
    ordered scale. Observed and chance agreement are not computed on their
    own: their rows are the parts of ``fleiss_kappa``.

    Examples
    --------
    >>> table_coefficients("ordinal", False)  # doctest: +NORMALIZE_WHITESPACE
    ('share_unanimous', 'fleiss_kappa', 'krippendorff_alpha_ordinal', 'gwet_ac1',
     'gwet_ac2_quadratic', 'brennan_prediger')
    """
    check_option("table_coefficients", "level", level, LEVELS)
    alpha = "krippendorff_alpha" if level == "nominal" else f"krippendorff_alpha_{level}"
    ac2 = ("gwet_ac2_quadratic",) if level != "nominal" or ordered else ()
    return ("share_unanimous", "fleiss_kappa", alpha, "gwet_ac1", *ac2, "brennan_prediger")


def _rank(name: str) -> int:
    return next(
        (i for i, p in enumerate(_ORDER) if name == p or name.startswith(p + "_")), len(_ORDER)
    )


def agreement_table(
    results: Mapping[str, AgreementResult],
    intervals: Mapping[str, ConfidenceInterval] | None = None,
) -> pd.DataFrame:
    """The agreement table of both engines: one row per coefficient, in one canonical order.

    Parameters
    ----------
    results : Mapping[str, AgreementResult]
        Results by table name (:func:`table_coefficients`), from memory or
        from :mod:`dissensus.distributed`.
    intervals : Mapping[str, ConfidenceInterval], optional
        Intervals by the same names; NaN ends for a name without one.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`; rows in the order share_unanimous,
        fleiss_kappa, observed_agreement and chance_agreement (the parts of
        fleiss_kappa, without standard error or interval),
        krippendorff_alpha[_<level>], gwet_ac1, gwet_ac2_quadratic,
        brennan_prediger.

    Examples
    --------
    >>> r = {"gwet_ac1": gwet_ac1([[2, 0], [1, 1]]), "fleiss_kappa": fleiss_kappa([[2, 0], [1, 1]])}
    >>> agreement_table(r)["coefficient"].tolist()
    ['fleiss_kappa', 'observed_agreement', 'chance_agreement', 'gwet_ac1']
    """
    intervals = intervals or {}
    rows: list[dict[str, Any]] = []
    for name in sorted(results, key=_rank):
        r = results[name]
        low, high = intervals.get(name, (math.nan, math.nan))
        rows.append(
            {
                "coefficient": name, "value": r.statistic, "standard_error": r.standard_error,
                "ci_low": low, "ci_high": high, "n_items": r.n_items,
                "n_items_excluded": r.n_items_excluded, "n_annotations": r.n_annotations,
                "note": r.note,
            }
        )  # fmt: skip
        if name == "fleiss_kappa":
            rows.extend(
                {**rows[-1], "coefficient": part, "value": r.parts[part], "standard_error": math.nan,
                 "ci_low": math.nan, "ci_high": math.nan, "note": ""}
                for part in ("observed_agreement", "chance_agreement")
            )  # fmt: skip
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _coefficient(name: str, level: str) -> Callable[[LabelCounts], AgreementResult]:
    """How :func:`report` computes the table row ``name``."""
    if name.startswith("krippendorff_alpha"):
        return lambda c: krippendorff_alpha(c, level=level)  # type: ignore[arg-type]
    if name == "gwet_ac2_quadratic":
        return lambda c: gwet_ac2(c, weights="quadratic")
    fns = (share_unanimous, fleiss_kappa, gwet_ac1, brennan_prediger)
    return next(f for f in fns if f.__name__ == name)


def _block(
    counts: LabelCounts,
    names: tuple[str, ...],
    level: str,
    confidence_level: float | None,
    boot: dict[str, Any],
) -> tuple[pd.DataFrame, list[str]]:
    """The table of one group, and the degenerate-case warnings its coefficients gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateAgreementWarning)
        results = {name: _coefficient(name, level)(counts) for name in names}
    notes = [str(w.message) for w in caught if issubclass(w.category, DegenerateAgreementWarning)]
    # the distinct count rows, computed once for the point values and the intervals
    P, mult = cast("ItemBootstrap", next(iter(results.values()))._resampler).rows()
    intervals = None
    if confidence_level is not None:
        intervals = _intervals(results, P, mult, confidence_level, boot)
    return agreement_table(_from_rows(results, P, mult, counts.scale), intervals), notes


def _from_rows(
    results: Mapping[str, AgreementResult], P: FloatArray, mult: IntArray, scale: Scale
) -> dict[str, AgreementResult]:
    """``results`` with statistic, standard error and parts from the distinct count rows.

    The same numbers to ~1e-16, summed the way the Dask engine sums them
    (:func:`~dissensus.agreement.kernels.count_row_results`), so that both
    engines print bit-identical tables.
    """
    with warnings.catch_warnings():  # the coefficients have warned already
        warnings.simplefilter("ignore", DegenerateAgreementWarning)
        exact = count_row_results(P, mult, scale, list(results))
    return {
        name: dataclasses.replace(
            r,
            statistic=exact[name].statistic,
            standard_error=exact[name].standard_error,
            parts=exact[name].parts or r.parts,
        )
        for name, r in results.items()
    }


def _intervals(
    results: Mapping[str, AgreementResult],
    P: FloatArray,
    mult: IntArray,
    confidence_level: float,
    boot: dict[str, Any],
) -> dict[str, ConfidenceInterval]:
    """Every coefficient's interval from ONE set of resample weights.

    Every coefficient uses the same items (at least two ratings) and so the
    same distinct count rows; drawing the weights once makes the intervals
    paired and costs one weight draw instead of one per coefficient. With an
    integer seed each interval equals the coefficient's own
    (``fleiss_kappa(...).confidence_interval(..., seed=seed)``), which draws
    the same weights.
    """
    boots = [cast("ItemBootstrap", r._resampler) for r in results.values()]
    if mult.size == 0:
        return {}
    stats = [b.statistic(P.shape[0]) for b in boots]
    cis = bootstrap_cis(stats, P, mult, confidence_level=confidence_level, **boot)
    return dict(zip(results, cis, strict=True))


def report(
    annotations: Annotations | LabelCounts | npt.ArrayLike,
    *,
    level: Level = "nominal",
    by: str | None = None,
    confidence_level: float | None = None,
    n_resamples: int = 1000,
    seed: SeedLike = 0,
    method: Literal["percentile", "bca"] = "percentile",
) -> pd.DataFrame:
    """Every count-based agreement coefficient in one tidy table.

    Parameters
    ----------
    annotations : Annotations, LabelCounts or array_like of shape (N, K)
        Label counts per item; with ``by``, an item-level column to group on.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of Krippendorff's alpha; for anything but nominal (or an
        ordered scale) Gwet's AC2 with quadratic weights is added
        (:func:`table_coefficients`).
    by : str, optional
        Item-level column (``data.meta``) such as a year or a subset: one
        block of rows per group, then the rows over all items
        (group ``"all"``).
    confidence_level : float, optional
        Coverage of bootstrap intervals over items (per group); none by
        default. One set of resamples per group serves every coefficient, so
        the intervals are paired; with an integer ``seed`` each equals the
        coefficient's own ``result.confidence_interval(confidence_level,
        seed=seed, ...)``.
    n_resamples, seed, method
        As in :meth:`AgreementResult.confidence_interval` (multinomial bootstrap).

    Returns
    -------
    pandas.DataFrame
        :func:`agreement_table` (columns :data:`COLUMNS`), preceded by the
        ``by`` column when grouping.

    Warns
    -----
    DegenerateAgreementWarning
        Once, summarising every excluded item and undefined coefficient
        (details in ``note``).

    Notes
    -----
    Kappa-type coefficients only see how much the raters of each item agree,
    not *which* label they agreed on: swapping the labels of an item leaves
    them unchanged. A group whose majority labels differ from the others
    (e.g. rows attached to the wrong items) does not show here; compare
    :func:`majority_labels` across groups.

    Examples
    --------
    >>> from dissensus import load_example
    >>> t = report(load_example("course_29"))
    >>> t.set_index("coefficient")["value"].round(3).to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'share_unanimous': 0.31, 'fleiss_kappa': 0.41, 'observed_agreement': 0.58,
     'chance_agreement': 0.288, 'krippendorff_alpha': 0.415, 'gwet_ac1': 0.49,
     'brennan_prediger': 0.476}
    """
    check_option("report", "level", level, LEVELS)
    check_option("report", "method", method, ("percentile", "bca"))
    if confidence_level is not None:
        confidence_level = check_probability_level("report", "confidence_level", confidence_level)
        if int(n_resamples) < 2:
            msg = f"The 'n_resamples' parameter of report must be at least 2. Got {n_resamples!r}."
            raise ValueError(msg)
    counts = as_label_counts(annotations)
    names = table_coefficients(level, counts.scale.ordered)
    boot = {"n_resamples": int(n_resamples), "seed": seed, "method": method}
    blocks: list[pd.DataFrame] = []
    notes: list[str] = []
    if by is not None:
        groups = counts.groups(by)
        codes, uniques = pd.factorize(groups, sort=True)
        for g, label in enumerate(uniques):
            table, n = _block(counts.take(codes == g), names, level, confidence_level, boot)
            notes.extend(f"{by}={label}: {m}" for m in n)
            blocks.append(table.assign(**{by: label}))
    out, n = _block(counts, names, level, confidence_level, boot)
    notes.extend(n)
    if by is not None:
        out[by] = "all"
        blocks.append(out)
        out = pd.concat(blocks, ignore_index=True)[[by, *COLUMNS]]
    if notes:
        shown = "; ".join(notes[:3]) + (f"; … ({len(notes) - 3} more)" if len(notes) > 3 else "")
        warnings.warn(f"report: {shown}", DegenerateAgreementWarning, stacklevel=2)
    return out


def majority_labels(
    annotations: Annotations | LabelCounts | npt.ArrayLike, *, columns: Sequence[str] | None = None
) -> pd.DataFrame:
    """Each item's most frequent label and its share, with the item-level columns.

    Parameters
    ----------
    annotations : Annotations, LabelCounts or array_like of shape (N, K)
        Label counts per item.
    columns : sequence of str, optional
        Item-level (``meta``) columns to keep; default all.

    Returns
    -------
    pandas.DataFrame
        Indexed by item: ``label`` (ties: the first on the scale, flagged in
        ``tie``), ``share`` of the item's ratings, ``n`` ratings, plus the
        meta columns.

    Examples
    --------
    >>> from dissensus import load_example
    >>> m = majority_labels(load_example("course_reviews"))
    >>> m.pivot(index="year", columns="review", values="label").loc[["2020-21", "2021-22"]]
    review     R1   R2   R3   R4
    year
    2020-21   POS  NEG  NEG  POS
    2021-22   POS  POS  POS  NEG
    """
    counts = as_label_counts(annotations)
    X = counts.values  # noqa: PD011 -- LabelCounts, not pandas
    n = X.sum(axis=1)
    top = X.argmax(axis=1)
    best = X.max(axis=1)
    labels = np.asarray(counts.scale.labels, dtype=object)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, best / np.maximum(n, 1), np.nan)
    out = pd.DataFrame(
        {
            "label": np.where(n > 0, labels[top], None),
            "share": share,
            "n": n,
            "tie": ((best[:, None] == X).sum(axis=1) > 1) & (n > 0),
        },
        index=counts.items,
    )
    if counts.meta is not None:
        keep = list(counts.meta.columns) if columns is None else list(columns)
        out = out.join(counts.meta[keep])
    return out


@dataclass(frozen=True)
class LabelPatterns:
    """Majority labels of matching items across groups, and the groups that break the pattern.

    Attributes
    ----------
    by : str
        The group column (e.g. ``"year"``).
    key : str
        The item-level column that matches items across groups (e.g. ``"review"``),
        or ``"position"`` (order within the group) when no column does.
    labels : pandas.DataFrame
        Majority label per group (rows, in order of appearance) and key (columns);
        ``None`` for an item without annotations.
    shares : pandas.DataFrame
        The majority label's share of the item's annotations, same shape.
    usual : tuple
        The most frequent row of ``labels``: the groups' usual pattern.
    deviations : pandas.DataFrame
        One row per (group, key) whose majority label differs from ``usual``:
        columns ``by``, ``key``, ``label``, ``usual_label``. Empty when every
        group follows the pattern or no pattern occurs twice.
    """

    by: str
    key: str
    labels: pd.DataFrame
    shares: pd.DataFrame
    usual: tuple[Any, ...]
    deviations: pd.DataFrame


def label_patterns(annotations: Annotations | LabelCounts, *, by: str) -> LabelPatterns:
    """Compare each group's majority labels with the other groups' usual pattern.

    Kappa-type coefficients are invariant to permuting the labels of an item: rows
    attached to the wrong items (a swapped answer key, a shifted join) leave every
    coefficient unchanged. When each group (e.g. a year) labels the same set of
    items (e.g. reviews R1–R4), their majority labels should follow one pattern;
    a group whose pattern differs is worth checking.

    Items are matched across groups by the first item-level column (other than
    ``by``) that takes the same sequence of values in every group and has as many
    distinct values as the largest group; failing that, by position in the group.

    Parameters
    ----------
    annotations : Annotations or LabelCounts
        Annotations with an item-level column ``by``.
    by : str
        The group column.

    Returns
    -------
    LabelPatterns

    Examples
    --------
    >>> from dissensus import load_example
    >>> lp = label_patterns(load_example("course_reviews"), by="year")
    >>> lp.key, lp.usual
    ('review', ('POS', 'NEG', 'NEG', 'POS'))
    >>> lp.deviations[["year", "review", "label", "usual_label"]].to_numpy().tolist()
    [['2021-22', 'R2', 'POS', 'NEG'], ['2021-22', 'R3', 'POS', 'NEG'], ['2021-22', 'R4', 'NEG', 'POS']]
    """
    counts = as_label_counts(annotations)
    m = majority_labels(counts)
    groups = counts.groups(by)
    sizes = groups.value_counts()
    meta = counts.meta if counts.meta is not None else pd.DataFrame(index=counts.items)
    key = None
    for col in meta.columns:
        if col == by:
            continue
        per_group = meta.groupby(groups, sort=False)[col].agg(tuple)
        if len(set(per_group)) == 1 and meta[col].nunique() == sizes.max():
            key = str(col)
            break
    if key is None:
        key = "position"
        m[key] = groups.groupby(groups, sort=False).cumcount().to_numpy() + 1
    m[by] = groups.to_numpy()
    order = list(dict.fromkeys(groups))
    labels = m.pivot(index=by, columns=key, values="label").loc[order]
    shares = m.pivot(index=by, columns=key, values="share").loc[order]
    rows = [tuple(r) for r in labels.itertuples(index=False)]
    usual, freq = Counter(rows).most_common(1)[0]
    dev: list[tuple[Any, Any, Any, Any]] = []
    if freq > 1:
        dev = [
            (g, c, a, b)
            for g, row in zip(order, rows, strict=True)
            if row != usual
            for c, a, b in zip(labels.columns, row, usual, strict=True)
            if a != b
        ]
    deviations = pd.DataFrame(dev, columns=[by, key, "label", "usual_label"])
    return LabelPatterns(by, key, labels, shares, usual, deviations)
