r"""Does a plan deliver what it states? :func:`dissensus.simulate.plan` checked where the truth is known.

Per truth family (:data:`WORLDS`) and pilot size, one pilot of ``P`` items with
3 annotations each is drawn from the known truth, with two models' predictions
(:func:`~dissensus.simulate.candidate_predictions`: **A** ``"noisy"``,
:math:`\mathrm{Dir}(20\,\pi_i + 10^{-3})`, and **B** ``"shrunk"``,
:math:`(1 - s)\,\pi_i + s / K`). :func:`~dissensus.simulate.plan` computes the
frontier from the pilot alone. Then each planned design is run on fresh draws
from the truth, ``R`` replicates of it, exactly as a user would run it:

- **compare**: ``N`` new items (truth, both models' predictions, ``n`` labels
  each); the verdict's 95% interval for the mean per-item difference
  (:func:`dissensus.stats.mean_interval`, Hall's skewness correction, as
  ``Evaluation.true_differences`` reports it) must exclude zero on the side of
  the TRUE difference. ``achieved`` is the share of replicates where it does,
  its Monte Carlo standard error :math:`\sqrt{p(1-p)/R}`; ``stated`` is the
  plan's power at that design. ``oracle`` is the plan's own power at that
  design when calibrated on a pilot of :data:`_ORACLE_ITEMS` items (whose
  estimates are nearly exact): ``achieved`` vs ``oracle`` checks the method
  (variance components scaled in ``N`` and ``n``, the shape of the per-item
  differences drawn from the posterior world, the Monte Carlo test);
  ``stated`` vs ``oracle`` is the error of calibrating on a pilot of ``P``
  items.
- **agreement**: ``N`` items with ``n`` labels each; alpha (nominal) of each
  replicate from its coincidence matrix
  (:func:`dissensus.agreement.kernels.alpha_from_coincidences`, the
  coefficient's own formula); ``achieved`` is the half-width
  :math:`z_{0.975}\,\mathrm{sd}_R(\hat\alpha)` with standard error
  :math:`\approx z\,\mathrm{sd}/\sqrt{2(R-1)}`, ``stated`` the plan's.
- **distribution**: the mean per-item error at ``n`` on ``R × 200`` fresh
  items, with its standard error.

A cell passes when ``achieved`` is within 3 standard errors of ``stated``.

Run ``python -m dissensus.simulate.plan_validation --out docs/plan_validation.md``
to regenerate the checked-in table.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats

from dissensus.agreement.kernels import alpha_from_coincidences
from dissensus.data import LabelCounts, Scale
from dissensus.metrics import Metric
from dissensus.posterior import PriorFitWarning, fit_dirichlet_prior
from dissensus.simulate._plan import (
    CompareCalibration,
    Plan,
    _vertex_scores,
    calibrate_compare,
    compare_metric,
    compare_pool,
    mc_power,
    plan,
)
from dissensus.simulate._synthetic import TruthLike, candidate_predictions, draw_truth
from dissensus.stats import mean_interval

FloatArray = npt.NDArray[np.float64]

__all__ = ["WORLDS", "ValidationWorld", "plan_validation", "plan_validation_markdown"]


@dataclass(frozen=True)
class ValidationWorld:
    """A truth family: name, ``K`` classes, the truth of :func:`draw_truth`, model B's shrink."""

    name: str
    n_classes: int
    truth: TruthLike
    shrink: float


