r"""Exact bias of the item-entropy estimators at few annotations, by enumeration and simulation.

    python -m dissensus.simulate.entropy_bias [--out docs/entropy_bias.md] [--seed 0]

For ``n`` annotations of an item whose true label distribution is :math:`\pi`
the counts are :math:`\mathrm{Multinomial}(n, \pi)`, so the expectation of
any estimator :math:`\hat H(c)` is the finite sum :math:`\sum_c P(c)\,\hat
H(c)` over every count vector ``c`` with :math:`\sum_k c_k = n`
(:func:`count_vectors`; at most :math:`\binom{14}{4} = 1001` of them for n =
10, K = 5). :func:`exact_bias` computes :math:`\mathbb{E}\hat H - H(\pi)`
exactly for the plug-in :math:`H(\hat p)`, Miller–Madow and the jackknife
(:mod:`dissensus.metrics.variation`); :func:`bias_table` does so for ``n =
2 … 10``, ``K = 2 … 5`` and the distributions of :func:`distributions`.
:func:`simulated_bias` checks a few cells by Monte Carlo, and
:func:`correlation_study` measures the attenuation of the human–model entropy
correlation and its correction. :func:`main` writes the page.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats

from dissensus.metrics import entropy, get_metric
from dissensus.metrics.variation import (
    entropy_correlation,
    entropy_jackknife,
    entropy_miller_madow,
)
from dissensus.simulate._synthetic import candidate_predictions, draw_truth

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
#: The estimators compared, by column name.
ESTIMATORS = ("plug_in", "miller_madow", "jackknife")


def count_vectors(n: int, K: int) -> IntArray:
    """Every vector of ``K`` non-negative integers summing to ``n`` (stars and bars), one per row.

    Examples
    --------
    >>> count_vectors(2, 2).tolist()
    [[0, 2], [1, 1], [2, 0]]
    """
    bars = np.array(list(itertools.combinations(range(n + K - 1), K - 1)), dtype=np.int64)
    bars = bars.reshape(-1, K - 1)
    edges = np.hstack(
        [np.full((bars.shape[0], 1), -1), bars, np.full((bars.shape[0], 1), n + K - 1)]
    )
    out: IntArray = np.diff(edges, axis=1) - 1
    return out


def estimates(counts: npt.ArrayLike) -> dict[str, FloatArray]:
    """The three estimators of each row's entropy (natural log); the jackknife needs n >= 2."""
    C = np.asarray(counts, dtype=np.int64)
    n = C.sum(axis=1, keepdims=True)
    return {
        "plug_in": entropy(C / n),
        "miller_madow": entropy_miller_madow(C),
        "jackknife": np.asarray(entropy_jackknife(C), dtype=np.float64),
    }


def exact_bias(n: int, pi: npt.ArrayLike) -> dict[str, float]:
    r"""Exact :math:`\mathbb{E}\hat H - H(\pi)` of each estimator from ``n`` >= 2 annotations."""
    p = np.asarray(pi, dtype=np.float64)
    C = count_vectors(int(n), p.size)
    w = stats.multinomial.pmf(C, int(n), p)
    H = float(entropy(p[None, :])[0])
    return {name: float(w @ est) - H for name, est in estimates(C).items()}


def distributions(K: int) -> dict[str, FloatArray]:
    """The true distributions tried for ``K`` classes (none with a zero class)."""
    k = np.arange(K, dtype=np.float64)
    raw = {
        "uniform": np.ones(K),
        "geometric 1/2": 0.5**k,
        "dominant 0.9": np.r_[0.9, np.full(K - 1, 0.1 / (K - 1))],
        "near-certain 0.98": np.r_[0.98, np.full(K - 1, 0.02 / (K - 1))],
        "two-peaked": np.where((k == 0) | (k == K - 1), 1.0, 0.15),
        "Dirichlet(1) draw": np.random.default_rng([7, K]).dirichlet(np.ones(K)),
    }
    return {name: v / v.sum() for name, v in raw.items()}


