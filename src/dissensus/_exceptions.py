"""Exceptions and warnings raised by dissensus.

Every error about bad input is a :class:`DataError` (a ``ValueError``), raised
where the input enters the library, naming what is wrong, where (file, line,
item, column) and how to fix it. Answers that are defined but suspicious come
with a named warning so that users can filter them. The command-line tool
turns :class:`DataError`, :class:`MissingExtraError` and :class:`OutputError`
into a one-line message and exit code 2.
"""

from __future__ import annotations

__all__ = [
    "DataDroppedWarning",
    "DataError",
    "DegenerateAgreementWarning",
    "DissensusWarning",
    "FewItemsWarning",
    "LabelSpellingWarning",
    "MissingExtraError",
    "OutputError",
    "PriorDominanceWarning",
]


class DataError(ValueError):
    """Input data that dissensus cannot use as given (the message says what, where, and the fix)."""


class MissingExtraError(ImportError):
    """A feature needs an optional extra that is not installed.

    The message names the missing packages and the command that installs
    them (``pip install 'dissensus[report]'``); raised before anything is
    computed or written.
    """


class OutputError(OSError):
    """An output could not be written safely; nothing was overwritten.

    Raised before any computation when the output directory is unusable or
    locked by another run, when an output would overwrite an input, and when
    a write fails (disk full, ...). The message names the path.
    """


class DissensusWarning(UserWarning):
    """Base class of the warnings dissensus emits."""


class DegenerateAgreementWarning(DissensusWarning):
    """An agreement coefficient is defined but degenerate.

    For example NaN because every rating fell in one category, or items were
    excluded for having fewer than two ratings.
    """


class DataDroppedWarning(DissensusWarning):
    """Rows, items or labels were dropped because an option asked for it (how many, examples)."""


class FewItemsWarning(DissensusWarning):
    """A bootstrap interval rests on too few items to be trusted.

    A percentile interval from a handful of items is narrow by accident (a
    single item gives a zero-width interval); the message says how many.
    """


class LabelSpellingWarning(DissensusWarning):
    """Labels differ only by surrounding whitespace or letter case.

    ``' pos'``, ``'pos '`` and ``'pos'`` are three categories unless the
    reader is asked to strip them (``strip_labels=True``).
    """


class PriorDominanceWarning(DissensusWarning):
    """The Dirichlet prior weighs as much as the annotations on most items.

    Expected metrics then reward predictions that lean towards the prior's
    mean (flat ones under a uniform prior). Issued by
    :func:`dissensus.posterior.prior_strength_check`; the message gives the
    share of items concerned and what to do (a weaker prior such as
    ``prior="jeffreys"`` or ``0.1``, a prior fitted to the data,
    ``prior="hierarchical"``, or more annotations per item).
    """
