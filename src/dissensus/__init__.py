"""dissensus: human label variation, measured and evaluated.

How much annotators agree, what each item's label distribution probably is
given how few people labelled it, and which model is better once that
uncertainty and the order of the labels are taken into account.
"""

from importlib.metadata import PackageNotFoundError, version

from dissensus._exceptions import (
    DataDroppedWarning,
    DataError,
    DegenerateAgreementWarning,
    DissensusWarning,
)
from dissensus.data import (
    Annotations,
    LabelCounts,
    Predictions,
    Scale,
    load_example,
)

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
    "LabelCounts",
    "Predictions",
    "Scale",
    "__version__",
    "load_example",
]
