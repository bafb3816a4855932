"""dissensus: human label variation, measured and evaluated.

How much annotators agree, what each item's label distribution probably is
given how few people labelled it, and which model is better once that
uncertainty and the order of the labels are taken into account.

Subpackages: :mod:`dissensus.agreement` (kappa family, alpha, AC1/AC2, ICC,
pairwise matrices), :mod:`dissensus.posterior` (Dirichlet posteriors and soft
labels), :mod:`dissensus.metrics` (pointwise and exact expected soft metrics,
the metric registry, LeWiDi scorers), :mod:`dissensus.stats` (bootstrap,
paired tests, rankings), :mod:`dissensus.report` (HTML / Markdown rendering).
"""

from importlib.metadata import PackageNotFoundError, version

from dissensus import agreement, metrics, posterior, stats
from dissensus._exceptions import (
    DataDroppedWarning,
    DataError,
    DegenerateAgreementWarning,
    DissensusWarning,
    FewItemsWarning,
    LabelSpellingWarning,
    MissingExtraError,
    OutputError,
    PriorDominanceWarning,
)
from dissensus.data import (
    Annotations,
    LabelCounts,
    Predictions,
    Scale,
    SetAnnotations,
    read_annotations,
    read_convabuse,
    read_lewidi,
    read_predictions,
    read_set_annotations,
)
from dissensus.datasets import load_example
from dissensus.evaluation import Evaluation, evaluate

try:
    __version__ = version("dissensus")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+unknown"

__all__ = [
    "Annotations",
    "DataDroppedWarning",
    "DataError",
    "DegenerateAgreementWarning",
    "DissensusWarning",
    "Evaluation",
    "FewItemsWarning",
    "LabelCounts",
    "LabelSpellingWarning",
    "MissingExtraError",
    "OutputError",
    "Predictions",
    "PriorDominanceWarning",
    "Scale",
    "SetAnnotations",
    "__version__",
    "agreement",
    "evaluate",
    "load_example",
    "metrics",
    "posterior",
    "read_annotations",
    "read_convabuse",
    "read_lewidi",
    "read_predictions",
    "read_set_annotations",
    "stats",
]
