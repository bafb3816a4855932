"""Output of an :class:`Evaluation`: the verdict, the report (document, HTML, Markdown), JSON, files."""

from __future__ import annotations

import json
import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from dissensus import agreement
from dissensus import audit as property_audit
from dissensus._atomic import AtomicFileSet, check_output_file, write_file_atomically
from dissensus._exceptions import DataError, DegenerateAgreementWarning
from dissensus._validation import examples
from dissensus.evaluation._data import ReportData
from dissensus.evaluation._selection import run_selection
from dissensus.evaluation._tables import _python, _Tables
from dissensus.evaluation._verdict import verdict_answers, verdict_lines
from dissensus.metrics.selection import Selection
from dissensus.report import (
    VERSION,
    Cell,
    Document,
    HtmlPage,
    Section,
    Table,
    format_number,
    html_fragment,
    require_figures,
    to_html,
    to_markdown,
)
from dissensus.stats import competition_ranks

#: Trials per property in the report's audit appendix: a quick screen (about 0.05 s per
#: metric); ``dissensus audit`` runs the full search (100,000 trials).
REPORT_AUDIT_TRIALS = 2_000
_PRIORS = ("uniform", "jeffreys", "empirical")
_JSON_TABLES = ("summary", "differences", "by_bin", "rankings", "reversals", "metric_agreement")
_RESAMPLED = ("summary", "differences", "reversals")

#: ``progress(text)``: told which stage of a long computation starts (the CLI shows it).
Progress = Callable[[str], None]


def _silent(text: str) -> None:
    """No progress to report to."""


