"""L1 and EMD: the jackknife against the binomial bias correction, in the simulation study.

Not a timing: a study. Runs ``dissensus.simulate.study`` on the
skewed (ConvAbuse-like) and flat (near-uniform) truth families with informed
(noisy, sharpened, tempered, shrunk) and uninformed (marginal, uniform)
candidates, once with the registry's ``debiased[manhattan]``/``debiased[emd]``
(the jackknife) and once per ``prior`` of
:func:`dissensus.metrics.debiased.binomial_corrected` (0.5, 0, 1; the
registry entry is swapped for the run and restored), on the same data (same
seed). Prints Kendall tau with the true ranking and P(pick the truly best),
per truth, metric and annotation-count bin. docs/debiased.md quotes R = 100.

    python benchmarks/study_debiased_l1.py [R]
"""

import dataclasses
import sys
import warnings

import pandas as pd

from dissensus.metrics import _registry as reg
from dissensus.metrics.debiased import binomial_corrected
from dissensus.simulate import study

warnings.simplefilter("ignore")  # one-annotation warnings of every replicate

R = int(sys.argv[1]) if len(sys.argv) > 1 else 40
orig = {m: reg._REGISTRY[f"debiased[{m}]"] for m in ("manhattan", "emd")}


def run(label, a):
    for m in ("manhattan", "emd"):
        if a is None:
            reg._REGISTRY[f"debiased[{m}]"] = orig[m]
        else:
            reg._REGISTRY[f"debiased[{m}]"] = dataclasses.replace(
                orig[m],
                func=lambda C, q, m=m, **kw: binomial_corrected(C, q, metric=m, prior=a, **kw),
            )
    res = study(
        400,
        5,
        replicates=R,
        truths=["skewed", "flat"],
        candidates=["noisy", "sharpened", "tempered", "shrunk", "marginal", "uniform"],
        metrics=["manhattan", "emd"],
        priors=["uniform"],
        debiased=True,
        seed=0,
    )
    out = []
    for col in ("kendall_tau", "p_best_correct"):
        t = res.table(col)
        t = t[["truth", "metric", "bin", "empirical", "debiased"]].rename(
            columns={"debiased": f"{label}"}
        )
        t["stat"] = col
        out.append(t)
    return pd.concat(out)


try:
    tabs = [run("jackknife", None), run("binom0.5", 0.5), run("binom0", 0.0), run("binom1", 1.0)]
finally:
    for m in ("manhattan", "emd"):
        reg._REGISTRY[f"debiased[{m}]"] = orig[m]
df = tabs[0]
for t in tabs[1:]:
    df[t.columns[4]] = t.iloc[:, 4].to_numpy()
pd.set_option("display.width", 200)
print(df.round(3).to_string())
