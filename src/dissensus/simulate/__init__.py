"""Synthetic ground truth: measure whether a metric picks the truly better model.

On real data the true label distribution of an item is unknown, so whether
empirical or expected (posterior) metrics rank models "more faithfully"
cannot be checked. Here it is known: :func:`make_synthetic` draws items with
known true distributions and observed counts, :func:`candidate_predictions`
builds models at controlled distances from the truth, :func:`study` measures
how often each metric form (empirical, expected under each prior) ranks the
models as the truth does, per annotation-count bin, :func:`coverage` checks
the posterior credible intervals, and :func:`allocation_study` checks
whether :func:`dissensus.allocate.next_items` spends an annotation budget
better than uniform or random allocation. :func:`plan` says how many items and
annotations per item a study needs, calibrated to a pilot
(``python -m dissensus.simulate.plan_validation`` checks that it delivers its
power: docs/plan_validation.md). :mod:`dissensus.simulate.true_difference`
measures the coverage of the intervals for the TRUE difference between two
models (``python -m dissensus.simulate.true_difference`` writes
docs/true_difference.md).
"""

from dissensus.simulate._plan import (
    AGREEMENT_LEVELS,
    ERROR_MEASURES,
    GOALS,
    CompareCalibration,
    Plan,
    compare_metric,
    plan,
)
from dissensus.simulate._report import (
    best_prior,
    debiased_table,
    main_table,
    write_simulation_report,
)
from dissensus.simulate._study import (
    DEFAULT_STUDY_METRICS,
    StudyResult,
    allocation_study,
    coverage,
    study,
)
from dissensus.simulate._synthetic import (
    CANDIDATES,
    DEFAULT_CANDIDATES,
    TRUTH_FAMILIES,
    SyntheticData,
    annotation_counts,
    candidate_predictions,
    draw_truth,
    make_synthetic,
)

__all__ = [
    "AGREEMENT_LEVELS",
    "CANDIDATES",
    "DEFAULT_CANDIDATES",
    "DEFAULT_STUDY_METRICS",
    "ERROR_MEASURES",
    "GOALS",
    "TRUTH_FAMILIES",
    "CompareCalibration",
    "Plan",
    "StudyResult",
    "SyntheticData",
    "allocation_study",
    "annotation_counts",
    "best_prior",
    "candidate_predictions",
    "compare_metric",
    "coverage",
    "debiased_table",
    "draw_truth",
    "main_table",
    "make_synthetic",
    "plan",
    "study",
    "write_simulation_report",
]  # fmt: skip
