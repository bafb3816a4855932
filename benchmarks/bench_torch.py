"""dissensus.torch: the exact expected-EMD loss against the plain EMD loss, forward + backward.

Data: 100,000 items x K = 5 (10,000 with --quick), seeded: true distributions
Dirichlet(1, ..., 1), 2 to 10 annotations per item, counts ~ Multinomial(n, pi),
logits N(0, 1) in float64 (requires_grad). Timed: one forward and backward
pass of ``dissensus.torch.functional.expected_emd(logits, counts)`` (Jeffreys
prior; one NumPy pass on CPU gives the softmax, the value and the closed-form
gradient 2 I_c(a, b) - 1 through the softmax) and of ``emd(logits, counts / n)``
(pure torch), best of R, in the same run, wall and process CPU time. Goal:
E[EMD] within 3x of the plain EMD.

Run twice: with PyTorch's default intra-op threads, then with one. The NumPy
pass is single-threaded in both (threads lose to the GIL on its cache-sized
blocks); most of it is the K - 1 regularised incomplete betas per item, finite
sums here (an integer parameter in every term: K odd, Jeffreys prior). The
load average is printed: the machine may be shared, so read the ratios.

    python benchmarks/bench_torch.py [--quick] [--n N] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
from bench_metrics import best_of  # the same best-of-R wall and CPU clocks

K = 5
GOAL = 3.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 items")
    parser.add_argument("--n", type=int, default=None, help="number of items")
    parser.add_argument("--repeat", type=int, default=5, help="best of R runs (default 5)")
    args = parser.parse_args(argv)
    try:
        import torch  # noqa: PLC0415 -- the optional `torch` extra
    except ImportError:
        print(
            "bench_torch: skipped: PyTorch is not installed "
            "(pip install 'dissensus[torch]'; CPU wheel: see the README)"
        )
        return 0
    from dissensus.torch import functional as LF  # noqa: PLC0415 -- needs torch

    n_items = args.n or (10_000 if args.quick else 100_000)
    rng = np.random.default_rng(20251126)
    pi = rng.dirichlet(np.ones(K), size=n_items)
    n = rng.integers(2, 11, size=n_items)
    counts = torch.tensor(rng.multinomial(n, pi), dtype=torch.float64)
    target = counts / counts.sum(dim=1, keepdim=True)
    logits = torch.tensor(rng.normal(size=(n_items, K)), requires_grad=True)

    def step(loss_fn, y):
        def run():
            logits.grad = None
            loss_fn(logits, y).backward()

        return run

    load = os.getloadavg()
    print(
        f"N = {n_items:,} items, K = {K}, 2-10 annotations per item, float64 on CPU, "
        f"torch {torch.__version__}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"{'threads':10s} {'loss (forward + backward)':28s} {'wall s':>8s} {'cpu s':>8s}")
    default_threads = torch.get_num_threads()
    for threads in (default_threads, 1):
        torch.set_num_threads(threads)
        plain_wall, plain_cpu = best_of(step(LF.emd, target), args.repeat)
        exp_wall, exp_cpu = best_of(step(LF.expected_emd, counts), args.repeat)
        ratio = exp_wall / plain_wall
        print(f"{threads:<10d} {'emd (plain, torch)':28s} {plain_wall:8.4f} {plain_cpu:8.4f}")
        print(f"{threads:<10d} {'E[emd] (exact)':28s} {exp_wall:8.4f} {exp_cpu:8.4f}")
        verdict = "ok" if ratio <= GOAL else "MISSED"
        print(
            f"{threads:<10d} ratio E[emd] / emd: wall {ratio:.2f}, cpu {exp_cpu / plain_cpu:.2f} "
            f"(goal <= {GOAL:g}x wall: {verdict})"
        )
    torch.set_num_threads(default_threads)
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
