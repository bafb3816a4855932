"""Tests of dissensus._parallel: one thread count, never nested, same bytes for any count."""

from __future__ import annotations

import concurrent.futures
import threading

import numpy as np
import pytest

from dissensus import LabelCounts, Scale, _parallel
from dissensus.evaluation import evaluate
from dissensus.metrics import expected, get_metric


@pytest.fixture
def pools(monkeypatch):
    """Record every ThreadPoolExecutor created anywhere: (creating thread, max_workers)."""
    made: list[tuple[str, int]] = []
    init = concurrent.futures.ThreadPoolExecutor.__init__

    def spy(self, max_workers=None, *args, **kwargs):
        made.append((threading.current_thread().name, max_workers))
        init(self, max_workers, *args, **kwargs)

    monkeypatch.setattr(concurrent.futures.ThreadPoolExecutor, "__init__", spy)
    return made


def _large_case(n: int = 60_000, k: int = 5, seed: int = 3):
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(4, np.full(k, 1 / k), size=n)
    items = np.arange(n).astype(str)
    lc = LabelCounts.from_array(counts, items=items, scale=Scale.ordinal(list(range(k))))
    preds = {f"m{j}": rng.dirichlet(np.ones(k), n) for j in range(2)}
    return lc, preds


class TestNThreads:
    def test_default_is_bounded(self, monkeypatch):
        monkeypatch.delenv(_parallel.NUM_THREADS_ENV, raising=False)
        monkeypatch.setattr(_parallel, "available_cores", lambda: 64)
        assert _parallel.n_threads(None, "f") == _parallel.MAX_DEFAULT_THREADS == 8
        monkeypatch.setattr(_parallel, "available_cores", lambda: 2)
        assert _parallel.n_threads(None, "f") == 2

    def test_order_explicit_then_limit_then_environment(self, monkeypatch):
        monkeypatch.setenv(_parallel.NUM_THREADS_ENV, "5")
        assert _parallel.n_threads(None, "f") == 5
        assert _parallel.n_threads(2, "f") == 2
        with _parallel.thread_limit(3, "g") as n:
            assert n == 3
            assert _parallel.n_threads(None, "f") == 3
            assert _parallel.n_threads(1, "f") == 1
        assert _parallel.n_threads(None, "f") == 5
        with _parallel.thread_limit(None, "g") as n:
            assert n == 5

    @pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
    def test_bad_n_jobs(self, bad):
        with pytest.raises(ValueError, match="The 'n_jobs' parameter of f must be a positive"):
            _parallel.n_threads(bad, "f")

    @pytest.mark.parametrize("bad", ["0", "two", "-3"])
    def test_bad_environment(self, monkeypatch, bad):
        monkeypatch.setenv(_parallel.NUM_THREADS_ENV, bad)
        with pytest.raises(ValueError, match="DISSENSUS_NUM_THREADS"):
            _parallel.n_threads(None, "f")

    def test_numpy_integer(self):
        assert _parallel.n_threads(np.int64(3), "f") == 3

    def test_one_inside_a_worker(self):
        seen: list[int] = []
        lock = threading.Lock()

        def block(lo: int, hi: int) -> None:
            with lock:
                seen.append(_parallel.n_threads(4, "f"))

        _parallel.for_blocks(100, 10, block, 3)
        assert seen == [1] * 10


class TestNeverNested:
    def test_evaluate_starts_no_pool_inside_a_pool(self, pools, monkeypatch):
        # the old evaluate ran its (metric, model) jobs on a pool of cpu_count threads
        # and every metric started its own pool of cpu_count threads inside
        monkeypatch.setattr(_parallel, "available_cores", lambda: 4)
        lc, preds = _large_case()
        evaluate(lc, preds, metrics=["manhattan", "E[emd]"])
        assert pools, "the blocked kernels should have used threads"
        nested = [name for name, _ in pools if name != threading.main_thread().name]
        assert nested == []
        assert max(n for _, n in pools) <= 4

    def test_evaluate_n_jobs_and_environment_reach_every_metric(self, pools, monkeypatch):
        lc, preds = _large_case(n=30_000)
        evaluate(lc, preds, metrics=["manhattan", "E[emd]"], n_jobs=3)
        # a call with fewer runs of blocks than threads starts fewer
        assert max(n for _, n in pools) == 3
        pools.clear()
        monkeypatch.setenv(_parallel.NUM_THREADS_ENV, "2")
        evaluate(lc, preds, metrics=["js_divergence", "E[manhattan]"])
        assert max(n for _, n in pools) == 2
        pools.clear()
        evaluate(lc, preds, metrics=["js_divergence", "E[manhattan]"], n_jobs=1)
        assert pools == []

    def test_kernel_called_from_a_kernel_runs_inline(self, pools):
        def outer(lo: int, hi: int) -> None:
            _parallel.for_blocks(50, 5, lambda a, b: None, 4)

        _parallel.for_blocks(40, 10, outer, 2)
        assert [n for _, n in pools] == [2]


class TestSameBytes:
    def test_evaluate_any_thread_count(self):
        # the expected kernels split 12k x 5 terms into many blocks (pointwise blocks:
        # test_pointwise_any_thread_count)
        lc, preds = _large_case(n=12_000)
        metrics = ["js_divergence", "E[emd]", "E[js_divergence]"]
        one = evaluate(lc, preds, metrics=metrics, n_jobs=1).values
        for n in (2, 3):
            np.testing.assert_array_equal(
                evaluate(lc, preds, metrics=metrics, n_jobs=n).values, one
            )

    def test_pointwise_any_thread_count(self, monkeypatch):
        rng = np.random.default_rng(8)
        p = rng.dirichlet(np.ones(6), 40_000)
        q = rng.dirichlet(np.ones(6), 40_000)
        f = get_metric("js_divergence")
        monkeypatch.setenv(_parallel.NUM_THREADS_ENV, "1")
        one = f(p, q)
        for n in ("2", "3"):
            monkeypatch.setenv(_parallel.NUM_THREADS_ENV, n)
            np.testing.assert_array_equal(f(p, q), one)

    def test_expected_any_thread_count(self):
        rng = np.random.default_rng(9)
        alpha = rng.integers(0, 6, (20_000, 4)) + 0.5
        q = rng.dirichlet(np.ones(4), 20_000)
        one = expected.emd(alpha, q, n_jobs=1)
        np.testing.assert_array_equal(expected.emd(alpha, q, n_jobs=3), one)
