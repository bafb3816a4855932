"""One entry point for the aggregators' item posteriors as soft targets."""

from __future__ import annotations

from typing import Literal

import numpy as np

from dissensus._exceptions import DataError
from dissensus._validation import SeedLike, check_option, examples
from dissensus.aggregation._dawid_skene import DawidSkeneResult, dawid_skene, ordinal_dawid_skene
from dissensus.aggregation._mace import MACEResult, mace
from dissensus.data import Annotations, LabelCounts, Predictions

TargetMethod = Literal["empirical", "dawid_skene", "ordinal_dawid_skene", "mace"]
TARGET_METHODS: tuple[str, ...] = ("empirical", "dawid_skene", "ordinal_dawid_skene", "mace")


def soft_targets(
    annotations: Annotations | LabelCounts,
    method: TargetMethod = "dawid_skene",
    *,
    seed: SeedLike = 0,
) -> Predictions:
    """Each item's label distribution as a target: raw shares or an annotator model's posterior.

    Parameters
    ----------
    annotations : Annotations or LabelCounts
        With annotator ids (a DataError without) for every method but
        ``"empirical"``, which also takes LabelCounts (a DataError for items
        without annotations).
    method : {"empirical", "dawid_skene", "ordinal_dawid_skene", "mace"}, default "dawid_skene"
        The label shares :math:`n_{ik} / n_i`, or the posterior over each
        item's true label under :func:`dawid_skene`, :func:`ordinal_dawid_skene`
        (ordered scales) or :func:`mace` (restarts from ``seed``), with their defaults.

    Returns
    -------
    Predictions
        Rows on the simplex in the item order of ``annotations.counts()``
        (``targets.align(counts)`` lines them up with other LabelCounts).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "annotator": ["a", "b", "c"] * 2,
    ...                    "label": ["x", "x", "y", "y", "y", "y"]})
    >>> ann = Annotations.from_frame(df)
    >>> soft_targets(ann, "empirical").values.round(3).tolist()
    [[0.667, 0.333], [0.0, 1.0]]
    >>> soft_targets(ann, "dawid_skene").values.round(3).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    check_option("soft_targets", "method", method, TARGET_METHODS)
    if method == "empirical":
        counts: object = (
            annotations.counts() if isinstance(annotations, Annotations) else annotations
        )
        if not isinstance(counts, LabelCounts):
            msg = f"soft_targets expects Annotations or LabelCounts; got {type(counts).__name__}."
            raise TypeError(msg)
        empty = np.flatnonzero(counts.n == 0)
        if empty.size:
            msg = (
                f"{empty.size} items have no annotations, so their label shares are undefined: "
                f"{examples(counts.items[empty].tolist())}. Drop them first."
            )
            raise DataError(msg)
        return Predictions(counts.proportions(), counts.items, counts.scale)
    fit = fit_annotator_model(annotations, method, seed=seed, func="soft_targets")
    return Predictions(fit.posterior.to_numpy(), annotations.items, annotations.scale)


def fit_annotator_model(
    annotations: Annotations | LabelCounts,
    method: str,
    *,
    seed: SeedLike = 0,
    func: str = "fit_annotator_model",
) -> DawidSkeneResult | MACEResult:
    """The fitted annotator model behind :func:`soft_targets` (``posterior``, ``reliability()``).

    ``method`` is one of ``"dawid_skene"``, ``"ordinal_dawid_skene"``, ``"mace"``,
    each fitted with its defaults; Annotations with annotator ids are required.
    """
    check_option(func, "method", method, TARGET_METHODS[1:])
    if not isinstance(annotations, Annotations) or not annotations.has_annotators:
        msg = (
            f"{func}(method={method!r}) models each annotator, so it needs Annotations with "
            "annotator ids (label counts cannot tell annotators apart); load them with "
            "annotator='<column>'."
        )
        raise DataError(msg)
    if method == "mace":
        return mace(annotations, seed=seed)
    return (ordinal_dawid_skene if method == "ordinal_dawid_skene" else dawid_skene)(annotations)