def bias_table(ns: Sequence[int] = range(2, 11), Ks: Sequence[int] = range(2, 6)) -> pd.DataFrame:
    """Exact bias of every estimator for every ``n``, ``K`` and distribution of :func:`distributions`.

    Columns ``K, distribution, n, entropy, plug_in, miller_madow, jackknife``
    (biases, nats) and ``mm_smaller``, ``jk_smaller``: the corrected absolute
    bias is below the plug-in's.
    """
    rows = []
    for K in Ks:
        for name, p in distributions(int(K)).items():
            H = float(entropy(p[None, :])[0])
            for n in ns:
                b = exact_bias(int(n), p)
                rows.append({"K": int(K), "distribution": name, "n": int(n), "entropy": H, **b})
    out = pd.DataFrame(rows)
    out["mm_smaller"] = out["miller_madow"].abs() < out["plug_in"].abs()
    out["jk_smaller"] = out["jackknife"].abs() < out["plug_in"].abs()
    return out


def simulated_bias(
    cells: Sequence[tuple[int, int, str]], *, draws: int = 20_000, seed: int = 0
) -> pd.DataFrame:
    """Monte Carlo bias (and its standard error) of each estimator in the ``(K, n, distribution)`` cells."""
    rng = np.random.default_rng(seed)
    rows = []
    for K, n, name in cells:
        p = distributions(K)[name]
        C = rng.multinomial(n, p, size=draws)
        H = float(entropy(p[None, :])[0])
        row: dict[str, object] = {"K": K, "distribution": name, "n": n}
        for est_name, est in estimates(C).items():
            row[est_name] = float(est.mean()) - H
            row[f"{est_name}_standard_error"] = float(est.std(ddof=1) / np.sqrt(draws))
        row["exact_jackknife"] = exact_bias(n, p)["jackknife"]
        rows.append(row)
    return pd.DataFrame(rows)


def correlation_study(
    ns: Sequence[int] = (2, 3, 4, 6, 10, 20),
    *,
    n_items: int = 500,
    replicates: int = 200,
    seed: int = 0,
) -> pd.DataFrame:
    r"""Human–model entropy correlation against the truth: plug-in vs corrected, over replicates.

    Each replicate draws ``n_items`` truths (``"mixture"``), a model
    ``"noisy"`` around them and ``n`` annotations per item; the target is the
    correlation of :math:`H(\\pi_i)` with :math:`H(q_i)`. Returns per ``n``
    the mean target, the mean plug-in and corrected correlations, and their
    mean errors with standard errors over replicates.
    """
    corrected = get_metric("debiased[entropy_correlation]")
    rng = np.random.default_rng(seed)
    rows = []
    for n in ns:
        true_r, plug, corr = (np.empty(replicates) for _ in range(3))
        for r in range(replicates):  # replicates of a whole corpus: a loop over corpora
            pi = draw_truth(n_items, 4, truth="mixture", seed=rng)
            q = candidate_predictions(pi, ["noisy"], seed=rng)["noisy"]
            C = rng.multinomial(n, pi / pi.sum(axis=1, keepdims=True))
            true_r[r] = entropy_correlation(pi, q)
            plug[r] = entropy_correlation(C / n, q)
            corr[r] = corrected.func(C, q)
        ok = ~np.isnan(corr)
        err = corr[ok] - true_r[ok]
        rows.append(
            {
                "n": int(n),
                "true": float(true_r.mean()),
                "plug_in": float(plug.mean()),
                "corrected": float(corr[ok].mean()) if ok.any() else np.nan,
                "plug_in_error": float((plug - true_r).mean()),
                "plug_in_standard_error": float((plug - true_r).std(ddof=1) / np.sqrt(replicates)),
                "corrected_error": float(err.mean()) if err.size else np.nan,
                "corrected_standard_error": float(err.std(ddof=1) / np.sqrt(err.size))
                if err.size > 1
                else np.nan,
                "n_nan": int((~ok).sum()),
            }
        )
    return pd.DataFrame(rows)


