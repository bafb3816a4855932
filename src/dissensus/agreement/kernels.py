"""Building blocks of the coefficients, for engines that compute the sums elsewhere.

:mod:`dissensus.distributed` and :mod:`dissensus.tendency` sum counts,
coincidences or pair tables their own way (per partition, over soft
tables) and finish with these: the same formulas as the in-memory
coefficients, so the numbers agree.
"""

from dissensus.agreement._alpha import (
    LEVELS,
    Level,
    alpha_from_coincidences,
    alpha_item_terms,
    alpha_linear_terms,
    alpha_row_stats,
    alpha_weights,
    level_metric,
    level_values,
)
from dissensus.agreement._common import Weights
from dissensus.agreement._icc import anova_icc, check_kind
from dissensus.agreement._multirater import (
    chance_agreement_of,
    count_core,
    item_terms,
    linearised_terms,
    unanimous_core,
)
from dissensus.agreement._pairwise import (
    MEASURES,
    PairwiseAgreement,
    table_values,
    tables_to_pairwise,
)
from dissensus.agreement._rows import (
    ALPHA_NAMES,
    KAPPAS,
    alpha_level,
    count_row_results,
    count_weights,
    row_terms,
    statistics_of_sums,
)

__all__ = [
    "ALPHA_NAMES",
    "KAPPAS",
    "LEVELS",
    "MEASURES",
    "Level",
    "PairwiseAgreement",
    "Weights",
    "alpha_from_coincidences",
    "alpha_item_terms",
    "alpha_level",
    "alpha_linear_terms",
    "alpha_row_stats",
    "alpha_weights",
    "anova_icc",
    "chance_agreement_of",
    "check_kind",
    "count_core",
    "count_row_results",
    "count_weights",
    "item_terms",
    "level_metric",
    "level_values",
    "linearised_terms",
    "row_terms",
    "statistics_of_sums",
    "table_values",
    "tables_to_pairwise",
    "unanimous_core"
]  # fmt: skip
