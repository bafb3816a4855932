"""Allocation strategies: where to send the next annotations, against cleanlab's ActiveLab.

    python -m benchmarks allocation [--quick] [--seeds S] [--items N] [--rounds R]
                                    [--batch B] [--markdown PATH]

Each seed of each world draws ``N`` items' true label distributions, four
candidate models (``truth``, ``noisy``, ``tempered``, ``smoothed`` of
:func:`dissensus.simulate.candidate_predictions`), a pool of 20 annotators
and, for every item, the order in which distinct annotators would label it
and the labels they would give (pre-drawn: the t-th label an item receives
is the same under every strategy). Every item starts with 2 labels; each
strategy then spends ``R`` rounds of ``B`` labels (one per chosen item) from
that same start. So the strategies differ only in where they spend, and the
comparison is paired by seed.

Strategies:

- ``next_items[<objective>]``: :func:`dissensus.allocate.next_items` with each
  expected metric it offers as the objective (``list_metrics(kind="expected")``),
  the default prior, re-ranked after each round;
- ``activelab``: cleanlab's ActiveLab
  (``cleanlab.multiannotator.get_active_learning_scores``; the lowest scores
  are labelled next), given the annotators' label matrix and, as its
  classifier's ``pred_probs``, the mean of the candidate models' predictions
  (the models being compared are the only classifiers in the world);
  reported "not installed" when cleanlab is absent;
- ``random``: a uniformly random set of items;
- ``fewest_labels``: the items with the fewest labels (random tie-break);
- ``entropy``: the items whose posterior-mean label distribution (default
  prior) has the largest entropy (uncertainty sampling).

Worlds: ``skewed ordinal`` (K = 5, ``draw_truth(truth="skewed")``: most mass
on one end, as in ConvAbuse), ``near-uniform`` (K = 5, Dirichlet(10, ..., 10)
truths), ``binary, unreliable`` (K = 2, ``truth="mixture"``; 4 of the 20
annotators label at random). The truth is the distribution of the reliable
annotators' labels. In the two K = 5 worlds the models are closer to the truth
than :func:`~dissensus.simulate.candidate_predictions`' defaults (:data:`CLOSE`:
with the defaults random allocation ranks them perfectly in the skewed world);
the binary world keeps the defaults.

Outcomes after the last round, per seed:

- ``tau``: Kendall's tau-b between the models' ranking by the verdict's
  estimator for EMD (the debiased form, :data:`dissensus.evaluation._verdict.VERDICT_ESTIMATOR`:
  the jackknife ``debiased[emd]`` averaged over items) and their true ranking
  (mean EMD against the true distributions);
- ``best``: whether that ranking puts the truly best model first;
- ``coverage``: the share of model pairs whose verdict interval for the true
  difference (RPS, which has an unbiased estimator: the Student t interval
  with Hall's skewness correction of the per-item ``debiased[rps]``
  differences, as :func:`dissensus.evaluation.Evaluation.true_differences`
  computes it) covers the true mean difference on these items (nominal 95%);
- ``accuracy``: share of items whose majority-vote label (random tie-break)
  is the true distribution's most likely label (ActiveLab's own goal).

Printed per world: each strategy's mean outcome over seeds and its paired
difference from ``random`` with a 95% t interval over seeds.
"""

# ruff: noqa: E402 -- BLAS threads are set before numpy is imported
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import contextlib
import importlib.metadata
import io
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats as sps

from dissensus.allocate import next_items
from dissensus.metrics import entropy, get_metric, list_metrics
from dissensus.posterior import dirichlet
from dissensus.simulate import candidate_predictions, draw_truth
from dissensus.stats import kendall_tau_b_rows, mean_interval

try:
    from cleanlab.multiannotator import get_active_learning_scores
except Exception:  # a broken peer counts as absent
    get_active_learning_scores = None

CANDIDATES = ("truth", "noisy", "tempered", "smoothed")
N_ANNOTATORS = 20
INITIAL = 2
OUTCOMES = ("tau", "best", "coverage", "accuracy")
RANK_METRIC = "emd"  # ranked by its debiased form, as the verdict does
COVER_METRIC = "rps"  # the verdict's true-difference interval exists for it


