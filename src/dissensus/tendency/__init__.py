r"""Annotator tendencies: whether a model reproduces who agrees with whom.

Individual tendency learning (ITL) models predict each annotator's own
label. Two measures of "A Unified Evaluation Framework for Multi-Annotator
Tendency Learning" (arXiv:2508.10393, 2025) judge them beyond
per-annotator accuracy:

- :func:`dic`, the difference of inter-annotator consistency
  :math:`\lVert M - M' \rVert_F / \lVert M \rVert_F` between the true and
  the predicted pairwise agreement matrices (lower is better), with a
  bootstrap interval, the number of pairs used, :func:`tau_curve` and
  :func:`perturbation_curve` (the checks the paper proposes next);
- :func:`bae`, behaviour alignment of a model's per-annotator
  representations with the annotators' agreement (higher is better).

Reference points come from :func:`random_baseline`,
:func:`consensus_baseline` and :func:`itl_bias_baseline` (a shared TF-IDF
text classifier with a per-annotator calibration layer; needs
``pip install 'dissensus[models]'``). This subpackage is not imported by
``import dissensus``.
"""

from dissensus.tendency._align import (
    AlignedPredictions,
    align_predictions,
    read_annotator_predictions,
)
from dissensus.tendency._bae import BAEResult, aligned_embeddings, bae, mds_embedding
from dissensus.tendency._baselines import (
    consensus_baseline,
    itl_bias_baseline,
    random_baseline,
    split_items,
    subset_items,
)
from dissensus.tendency._consistency import (
    DICResult,
    consistency_matrix,
    dic,
    perturbation_curve,
    tau_curve,
)
from dissensus.tendency._report import (
    REPORT_FILES,
    TendencyStudy,
    dic_table,
    report_files,
    write_report,
)

__all__ = [
    "REPORT_FILES", "AlignedPredictions", "BAEResult", "DICResult", "TendencyStudy",
    "align_predictions", "aligned_embeddings", "bae", "consensus_baseline", "consistency_matrix",
    "dic", "dic_table", "itl_bias_baseline", "mds_embedding", "perturbation_curve",
    "random_baseline", "read_annotator_predictions", "report_files", "split_items",
    "subset_items", "tau_curve", "write_report",
]  # fmt: skip
