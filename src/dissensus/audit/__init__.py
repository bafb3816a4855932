"""Machine audit of soft-metric properties: which of them does a metric have, and why not.

:func:`audit` checks the properties P1-P8 of Rizzi et al. (2024) and the
ordinal property of Magnani (2025) on any metric, for any number of
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
