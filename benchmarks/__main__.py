"""``python -m benchmarks``: the benchmark suite (see :mod:`benchmarks.suite`).

``python -m benchmarks allocation ...`` runs the allocation-strategy benchmark
instead (see :mod:`benchmarks.bench_allocation`), ``python -m benchmarks cli ...``
the command line's start-up (see :mod:`benchmarks.bench_cli`).
"""

import sys

if __name__ == "__main__":
    if sys.argv[1:2] == ["allocation"]:
        from benchmarks.bench_allocation import main

        main(sys.argv[2:])
    elif sys.argv[1:2] == ["cli"]:
        from benchmarks.bench_cli import main as cli_main

        cli_main(sys.argv[2:])
    else:
        from benchmarks.suite import run

        run()
