"""Where to annotate next: items whose next label would most sharpen a model comparison.

:func:`next_items` ranks items by the expected reduction, from one more
annotation, in the posterior variance of the difference between models'
scores (preposterior analysis on the Dirichlet posterior of each item).
"""

from dissensus.allocate._gain import default_objective, expected_gain, next_items

__all__ = ["default_objective", "expected_gain", "next_items"]
