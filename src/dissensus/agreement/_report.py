"""Tidy agreement tables: every count-based coefficient, overall and per group."""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dissensus._deprecation import renamed_parameters
from dissensus._exceptions import DegenerateAgreementWarning
from dissensus._validation import SeedLike, check_option
from dissensus.agreement._alpha import LEVELS, Level, alpha_statistic, krippendorff_alpha
from dissensus.agreement._common import (
    BootStatistic,
    CiMethod,
    bootstrap_cis,
    check_ci,
    patterns,
    prepare_counts,
)
from dissensus.agreement._multirater import (
    brennan_prediger,
    count_core,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    share_unanimous,
    unanimous_core,
)
from dissensus.agreement._result import AgreementResult
from dissensus.data import LabelCounts, Scale, as_label_counts

__all__ = ["COLUMNS", "LabelPatterns", "label_patterns", "majority_labels", "report"]

#: Columns of :func:`report` (after the group column, when ``by`` is given).
COLUMNS = (
    "coefficient", "value", "se", "ci_low", "ci_high",
    "n_items", "n_items_excluded", "n_annotations", "note",
)  # fmt: skip


Coefficient = Callable[..., AgreementResult]
#: ``(scale, value, n_patterns) -> BootStatistic``: a coefficient's bootstrap core.
StatBuilder = Callable[[Scale, float, int], BootStatistic]


def _count(weights: Any, chance: Any, name: str) -> StatBuilder:
    return lambda sc, value, _: BootStatistic(count_core(weights, chance, sc, name), value)


def _coefficients(level: str, ordered: bool) -> list[tuple[str, Coefficient, StatBuilder]]:
    alpha_name = "krippendorff_alpha" if level == "nominal" else f"krippendorff_alpha_{level}"
    out: list[tuple[str, Coefficient, StatBuilder]] = [
        ("share_unanimous", share_unanimous, lambda _, v, __: BootStatistic(unanimous_core, v)),
        ("fleiss_kappa", fleiss_kappa, _count(None, "fleiss", "fleiss_kappa")),
        (
            alpha_name,
            lambda d, **kw: krippendorff_alpha(d, level=level, **kw),  # type: ignore[arg-type]
            lambda sc, v, U: alpha_statistic(sc, level, v, U),
        ),
        ("gwet_ac1", gwet_ac1, _count(None, "gwet", "gwet_ac1")),
        ("brennan_prediger", brennan_prediger, _count(None, "uniform", "brennan_prediger")),
    ]
    if level != "nominal" or ordered:
        out.insert(
            4,
            (
                "gwet_ac2_quadratic",
                lambda d, **kw: gwet_ac2(d, weights="quadratic", **kw),
                _count("quadratic", "gwet", "gwet_ac2"),
            ),
        )
    return out


def _rows(
    counts: LabelCounts,
    coefs: list[tuple[str, Coefficient, StatBuilder]],
    kw: dict[str, Any],
    level: float | None,
) -> tuple[list[dict[str, Any]], list[str]]:
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DegenerateAgreementWarning)
        values: list[float] = []
        for name, fn, _ in coefs:
            r = fn(counts, **kw)
            values.append(r.statistic)
            rows.append(
                {
                    "coefficient": name,
                    "value": r.statistic,
                    "se": r.se,
                    "ci_low": math.nan,
                    "ci_high": math.nan,
                    "n_items": r.n_items,
                    "n_items_excluded": r.n_items_excluded,
                    "n_annotations": r.n_annotations,
                    "note": r.note,
                }
            )
            if name == "fleiss_kappa":
                pa, pe = r.parts["observed_agreement"], r.parts["chance_agreement"]
                for part, value in (("observed_agreement", pa), ("chance_agreement", pe)):
                    rows.append(
                        {
                            **rows[-1],
                            "coefficient": part,
                            "value": value,
                            "se": math.nan,
                            "note": "",
                        }
                    )
        if level is not None:
            _intervals(counts, coefs, values, rows, level=level, kw=kw)
    notes.extend(
        str(w.message) for w in caught if issubclass(w.category, DegenerateAgreementWarning)
    )
    return rows, notes


