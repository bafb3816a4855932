r"""Evaluate models against disagreeing annotators: scores, paired intervals, rankings.

:func:`evaluate` scores every model on every item under every metric, once,
and returns an :class:`Evaluation` that answers the questions of the seed
paper (Magnani 2025) and of the LeWiDi re-ranking study (Rizzi et al. 2024):
which model is better under each metric, with what uncertainty; whether
empirical and expected (uncertainty-aware) metrics order the models
differently; on which items (few or many annotations) the difference lives.

Notation. ``N`` items, ``K`` labels, ``J`` models, ``M`` metrics. Scores are
held as one dense array ``S`` of shape ``(M, J, N)``: ``S[m, j, i]`` is
metric ``m`` of model ``j`` on item ``i``. ``n_i`` is the number of
annotations of item ``i``; ``p`` the empirical label distribution
(``counts / n``); ``alpha`` the Dirichlet posterior (``prior + counts``).
Pointwise metrics compare ``p`` with the prediction ``q``; expected metrics
(``E[...]``) take the posterior expectation of the pointwise metric under
:math:`p \sim \mathrm{Dir}(\alpha)`.

Every interval is a percentile interval of a *paired* item bootstrap: one
set of resampled items per resample, shared by all models and metrics
(:func:`dissensus.stats.resample_means`), so differences between models, and
between metrics, are resampled consistently. The resamples depend only on
``seed``, ``N`` and ``n_resamples``: the same inputs and seed give
byte-identical tables.

Inside a training loop, :func:`score_counts` gives the same per-item scores
from label counts, and :func:`hf_compute_metrics` the Hugging Face Trainer's
``compute_metrics`` (logits and counts in, metric means out).
"""

from dissensus.data import PredictionLike
from dissensus.evaluation._data import ReportData
from dissensus.evaluation._engine import DEFAULT_METRICS, TARGETS, evaluate
from dissensus.evaluation._output import REPORT_AUDIT_TRIALS, Evaluation
from dissensus.evaluation._training import hf_compute_metrics, score_counts
from dissensus.stats import annotation_bins

__all__ = [
    "DEFAULT_METRICS", "REPORT_AUDIT_TRIALS", "TARGETS", "Evaluation", "PredictionLike",
    "ReportData", "annotation_bins", "evaluate", "hf_compute_metrics", "score_counts",
]  # fmt: skip