#: The truth families of the checked-in table.
WORLDS: tuple[ValidationWorld, ...] = (
    ValidationWorld("skewed ordinal: ConvAbuse-like Dir(1.5 m), K = 5", 5, "skewed", 0.25),
    ValidationWorld("near-uniform: Dir(20), K = 5", 5, [20.0] * 5, 0.3),
    ValidationWorld("binary, rare positive: Beta(0.5, 2), K = 2", 2, [0.5, 2.0], 0.3),
)
#: Pilot sizes (items, 3 annotations each) of the checked-in table.
PILOT_SIZES: tuple[int, ...] = (100, 2000)
#: Annotations per item of each pilot item.
PILOT_ANNOTATIONS = 3
#: Annotations per item of the frontier checked.
ANNOTATIONS: tuple[int, ...] = (2, 3, 5, 10, 20)
#: Items of the oracle's pilot (its estimates are nearly exact), and its studies per power.
_ORACLE_ITEMS = 100_000
_ORACLE_STUDIES = 2000
#: Item rows per block of fresh replicates (memory: a few (rows, K) arrays).
_BLOCK_ROWS = 1 << 18
#: Designs with more items are not run (their rows say so): R N rows would take minutes.
MAX_RUN_ITEMS = 20_000
#: Items per replicate of the distribution goal's check.
_DISTRIBUTION_ITEMS = 200
_COLUMNS = [
    "world",
    "pilot_items",
    "goal",
    "annotations_per_item",
    "n_items",
    "stated",
    "oracle",
    "achieved",
    "se",
    "within_3se",
    "replicates",
]


def _models(
    pi: FloatArray, world: ValidationWorld, rng: np.random.Generator
) -> dict[str, FloatArray]:
    return candidate_predictions(pi, ["noisy", "shrunk"], shrink=world.shrink, seed=rng)


def _scale(K: int) -> Scale:
    return Scale.ordinal(list(range(1, K + 1)))


def _oracle(
    world: ValidationWorld, metric: str, rng: np.random.Generator
) -> tuple[CompareCalibration, float]:
    """The compare calibration of a pilot of :data:`_ORACLE_ITEMS` items, and the TRUE delta."""
    K = world.n_classes
    pi = draw_truth(_ORACLE_ITEMS, K, truth=world.truth, seed=rng)
    pilot = LabelCounts.from_array(rng.multinomial(PILOT_ANNOTATIONS, pi), scale=_scale(K))
    q = _models(pi, world, rng)
    with warnings.catch_warnings(action="ignore", category=PriorFitWarning):
        prior = fit_dirichlet_prior(pilot).alpha0
    cal = calibrate_compare(pilot, q, metric=metric, prior=prior)
    met = compare_metric(metric)
    d = _vertex_scores(met, q[cal.best]) - _vertex_scores(met, q[cal.runner_up])
    return cal, float((pi * d).sum(axis=1).mean())


def _oracle_power(
    cal: CompareCalibration, design: tuple[int, int], *, sign: float, rng: np.random.Generator
) -> float:
    """The plan's Monte Carlo power of ``design`` under the oracle calibration."""
    N, n = design
    pool = compare_pool(cal, n, size=50_000, rng=rng)
    studies = pool[rng.integers(pool.size, size=(_ORACLE_STUDIES, N))]
    return float(mc_power(studies, [N], sign=sign, significance=0.05)[0])


