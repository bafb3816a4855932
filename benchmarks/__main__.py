"""``python -m benchmarks``: the benchmark suite (see :mod:`benchmarks.suite`)."""

from benchmarks.suite import run

if __name__ == "__main__":
    run()
