"""Statistics helpers: bootstrap resampling, paired tests, rankings and rank agreement.

Pure NumPy on arrays; no knowledge of annotations or metrics. The agreement
module and the evaluation engine build their intervals and tests from here.
"""

from dissensus.stats._bins import BinsLike, annotation_bins
from dissensus.stats._bootstrap import (
    ConfidenceInterval,
    bca_interval,
    bootstrap_weights,
    item_keys,
    iter_bootstrap_weights,
    iter_pattern_weights,
    percentile_interval,
    poisson_weights,
    warn_few_items,
)
from dissensus.stats._paired import (
    MeanInterval,
    PairedTestResult,
    adjust_pvalues,
    bootstrap_test,
    mean_interval,
    permutation_test,
    resample_means,
    wilcoxon_test,
)
from dissensus.stats._ranking import (
    RankAgreement,
    competition_ranks,
    kendall_tau_b,
    kendall_tau_b_rows,
    order_reversals,
    rank_agreement,
)

__all__ = [
    "BinsLike", "ConfidenceInterval", "MeanInterval", "PairedTestResult", "RankAgreement",
    "adjust_pvalues", "annotation_bins", "bca_interval", "bootstrap_test", "bootstrap_weights",
    "competition_ranks", "item_keys", "iter_bootstrap_weights", "iter_pattern_weights",
    "kendall_tau_b", "kendall_tau_b_rows", "mean_interval", "order_reversals",
    "percentile_interval", "permutation_test", "poisson_weights", "rank_agreement", "resample_means",
    "warn_few_items", "wilcoxon_test",
]  # fmt: skip
