"""Posterior Dirichlet parameters and soft labels of every item, where the items live."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from dissensus import posterior
from dissensus._validation import check_option
from dissensus.data import LabelCounts, Scale
from dissensus.distributed._common import compute
from dissensus.distributed._counts import DistributedCounts, as_counts, rows_of
from dissensus.posterior import (
    DEFAULT_PRIOR,
    PriorLike,
    fit_dirichlet_prior,
    fit_hierarchical_prior,
)

_FITTED_PRIORS = ("empirical", "hierarchical")
_ANNOTATOR_METHODS = ("dawid_skene", "ordinal_dawid_skene", "mace")


def prior_for(counts: DistributedCounts, prior: Any, func: str) -> Any:
    """The prior every partition uses: a fitted one fitted once here, on all the items.

    A fitted name (per partition the fit would differ) becomes the (K,) parameters fitted to
    the distinct count rows expanded by their multiplicities; other priors pass as they are.
    """
    if isinstance(prior, str):
        check_option(func, "prior", prior, ("uniform", "jeffreys", *_FITTED_PRIORS))
        if prior not in _FITTED_PRIORS:
            return prior
        (distinct,) = compute(counts.distinct())
        n = np.repeat(*rows_of(distinct, counts.K), axis=0)
        fit = fit_dirichlet_prior if prior == "empirical" else fit_hierarchical_prior
        return fit(n).alpha0
    if np.ndim(prior) > 1:
        msg = (
            f"The 'prior' parameter of {func} on the Dask engine must be a name, a number or "
            f"a ({counts.K},) array; a per-item (N, K) prior cannot follow the items into "
            f"their partitions. Got shape {np.shape(prior)}."
        )
        raise ValueError(msg)
    return prior


def _posterior_partition(
    wide: pd.DataFrame, scale: Scale, func: Callable[..., Any], options: dict[str, Any]
) -> pd.DataFrame:
    """The in-memory ``func`` (of :mod:`dissensus.posterior`) of one partition's items."""
    counts = LabelCounts.from_array(wide.to_numpy(dtype=np.int64), scale=scale, items=wide.index)
    out = np.asarray(func(counts, **options), dtype=np.float64)
    return pd.DataFrame(out, index=wide.index, columns=list(scale.labels))


def _per_partition(
    counts: DistributedCounts, func: Callable[..., Any], options: dict[str, Any]
) -> Any:
    """Lazy ``func`` of every partition; run here on zero items, it checks the options now."""
    meta = _posterior_partition(counts.frame._meta, counts.scale, func, options)
    return counts.frame.map_partitions(_posterior_partition, counts.scale, func, options, meta=meta)


def dirichlet(counts: DistributedCounts | Any, *, prior: PriorLike = DEFAULT_PRIOR) -> Any:
    r"""Posterior Dirichlet parameters of every item, computed where the items live.

    Each partition's items get :func:`dissensus.posterior.dirichlet` (the
    same formula, :math:`\alpha_i = \alpha^{(0)} + n_i`); nothing is
    collected.

    Parameters
    ----------
    prior : see :func:`dissensus.posterior.dirichlet`, default :data:`~dissensus.posterior.DEFAULT_PRIOR`
        A fitted prior is fitted once to all the items, from their distinct
        count rows (one group-by on the cluster); a per-item (N, K) prior is
        refused.

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
    dc = as_counts(counts)
    return _per_partition(dc, posterior.dirichlet, {"prior": prior_for(dc, prior, "dirichlet")})


def soft_labels(
    counts: DistributedCounts | Any,
    *,
    method: str = "empirical",
    prior: PriorLike = DEFAULT_PRIOR,
    sigma: float = 0.5,
) -> Any:
    """Soft labels of every item, computed where the items live.

    Each partition's items get :func:`dissensus.posterior.soft_labels`
    (per-item formulas: partitioning does not change them); the arguments
    are as there and in :func:`dirichlet`. The annotator models
    (``"dawid_skene"``, ``"ordinal_dawid_skene"``, ``"mace"``) need
    annotator ids, which counts do not keep: run them in memory.

    Returns
    -------
    dask.dataframe.DataFrame
        Lazy, float64, indexed by item id, one column per label; rows sum to 1.

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
    dc = as_counts(counts)
    options: dict[str, Any] = {"method": method, "sigma": sigma}
    if method == "posterior_mean":
        options["prior"] = prior_for(dc, prior, "soft_labels")
    return _per_partition(dc, posterior.soft_labels, options)
