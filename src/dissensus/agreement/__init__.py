"""Inter-annotator agreement: kappas, alpha, AC1/AC2, ICC, pairwise matrices, reports.

Every coefficient returns an :class:`AgreementResult` (``float(result)`` is
the value) with its parts, an analytic standard error where a standard one
exists, and a seeded bootstrap interval over items with ``ci=0.95``.
"""

from dissensus.agreement._alpha import krippendorff_alpha
from dissensus.agreement._cohen import cohen_kappa, conger_kappa, light_kappa, scott_pi
from dissensus.agreement._common import contingency_to_counts
from dissensus.agreement._icc import icc
from dissensus.agreement._multirater import (
    brennan_prediger,
    chance_agreement,
    fleiss_category_kappa,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    observed_agreement,
    percent_agreement,
)
from dissensus.agreement._pairwise import PairwiseAgreement, pairwise
from dissensus.agreement._report import majority_labels, report
from dissensus.agreement._result import AgreementResult

__all__ = [
    "AgreementResult",
    "PairwiseAgreement",
    "brennan_prediger",
    "chance_agreement",
    "cohen_kappa",
    "conger_kappa",
    "contingency_to_counts",
    "fleiss_category_kappa",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "icc",
    "krippendorff_alpha",
    "light_kappa",
    "majority_labels",
    "observed_agreement",
    "pairwise",
    "percent_agreement",
    "report",
    "scott_pi",
]
