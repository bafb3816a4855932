"""Pairwise agreement of every annotator pair from contingency tables summed per partition."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from dissensus._exceptions import DataError
from dissensus._validation import check_option
from dissensus.agreement.kernels import (
    LEVELS,
    MEASURES,
    Level,
    PairwiseAgreement,
    Weights,
    tables_to_pairwise,
)
from dissensus.data import Scale
from dissensus.distributed._common import dask_modules, label_codes, py, read_annotations


def _pair_partition(
    df: pd.DataFrame, columns: tuple[str, str, str], scale: Scale, raters: pd.Index
) -> Any:
    """Sparse (R·K, R·K) sum of the pair tables of one partition's items."""
    item, annotator, label = columns
    K, R = scale.K, len(raters)
    codes = label_codes(df, item, label, scale)
    who = raters.get_indexer(pd.Index(df[annotator]))
    if (who < 0).any():
        first = int(np.flatnonzero(who < 0)[0])
        msg = (
            f"{int((who < 0).sum())} annotations have a missing annotator id, e.g. item "
            f"{py(df[item].iloc[first])!r}; fix or drop these rows."
        )
        raise DataError(msg)
    rows, _ = pd.factorize(df[item])
    pair = pd.Series(rows.astype(np.int64) * R + who)
    if pair.duplicated().any():
        first = int(np.flatnonzero(pair.duplicated().to_numpy())[0])
        msg = (
            f"{int(pair.duplicated().sum())} repeated (item, annotator) pairs, e.g. item "
            f"{py(df[item].iloc[first])!r} by annotator {py(df[annotator].iloc[first])!r}; "
            "pairwise agreement needs one label per annotator and item (deduplicate first)."
        )
        raise DataError(msg)
    n_rows = int(rows.max()) + 1 if rows.size else 0
    Y = sparse.csr_matrix(
        (np.ones(rows.size), (rows, who * K + codes)), shape=(n_rows, R * K), dtype=np.float64
    )
    return (Y.T @ Y).tocsr()


def pairwise(
    annotations: Any,
    measure: str = "cohen",
    *,
    scale: Scale | Sequence[Any] | None = None,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    min_overlap: int = 1,
    weights: Weights = "quadratic",
    level: Level = "nominal",
    npartitions: int | None = None,
) -> PairwiseAgreement:
    r"""Agreement of every pair of annotators from pair tables summed over partitions.

    The annotations are shuffled by item; each partition sums the (R, R, K,
    K) contingency tables of every annotator pair over its items (a sparse
    :math:`Y^\top Y` of the item × (annotator, label) one-hot matrix), and
    only these sums reach the client, which finishes as
    :func:`dissensus.agreement.pairwise` does (equal to 1e-12).

    Parameters
    ----------
    measure : {"cohen", "weighted_cohen", "alpha", "pearson"}, default "cohen"
        As in :func:`dissensus.agreement.pairwise`.
    min_overlap : int, default 1
        Pairs sharing fewer items get NaN.
    weights, level
        Of ``"weighted_cohen"`` and ``"alpha"``, as in memory.

    Returns
    -------
    PairwiseAgreement
        Annotators in sorted order (the in-memory path keeps their first
        appearance; reindex to compare).

    Raises
    ------
    DataError
        Also for an annotator labelling an item twice.

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4],
    ...                      "annotator": ["a", "b"] * 4,
    ...                      "label": [0, 0, 1, 1, 0, 1, 1, 1]})
    >>> round(float(pairwise(long).statistic.loc["a", "b"]), 4)
    0.5
    """
    dask, _ = dask_modules()
    check_option("pairwise", "measure", measure, MEASURES)
    check_option("pairwise", "level", level, LEVELS)
    if int(min_overlap) < 1:
        msg = f"The 'min_overlap' parameter of pairwise must be at least 1. Got {min_overlap!r}."
        raise ValueError(msg)
    ddf, sc = read_annotations(
        annotations, item=item, annotator=annotator, label=label, scale=scale,
        npartitions=npartitions,
    )  # fmt: skip
    if annotator not in ddf.columns:
        msg = f"The annotations have no annotator column {annotator!r}; name it with annotator=."
        raise DataError(msg)
    raters = pd.Index(np.sort(ddf[annotator].dropna().unique().compute().to_numpy()))
    raters = raters.rename("annotator")
    shuffled = ddf.shuffle(on=item, npartitions=npartitions or ddf.npartitions)
    parts = [
        dask.delayed(_pair_partition)(p, (item, annotator, label), sc, raters)
        for p in shuffled.to_delayed()
    ]
    R, K = len(raters), sc.K
    total = np.zeros((R * K, R * K))
    for part in dask.compute(*parts):
        total += part.toarray()
    T = total.reshape(R, K, R, K).transpose(0, 2, 1, 3)
    return tables_to_pairwise(
        T, raters, sc, measure, min_overlap=int(min_overlap), weights=weights, level=level
    )
