"""Output of an :class:`Evaluation`: notebook view, JSON, Markdown, HTML and files."""

from __future__ import annotations

import functools
import json
import math
import time
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._deprecation import renamed_parameters
from dissensus._exceptions import DataError, DegenerateAgreementWarning
from dissensus._validation import (
    examples,
    require_extra,
)
from dissensus.evaluation._tables import _python, _Tables
from dissensus.report._data import format_number
from dissensus.stats import competition_ranks

FloatArray = npt.NDArray[np.float64]
#: What the HTML report needs (the ``report`` extra).
_REPORT_MODULES = ("matplotlib", "jinja2")

#: Trials per property in the report's audit appendix: a quick screen (about 0.05 s per
#: metric); ``dissensus audit`` runs the full search (100,000 trials).
REPORT_AUDIT_TRIALS = 2_000


@functools.lru_cache(maxsize=512)
def _cached_audit(metric: str, classes: int, n_trials: int, seed: int) -> Any:
    """:func:`dissensus.audit.audit` of one registry metric, computed once per process.

    The audit depends only on the metric, K, the number of trials and the seed, not
    on the data, so every report of the session shares it.
    """
    from dissensus import audit as audit_module  # noqa: PLC0415  (only the report needs it)

    return audit_module.audit(metric, classes=classes, n_trials=n_trials, seed=seed)