def _blocks(R: int, N: int) -> Iterator[int]:
    """Replicates per block: about :data:`_BLOCK_ROWS` rows each."""
    per = max(1, _BLOCK_ROWS // max(N, 1))
    for start in range(0, R, per):
        yield min(per, R - start)


def _compare_hits(
    world: ValidationWorld,
    met: Metric,
    order: tuple[str, str],
    design: tuple[int, int],
    *,
    sign: float,
    R: int,
    rng: np.random.Generator,
) -> FloatArray:
    """Per replicate, whether the 95% interval excludes zero on the side ``sign`` of the truth."""
    N, n = design
    out = []
    for reps in _blocks(R, N):
        pi = draw_truth(reps * N, world.n_classes, truth=world.truth, seed=rng)
        q = _models(pi, world, rng)
        d = _vertex_scores(met, q[order[0]]) - _vertex_scores(met, q[order[1]])
        D = ((rng.multinomial(n, pi) / n) * d).sum(axis=1).reshape(reps, N)
        r = mean_interval(D, confidence_level=0.95)
        out.append(r.ci_low > 0 if sign > 0 else r.ci_high < 0)
    return np.concatenate(out).astype(np.float64)


def _alpha_draws(
    world: ValidationWorld, design: tuple[int, int], R: int, rng: np.random.Generator
) -> FloatArray:
    """Nominal alpha of ``R`` fresh datasets of ``N`` items with ``n`` labels each."""
    N, n = design
    K = world.n_classes
    out = []
    for reps in _blocks(R, N):
        pi = draw_truth(reps * N, K, truth=world.truth, seed=rng)
        X = rng.multinomial(n, pi).astype(np.float64).reshape(reps, N, K)
        # coincidences of a replicate: sum over items of (x x' - diag x) / (n - 1)
        o = np.einsum("rik,ril->rkl", X, X)
        o[:, np.arange(K), np.arange(K)] -= X.sum(axis=1)
        out.append(alpha_from_coincidences(o / (n - 1.0), "nominal", None))
    return np.concatenate(out)


def _not_run(
    base: dict[str, Any], goal: str, design: tuple[int, int], *, stated: float, oracle: float
) -> dict[str, Any]:
    """The row of a design too large to run (:data:`MAX_RUN_ITEMS`)."""
    N, n = design
    return {
        **base,
        "goal": goal,
        "annotations_per_item": n,
        "n_items": N,
        "stated": stated,
        "oracle": oracle,
        "achieved": math.nan,
        "se": math.nan,
        "within_3se": None,
        "replicates": 0,
    }


def _row(**values: Any) -> dict[str, Any]:
    achieved, se, stated = values["achieved"], values["se"], values["stated"]
    values["within_3se"] = bool(abs(achieved - stated) <= 3 * se) if se > 0 else False
    return values


def validate_world(
    world: ValidationWorld, pilot_items: int, *, replicates: int, seed: np.random.SeedSequence
) -> list[dict[str, Any]]:
    """The rows of one world and pilot size (module docstring)."""
    rng = np.random.default_rng(seed)
    K = world.n_classes
    pi = draw_truth(pilot_items, K, truth=world.truth, seed=rng)
    pilot = LabelCounts.from_array(rng.multinomial(PILOT_ANNOTATIONS, pi), scale=_scale(K))
    result: Plan = plan(pilot, _models(pi, world, rng), annotations=ANNOTATIONS, seed=rng)
    cal = result.compare
    assert cal is not None
    met = compare_metric(cal.metric)
    oracle, true_delta = _oracle(world, cal.metric, rng)
    # the side the truth is on, for the pair the pilot chose (best minus runner-up)
    sign = float(np.sign(true_delta)) * (1.0 if oracle.best == cal.best else -1.0)
    osign = float(np.sign(oracle.delta)) * (1.0 if oracle.best == cal.best else -1.0)
    f = result.frontier
    base = {"world": world.name, "pilot_items": pilot_items}
    rows = []
    for _, r in f[(f["goal"] == "compare") & f["reached"]].iterrows():
        N, n = int(r["n_items"]), int(r["annotations_per_item"])
        if N > MAX_RUN_ITEMS:
            rows.append(
                _not_run(
                    base,
                    "compare",
                    (N, n),
                    stated=float(r["achieved"]),
                    oracle=math.nan,
                )
            )
            continue
        hits = _compare_hits(
            world,
            met,
            (cal.best, cal.runner_up),
            (N, n),
            sign=sign,
            R=replicates,
            rng=rng,
        )
        p = float(hits.mean())
        rows.append(
            _row(
                **base,
                goal="compare",
                annotations_per_item=n,
                n_items=N,
                stated=float(r["achieved"]),
                oracle=_oracle_power(oracle, (N, n), sign=osign, rng=rng)
                if oracle.best == cal.best
                else math.nan,
                achieved=p,
                se=math.sqrt(max(p * (1 - p), 1e-12) / replicates),
                replicates=replicates,
            )
        )
    z = float(stats.norm.ppf(0.975))
    for _, r in f[(f["goal"] == "agreement") & f["reached"]].iterrows():
        N, n = int(r["n_items"]), int(r["annotations_per_item"])
        if N > MAX_RUN_ITEMS:
            rows.append(
                _not_run(base, "agreement", (N, n), stated=float(r["achieved"]), oracle=math.nan)
            )
            continue
        a = _alpha_draws(world, (N, n), replicates, rng)
        sd = float(np.std(a, ddof=1))
        rows.append(
            _row(
                **base,
                goal="agreement",
                annotations_per_item=n,
                n_items=N,
                stated=float(r["achieved"]),
                oracle=math.nan,
                achieved=z * sd,
                se=z * sd / math.sqrt(2.0 * (replicates - 1)),
                replicates=replicates,
            )
        )
    measure = str(result.settings["error_measure"])
    for _, r in f[f["goal"] == "distribution"].iterrows():
        n = int(r["annotations_per_item"])
        M = replicates * _DISTRIBUTION_ITEMS
        truth = draw_truth(M, K, truth=world.truth, seed=rng)
        diff = np.abs(rng.multinomial(n, truth) / n - truth)
        e = diff.sum(axis=1) if measure == "mean_l1" else diff.max(axis=1)
        rows.append(
            _row(
                **base,
                goal="distribution",
                annotations_per_item=n,
                n_items=None,
                stated=float(r["achieved"]),
                oracle=math.nan,
                achieved=float(e.mean()),
                se=float(e.std(ddof=1) / math.sqrt(M)),
                replicates=replicates,
            )
        )
    return rows


def plan_validation(
    worlds: Sequence[ValidationWorld] = WORLDS,
    pilot_sizes: Sequence[int] = PILOT_SIZES,
    *,
    replicates: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """One row per world, pilot size, goal and design (module docstring; :data:`_COLUMNS`)."""
    cells = [(w, p) for w in worlds for p in pilot_sizes]
    seeds = np.random.SeedSequence(seed).spawn(len(cells))
    rows = [
        row
        for (w, p), ss in zip(cells, seeds, strict=True)
        for row in validate_world(w, p, replicates=replicates, seed=ss)
    ]
    frame = pd.DataFrame(rows, columns=_COLUMNS)
    frame["n_items"] = frame["n_items"].astype("Int64")
    return frame


def _f(x: float, digits: int = 3) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _items(N: Any) -> str:
    return "any" if pd.isna(N) else f"{int(N):,}"


def _misses(g: pd.DataFrame, ref: str) -> str:
    """The run rows of ``g`` whose achieved value is not within 3 SE of column ``ref``."""
    miss = g[(g["achieved"] - g[ref]).abs() > 3 * g["se"]]
    if miss.empty:
        return "none"
    return "; ".join(
        f"{r['world'].split(':')[0]}, pilot {r['pilot_items']}, n = {r['annotations_per_item']}, "
        f"N = {_items(r['n_items'])}: {ref} "
        f"{_f(r[ref], 4)}, achieved {_f(r['achieved'], 4)}"
        for _, r in miss.iterrows()
    )


def plan_validation_markdown(result: pd.DataFrame, *, command: str, settings: str) -> str:
    """The Markdown document of a :func:`plan_validation` result (docs/plan_validation.md)."""
    run = result[result["replicates"] > 0]
    comp = run[run["goal"] == "compare"]
    skipped = result[result["replicates"] == 0]
    lines = [
        "# Does `dissensus plan` deliver its stated power? Checked where the truth is known",
        "",
        f"Generated by `{command}` ({settings}); do not edit by hand. The worlds, the two models "
        "and the checks are described in `dissensus.simulate.plan_validation`; the plan's method "
        "in `dissensus.simulate.plan`.",
        "",
        "## Headline",
        "",
    ]
    for pilot, g in comp.groupby("pilot_items", sort=True):
        ok_s = int(((g["achieved"] - g["stated"]).abs() <= 3 * g["se"]).sum())
        ok_o = int(((g["achieved"] - g["oracle"]).abs() <= 3 * g["se"]).sum())
        lines += [
            f"- compare, pilot of {pilot} items: achieved power within 3 Monte Carlo SE of the "
            f"stated power in {ok_s} of {len(g)} designs run (stated {_f(g['stated'].min())}–"
            f"{_f(g['stated'].max())}, achieved {_f(g['achieved'].min())}–"
            f"{_f(g['achieved'].max())}). Not within: {_misses(g, 'stated')}.",
            f"- compare, pilot of {pilot} items, against the plan's power when calibrated on "
            f"{_ORACLE_ITEMS:,} pilot items (oracle): within 3 SE in {ok_o} of {len(g)}. Not within: "
            f"{_misses(g, 'oracle')}.",
        ]
    for goal in ("agreement", "distribution"):
        g = run[run["goal"] == goal]
        if len(g):
            lines.append(
                f"- {goal}: achieved within 3 SE of stated in {int(g['within_3se'].sum())} of "
                f"{len(g)} designs run (largest gap "
                f"{_f(float((g['achieved'] - g['stated']).abs().max()), 4)}). Not within: "
                f"{_misses(g, 'stated')}."
            )
    if len(skipped):
        lines.append(
            f"- Not run ({len(skipped)} designs): more than {MAX_RUN_ITEMS:,} items planned, "
            "marked 'not run' below (a pilot whose difference is near zero plans huge studies)."
        )
    lines += [
        "",
        "Reading: `oracle` is what the plan would state if its pilot estimates were nearly "
        "exact; `achieved` vs `oracle` tests the method (variance components scaled in N and n, "
        "the shape of the per-item differences, the Monte Carlo power of the skewness-corrected "
        "interval), `stated` vs `oracle` the pilot's sampling error: the power at a planned N "
        "moves by several points when the pilot's difference is off by a few percent, which a "
        "pilot of 100 (even 2000) items cannot rule out. `dissensus plan` prints the pilot "
        "difference with its standard error and warns when it is under 2 SE; a plan is only as "
        "good as that estimate.",
        "",
        "Columns: n = annotations per item, N = items planned; compare: power; agreement: "
        "half-width of alpha's 95% interval; distribution: mean L1 error per item. "
        "✓ = achieved within 3 Monte Carlo SE of stated, ✗ = not.",
    ]
    for (world, size), g in result.groupby(["world", "pilot_items"], sort=False):
        lines += ["", f"## {world}; pilot of {size} items", ""]
        lines += [
            "| goal | n | N | stated | oracle | achieved | SE | |",
            "|---|---:|---:|---:|---:|---:|---:|---|",
        ]
        for _, r in g.iterrows():
            N = _items(r["n_items"])
            digits = 3 if r["goal"] == "compare" else 4
            mark = "not run" if r["replicates"] == 0 else "✓" if r["within_3se"] else "✗"
            lines.append(
                f"| {r['goal']} | {r['annotations_per_item']} | {N} | {_f(r['stated'], digits)} | "
                f"{_f(r['oracle'], digits)} | {_f(r['achieved'], digits)} | {_f(r['se'], digits)} | "
                f"{mark} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dissensus.simulate.plan_validation``: run the checks, write the Markdown."""
    parser = argparse.ArgumentParser(
        prog="python -m dissensus.simulate.plan_validation",
        description="Does a plan computed from a pilot deliver its stated power?",
    )
    parser.add_argument("--out", type=Path, help="Markdown file to write (default: print it).")
    parser.add_argument("--replicates", type=int, default=1000, help="Replicates per design.")
    parser.add_argument("--seed", type=int, default=0, help="Seed of every draw.")
    args = parser.parse_args(argv)
    if args.replicates < 10:
        parser.error(f"--replicates must be an integer >= 10; got {args.replicates}.")
    if args.seed < 0:
        parser.error(f"--seed must be >= 0; got {args.seed}.")
    t0 = time.perf_counter()
    res = plan_validation(replicates=args.replicates, seed=args.seed)
    command = "python -m dissensus.simulate.plan_validation"
    if (args.replicates, args.seed) != (1000, 0):
        command += f" --replicates {args.replicates} --seed {args.seed}"
    if args.out is not None:
        command += f" --out {args.out}"
    settings = (
        f"{args.replicates} replicates per design, pilots of "
        f"{' and '.join(map(str, PILOT_SIZES))} items with {PILOT_ANNOTATIONS} annotations each, "
        f"seed {args.seed}"
    )
    text = plan_validation_markdown(res, command=command, settings=settings)
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
