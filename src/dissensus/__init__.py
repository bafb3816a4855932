"""dissensus: human label variation, measured and evaluated.

How much annotators agree, what each item's label distribution probably is
given how few people labelled it, and which model is better once that
uncertainty and the order of the labels are taken into account.

Subpackages: :mod:`dissensus.agreement` (kappa family, alpha, AC1/AC2, ICC,
pairwise matrices), :mod:`dissensus.posterior` (Dirichlet posteriors and soft
labels), :mod:`dissensus.metrics` (pointwise and exact expected soft metrics,
the metric registry, LeWiDi scorers), :mod:`dissensus.stats` (bootstrap,
paired tests, rankings), :mod:`dissensus.report` (HTML / Markdown rendering).

The public names below are imported on first use (PEP 562), so that
``import dissensus.cli`` (``dissensus --help``) does not pay for NumPy, pandas
and SciPy; ``import dissensus as ds; ds.Annotations`` works as if they were
imported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The exceptions and warnings import nothing, and warning filters name them.
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

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time, __getattr__ imports these
    from dissensus import agreement, metrics, posterior, stats
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

    __version__: str

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

_DATA = frozenset(
    {
        "Annotations",
        "LabelCounts",
        "Predictions",
        "Scale",
        "SetAnnotations",
        "read_annotations",
        "read_convabuse",
        "read_lewidi",
        "read_predictions",
        "read_set_annotations",
    }
)


def __getattr__(name: str) -> Any:
    """Import a public name of :data:`__all__` on first use (PEP 562) and keep it."""
    # Explicit imports, one per source, so that import-linter sees every dependency.
    value: Any
    if name in _DATA:
        from dissensus import data  # noqa: PLC0415

        value = getattr(data, name)
    elif name in ("Evaluation", "evaluate"):
        from dissensus import evaluation  # noqa: PLC0415

        value = getattr(evaluation, name)
    elif name == "load_example":
        from dissensus.datasets import load_example as value  # noqa: PLC0415
    elif name == "agreement":
        import dissensus.agreement as value  # noqa: PLC0415
    elif name == "metrics":
        import dissensus.metrics as value  # noqa: PLC0415
    elif name == "posterior":
        import dissensus.posterior as value  # noqa: PLC0415
    elif name == "stats":
        import dissensus.stats as value  # noqa: PLC0415
    elif name == "__version__":
        value = _version()
    else:
        msg = f"module 'dissensus' has no attribute {name!r}"
        raise AttributeError(msg)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _version() -> str:
    # importlib.metadata costs ~30 ms: paid by --version and by users who ask, not by --help
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("dissensus")
    except PackageNotFoundError:  # running from a source tree without installing
        return "0.0.0+unknown"