class Evaluation(_Tables):
    """Per-item scores of several models under several metrics, and what follows.

    Build it with :func:`evaluate`. The scores are computed once; the tables
    are computed on demand (the bootstrap resamples once per ``n_resamples``,
    shared by every table). The report is :meth:`report` (a
    :class:`~dissensus.report.Document`), :meth:`to_html`, :meth:`to_markdown`
    or the files of :meth:`save`, with the options of :meth:`report_data`.

    Attributes: ``models`` and ``metrics`` (names, in the order given);
    ``values``, the read-only (M, J, N) float64 scores (``values[m, j, i]``:
    metric ``m`` of model ``j`` on item ``i``); ``counts``, the LabelCounts
    scored against (after alignment); ``n_annotations`` (N,); ``bins``, the
    annotation-count bin labels; ``timings``, seconds per stage and bootstrap.
    """

    def __repr__(self) -> str:
        return (
            f"<Evaluation: {len(self.models)} models × {len(self.metrics)} metrics on "
            f"{self.counts.N} items; models {examples(self.models)}; metrics {examples(self.metrics)}>"
        )

    def _repr_html_(self) -> str:
        """Compact notebook view: mean per metric and model (best marked), no bootstrap."""
        ranks, _ = competition_ranks(self._means, lower_is_better=self._lower)
        rows = [
            [f"{metric} {'↓' if self._lower[i] else '↑'}"]
            + [Cell(format_number(v), best=r == 1) for v, r in zip(self._means[i], ranks[i], strict=True)]
            for i, metric in enumerate(self.metrics)
        ]  # fmt: skip
        caption = (
            f"Evaluation: {len(self.models)} models × {len(self.metrics)} metrics on "
            f"{self.counts.N:,} items (prior {self.prior}); mean per item, ★ best. "
            "Intervals: .summary(); report: .to_html()."
        )
        return html_fragment(Table(["metric", *self.models], rows, caption=caption))

    # -- helpers -----------------------------------------------------------
    def dataset_info(self) -> dict[str, Any]:
        """``n_items, n_annotators, n_annotations, labels, ordered, prior, targets``.

        With ``evaluate(smooth=)`` also ``smoothing`` (:attr:`smoothing`).
        """
        scale = self.counts.scale
        return {
            "n_items": int(self.counts.N), "n_annotators": self.n_annotators,
            "n_annotations": int(self.n_annotations.sum()), "labels": [_python(v) for v in scale.labels],
            "ordered": bool(scale.ordered), "prior": self.prior, "targets": self.targets,
            **({"smoothing": self.smoothing} if self.smoothing is not None else {}),
        }  # fmt: skip

    def metrics_info(self) -> pd.DataFrame:
        """``name, lower_is_better, kind, description`` of each metric."""
        kinds, notes = [m.kind for m in self._metrics], [m.description for m in self._metrics]
        info = {"name": self.metrics, "lower_is_better": self._lower, "kind": kinds}
        return pd.DataFrame({**info, "description": notes})

    def _agreement(
        self, confidence_level: float, n_resamples: int, with_ci: bool
    ) -> pd.DataFrame | None:
        """The report's agreement table; None, with a warning saying why, for data it refuses.

        Items with fewer than two annotations are left out by the coefficients
        themselves (the table's ``note`` column says so), without a warning here.
        """
        key = (float(confidence_level), int(n_resamples), bool(with_ci))
        if key in self._agreement_cache:
            return self._agreement_cache[key]
        level: Literal["ordinal", "nominal"] = "ordinal" if self.counts.scale.ordered else "nominal"
        t = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateAgreementWarning)
                ci = confidence_level if with_ci else None
                table = agreement.report(
                    self.counts,
                    level=level,
                    confidence_level=ci,
                    n_resamples=n_resamples,
                    seed=self.seed,
                )
        except DataError as exc:
            msg = f"The report's agreement table is left out: {exc}"
            warnings.warn(msg, DegenerateAgreementWarning, stacklevel=3)
            table = None
        self.timings["agreement (report)"] = time.perf_counter() - t
        self._agreement_cache[key] = table
        return table

    def metric_audit(self, *, n_trials: int = REPORT_AUDIT_TRIALS, seed: int = 0) -> pd.DataFrame:
        """The property audit (:func:`dissensus.audit.audit`) of the metrics used, for this K.

        ``n_trials`` per property and metric (a quick screen; ``dissensus audit
        --classes K`` runs the full search), seeded by ``seed``; computed on each
        call (no cache: a metric re-registered under the same name is audited
        afresh, and no result depends on what ran before). ``debiased[...]`` metrics
        are left out (their properties are those of the metric they estimate).
        Returns ``metric, property, title, status, counterexample, classes,
        n_trials, seed``, one row per (metric, property).
        """
        titles = {p.key: p.title for p in property_audit.PROPERTIES}
        K = int(self.counts.K)
        audited = {m.name: m for m in self._metrics if not m.needs_counts}
        columns = ["metric", "property", "title", "status", "counterexample"]
        table = (
            property_audit.audit(audited, classes=K, n_trials=int(n_trials), seed=int(seed))
            .to_frame()
            .reset_index(drop=True)
            if audited
            else pd.DataFrame(columns=columns)
        )
        table["title"] = table["property"].map(titles)
        return table[columns].assign(classes=K, n_trials=int(n_trials), seed=int(seed))

    def verdict(
        self, *, confidence_level: float = 0.95, n_replicas: int | str = "auto",
        seed: int | None = None,
    ) -> pd.DataFrame:  # fmt: skip
        """Which model is better, ONE answer per metric, on the evidence that supports it.

        For a metric whose paired difference :math:`f(p, q_A) - f(p, q_B)` is
        a polynomial in the true distribution ``p`` (``Metric.difference_degree``:
        cross-entropy, KL, Brier, RPS), the unbiased estimate of the
        difference of TRUE scores with its interval and the probability that
        the best model is truly better than the runner-up
        (``true_differences``). For the others (EMD, L1, JS, ...), whose true
        values have no unbiased estimator from few annotations, the estimator
        the parametric bootstrap selects on these data
        (:meth:`estimator_selection`; ``n_replicas``, ``seed``) ranks the
        models, and the evidence is the share of simulated replicas in which
        that estimator orders the best model and the runner-up as their drawn
        true scores do (``p_better``), and in which it picks the truly best. A model whose
        mean is infinite under the metric is "not scored" and left out, with
        the number of infinite items. Computed once per arguments.

        Returns
        -------
        DataFrame
            ``metric, basis, estimator, form, prior, best, runner_up, diff,
            ci_low, ci_high, p_better, p_correct_order, p_best, alternatives,
            n_replicas, not_scored, sentence``, a row per pointwise metric
            (its forms ``E[f]`` and ``debiased[f]`` are estimators of it).
            ``basis``: ``"true difference"``, ``"selection"`` or ``"none"``;
            ``estimator``: ``"unbiased"``, ``"empirical"``, ``"debiased"`` or
            ``"expected"`` and ``form`` its registered name; ``diff`` (best
            minus runner-up, the metric's units) and its interval for the
            true-difference answers; ``p_better`` the probability the best is
            truly better (selection: the share of replicas in which the estimator
            orders the two as the truth does); ``sentence`` the answer in words (:meth:`verdict_lines`).
        """
        key = (float(confidence_level), str(n_replicas), seed)
        cache: dict[Any, pd.DataFrame] = self.__dict__.setdefault("_verdict_cache", {})
        if key not in cache:
            cache[key] = verdict_answers(
                self, confidence_level=confidence_level, n_replicas=n_replicas, seed=seed
            )
        return cache[key].copy()

    def verdict_lines(self, **options: Any) -> list[str]:
        """The verdict's sentences (:meth:`verdict`, ``options`` its arguments), then where the expected metrics stand."""
        expected = any(m.needs_posterior for m in self._metrics)
        return verdict_lines(self.verdict(**options), prior=self.prior, expected=expected)

    def estimator_selection(
        self, *, metrics: Sequence[str] | None = None, n_replicas: int | str = "auto",
        seed: int | None = None, pairs: bool = False,
    ) -> pd.DataFrame:  # fmt: skip
        """Which estimator (empirical, debiased, expected) ranks these models most reliably on these data.

        A parametric bootstrap in the data's own world
        (:func:`dissensus.metrics.selection.select_estimators`; empirical or
        debiased is selected, the expected form is measured as the posterior view): every item's
        plausible truth is drawn from its posterior under the prior the data
        support best (:meth:`prior_fit`'s highest likelihood), its annotations
        are redrawn at its observed count, and each estimator's ranking of the
        models is compared with the drawn truth's. ``metrics``: the pointwise
        metrics (or their forms) to study, default every one evaluated;
        ``n_replicas``: ``"auto"`` (until every Monte Carlo standard error is
        at most 0.035; 100 to 200 replicas) or a number; ``seed``: default the
        evaluation's. Computed once per arguments.

        Returns ``metric, estimator, form, prior, p_correct_order,
        se_correct_order, p_best, se_best, selected, n_replicas, n_items`` (a
        row per metric and estimator), or with ``pairs=True`` ``metric,
        model_a, model_b, estimator, p_a_above_b, p_true_a_above_b,
        p_correct`` (a row per metric, model pair and estimator).
        """
        key = (None if metrics is None else tuple(metrics), str(n_replicas), seed)
        cache: dict[Any, Any] = self.__dict__.setdefault("_selection_cache", {})
        if key not in cache:
            t = time.perf_counter()
            used = self.seed if seed is None else seed
            cache[key] = run_selection(
                self, metrics, n_replicas, used if isinstance(used, int) else 0
            )
            self.timings["estimator selection"] = time.perf_counter() - t
        sel: Selection = cache[key]
        return sel.pairs.copy() if pairs else sel.summary.copy()

    def report_data(
        self, *, title: str = "Model evaluation", confidence_level: float = 0.95,
        n_resamples: int = 1000, agreement_ci: bool = True, priors: Sequence[Any] = _PRIORS,
        audit: bool = True, progress: Progress | None = None,
    ) -> ReportData:  # fmt: skip
        """The tables of the report, as a :class:`ReportData`.

        ``confidence_level`` and ``n_resamples``: of every interval (the
        resamples of :meth:`summary`). ``agreement_ci``: bootstrap intervals for
        the agreement coefficients too (:func:`dissensus.agreement.report`, one
        set of resamples for all: about 5 s on a million items on 2 cores;
        ``False`` keeps the estimates and standard errors). ``priors``: rescored
        for the verdict's robustness check (:meth:`prior_sensitivity`; each
        costs about one more scoring of the expected metrics; ``()`` skips it).
        ``audit``: add the appendix with the property audit of the metrics
        (:meth:`metric_audit`, computed once per process per metric and K).
        ``progress(text)`` is called as each stage starts (agreement, audit,
        verdict, tables).
        """
        say = _silent if progress is None else progress
        options: dict[str, Any] = {"confidence_level": confidence_level, "n_resamples": n_resamples}
        say(
            "agreement coefficients"
            + (f" ({n_resamples} bootstrap resamples)" if agreement_ci else "")
        )
        table = self._agreement(confidence_level, n_resamples, agreement_ci)
        if audit:
            say("property audit of the metrics")
        audit_table = self.metric_audit() if audit else None
        say("verdict: true differences and estimator selection")
        self.verdict(confidence_level=confidence_level)  # cached: _report_data's call reuses it
        say("prior sensitivity and the report's tables")
        return self._report_data(
            options, priors, title=title, agreement=table, reversal_items=self.reversal_items(),
            metric_audit=None if audit_table is None or audit_table.empty else audit_table,
            annotator_reliability=self.annotator_reliability,
        )  # fmt: skip

    def _run_info(self, options: dict[str, Any]) -> dict[str, Any]:
        seed = self.seed if isinstance(self.seed, int) else None
        return {"models": self.models, "metrics": self.metrics, **options, "seed": seed}

    def _report_data(
        self, options: dict[str, Any], priors: Sequence[Any], **extra: Any
    ) -> ReportData:
        """The tables every report needs (the verdict's) and the ``extra`` fields of ReportData."""
        sensitivity = fit = None
        if self.predictions is not None and self._prior_value is not None:
            sensitivity, fit = self.prior_sensitivity(priors, **options), self.prior_fit(priors)
        tables = {n: getattr(self, n)(**(options if n in _RESAMPLED else {})) for n in _JSON_TABLES}
        return ReportData(
            title=extra.pop("title", ""), dataset=self.dataset_info(),
            annotations_per_item=np.asarray(self.n_annotations, dtype=np.int64),
            agreement=extra.pop("agreement", None), **tables, metrics_info=self.metrics_info(),
            prior_sensitivity=sensitivity, prior_fit=fit,
            answers=self.verdict(confidence_level=options["confidence_level"]), **extra,
        )  # fmt: skip

    def report(
        self, *, figures: bool = True, sections: Sequence[Section] = (), **options: Any
    ) -> Document:
        """The report as a :class:`~dissensus.report.Document`, ``sections`` appended.

        ``options``: of :meth:`report_data`; ``figures=False`` leaves the
        figures out (no ``report`` extra needed). Render it with
        :func:`dissensus.report.to_html` or :func:`~dissensus.report.to_markdown`.
        """
        if figures:
            require_figures("The HTML report")
        data = self.report_data(**options)
        if figures and options.get("progress") is not None:
            options["progress"]("figures")
        doc = data.document(figures=figures)
        return Document(doc.title, *doc.blocks, *sections, subtitle=doc.subtitle, footer=doc.footer)

    def to_markdown(self, **options: Any) -> str:
        """The report as Markdown: every table of the HTML page, no figures (options of :meth:`report_data`)."""
        return to_markdown(self.report(figures=False, **options))

    def to_html(self, path: str | Path | None = None, **options: Any) -> HtmlPage:
        """The report as one self-contained HTML page, written to ``path`` when given.

        Options of :meth:`report_data`. Needs the ``report`` extra (matplotlib),
        else :class:`~dissensus.MissingExtraError` before any work.
        """
        require_figures("Evaluation.to_html")
        if path is not None:
            check_output_file(path)  # an unusable path fails before the report is built
        page = to_html(self.report(**options))
        if path is not None:
            write_file_atomically(path, page)
        return page

    def to_json(
        self, *, confidence_level: float = 0.95, n_resamples: int = 1000, indent: int | None = 2
    ) -> str:
        """Dataset info, summary, differences, by-bin means, rankings, reversals, metric agreement.

        NaN becomes ``null``, ±inf the strings ``"inf"``/``"-inf"`` (JSON has neither).
        """
        options: dict[str, Any] = {"confidence_level": confidence_level, "n_resamples": n_resamples}
        payload: dict[str, Any] = {"dataset": self.dataset_info(), **self._run_info(options)}
        for name in _JSON_TABLES:
            table = getattr(self, name)(**(options if name in _RESAMPLED else {}))
            records = table.astype(object).to_dict(orient="records")
            payload[name] = [{str(k): _json_value(v) for k, v in r.items()} for r in records]
        return json.dumps(payload, indent=indent, allow_nan=False, ensure_ascii=False)

    def save(
        self, out_dir: str | Path, *, confidence_level: float = 0.95, n_resamples: int = 1000,
        agreement_ci: bool = True, inputs: Sequence[str | Path] = (),
        params: Mapping[str, Any] | None = None, scores: bool = True, report: bool = True,
        report_sections: Sequence[Section] = (), extra_files: Mapping[str, str] | None = None,
        progress: Progress | None = None,
    ) -> dict[str, Path]:  # fmt: skip
        """Write ``summary.csv``, ``rankings.csv``, ``scores.parquet``, ``report.html``, ``manifest.json``.

        One set (:class:`dissensus._atomic.AtomicFileSet`): the files move into
        place together with ``manifest.json`` (parameters, each file's SHA-256),
        so a failed save leaves the earlier set intact; the directory is locked
        meanwhile. Floats are written ``%.10g`` (same inputs and seed, same
        bytes). ``report.html`` (options of :meth:`report_data`) needs the
        ``report`` extra, else :class:`~dissensus.MissingExtraError` before any
        file is written; ``report=False`` writes the tables only (no extra). ``inputs``: files the evaluation was read from (an
        output that would overwrite one is refused); ``params``: more run
        parameters for the manifest; ``scores``: write the per-item scores (one
        Parquet row group per (metric, model): memory stays at N rows);
        ``report_sections``: more sections at the end of the report;
        ``extra_files``: more text files, name -> content (role: the name
        without extension); ``progress(text)``: called as each stage starts
        (:meth:`report_data`'s, then the figures). Returns file role (``"summary"``, ``"rankings"``,
        ``"scores"``, ``"report"``, ``"manifest"``) -> path.
        :class:`~dissensus.OutputError` when the directory is unusable or
        locked, an output is an input, or a write fails (naming the path).
        """
        if report:
            require_figures("Evaluation.save (report.html)")
        names = {
            "summary": "summary.csv",
            "rankings": "rankings.csv",
            "scores": "scores.parquet",
            **({"report": "report.html"} if report else {}),
        }
        options: dict[str, Any] = {"confidence_level": confidence_level, "n_resamples": n_resamples}
        run = {"dissensus": VERSION, **self._run_info(options), **(params or {})}
        extra = dict(extra_files or {})
        if clash := sorted(set(extra) & {*names.values(), "manifest.json"}):
            msg = f"Evaluation.save: extra_files may not replace {clash}; give other names."
            raise ValueError(msg)
        with AtomicFileSet(out_dir, inputs=inputs, params=run) as files:
            for name in (*names.values(), *extra):
                files.temporary(name)  # refuses an input before any work
            files.discard()
            say = _silent if progress is None else progress
            say(f"summary ({n_resamples} bootstrap resamples) and rankings")
            tables = {"summary": self.summary(**options), "rankings": self.rankings()}
            paths = {
                role: files.write(names[role], table.to_csv(index=False, float_format="%.10g"))
                for role, table in tables.items()
            }
            if scores:
                say("scores.parquet")
                paths["scores"] = files.written(names["scores"], self._write_scores)
            if report:
                page = self.to_html(
                    sections=report_sections,
                    agreement_ci=agreement_ci,
                    progress=progress,
                    **options,
                )
                paths["report"] = files.write(names["report"], page)
            for name, text in extra.items():
                paths[Path(name).stem] = files.write(name, text)
        paths["manifest"] = files.final_path("manifest.json")
        return paths

    def _write_scores(self, path: Path) -> None:
        """:attr:`scores` as Parquet, one row group per (metric, model), never the whole frame."""
        import pyarrow as pa  # type: ignore[import-untyped]  # noqa: PLC0415 - pyarrow.parquet is optional
        import pyarrow.parquet as pq  # type: ignore[import-untyped]  # noqa: PLC0415

        M, J, _ = self.values.shape
        writer: Any = None
        try:
            for m in range(M):
                for j in range(J):
                    group = self._tidy(np.array([m]), np.array([j]))
                    if not self.counts.items.is_unique:  # ids of mixed types: Parquet wants one
                        group["item"] = group["item"].astype(str)
                    table = pa.Table.from_pandas(group, preserve_index=False)
                    if writer is None:
                        writer = pq.ParquetWriter(path, table.schema)
                    writer.write_table(table)
        finally:
            if writer is not None:
                writer.close()


def _json_value(v: Any) -> Any:
    v = _python(v)
    if v is None or v is pd.NA:
        return None
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v
