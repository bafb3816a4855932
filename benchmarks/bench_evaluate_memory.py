"""Peak memory of ``dissensus evaluate``: N items x 3 models, K = 5 (goal at 1M: < 1.2 GB).

Writes an annotation file (3-8 ratings per item) and three prediction files,
then runs the command in a child process per variant and reports the child's
peak resident set size (``getrusage(RUSAGE_CHILDREN).ru_maxrss``, each
variant in its own child). ``--baseline SRC`` also runs another source tree
(e.g. the main branch's ``src``) with the same command, so the before/after
numbers come from the same run on the same machine.

    python benchmarks/bench_evaluate_memory.py [--items 1000000] [--baseline ../main/src]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

K = 5
MODELS = ("a", "b", "c")
SRC = Path(__file__).resolve().parents[1] / "src"


def write_inputs(directory: Path, n_items: int) -> list[str]:
    rng = np.random.default_rng(0)
    n = rng.integers(3, 9, size=n_items)
    item = np.repeat(np.arange(n_items), n)
    annotator = np.concatenate([np.arange(k) for k in n])
    label = rng.integers(1, K + 1, size=item.size)
    ann = directory / "ann.csv"
    pd.DataFrame({"item": item, "annotator": annotator, "label": label}).to_csv(ann, index=False)
    args = [str(ann)]
    for name in MODELS:
        q = rng.dirichlet(np.ones(K), size=n_items)
        df = pd.DataFrame(q, columns=[str(k) for k in range(1, K + 1)])
        df.insert(0, "item", np.arange(n_items))
        path = directory / f"{name}.csv"
        df.to_csv(path, index=False, float_format="%.12g")
        args += ["--pred", f"{name}={path}"]
    return args


def peak_rss_mb(src: Path, args: list[str]) -> tuple[float, float, int]:
    """Run the command in a fresh child; return (peak RSS in MB, seconds, exit code)."""
    code = "import sys\nfrom dissensus.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    env = {**os.environ, "PYTHONPATH": str(src)}
    t0 = time.perf_counter()
    # A wrapper child per variant, so RUSAGE_CHILDREN of the wrapper is this run's peak alone.
    wrapper = (
        "import resource, subprocess, sys\n"
        "rc = subprocess.run(sys.argv[1:]).returncode\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "sys.exit(rc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", wrapper, sys.executable, "-c", code, *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - t0
    kb = int(done.stdout.strip().splitlines()[-1])
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
    return kb / 1024.0, seconds, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--n-resamples", type=int, default=200)
    parser.add_argument("--baseline", type=Path, default=None, help="Another src/ to compare.")
    parser.add_argument(
        "--metrics",
        default="emd,E[emd],cross_entropy,E[cross_entropy]",
        help="Metrics to pass to the command; 'default' passes none (the command's full set).",
    )
    opts = parser.parse_args()
    print(f"machine load (1, 5, 15 min): {os.getloadavg()}; cores: {os.cpu_count()}")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        inputs = write_inputs(d, opts.items)
        common = [] if opts.metrics == "default" else ["--metrics", opts.metrics]
        common += ["--n-resamples", str(opts.n_resamples)]
        variants = [("this tree", SRC, [])]
        variants.append(("this tree, --no-scores", SRC, ["--no-scores"]))
        if opts.baseline is not None:
            variants.insert(0, ("baseline", opts.baseline.resolve(), []))
        print(f"dissensus evaluate on {opts.items:,} items x {len(MODELS)} models, K = {K}")
        for i, (name, src, extra) in enumerate(variants):
            args = ["evaluate", *inputs, *common, *extra, "--out", str(d / f"out{i}")]
            mb, seconds, rc = peak_rss_mb(src, args)
            print(f"  {name:<24} peak RSS {mb:8.0f} MB  {seconds:6.1f} s  exit {rc}")
    print(f"(peak RSS per child: resource.getrusage(RUSAGE_CHILDREN); {resource.__name__})")


if __name__ == "__main__":
    main()
