r"""Dask engine: label counts, agreement and metric means on partitioned data.

The annotations stay partitioned from the files to the result. A long table
of ``(item, annotator, label)`` rows (a partitioned Parquet dataset, or a
:class:`dask.dataframe.DataFrame`) is shuffled by a hash of the item id so
that every annotation of an item meets in one partition, wherever it was
read from; each partition then becomes an (N_p, K) count matrix
(:func:`label_counts`). Statistics are computed on each partition and summed,
and only those sums (a few numbers per partition) reach the client:

- Fleiss' kappa (Scott's pi for many raters), Gwet's AC1, Brennan-Prediger
  and observed agreement need the item count :math:`N`, the sum of per-item
  agreement :math:`\sum_i p_{a,i}` and the category shares
  :math:`\sum_i x_{ik}/n_i`, computed per partition by the same functions
  as :mod:`dissensus.agreement`;
- Krippendorff's alpha at every level needs only the coincidence matrix
  :math:`o_{ck}`, a sum over items; Gwet's linearised standard errors need
  the means and centred cross-products of a few per-item terms, merged
  across partitions.

The intraclass correlations of a complete design (:func:`icc`) need the
count, mean and centred sum of squares of the ratings and of the item means
and the per-annotator sums, from ratings shuffled by item.

The point estimates equal the in-memory ones up to the order of floating
point sums (1e-12). Intervals use the Poisson bootstrap of
:func:`dissensus.stats.poisson_weights`, whose weights depend on (seed, item
id, resample) only: each partition sums its weighted statistics per
resample, and the intervals equal those of the in-memory coefficients with
``bootstrap="poisson"`` for the same seed, however the items are
partitioned.

Models are scored where the items live: each model's predictions are joined
to the counts by item id (a Dask hash join) and every metric is computed
per partition by the registry functions :func:`dissensus.evaluate` uses
(:func:`score_items`, :func:`metric_means`). :func:`dissensus.evaluate`
given a Dask DataFrame (or :class:`DistributedCounts`) collects those
scores and builds the same :class:`~dissensus.Evaluation` as in memory; the
agreement functions of :mod:`dissensus.agreement` given one call
:func:`agreement`. Posterior parameters and soft labels (:func:`dirichlet`,
:func:`soft_labels`, which :mod:`dissensus.posterior` calls for a Dask
collection) are computed per partition by the in-memory functions and stay a
lazy Dask frame indexed by item.

Needs the ``distributed`` extra: ``pip install 'dissensus[distributed]'``.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus import posterior as _posterior
from dissensus._deprecation import renamed_parameters
from dissensus._exceptions import DataDroppedWarning, DataError, DegenerateAgreementWarning
from dissensus._validation import as_prob_matrix, check_option, check_probability_level, examples
from dissensus.agreement import AgreementResult, Resampler
from dissensus.agreement.kernels import (
    LEVELS,
    MEASURES,
    Level,
    PairwiseAgreement,
    alpha_from_coincidences,
    alpha_item_terms,
    alpha_linear_terms,
    alpha_weights,
    anova_icc,
    check_kind,
    tables_to_pairwise,
)
from dissensus.agreement.kernels import alpha_row_stats as _row_stats
from dissensus.agreement.kernels import chance_agreement_of as _chance
from dissensus.agreement.kernels import item_terms as _items
from dissensus.agreement.kernels import level_metric as _metric
from dissensus.agreement.kernels import level_values as _level_values
from dissensus.data import LabelCounts, Predictions, Scale
from dissensus.metrics import get_metric
from dissensus.posterior import DEFAULT_PRIOR
from dissensus.stats import ConfidenceInterval, item_keys, percentile_interval, poisson_weights

__all__ = [
    "DistributedCounts",
    "ItemScores",
    "agreement",
    "dirichlet",
    "icc",
    "label_counts",
    "metric_means",
    "pairwise",
    "score_items",
    "soft_labels",
    "stream_counts",
]

FloatArray = npt.NDArray[np.float64]

#: Coefficients computed from mergeable sums, with their chance model.
_COUNT_COEFFICIENTS = {
    "fleiss_kappa": "fleiss",
    "gwet_ac1": "gwet",
    "brennan_prediger": "uniform",
}
COEFFICIENTS = (*_COUNT_COEFFICIENTS, "observed_agreement", "krippendorff_alpha")
#: float64 intermediates per chunk of bootstrap weights inside a partition.
_CHUNK_FLOATS = 4_000_000


def _dask(module: str = "dask.dataframe") -> Any:
    """Import a Dask module on first use, with the install command if it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as err:  # pragma: no cover - depends on the environment
        msg = f"dissensus.distributed needs Dask: pip install 'dissensus[distributed]' ({err})."
        raise ImportError(msg) from err