class Evaluation(_Tables):
    """Per-item scores of several models under several metrics, and what follows.

    Build it with :func:`evaluate`. The scores are computed once; the tables
    below are computed on demand (the bootstrap resamples once per
    ``n_resamples`` and shared by :meth:`summary`, :meth:`differences` and
    :meth:`reversals`).

    Attributes
    ----------
    models : list of str
        Model names, in the order given.
    metrics : list of str
        Metric names, in the order given.
    values : ndarray of float64, shape (M, J, N), read-only
        ``values[m, j, i]`` is metric ``m`` of model ``j`` on item ``i``.
    counts : LabelCounts
        The annotations the models were scored against (after alignment).
    n_annotations : ndarray of int64, shape (N,)
    bins : list of str
        Labels of the annotation-count bins.
    timings : dict of str to float
        Seconds spent on alignment, metrics and each bootstrap.
    """

    def __repr__(self) -> str:
        return (
            f"<Evaluation: {len(self.models)} models × {len(self.metrics)} metrics on "
            f"{self.counts.N} items; models {examples(self.models)}; metrics {examples(self.metrics)}>"
        )

    def _repr_html_(self) -> str:
        """Compact notebook view: mean per metric and model (best in bold), no bootstrap."""
        import html  # noqa: PLC0415

        ranks, _ = competition_ranks(self._means, lower_is_better=self._lower)
        head = "".join(f"<th>{html.escape(m)}</th>" for m in self.models)
        rows = []
        for i, metric in enumerate(self.metrics):
            arrow = "↓" if self._lower[i] else "↑"
            cells = "".join(
                f"<td><b>{format_number(v)}</b></td>" if r == 1 else f"<td>{format_number(v)}</td>"
                for v, r in zip(self._means[i], ranks[i], strict=True)
            )
            rows.append(f"<tr><th>{html.escape(metric)} {arrow}</th>{cells}</tr>")
        caption = (
            f"Evaluation: {len(self.models)} models × {len(self.metrics)} metrics on "
            f"{self.counts.N:,} items (prior {html.escape(self.prior)}); mean per item, "
            "<b>bold</b> best. Intervals: <code>.summary()</code>; report: "
            "<code>.to_html()</code>."
        )
        return (
            f'<table class="dissensus-evaluation"><caption>{caption}</caption>'
            f"<thead><tr><th>metric</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )

    # -- helpers -----------------------------------------------------------
    def dataset_info(self) -> dict[str, Any]:
        """``n_items, n_annotators, n_annotations, labels, ordered, prior, targets``."""
        scale = self.counts.scale
        return {
            "n_items": int(self.counts.N),
            "n_annotators": self.n_annotators,
            "n_annotations": int(self.n_annotations.sum()),
            "labels": [_python(v) for v in scale.labels],
            "ordered": bool(scale.ordered),
            "prior": self.prior,
            "targets": self.targets,
        }

    def metrics_info(self) -> pd.DataFrame:
        """``name, lower_is_better, kind, description`` of each metric."""
        return pd.DataFrame(
            {
                "name": self.metrics,
                "lower_is_better": self._lower,
                "kind": [m.kind for m in self._metrics],
                "description": [m.description for m in self._metrics],
            }
        )

    def _agreement(
        self, confidence_level: float, n_resamples: int, with_ci: bool
    ) -> pd.DataFrame | None:
        """The agreement table of the report, or None when it cannot be computed.

        Items with fewer than two annotations are left out by the coefficients
        themselves (the table's ``note`` column says so), so their warning is
        not repeated here. Data the coefficients refuse (:class:`DataError`)
        leave the table out with a :class:`DegenerateAgreementWarning` giving
        the reason; any other error propagates.
        """
        from dissensus.agreement import report  # noqa: PLC0415  (only the report needs it)

        key = (float(confidence_level), int(n_resamples), bool(with_ci))
        if key in self._agreement_cache:
            return self._agreement_cache[key]
        level: Literal["ordinal", "nominal"] = "ordinal" if self.counts.scale.ordered else "nominal"
        t = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateAgreementWarning)
                table = report(
                    self.counts,
                    level=level,
                    confidence_level=confidence_level if with_ci else None,
                    n_resamples=n_resamples,
                    seed=self.seed,
                )
        except DataError as exc:
            warnings.warn(
                f"The report's agreement table is left out: {exc}",
                DegenerateAgreementWarning,
                stacklevel=3,
            )
            table = None
        self.timings["agreement (report)"] = time.perf_counter() - t
        self._agreement_cache[key] = table
        return table

    def metric_audit(self, *, n_trials: int = REPORT_AUDIT_TRIALS, seed: int = 0) -> pd.DataFrame:
        """The property audit (:func:`dissensus.audit.audit`) of the metrics used, for this K.

        Pointwise and expected metrics are audited over the evaluation's number
        of classes; ``debiased[...]`` metrics are left out (they take annotation
        counts, and their properties are those of the metric they estimate).
        Each (metric, K, ``n_trials``, ``seed``) is audited once per process
        and reused by every later call.

        Parameters
        ----------
        n_trials : int, default REPORT_AUDIT_TRIALS (2,000)
            Trials per property and metric: a quick screen; ``dissensus audit
            --classes K`` runs the full search.
        seed : int, default 0
            Seed of the trials.

        Returns
        -------
        DataFrame
            ``metric, property, title, status, counterexample, classes,
            n_trials, seed``, one row per (metric, property); empty when every
            metric is a debiased one.
        """
        from dissensus.audit import PROPERTIES  # noqa: PLC0415  (only the report needs it)

        titles = {p.key: p.title for p in PROPERTIES}
        K = int(self.counts.K)
        frames = [
            _cached_audit(m.name, K, int(n_trials), int(seed)).to_frame()
            for m in self._metrics
            if not m.needs_counts
        ]
        columns = ["metric", "property", "title", "status", "counterexample"]
        if not frames:
            table = pd.DataFrame(columns=columns)
        else:
            table = pd.concat(frames, ignore_index=True)
            table["title"] = table["property"].map(titles)
        return table[columns].assign(classes=K, n_trials=int(n_trials), seed=int(seed))

    @renamed_parameters(n_boot="n_resamples", ci="confidence_level")
    def report_data(
        self,
        *,
        title: str = "Model evaluation",
        confidence_level: float = 0.95,
        n_resamples: int = 1000,
        agreement_ci: bool = True,
        priors: Sequence[Any] = ("uniform", "jeffreys", "empirical"),
        audit: bool = True,
    ) -> Any:
        """The tables of the report, as a :class:`dissensus.report.ReportData`.

        Parameters
        ----------
        title : str
        confidence_level : float, default 0.95
            Coverage of every interval.
        n_resamples : int, default 1000
            Bootstrap resamples (the same resamples as :meth:`summary`).
        agreement_ci : bool, default True
            Bootstrap intervals for the agreement coefficients of the dataset
            section too (:func:`dissensus.agreement.report`, one set of
            resamples for every coefficient: about 5 s on a million items on
            2 cores); ``False`` keeps the point estimates and their standard
            errors.
        priors : sequence, default ("uniform", "jeffreys", "empirical")
            Priors the expected metrics are rescored under for the verdict's
            robustness check (:meth:`prior_sensitivity`); each costs about
            one more scoring of the expected metrics. ``()`` skips it.
        audit : bool, default True
            Add the appendix with the property audit of the metrics used
            (:meth:`metric_audit`; computed once per process per metric and K).
        """
        from dissensus.report import ReportData  # noqa: PLC0415  (report is optional)

        sensitivity = fit = None
        if self.predictions is not None and self._prior_value is not None:
            sensitivity = self.prior_sensitivity(
                priors, confidence_level=confidence_level, n_resamples=n_resamples
            )
            fit = self.prior_fit(priors)
        return ReportData(
            title=title,
            dataset=self.dataset_info(),
            annotations_per_item=np.asarray(self.n_annotations, dtype=np.int64),
            agreement=self._agreement(confidence_level, n_resamples, agreement_ci),
            summary=self.summary(confidence_level=confidence_level, n_resamples=n_resamples),
            differences=self.differences(
                confidence_level=confidence_level, n_resamples=n_resamples
            ),
            by_bin=self.by_bin(),
            rankings=self.rankings(),
            reversals=self.reversals(confidence_level=confidence_level, n_resamples=n_resamples),
            metric_agreement=self.metric_agreement(),
            metrics_info=self.metrics_info(),
            prior_sensitivity=sensitivity,
            prior_fit=fit,
            reversal_items=self.reversal_items(),
            metric_audit=self._report_audit() if audit else None,
            annotator_reliability=self.annotator_reliability,
        )

    def _report_audit(self) -> pd.DataFrame | None:
        table = self.metric_audit()
        return None if table.empty else table

    @renamed_parameters(n_boot="n_resamples", ci="confidence_level")
    def to_markdown(
        self,
        *,
        title: str = "Model evaluation",
        confidence_level: float = 0.95,
        n_resamples: int = 1000,
        agreement_ci: bool = True,
        audit: bool = True,
    ) -> str:
        """The report as Markdown (via :func:`dissensus.report.render_markdown`).

        Options as in :meth:`report_data`.
        """
        from dissensus.report import render_markdown  # noqa: PLC0415

        data = self.report_data(
            title=title,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            agreement_ci=agreement_ci,
            audit=audit,
        )
        return str(render_markdown(data))

    @renamed_parameters(n_boot="n_resamples", ci="confidence_level")
    def to_html(
        self,
        path: str | Path | None = None,
        *,
        title: str = "Model evaluation",
        confidence_level: float = 0.95,
        n_resamples: int = 1000,
        agreement_ci: bool = True,
        audit: bool = True,
    ) -> str:
        """The report as a self-contained HTML page; written to ``path`` when given.

        Options as in :meth:`report_data`. Needs the ``report`` extra
        (matplotlib, jinja2): :class:`~dissensus.MissingExtraError` otherwise,
        raised before any work.
        """
        from dissensus.report import render_html  # noqa: PLC0415

        require_extra("report", _REPORT_MODULES, "Evaluation.to_html")

        data = self.report_data(
            title=title,
            confidence_level=confidence_level,
            n_resamples=n_resamples,
            agreement_ci=agreement_ci,
            audit=audit,
        )
        html: object = render_html(data)
        if not isinstance(html, str):
            msg = f"dissensus.report.render_html returned {type(html).__name__}, not HTML text."
            raise TypeError(msg)
        if path is not None:
            from dissensus._atomic import write_file_atomically  # noqa: PLC0415

            write_file_atomically(path, html)
        return html

    @renamed_parameters(n_boot="n_resamples", ci="confidence_level")
    def to_json(
        self, *, confidence_level: float = 0.95, n_resamples: int = 1000, indent: int | None = 2
    ) -> str:
        """Dataset info, summary, differences, by-bin means, rankings, reversals, metric agreement.

        NaN becomes ``null`` and ±inf the strings ``"inf"`` / ``"-inf"`` (JSON
        has neither).
        """
        tables = {
            "summary": self.summary(confidence_level=confidence_level, n_resamples=n_resamples),
            "differences": self.differences(
                confidence_level=confidence_level, n_resamples=n_resamples
            ),
            "by_bin": self.by_bin(),
            "rankings": self.rankings(),
            "reversals": self.reversals(confidence_level=confidence_level, n_resamples=n_resamples),
            "metric_agreement": self.metric_agreement(),
        }
        payload: dict[str, Any] = {
            "dataset": self.dataset_info(),
            "models": self.models,
            "metrics": self.metrics,
            "confidence_level": confidence_level,
            "n_resamples": n_resamples,
            "seed": self.seed if isinstance(self.seed, int) else None,
        }
        for name, table in tables.items():
            payload[name] = [
                {str(k): _json_value(v) for k, v in rec.items()}
                for rec in table.astype(object).to_dict(orient="records")
            ]
        return json.dumps(payload, indent=indent, allow_nan=False, ensure_ascii=False)

    @renamed_parameters(n_boot="n_resamples", ci="confidence_level")
    def save(
        self,
        out_dir: str | Path,
        *,
        confidence_level: float = 0.95,
        n_resamples: int = 1000,
        agreement_ci: bool = True,
        inputs: Sequence[str | Path] = (),
        params: Mapping[str, Any] | None = None,
        scores: bool = True,
        report_sections: Sequence[str] = (),
        extra_files: Mapping[str, str] | None = None,
    ) -> dict[str, Path]:
        """Write ``summary.csv``, ``rankings.csv``, ``scores.parquet``, ``report.html``, ``manifest.json``.

        Floats are written with ``%.10g`` so that the same inputs and seed give
        byte-identical CSV files. ``report.html`` (options as in
        :meth:`report_data`) needs the ``report`` extra (matplotlib, jinja2);
        without it :class:`~dissensus.MissingExtraError` is raised before
        any file is written.

        The files are written as one set (:class:`dissensus._atomic.AtomicFileSet`):
        each goes to a temporary name and all are moved into place together,
        with a ``manifest.json`` holding the parameters and the SHA-256 of each
        file, so an interrupted or failed save leaves the earlier set intact.
        The directory is locked while it is written.

        Parameters
        ----------
        inputs : sequence of str or Path, optional
            Files the evaluation was read from; an output that would
            overwrite one of them is refused.
        params : mapping, optional
            Extra run parameters for the manifest.
        scores : bool, default True
            Write the per-item scores (``scores.parquet``, one row per metric,
            model and item). They are written one (metric, model) row group
            at a time from the dense score array, so memory stays at one
            group of N rows.
        report_sections : sequence of str, optional
            HTML fragments (trusted markup, e.g. a study's "Training" section)
            added at the end of the report's main part.
        extra_files : mapping of str to str, optional
            More text files written in the same set, file name -> content
            (e.g. a study's ``experiment.json``): in the manifest, and moved
            into place with the others. The role of each in the returned
            mapping is its name without the extension.

        Returns
        -------
        dict of str to Path
            File role (``"summary"``, ``"rankings"``, ``"scores"``,
            ``"report"``, ``"manifest"``) -> path written.

        Raises
        ------
        OutputError
            The directory is unusable or locked by another run, an output is
            an input, or a write failed (the message names the path).
        """
        require_extra("report", _REPORT_MODULES, "Evaluation.save (report.html)")
        from dissensus._atomic import AtomicFileSet  # noqa: PLC0415

        names = {
            "summary": "summary.csv",
            "rankings": "rankings.csv",
            "scores": "scores.parquet",
            "report": "report.html",
        }
        run = {
            "dissensus": _version(),
            "models": self.models,
            "metrics": self.metrics,
            "confidence_level": confidence_level,
            "n_resamples": n_resamples,
            "seed": self.seed if isinstance(self.seed, int) else None,
            **(params or {}),
        }
        extra = dict(extra_files or {})
        clash = sorted(set(extra) & {*names.values(), "manifest.json"})
        if clash:
            msg = f"Evaluation.save: extra_files may not replace {clash}; give other names."
            raise ValueError(msg)
        with AtomicFileSet(out_dir, inputs=inputs, params=run) as files:
            for name in (*names.values(), *extra):
                files.temporary(name)  # refuses an input before any work
            files.discard()
            paths: dict[str, Path] = {}
            summary = self.summary(confidence_level=confidence_level, n_resamples=n_resamples)
            paths["summary"] = files.write(
                names["summary"], summary.to_csv(index=False, float_format="%.10g")
            )
            paths["rankings"] = files.write(
                names["rankings"], self.rankings().to_csv(index=False, float_format="%.10g")
            )
            if scores:
                paths["scores"] = files.written(names["scores"], self._write_scores)
            html = self.to_html(
                confidence_level=confidence_level,
                n_resamples=n_resamples,
                agreement_ci=agreement_ci,
            )
            if report_sections:
                html = _insert_section(html, "".join(report_sections))
            paths["report"] = files.write(names["report"], html)
            for name, text in extra.items():
                paths[Path(name).stem] = files.write(name, text)
        paths["manifest"] = files.final_path("manifest.json")
        return paths

    def _write_scores(self, path: Path) -> None:
        """:attr:`scores` as Parquet, one row group per (metric, model), never the whole frame."""
        import pyarrow as pa  # type: ignore[import-untyped]  # noqa: PLC0415
        import pyarrow.parquet as pq  # type: ignore[import-untyped]  # noqa: PLC0415

        M, J, N = self.values.shape
        items = self.counts.items
        item_col: Any = (
            pd.Categorical.from_codes(np.arange(N), categories=items)
            if items.is_unique
            else np.asarray(items).astype(str)
        )
        models, metrics = pd.Index(self.models), pd.Index(self.metrics)
        bins = pd.Categorical.from_codes(
            self._bin_codes, categories=pd.Index(self.bins), ordered=True
        )
        writer: Any = None
        try:
            for m in range(M):
                for j in range(J):
                    group = pd.DataFrame(
                        {
                            "item": item_col,
                            "model": pd.Categorical.from_codes(np.full(N, j), categories=models),
                            "metric": pd.Categorical.from_codes(np.full(N, m), categories=metrics),
                            "value": self.values[m, j],
                            "n_annotations": self.n_annotations,
                            "bin": bins,
                        }
                    )
                    table = pa.Table.from_pandas(group, preserve_index=False)
                    if writer is None:
                        writer = pq.ParquetWriter(path, table.schema)
                    writer.write_table(table)
        finally:
            if writer is not None:
                writer.close()


def _insert_section(page: str, section: str) -> str:
    """``section`` inserted before the page's ``</main>`` (else ``</body>``, else at the end)."""
    anchor = "</main>" if "</main>" in page else "</body>"
    head, sep, tail = page.rpartition(anchor)
    return head + section + sep + tail if sep else page + section


def _version() -> str:
    from dissensus import __version__  # noqa: PLC0415

    return __version__


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
