"""Expected metrics: exact closed forms vs Monte Carlo (numpy, and the seed paper's loop).

    python benchmarks/bench_expected.py [--quick]

Data: N items, K = 5 ordered classes, 2..100 annotations per item drawn from a
Dirichlet-multinomial, uniform prior (alpha = counts + 1, as in the seed
paper), predictions from a Dirichlet. Timings are wall-clock, best of a few
repeats, on whatever else the machine is doing; the ratios compare methods
measured in the same run.

- exact: dissensus.metrics.expected on all N items.
- numpy MC: fully vectorised NumPy Monte Carlo, 1,000 Dirichlet draws per
  item (Gamma variates, one (S, n, K) array), on a slice, extrapolated per item.
- seed MC: the seed paper's method, scipy.stats.wasserstein_distance per draw
  in a Python loop, 1,000 draws per item, on a tiny slice, extrapolated per item.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import wasserstein_distance

from dissensus.metrics import expected as E


def best_of(fn, repeats=3):
    times = []
    out = None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


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
    """The seed paper's method: wasserstein_distance per Dirichlet draw, looped."""
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

    print(f"items N = {N:,}, K = {K}, 2-100 annotations per item, uniform prior")
    rows = []
    for name, fn, target in [
        ("E[EMD]", lambda: E.emd(alpha, q), 0.5),
        ("E[L1]", lambda: E.manhattan(alpha, q), 0.5),
        ("E[JS]", lambda: E.js_divergence(alpha, q), 5.0),
        ("E[CE]", lambda: E.cross_entropy(alpha, q), None),
        ("E[KL]", lambda: E.kl_divergence(alpha, q), None),
        ("E[L2^2]", lambda: E.squared_euclidean(alpha, q), None),
    ]:
        t, _ = best_of(fn, reps if name != "E[JS]" else 1)
        scale = 1_000_000 / N
        goal = "" if target is None else f"   (goal for 1M items: < {target:g} s)"
        print(f"  exact {name:8s} {t:8.3f} s  -> {t * scale:7.3f} s per 1M items{goal}")
        rows.append((name, t))
    t_emd = rows[0][1] / N

    # float (non-integer) posterior parameters take SciPy's slower incomplete-beta path
    jeff = alpha - 0.5
    t_jeff, _ = best_of(lambda: E.emd(jeff, q), reps)
    print(f"  exact E[EMD], Jeffreys prior (half-integer alpha): {t_jeff:.3f} s for {N:,} items")

    exact_slice = E.emd(alpha[:n_mc], q[:n_mc])
    t_np, (est_np, se_np) = best_of(lambda: numpy_mc_emd(alpha[:n_mc], q[:n_mc], S), 1)
    t_np_item = t_np / n_mc
    err_np = np.abs(est_np - exact_slice)
    print(f"\nnumpy Monte Carlo, {S} draws/item, vectorised, on {n_mc:,} items: {t_np:.3f} s")
    print(
        f"  MC standard error: mean {se_np.mean():.2e}, max {se_np.max():.2e}; "
        f"|MC - exact|: mean {err_np.mean():.2e}, max {err_np.max():.2e} "
        f"(max {np.max(err_np / se_np):.2f} SE)"
    )
    t_seed, (est_s, se_s) = best_of(lambda: seed_mc_emd(alpha[:n_seed], q[:n_seed], S), 1)
    t_seed_item = t_seed / n_seed
    err_s = np.abs(est_s - exact_slice[:n_seed])
    print(
        f"seed's method (scipy wasserstein_distance per draw, looped), {S} draws/item, "
        f"on {n_seed} items: {t_seed:.3f} s"
    )
    print(f"  MC standard error: mean {se_s.mean():.2e}; |MC - exact|: max {err_s.max():.2e}")
    print("\nper item:")
    print(f"  exact E[EMD]      {t_emd * 1e9:10.1f} ns   (Monte Carlo error: none)")
    print(f"  numpy MC (1000)   {t_np_item * 1e9:10.1f} ns")
    print(f"  seed MC (1000)    {t_seed_item * 1e9:10.1f} ns")
    print(f"  speed-up vs numpy MC: {t_np_item / t_emd:10.0f}x   (goal >= 300x)")
    print(f"  speed-up vs seed MC:  {t_seed_item / t_emd:10.0f}x   (goal >= 10,000x)")


if __name__ == "__main__":
    main()
