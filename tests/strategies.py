"""Hypothesis strategies shared by the test suite."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp


@st.composite
def count_matrices(
    draw: st.DrawFn,
    *,
    min_items: int = 1,
    max_items: int = 30,
    min_k: int = 2,
    max_k: int = 6,
    max_count: int = 10,
    min_n: int = 0,
) -> np.ndarray:
    """(N, K) int64 label counts; every row has at least ``min_n`` annotations."""
    n = draw(st.integers(min_items, max_items))
    k = draw(st.integers(min_k, max_k))
    arr = draw(hnp.arrays(np.int64, (n, k), elements=st.integers(0, max_count)))
    short = arr.sum(axis=1) < min_n
    arr[short, 0] += min_n  # top up rows that are too thin
    return arr


@st.composite
def simplex_rows(
    draw: st.DrawFn, *, n: int | None = None, k: int | None = None, zeros: bool = True
) -> np.ndarray:
    """(N, K) float64 rows on the probability simplex, possibly with exact zeros."""
    n = draw(st.integers(1, 20)) if n is None else n
    k = draw(st.integers(2, 8)) if k is None else k
    lo = 0.0 if zeros else 1e-3
    raw = draw(hnp.arrays(np.float64, (n, k), elements=st.floats(lo, 1.0, allow_subnormal=False)))
    if zeros:
        mask = draw(hnp.arrays(np.bool_, (n, k)))
        raw = np.where(mask, 0.0, raw)
    raw[raw.sum(axis=1) == 0, 0] = 1.0
    return raw / raw.sum(axis=1, keepdims=True)


@st.composite
def rater_matrices(
    draw: st.DrawFn,
    *,
    max_items: int = 25,
    max_raters: int = 6,
    max_k: int = 5,
    missing: bool = True,
) -> np.ndarray:
    """(R raters, N items) float matrices of label values 1..K with NaN for missing."""
    r = draw(st.integers(2, max_raters))
    n = draw(st.integers(2, max_items))
    k = draw(st.integers(2, max_k))
    vals = draw(hnp.arrays(np.int64, (r, n), elements=st.integers(1, k))).astype(np.float64)
    if missing:
        mask = draw(hnp.arrays(np.bool_, (r, n)))
        vals[mask] = np.nan
    return vals
