"""Krippendorff's alpha on set-valued labels (MASI, Jaccard): dissensus against nltk.

Data: N items x 5 annotators, a universe of L labels, each annotator's set a
noisy copy of the item's set, 20% of annotations missing, seeded (N = 2,000
and L = 8 by default; nltk's pure-Python double loop over distinct sets sets
the pace). Both sides start from the same long table of
(item, annotator, list of labels) and compute alpha; dissensus's time
includes building :class:`SetAnnotations` (parsing, validation, codes),
and is also shown for alpha alone. Every ratio is measured in this run on
this machine; times are the best of several interleaved repeats, and the
load average is printed.

    python benchmarks/bench_set_alpha.py [--items N] [--labels L]
"""

# ruff: noqa: E402 -- the BLAS thread setting below must precede the numpy import
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import warnings

import numpy as np
import pandas as pd
from bench_agreement import race  # best time of each, repeats interleaved
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import jaccard_distance, masi_distance

from dissensus import DegenerateAgreementWarning, SetAnnotations
from dissensus.agreement import krippendorff_alpha

N_ANNOTATORS = 5
MISSING = 0.2


def make_data(n_items: int, n_labels: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    core = rng.random((n_items, n_labels)) < 0.3
    flips = rng.random((n_items, N_ANNOTATORS, n_labels)) < 0.1
    Z = core[:, None, :] ^ flips
    empty = ~Z.any(axis=2)
    Z[empty, rng.integers(n_labels, size=int(empty.sum()))] = True  # nltk: no empty sets
    keep = rng.random((n_items, N_ANNOTATORS)) >= MISSING
    i, a = np.nonzero(keep)
    names = np.array([f"L{k}" for k in range(n_labels)], dtype=object)
    labels = [names[row].tolist() for row in Z[i, a]]
    return pd.DataFrame({"item": i, "annotator": a, "label": labels})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=2_000)
    parser.add_argument("--labels", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore", DegenerateAgreementWarning)
    df = make_data(args.items, args.labels)
    triples = [(a, i, frozenset(s)) for i, a, s in df.itertuples(index=False)]
    sets = SetAnnotations.from_frame(df)
    n_distinct = sets.distinct_sets()[0].shape[0]
    print(
        f"data: {args.items:,} items x {N_ANNOTATORS} annotators, {args.labels} labels, "
        f"{MISSING:.0%} missing: {len(df):,} sets, {n_distinct} distinct; "
        f"BLAS threads {os.environ['OPENBLAS_NUM_THREADS']}"
    )
    for name, fn in (("masi", masi_distance), ("jaccard", jaccard_distance)):
        res = race(
            {
                "nltk": lambda fn=fn: AnnotationTask(data=triples, distance=fn).alpha(),
                "end to end": lambda name=name: (
                    krippendorff_alpha(SetAnnotations.from_frame(df), distance=name).statistic
                ),
                "alpha only": lambda name=name: krippendorff_alpha(sets, distance=name).statistic,
            },
            args.repeat,
        )
        t_n, ref = res["nltk"]
        t_e, got = res["end to end"]
        t_a, _ = res["alpha only"]
        assert abs(got - ref) < 1e-12, (got, ref)
        print(
            f"{name:8s} alpha {got:.6f} (nltk {ref:.6f}, |diff| {abs(got - ref):.1e}); "
            f"nltk {t_n * 1e3:9.1f} ms | dissensus end to end {t_e * 1e3:7.1f} ms "
            f"({t_n / t_e:6.1f}x faster) | alpha only {t_a * 1e3:6.1f} ms ({t_n / t_a:7.1f}x)"
        )
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