#: Models close enough to the truth that 300 items x 3 labels do not settle their ranking
#: (with the defaults of candidate_predictions random allocation already ranks them perfectly
#: in the skewed world: tau 1.0 over 12 seeds).
CLOSE = {"temperature": 1.3, "noise_strength": 60.0, "sigma": 0.4}


@dataclass(frozen=True)
class World:
    name: str
    n_classes: int
    truth: str
    n_unreliable: int = 0
    candidate_options: tuple[tuple[str, float], ...] = tuple(CLOSE.items())


WORLDS = (
    World("skewed ordinal", 5, "skewed"),
    World("near-uniform", 5, "flat"),
    World("binary, unreliable", 2, "mixture", n_unreliable=4, candidate_options=()),
)


@dataclass
class Draw:
    """One seed of one world: truth, models, pre-drawn annotators and labels."""

    pi: np.ndarray  # (N, K)
    Q: dict[str, np.ndarray]
    who: np.ndarray  # (N, T) annotator of each item's t-th label
    label: np.ndarray  # (N, T) that label
    rng_seed: list[int]


def draw_world(world: World, seed: int, n_items: int, n_labels: int) -> Draw:
    rng = np.random.default_rng([WORLDS.index(world), seed])
    K = world.n_classes
    pi = draw_truth(n_items, K, truth=world.truth, seed=rng)
    Q = candidate_predictions(pi, CANDIDATES, seed=rng, **dict(world.candidate_options))
    # each item's annotators: the first n_labels of a random permutation of the pool (distinct)
    who = np.argsort(rng.random((n_items, N_ANNOTATORS)), axis=1)[:, :n_labels]
    unreliable = who < world.n_unreliable
    probs = np.where(unreliable[..., None], 1.0 / K, pi[:, None, :])  # (N, T, K)
    u = rng.random(who.shape)
    label = np.minimum((np.cumsum(probs, axis=-1) < u[..., None]).sum(axis=-1), K - 1)
    return Draw(pi, Q, who, label, [WORLDS.index(world), seed, 1])


# --------------------------------------------------------------------------- strategies

Scorer = Callable[[np.ndarray, np.ndarray, Draw, np.random.Generator], np.ndarray]


def _next_items(objective: str) -> Scorer:
    def score(counts: np.ndarray, labels: np.ndarray, d: Draw, rng: Any) -> np.ndarray:
        top = next_items(counts, d.Q, metric=objective, budget=counts.shape[0])
        out = np.empty(counts.shape[0])
        out[top["item"].to_numpy()] = top["expected_gain"].to_numpy()
        return out

    return score


def _activelab(counts: np.ndarray, labels: np.ndarray, d: Draw, rng: Any) -> np.ndarray:
    used = ~np.isnan(labels).all(axis=0)  # cleanlab refuses annotators with no label yet
    pred = np.mean([d.Q[c] for c in CANDIDATES], axis=0)
    with contextlib.redirect_stdout(io.StringIO()):  # cleanlab prints a CAUTION per call
        scores, _ = get_active_learning_scores(labels[:, used], pred)
    return -np.asarray(scores, dtype=np.float64)  # lowest ActiveLab score first


def _random(counts: np.ndarray, labels: np.ndarray, d: Draw, rng: Any) -> np.ndarray:
    return rng.random(counts.shape[0])


def _fewest(counts: np.ndarray, labels: np.ndarray, d: Draw, rng: Any) -> np.ndarray:
    return -(counts.sum(axis=1) + 0.5 * rng.random(counts.shape[0]))


def _entropy(counts: np.ndarray, labels: np.ndarray, d: Draw, rng: Any) -> np.ndarray:
    a = dirichlet(counts)
    return entropy(a / a.sum(axis=1, keepdims=True))


def strategies() -> dict[str, Scorer | None]:
    """Name -> scorer (higher is labelled first); None: the peer is not installed."""
    out: dict[str, Scorer | None] = {
        f"next_items[{m}]": _next_items(m) for m in list_metrics(kind="expected")
    }
    out["activelab"] = None if get_active_learning_scores is None else _activelab
    out |= {"random": _random, "fewest_labels": _fewest, "entropy": _entropy}
    return out