def _py(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _count_columns(K: int) -> list[str]:
    return [f"c{k}" for k in range(K)]


def _read(data: Any, columns: list[str], npartitions: int | None) -> Any:
    """A Dask frame of ``columns`` from a path (Parquet, CSV/TSV) or a data frame."""
    dd = _dask()
    if isinstance(data, pd.DataFrame):
        ddf = dd.from_pandas(data, npartitions=npartitions or 1)
    elif isinstance(data, dd.DataFrame):
        ddf = data
    elif str(data).lower().endswith((".csv", ".tsv")):
        sep = "\t" if str(data).lower().endswith(".tsv") else ","
        ddf = dd.read_csv(data, sep=sep, usecols=columns)
    else:
        ddf = dd.read_parquet(data, columns=columns)
    missing = [c for c in columns if c not in ddf.columns]
    if missing:
        msg = (
            f"The annotations have no column {examples(missing)} (columns: "
            f"{examples(list(ddf.columns))}); name them with item=/annotator=/label=."
        )
        raise DataError(msg)
    return ddf[columns]


def _scale_of(ddf: Any, label: str, scale: Scale | Sequence[Any] | None) -> Scale:
    if scale is None:
        labels = ddf[label].dropna().unique().compute()
        return Scale.infer(labels.tolist())
    return scale if isinstance(scale, Scale) else Scale.nominal(scale)


def _label_codes(df: pd.DataFrame, item: str, label: str, scale: Scale) -> npt.NDArray[np.int64]:
    """Label codes of one partition; a missing item id or unknown label is a DataError."""
    codes = scale.encode(df[label])
    ids = df[item]
    bad = (codes < 0) | ids.isna().to_numpy()
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        row = {c: _py(df[c].iloc[first]) for c in (item, label)}
        msg = (
            f"{int(bad.sum())} annotations have a missing item id or a label not on the scale "
            f"{examples(list(scale.labels))}, e.g. item {row[item]!r} with label {row[label]!r}; "
            "fix or drop these rows, or pass the full scale with scale=."
        )
        raise DataError(msg)
    return np.asarray(codes, dtype=np.int64)


def _code_dtype(K: int) -> type[np.signedinteger[Any]]:
    return np.int8 if K < 128 else np.int32


def _encode_partition(df: pd.DataFrame, item: str, label: str, scale: Scale) -> pd.DataFrame:
    """``item, code`` of one partition: labels as small integers before any shuffle.

    A shuffle moves these (9 bytes a row for int ids) instead of the raw
    labels (object strings), and every check happens where the rows are read.
    """
    codes = _label_codes(df, item, label, scale).astype(_code_dtype(scale.K))
    return pd.DataFrame({"item": df[item].to_numpy(), "code": codes}, index=df.index)


def _count_partition(df: pd.DataFrame, K: int) -> pd.DataFrame:
    """(N_p, K) counts of the items of one encoded partition (all their annotations are here)."""
    item_codes, uniq = pd.factorize(df["item"])
    flat = np.bincount(
        item_codes * K + df["code"].to_numpy(dtype=np.int64), minlength=uniq.size * K
    )
    index = pd.Index(uniq, name="item")
    return pd.DataFrame(
        flat.reshape(-1, K).astype(np.int64), index=index, columns=_count_columns(K)
    )


@dataclass(frozen=True)
class DistributedCounts:
    """Label counts per item, partitioned by item: the Dask twin of :class:`LabelCounts`.

    Attributes
    ----------
    frame : dask.dataframe.DataFrame
        One row per item (index ``item``), columns ``c0 … c{K-1}`` the counts
        of ``scale.labels``; every item is in exactly one partition.
    scale : Scale
        The labels of the columns.
    """

    frame: Any  # dask.dataframe.DataFrame (untyped)
    scale: Scale

    @property
    def K(self) -> int:
        """Number of labels."""
        return self.scale.K

    def persist(self) -> DistributedCounts:
        """Keep the counts in the cluster's memory (for several analyses)."""
        return DistributedCounts(self.frame.persist(), self.scale)

    def collect(self) -> LabelCounts:
        """Bring every item to this process as a :class:`LabelCounts` (sorted by item id)."""
        wide = self.frame.compute().sort_index()
        return LabelCounts.from_array(wide.to_numpy(), scale=self.scale, items=wide.index)


@renamed_parameters(data="annotations")
def label_counts(
    annotations: Any,
    *,
    scale: Scale | Sequence[Any] | None = None,
    item: str = "item",
    label: str = "label",
    npartitions: int | None = None,
    shuffle: str | None = None,
) -> DistributedCounts:
    """Count labels per item on a Dask cluster, items kept partitioned.

    Parameters
    ----------
    annotations : str, path-like, dask.dataframe.DataFrame or pandas.DataFrame
        Long annotations, one row per annotation: a Parquet file or
        directory of files (read with :func:`dask.dataframe.read_parquet`),
        a CSV/TSV file or glob (``*.csv``, read in blocks), or a data frame. An item's annotations may be spread over any
        files and partitions.
    scale : Scale or sequence of labels, optional
        The labels (a sequence makes a nominal scale). Default: inferred from
        the distinct labels (one pass over the data) as
        :meth:`Scale.infer` does.
    item, label : str, default "item", "label"
        Column names.
    npartitions : int, optional
        Partitions after the shuffle by item (default: as many as the input).
    shuffle : {"p2p", "tasks"}, optional
        Dask's shuffle method (default: Dask's choice, ``"p2p"`` on a
        distributed cluster). ``"tasks"`` was faster on one machine in
        ``benchmarks/bench_distributed.py``; ``"p2p"`` holds less in memory
        when the data outgrow the workers.

    Returns
    -------
    DistributedCounts
        Lazy: nothing is computed until a statistic is asked for.

    Raises
    ------
    DataError
        Missing columns (here), missing item ids or labels not on the scale
        (when computed; the message names an offending item).

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"item": [1, 1, 2, 2, 2], "label": ["a", "b", "a", "a", "b"]})
    >>> counts = label_counts(long)
    >>> counts.collect().values.tolist()
    [[1, 1], [2, 1]]
    """
    if shuffle is not None:
        check_option("label_counts", "shuffle", shuffle, ("p2p", "tasks", "disk"))
    ddf = _read(annotations, [item, label], npartitions)
    sc = _scale_of(ddf, label, scale)
    item_dtype = ddf._meta[item].dtype
    encoded = ddf.map_partitions(
        _encode_partition,
        item,
        label,
        sc,
        meta=pd.DataFrame(
            {
                "item": pd.Series(dtype=item_dtype),
                "code": pd.Series(dtype=_code_dtype(sc.K)),
            }
        ),
    )
    shuffled = encoded.shuffle(
        on="item", npartitions=npartitions or ddf.npartitions, shuffle_method=shuffle
    )
    meta = pd.DataFrame(
        {c: pd.Series(dtype=np.int64) for c in _count_columns(sc.K)},
        index=pd.Index([], dtype=item_dtype, name="item"),
    )
    frame = shuffled.map_partitions(_count_partition, sc.K, meta=meta)
    return DistributedCounts(frame, sc)


def _compact(parts: list[pd.DataFrame]) -> list[pd.DataFrame]:
    """Merge partial counts: the same item in several batches becomes one row.

    A hash of the item ids and one weighted ``bincount`` (counts stay exact
    below 2**53), several times faster than ``groupby(level=0).sum()``.
    """
    if len(parts) <= 1:
        return parts
    index = parts[0].index.append([p.index for p in parts[1:]])
    codes, uniq = pd.factorize(index)
    values = np.concatenate([p.to_numpy(dtype=np.float64) for p in parts])
    K = values.shape[1]
    flat = np.bincount(
        (codes[:, None] * K + np.arange(K)).ravel(), weights=values.ravel(), minlength=uniq.size * K
    )
    merged = pd.DataFrame(
        flat.reshape(-1, K).astype(np.int64),
        index=pd.Index(uniq, name=parts[0].index.name),
        columns=parts[0].columns,
    )
    return [merged]


#: Cells of the dense (items x K) count array of :func:`stream_counts` (640 MB of int64).
_DENSE_CELLS = 80_000_000


def _add_dense(
    dense: npt.NDArray[np.int64], enc: pd.DataFrame, K: int
) -> npt.NDArray[np.int64] | None:
    """Add a batch to counts indexed by the item id itself; None if the ids do not fit.

    Small non-negative integer ids (the usual case) need no hashing at all.
    """
    ids = enc["item"].to_numpy()
    if ids.dtype.kind not in "iu":
        return None
    if ids.size == 0:
        return dense
    lo, hi = int(ids.min()), int(ids.max())
    if lo < 0 or (hi + 1) * K > _DENSE_CELLS:
        return None
    if hi >= dense.shape[0]:
        rows = min(max(hi + 1, 2 * dense.shape[0]), _DENSE_CELLS // K)
        grown = np.zeros((rows, K), dtype=np.int64)
        grown[: dense.shape[0]] = dense
        dense = grown
    flat = ids.astype(np.int64) * K + enc["code"].to_numpy(dtype=np.int64)
    np.add.at(dense.reshape(-1), flat, 1)
    return dense


def _dense_frame(dense: npt.NDArray[np.int64]) -> list[pd.DataFrame]:
    """The rated items of dense counts as a partial-count frame."""
    rows = np.flatnonzero(dense.any(axis=1))
    if rows.size == 0:
        return []
    index = pd.Index(rows, name="item")
    return [pd.DataFrame(dense[rows], index=index, columns=_count_columns(dense.shape[1]))]


def stream_counts(
    path: Any,
    *,
    scale: Scale | Sequence[Any],
    item: str = "item",
    label: str = "label",
    batch_size: int = 1_000_000,
) -> LabelCounts:
    """Label counts of a Parquet/CSV dataset larger than memory, read batch by batch.

    One process, no cluster: the annotations are streamed with
    :mod:`pyarrow.dataset` and only the counts (items × K) are kept, so memory
    grows with the number of items, not of annotations.

    Parameters
    ----------
    path : str or path-like
        A Parquet file or directory, or a CSV file (``.csv``).
    scale : Scale or sequence of labels
        The labels (required: a stream cannot be read twice to infer them).
    item, label : str, default "item", "label"
        Column names.
    batch_size : int, default 1_000_000
        Rows per batch.

    Returns
    -------
    LabelCounts
        Sorted by item id; equal to ``Annotations.from_frame(...).counts()``
        of the whole table.

    Examples
    --------
    >>> import pandas as pd, tempfile, os
    >>> tmp = tempfile.mkdtemp()
    >>> pd.DataFrame({"item": [2, 1, 2], "label": ["a", "b", "b"]}).to_csv(
    ...     os.path.join(tmp, "a.csv"), index=False)
    >>> stream_counts(os.path.join(tmp, "a.csv"), scale=["a", "b"], batch_size=2).values.tolist()
    [[0, 1], [1, 1]]
    """
    ds: Any = importlib.import_module("pyarrow.dataset")  # untyped; loaded on use

    sc = scale if isinstance(scale, Scale) else Scale.nominal(scale)
    fmt = "csv" if str(path).lower().endswith(".csv") else "parquet"
    dataset = ds.dataset(path, format=fmt)
    missing = [c for c in (item, label) if c not in dataset.schema.names]
    if missing:
        msg = f"{path}: no column {examples(missing)} (columns: {examples(dataset.schema.names)})."
        raise DataError(msg)
    parts: list[pd.DataFrame] = []
    merged = held = 0
    dense: npt.NDArray[np.int64] | None = np.zeros((0, sc.K), dtype=np.int64)
    for batch in dataset.to_batches(columns=[item, label], batch_size=batch_size):
        enc = _encode_partition(batch.to_pandas(), item, label, sc)
        if dense is not None:
            grown = _add_dense(dense, enc, sc.K)
            if grown is not None:
                dense = grown
                continue
            # ids outside the dense range: from here on, partial counts merged by hash
            parts = _dense_frame(dense)
            held = merged = len(parts[0]) if parts else 0
            dense = None
        part = _count_partition(enc, sc.K)
        parts.append(part)
        held += len(part)
        # Compact when the new partial counts outnumber the merged ones (and a batch):
        # amortised constant work per row, and memory under ~2x the final counts.
        if held - merged > max(batch_size, merged):
            parts = _compact(parts)
            held = merged = len(parts[0])
    if dense is not None:
        parts += _dense_frame(dense)
    parts = _compact(parts)
    if not parts:
        return LabelCounts.from_array(np.zeros((0, sc.K), dtype=np.int64), scale=sc)
    wide = parts[0].sort_index()
    return LabelCounts.from_array(wide.to_numpy(), scale=sc, items=wide.index)


# --------------------------------------------------------------------------- agreement


def _partition_stats(
    wide: pd.DataFrame,
    K: int,
    n_resamples: int,
    seed: int,
    alpha_w: Sequence[FloatArray] = (),
) -> dict[str, Any]:
    """Mergeable sums of one partition: item counts, agreement sums, coincidences.

    With ``n_resamples``, the same sums under each resample's Poisson weights.
    ``alpha_w`` are the agreement weights of the alpha levels whose standard
    error is asked for: the moments of :math:`(u_i, r_i, x_i)` of each.
    """
    X = wide.to_numpy(dtype=np.float64)
    n = X.sum(axis=1)
    keep = n >= 2
    excluded = wide.index[~keep]
    X = X[keep]
    Xt = np.ascontiguousarray(X.T)
    with np.errstate(invalid="ignore", divide="ignore"):  # an empty partition is fine
        it = _items(Xt, np.eye(K))
    shares = (Xt * it.inv_n).T  # (N, K): x_ik / n_i
    coinc = _row_stats(Xt, "ordinal", None)[1]  # (N, K^2) per-item coincidences
    out: dict[str, Any] = {
        "n_items": int(X.shape[0]),
        "n_excluded": int(excluded.size),
        "excluded": excluded[:5].tolist(),
        "n_annotations": int(X.sum()),
        "pa": it.pa_i.sum(),
        "shares": shares.sum(axis=0),
        "o": coinc.sum(axis=0),
        "moments": _moments(np.column_stack([it.pa_i, shares])),
    }
    if alpha_w:
        # (u_i of each level, r_i, x_i1 .. x_iK): r_i and x_i are shared by the levels
        terms = [alpha_item_terms(Xt, W) for W in alpha_w]
        out["alpha_moments"] = _moments(
            np.column_stack([t[:, 0] for t in terms] + [terms[0][:, 1:]])
        )
    if n_resamples:
        keys = item_keys(wide.index[keep])
        step = max(1, _CHUNK_FLOATS // max(X.shape[0], 1))
        parts: dict[str, list[FloatArray]] = {"b_w": [], "b_pa": [], "b_shares": [], "b_o": []}
        for start in range(0, n_resamples, step):
            W = poisson_weights(keys, min(step, n_resamples - start), seed=seed, start=start)
            parts["b_w"].append(W.sum(axis=1))
            parts["b_pa"].append(W @ it.pa_i)
            parts["b_shares"].append(W @ shares)
            parts["b_o"].append(W @ coinc)
        out.update({k: np.concatenate(v) for k, v in parts.items()})
    return out


def _moments(Y: FloatArray) -> list[tuple[int, FloatArray, FloatArray]]:
    """Count, mean and centred cross-product matrix of the rows of ``Y`` (one partition)."""
    m = Y.shape[0]
    if m == 0:
        return []
    mean = Y.mean(axis=0)
    D = Y - mean
    return [(m, mean, D.T @ D)]


def _pooled_moments(
    parts: Sequence[tuple[int, FloatArray, FloatArray]],
) -> tuple[int, FloatArray, FloatArray]:
    """Chan et al.'s pairwise merge of per-partition moments (no cancellation of raw sums)."""
    n = sum(p[0] for p in parts)
    mean = sum(p[0] * p[1] for p in parts) / n
    C = sum(p[2] + p[0] * np.outer(p[1] - mean, p[1] - mean) for p in parts)
    return n, np.asarray(mean, dtype=np.float64), np.asarray(C, dtype=np.float64)


def _linearised_sum_squares(
    moments: tuple[int, FloatArray, FloatArray],
    chance: str,
    pi: FloatArray,
    value: float,
    pe: float,
) -> float:
    r""":math:`\sum_i (k_i - \kappa)^2` of Gwet's linearised terms, from pooled moments.

    With identity weights, :math:`k_i - \kappa = a_0 + a^\top y_i` for
    :math:`y_i = (p_{a,i}, x_{i1}/n_i, \dots, x_{iK}/n_i)` (see
    :func:`dissensus.agreement._multirater.linearised_terms`), so the sum is
    :math:`N (a_0 + a^\top \bar y)^2 + a^\top C a` with :math:`C` the centred
    cross-products: one pass over the data.
    """
    K = pi.size
    if chance == "fleiss":
        c = pi
    elif chance == "gwet":
        c = (1.0 - pi) / (K - 1.0)
    else:  # uniform: p_e,i = p_e for every item
        c = np.zeros(K)
    a = np.concatenate([[1.0 / (1.0 - pe)], -2.0 * (1.0 - value) / (1.0 - pe) * c])
    a0 = (
        -pe / (1.0 - pe)
        - value
        + (2.0 * (1.0 - value) * pe / (1.0 - pe) if chance != "uniform" else 0.0)
    )
    return _linear_sum_squares(moments, a0, a)


def _linear_sum_squares(
    moments: tuple[int, FloatArray, FloatArray], a0: float, a: FloatArray
) -> float:
    r""":math:`\sum_i (a_0 + a^\top y_i)^2 = N (a_0 + a^\top \bar y)^2 + a^\top C a`."""
    N, mean, C = moments
    centre = a0 + float(a @ mean)
    return float(N * centre**2 + a @ C @ a)


def _alpha_se(
    moments: tuple[int, FloatArray, FloatArray], j: int, n_levels: int, W: FloatArray
) -> float:
    """Gwet's linearised SE of alpha with weights ``W`` (level ``j``) from pooled moments."""
    N, mean, C = moments
    if N < 2:
        return math.nan
    cols = np.r_[j, n_levels : mean.size]  # u_i of level j, r_i, x_i
    terms = alpha_linear_terms(N, mean[j], mean[n_levels], mean[n_levels + 1 :], W)
    if terms is None:
        return math.nan
    a0, a = terms
    ss = _linear_sum_squares((N, mean[cols], C[np.ix_(cols, cols)]), a0, a)
    return math.sqrt(ss / (N * (N - 1.0)))


def _merge(stats: Sequence[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = {}
    for st in stats:
        for k, v in st.items():
            total[k] = v if k not in total else total[k] + v
    return total


def _interval(boot: FloatArray, level: float | None) -> ConfidenceInterval | None:
    if level is None:
        return None
    with np.errstate(invalid="ignore"):
        lo, hi = percentile_interval(boot, confidence_level=level)
    return ConfidenceInterval(float(lo), float(hi))


def _computed(interval: ConfidenceInterval | None) -> Resampler:
    """The interval of the same pass (interim: the engine's own entry points replace this)."""

    def given(*_: object) -> ConfidenceInterval:
        if interval is None:
            msg = "Pass confidence_level= to dissensus.distributed.agreement for an interval."
            raise ValueError(msg)
        return interval

    return given


@renamed_parameters(ci="confidence_level")
def agreement(
    counts: DistributedCounts,
    coefficients: Sequence[str] = COEFFICIENTS,
    *,
    levels: Sequence[str] = ("nominal",),
    confidence_level: float | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    se: bool = True,
) -> dict[str, AgreementResult]:
    r"""Agreement coefficients from per-partition sufficient statistics.

    Parameters
    ----------
    counts : DistributedCounts
        From :func:`label_counts`.
    coefficients : sequence of str
        Any of ``"fleiss_kappa"``, ``"gwet_ac1"``, ``"brennan_prediger"``,
        ``"observed_agreement"``, ``"krippendorff_alpha"`` (default: all).
    levels : sequence of str, default ("nominal",)
        Levels of measurement of Krippendorff's alpha (any of nominal,
        ordinal, interval, ratio); one result each, from the same
        coincidence matrix.
    confidence_level : float, optional
        Coverage of a Poisson-bootstrap percentile interval (e.g. 0.95).
    n_resamples : int, default 1000
        Bootstrap resamples.
    seed : int, default 0
        Seed of the Poisson bootstrap weights.
    se : bool, default True
        Gwet's linearised standard error of Fleiss' kappa, AC1,
        Brennan-Prediger and of Krippendorff's alpha at the nominal,
        interval and ratio levels (equal to the in-memory ``se``; NaN at the
        ordinal level, as in memory), from centred moments summed in the
        same single pass over the data.

    Returns
    -------
    dict of str to AgreementResult
        Keyed like the in-memory results' ``name`` (``fleiss_kappa``,
        ``krippendorff_alpha_ordinal``, ...). ``z``, ``pvalue`` and
        Fleiss' ``se0`` are not computed (NaN / absent).

    Notes
    -----
    With :math:`N` items having two or more ratings, per partition
    :math:`S_a = \sum_i p_{a,i}`, :math:`S_k = \sum_i x_{ik} / n_i` and the
    coincidence matrix :math:`O = \sum_i o^{(i)}` are summed over partitions;
    then :math:`P_a = S_a / N`, :math:`\pi_k = S_k / N`, :math:`P_e` by the
    coefficient's chance model, and alpha from :math:`O` (see
    :func:`dissensus.agreement.krippendorff_alpha`). Under resample
    :math:`b` the same sums carry the weights :math:`w_{bi}` and :math:`N`
    becomes :math:`\sum_i w_{bi}`.

    The standard errors are Gwet's (2014) linearised ones: each per-item
    term is :math:`a_0 + a^\top y_i` with coefficients that depend on the
    pooled means only (:math:`y_i = (p_{a,i}, x_{i\cdot}/n_i)` for the
    kappas, :math:`(u_i, r_i, x_{i\cdot})` for alpha, see
    :func:`dissensus.agreement._alpha.alpha_linear_terms`), so
    :math:`\sum_i (a_0 + a^\top y_i)^2 = N (a_0 + a^\top \bar y)^2 + a^\top C a`
    from the per-partition means and centred cross-products :math:`C`,
    merged as Chan, Golub and LeVeque (1983) do.

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3],
    ...                      "label": ["a", "a", "a", "b", "b", "b"]})
    >>> res = agreement(label_counts(long), ["fleiss_kappa"])
    >>> round(float(res["fleiss_kappa"]), 4)
    0.3333
    """
    dask = _dask("dask")

    for name in coefficients:
        check_option("agreement", "coefficients", name, COEFFICIENTS)
    for lvl in levels:
        check_option("agreement", "levels", lvl, LEVELS)
    level = (
        None
        if confidence_level is None
        else check_probability_level("agreement", "confidence_level", confidence_level)
    )
    B = 0 if level is None else int(n_resamples)
    if level is not None and B < 2:
        msg = f"The 'n_resamples' parameter of agreement must be at least 2. Got {n_resamples!r}."
        raise ValueError(msg)
    K = counts.K
    # alpha's SE levels (ordinal distances depend on the data: no linearised SE, as in memory)
    se_levels: dict[str, FloatArray] = {}
    if se and "krippendorff_alpha" in coefficients:
        for lvl in dict.fromkeys(levels):
            if lvl == "ordinal":
                continue
            v = _level_values(counts.scale, lvl)
            delta = 1.0 - np.eye(K) if lvl == "nominal" else _metric(lvl, v, None)
            W = alpha_weights(delta)
            if W is not None:
                se_levels[lvl] = W
    alpha_w = list(se_levels.values())
    parts = [
        dask.delayed(_partition_stats)(p, K, B, seed, alpha_w) for p in counts.frame.to_delayed()
    ]
    tot = _merge(dask.compute(*parts))
    N = tot["n_items"]
    if tot["n_excluded"]:
        warnings.warn(
            f"agreement: {tot['n_excluded']} items have fewer than 2 ratings and are excluded "
            f"({examples(tot['excluded'])}).",
            DegenerateAgreementWarning,
            stacklevel=2,
        )
    common = {
        "n_items": N,
        "n_items_excluded": tot["n_excluded"],
        "n_annotations": tot["n_annotations"],
    }
    out: dict[str, AgreementResult] = {}
    points: dict[str, tuple[float, float]] = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = tot["pa"] / N if N else math.nan
        pi = tot["shares"][None, :] / N
        b_pa = tot["b_pa"] / tot["b_w"] if B else None
        b_pi = tot["b_shares"] / tot["b_w"][:, None] if B else None
        for name in coefficients:
            if name == "observed_agreement":
                ci_ = None if b_pa is None else _interval(b_pa, level)
                out[name] = AgreementResult(
                    name=name, statistic=float(pa), _resampler=_computed(ci_), **common
                )
            elif name in _COUNT_COEFFICIENTS:
                chance = _COUNT_COEFFICIENTS[name]
                M = np.eye(K)
                pe = float(_chance(pi, M, chance)[0])  # type: ignore[arg-type]
                value = (pa - pe) / (1.0 - pe) if N and pe < 1.0 - 1e-12 else math.nan
                ci_ = None
                if b_pa is not None and b_pi is not None and math.isfinite(value):
                    b_pe = _chance(b_pi, M, chance)  # type: ignore[arg-type]
                    ci_ = _interval((b_pa - b_pe) / (1.0 - b_pe), level)
                parts_ = {"observed_agreement": float(pa), "chance_agreement": pe}
                if math.isfinite(value) and N >= 2:
                    points[name] = (float(value), pe)
                out[name] = AgreementResult(
                    name=name,
                    statistic=float(value),
                    _resampler=_computed(ci_),
                    parts=parts_,
                    **common,
                )
            else:
                o = tot["o"].reshape(1, K, K)
                if se_levels and N:
                    alpha_moments = _pooled_moments(tot["alpha_moments"])
                for lvl in levels:
                    v = _level_values(counts.scale, lvl)
                    value = float(alpha_from_coincidences(o, lvl, v)[0]) if N else math.nan
                    ci_ = None
                    if B and math.isfinite(value):
                        boot = alpha_from_coincidences(tot["b_o"].reshape(B, K, K), lvl, v)
                        ci_ = _interval(boot, level)
                    key = name if lvl == "nominal" else f"{name}_{lvl}"
                    se_ = math.nan
                    if lvl in se_levels and math.isfinite(value):
                        j = list(se_levels).index(lvl)
                        se_ = _alpha_se(alpha_moments, j, len(se_levels), se_levels[lvl])
                    out[key] = AgreementResult(
                        name=key,
                        statistic=value,
                        standard_error=se_,
                        _resampler=_computed(ci_),
                        **common,
                    )
    if se and points:
        # Gwet's linearised standard error, from the moments of the same single pass
        moments = _pooled_moments(tot["moments"])
        shares = tot["shares"] / N
        for name, (value, pe) in points.items():
            ss = _linearised_sum_squares(moments, _COUNT_COEFFICIENTS[name], shares, value, pe)
            out[name] = dataclasses.replace(
                out[name], standard_error=math.sqrt(ss / (N * (N - 1.0)))
            )
    return out


# --------------------------------------------------------------------------- pairwise


def _pair_partition(
    df: pd.DataFrame, columns: tuple[str, str, str], scale: Scale, raters: pd.Index
) -> Any:
    """Sparse (R·K, R·K) sum of the pair tables of one partition's items."""
    sp: Any = importlib.import_module("scipy.sparse")
    item, annotator, label = columns
    K, R = scale.K, len(raters)
    codes = _label_codes(df, item, label, scale)
    who = raters.get_indexer(pd.Index(df[annotator]))
    if (who < 0).any():
        first = int(np.flatnonzero(who < 0)[0])
        msg = (
            f"{int((who < 0).sum())} annotations have a missing annotator id, e.g. item "
            f"{_py(df[item].iloc[first])!r}; fix or drop these rows."
        )
        raise DataError(msg)
    rows, _ = pd.factorize(df[item])
    pair = pd.Series(rows.astype(np.int64) * R + who)
    if pair.duplicated().any():
        first = int(np.flatnonzero(pair.duplicated().to_numpy())[0])
        msg = (
            f"{int(pair.duplicated().sum())} repeated (item, annotator) pairs, e.g. item "
            f"{_py(df[item].iloc[first])!r} by annotator {_py(df[annotator].iloc[first])!r}; "
            "pairwise agreement needs one label per annotator and item (deduplicate first)."
        )
        raise DataError(msg)
    n_rows = int(rows.max()) + 1 if rows.size else 0
    Y = sp.csr_matrix(
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
    weights: Any = "quadratic",
    level: Level = "nominal",
    npartitions: int | None = None,
) -> PairwiseAgreement:
    r"""Agreement of every pair of annotators from pair tables summed over partitions.

    The annotations are shuffled by item; each partition adds up, for its
    items, the (R, R, K, K) contingency tables of every annotator pair
    (a sparse :math:`Y^\top Y` of the item × (annotator, label) one-hot
    matrix, as in memory), and only these sums reach the client. The pair
    coefficients are functions of the tables, so they equal those of
    :func:`dissensus.agreement.pairwise` on the same annotations (1e-12).

    Parameters
    ----------
    annotations : str, path-like, dask.dataframe.DataFrame or pandas.DataFrame
        Long annotations with item, annotator and label columns (see
        :func:`label_counts`).
    measure : {"cohen", "weighted_cohen", "alpha", "pearson"}, default "cohen"
        As in :func:`dissensus.agreement.pairwise`.
    scale : Scale or sequence of labels, optional
        The labels (default: inferred, one pass over the data).
    item, annotator, label : str
        Column names.
    min_overlap : int, default 1
        Pairs sharing fewer items get NaN.
    weights, level
        Of ``"weighted_cohen"`` and ``"alpha"``, as in memory.
    npartitions : int, optional
        Partitions after the shuffle by item.

    Returns
    -------
    PairwiseAgreement
        Annotators in sorted order (the in-memory path keeps their first
        appearance; reindex to compare).

    Raises
    ------
    DataError
        Missing columns, missing ids, labels not on the scale, or an
        annotator labelling an item twice.

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4],
    ...                      "annotator": ["a", "b"] * 4,
    ...                      "label": [0, 0, 1, 1, 0, 1, 1, 1]})
    >>> round(float(pairwise(long).statistic.loc["a", "b"]), 4)
    0.5
    """
    dask = _dask("dask")
    check_option("pairwise", "measure", measure, MEASURES)
    check_option("pairwise", "level", level, LEVELS)
    if int(min_overlap) < 1:
        msg = f"The 'min_overlap' parameter of pairwise must be at least 1. Got {min_overlap!r}."
        raise ValueError(msg)
    ddf = _read(annotations, [item, annotator, label], npartitions)
    sc = _scale_of(ddf, label, scale)
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


# --------------------------------------------------------------------------- icc


def _icc_partition(df: pd.DataFrame, item: str, annotator: str, label: str) -> dict[str, Any]:
    """Mergeable sums of one partition for the ICC (every rating of its items is here).

    The moments of the ratings and of the item means, the per-rater sums, and
    the item with the fewest ratings (with its raters) for the completeness
    check; a repeated (item, rater) pair or a missing id or rating is a
    DataError naming the item.
    """
    y = df[label].to_numpy(dtype=np.float64, na_value=np.nan)
    bad = df[item].isna().to_numpy() | df[annotator].isna().to_numpy() | ~np.isfinite(y)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        row = {c: _py(df[c].iloc[first]) for c in (item, annotator, label)}
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
            f"{_py(df[annotator].iloc[first])!r} rated item {_py(df[item].iloc[first])!r} "
            f"{times} times ({int(pair.duplicated().sum())} repeated rows in this partition). "
            "Keep one rating per pair (e.g. drop_duplicates([item, annotator])) or make the "
            "repeat its own annotator."
        )
        raise DataError(msg)
    n_i = np.bincount(icode, minlength=items.size)
    means = np.bincount(icode, weights=y, minlength=items.size) / np.maximum(n_i, 1)
    out: dict[str, Any] = {
        "n_items": int(items.size),
        "y": _moments(y[:, None]),
        "means": _moments(means[:, None]),
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
        out["fewest"] = [(int(n_i[j]), _py(items[j]), [_py(w) for w in who])]
    return out


def icc(
    annotations: Any,
    *,
    kind: str = "A,1",
    confidence_level: float | None = 0.95,
    item: str = "item",
    annotator: str = "annotator",
    label: str = "label",
    npartitions: int | None = None,
) -> AgreementResult:
    r"""Intraclass correlation of a complete design from sums computed per partition.

    The ratings are shuffled by item (as :func:`label_counts` does), so every
    rating of an item meets in one partition, which checks that no annotator
    rated it twice and sums what the two-way ANOVA needs: the count, mean
    and centred sum of squares of the ratings and of the item means, and
    the per-annotator sums (a few numbers per annotator). Only these reach
    the client, where the mean squares are formed and passed to the same
    closed forms as :func:`dissensus.agreement.icc` (``method="anova"``),
    so the statistic, F-test and interval equal the in-memory ones (1e-12).

    Parameters
    ----------
    annotations : str, path-like, dask.dataframe.DataFrame or pandas.DataFrame
        Long ratings, one row per (item, annotator, numeric rating): a
        Parquet file or directory, a CSV/TSV file or glob, or a data frame.
        An item's ratings may be spread over any files and partitions.
    kind : {"1,1", "A,1", "C,1", "1,k", "A,k", "C,k"}, default "A,1"
        McGraw-Wong form (Shrout-Fleiss names ``"ICC1"`` … ``"ICC3k"``
        accepted), as in :func:`dissensus.agreement.icc`.
    confidence_level : float or None, default 0.95
        Coverage of McGraw and Wong's exact F-distribution interval.
    item, annotator, label : str, default "item", "annotator", "label"
        Column names (``label`` holds the numeric rating).
    npartitions : int, optional
        Partitions after the shuffle by item (default: as many as the input).

    Returns
    -------
    AgreementResult
        As :func:`dissensus.agreement.icc`: ``statistic`` the ICC,
        ``confidence_interval``, ``pvalue`` of the F-test of ICC = 0, and
        ``parts`` the mean squares, F and its degrees of freedom.

    Raises
    ------
    DataError
        Missing columns, non-numeric ratings, a missing id or rating, an
        annotator rating an item twice, or an incomplete design (an item
        not rated by every annotator), naming an offending item; for
        missing ratings fit ``icc(..., method="reml")`` in memory.
    TypeError
        For :class:`DistributedCounts`, which have no annotator ids.

    Notes
    -----
    With :math:`n` items each rated once by the same :math:`k` annotators,
    :math:`\bar y` the grand mean, :math:`\bar y_{i\cdot}` the item means and
    :math:`\bar y_{\cdot j} = S_j / n` the annotator means,

    .. math::

        SS_T = \sum_{ij} (y_{ij} - \bar y)^2, \quad
        SS_R = k \sum_i (\bar y_{i\cdot} - \bar y)^2, \quad
        SS_C = n \sum_j (\bar y_{\cdot j} - \bar y)^2,

    where :math:`SS_T` and :math:`SS_R` are pooled from per-partition
    counts, means and centred sums of squares (Chan, Golub and LeVeque
    1983), never from raw sums of squares, whose difference cancels. The
    mean squares and the six coefficients are those of
    :func:`dissensus.agreement.icc` (McGraw and Wong 1996, Tables 4 and 7;
    Gwet 2014, ch. 8).

    References
    ----------
    McGraw, K. O. and Wong, S. P. (1996). Forming inferences about some
    intraclass correlation coefficients. *Psychological Methods* 1(1), 30–46.
    https://doi.org/10.1037/1082-989X.1.1.30

    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability*, 4th ed.
    Advanced Analytics, Gaithersburg, MD.

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
    dask = _dask("dask")
    kind = check_kind(kind)
    if confidence_level is not None:  # the interval is asked of the result
        check_probability_level("icc", "confidence_level", confidence_level)
    if isinstance(annotations, DistributedCounts):
        msg = (
            "icc needs each rating with its annotator; DistributedCounts have label counts "
            "only. Pass the long ratings (item, annotator, label) instead."
        )
        raise TypeError(msg)
    ddf = _read(annotations, [item, annotator, label], npartitions)
    dtype = ddf._meta[label].dtype
    if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
        msg = f"icc needs numeric ratings; column {label!r} has dtype {dtype}."
        raise DataError(msg)
    shuffled = ddf.shuffle(on=item, npartitions=npartitions or ddf.npartitions)
    parts = [dask.delayed(_icc_partition)(p, item, annotator, label) for p in shuffled.to_delayed()]
    tot = _merge(dask.compute(*parts))
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
    _, grand, ss_t = _pooled_moments(tot["y"])
    _, _, ss_means = _pooled_moments(tot["means"])
    col_means = raters.to_numpy(dtype=np.float64) / n
    return anova_icc(
        kind,
        n=n,
        k=k,
        ss_r=float(k * ss_means[0, 0]),
        ss_c=float(n * ((col_means - grand[0]) ** 2).sum()),
        ss_t=float(ss_t[0, 0]),
    )


# --------------------------------------------------------------------------- metrics


def metric_means(
    counts: DistributedCounts,
    predictions: Mapping[str, Any],
    metrics: Sequence[str],
    *,
    prior: Any = DEFAULT_PRIOR,
    item: str = "item",
) -> pd.DataFrame:
    r"""Per-model means of per-item metrics, computed where the items live.

    Parameters
    ----------
    counts : DistributedCounts
        From :func:`label_counts`.
    predictions : mapping of str to DataFrame
        Model name -> wide predictions (pandas or Dask): an ``item`` column
        and one column per label, named ``str(label)``. Joined to the counts
        by item id (a Dask join); every model must predict exactly the
        annotated items.
    metrics : sequence of str
        Registered metric names, pointwise or expected (``"E[emd]"``).
    prior : {"uniform", "jeffreys"}, float or array_like, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        Dirichlet prior of the expected metrics. A fitted prior
        (``"empirical"``, ``"hierarchical"``) is fitted once to all the
        counts, from their distinct count vectors and multiplicities.
    item : str, default "item"
        Item id column of the predictions.

    Returns
    -------
    pandas.DataFrame
        Columns ``model, metric, mean, n_items``, equal to the ``mean`` of
        :meth:`dissensus.Evaluation.summary` on the same data.

    Raises
    ------
    DataError
        Missing label columns, or predictions that do not cover exactly the
        annotated items.
    """
    names = [get_metric(m).name for m in metrics]
    prior = _prior_for(counts, prior, names)
    models = [str(m) for m in predictions]
    label_cols = [str(lab) for lab in counts.scale.labels]
    frames = [
        _prediction_frame(model, pred, j, item, label_cols)
        for j, (model, pred) in enumerate(zip(models, predictions.values(), strict=True))
    ]
    score_cols = [f"s{i}_{j}" for j in range(len(models)) for i in range(len(names))]
    # one join of the counts with every model: the posterior is computed once per item
    scored = _scored(counts, frames, models, names, prior)
    # one pass over the data: the sums and the sizes checked below (repeats fail in _score_joined)
    sums, n_joined, n_counts, *n_pred = _compute(
        scored[score_cols].sum(),
        scored.shape[0],
        counts.frame.shape[0],
        *(q.shape[0] for q in frames),
    )
    if n_joined != n_counts or any(n != n_counts for n in n_pred):
        msg = (
            f"The predictions cover {n_joined} of the {n_counts} annotated items in common "
            f"(prediction rows: {', '.join(f'{m!r} {n}' for m, n in zip(models, n_pred, strict=True))}); "
            "every model must predict exactly the annotated items once."
        )
        raise DataError(msg)
    rows = [
        {
            "model": model,
            "metric": m,
            "mean": float(sums[f"s{i}_{j}"]) / n_joined,
            "n_items": n_joined,
        }
        for j, model in enumerate(models)
        for i, m in enumerate(names)
    ]
    return pd.DataFrame(rows)


_FITTED_PRIORS = ("empirical", "hierarchical")


def _prior_for(counts: DistributedCounts, prior: Any, metrics: Sequence[str]) -> Any:
    """The prior the partitions score ``metrics`` with: a fitted one fitted once, on all items.

    Fitted per partition it would differ; no fit when no metric needs the posterior.
    """
    if (
        isinstance(prior, str)
        and prior in _FITTED_PRIORS
        and any(get_metric(m).needs_posterior for m in metrics)
    ):
        return _fit_prior(counts, prior)
    return prior


def _fit_prior(counts: DistributedCounts, name: str) -> FloatArray:
    """A prior fitted to all the counts, once, from their distinct count vectors.

    The fit needs each distinct count vector and how often it occurs (few,
    whatever the number of items): one group-by on the cluster. They are
    expanded on the client (an (N, K) int64 array) and fitted as in memory,
    so the prior is the one :func:`dissensus.evaluate` would fit.
    """
    from dissensus.posterior import fit_dirichlet_prior, fit_hierarchical_prior  # noqa: PLC0415

    cols = _count_columns(counts.K)
    (distinct,) = _compute(counts.frame.groupby(cols).size())
    rows = np.array(distinct.index.tolist(), dtype=np.int64).reshape(-1, counts.K)
    n = np.repeat(rows, distinct.to_numpy(dtype=np.int64), axis=0)
    fit = fit_dirichlet_prior if name == "empirical" else fit_hierarchical_prior
    alpha0: FloatArray = fit(n).alpha0
    return alpha0


def _compute(*args: Any) -> tuple[Any, ...]:
    """Compute several Dask collections in one pass."""
    dask = _dask("dask")

    return tuple(dask.compute(*args))


# --------------------------------------------------------------------------- posterior

#: soft_labels methods that fit an annotator model to all the items at once (EM).
_ANNOTATOR_METHODS = ("dawid_skene", "ordinal_dawid_skene", "mace")


def _as_counts(data: Any) -> DistributedCounts:
    """``data`` as distributed counts: kept if it is, else :func:`label_counts` of it."""
    return data if isinstance(data, DistributedCounts) else label_counts(data)


def _item_prior(counts: DistributedCounts, prior: Any, func: str) -> Any:
    """The prior every partition uses: a fitted one fitted once here, on all the items.

    A name the in-memory functions resolve per item (``"uniform"``,
    ``"jeffreys"``) or a (K,) vector is passed on as it is; a fitted name
    becomes its (K,) parameters (per partition the fit would differ).
    """
    if isinstance(prior, str):
        check_option(func, "prior", prior, ("uniform", "jeffreys", *_FITTED_PRIORS))
        return _fit_prior(counts, prior) if prior in _FITTED_PRIORS else prior
    if np.ndim(prior) > 1:
        msg = (
            f"The 'prior' parameter of {func} on the Dask engine must be a name, a number or "
            f"a ({counts.K},) array; a per-item (N, K) prior cannot follow the items into "
            f"their partitions. Got shape {np.shape(prior)}."
        )
        raise ValueError(msg)
    return prior


def _posterior_partition(
    wide: pd.DataFrame, scale: Scale, func: str, options: dict[str, Any]
) -> pd.DataFrame:
    """The in-memory ``dissensus.posterior.<func>`` of one partition's items."""
    counts = LabelCounts.from_array(wide.to_numpy(dtype=np.int64), scale=scale, items=wide.index)
    out = np.asarray(getattr(_posterior, func)(counts, **options), dtype=np.float64)
    return pd.DataFrame(out, index=wide.index, columns=list(scale.labels))


def _per_partition(counts: DistributedCounts, func: str, options: dict[str, Any]) -> Any:
    """Lazy ``func`` of every partition; the options are checked here on zero items."""
    empty = counts.frame._meta
    # the in-memory function on no items: its option errors, raised now, and the meta
    meta = _posterior_partition(empty, counts.scale, func, options)
    return counts.frame.map_partitions(_posterior_partition, counts.scale, func, options, meta=meta)


def dirichlet(counts: Any, *, prior: Any = DEFAULT_PRIOR) -> Any:
    r"""Posterior Dirichlet parameters of every item, computed where the items live.

    Each partition's items get :func:`dissensus.posterior.dirichlet` (the
    same formula, :math:`\alpha_i = \alpha^{(0)} + n_i`); nothing is
    collected.

    Parameters
    ----------
    counts : DistributedCounts, dask.dataframe.DataFrame, pandas.DataFrame or path
        Counts from :func:`label_counts`, or long annotations (a Dask or
        pandas DataFrame, a Parquet/CSV path) turned into them by
        :func:`label_counts` with its defaults.
    prior : {"uniform", "jeffreys", "empirical", "hierarchical"}, float or array_like of shape (K,), default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        As in :func:`dissensus.posterior.dirichlet`. A fitted prior
        (``"empirical"``, ``"hierarchical"``) is fitted once to all the
        items, from their distinct count vectors (one group-by on the
        cluster), as in memory. A per-item (N, K) prior is refused.

    Returns
    -------
    dask.dataframe.DataFrame
        Lazy, float64, indexed by item id (in the partitions of the counts,
        not sorted), one column per label of ``counts.scale``. ``.compute()``
        equals the in-memory result (to the order of floating-point sums of
        a fitted prior, 1e-12).

    Raises
    ------
    ValueError
        Unknown prior name, a non-positive or wrongly shaped prior.

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"item": [1, 1, 2], "label": ["a", "b", "b"]})
    >>> dirichlet(long, prior="uniform").compute().sort_index()
         a    b
    item
    1     2.0  2.0
    2     1.0  2.0
    """
    dc = _as_counts(counts)
    return _per_partition(dc, "dirichlet", {"prior": _item_prior(dc, prior, "dirichlet")})


def soft_labels(
    counts: Any,
    *,
    method: str = "empirical",
    prior: Any = DEFAULT_PRIOR,
    sigma: float = 0.5,
) -> Any:
    """Soft labels of every item, computed where the items live.

    Each partition's items get :func:`dissensus.posterior.soft_labels`; the
    methods are per-item formulas, so partitioning does not change them.

    Parameters
    ----------
    counts : DistributedCounts, dask.dataframe.DataFrame, pandas.DataFrame or path
        As in :func:`dirichlet`.
    method : {"empirical", "posterior_mean", "gaussian"}, default "empirical"
        As in :func:`dissensus.posterior.soft_labels`. The annotator models
        (``"dawid_skene"``, ``"ordinal_dawid_skene"``, ``"mace"``) fit every
        annotator's reliability to all the items at once and need annotator
        ids, which counts do not keep: they are refused (run them in memory).
    prior : see :func:`dirichlet`, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        For ``method="posterior_mean"``; a fitted prior is fitted once to
        all the items.
    sigma : float, default 0.5
        Kernel width of ``method="gaussian"``.

    Returns
    -------
    dask.dataframe.DataFrame
        Lazy, float64, indexed by item id, one column per label; rows sum
        to 1.

    Raises
    ------
    ValueError
        Unknown or annotator-model method, bad ``sigma`` or prior.
    DataError
        ``"gaussian"`` on a nominal scale (here); items without annotations
        with ``"empirical"`` or ``"gaussian"`` (when computed, naming them).

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"item": [1, 1, 1, 1], "label": [0, 1, 1, 1]})
    >>> soft_labels(long).compute().to_numpy().tolist()
    [[0.25, 0.75]]
    """
    if method in _ANNOTATOR_METHODS:
        msg = (
            f"soft_labels(method={method!r}) fits an annotator model to all the items at once "
            "and needs annotator ids, which distributed counts do not keep; build in-memory "
            "Annotations (Annotations.from_frame(ddf, ...) computes the frame) and call "
            "dissensus.posterior.soft_labels."
        )
        raise ValueError(msg)
    check_option("soft_labels", "method", method, ("empirical", "posterior_mean", "gaussian"))
    dc = _as_counts(counts)
    options: dict[str, Any] = {"method": method, "sigma": sigma}
    if method == "posterior_mean":
        options["prior"] = _item_prior(dc, prior, "soft_labels")
    return _per_partition(dc, "soft_labels", options)


# --------------------------------------------------------------------------- per-item scores


@dataclass(frozen=True)
class ItemScores:
    """Per-item scores computed on the cluster and collected: the input of an Evaluation.

    Everything is in this process and sorted by item id; memory is about
    ``N (M J + J K + K)`` numbers (:func:`score_items`).

    Attributes
    ----------
    counts : LabelCounts
        Counts of the scored items, sorted by item id.
    scores : ndarray of float64, shape (M, J, N)
        ``scores[m, j, i]``: metric ``m`` of model ``j`` on item ``i``.
    predictions : ndarray of float64, shape (J, N, K)
        The predictions, aligned to ``counts``.
    """

    counts: LabelCounts
    scores: FloatArray
    predictions: FloatArray


def _prediction_frame(model: str, pred: Any, j: int, item: str, labels: list[str]) -> Any:
    """Model ``j``'s wide predictions as a Dask frame: ``item, q{j}_0 … q{j}_{K-1}``."""
    dd = _dask()
    if isinstance(pred, Predictions):
        if pred.items is None or pred.scale is None:
            msg = (
                f"Predictions of {model!r} have no item ids or labels; the Dask engine joins "
                "predictions to the annotations by item id and label."
            )
            raise DataError(msg)
        pred = pred.to_frame().rename_axis(index=item).reset_index()
    if isinstance(pred, pd.DataFrame):
        pdf = dd.from_pandas(pred, npartitions=max(1, len(pred) // 1_000_000))
    elif isinstance(pred, dd.DataFrame):
        pdf = pred
    else:
        msg = (
            f"Predictions of {model!r} must be a pandas or Dask DataFrame on the Dask engine "
            f"(an {item!r} column, one column per label); got {type(pred).__name__}."
        )
        raise TypeError(msg)
    if item not in pdf.columns and pdf.index.name == item:
        pdf = pdf.reset_index()
    pdf = pdf.rename(columns={c: str(c) for c in pdf.columns})
    missing = [c for c in (item, *labels) if c not in pdf.columns]
    if missing:
        msg = (
            f"Predictions of {model!r} have no column {examples(missing)}; give an {item!r} "
            f"column (or index) and one column per label {examples(labels)}."
        )
        raise DataError(msg)
    names = {item: "item", **{c: f"q{j}_{k}" for k, c in enumerate(labels)}}
    return pdf[[item, *labels]].rename(columns=names)


def _score_joined(
    joined: pd.DataFrame, scale: Scale, models: Sequence[str], metrics: Sequence[str], prior: Any
) -> pd.DataFrame:
    """Scores of every (metric, model) on the items of one partition, as evaluate() computes them."""
    K = scale.K
    labels = [str(lab) for lab in scale.labels]
    items = pd.Index(joined["item"])
    repeated = items[items.duplicated()].unique()
    if repeated.size:
        # every row of an item joins the one counts row of that item: a repeat is a prediction's
        msg = (
            f"Items {examples(repeated.tolist())} are predicted more than once by "
            f"{examples(list(models))}; give one prediction row per item."
        )
        raise DataError(msg)
    counts = LabelCounts.from_array(
        joined[_count_columns(K)].to_numpy(dtype=np.int64), scale=scale, items=items
    )
    met = [get_metric(m) for m in metrics]
    p = counts.proportions()
    alpha = None
    if any(m.needs_posterior for m in met):
        from dissensus.posterior import dirichlet  # noqa: PLC0415

        alpha = np.asarray(dirichlet(counts, prior=prior), dtype=np.float64)
    out: dict[str, Any] = {c: joined[c].to_numpy() for c in ("item", *_count_columns(K))}
    scores: dict[str, Any] = {}
    for j, model in enumerate(models):
        cols = [f"q{j}_{k}" for k in range(K)]
        # the same checks as Predictions.from_array, naming the item of a bad row
        name = f"predictions of {model!r} (rows of a Dask partition, columns {labels})"
        q = as_prob_matrix(joined[cols].to_numpy(), name, items=items)
        out.update({c: q[:, k] for k, c in enumerate(cols)})
        for i, m in enumerate(met):
            target = counts.values if m.needs_counts else alpha if m.needs_posterior else p  # noqa: PD011
            scores[f"s{i}_{j}"] = np.asarray(m.func(target, q), dtype=np.float64)
    return pd.DataFrame(out | scores, index=joined.index)


def _scored(
    counts: DistributedCounts, frames: Any, models: list[str], metrics: list[str], prior: Any
) -> Any:
    """Lazy per-item scores: counts joined to each model's predictions by item id, scored."""
    K, J, M = counts.K, len(models), len(metrics)
    joined = counts.frame.reset_index()
    for q in frames if isinstance(frames, list) else [frames]:
        # a hash join on the item id: both sides are shuffled by item, never sorted
        joined = joined.merge(q, on="item", how="inner")
    meta = pd.DataFrame(
        {
            "item": pd.Series(dtype=joined._meta["item"].dtype),
            **{c: pd.Series(dtype=np.int64) for c in _count_columns(K)},
            **{f"q{j}_{k}": pd.Series(dtype=np.float64) for j in range(J) for k in range(K)},
            **{f"s{i}_{j}": pd.Series(dtype=np.float64) for j in range(J) for i in range(M)},
        }
    )
    return joined.map_partitions(_score_joined, counts.scale, models, metrics, prior, meta=meta)


def score_items(
    counts: DistributedCounts,
    predictions: Mapping[str, Any],
    metrics: Sequence[str],
    *,
    prior: Any = DEFAULT_PRIOR,
    item: str = "item",
    how: str = "exact",
) -> ItemScores:
    r"""Score every model on every item where the items live, then collect the scores.

    The predictions of each model are joined to the counts by item id (a
    Dask hash join) and every (metric, model) is scored with
    ``map_partitions`` by the registry functions that
    :func:`dissensus.evaluate` uses, so each score is the in-memory one.
    The scores, counts and predictions are then collected, sorted by item
    id: :func:`dissensus.evaluate` builds its :class:`~dissensus.Evaluation`
    from them (bootstrap, bins and rankings need every item's score).

    Parameters
    ----------
    counts : DistributedCounts
        From :func:`label_counts`.
    predictions : mapping of str to DataFrame or Predictions
        Model name -> wide predictions (pandas or Dask): an ``item`` column
        (or index) and one column per label, named ``str(label)``; or a
        :class:`~dissensus.Predictions` with item ids and labels.
    metrics : sequence of str
        Registered metric names.
    prior : {"uniform", "jeffreys", "empirical", "hierarchical"}, float or array_like, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        Dirichlet prior of the expected metrics; a fitted prior is fitted
        once to all the counts, from their distinct count vectors (one more
        pass over the data).
    item : str, default "item"
        Item id column of the predictions.
    how : {"exact", "inner"}, default "exact"
        ``"exact"``: every model predicts exactly the annotated items, once
        (else :class:`DataError`). ``"inner"``: keep the items every model
        predicts, with a :class:`~dissensus.DataDroppedWarning`.

    Returns
    -------
    ItemScores
        In this process: ``N (M J + J K + K)`` numbers, 8 bytes each (10
        million items, 10 metrics, 2 models, K = 5: about 2.8 GB).

    Raises
    ------
    DataError
        Missing label columns, invalid probabilities (naming the item),
        repeated or missing items.

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"item": [2, 2, 1, 1], "label": ["a", "b", "a", "a"]})
    >>> pred = pd.DataFrame({"item": [1, 2], "a": [0.5, 0.5], "b": [0.5, 0.5]})
    >>> got = score_items(label_counts(long), {"m": pred}, ["manhattan"])
    >>> got.counts.items.tolist(), got.scores.tolist()
    ([1, 2], [[[1.0, 0.0]]])
    """
    check_option("score_items", "how", how, ("exact", "inner"))
    names = [get_metric(m).name for m in metrics]
    models = [str(m) for m in predictions]
    labels = [str(lab) for lab in counts.scale.labels]
    K, M, J = counts.K, len(names), len(models)
    prior = _prior_for(counts, prior, names)
    frames = [
        _prediction_frame(str(model), pred, j, item, labels)
        for j, (model, pred) in enumerate(predictions.items())
    ]
    lazy: list[Any] = [counts.frame.shape[0], *(q.shape[0] for q in frames)]
    scored = _scored(counts, frames, models, names, prior)
    # one pass over the data: the scores and the sizes checked below
    local, n_counts, *n_pred = _compute(scored, *lazy)
    # a repeated item fails where it is scored (_score_joined)
    local = local.sort_values("item", kind="stable").reset_index(drop=True)
    N = len(local)
    short = {m: n for m, n in zip(models, n_pred, strict=True) if n != N}
    if n_counts != N or short:
        if how == "exact" or N == 0:
            model = next(iter(short), models[0])
            msg = (
                f"The models predict {N} of the {n_counts} annotated items in common "
                f"({model!r} has {dict(zip(models, n_pred, strict=True))[model]} rows); "
                "every model must predict exactly the annotated items once (how='inner' "
                "keeps the common items)."
            )
            raise DataError(msg)
        if n_counts != N:
            warnings.warn(
                f"Kept the {N} items every model predicts; dropped {n_counts - N} annotated items.",
                DataDroppedWarning,
                stacklevel=2,
            )
    items = pd.Index(local["item"], name=None)
    C = local[_count_columns(K)].to_numpy(dtype=np.int64)
    S = local[[f"s{i}_{j}" for i in range(M) for j in range(J)]].to_numpy(dtype=np.float64)
    Q = local[[f"q{j}_{k}" for j in range(J) for k in range(K)]].to_numpy(dtype=np.float64)
    return ItemScores(
        counts=LabelCounts.from_array(C, scale=counts.scale, items=items),
        scores=np.ascontiguousarray(S.T.reshape(M, J, N)),
        predictions=np.ascontiguousarray(Q.reshape(N, J, K).transpose(1, 0, 2)),
    )
