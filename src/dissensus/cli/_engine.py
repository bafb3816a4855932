"""``--engine dask``: run ``dissensus agreement`` and ``dissensus evaluate`` on a Dask cluster.

The options are added to an existing command by :func:`with_engine`, so the
command's own module stays as it is; with ``--engine memory`` (the default)
the command runs unchanged.
"""

from __future__ import annotations

import copy
import importlib
import logging
import math
import warnings
from typing import Any

import click
import pandas as pd

from dissensus._exceptions import DissensusWarning
from dissensus.cli._agreement import format_agreement
from dissensus.cli._reader_options import parse_labels
from dissensus.data import Scale

__all__ = ["with_engine"]

#: Options of the in-memory command that the Dask engine does not support, with their defaults.
_UNSUPPORTED = {
    "example": None,
    "by": None,
    "format": None,
    "layout": "long",
    "annotators": None,
    "meta": None,
    "dropna": False,
    "duplicates": None,
    "na_values": None,
    "strip_labels": False,
}


def _client(scheduler: str, workers: int) -> tuple[Any, Any]:
    try:
        dist: Any = importlib.import_module("dask.distributed")
    except ImportError as err:
        msg = f"--engine dask needs Dask: pip install 'dissensus[distributed]' ({err})."
        raise click.UsageError(msg) from err
    if scheduler == "local":
        # the scheduler logs every shuffle at WARNING: noise in a command's stderr
        logging.getLogger("distributed.shuffle").setLevel(logging.ERROR)
        cluster = dist.LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None)
        return dist.Client(cluster), cluster
    return dist.Client(scheduler), None


def _run_dask(
    *,
    file: str | None,
    level: str,
    confidence_level: float | None,
    n_resamples: int,
    seed: int,
    scheduler: str,
    workers: int,
    json_out: str | None,
    csv_out: str | None,
    **options: Any,
) -> None:
    from dissensus import distributed  # noqa: PLC0415  (imports Dask)

    if file is None:
        msg = "--engine dask needs a PATH (a Parquet file or directory, or a CSV file)."
        raise click.UsageError(msg)
    _check_supported(options)
    client, cluster = _client(scheduler, workers)
    try:
        counts = _dask_counts(file, **options)
        if level == "auto":
            level = "ordinal" if counts.scale.ordered else "nominal"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DissensusWarning)
            res = distributed.agreement(
                counts,
                levels=(level,),
                confidence_level=confidence_level,
                n_resamples=n_resamples,
                seed=seed,
            )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    for w in caught:
        if issubclass(w.category, DissensusWarning):
            click.echo(f"dissensus: warning: {' '.join(str(w.message).split())}", err=True)
    nan = math.nan
    ci = [
        r.confidence_interval(confidence_level) if confidence_level is not None else (nan, nan)
        for r in res.values()
    ]
    table = pd.DataFrame(
        {
            "coefficient": [r.name for r in res.values()],
            "value": [r.statistic for r in res.values()],
            "standard_error": [r.standard_error for r in res.values()],
            "ci_low": [c[0] for c in ci],
            "ci_high": [c[1] for c in ci],
            "n_items": [r.n_items for r in res.values()],
            "n_items_excluded": [r.n_items_excluded for r in res.values()],
            "n_annotations": [r.n_annotations for r in res.values()],
            "note": [r.note for r in res.values()],
        }
    )
    for target, fmt in ((json_out, "json"), (csv_out, "csv")):
        if target is None:
            continue
        text = (
            table.to_json(orient="records", indent=1, double_precision=15) + "\n"
            if fmt == "json"
            else table.to_csv(index=False)
        )
        if target == "-":
            click.echo(text, nl=False)
        else:
            with open(target, "w", encoding="utf-8") as fh:
                fh.write(text)
    if "-" in (json_out, csv_out):
        return
    first = next(iter(res.values()))
    click.echo(
        f"Agreement of {file} (dask, Poisson bootstrap): {first.n_items:,} items, "
        f"{first.n_annotations:,} ratings, labels {list(counts.scale.labels)}"
    )
    click.echo("")
    click.echo(format_agreement(table))


def _check_supported(options: dict[str, Any]) -> None:
    given = [k for k, default in _UNSUPPORTED.items() if options.get(k, default) != default]
    if given:
        names = ", ".join("--" + k.replace("_", "-") for k in given)
        msg = f"{names} not supported with --engine dask (long item/label tables only)."
        raise click.UsageError(msg)


def _dask_counts(path: str, **options: Any) -> Any:
    """Lazy :class:`~dissensus.distributed.DistributedCounts` of a file or Parquet directory."""
    from dissensus import distributed  # noqa: PLC0415  (imports Dask)

    ordered = options.get("ordered")
    scale: Scale | None = None
    if options.get("labels"):
        parsed = parse_labels(options["labels"])
        scale = Scale(tuple(parsed), ordered=True if ordered is None else ordered)
    counts = distributed.label_counts(
        path,
        scale=scale,
        item=options.get("item") or "item",
        label=options.get("label") or "label",
    )
    if scale is None and ordered is not None:
        counts = distributed.DistributedCounts(counts.frame, counts.scale.with_order(ordered))
    return counts


def _run_dask_evaluate(original: Any, *, scheduler: str, workers: int, **options: Any) -> None:
    """``dissensus evaluate`` with the annotations counted and the models scored on Dask.

    The scores are then collected and the rest of the command (tables,
    report, ``--out``, ``--json``) runs as in memory.
    """
    _check_supported(options)
    client, cluster = _client(scheduler, workers)
    try:
        original(load=_dask_counts, **options)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


#: What ``--engine dask`` runs, per command (default: agreement's runner).
_DASK_RUNNERS = {"evaluate": _run_dask_evaluate}


def with_engine(command: click.Command) -> click.Command:
    """A copy of ``command`` with ``--engine``, ``--scheduler`` and ``--workers``.

    PATH may then be a directory (a partitioned Parquet dataset).
    """
    params = []
    for param in command.params:
        if param.name in ("file", "annotations"):
            # a partitioned Parquet dataset is a directory
            path = copy.copy(param)
            path.type = click.Path(path_type=getattr(param.type, "path_type", None))
            params.append(path)
        else:
            params.append(param)
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
        if command.name in _DASK_RUNNERS:
            return _DASK_RUNNERS[command.name](
                original, scheduler=scheduler, workers=workers, **kwargs
            )
        return _run_dask(scheduler=scheduler, workers=workers, **kwargs)

    return click.Command(
        command.name,
        params=params,
        callback=callback,
        help=command.help,
        short_help=command.short_help,
    )