def _intervals(
    counts: LabelCounts,
    coefs: list[tuple[str, Coefficient, StatBuilder]],
    values: list[float],
    rows: list[dict[str, Any]],
    *,
    level: float,
    kw: dict[str, Any],
) -> None:
    """Fill every coefficient's interval from ONE set of resample weights.

    Every coefficient uses the same items (at least two ratings) and so the
    same patterns; drawing the weights once makes the intervals paired and
    costs one weight draw instead of one per coefficient. With an integer
    seed each interval equals the coefficient's own (``fleiss_kappa(...,
    confidence_level=..., seed=...)``), which draws the same weights.
    """
    with warnings.catch_warnings():
        # prepare_counts repeats the exclusion warning the coefficients gave
        warnings.simplefilter("ignore", DegenerateAgreementWarning)
        inp = prepare_counts(counts, "report")
    if inp.N == 0:
        return
    patt, mult, _ = patterns(inp.X)
    stats = [
        build(inp.scale, value, patt.shape[0])
        for (_, _, build), value in zip(coefs, values, strict=True)
    ]
    cis = bootstrap_cis(
        stats,
        patt.astype(np.float64),
        mult,
        level=level,
        n_resamples=kw["n_resamples"],
        seed=kw["seed"],
        method=kw["ci_method"],
    )
    by_name = {name: iv for (name, _, _), iv in zip(coefs, cis, strict=True)}
    for row in rows:
        interval = by_name.get(row["coefficient"])
        if interval is not None:
            row["ci_low"], row["ci_high"] = interval.low, interval.high


@renamed_parameters(n_boot="n_resamples", ci="confidence_level", data="annotations")
def report(
    annotations: Any,
    *,
    level: Level = "nominal",
    by: str | None = None,
    confidence_level: float | None = None,
    n_resamples: int = 1000,
    seed: SeedLike = 0,
    ci_method: CiMethod = "percentile",
) -> pd.DataFrame:
    """Every count-based agreement coefficient in one tidy table.

    Parameters
    ----------
    annotations : Annotations, LabelCounts or array_like of shape (N, K)
        Label counts per item; with ``by``, an item-level column to group on.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Level of Krippendorff's alpha; for anything but nominal (or an
        ordered scale) Gwet's AC2 with quadratic weights is added.
    by : str, optional
        Item-level column (``data.meta``) such as a year or a subset: one
        block of rows per group, then the rows over all items
        (group ``"all"``).
    confidence_level : float, optional
        Coverage of bootstrap intervals over items (per group). One set of
        resamples per group serves every coefficient, so the intervals are
        paired; with an integer ``seed`` each equals the coefficient's own
        interval (e.g. ``fleiss_kappa(annotations, confidence_level=0.95, seed=seed).confidence_interval``).
    n_resamples, seed, ci_method
        Bootstrap options, as in :func:`fleiss_kappa`.

    Returns
    -------
    pandas.DataFrame
        One row per coefficient (and group): ``coefficient``, ``value``,
        ``se``, ``ci_low``, ``ci_high``, ``n_items``, ``n_items_excluded``,
        ``n_annotations``, ``note`` (why a value is NaN), preceded by the
        ``by`` column when grouping. Observed and chance agreement (Fleiss'
        ``P_a`` and ``P_e``) have rows of their own.

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
    confidence_level = check_ci("report", confidence_level, ci_method, n_resamples)
    counts = as_label_counts(annotations)
    coefs = _coefficients(level, counts.scale.ordered)
    # point estimates and analytic SEs per coefficient; intervals all at once
    kw: dict[str, Any] = {
        "confidence_level": None,
        "n_resamples": n_resamples,
        "seed": seed,
        "ci_method": ci_method,
    }
    blocks: list[pd.DataFrame] = []
    notes: list[str] = []
    if by is not None:
        groups = counts.groups(by)
        codes, uniques = pd.factorize(groups, sort=True)
        for g, label in enumerate(uniques):
            rows, n = _rows(counts.take(codes == g), coefs, kw, confidence_level)
            notes.extend(f"{by}={label}: {m}" for m in n)
            blocks.append(pd.DataFrame(rows).assign(**{by: label}))
    rows, n = _rows(counts, coefs, kw, confidence_level)
    notes.extend(n)
    overall = pd.DataFrame(rows)
    if by is not None:
        overall[by] = "all"
        blocks.append(overall)
        out = pd.concat(blocks, ignore_index=True)
        out = out[[by, *COLUMNS]]
    else:
        out = overall[list(COLUMNS)]
    if notes:
        shown = "; ".join(notes[:3]) + (f"; … ({len(notes) - 3} more)" if len(notes) > 3 else "")
        warnings.warn(f"report: {shown}", DegenerateAgreementWarning, stacklevel=2)
    return out


@renamed_parameters(data="annotations")
def majority_labels(annotations: Any, *, columns: Sequence[str] | None = None) -> pd.DataFrame:
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


def label_patterns(annotations: Any, *, by: str) -> LabelPatterns:
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