def _md(df: pd.DataFrame, digits: int = 4) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for rec in df.itertuples(index=False):
        cells = [f"{v:+.{digits}f}" if isinstance(v, float) else str(v) for v in rec]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(seed: int = 0) -> str:
    """The Markdown page (docs/entropy_bias.md)."""
    table = bias_table()
    n_cases = len(table)
    mm_ok, jk_ok = int(table["mm_smaller"].sum()), int(table["jk_smaller"].sum())
    summary = (
        table.assign(
            abs_plug=table["plug_in"].abs(),
            abs_mm=table["miller_madow"].abs(),
            abs_jk=table["jackknife"].abs(),
        )
        .groupby("n")[["abs_plug", "abs_mm", "abs_jk"]]
        .max()
        .reset_index()
        .rename(
            columns={
                "abs_plug": "largest abs. bias, plug-in",
                "abs_mm": "Miller-Madow",
                "abs_jk": "jackknife",
            }
        )
    )
    cells = [(K, n, d) for K in (2, 5) for n in (2, 5, 10) for d in ("uniform", "dominant 0.9")]
    sim = simulated_bias(cells, seed=seed)
    cor = correlation_study(seed=seed)
    worse = table.loc[~(table["mm_smaller"] & table["jk_smaller"])]
    parts = [
        "# Bias of the item-entropy estimators at few annotations",
        "",
        f"Made by `python -m dissensus.simulate.entropy_bias --out docs/entropy_bias.md --seed {seed}`"
        " (exact sums over every count vector; the method is in the module docstring).",
        "",
        "Estimators (natural log; `dissensus.metrics.variation`): plug-in H(p̂), p̂ = n_k / n; Miller-Madow "
        "H(p̂) + (m̂ − 1)/(2n), m̂ the classes observed (Miller 1955); jackknife over annotations "
        "(Zahl 1977), registered as `debiased[entropy]`.",
        "",
        "## Exact bias: summary",
        "",
        f"{n_cases} cases (n = 2 … 10, K = 2 … 5, 6 true distributions per K). The absolute bias "
        f"of Miller-Madow is below the plug-in's in {mm_ok} of {n_cases}, the jackknife's in "
        f"{jk_ok} of {n_cases}.",
        "",
        "Largest absolute bias over K and distributions, per n (nats), of each estimator:",
        "",
        _md(summary),
        "",
    ]
    if len(worse):
        parts += [
            "Cases where a corrected estimator is not below the plug-in:",
            "",
            _md(worse.drop(columns=["mm_smaller", "jk_smaller"])),
            "",
        ]
    parts += [
        "## Monte Carlo check (20,000 draws per cell)",
        "",
        "The simulated bias agrees with the exact one within its standard error "
        "(`exact_jackknife` is the enumeration's value).",
        "",
        _md(sim),
        "",
        "## Human-model entropy correlation",
        "",
        "500 items (truth `mixture`, K = 4), a `noisy` model around the truth, n annotations "
        "per item, 200 replicates: the correlation of the human with the model entropy, "
        "true (H of the true distributions), plug-in (H of the label shares) and corrected "
        "(`debiased[entropy_correlation]`: Miller-Madow entropies, divided by the square root "
        "of their split-half reliability, Spearman 1904 and Spearman-Brown; NaN below 4 "
        "annotations per item). Errors are against the true correlation, "
        "with their standard error over replicates; `n_nan`: replicates where the "
        "reliability was not positive.",
        "",
        _md(cor),
        "",
        "## Every case",
        "",
        _md(table),
    ]
    return "\n".join(parts) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    """Write (or print) the page."""
    ap = argparse.ArgumentParser(
        prog="python -m dissensus.simulate.entropy_bias", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--out", type=Path, default=None, help="write the page here (default: print)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the simulations")
    args = ap.parse_args(argv)
    text = report(seed=args.seed)
    if args.out is None:
        print(text, end="")
    else:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
