"""Exceptions and warnings raised by dissensus.

Every error about bad input is a :class:`DataError` (a ``ValueError``), raised
where the input enters the library, naming what is wrong, where (file, line,
item, column) and how to fix it. Answers that are defined but suspicious come
with a named warning so that users can filter them. The command-line tool
turns :class:`DataError`, :class:`MissingExtraError` and :class:`OutputError`
into a one-line message and exit code 2.
"""

from __future__ import annotations


class DataError(ValueError):
    """Input data that dissensus cannot use as given (the message says what, where, and the fix)."""


class MissingExtraError(ImportError):
    """A feature needs an optional extra that is not installed (raised before any work).

    The message names the missing packages and the command that installs them.
    """


class OutputError(OSError):
    """An output could not be written safely (nothing was overwritten); the message names the path.

    Unusable or locked output directory, an output that would overwrite an
    input, or a failed write (disk full, ...).
    """


class DissensusWarning(UserWarning):
    """Base class of the warnings dissensus emits."""


class DegenerateAgreementWarning(DissensusWarning):
    """Agreement is degenerate (NaN from one category, or items with < 2 ratings dropped)."""


class DataDroppedWarning(DissensusWarning):
    """Rows, items or labels were dropped because an option asked for it (how many, examples)."""


class ColumnsDetectedWarning(DissensusWarning):
    """A reader chose a column by its name (``item_id`` for the items); the message says which.

    Name the columns (``item=``, ``annotator=``, ``label=``) to choose others and silence it.
    """


class FewItemsWarning(DissensusWarning):
    """A bootstrap interval rests on too few items to be trusted (narrow by accident)."""


class LabelSpellingWarning(DissensusWarning):
    """Labels differ only by whitespace or letter case (kept apart unless ``strip_labels=True``)."""


class PriorDominanceWarning(DissensusWarning):
    """The Dirichlet prior weighs as much as the annotations on most items.

    Expected metrics then reward predictions that lean towards the prior's mean.
    Issued by :func:`dissensus.posterior.prior_strength_check`, with the share of
    items concerned and the remedies (a weaker or fitted prior, more annotations).
    """
