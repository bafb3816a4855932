"""Machine audit of soft-metric properties: which of them does a metric have, and why not.

:func:`audit` checks the properties of Rizzi et al. (2024), *Soft metrics
for evaluation with disagreements: an assessment* (P1 symmetry ... P8
positional error sensitivity), and the ordinal property of Magnani (2025),
*Soft metrics for ordinal label uncertainty with variable sample sizes*, on
any metric (registry name, expected metric or callable) for any number of
classes, and returns the simplest counterexample it finds for each
violation. Definitions and references: :mod:`dissensus.audit._properties`
and ``docs/audit.md``.
"""

from dissensus.audit._properties import PROPERTIES, Property, auditable_metrics
from dissensus.audit._search import (
    AuditResult,
    Counterexample,
    PropertyResult,
    audit,
    check_case,
    property_keys,
)

__all__ = ["PROPERTIES", "AuditResult", "Counterexample", "Property", "PropertyResult", "audit",
           "auditable_metrics", "check_case", "property_keys"]  # fmt: skip
