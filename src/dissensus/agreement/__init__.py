"""Inter-annotator agreement: kappas, alpha, AC1/AC2, ICC, pairwise matrices, reports.

Every coefficient returns an :class:`AgreementResult` (``float(result)`` is
the statistic) with its parts and an analytic standard error where a
standard one exists; its interval is asked of the result, as of a
``scipy.stats`` result: ``result.confidence_interval(0.95, seed=0)`` (a
seeded bootstrap over items). :mod:`dissensus.agreement.kernels` holds the
building blocks for engines that compute the sums elsewhere.

Examples
--------
The MLRD class judgements of four reviews, one group per year: Fleiss' kappa per year and over all years.

>>> from dissensus import load_example
>>> reviews = load_example("course_reviews")
>>> t = report(reviews, by="year")
>>> t[t.coefficient == "fleiss_kappa"].set_index("year")["value"].round(3)
year
2017-18    0.652
2018-19    0.652
2019-20    0.632
2020-21    0.642
2021-22    0.628
2022-23    0.681
2023-24    0.758
all        0.671
Name: value, dtype: float64

2021-22 looks like every other year. Kappa cannot tell *which* label the
raters agreed on (swapping an item's labels leaves it unchanged), so the
year whose reviews R2-R4 got the opposite majority of all other years only
shows in the majority labels:

>>> m = majority_labels(reviews).pivot(index="year", columns="review", values="label")
>>> m.loc[["2020-21", "2021-22", "2022-23"]]
review   R1   R2   R3   R4
year
2020-21  POS  NEG  NEG  POS
2021-22  POS  POS  POS  NEG
2022-23  POS  NEG  NEG  POS
"""

from dissensus.agreement._alpha import krippendorff_alpha
from dissensus.agreement._benchmark import (
    BENCHMARK_SCALES,
    BenchmarkResult,
    benchmark_agreement,
    interpret_agreement,
)
from dissensus.agreement._cohen import cohen_kappa, conger_kappa, light_kappa, scott_pi
from dissensus.agreement._common import agreement_weights, contingency_to_counts
from dissensus.agreement._icc import icc
from dissensus.agreement._multirater import (
    brennan_prediger,
    chance_agreement,
    fleiss_category_kappa,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    observed_agreement,
    share_unanimous,
)
from dissensus.agreement._pairwise import PairwiseAgreement, pairwise
from dissensus.agreement._report import (
    LabelPatterns,
    agreement_table,
    label_patterns,
    majority_labels,
    report,
    table_coefficients,
)
from dissensus.agreement._result import AgreementResult, Resampler

__all__ = [
    "BENCHMARK_SCALES", "AgreementResult", "BenchmarkResult", "LabelPatterns", "PairwiseAgreement",
    "Resampler", "agreement_table", "agreement_weights", "benchmark_agreement", "brennan_prediger",
    "chance_agreement", "cohen_kappa", "conger_kappa", "contingency_to_counts",
    "fleiss_category_kappa", "fleiss_kappa", "gwet_ac1", "gwet_ac2", "icc", "interpret_agreement",
    "krippendorff_alpha", "label_patterns", "light_kappa", "majority_labels", "observed_agreement",
    "pairwise", "report", "scott_pi", "share_unanimous", "table_coefficients"
]  # fmt: skip
