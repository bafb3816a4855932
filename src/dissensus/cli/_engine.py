"""``--engine dask``: run ``dissensus agreement`` and ``dissensus evaluate`` on a Dask cluster."""

from __future__ import annotations

import contextlib
import copy
import logging
from collections.abc import Iterator
from typing import Any

import click

from dissensus import distributed
from dissensus._atomic import locked_dir
from dissensus._validation import require_extra
from dissensus.agreement import agreement_table, table_coefficients
from dissensus.cli._agreement import check_outputs, emit_report
from dissensus.cli._evaluate import OUTPUT_FILES
from dissensus.cli._messages import warnings_as_lines
from dissensus.cli._reader_options import parse_pred, scale_option

#: Options of the in-memory command that the Dask engine does not support, with their defaults.
_UNSUPPORTED = {
    "example": None, "by": None, "format": None, "layout": "long", "annotators": None,
    "meta": None, "dropna": False, "duplicates": None, "na_values": None, "strip_labels": False,
}  # fmt: skip


@contextlib.contextmanager
def _cluster(scheduler: str, workers: int) -> Iterator[None]:
    """A Dask client for the block: a local cluster, or the scheduler at ``scheduler``."""
    require_extra("distributed", ["dask", "distributed"], "--engine dask")
    import dask.distributed  # noqa: PLC0415 - optional extra, imported on use

    dist: Any = dask.distributed  # untyped
    cluster = None
    if scheduler == "local":
        # the scheduler logs every shuffle at WARNING: noise in a command's stderr
        logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
        cluster = dist.LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)
    client = dist.Client(cluster or scheduler)
    try:
        yield
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _run_dask(
    *,
    file: str | None,
    level: str,
    confidence_level: float | None,
    n_resamples: int,
    seed: int,
    json_out: str | None,
    csv_out: str | None,
    **options: Any,
) -> None:
    """``dissensus agreement`` on Dask: the in-memory table and writer, Poisson intervals."""
    if file is None:
        msg = "--engine dask needs a PATH (a Parquet file or directory, or a CSV file)."
        raise click.UsageError(msg)
    counts = _dask_counts(file, **options)
    if level == "auto":
        level = "ordinal" if counts.scale.ordered else "nominal"
    names = [
        "krippendorff_alpha" if n.startswith("krippendorff_alpha") else n
        for n in table_coefficients(level, counts.scale.ordered)
    ]
    with warnings_as_lines():
        res = distributed.agreement(
            counts, names, levels=(level,), confidence_level=confidence_level,
            n_resamples=n_resamples, seed=seed,
        )  # fmt: skip
    intervals = None
    if confidence_level is not None:  # computed with the statistics: no second pass
        intervals = {
            k: r.confidence_interval(
                confidence_level, n_resamples=n_resamples, bootstrap="poisson", seed=seed
            )
            for k, r in res.items()
        }
    first = next(iter(res.values()))
    header = (
        f"Agreement of {file} (dask, Poisson bootstrap): {first.n_items:,} items, "
        f"{first.n_annotations:,} ratings, labels {list(counts.scale.labels)}"
    )
    table = agreement_table(res, intervals)
    emit_report(table, header, json_out=json_out, csv_out=csv_out, inputs=[file])


def _dask_counts(path: str, **options: Any) -> Any:
    """Lazy :class:`~dissensus.distributed.DistributedCounts` of a file or Parquet directory."""
    ordered = options.get("ordered")
    scale = scale_option(options.get("labels"), ordered)
    item, label = options.get("item") or "item", options.get("label") or "label"
    annotator = None if options.get("no_annotator") else options.get("annotator") or "annotator"
    with warnings_as_lines():  # the columns it detected, as in memory
        counts = distributed.label_counts(
            path, scale=scale, item=item, label=label, annotator=annotator
        )
    if scale is None and ordered is not None:
        counts = distributed.DistributedCounts(counts.frame, counts.scale.with_order(ordered))
    return counts


def with_engine(command: click.Command) -> click.Command:
    """A copy of ``command`` with ``--engine``, ``--scheduler`` and ``--workers``.

    ``--engine memory`` (the default) runs it unchanged; with ``--engine dask``, PATH may
    be a directory (a partitioned Parquet dataset).
    """
    params = [copy.copy(param) for param in command.params]
    for param in params:
        if param.name in ("file", "annotations"):  # a partitioned Parquet dataset is a directory
            param.type = click.Path(path_type=getattr(param.type, "path_type", None))
    params += [
        click.Option(
            ["--engine"],
            type=click.Choice(["memory", "dask"]),
            default="memory",
            show_default=True,
            help="Run in this process, or on a Dask cluster (Parquet/CSV, items partitioned; "
            "agreement intervals by the Poisson bootstrap; evaluate collects the per-item "
            "scores, then the same tables as in memory).",
        ),
        click.Option(
            ["--scheduler"],
            default="local",
            show_default=True,
            metavar="ADDRESS|local",
            help="--engine dask: a scheduler address, or a local cluster.",
        ),
        click.Option(
            ["--workers"],
            type=click.IntRange(min=1),
            default=2,
            show_default=True,
            help="--engine dask: workers of the local cluster.",
        ),
    ]
    original = command.callback
    assert original is not None

    def callback(*, engine: str, scheduler: str, workers: int, **kwargs: Any) -> Any:
        if engine == "memory":
            if scheduler != "local" or workers != 2:
                msg = "--scheduler and --workers need --engine dask."
                raise click.UsageError(msg)
            return original(**kwargs)
        given = [k for k, default in _UNSUPPORTED.items() if kwargs.get(k, default) != default]
        if given:
            names = ", ".join("--" + k.replace("_", "-") for k in given)
            msg = f"{names} not supported with --engine dask (long item/label tables only)."
            raise click.UsageError(msg)
        # The outputs are checked before the cluster starts: one that is an input (or lies
        # in the partitioned dataset), or that cannot be written, fails at once.
        if command.name == "evaluate":
            inputs = [kwargs["annotations"], *parse_pred(kwargs["preds"]).values()]
            # The lock is held through the run (the command takes it again: re-entrant);
            # counted and scored on Dask, then the same tables and report as in memory.
            with (
                locked_dir(kwargs["out"], inputs=inputs, names=OUTPUT_FILES),
                _cluster(scheduler, workers),
            ):
                return original(load=_dask_counts, **kwargs)
        file = kwargs.get("file")
        check_outputs(kwargs["json_out"], kwargs["csv_out"], [file] if file else [])
        with _cluster(scheduler, workers):
            return _run_dask(**kwargs)

    return click.Command(
        command.name,
        params=params,
        callback=callback,
        help=command.help,
        short_help=command.short_help,
    )
