"""Intraclass correlation of a complete design from ANOVA sums computed per partition."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import examples
from dissensus.agreement import AgreementResult
from dissensus.agreement.kernels import anova_icc, check_kind
from dissensus.distributed._common import FloatArray, dask_modules, merge, py, read_frame
from dissensus.distributed._counts import DistributedCounts


def moments(Y: FloatArray) -> list[tuple[int, FloatArray, FloatArray]]:
    """Count, mean and centred cross-product matrix of the rows of ``Y`` (one partition)."""
    m = Y.shape[0]
    if m == 0:
        return []
    mean = Y.mean(axis=0)
    D = Y - mean
    return [(m, mean, D.T @ D)]


def pooled_moments(
    parts: Sequence[tuple[int, FloatArray, FloatArray]],
) -> tuple[int, FloatArray, FloatArray]:
    """Chan, Golub and LeVeque's (1983) merge of per-partition moments (no raw sums)."""
    n = sum(p[0] for p in parts)
    mean = sum(p[0] * p[1] for p in parts) / n
    C = sum(p[2] + p[0] * np.outer(p[1] - mean, p[1] - mean) for p in parts)
    return n, np.asarray(mean, dtype=np.float64), np.asarray(C, dtype=np.float64)


def _icc_partition(df: pd.DataFrame, item: str, annotator: str, label: str) -> dict[str, Any]:
    """Mergeable sums of one partition for the ICC, and its item with the fewest ratings."""
    y = df[label].to_numpy(dtype=np.float64, na_value=np.nan)
    bad = df[item].isna().to_numpy() | df[annotator].isna().to_numpy() | ~np.isfinite(y)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        row = {c: py(df[c].iloc[first]) for c in (item, annotator, label)}
        msg = (
            f"icc: {int(bad.sum())} rows have a missing item id, annotator id or rating, e.g. "
            f"item {row[item]!r}, annotator {row[annotator]!r}, rating {row[label]!r}. The "
            "Dask engine computes the ANOVA ICC of a complete design; drop these rows, or "
            "collect the data and fit icc(..., method='reml') in memory."
        )
        raise DataError(msg)
    icode, items = pd.factorize(df[item])
    rcode, raters = pd.factorize(df[annotator])
    pair = pd.Series(icode.astype(np.int64) * max(raters.size, 1) + rcode)
    dup = pair.duplicated(keep=False).to_numpy()
    if dup.any():
        first = int(np.flatnonzero(dup)[0])
        times = int((pair == pair.iloc[first]).sum())
        msg = (
            f"icc needs at most one rating per (item, annotator); annotator "
            f"{py(df[annotator].iloc[first])!r} rated item {py(df[item].iloc[first])!r} "
            f"{times} times ({int(pair.duplicated().sum())} repeated rows in this partition). "
            "Keep one rating per pair (e.g. drop_duplicates([item, annotator])) or make the "
            "repeat its own annotator."
        )
        raise DataError(msg)
    n_i = np.bincount(icode, minlength=items.size)
    means = np.bincount(icode, weights=y, minlength=items.size) / np.maximum(n_i, 1)
    out: dict[str, Any] = {
        "n_items": int(items.size),
        "y": moments(y[:, None]),
        "means": moments(means[:, None]),
        # a list, so that merging partitions concatenates (DataFrame + aligns, with NaN)
        "raters": [
            pd.Series(np.bincount(rcode, weights=y, minlength=raters.size), index=pd.Index(raters))
        ],
        "fewest": [],
        "sizes": [pd.Series(n_i).value_counts()],  # items by number of ratings
    }
    if items.size:
        j = int(np.argmin(n_i))
        who = df[annotator].to_numpy()[icode == j]
        out["fewest"] = [(int(n_i[j]), py(items[j]), [py(w) for w in who])]
    return out