# --------------------------------------------------------------------------- one run


def outcomes(counts: np.ndarray, d: Draw) -> dict[str, float]:
    """The four outcomes of the final counts (module docstring)."""
    models = [d.Q[c] for c in CANDIDATES]
    rank, true_rank = get_metric(f"debiased[{RANK_METRIC}]"), get_metric(RANK_METRIC)
    est = np.array([rank.func(counts, q).mean() for q in models])
    tru = np.array([true_rank.func(d.pi, q).mean() for q in models])
    tau = float(kendall_tau_b_rows(-est, -tru))
    best = float(np.argmin(est) == np.argmin(tru))
    cover, cover_true = get_metric(f"debiased[{COVER_METRIC}]"), get_metric(COVER_METRIC)
    a, b = np.triu_indices(len(models), k=1)
    D = np.stack([cover.func(counts, q) for q in models])
    T = np.stack([cover_true.func(d.pi, q) for q in models])
    r = mean_interval(D[a] - D[b])
    target = (T[a] - T[b]).mean(axis=1)
    coverage = float(((r.ci_low <= target) & (target <= r.ci_high)).mean())
    # majority vote, ties broken by a fixed random order of the classes per item
    jitter = np.random.default_rng([*d.rng_seed, 2]).random(counts.shape)
    vote = np.argmax(counts + 0.5 * jitter, axis=1)
    accuracy = float((vote == np.argmax(d.pi, axis=1)).mean())
    return {"tau": tau, "best": best, "coverage": coverage, "accuracy": accuracy}


def run_strategy(score: Scorer, d: Draw, *, rounds: int, batch: int) -> dict[str, float]:
    N, K = d.pi.shape
    rows = np.arange(N)
    counts = np.zeros((N, K), dtype=np.int64)
    labels = np.full((N, N_ANNOTATORS), np.nan)
    for t in range(INITIAL):
        np.add.at(counts, (rows, d.label[:, t]), 1)
        labels[rows, d.who[:, t]] = d.label[:, t]
    used = np.full(N, INITIAL)
    rng = np.random.default_rng(d.rng_seed)  # the same stream for every strategy
    for _ in range(rounds):
        s = score(counts, labels, d, rng)
        idx = np.argsort(-s, kind="stable")[:batch]
        t = used[idx]
        np.add.at(counts, (idx, d.label[idx, t]), 1)
        labels[idx, d.who[idx, t]] = d.label[idx, t]
        used[idx] += 1
    return outcomes(counts, d)


def run_world(
    world: World,
    names: dict[str, Scorer | None],
    *,
    seeds: int,
    n_items: int,
    rounds: int,
    batch: int,
) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """(strategy -> (seeds, outcomes) array, strategy -> seconds)."""
    res = {s: np.full((seeds, len(OUTCOMES)), np.nan) for s, f in names.items() if f is not None}
    secs = dict.fromkeys(res, 0.0)
    for seed in range(seeds):
        d = draw_world(world, seed, n_items, INITIAL + rounds)
        for s, x in res.items():
            scorer = names[s]
            assert scorer is not None
            t0 = time.process_time()
            out = run_strategy(scorer, d, rounds=rounds, batch=batch)
            secs[s] += time.process_time() - t0
            x[seed] = [out[o] for o in OUTCOMES]
    return res, secs


# --------------------------------------------------------------------------- report


