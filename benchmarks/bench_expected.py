"""Expected metrics: exact closed forms vs Monte Carlo (numpy, and the loop of Magnani 2025).

    python benchmarks/bench_expected.py [--quick]

Data: N items, K = 5 ordered classes, 2..100 annotations per item drawn from a
Dirichlet-multinomial, predictions from a Dirichlet. Three kinds of posterior
parameters, timed separately because the implementation has a fast path for
the first two (per-pair tables when every 2 alpha is a small integer):

- "counts + 1": alpha = counts + 1 (uniform prior, as in Magnani 2025);
- "counts + 1/2": alpha = counts + 1/2 (Jeffreys prior);
- "continuous": alpha = counts + U(0.05, 2) per entry (every pair distinct:
  the general path).

Each exact metric is timed with the default threads (``n_jobs=None``:
min(cores, 8), see dissensus._parallel) and with ``n_jobs=1``; wall-clock and process CPU time
(``time.process_time``, summed over threads), best of a few repeats. The
machine is shared: the load average is printed, and the ratios compare
methods measured in the same run.

- exact: dissensus.metrics.expected on all N items.
- numpy MC: fully vectorised NumPy Monte Carlo, 1,000 Dirichlet draws per
  item (Gamma variates, one (S, n, K) array), on a slice, extrapolated per item.
- seed MC: the method of Magnani (2025), scipy.stats.wasserstein_distance per draw
  in a Python loop, 1,000 draws per item, on a tiny slice, extrapolated per item.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from scipy.stats import wasserstein_distance

from dissensus.metrics import expected as E


def best_of(fn, repeats=3):
    """(min wall, min process CPU) seconds over repeats, and the last result."""
    walls, cpus = [], []
    out = None
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus), out


def make_data(N, K, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(K, 1.5), N)
    n = rng.integers(2, 101, N)
    # multinomial counts for every item at once via sequential binomials
    counts = np.zeros((N, K), dtype=np.int64)
    left = n.copy()
    rest = np.ones(N)
    for k in range(K - 1):
        frac = np.clip(p[:, k] / np.maximum(rest, 1e-300), 0, 1)
        counts[:, k] = rng.binomial(left, frac)
        left -= counts[:, k]
        rest -= p[:, k]
    counts[:, -1] = left
    alpha = counts + 1.0
    q = rng.dirichlet(np.full(K, 2.0), N)
    return alpha, q


def numpy_mc_emd(alpha, q, S, seed=1):
    """Fully vectorised MC of E[EMD] (normalised), S draws per item, one array."""
    rng = np.random.default_rng(seed)
    g = rng.standard_gamma(alpha, size=(S, *alpha.shape))
    P = g / g.sum(axis=2, keepdims=True)
    d = np.abs(np.cumsum(P - q, axis=2)[:, :, :-1]).sum(axis=2) / (alpha.shape[1] - 1)
    return d.mean(axis=0), d.std(axis=0, ddof=1) / np.sqrt(S)


def seed_mc_emd(alpha, q, S, seed=2):
    """The method of Magnani (2025): wasserstein_distance per Dirichlet draw, looped."""
    rng = np.random.default_rng(seed)
    K = alpha.shape[1]
    support = np.arange(K)
    est = np.empty(len(alpha))
    se = np.empty(len(alpha))
    for i in range(len(alpha)):
        draws = rng.dirichlet(alpha[i], S)
        vals = np.array([wasserstein_distance(support, support, d, q[i]) / (K - 1) for d in draws])
        est[i] = vals.mean()
        se[i] = vals.std(ddof=1) / np.sqrt(S)
    return est, se


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    N = 100_000 if args.quick else 1_000_000
    K = 5
    S = 1000
    n_mc = 500 if args.quick else 2000
    n_seed = 2 if args.quick else 5
    alpha, q = make_data(N, K)
    reps = 1 if args.quick else 2

    print(f"items N = {N:,}, K = {K}, 2-100 annotations per item")
    print(f"load average at start: {os.getloadavg()}, cores: {os.cpu_count()}")
    rng = np.random.default_rng(3)
    inputs = [
        ("counts + 1", alpha),
        ("counts + 1/2", alpha - 0.5),
        ("continuous", alpha - 1.0 + rng.uniform(0.05, 2.0, alpha.shape)),
    ]
    scale = 1_000_000 / N
    t_emd = t_emd1 = float("nan")
    for label, al in inputs:
        print(f"\nalpha = {label}: seconds per 1M items (wall / CPU), threads = default | 1")
        for name, fn, target in [
            ("E[EMD]", E.emd, 0.5),
            ("E[L1]", E.manhattan, 0.5),
            ("E[JS]", E.js_divergence, 5.0),
        ]:
            r = 1 if name == "E[JS]" else reps
            w, c, _ = best_of(lambda fn=fn, al=al: fn(al, q), r)
            w1, c1, _ = best_of(lambda fn=fn, al=al: fn(al, q, n_jobs=1), r)
            goal = f"(goal < {target:g} s)"
            print(
                f"  exact {name:7s} {w * scale:7.3f} / {c * scale:7.3f}  |"
                f" {w1 * scale:7.3f} / {c1 * scale:7.3f}   {goal}"
            )
            if name == "E[EMD]" and label == "counts + 1":
                t_emd, t_emd1 = w / N, w1 / N
    print("\nalpha = counts + 1, closed forms (no threads):")
    for name, fn in [
        ("E[CE]", E.cross_entropy),
        ("E[KL]", E.kl_divergence),
        ("E[L2^2]", E.squared_euclidean),
    ]:
        w, c, _ = best_of(lambda fn=fn: fn(alpha, q), reps)
        print(f"  exact {name:7s} {w * scale:7.3f} / {c * scale:7.3f}")
    print(f"load average at end: {os.getloadavg()}")

    exact_slice = E.emd(alpha[:n_mc], q[:n_mc])
    t_np, _, (est_np, se_np) = best_of(lambda: numpy_mc_emd(alpha[:n_mc], q[:n_mc], S), 1)
    t_np_item = t_np / n_mc
    err_np = np.abs(est_np - exact_slice)
    print(f"\nnumpy Monte Carlo, {S} draws/item, vectorised, on {n_mc:,} items: {t_np:.3f} s")
    print(
        f"  MC standard error: mean {se_np.mean():.2e}, max {se_np.max():.2e}; "
        f"|MC - exact|: mean {err_np.mean():.2e}, max {err_np.max():.2e} "
        f"(max {np.max(err_np / se_np):.2f} SE)"
    )
    t_seed, _, (est_s, se_s) = best_of(lambda: seed_mc_emd(alpha[:n_seed], q[:n_seed], S), 1)
    t_seed_item = t_seed / n_seed
    err_s = np.abs(est_s - exact_slice[:n_seed])
    print(
        f"seed's method (scipy wasserstein_distance per draw, looped), {S} draws/item, "
        f"on {n_seed} items: {t_seed:.3f} s"
    )
    print(f"  MC standard error: mean {se_s.mean():.2e}; |MC - exact|: max {err_s.max():.2e}")
    print("\nper item:")
    print(f"  exact E[EMD]      {t_emd * 1e9:10.1f} ns   (counts + 1, all cores; no MC error)")
    print(f"  numpy MC (1000)   {t_np_item * 1e9:10.1f} ns")
    print(f"  seed MC (1000)    {t_seed_item * 1e9:10.1f} ns")
    print(f"  exact E[EMD]      {t_emd1 * 1e9:10.1f} ns   (counts + 1, one thread)")
    print(
        f"  speed-up vs numpy MC: {t_np_item / t_emd:10.0f}x   "
        f"(one thread: {t_np_item / t_emd1:.0f}x; goal >= 300x)"
    )
    print(
        f"  speed-up vs seed MC:  {t_seed_item / t_emd:10.0f}x   "
        f"(one thread: {t_seed_item / t_emd1:.0f}x; goal >= 10,000x)"
    )


if __name__ == "__main__":
    main()
