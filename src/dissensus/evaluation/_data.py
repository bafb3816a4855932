"""The plain tables an evaluation report is built from: :class:`ReportData`.

:class:`ReportData` is the contract between the statistics
(:class:`~dissensus.evaluation.Evaluation` computes every table) and the
report (which only renders them). It holds DataFrames with fixed columns,
checked when the object is built, so that a change of schema upstream fails
loudly here instead of rendering an empty or wrong table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError
from dissensus.evaluation._reading import plain_reading
from dissensus.evaluation._report import build_document
from dissensus.evaluation._verdict import ANSWER_COLUMNS, family_table
from dissensus.report import Document

#: Keys every ``ReportData.dataset`` mapping must have.
DATASET_KEYS = ("n_items", "n_annotators", "n_annotations", "labels", "ordered", "prior")
_DIFF = "diff_{0} ci_low_{0} ci_high_{0} significant_{0}"
#: Columns each table of :class:`ReportData` must have (extra columns are kept).
REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    "agreement": ("coefficient", "value", "standard_error", "ci_low", "ci_high", "n_items", "n_annotations"),
    "summary": ("model", "metric", "mean", "standard_error", "ci_low", "ci_high", "n_items", "lower_is_better", "best"),
    "differences": ("metric", "model_a", "model_b", "diff", "ci_low", "ci_high", "better"),
    "by_bin": ("bin", "model", "metric", "mean", "n_items"),
    "rankings": ("metric", "model", "mean", "rank", "tied"),
    "reversals": ("metric_1", "metric_2", "model_a", "model_b", "better_1", "better_2", *_DIFF.format(1).split(), *_DIFF.format(2).split()),
    "metric_agreement": ("metric_1", "metric_2", "share_reranked", "mean_abs_change", "sd_abs_change", "kendall_tau"),
    "metrics_info": ("name", "lower_is_better", "kind", "description"),
}  # fmt: skip
#: Columns of the optional tables (None when the evaluation did not compute them).
OPTIONAL_COLUMNS: dict[str, tuple[str, ...]] = {
    "prior_sensitivity": ("prior", "metric", "model", "mean", "rank", "best", "significant"),
    "prior_fit": ("prior", "strength", "log_likelihood", "share_items_weak", "used"),
    "reversal_items": ("reversal", "metric_1", "metric_2", "better_1", "better_2", "item", "n_annotations", "series", "label", "value"),
    "metric_audit": ("metric", "property", "title", "status", "counterexample", "classes", "n_trials", "seed"),
    "answers": ANSWER_COLUMNS,
}  # fmt: skip
_KINDS = frozenset({"pointwise", "expected", "debiased"})


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise DataError(message)


@dataclass(frozen=True)
class ReportData:
    """Everything an evaluation report shows, as plain tables.

    :meth:`Evaluation.report_data` builds it; :attr:`verdict` and
    :meth:`reading` read it, :meth:`document` lays it out for
    :func:`dissensus.report.to_html` and :func:`~dissensus.report.to_markdown`.
    ``dataset`` has the keys :data:`DATASET_KEYS` (``n_annotators`` None when
    annotator ids are unknown, ``labels`` in scale order, ``prior`` the
    expected metrics' Dirichlet prior) and optionally ``targets``;
    ``annotations_per_item`` is an (N,) integer array; every table is the
    :class:`~dissensus.evaluation.Evaluation` table of its name
    (``agreement``: :func:`dissensus.agreement.report`; ``metrics_info``:
    ``name, lower_is_better, kind, description``; ``annotator_reliability``:
    the annotator model's, from ``targets=``), with at least the columns of
    :data:`REQUIRED_COLUMNS` (:data:`OPTIONAL_COLUMNS` for those that may be
    None). TypeError when a table is not a DataFrame; DataError when a column
    or dataset key is missing, a metric kind unknown, or
    ``annotations_per_item`` not non-negative integers.
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
    #: the verdict, one answer per metric (:meth:`Evaluation.verdict`)
    answers: pd.DataFrame | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        for name, kind, what in (("title", str, "a str"), ("dataset", Mapping, "a mapping")):
            if not isinstance(value := getattr(self, name), kind):
                msg = f"ReportData.{name} must be {what}; got {type(value).__name__}."
                raise TypeError(msg)
        missing = [key for key in DATASET_KEYS if key not in self.dataset]
        if missing:
            msg = f"ReportData.dataset is missing keys {missing}; it needs {list(DATASET_KEYS)}."
            raise DataError(msg)
        for name, required in (REQUIRED_COLUMNS | OPTIONAL_COLUMNS).items():
            table: object = getattr(self, name)
            if table is None and (name in OPTIONAL_COLUMNS or name == "agreement"):
                continue
            if not isinstance(table, pd.DataFrame):
                msg = f"ReportData.{name} must be a pandas DataFrame; got {type(table).__name__}."
                raise TypeError(msg)
            missing = [col for col in required if col not in table.columns]
            if missing:
                msg = f"ReportData.{name} is missing columns {missing}; it has {list(map(str, table.columns))} and needs {list(required)}."
                raise DataError(msg)
        kinds = set(self.metrics_info["kind"].astype(str)) - _KINDS
        if kinds:
            msg = f"ReportData.metrics_info.kind must be 'pointwise', 'expected' or 'debiased'; got {sorted(kinds)}."
            raise DataError(msg)
        counts = np.asarray(self.annotations_per_item)
        if counts.ndim != 1:
            msg = f"ReportData.annotations_per_item must be 1-D; got shape {counts.shape}."
            raise DataError(msg)
        _check(
            not counts.size
            or (np.issubdtype(counts.dtype, np.number) and bool(np.all(np.isfinite(counts)))
                and not np.any(counts < 0) and bool(np.all(counts == np.round(counts)))),
            "ReportData.annotations_per_item must hold non-negative integers.",
        )  # fmt: skip
        object.__setattr__(self, "annotations_per_item", counts.astype(np.int64))

    @property
    def models(self) -> list[str]:
        """Model names in the order of first appearance in ``summary``."""
        return [str(m) for m in pd.unique(self.summary["model"])]

    @property
    def metrics(self) -> list[str]:
        """Metric names: ``metrics_info`` order, then any others in ``summary``."""
        names = [str(m) for m in self.metrics_info["name"]]
        used = [str(m) for m in pd.unique(self.summary["metric"])]
        return [m for m in names if m in used] + [m for m in used if m not in names]

    def lower_is_better(self, metric: str) -> bool:
        """Whether a lower value of ``metric`` is better."""
        for table, key in ((self.metrics_info, "name"), (self.summary, "metric")):
            rows = table[table[key].astype(str) == metric]
            if len(rows):
                return bool(rows["lower_is_better"].iloc[0])
        return True

    def label(self, metric: str) -> str:
        """``metric ↓`` (lower is better) or ``metric ↑``."""
        return f"{metric} {'↓' if self.lower_is_better(metric) else '↑'}"

    def kind(self, metric: str) -> str:
        """The metric's family: ``"pointwise"`` (also when undescribed), ``"expected"``, ``"debiased"``."""
        info = self.metrics_info[self.metrics_info["name"].astype(str) == metric]
        return str(info["kind"].iloc[0]) if len(info) else "pointwise"

    def bin_means(self, metric: str) -> list[tuple[str, dict[str, float], int]]:
        """Per bin present, in order: its label, each model's mean under ``metric``, its items."""
        sub = self.by_bin[self.by_bin["metric"].astype(str) == metric]
        out = []
        for label in self.bins():
            if len(in_bin := sub[sub["bin"].astype(str) == label]):
                means = zip(in_bin["model"].astype(str), in_bin["mean"].astype(float), strict=True)
                out.append((label, dict(means), int(in_bin["n_items"].max())))
        return out

    def families(self) -> dict[str, list[str]]:
        """The metrics grouped by :meth:`kind`, families and metrics in order of appearance."""
        out: dict[str, list[str]] = {}
        for metric in self.metrics:
            out.setdefault(self.kind(metric), []).append(metric)
        return out

    def bins(self) -> list[str]:
        """Bin labels in order (categorical order, else first appearance)."""
        column = self.by_bin["bin"]
        if isinstance(column.dtype, pd.CategoricalDtype):
            present = {str(b) for b in column.dropna()}
            return [str(b) for b in column.cat.categories if str(b) in present]
        return [str(b) for b in pd.unique(column.dropna())]

    @property
    def verdict(self) -> pd.DataFrame:
        """The verdict, one answer per metric (:meth:`Evaluation.verdict`; empty when not computed)."""
        if self.answers is None:
            return pd.DataFrame(columns=list(ANSWER_COLUMNS))
        return self.answers

    @cached_property
    def family_verdict(self) -> pd.DataFrame:
        """The best model per metric, family, bin and prior (:func:`family_table`), the report's detail."""
        return family_table(self)

    def reading(self) -> list[str]:
        """A short plain-language reading of the tables, one sentence (or two) per point.

        Who is best under each family of metrics and whether the lead is
        significant (the :attr:`verdict`'s), the ranking reversals and the
        bins where the headline one's metrics disagree, which metrics rank
        most and least alike, how sparse the annotations are. "Significant":
        the interval of the paired difference excludes zero.
        """
        return plain_reading(self)

    def document(self, *, figures: bool = True) -> Document:
        """The report as a :class:`~dissensus.report.Document`.

        ``figures=False`` leaves the matplotlib figures out (no extra needed)
        and puts the annotation-count histogram's numbers in a table instead.
        """
        return build_document(self, figures=figures)
