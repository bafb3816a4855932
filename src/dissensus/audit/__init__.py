"""Machine audit of soft-metric properties: which of them does a metric have, and why not.

:func:`audit` checks the properties of seed 001 (P1 symmetry ... P8
positional error sensitivity) and the ordinal property of seed 000 on any
metric (registry name, expected metric or callable) for any number of
classes, and returns the simplest counterexample it finds for each
violation. Definitions: :data:`PROPERTIES` and ``docs/audit.md``.
"""

from dissensus.audit._properties import PROPERTIES, Property
from dissensus.audit._result import AuditResult, Counterexample, PropertyResult
from dissensus.audit._search import audit, check_case, property_keys
from dissensus.audit._subject import auditable_metrics

__all__ = [
    "PROPERTIES",
    "AuditResult",
    "Counterexample",
    "Property",
    "PropertyResult",
    "audit",
    "auditable_metrics",
    "check_case",
    "property_keys",
]
