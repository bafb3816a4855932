"""The result object every agreement coefficient returns, and its interval on request."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from dissensus._exceptions import FewItemsWarning
from dissensus._validation import SeedLike, check_option, check_probability_level
from dissensus.report import Table, format_number, html_fragment
from dissensus.stats import ConfidenceInterval

#: ``(confidence_level, n_resamples, method, bootstrap, seed) -> interval``: the interval of
#: one result, computed from what its bootstrap needs (e.g. the distinct count rows).
Resampler = Callable[[float, int, str, str, SeedLike], ConfidenceInterval]

#: Fewest items an interval is computed from: from one item it has nothing to vary over
#: (every resample is that item), so it is NaN, never a point, with a FewItemsWarning.
MIN_ITEMS = 2
#: Below this many items a coefficient is flagged with a FewItemsWarning: its value is
#: decided by a handful of items (one item changes a kappa from 9 items by up to about
#: 1/9 of its range), so it is reported but not to be read as the annotators' agreement.
#: (Its bootstrap interval is flagged below ``dissensus.stats.MIN_ITEMS_FOR_INTERVAL``, 30.)
MIN_ITEMS_FOR_COEFFICIENT = 10


def _num(x: float) -> str:
    return format_number(x, digits=4)


@dataclass(frozen=True)
class AgreementResult:
    """An agreement coefficient with its parts, standard error and bookkeeping.

    Attributes
    ----------
    name : str
        The coefficient, e.g. ``"fleiss_kappa"``.
    statistic : float
        The estimate (NaN when undefined; see ``note``); also ``float(result)``.
    standard_error : float
        Analytic standard error where a standard one exists, else NaN.
    n_items : int
        Items used.
    n_items_excluded : int
        Items left out (fewer than two ratings, or a missing side).
    n_annotations : int
        Ratings used.
    parts : Mapping[str, float]
        Components, e.g. ``observed_agreement`` and ``chance_agreement``.
    z, pvalue : float
        Test of the null of chance agreement where one is standard, else NaN.
    note : str
        Why the value is NaN or suspicious, empty otherwise.

    The interval is asked of the result, as of ``scipy.stats`` results:
    :meth:`confidence_interval`.
    """

    name: str
    statistic: float
    standard_error: float = math.nan
    n_items: int = 0
    n_items_excluded: int = 0
    n_annotations: int = 0
    parts: Mapping[str, float] = field(default_factory=dict)
    z: float = math.nan
    pvalue: float = math.nan
    note: str = ""
    _resampler: Resampler | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", MappingProxyType(dict(self.parts)))
        if 0 < self.n_items < MIN_ITEMS_FOR_COEFFICIENT and math.isfinite(self.statistic):
            # one message for every coefficient of a table: the CLI prints it once
            msg = (
                f"An agreement coefficient rests on only {self.n_items} item(s); below "
                f"{MIN_ITEMS_FOR_COEFFICIENT} items a few items decide its value: annotate more "
                "items before reading it as the annotators' agreement."
            )
            warnings.warn(msg, FewItemsWarning, stacklevel=4)

    def __float__(self) -> float:
        return float(self.statistic)

    def confidence_interval(
        self,
        confidence_level: float = 0.95,
        *,
        n_resamples: int = 1000,
        method: Literal["percentile", "bca"] = "percentile",
        bootstrap: Literal["multinomial", "poisson"] = "multinomial",
        seed: SeedLike = 0,
    ) -> ConfidenceInterval:
        """Interval of the coefficient, by resampling items (or exact, for the ANOVA ICC).

        Parameters
        ----------
        confidence_level : float, default 0.95
            Coverage of the interval.
        n_resamples : int, default 1000
            Bootstrap resamples.
        method : {"percentile", "bca"}, default "percentile"
            Percentile or bias-corrected and accelerated (Efron 1987) interval.
        bootstrap : {"multinomial", "poisson"}, default "multinomial"
            ``"multinomial"`` resamples ``N`` items with replacement (the
            classical bootstrap); ``"poisson"`` gives each item an
            independent Poisson(1) weight keyed by ``(seed, item id,
            resample)`` (:func:`dissensus.stats.poisson_weights`), so the
            interval is the one :mod:`dissensus.distributed` computes on any
            partitioning of the items (an int ``seed`` and percentile only).
        seed : int, Generator or None, default 0
            Randomness of the bootstrap.

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``; NaN ends when the coefficient is undefined or rests
            on fewer than :data:`MIN_ITEMS` items (with a
            :class:`~dissensus.FewItemsWarning`).

        Examples
        --------
        >>> from dissensus.agreement import fleiss_kappa
        >>> r = fleiss_kappa([[2, 0], [1, 1], [0, 2], [2, 0], [0, 2]] * 6)  # 30 items
        >>> low, high = r.confidence_interval(0.9, n_resamples=200, seed=1)
        >>> low <= float(r) <= high
        True
        """
        func = f"{self.name}.confidence_interval"
        confidence_level = check_probability_level(func, "confidence_level", confidence_level)
        if int(n_resamples) < 2:
            msg = f"The 'n_resamples' parameter of {func} must be at least 2. Got {n_resamples!r}."
            raise ValueError(msg)
        check_option(func, "method", method, ("percentile", "bca"))
        check_option(func, "bootstrap", bootstrap, ("multinomial", "poisson"))
        if bootstrap == "poisson" and method != "percentile":
            msg = (
                f"{func}: bootstrap='poisson' gives percentile intervals; use method='percentile'."
            )
            raise ValueError(msg)
        if bootstrap == "poisson" and (isinstance(seed, bool) or not isinstance(seed, int)):
            msg = f"{func}: bootstrap='poisson' needs an int seed (its weights are keyed by it)."
            raise TypeError(msg)
        if self._resampler is None:
            msg = f"{self.name} carries no interval (it was built without a resampler)."
            raise ValueError(msg)
        if self.n_items < MIN_ITEMS:
            msg = (
                f"The {self.name} interval needs at least {MIN_ITEMS} items; got "
                f"{self.n_items}: it is NaN (one item has nothing to resample over)."
            )
            warnings.warn(msg, FewItemsWarning, stacklevel=2)
            return ConfidenceInterval(math.nan, math.nan)
        return self._resampler(confidence_level, int(n_resamples), method, bootstrap, seed)

    def _repr_html_(self) -> str:
        """Compact notebook view: one row with the statistic, standard error and items."""
        table = Table(
            ["coefficient", "statistic", "standard_error", "items"],
            [[self.name, _num(self.statistic), _num(self.standard_error), str(self.n_items)]],
            caption=self.note,
        )
        return html_fragment(table)

    def __repr__(self) -> str:
        bits = [f"{self.name}={_num(self.statistic)}"]
        if not math.isnan(self.standard_error):
            bits.append(f"standard_error={_num(self.standard_error)}")
        bits.append(f"n_items={self.n_items}")
        if self.n_items_excluded:
            bits.append(f"excluded={self.n_items_excluded}")
        bits.extend(f"{k}={_num(v)}" for k, v in self.parts.items())
        if not math.isnan(self.z):
            bits.append(f"z={_num(self.z)}, p={_num(self.pvalue)}")
        if self.note:
            bits.append(f"note={self.note!r}")
        return f"AgreementResult({', '.join(bits)})"
