"""Annotator-aware aggregation: latent-class models of who labels how well.

Dawid–Skene fits one confusion matrix per annotator by EM; its ordinal
variant two numbers per annotator (a bias and a noise scale on the ordered
scale); MACE a competence (probability of not spamming) and a spamming
distribution. Each returns, for every item, a posterior distribution over its
true label: soft labels that weigh reliable annotators more
(:func:`soft_targets`, ``posterior.soft_labels(ann, method=...)``), and a
reliability table per annotator.

Conventions of every fit: it takes :class:`~dissensus.Annotations` with
annotator ids (a :class:`~dissensus.DataError` without them, a ValueError
for bad options), runs EM until no posterior moves by ``tol`` (default
1e-6; a :class:`ConvergenceWarning` when ``n_iter``, default 1000,
iterations are not enough) and is deterministic given ``seed`` (an int,
Generator or None; default 0).
"""

from dissensus.aggregation._dawid_skene import (
    DawidSkeneResult,
    OrdinalDawidSkeneResult,
    dawid_skene,
    ordinal_dawid_skene,
)
from dissensus.aggregation._em import ConvergenceWarning
from dissensus.aggregation._mace import MACEResult, mace
from dissensus.aggregation._soft_targets import TARGET_METHODS, fit_annotator_model, soft_targets

__all__ = ["TARGET_METHODS", "ConvergenceWarning", "DawidSkeneResult", "MACEResult",
           "OrdinalDawidSkeneResult", "dawid_skene", "fit_annotator_model", "mace",
           "ordinal_dawid_skene", "soft_targets"]  # fmt: skip
