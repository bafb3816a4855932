r"""One threading policy for the whole package.

NumPy and ``scipy.special`` release the GIL in their loops, so the heavy
kernels (the blocked pointwise metrics, the expected metrics' Beta
expectations) run fixed-size blocks of rows on a thread pool:

- **How many threads** (:func:`n_threads`): an explicit ``n_jobs``; else
  that of an enclosing :func:`thread_limit` (as :func:`dissensus.evaluate`
  sets); else ``DISSENSUS_NUM_THREADS``; else ``min(available cores, 8)``:
  the kernels are memory-bound and stop scaling before that, and a node
  shared with joblib or Dask workers should not get a thread per core.
- **Never nested.** Inside a worker thread every resolution gives 1 and
  :func:`for_blocks` runs inline.
- **Same bytes for any thread count.** Block boundaries depend on the data
  size only and each block writes its own slice.

BLAS threads are not managed here: no hot path calls BLAS on large matrices.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from typing import SupportsIndex

#: Environment variable read when no ``n_jobs`` is given: the default number of threads.
NUM_THREADS_ENV = "DISSENSUS_NUM_THREADS"
#: The default is ``min(available cores, MAX_DEFAULT_THREADS)``.
MAX_DEFAULT_THREADS = 8

_limit: ContextVar[int | None] = ContextVar("dissensus_thread_limit", default=None)
_worker = threading.local()


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS reports it)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return max(1, len(affinity(0))) if affinity is not None else os.cpu_count() or 1


def _check(value: object, source: str, func: str) -> int:
    n = 0
    if source == NUM_THREADS_ENV:  # already stripped
        n = int(str(value)) if str(value).isdigit() else 0
    elif isinstance(value, SupportsIndex) and not isinstance(value, bool):
        n = value.__index__()
    if n < 1:
        msg = (
            f"The '{source}' parameter of {func} must be a positive integer (1 = no "
            f"threads) or None. Got {value!r} instead."
        )
        raise ValueError(msg)
    return n


def n_threads(n_jobs: int | None, func: str) -> int:
    """The number of threads a call may use (the order: module docstring), 1 in a worker thread.

    ValueError, naming ``func``, when ``n_jobs`` or ``DISSENSUS_NUM_THREADS``
    is not a positive integer.

    Examples
    --------
    >>> n_threads(3, "emd")
    3
    >>> n_threads(None, "emd") <= MAX_DEFAULT_THREADS or NUM_THREADS_ENV in os.environ
    True
    """
    if n_jobs is not None:
        n = _check(n_jobs, "n_jobs", func)
    elif (limit := _limit.get()) is not None:
        n = limit
    elif env := os.environ.get(NUM_THREADS_ENV, "").strip():
        n = _check(env, NUM_THREADS_ENV, func)
    else:
        n = min(available_cores(), MAX_DEFAULT_THREADS)
    return 1 if getattr(_worker, "active", False) else n


@contextlib.contextmanager
def thread_limit(n_jobs: int | None, func: str) -> Iterator[int]:
    """Make ``n_jobs`` the default of every call in the block (no-op for None); yields the count."""
    n = n_threads(n_jobs, func)
    token = None if n_jobs is None else _limit.set(n)
    try:
        yield n
    finally:
        if token is not None:
            _limit.reset(token)


def for_blocks(n: int, size: int, fn: Callable[[int, int], None], n_threads: int) -> None:
    """Call ``fn(lo, hi)`` on the fixed blocks ``[lo, hi)`` of ``range(n)``, on threads.

    ``fn`` must write only its own block. Threads take runs of consecutive
    blocks, about eight per thread (one slowed by other load does not hold
    up the rest); inline in a worker thread.
    """

    def run(bounds: tuple[int, int]) -> None:
        for lo in range(bounds[0], bounds[1], size):
            fn(lo, min(lo + size, bounds[1]))

    def run_in_worker(bounds: tuple[int, int]) -> None:
        _worker.active = True
        run(bounds)

    n_blocks = -(-n // size)
    if n_threads <= 1 or n_blocks <= 1 or getattr(_worker, "active", False):
        run((0, n))
        return
    per_run = -(-n_blocks // (8 * n_threads)) * size
    runs = [(lo, min(lo + per_run, n)) for lo in range(0, n, per_run)]
    with ThreadPoolExecutor(min(n_threads, len(runs)), thread_name_prefix="dissensus") as pool:
        list(pool.map(run_in_worker, runs))
