"""The plain tables a report is rendered from.

:class:`ReportData` is the contract between the evaluation layer (which
computes everything) and the renderers here (which only format). It holds
pandas DataFrames with fixed columns; the columns are checked when the object
is built, so a change of schema upstream fails loudly here instead of
rendering an empty or wrong table.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError

__all__ = [
    "DATASET_KEYS",
    "OPTIONAL_COLUMNS",
    "REQUIRED_COLUMNS",
    "FullFrame",
    "ReportData",
    "example_report_data",
]

#: Keys every ``ReportData.dataset`` mapping must have.
DATASET_KEYS: tuple[str, ...] = (
    "n_items",
    "n_annotators",
    "n_annotations",
    "labels",
    "ordered",
    "prior",
)

#: Columns each table of :class:`ReportData` must have (extra columns are kept).
REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    "agreement": ("coefficient", "value", "se", "ci_low", "ci_high", "n_items", "n_annotations"),
    "summary": (
        "model",
        "metric",
        "mean",
        "se",
        "ci_low",
        "ci_high",
        "n_items",
        "lower_is_better",
        "best",
    ),
    "differences": ("metric", "model_a", "model_b", "diff", "ci_low", "ci_high", "better"),
    "by_bin": ("bin", "model", "metric", "mean", "n_items"),
    "rankings": ("metric", "model", "mean", "rank", "tied"),
    "reversals": (
        "metric_1",
        "metric_2",
        "model_a",
        "model_b",
        "better_1",
        "better_2",
        "diff_1",
        "ci_low_1",
        "ci_high_1",
        "significant_1",
        "diff_2",
        "ci_low_2",
        "ci_high_2",
        "significant_2",
    ),
    "metric_agreement": (
        "metric_1",
        "metric_2",
        "share_reranked",
        "mean_abs_change",
        "sd_abs_change",
        "kendall_tau",
    ),
    "metrics_info": ("name", "lower_is_better", "kind", "description"),
}

#: Columns of the optional tables (None when the evaluation did not compute them).
OPTIONAL_COLUMNS: dict[str, tuple[str, ...]] = {
    "prior_sensitivity": ("prior", "metric", "model", "mean", "rank", "best", "significant"),
    "prior_fit": ("prior", "strength", "log_likelihood", "share_items_weak", "used"),
    "reversal_items": (
        "reversal",
        "metric_1",
        "metric_2",
        "better_1",
        "better_2",
        "item",
        "n_annotations",
        "series",
        "label",
        "value",
    ),
    "metric_audit": (
        "metric",
        "property",
        "title",
        "status",
        "counterexample",
        "classes",
        "n_trials",
        "seed",
    ),
}

_KINDS = frozenset({"pointwise", "expected", "debiased"})


def _check_table(name: str, table: object) -> None:
    if not isinstance(table, pd.DataFrame):
        msg = f"ReportData.{name} must be a pandas DataFrame; got {type(table).__name__}."
        raise TypeError(msg)
    required = REQUIRED_COLUMNS.get(name) or OPTIONAL_COLUMNS[name]
    missing = [col for col in required if col not in table.columns]
    if missing:
        msg = (
            f"ReportData.{name} is missing columns {missing}; it has {list(map(str, table.columns))} "
            f"and needs {list(required)}."
        )
        raise DataError(msg)


@dataclass(frozen=True)
class ReportData:
    """Everything an evaluation report shows, as plain tables.

    The evaluation layer builds it; :func:`~dissensus.report.render_html`,
    :func:`~dissensus.report.render_markdown` and
    :func:`~dissensus.report.plain_reading` only format it.

    Parameters
    ----------
    title : str
        Report title.
    dataset : Mapping
        ``n_items``, ``n_annotators`` (int or None when annotator ids are
        unknown), ``n_annotations``, ``labels`` (list, scale order),
        ``ordered`` (bool) and ``prior`` (str, the Dirichlet prior used by the
        expected metrics).
    annotations_per_item : array_like of int, shape (N,)
        Number of annotations of each item.
    agreement : DataFrame or None
        One row per agreement coefficient: ``coefficient, value, se, ci_low,
        ci_high, n_items, n_annotations``.
    summary : DataFrame
        One row per (model, metric): ``model, metric, mean, se, ci_low,
        ci_high, n_items, lower_is_better, best``.
    differences : DataFrame
        Paired differences ``diff = mean(model_a) - mean(model_b)`` per
        metric with ``ci_low, ci_high`` and ``better`` (the better model's
        name, or missing).
    by_bin : DataFrame
        Mean per (bin of annotations per item, model, metric), with
        ``n_items`` in the bin. ``bin`` is an ordered categorical (labels
        such as ``"2–3"``, ``"11+"``); a plain column keeps its order of
        first appearance.
    rankings : DataFrame
        ``metric, model, mean, rank, tied`` (rank 1 is best; ties share the
        lowest rank).
    reversals : DataFrame
        Pairs of models ordered differently by two metrics, with each
        metric's difference ``model_a - model_b``, its interval and whether
        the interval excludes zero (``significant_1``, ``significant_2``).
    metric_agreement : DataFrame
        Per pair of metrics: ``share_reranked`` (fraction of models whose
        rank changes), ``mean_abs_change``, ``sd_abs_change`` (rank
        positions) and ``kendall_tau``.
    metrics_info : DataFrame
        Per metric: ``name, lower_is_better, kind`` (``"pointwise"`` or
        ``"expected"``) and a one-line ``description``.
    prior_sensitivity : DataFrame or None
        The expected metrics' means under several priors: ``prior, metric,
        model, mean, rank, best, significant`` (the best model's lead over
        the runner-up, or another model's gap to the best, excludes zero).
    prior_fit : DataFrame or None
        Per prior: ``prior, strength`` (total pseudo-count),
        ``log_likelihood`` (Dirichlet-multinomial, natural log),
        ``share_items_weak`` (share of items with no more annotations than
        the prior's strength) and ``used`` (the evaluation's prior).
    reversal_items : DataFrame or None
        The items behind the strongest reversals, long format: ``reversal,
        metric_1, metric_2, better_1, better_2, item, n_annotations, series,
        label, value`` (``series``: ``"observed"``, ``"posterior mean"`` or
        a model name).
    metric_audit : DataFrame or None
        The property audit of the metrics used (:func:`dissensus.audit.audit`
        for the evaluation's number of classes), long format: ``metric,
        property, title, status, counterexample, classes, n_trials, seed``
        (``status``: ``"holds"``, ``"violated"`` or ``"not applicable"``;
        ``counterexample``: its description, empty when there is none).

    Raises
    ------
    TypeError
        If a table is not a DataFrame.
    DataError
        If a table lacks a required column, ``dataset`` lacks a key, a metric
        kind is unknown, or ``annotations_per_item`` holds negative or
        non-integer values.

    Examples
    --------
    >>> from dataclasses import replace
    >>> from dissensus.report._data import example_report_data
    >>> data = example_report_data()
    >>> data.models, data.metrics
    (['A', 'B'], ['CE', 'E[CE]'])
    >>> replace(data, summary=data.summary.drop(columns="ci_low"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dissensus._exceptions.DataError: ReportData.summary is missing columns ['ci_low']; it has ...
    """

    title: str
    dataset: Mapping[str, Any]
    annotations_per_item: npt.NDArray[np.int64]
    agreement: pd.DataFrame | None
    summary: pd.DataFrame
    differences: pd.DataFrame
    by_bin: pd.DataFrame
    rankings: pd.DataFrame
    reversals: pd.DataFrame
    metric_agreement: pd.DataFrame
    metrics_info: pd.DataFrame = field(repr=False)
    prior_sensitivity: pd.DataFrame | None = field(default=None, repr=False)
    prior_fit: pd.DataFrame | None = field(default=None, repr=False)
    reversal_items: pd.DataFrame | None = field(default=None, repr=False)
    metric_audit: pd.DataFrame | None = field(default=None, repr=False)
    annotator_reliability: pd.DataFrame | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        title: object = self.title
        dataset: object = self.dataset
        if not isinstance(title, str):
            msg = f"ReportData.title must be a str; got {type(title).__name__}."
            raise TypeError(msg)
        if not isinstance(dataset, Mapping):
            msg = f"ReportData.dataset must be a mapping; got {type(dataset).__name__}."
            raise TypeError(msg)
        missing_keys = [key for key in DATASET_KEYS if key not in self.dataset]
        if missing_keys:
            msg = (
                f"ReportData.dataset is missing keys {missing_keys}; it needs {list(DATASET_KEYS)}."
            )
            raise DataError(msg)
        for name in REQUIRED_COLUMNS:
            table = getattr(self, name)
            if name == "agreement" and table is None:
                continue
            _check_table(name, table)
        for name in OPTIONAL_COLUMNS:
            if getattr(self, name) is not None:
                _check_table(name, getattr(self, name))
        kinds = set(self.metrics_info["kind"].astype(str))
        if not kinds <= _KINDS:
            msg = (
                f"ReportData.metrics_info.kind must be 'pointwise', 'expected' or 'debiased'; "
                f"got {sorted(kinds - _KINDS)}."
            )
            raise DataError(msg)
        counts = np.asarray(self.annotations_per_item)
        if counts.ndim != 1:
            msg = f"ReportData.annotations_per_item must be 1-D; got shape {counts.shape}."
            raise DataError(msg)
        if counts.size and (
            not np.issubdtype(counts.dtype, np.number)
            or not np.all(np.isfinite(counts))
            or np.any(counts < 0)
            or np.any(counts != np.round(counts))
        ):
            msg = "ReportData.annotations_per_item must hold non-negative integers."
            raise DataError(msg)
        object.__setattr__(self, "annotations_per_item", counts.astype(np.int64))

    @property
    def models(self) -> list[str]:
        """Model names in the order of first appearance in ``summary``."""
        return [str(m) for m in pd.unique(self.summary["model"])]

    @property
    def metrics(self) -> list[str]:
        """Metric names: ``metrics_info`` order, then any others in ``summary``."""
        names = [str(m) for m in self.metrics_info["name"]]
        extra = [str(m) for m in pd.unique(self.summary["metric"]) if str(m) not in names]
        used = {str(m) for m in self.summary["metric"]}
        return [m for m in names if m in used] + extra

    def lower_is_better(self, metric: str) -> bool:
        """Whether a lower value of ``metric`` is better."""
        info = self.metrics_info[self.metrics_info["name"].astype(str) == metric]
        if len(info):
            return bool(info["lower_is_better"].iloc[0])
        rows = self.summary[self.summary["metric"].astype(str) == metric]
        return bool(rows["lower_is_better"].iloc[0]) if len(rows) else True

    def kind(self, metric: str) -> str | None:
        """``"pointwise"``, ``"expected"``, ``"debiased"``, or None when ``metric`` is not described."""
        info = self.metrics_info[self.metrics_info["name"].astype(str) == metric]
        return str(info["kind"].iloc[0]) if len(info) else None

    def bins(self) -> list[str]:
        """Bin labels in order (categorical order, else first appearance)."""
        column = self.by_bin["bin"]
        if isinstance(column.dtype, pd.CategoricalDtype):
            present = {str(b) for b in column.dropna()}
            return [str(b) for b in column.cat.categories if str(b) in present]
        return [str(b) for b in pd.unique(column.dropna())]


class FullFrame(pd.DataFrame):
    """A summary-sized DataFrame that prints whole: no ``...`` for rows or columns.

    Operations on it return plain DataFrames; only printing differs.

    Examples
    --------
    >>> wide = FullFrame({f"column_{i}": [0.5] for i in range(30)})
    >>> "..." in repr(wide), "..." in repr(pd.DataFrame(wide))
    (False, True)
    """

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    def __repr__(self) -> str:
        return self.to_string()

    def _repr_html_(self) -> str:
        return str(self.to_html(max_rows=None, max_cols=None, border=0))


# --- formatting shared by the HTML and Markdown renderers -------------------------------------

_MISSING = "–"


def format_number(value: Any, *, digits: int = 3) -> str:
    """Format a number for a table: fixed decimals, ∞ for infinity, a dash for missing values.

    Examples
    --------
    >>> format_number(0.47312), format_number(float("nan")), format_number(12345.6)
    ('0.473', '–', '12,346')
    >>> format_number(float("inf")), format_number(float("-inf"))
    ('∞', '−∞')
    >>> format_number(0.000787), format_number(0.0000123), format_number(-0.5)
    ('0.000787', '1.23e-05', '−0.500')
    """
    if value is None or isinstance(value, str):
        return _MISSING if value is None else value
    x = float(value)
    if np.isinf(x):
        # an infinite mean is a result (a zero prediction under cross-entropy), not a gap
        return "∞" if x > 0 else "−∞"
    if not np.isfinite(x):
        return _MISSING
    x += 0.0  # turns -0.0 into 0.0, which must not print as "−0.000"
    magnitude = abs(x)
    if magnitude >= 1000:
        text = f"{x:,.0f}"
    elif magnitude >= 100:
        text = f"{x:.1f}"
    elif 0 < magnitude < 10.0 ** (-digits):
        text = f"{x:.3g}"
    else:
        text = f"{x:.{digits}f}"
    return text.replace("-", "−") if text.startswith("-") else text


def format_interval(low: Any, high: Any) -> str:
    """``[low, high]`` with :func:`format_number`, or an empty string when both are missing."""
    if _is_missing(low) and _is_missing(high):
        return ""
    return f"[{format_number(low)}, {format_number(high)}]"


def format_count(value: Any) -> str:
    """An integer count with thousands separators, a dash when missing."""
    if _is_missing(value):
        return _MISSING
    return f"{int(value):,}"


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def direction_arrow(lower_is_better: bool) -> str:
    """``↓`` when lower is better, ``↑`` when higher is better."""
    return "↓" if lower_is_better else "↑"


def excludes_zero(low: Any, high: Any) -> bool:
    """Whether the interval ``[low, high]`` lies strictly on one side of zero."""
    if _is_missing(low) or _is_missing(high):
        return False
    return bool(float(low) > 0 or float(high) < 0)


# --- table views: the rows both renderers show -------------------------------------------------


def lookup(table: pd.DataFrame, first: str, second: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Rows keyed by two columns (as strings); the first row wins on duplicates."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for record in table.to_dict("records"):
        out.setdefault(
            (str(record[first]), str(record[second])), {str(k): v for k, v in record.items()}
        )
    return out


@dataclass(frozen=True)
class Cell:
    """One formatted table cell with the flags a renderer may style."""

    text: str
    best: bool = False
    flagged: bool = False


@dataclass(frozen=True)
class Table:
    """A formatted table: header, rows of cells, and row-level flags."""

    header: list[str]
    rows: list[list[Cell]]
    row_flags: list[bool] = field(default_factory=list)
    #: One letter per column: ``l`` text, ``r`` numbers, ``c`` short flags; default ``lrr…``.
    align: str = ""
    #: Rows left out to keep the report readable (the caller's tables have them all).
    omitted: int = 0

    def alignment(self) -> str:
        """The column alignment, defaulting to a text column followed by numbers."""
        return self.align or "l" + "r" * (len(self.header) - 1)


#: Up to this many models the summary has a column per model (as in the seed paper's
#: tables); with more it has a row per model, so that it stays narrow enough to print.
MAX_MODEL_COLUMNS = 5


def summary_table(data: ReportData) -> Table:
    """``mean [low, high]`` per metric and model, the best model per metric flagged.

    Metrics are rows and models columns for up to :data:`MAX_MODEL_COLUMNS`
    models; beyond that the table is transposed (a row per model).
    """
    models, metrics = data.models, data.metrics
    summary = lookup(data.summary, "metric", "model")

    def cell(metric: str, model: str) -> Cell:
        row = summary.get((metric, model))
        if row is None:
            return Cell(_MISSING)
        interval = format_interval(row["ci_low"], row["ci_high"])
        text = format_number(row["mean"]) + (f" {interval}" if interval else "")
        return Cell(text, best=bool(row["best"]))

    labels = [f"{m} {direction_arrow(data.lower_is_better(m))}" for m in metrics]
    if len(models) <= MAX_MODEL_COLUMNS:
        rows = [
            [Cell(label), *(cell(metric, model) for model in models)]
            for metric, label in zip(metrics, labels, strict=True)
        ]
        return Table(["Metric", *models], rows)
    rows = [[Cell(model), *(cell(metric, model) for metric in metrics)] for model in models]
    return Table(["Model", *labels], rows)


#: Longest differences / reversals table shown; both grow with the square of the number of models.
MAX_ROWS = 100


def differences_table(data: ReportData, *, max_rows: int = MAX_ROWS) -> Table:
    """Paired differences with intervals; rows whose interval excludes zero are flagged.

    At most ``max_rows`` rows, in the table's order; ``omitted`` counts the rest.
    """
    rows: list[list[Cell]] = []
    flags: list[bool] = []
    for rec in data.differences.head(max_rows).itertuples(index=False):
        metric = str(rec.metric)
        significant = excludes_zero(rec.ci_low, rec.ci_high)
        better = "" if _is_missing(rec.better) else str(rec.better)
        names_model = better in {str(rec.model_a), str(rec.model_b)}
        rows.append(
            [
                Cell(f"{metric} {direction_arrow(data.lower_is_better(metric))}"),
                Cell(f"{rec.model_a} − {rec.model_b}"),
                Cell(format_number(rec.diff)),
                Cell(format_interval(rec.ci_low, rec.ci_high)),
                Cell(better + (" (n.s.)" if names_model and not significant else "")),
            ]
        )
        flags.append(significant)
    return Table(
        ["Metric", "Difference", "Estimate", "Interval", "Better"],
        rows,
        flags,
        align="llrrl",
        omitted=max(len(data.differences) - max_rows, 0),
    )


def by_bin_table(data: ReportData, metric: str) -> Table:
    """One metric's mean per bin of annotations per item, models as columns."""
    models = data.models
    sub = data.by_bin[data.by_bin["metric"].astype(str) == metric]
    lower = data.lower_is_better(metric)
    rows: list[list[Cell]] = []
    for label in data.bins():
        in_bin = sub[sub["bin"].astype(str) == label]
        if in_bin.empty:
            continue
        means = {str(m): float(v) for m, v in zip(in_bin["model"], in_bin["mean"], strict=True)}
        finite = [v for v in means.values() if np.isfinite(v)]
        best = (min(finite) if lower else max(finite)) if finite else np.nan
        cells = [Cell(label), Cell(format_count(in_bin["n_items"].max()))]
        for model in models:
            value = means.get(model, np.nan)
            cells.append(Cell(format_number(value), best=bool(len(models) > 1 and value == best)))
        rows.append(cells)
    return Table(["Annotations", "Items", *models], rows)


def reversal_cells(data: ReportData) -> set[tuple[str, str]]:
    """The (model, metric) ranking cells involved in at least one reversal."""
    cells: set[tuple[str, str]] = set()
    for rec in data.reversals.itertuples(index=False):
        for model in (rec.model_a, rec.model_b):
            for metric in (rec.metric_1, rec.metric_2):
                cells.add((str(model), str(metric)))
    return cells


def rankings_table(data: ReportData) -> Table:
    """Models × metrics ranks (``=2`` marks a tie); cells in a reversal are flagged."""
    involved = reversal_cells(data)
    ranks = lookup(data.rankings, "model", "metric")
    ranked = {metric for _, metric in ranks}
    metrics = [m for m in data.metrics if m in ranked]
    rows: list[list[Cell]] = []
    flags: list[bool] = []
    for model in data.models:
        cells = [Cell(model)]
        for metric in metrics:
            row = ranks.get((model, metric))
            if row is None:
                cells.append(Cell(_MISSING))
                continue
            text = ("=" if bool(row["tied"]) else "") + format_count(row["rank"])
            cells.append(
                Cell(text, best=int(row["rank"]) == 1, flagged=(model, metric) in involved)
            )
        rows.append(cells)
        flags.append(any((model, metric) in involved for metric in metrics))
    arrows = [f"{m} {direction_arrow(data.lower_is_better(m))}" for m in metrics]
    return Table(["Model", *arrows], rows, flags)


def _significance(flag: Any) -> str:
    return "yes" if bool(flag) and not _is_missing(flag) else "no"


def _n_significant(reversals: pd.DataFrame) -> npt.NDArray[np.int64]:
    """Per reversal, under how many of its two metrics it is significant (0, 1 or 2)."""
    flags = [
        np.asarray(reversals[c].map(_significance).eq("yes"), dtype=np.int64)
        for c in ("significant_1", "significant_2")
    ]
    total: npt.NDArray[np.int64] = flags[0] + flags[1]
    return total


def significant_reversals(data: ReportData) -> int:
    """How many reversals are significant under both metrics."""
    return int(np.count_nonzero(_n_significant(data.reversals) == 2))


def reversals_table(data: ReportData, *, max_rows: int = MAX_ROWS) -> Table:
    """Each reversal: who wins under each metric, with differences and significance.

    Reversals significant under both metrics come first, then under one, then
    under neither (stable within each group); at most ``max_rows`` rows, and
    ``omitted`` counts the rest.
    """
    rev = data.reversals
    order = np.argsort(-_n_significant(rev), kind="stable")
    rows: list[list[Cell]] = []
    flags: list[bool] = []
    for rec in rev.iloc[order[:max_rows]].itertuples(index=False):
        both = (
            _significance(rec.significant_1) == "yes" and _significance(rec.significant_2) == "yes"
        )
        rows.append(
            [
                Cell(f"{rec.metric_1} vs {rec.metric_2}"),
                Cell(f"{rec.model_a} vs {rec.model_b}"),
                Cell(str(rec.better_1)),
                Cell(f"{format_number(rec.diff_1)} {format_interval(rec.ci_low_1, rec.ci_high_1)}"),
                Cell(_significance(rec.significant_1)),
                Cell(str(rec.better_2)),
                Cell(f"{format_number(rec.diff_2)} {format_interval(rec.ci_low_2, rec.ci_high_2)}"),
                Cell(_significance(rec.significant_2)),
            ]
        )
        flags.append(both)
    header = [
        "Metrics",
        "Models",
        "Better under 1st",
        "Difference (1st)",
        "Sig.",
        "Better under 2nd",
        "Difference (2nd)",
        "Sig.",
    ]
    return Table(
        header, rows, flags, align="lllrclrc", omitted=max(len(data.reversals) - max_rows, 0)
    )


def metric_agreement_table(data: ReportData) -> Table:
    """Seed 001 Table 2: share re-ranked, mean ± sd position change, Kendall's τ."""
    rows: list[list[Cell]] = []
    for rec in data.metric_agreement.itertuples(index=False):
        share_value: Any = rec.share_reranked
        share = _MISSING if _is_missing(share_value) else f"{100 * float(share_value):.0f}%"
        change = f"{format_number(rec.mean_abs_change, digits=1)} ± {format_number(rec.sd_abs_change, digits=1)}"
        rows.append(
            [
                Cell(f"{rec.metric_1} vs {rec.metric_2}"),
                Cell(share),
                Cell(change),
                Cell(format_number(rec.kendall_tau, digits=2)),
            ]
        )
    return Table(
        ["Metrics compared", "Models re-ranked", "Mean position change ± sd", "Kendall's τ"], rows
    )


def agreement_table(data: ReportData) -> Table:
    """Agreement coefficients with intervals."""
    rows: list[list[Cell]] = []
    if data.agreement is not None:
        for rec in data.agreement.itertuples(index=False):
            rows.append(
                [
                    Cell(str(rec.coefficient)),
                    Cell(format_number(rec.value)),
                    Cell(format_interval(rec.ci_low, rec.ci_high)),
                    Cell(format_number(rec.se)),
                    Cell(format_count(rec.n_items)),
                    Cell(format_count(rec.n_annotations)),
                ]
            )
    return Table(["Coefficient", "Value", "Interval", "SE", "Items", "Annotations"], rows)


_TARGET_WORDS = {
    "dawid_skene": "Dawid–Skene posterior (annotators weighted by their fitted confusion)",
    "ordinal_dawid_skene": "ordinal Dawid–Skene posterior (annotator bias and noise)",
    "mace": "MACE posterior (annotators weighted by their competence)",
    "user targets": "the targets given to evaluate",
}


def dataset_facts(data: ReportData) -> list[tuple[str, str]]:
    """The dataset at a glance, as (label, value) pairs."""
    ds = data.dataset
    counts = data.annotations_per_item
    labels = ", ".join(str(label) for label in ds["labels"])
    scale = "ordinal" if bool(ds["ordered"]) else "nominal"
    facts = [
        ("Items", format_count(ds["n_items"])),
        (
            "Annotators",
            "unknown" if _is_missing(ds["n_annotators"]) else format_count(ds["n_annotators"]),
        ),
        ("Annotations", format_count(ds["n_annotations"])),
        ("Labels", f"{labels} ({scale})"),
        ("Prior", str(ds["prior"])),
    ]
    if str(ds.get("targets", "empirical")) != "empirical":
        facts.append(
            ("Pointwise targets", _TARGET_WORDS.get(str(ds["targets"]), str(ds["targets"])))
        )
    if counts.size:
        facts.append(
            (
                "Annotations per item",
                f"median {float(np.median(counts)):g}, range {counts.min():,}–{counts.max():,}",
            )
        )
    return facts


def count_bins(counts: npt.NDArray[np.int64], *, max_bars: int = 15) -> list[tuple[str, int]]:
    """Items per number of annotations: exact counts, or widening bins when there are many.

    Examples
    --------
    >>> count_bins(np.array([2, 2, 3, 5]))
    [('2', 2), ('3', 1), ('5', 1)]
    >>> count_bins(np.arange(1, 41), max_bars=5)
    [('1', 1), ('2', 1), ('3', 1), ('4', 1), ('5', 1), ('6–10', 5), ('11–20', 10), ('21–50', 20)]
    """
    values, freq = np.unique(counts, return_counts=True)
    if values.size <= max_bars:
        return [(str(int(v)), int(f)) for v, f in zip(values, freq, strict=True)]
    # 1, 2, ..., 5 exactly, then 6–10, 11–20, 21–50, 51–100, ... (a 1-2-5 sequence)
    edges = [0, 1, 2, 3, 4, 5, 6]
    decade = 10
    while edges[-1] <= counts.max():
        edges.extend(m * decade + 1 for m in (1, 2, 5))
        decade *= 10
    bins: list[tuple[str, int]] = []
    for low, high in itertools.pairwise(edges):
        n_in = int(np.count_nonzero((counts >= low) & (counts < high)))
        if n_in == 0 and not bins:
            continue
        label = str(low) if high - low == 1 else f"{low}–{high - 1}"
        bins.append((label, n_in))
    while bins and bins[-1][1] == 0:
        bins.pop()
    return bins


#: Below this many items a bootstrap interval is rough; the report says so.
MIN_ITEMS_FOR_INTERVAL = 30

FAMILY_LABELS = {"pointwise": "Empirical", "expected": "Expected"}


def has_infinite(data: ReportData) -> bool:
    """Whether any mean in the summary or by-bin tables is infinite (shown as ∞)."""
    values = np.concatenate(
        [data.summary["mean"].to_numpy(dtype=float), data.by_bin["mean"].to_numpy(dtype=float)]
    )
    return bool(np.isinf(values).any())


def difference(data: ReportData, metric: str, a: str, b: str) -> tuple[float, Any, Any] | None:
    """``mean(a) - mean(b)`` under ``metric`` with its interval, from either orientation."""
    diffs = data.differences
    metric_rows = diffs["metric"].astype(str) == metric
    model_a, model_b = diffs["model_a"].astype(str), diffs["model_b"].astype(str)
    same = diffs[metric_rows & (model_a == a) & (model_b == b)]
    if len(same):
        row = same.iloc[0]
        return float(row["diff"]), row["ci_low"], row["ci_high"]
    flipped = diffs[metric_rows & (model_a == b) & (model_b == a)]
    if len(flipped):
        row = flipped.iloc[0]
        return -float(row["diff"]), -row["ci_high"], -row["ci_low"]
    return None


def ordered_models(data: ReportData, metric: str) -> list[str]:
    """Models from best to worst under ``metric`` (finite means only)."""
    rows = data.summary[data.summary["metric"].astype(str) == metric]
    rows = rows[~np.isnan(rows["mean"].astype(float))]
    rows = rows.sort_values("mean", ascending=data.lower_is_better(metric), kind="stable")
    return [str(m) for m in rows["model"]]


def lead_is_significant(data: ReportData, metric: str) -> bool | None:
    """Whether the best model's lead over the runner-up excludes zero (None: no runner-up)."""
    order = ordered_models(data, metric)
    if len(order) < 2:
        return None
    diff = difference(data, metric, order[0], order[1])
    return None if diff is None else excludes_zero(diff[1], diff[2])


def family_metrics(data: ReportData) -> dict[str, list[str]]:
    """Metric names by kind (``"pointwise"``, ``"expected"``), in report order."""
    out: dict[str, list[str]] = {}
    for metric in data.metrics:
        out.setdefault(data.kind(metric) or "pointwise", []).append(metric)
    return out


def _winners(wins: dict[str, int]) -> list[str]:
    top = max(wins.values(), default=0)
    return [m for m, w in wins.items() if w == top and top > 0]


def family_best(data: ReportData, metrics: list[str]) -> tuple[list[str], dict[str, int]]:
    """The model(s) best under most of ``metrics``, and each model's number of wins."""
    wins = dict.fromkeys(data.models, 0)
    for metric in metrics:
        order = ordered_models(data, metric)
        if order:
            wins[order[0]] = wins.get(order[0], 0) + 1
    return _winners(wins), wins


def bin_winners(data: ReportData, metrics: list[str]) -> list[tuple[str, list[str], int]]:
    """Per bin: (label, model(s) best under most of ``metrics`` there, items in the bin)."""
    out = []
    table = data.by_bin
    for label in data.bins():
        in_bin = table[table["bin"].astype(str) == label]
        wins = dict.fromkeys(data.models, 0)
        for metric in metrics:
            rows = in_bin[in_bin["metric"].astype(str) == metric]
            rows = rows[~np.isnan(rows["mean"].astype(float))]
            if rows.empty:
                continue
            means = rows["mean"].to_numpy(dtype=float)
            pick = int(np.argmin(means) if data.lower_is_better(metric) else np.argmax(means))
            model = str(rows["model"].iloc[pick])
            wins[model] = wins.get(model, 0) + 1
        n_items = int(in_bin["n_items"].max()) if len(in_bin) else 0
        out.append((label, _winners(wins), n_items))
    return out


def verdict_table(data: ReportData) -> Table:
    """The first-screen verdict: best model per family of metrics, its significance, by bin."""
    rows: list[list[Cell]] = []
    flags: list[bool] = []
    for kind, metrics in family_metrics(data).items():
        winners, wins = family_best(data, metrics)
        if not winners:
            continue
        won = [m for m in metrics if ordered_models(data, m)[:1] in ([w] for w in winners)]
        sig = [m for m in won if lead_is_significant(data, m)]
        per_bin = bin_winners(data, metrics)
        changes = [(lab, w, n) for lab, w, n in per_bin if w and w != winners]
        if not per_bin or len(per_bin) == 1:
            by_bin = "one bin only"
        elif not changes:
            by_bin = "the same in every bin"
        else:
            by_bin = "; ".join(f"{lab}: {' = '.join(w)}" for lab, w, _ in changes)
        rows.append(
            [
                Cell(f"{FAMILY_LABELS.get(kind, kind)} ({len(metrics)})"),
                Cell(" = ".join(winners), best=True),
                Cell(f"{wins[winners[0]]} of {len(metrics)}"),
                Cell(f"{len(sig)} of {len(won)}" if won else _MISSING),
                Cell(by_bin),
            ]
        )
        flags.append(bool(won) and len(sig) == len(won))
    return Table(
        [
            "Metrics",
            "Best model",
            "Best under",
            "Lead significant",
            "Best model by annotations per item",
        ],
        rows,
        flags,
        align="llrrl",
    )


def used_prior(data: ReportData) -> dict[str, Any] | None:
    """The prior_fit row of the evaluation's prior, or None."""
    if data.prior_fit is None or data.prior_fit.empty:
        return None
    used = data.prior_fit[data.prior_fit["used"].astype(bool)]
    row = used.iloc[0] if len(used) else data.prior_fit.iloc[0]
    return {str(k): v for k, v in row.items()}


def supported_prior(data: ReportData) -> dict[str, Any] | None:
    """The prior_fit row with the highest marginal log-likelihood, or None."""
    if data.prior_fit is None or data.prior_fit.empty:
        return None
    fit = data.prior_fit[~np.isnan(data.prior_fit["log_likelihood"].astype(float))]
    if fit.empty:
        return None
    position = int(np.argmax(fit["log_likelihood"].to_numpy(dtype=float)))
    return {str(k): v for k, v in fit.iloc[position].items()}


def prior_winners(data: ReportData) -> dict[str, list[str]]:
    """Per prior: the model(s) best under most expected metrics (empty without the table)."""
    out: dict[str, list[str]] = {}
    table = data.prior_sensitivity
    if table is None or table.empty:
        return out
    for prior in pd.unique(table["prior"].astype(str)):
        best = table[(table["prior"].astype(str) == prior) & table["best"].astype(bool)]
        wins = dict.fromkeys(data.models, 0)
        for model in best["model"].astype(str):
            wins[model] = wins.get(model, 0) + 1
        out[str(prior)] = _winners(wins)
    return out


def prior_table(data: ReportData) -> Table:
    """Expected metrics (rows) × priors (columns): the best model under each prior.

    A cell reads ``model`` when its lead over the runner-up is significant
    and ``model (n.s.)`` otherwise; the prior row of the evaluation is marked
    "used" and the one the data support (highest marginal likelihood) "★".
    """
    table = data.prior_sensitivity
    if table is None or table.empty:
        return Table([], [])
    priors = [str(p) for p in pd.unique(table["prior"].astype(str))]
    fit = {} if data.prior_fit is None else lookup(data.prior_fit.assign(_k=""), "prior", "_k")
    supported = supported_prior(data)
    header = ["Metric"]
    for prior in priors:
        row = fit.get((prior, ""))
        marks = []
        if row is not None and bool(row["used"]):
            marks.append("used")
        if supported is not None and str(supported["prior"]) == prior:
            marks.append("★ best fit")
        header.append(prior + (f" ({', '.join(marks)})" if marks else ""))
    rows: list[list[Cell]] = []
    for metric in pd.unique(table["metric"].astype(str)):
        cells = [Cell(f"{metric} {direction_arrow(data.lower_is_better(str(metric)))}")]
        for prior in priors:
            best = table[
                (table["prior"].astype(str) == prior)
                & (table["metric"].astype(str) == metric)
                & table["best"].astype(bool)
            ]
            if best.empty:
                cells.append(Cell(_MISSING))
                continue
            names = " = ".join(str(m) for m in best["model"])
            sig = bool(best["significant"].astype(bool).all())
            cells.append(Cell(names + ("" if sig else " (n.s.)"), best=sig))
        rows.append(cells)
    return Table(header, rows, align="l" * (len(priors) + 1))


def prior_fit_table(data: ReportData) -> Table:
    """Per prior: strength, share of items it outweighs, marginal log-likelihood."""
    if data.prior_fit is None or data.prior_fit.empty:
        return Table([], [])
    supported = supported_prior(data)
    rows = []
    for rec in data.prior_fit.to_dict("records"):
        share = rec["share_items_weak"]
        rows.append(
            [
                Cell(str(rec["prior"]) + (" (used)" if bool(rec["used"]) else "")),
                Cell(format_number(rec["strength"], digits=2)),
                Cell(_MISSING if _is_missing(share) else f"{100 * float(share):.0f}%"),
                Cell(
                    format_number(rec["log_likelihood"], digits=1),
                    best=supported is not None and str(supported["prior"]) == str(rec["prior"]),
                ),
            ]
        )
    return Table(
        ["Prior", "Strength (pseudo-counts)", "Items it outweighs", "Log-likelihood"], rows
    )


_AUDIT_SYMBOL = {"holds": "✓", "violated": "✗", "not applicable": "–"}


def audit_settings(data: ReportData) -> dict[str, int] | None:
    """``classes, n_trials, seed`` of the metric audit, or None without one."""
    table = data.metric_audit
    if table is None or table.empty:
        return None
    first = table.iloc[0]
    return {key: int(first[key]) for key in ("classes", "n_trials", "seed")}


def _property_label(key: str, title: str) -> str:
    return title if title.startswith(key) else f"{key} {title}"


def audit_properties(data: ReportData) -> list[str]:
    """``"P3 triangle inequality"``, ... for each audited property, in table order."""
    table = data.metric_audit
    if table is None or table.empty:
        return []
    pairs = table[["property", "title"]].astype(str).drop_duplicates("property")
    return [_property_label(str(k), str(t)) for k, t in pairs.itertuples(index=False)]


def audit_table(data: ReportData) -> Table:
    """Metrics (rows) × properties (columns): ✓ holds, ✗ violated, – not applicable."""
    table = data.metric_audit
    if table is None or table.empty:
        return Table([], [])
    keys = [str(k) for k in pd.unique(table["property"].astype(str))]
    status = lookup(table, "metric", "property")
    rows: list[list[Cell]] = []
    for metric in pd.unique(table["metric"].astype(str)):
        cells = [Cell(str(metric))]
        for key in keys:
            row = status.get((str(metric), key))
            cells.append(
                Cell(_MISSING if row is None else _AUDIT_SYMBOL.get(str(row["status"]), _MISSING))
            )
        rows.append(cells)
    return Table(["Metric", *keys], rows, align="l" + "c" * len(keys))


def audit_counterexample_table(data: ReportData) -> Table:
    """One row per violation: metric, property and the simplest counterexample found."""
    table = data.metric_audit
    if table is None or table.empty:
        return Table([], [])
    violated = table[table["status"].astype(str) == "violated"]
    rows = [
        [
            Cell(str(rec["metric"])),
            Cell(_property_label(str(rec["property"]), str(rec["title"]))),
            Cell(str(rec["counterexample"])),
        ]
        for rec in violated.to_dict("records")
    ]
    return Table(["Metric", "Property", "Counterexample"], rows, align="lll")


def example_report_data() -> ReportData:
    """A tiny, hand-written report (two models, two metrics, one reversal) for examples.

    Model A wins the pointwise CE, model B the expected E[CE]; the reversal is
    significant under CE only and sits in the items with 2–3 annotations.

    Examples
    --------
    >>> data = example_report_data()
    >>> data.models, data.metrics, data.bins()
    (['A', 'B'], ['CE', 'E[CE]'], ['2–3', '4+'])
    """
    counts = np.repeat([2, 3, 4, 5, 6], [40, 40, 10, 5, 5])
    bins = pd.Categorical(["2–3"] * 4 + ["4+"] * 4, categories=["2–3", "4+"], ordered=True)
    return ReportData(
        title="Example report",
        dataset={
            "n_items": 100,
            "n_annotators": None,
            "n_annotations": int(counts.sum()),
            "labels": [1, 2, 3, 4, 5],
            "ordered": True,
            "prior": "uniform",
        },
        annotations_per_item=counts,
        agreement=None,
        summary=pd.DataFrame(
            {
                "model": ["A", "B", "A", "B"],
                "metric": ["CE", "CE", "E[CE]", "E[CE]"],
                "mean": [0.40, 0.45, 1.23, 1.20],
                "se": [0.015, 0.015, 0.02, 0.02],
                "ci_low": [0.37, 0.42, 1.19, 1.16],
                "ci_high": [0.43, 0.48, 1.27, 1.24],
                "n_items": [100] * 4,
                "lower_is_better": [True] * 4,
                "best": [True, False, False, True],
            }
        ),
        differences=pd.DataFrame(
            {
                "metric": ["CE", "E[CE]"],
                "model_a": ["A", "A"],
                "model_b": ["B", "B"],
                "diff": [-0.05, 0.03],
                "ci_low": [-0.08, -0.01],
                "ci_high": [-0.02, 0.07],
                "better": ["A", None],
            }
        ),
        by_bin=pd.DataFrame(
            {
                "bin": bins,
                "model": ["A", "A", "B", "B"] * 2,
                "metric": ["CE", "E[CE]"] * 4,
                "mean": [0.395, 1.30, 0.45, 1.25, 0.42, 0.95, 0.45, 1.00],
                "n_items": [80] * 4 + [20] * 4,
            }
        ),
        rankings=pd.DataFrame(
            {
                "metric": ["CE", "CE", "E[CE]", "E[CE]"],
                "model": ["A", "B", "A", "B"],
                "mean": [0.40, 0.45, 1.23, 1.20],
                "rank": [1, 2, 2, 1],
                "tied": [False] * 4,
            }
        ),
        reversals=pd.DataFrame(
            {
                "metric_1": ["CE"],
                "metric_2": ["E[CE]"],
                "model_a": ["A"],
                "model_b": ["B"],
                "better_1": ["A"],
                "better_2": ["B"],
                "diff_1": [-0.05],
                "ci_low_1": [-0.08],
                "ci_high_1": [-0.02],
                "significant_1": [True],
                "diff_2": [0.03],
                "ci_low_2": [-0.01],
                "ci_high_2": [0.07],
                "significant_2": [False],
            }
        ),
        metric_agreement=pd.DataFrame(
            {
                "metric_1": ["CE"],
                "metric_2": ["E[CE]"],
                "share_reranked": [1.0],
                "mean_abs_change": [1.0],
                "sd_abs_change": [0.0],
                "kendall_tau": [-1.0],
            }
        ),
        metrics_info=pd.DataFrame(
            {
                "name": ["CE", "E[CE]"],
                "lower_is_better": [True, True],
                "kind": ["pointwise", "expected"],
                "description": [
                    "Cross-entropy against the observed label proportions.",
                    "Cross-entropy expected under each item's Dirichlet posterior.",
                ],
            }
        ),
    )
