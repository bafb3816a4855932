"""``python -m benchmarks``: the benchmark suite (see :mod:`benchmarks.suite`).

``python -m benchmarks allocation ...`` runs the allocation-strategy benchmark
instead (see :mod:`benchmarks.bench_allocation`).
"""

import sys

if __name__ == "__main__":
    if sys.argv[1:2] == ["allocation"]:
        from benchmarks.bench_allocation import main

        main(sys.argv[2:])
    else:
        from benchmarks.suite import run

        run()
