"""The study end to end: split, featurise, train soft-label baselines, evaluate, report.

:func:`run_experiment` runs the experiment of Magnani, A. (2025), Soft metrics
for ordinal label uncertainty with variable sample sizes (ASSE 2025, ACM) on a
:class:`~dissensus.datasets.Dataset`; the ``dissensus experiment`` and
``dissensus demo`` commands call it. Needs the ``models`` extra.
"""

from dissensus.experiments._study import (
    DEFAULT_MODELS,
    MODELS,
    ExperimentResult,
    make_model,
    run_experiment,
)

__all__ = ["DEFAULT_MODELS", "MODELS", "ExperimentResult", "make_model", "run_experiment"]