def icc(
    annotations: Any,
    *,
    kind: str = "A,1",
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    npartitions: int | None = None,
) -> AgreementResult:
    r"""Intraclass correlation of a complete design from ANOVA sums computed per partition.

    The ratings are shuffled by item, so every rating of an item meets in
    one partition, which checks that no annotator rated it twice and sums
    what the two-way ANOVA needs: the count, mean and centred sum of squares
    of the ratings and of the item means (pooled as Chan, Golub and LeVeque
    (1983) do, never from raw sums of squares, whose difference cancels),
    and the per-annotator sums. The client forms
    :math:`SS_T = \sum_{ij} (y_{ij} - \bar y)^2`,
    :math:`SS_R = k \sum_i (\bar y_{i\cdot} - \bar y)^2` and
    :math:`SS_C = n \sum_j (\bar y_{\cdot j} - \bar y)^2` and finishes with
    the closed forms of :func:`dissensus.agreement.icc` (``method="anova"``;
    McGraw and Wong 1996, https://doi.org/10.1037/1082-989X.1.1.30), so the
    statistic, F-test and exact interval equal the in-memory ones (1e-12).

    Parameters
    ----------
    annotations : str, path-like, dask.dataframe.DataFrame or pandas.DataFrame
        Long ratings, one row per (item, annotator, numeric rating in ``label``).
    kind : {"1,1", "A,1", "C,1", "1,k", "A,k", "C,k"}, default "A,1"
        McGraw-Wong form (Shrout-Fleiss names ``"ICC1"`` … ``"ICC3k"``), as
        in :func:`dissensus.agreement.icc`.

    Returns
    -------
    AgreementResult
        As :func:`dissensus.agreement.icc`.

    Raises
    ------
    DataError
        Also for non-numeric or missing ratings, an annotator rating an item
        twice, or an incomplete design (fit ``icc(..., method="reml")`` in memory).
    TypeError
        For :class:`DistributedCounts`, which have no annotator ids.

    References
    ----------
    Chan, T. F., Golub, G. H. and LeVeque, R. J. (1983). Algorithms for
    computing the sample variance: analysis and recommendations. *The
    American Statistician* 37(3), 242–247. https://doi.org/10.1080/00031305.1983.10483115

    Examples
    --------
    Shrout and Fleiss' (1979) six targets rated by four judges, in long form:

    >>> import pandas as pd
    >>> x = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
    ...      [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> long = pd.DataFrame([(i, j, v) for i, row in enumerate(x) for j, v in enumerate(row)],
    ...                     columns=["item", "annotator", "label"])
    >>> round(float(icc(long, kind="C,k")), 3)
    0.909
    """
    dask, _ = dask_modules()
    kind = check_kind(kind)
    if isinstance(annotations, DistributedCounts):
        msg = (
            "icc needs each rating with its annotator; DistributedCounts have label counts "
            "only. Pass the long ratings (item, annotator, label) instead."
        )
        raise TypeError(msg)
    ddf = read_frame(annotations, [item, annotator, label], npartitions)
    dtype = ddf._meta[label].dtype
    if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
        msg = f"icc needs numeric ratings; column {label!r} has dtype {dtype}."
        raise DataError(msg)
    shuffled = ddf.shuffle(on=item, npartitions=npartitions or ddf.npartitions)
    parts = [dask.delayed(_icc_partition)(p, item, annotator, label) for p in shuffled.to_delayed()]
    tot = merge(dask.compute(*parts))
    raters = pd.concat(tot["raters"]).groupby(level=0).sum()
    n, k = int(tot["n_items"]), len(raters)
    if n < 2 or k < 2:
        msg = f"icc needs at least 2 items and 2 annotators; got {n} × {k}."
        raise DataError(msg)
    fewest, example, who = min(tot["fewest"], key=lambda f: f[0])
    if fewest < k:
        missing = raters.index.difference(pd.Index(who)).tolist()
        sizes = pd.concat(tot["sizes"]).groupby(level=0).sum()
        n_short = int(sizes[sizes.index < k].sum())
        msg = (
            f"icc needs every item rated once by every annotator (a complete design); "
            f"{n_short} of the {n} items are not, e.g. item {example!r} has {fewest} of the "
            f"{k} ratings (no rating by {examples(missing)}). "
            "Drop the incomplete items, or collect the data and fit "
            "dissensus.agreement.icc(Annotations.from_frame(df), method='reml'), which uses "
            "every rating."
        )
        raise DataError(msg)
    _, grand, ss_t = pooled_moments(tot["y"])
    _, _, ss_means = pooled_moments(tot["means"])
    col_means = raters.to_numpy(dtype=np.float64) / n
    return anova_icc(
        kind,
        n=n,
        k=k,
        ss_r=float(k * ss_means[0, 0]),
        ss_c=float(n * ((col_means - grand[0]) ** 2).sum()),
        ss_t=float(ss_t[0, 0]),
    )
