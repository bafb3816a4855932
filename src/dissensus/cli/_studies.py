"""The commands that run a study and write its report directory: leaderboard, simulate, tendency."""

from __future__ import annotations

import math
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click
import numpy as np
import pandas as pd

from dissensus import leaderboard as lb
from dissensus import simulate as sim
from dissensus import tendency as td
from dissensus._atomic import locked_dir
from dissensus._exceptions import DataError
from dissensus._validation import require_extra
from dissensus.cli import _reader_options as opt
from dissensus.cli._messages import warnings_as_lines
from dissensus.cli._progress import stages

_SEPARATOR = "+"
_LEADERBOARD_FILES = (
    "leaderboard.md",
    "leaderboard.html",
    "scores.csv",
    "rerank.csv",
    "adjacent.csv",
)


def split_sets(args: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """``GOLD SUB... + GOLD SUB...`` -> ``[(gold, [sub, ...]), ...]``."""
    cuts = [i for i, a in enumerate(args) if a == _SEPARATOR]
    sets = [list(args[i + 1 : j]) for i, j in zip([-1, *cuts], [*cuts, len(args)], strict=True)]
    for i, group in enumerate(sets, 1):
        if len(group) < 2:
            msg = f"dataset {i}: give a GOLD file and at least one SUBMISSION (datasets are separated by a lone '{_SEPARATOR}'); got {group}."
            raise click.BadParameter(msg, param_hint="GOLD SUBMISSION...")
    return [(group[0], group[1:]) for group in sets]


@click.command("leaderboard")
@click.argument(
    "args", nargs=-1, required=True, metavar="GOLD SUBMISSION... [+ GOLD SUBMISSION...]"
)
@opt.reader_options
@opt.metrics_option(help="Registry metrics (default: cross_entropy, manhattan, euclidean, js_distance "
                    "and E[cross_entropy], E[manhattan]).")  # fmt: skip
@opt.prior_option
@opt.resamples_option
@opt.seed_option
@opt.out_option(
    "Write leaderboard.md, leaderboard.html (bump charts) and CSV tables here.", required=False
)
def leaderboard_command(
    *, args: tuple[str, ...], metrics: tuple[str, ...], out: Path | None, **options: Any
) -> None:
    """Rank the teams under every metric and measure how the metric re-ranks them.

    GOLD is an annotation file in any format dissensus reads (LeWiDi JSON
    included; DATASET=PATH names the dataset), each SUBMISSION a team's
    predictions (LeWiDi 2023/2025 TSV, or a wide CSV/TSV/Parquet/JSONL with
    an item column and one column per label; TEAM=PATH names the team).
    Separate datasets with a lone '+': their Table 2 is also averaged. A
    paired bootstrap compares adjacent teams.
    """
    tasks = [(lb.team_names([gold])[0], lb.team_names(subs)) for gold, subs in split_sets(args)]
    if any(dataset == lb.AVERAGE for (dataset, _), _ in tasks):  # before reading anything
        msg = f"a dataset named {lb.AVERAGE!r} would take the place of the rows averaged over the datasets; name it otherwise with DATASET=PATH."
        raise click.BadParameter(msg, param_hint="GOLD")
    inputs = [path for gold, teams in tasks for _, path in (gold, *teams)]
    names = opt.split_names(metrics) or list(lb.DEFAULT_METRICS)
    settings = {key: options[key] for key in ("n_resamples", "seed")}
    with locked_dir(out, inputs=inputs, names=_LEADERBOARD_FILES) if out else nullcontext():
        boards = [
            lb.leaderboard(
                opt.load_annotations(gold_path, **options),
                {team: lb.read_submission(path) for team, path in teams},
                metrics=names,
                dataset=dataset,
                prior=opt.parse_prior(options["prior"]),
                **settings,
            )
            for (dataset, gold_path), teams in tasks
        ]
        board = lb.combine_leaderboards(boards)
        if out is not None:
            params = {"command": "leaderboard", "metrics": names, "prior": options["prior"]}
            board.save(out, inputs=inputs, params={**params, **settings})
            click.echo(f"wrote {out}/{', '.join(_LEADERBOARD_FILES)}", err=True)
    click.echo(board.to_markdown(), nl=False)


@click.command("simulate")
@opt.count_option(
    "--replicates", default=200, minimum=2, help="Synthetic datasets per truth family."
)
@opt.count_option("--items", default=400, minimum=10, help="Items per dataset.")
@opt.classes_option(default=5)
@opt.option("--truths", default="mixture,skewed,ordinal", metavar="NAME,NAME",
            help="Truth families: mixture, ordinal, skewed, flat, uniform, jeffreys.")  # fmt: skip
@opt.metrics_option(default=("cross_entropy,manhattan,emd",), help="Pointwise metrics; each is "
                    "scored empirically and in expectation (add js_divergence, kl_divergence for "
                    "more; JS is the slowest).")  # fmt: skip
@opt.option("--priors", default="uniform,jeffreys,empirical", metavar="NAME,NAME",
            help="Priors of the expected metrics.")  # fmt: skip
@opt.option("--candidates", metavar="NAME,NAME",
            help="Candidate models (default: the study's set); any of truth, noisy, tempered, "
            "sharpened, smoothed, overfit, shrunk, marginal, uniform.")  # fmt: skip
@opt.option("--debiased", is_flag=True,
            help="Also score each metric's debiased form (debiased[<metric>]) and add its table "
            "(Kendall tau, P(best) per bin) and figure to the report.")  # fmt: skip
@opt.count_option("--coverage-replicates", default=40, minimum=0,
                  help="Replicates of the credible-interval coverage check (0: skip).")  # fmt: skip
@opt.count_option("--allocation-replicates", default=20, minimum=0,
                  help="Replicates of the allocation study (0: skip).")  # fmt: skip
@opt.seed_option
@opt.out_option("Directory for report.html and the CSV tables.")
def simulate_command(*, out: Path, **options: Any) -> None:
    """Rank candidate models on synthetic data with KNOWN truth; write the report to --out.

    Prints the main table (share of model pairs ordered as the truth, per
    metric form and annotation-count bin) and the allocation curve.
    """
    t0 = time.perf_counter()
    require_extra("report", ["matplotlib"], "dissensus simulate (report.html)")  # before the study
    items, classes, seed = options["items"], options["classes"], options["seed"]
    metrics, priors = opt.split_names(options["metrics"]), opt.split_names(options["priors"])
    # what write_simulation_report writes: checked before the study (nothing there it did not write)
    files = ["rankings.csv", "pairs.csv", "scores.csv", "decision_accuracy.csv", "report.html"]
    files += ["coverage.csv"] * bool(options["coverage_replicates"])
    files += ["allocation.csv"] * bool(options["allocation_replicates"])
    files += ["debiased.csv", "debiased.md"] * options["debiased"]
    with locked_dir(out, names=files):
        truths, candidates = (opt.split_names(options[k]) for k in ("truths", "candidates"))
        res = sim.study(
            items, classes, replicates=options["replicates"], truths=truths, metrics=metrics,
            priors=priors, candidates=candidates or sim.DEFAULT_CANDIDATES, debiased=options["debiased"], seed=seed,
        )  # fmt: skip
        cov = alloc = None
        if n := options["coverage_replicates"]:
            cov = sim.coverage(2 * items, classes, replicates=n, priors=priors, seed=seed)
        if n := options["allocation_replicates"]:
            metric = "E[emd]" if "emd" in metrics else f"E[{metrics[0]}]"
            prior = sim.best_prior(res)[0][2:-1] if priors else "uniform"
            alloc = sim.allocation_study(
                min(300, items),
                classes,
                replicates=n,
                metric=metric,
                prior=prior,
                rounds=6,
                seed=seed,
            )
        paths = sim.write_simulation_report(res, out, cov, alloc)
    click.echo(sim.main_table(res).to_string(index=False))
    if options["debiased"]:
        click.echo("\ndebiased: Kendall tau with the true ranking, P(pick the truly best)")
        click.echo(sim.debiased_table(res).round(3).to_string(index=False))
    if alloc is not None:
        a = alloc[alloc["estimator"] == "expected"].pivot_table(
            index="spent", columns="strategy", values="p_same_ranking", sort=False
        )
        click.echo("\nallocation: P(exact true ranking) by extra annotations spent")
        click.echo(a.round(3).to_string())
    for kind, path in paths.items():
        click.echo(f"wrote {kind}: {path}")
    click.echo(f"done in {time.perf_counter() - t0:.1f} s", err=True)


#: The prediction sets --baselines adds: a --pred of one of these names is refused, not replaced.
_TENDENCY_BASELINES = ("random", "consensus", "consensus_soft", "annotator_bias")


@click.command("tendency")
@click.argument("annotations", type=click.Path(dir_okay=False, path_type=Path))
@opt.pred_option(
    required=False,
    help="Per-annotator predictions: long CSV/TSV/Parquet/JSONL with "
    "item, annotator and label (or one probability column per label); a bare PATH is "
    "named by its file stem. Repeatable. The items it covers are the test items.",
)
@opt.option("--measure", type=["cohen", "weighted_cohen", "alpha", "pearson"], default="cohen",
            help="Pair agreement; ordinal/interval scales: weighted_cohen, alpha --level ordinal, "
            "pearson.")  # fmt: skip
@opt.option("--level", type=["nominal", "ordinal", "interval", "ratio"], default="nominal",
            help="Level of --measure alpha.")  # fmt: skip
@opt.option("--weights", type=["quadratic", "linear"], default="quadratic",
            help="Weights of --measure weighted_cohen.")  # fmt: skip
@opt.count_option("--min-overlap", default=20, minimum=1,
                  help="tau: pairs sharing fewer items are left out.")  # fmt: skip
@opt.option("--soft", is_flag=True, help="Compare predicted distributions as expected tables.")
@opt.option("--baselines", is_flag=True,
            help="Add the random, consensus and per-annotator-bias baselines (trained on the items "
            "the predictions do not cover; without --pred, on a --test-size split).")  # fmt: skip
@opt.test_size_option
@opt.option(
    "--text",
    metavar="COL,COL",
    help="Item text columns for the per-annotator-bias baseline (loaded as --meta).",
)
@opt.resamples_option
@opt.seed_option
@opt.option(
    "--ci-method",
    type=["percentile", "basic"],
    default="percentile",
    help="Bootstrap interval; basic corrects for DIC's upward bias with few items per pair.",
)
@opt.option("--tables-only", is_flag=True,
            help="Write the CSV tables but not report.html (no matplotlib).")  # fmt: skip
@opt.out_option("Output directory.")
@opt.reader_options
def tendency_command(
    *, annotations: Path, preds: tuple[str, ...], out: Path, **options: Any
) -> None:
    """DIC of per-annotator predictions against the ANNOTATIONS' consistency structure.

    DIC (Distance of Individual Consistency) compares the matrix of pairwise
    agreement between annotators with the one the predictions imply
    ("A Unified Evaluation Framework for Multi-Annotator Tendency Learning",
    arXiv:2508.10393, 2025). Writes dic.csv, the consistency matrices,
    tau_curve.csv and report.html to --out, and prints the DIC table.
    """
    seed, soft, tau = options["seed"], options["soft"], options["min_overlap"]
    if not preds and not options["baselines"]:
        raise click.UsageError("give --pred PATH (per-annotator predictions) and/or --baselines.")
    # the optional extras, before the study
    if not options["tables_only"]:
        require_extra(
            "report", ["matplotlib"], "dissensus tendency (report.html; or --tables-only)"
        )
    if options["baselines"] and options["text"]:
        require_extra("models", ["sklearn"], "dissensus tendency --baselines --text")
    pred_paths = opt.parse_pred(preds, bare=True)
    inputs = [annotations, *pred_paths.values()]
    names = list(pred_paths)
    if options["baselines"]:
        if taken := [n for n in names if n in _TENDENCY_BASELINES]:
            msg = f"{taken[0]!r} is the name of a baseline that --baselines adds; give the predictions another NAME (--pred NAME=PATH)."
            raise click.BadParameter(msg, param_hint="--pred")
        names += _TENDENCY_BASELINES
    try:
        files = [*td.REPORT_FILES, *td.report_files(names).values()]
    except ValueError as exc:  # two names, one file: say so before any work
        msg = f"{str(exc).removesuffix('.')} (--pred NAME=PATH)."
        raise click.BadParameter(msg, param_hint="--pred") from None
    with locked_dir(out, inputs=inputs, names=files), stages() as stage:
        text = opt.split_names(options["text"])
        stage(f"reading {annotations}")
        true = opt.load_annotations(annotations, meta_too=text, **options)
        frames = {n: td.read_annotator_predictions(p, true.scale) for n, p in pred_paths.items()}
        notes = [f"{annotations}: {true!r}"]
        if frames:
            covered = np.asarray(true.items.isin(pd.concat([f["item"] for f in frames.values()])))
            if not covered.any():
                msg = "no item of the predictions is in the annotations (do the item ids match, including their type?)."
                raise DataError(msg)
            train, test = td.subset_items(true, ~covered), td.subset_items(true, covered)
            notes.append(
                f"evaluated on the {test.n_items} items the predictions cover; {train.n_items} other items train the baselines"
            )
        else:
            train, test = td.split_items(true, test_size=options["test_size"], seed=seed)
            notes.append(f"items split {train.n_items} train / {test.n_items} test (seed {seed})")
        sets: dict[str, tuple[Any, bool]] = {name: (f, soft) for name, f in frames.items()}
        if options["baselines"]:
            stage("baselines: random, consensus")
            sets["random"] = (td.random_baseline(test, train=train, seed=seed), False)
            sets["consensus"] = (td.consensus_baseline(test), False)
            sets["consensus_soft"] = (td.consensus_baseline(test, soft=True), True)
            if not text:
                notes.append("per-annotator-bias baseline skipped: give --text COL,COL (item text)")
            elif train.n_items == 0:
                msg = "the per-annotator-bias baseline needs training items; the predictions cover every item."
                raise DataError(msg)
            else:
                stage(f"baselines: per-annotator bias (training on {train.n_items} items)")
                bias = td.itl_bias_baseline(train, test, text=text, seed=seed)
                sets["annotator_bias"] = (bias, soft)
        pairs = {key: options[key] for key in ("measure", "weights", "level")}
        boot = {key: options[key] for key in ("min_overlap", "ci_method", "n_resamples")}
        results, curves = {}, {}
        with warnings_as_lines():
            for name, (frame, is_soft) in sets.items():
                stage(f"DIC and tau curve of {name} ({options['n_resamples']} bootstrap resamples)")
                results[name] = td.dic(test, frame, soft=is_soft, seed=seed, **boot, **pairs)
                curves[name] = td.tau_curve(test, frame, soft=is_soft, **pairs)
        n_pairs = next(iter(results.values())).n_pairs
        notes.append(
            f"measure {pairs['measure']}, tau = {tau}; {n_pairs} pairs defined in the true matrix"
        )
        study = td.TendencyStudy(results, curves, notes)
        stage(f"writing {out}")
        td.write_report(study, out, seed=seed, figures=not options["tables_only"], inputs=inputs)
    click.echo(f"DIC ({pairs['measure']}, tau={tau}, {test.n_items} test items)")
    rows = td.dic_table(results).to_dict("records")
    width = max(len(str(r["predictions"])) for r in rows)
    for r in rows:
        dic, low, high = (
            "" if math.isnan(x) else f"{x:.3f}" for x in (r["dic"], r["ci_low"], r["ci_high"])
        )
        undefined = f" ({r['n_pairs_undefined']} undefined)" if r["n_pairs_undefined"] else ""
        click.echo(
            f"  {r['predictions']!s:<{width}}  {dic}  [{low}, {high}]  bias {float(r['bootstrap_bias']):+.3f}  pairs {int(r['n_pairs'])}{undefined}"
        )
    click.echo(f"wrote {out}")