def _paired(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Mean of x - y over seeds with its 95% Student t interval (NaN seeds dropped)."""
    d = x - y
    d = d[np.isfinite(d)]
    m = float(d.mean()) if d.size else np.nan
    if d.size < 2:
        return m, np.nan, np.nan
    half = float(sps.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size))
    return m, m - half, m + half


def table(res: dict[str, np.ndarray], secs: dict[str, float], absent: list[str]) -> list[str]:
    head = (
        "| strategy | "
        + " | ".join(OUTCOMES)
        + " | "
        + " | ".join(f"Δ{o} vs random [95% CI]" for o in OUTCOMES)
        + " | CPU s |"
    )
    lines = [head, "|" + "---|" * (2 * len(OUTCOMES) + 2)]
    base = res["random"]
    for s, x in res.items():
        means = [f"{np.nanmean(x[:, j]):.3f}" for j in range(len(OUTCOMES))]
        diffs = []
        for j in range(len(OUTCOMES)):
            if s == "random":
                diffs.append("")
                continue
            m, lo, hi = _paired(x[:, j], base[:, j])
            mark = "**" if lo > 0 or hi < 0 else ""
            diffs.append(f"{mark}{m:+.3f} [{lo:+.3f}, {hi:+.3f}]{mark}")
        lines.append(f"| {s} | " + " | ".join(means + diffs) + f" | {secs[s]:.1f} |")
    lines += [f"| {s} | not installed |" + " |" * (2 * len(OUTCOMES)) for s in absent]
    return lines


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks allocation", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--quick", action="store_true", help="tiny: 3 seeds, 60 items, 2 rounds")
    ap.add_argument("--seeds", type=int, default=None, help="paired replicates per world (40)")
    ap.add_argument("--items", type=int, default=None, help="items per world (300)")
    ap.add_argument("--rounds", type=int, default=None, help="rounds after the start (6)")
    ap.add_argument("--batch", type=int, default=None, help="labels per round (N / 5)")
    ap.add_argument("--markdown", type=Path, default=None, help="also write the page here")
    args = ap.parse_args(argv)
    seeds = args.seeds or (3 if args.quick else 40)
    n_items = args.items or (60 if args.quick else 300)
    rounds = args.rounds or (2 if args.quick else 6)
    batch = args.batch or n_items // 5
    if not (seeds >= 2 and 1 <= batch <= n_items and rounds >= 1):
        ap.error("need --seeds >= 2, --rounds >= 1 and 1 <= --batch <= --items")
    names = strategies()
    absent = [s for s, f in names.items() if f is None]
    command = " ".join(
        ["python -m benchmarks allocation", *(argv if argv is not None else sys.argv[2:])]
    )
    try:
        cl = importlib.metadata.version("cleanlab")
    except importlib.metadata.PackageNotFoundError:
        cl = "not installed"
    lines = [
        "# Allocation strategies against cleanlab's ActiveLab",
        "",
        f"Command: `{command}`",
        "",
        f"{seeds} paired seeds per world, {n_items} items, {INITIAL} labels per item at the "
        f"start, then {rounds} rounds of {batch} labels (one per chosen item); {len(CANDIDATES)} "
        f"candidate models ({', '.join(CANDIDATES)}); {N_ANNOTATORS} annotators. "
        f"cleanlab {cl}, load average {[round(x, 2) for x in os.getloadavg()]}.",
        "",
        f"tau: Kendall tau-b of the ranking by debiased[{RANK_METRIC}] (the verdict's estimator) "
        f"with the true ranking; best: P(truly best model ranked first); coverage: share of "
        f"model pairs whose 95% verdict interval for the true {COVER_METRIC.upper()} difference "
        "covers it; accuracy: majority-vote label = true most likely label. Δ: paired "
        "difference from random over seeds, 95% t interval; **bold**: the interval excludes 0. "
        "The method is in the docstring of benchmarks/bench_allocation.py.",
    ]
    print("\n".join(lines), flush=True)
    for world in WORLDS:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res, secs = run_world(
                world, names, seeds=seeds, n_items=n_items, rounds=rounds, batch=batch
            )
        block = [
            "",
            f"## {world.name} (K = {world.n_classes}, truth {world.truth!r}"
            + (f"; models {dict(world.candidate_options)}" if world.candidate_options else "")
            + (
                f", {world.n_unreliable} of {N_ANNOTATORS} annotators label at random"
                if world.n_unreliable
                else ""
            )
            + f"; {time.perf_counter() - t0:.0f} s)",
            "",
            *table(res, secs, absent),
        ]
        print("\n".join(block), flush=True)
        lines += block
    text = "\n".join(lines) + "\n"
    if args.markdown is not None:
        args.markdown.write_text(text, encoding="utf-8")
    return text


if __name__ == "__main__":
    main()
