"""The one metric registry: every metric's function and metadata, looked up by name.

The layers above ask :func:`get_metric` for a :class:`Metric` and read its
metadata. Pointwise metrics ``func(p_true, q_pred)`` have expected forms
``E[<name>]``, ``func(alpha, q_pred)`` (:mod:`~dissensus.metrics.expected`),
and debiased forms ``debiased[<name>]``, ``func(counts, q_pred)``
(:mod:`~dissensus.metrics.debiased`; unbounded), declared with
:func:`metric_form`: a form copies its metric's metadata and is linked from it.
The registry stays grouped by kind, forms in the order of their metrics.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt

from dissensus._validation import check_option

MetricKind = Literal["pointwise", "expected", "debiased"]
_KINDS: tuple[MetricKind, ...] = ("pointwise", "expected", "debiased")
MetricFunc = Callable[..., npt.NDArray[np.float64]]
F = TypeVar("F", bound=MetricFunc)
_INF = math.inf


@dataclass(frozen=True)
class Metric:
    """A metric and what the layers above need to know about it.

    ``name`` is the registry key (``"emd"``, ``"E[emd]"``, ``"debiased[emd]"``);
    ``func(target, q_pred, /, **options) -> (N,)`` takes a distribution,
    Dirichlet ``alpha`` (``needs_posterior``) or label counts
    (``needs_counts``), unary entries the target only. ``bounds`` hold for
    every K (``inf`` if unbounded or growing with K: :meth:`bounds_for` uses
    ``k_bound(K)``); ``symmetric`` is never true of forms; ``expected``,
    ``debiased``, ``pointwise`` link a metric and its forms; ``zero_policy``:
    ``func`` takes ``zero=`` and ``eps=``; ``label``, ``description`` and
    ``formula`` (plain text over ``p`` and ``q``) are for tables and ``dissensus
    metrics``; ``kernel`` is :attr:`func` without the input checks (the same
    bytes on float64 (N, K) arrays on the simplex), for repeated calls.

    ``degree`` is the degree of ``f(p, q)`` as a polynomial in the target ``p``
    and ``difference_degree`` that of the paired difference ``f(p, q_A) − f(p,
    q_B)`` (None: not a polynomial). From ``n`` multinomial annotations exactly
    the polynomials of degree <= n in the true distribution have unbiased
    estimators, so the level has one from ``degree`` annotations per item and
    the difference from ``difference_degree`` (cross-entropy 1 and 1, KL None
    and 1: the entropy cancels, Brier and RPS 2 and 1; EMD, L1, JS: None).
    Debiased forms keep both (they estimate the same quantity); expected forms,
    functions of the posterior, have neither.

    ``corpus`` metrics return one number for the whole corpus (a correlation
    over items, a soft F1), not one score per item: ``func(target, q_pred)``
    takes the (N, K) arrays and returns a float; they are not averaged over
    items, so :func:`dissensus.evaluation.evaluate` does not take them
    (:mod:`dissensus.metrics.variation`).
    """

    name: str
    func: MetricFunc
    lower_is_better: bool
    bounds: tuple[float, float]
    needs_order: bool
    symmetric: bool
    kind: MetricKind = "pointwise"
    needs_posterior: bool = False
    expected: str | None = None
    pointwise: str | None = None
    unary: bool = False
    needs_counts: bool = False
    debiased: str | None = None
    zero_policy: bool = False
    k_bound: Callable[[int], tuple[float, float]] | None = None
    label: str = ""
    description: str = ""
    kernel: MetricFunc | None = None
    formula: str = ""
    degree: int | None = None
    difference_degree: int | None = None
    corpus: bool = False

    @property
    def bounded(self) -> bool:
        """True when the metric has a finite range for every fixed K."""
        return self.k_bound is not None or all(math.isfinite(b) for b in self.bounds)

    def bounds_for(self, K: int) -> tuple[float, float]:
        """``(low, high)`` for rows over ``K`` classes (tighter than :attr:`bounds`)."""
        if self.k_bound is not None:
            return self.k_bound(int(K))
        return self.bounds

    def __call__(self, *args: Any, **kwargs: Any) -> npt.NDArray[np.float64]:
        """Call :attr:`func`."""
        return self.func(*args, **kwargs)

    def __repr__(self) -> str:
        direction = "lower is better" if self.lower_is_better else "higher is better"
        traits = (self.needs_order, self.symmetric, self.needs_posterior, self.needs_counts)
        names = ("ordinal", "symmetric", "needs posterior", "needs counts", "unary", "corpus")
        flags = [self.kind, direction, f"bounds={self.bounds}"]
        flags += [
            name for name, on in zip(names, (*traits, self.unary, self.corpus), strict=True) if on
        ]
        return f"Metric({self.name!r}: {', '.join(flags)})"


_REGISTRY: dict[str, Metric] = {}
#: Read-only view of every registered metric, by name (add with :func:`register_metric`).
REGISTRY: Mapping[str, Metric] = MappingProxyType(_REGISTRY)


def _require(ok: bool, func: str, arg: str, want: str, value: object) -> None:
    if not ok:
        msg = f"The {arg!r} parameter of {func} must be {want}. Got {value!r} ({type(value).__name__})."
        raise TypeError(msg)


def _keep_grouped() -> None:
    """Order the registry by kind, each form after the forms of earlier pointwise metrics."""
    rank = {name: i for i, name in enumerate(_REGISTRY)}

    def key(m: Metric) -> tuple[int, int, int]:
        base = m.pointwise if m.pointwise in rank else m.name
        return _KINDS.index(m.kind), rank[base], rank[m.name]

    ordered = sorted(_REGISTRY.values(), key=key)
    _REGISTRY.clear()
    _REGISTRY.update((m.name, m) for m in ordered)


def register_metric(
    name: str,
    func: MetricFunc,
    *,
    lower_is_better: bool,
    bounds: tuple[float, float] = (-_INF, _INF),
    needs_order: bool = False,
    symmetric: bool = False,
    kind: MetricKind = "pointwise",
    needs_posterior: bool | None = None,
    expected: str | None = None,
    pointwise: str | None = None,
    unary: bool = False,
    zero_policy: bool = False,
    k_bound: Callable[[int], tuple[float, float]] | None = None,
    label: str | None = None,
    description: str = "",
    overwrite: bool = False,
    debiased: str | None = None,
    kernel: MetricFunc | None = None,
    formula: str = "",
    degree: int | None = None,
    difference_degree: int | None = None,
    corpus: bool = False,
) -> Metric:
    """Add a metric to the registry and return its :class:`Metric`.

    The parameters are the :class:`Metric` fields (``needs_posterior``
    defaults to ``kind == "expected"``, ``label`` to ``name``), and
    ``overwrite=True`` replaces an entry. Expected and debiased metrics, and
    only they, are named ``E[<name>]`` and ``debiased[<name>]``. ``ValueError``
    for a name taken or not matching the kind, or bounds not ordered;
    ``TypeError`` for a ``func`` not callable.

    Examples
    --------
    >>> import numpy as np
    >>> def total_variation(p, q, /):
    ...     return 0.5 * np.abs(np.asarray(p) - np.asarray(q)).sum(axis=-1)
    >>> m = register_metric("total_variation", total_variation, lower_is_better=True,
    ...                     bounds=(0.0, 1.0), symmetric=True)
    >>> get_metric("total_variation")([[1.0, 0.0]], [[0.5, 0.5]])
    array([0.5])
    >>> _ = _REGISTRY.pop("total_variation")  # keep the doctest side-effect free
    """
    _require(isinstance(name, str), "register_metric", "name", "a str, e.g. 'emd'", name)
    if not name:
        msg = "The 'name' parameter of register_metric must be a non-empty string. Got ''."
        raise ValueError(msg)
    _require(callable(func), "register_metric", "func", "callable", func)
    _require(kernel is None or callable(kernel), "register_metric", "kernel", "callable", kernel)
    check_option("register_metric", "kind", kind, _KINDS)
    for form, prefix in (("expected", "E["), ("debiased", "debiased[")):
        named = name.startswith(prefix) and name.endswith("]") and len(name) > len(prefix) + 1
        if (kind == form) != named:
            msg = (
                f"Metric {name!r} has kind={kind!r}: {form} metrics, and only they, are "
                f"named '{prefix}<pointwise name>]', e.g. '{prefix}emd]'."
            )
            raise ValueError(msg)
    for arg, deg in (("degree", degree), ("difference_degree", difference_degree)):
        if deg is not None and (isinstance(deg, bool) or not isinstance(deg, int) or deg < 0):
            msg = (
                f"The {arg!r} parameter of register_metric must be an integer >= 0 or None "
                f"(not a polynomial in the target). Got {deg!r}."
            )
            raise ValueError(msg)
    low, high = (float(b) for b in bounds)
    if not low <= high:
        msg = (
            f"The 'bounds' of metric {name!r} must be (low, high) with low <= high. Got {bounds!r}."
        )
        raise ValueError(msg)
    if name in _REGISTRY and not overwrite:
        msg = f"A metric named {name!r} is already registered; pass overwrite=True to replace it."
        raise ValueError(msg)
    metric = Metric(
        name=name,
        func=func,
        lower_is_better=bool(lower_is_better),
        bounds=(low, high),
        needs_order=bool(needs_order),
        symmetric=bool(symmetric),
        kind=kind,
        needs_posterior=(kind == "expected") if needs_posterior is None else bool(needs_posterior),
        expected=expected,
        pointwise=pointwise,
        unary=bool(unary),
        zero_policy=bool(zero_policy),
        k_bound=k_bound,
        label=name if label is None else label,
        description=description,
        needs_counts=kind == "debiased",
        debiased=debiased,
        kernel=kernel,
        formula=formula,
        degree=degree,
        difference_degree=difference_degree,
        corpus=bool(corpus),
    )
    _REGISTRY[name] = metric
    _keep_grouped()
    return metric


def register_form(
    kind: Literal["expected", "debiased"], pointwise: str, func: MetricFunc, *, formula: str = ""
) -> Metric:
    """Register the expected or debiased form of a pointwise metric, derived from its entry.

    The form takes the metric's direction, order and zero policy (an expected
    form also its bounds and arity; a debiased one is unbounded and keeps the
    polynomial degrees, an expected one has none).
    """
    base = _REGISTRY[pointwise]
    expected = kind == "expected"
    name = f"{'E' if expected else 'debiased'}[{pointwise}]"
    what = (
        "posterior expectation of"
        if expected
        else "debiased estimate (vs the true distribution) of"
    )
    metric = register_metric(
        name,
        func,
        lower_is_better=base.lower_is_better,
        bounds=base.bounds if expected else (-_INF, _INF),
        needs_order=base.needs_order,
        kind=kind,
        pointwise=pointwise,
        unary=base.unary and expected,
        zero_policy=base.zero_policy,
        k_bound=base.k_bound if expected else None,
        label=f"{'E' if expected else 'deb'}[{base.label}]",
        description=f"{what} {base.description}",
        formula=formula or f"E_{{p ~ Dir(α)}} [{base.formula}]",
        degree=None if expected else base.degree,
        difference_degree=None if expected else base.difference_degree,
    )
    _REGISTRY[pointwise] = dataclasses.replace(base, **{kind: name})  # type: ignore[arg-type]
    return metric


def metric_form(
    kind: Literal["expected", "debiased"], pointwise: str, *, formula: str = ""
) -> Callable[[F], F]:
    """Declare the decorated ``func(alpha or counts, q_pred, /, **options)`` a form of ``pointwise``."""

    def declare(func: F) -> F:
        register_form(kind, pointwise, func, formula=formula)
        return func

    return declare


def _fold(name: str) -> str:
    """A metric name for case-insensitive matching: lower case, '_' for '-' and spaces."""
    return re.sub(r"[-\s]+", "_", name.strip().lower())


def get_metric(name: str | Metric) -> Metric:
    """Look a metric up by name (case, and ``-`` or a space for ``_``, do not matter).

    A :class:`Metric` is returned as is; an unknown name raises ``ValueError``
    with the closest matches.

    Examples
    --------
    >>> m = get_metric("emd")
    >>> m.needs_order, m.bounds, m.lower_is_better, m.expected
    (True, (0.0, 1.0), True, 'E[emd]')
    >>> get_metric("E[KL-Divergence]").name
    'E[kl_divergence]'
    >>> get_metric("kl_divergense")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Unknown metric 'kl_divergense'. Did you mean 'kl_divergence' or ...
    >>> get_metric("E[manhatan]")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Unknown metric 'E[manhatan]'. Did you mean 'E[manhattan]' or ...
    """
    if isinstance(name, Metric):
        return name
    _require(isinstance(name, str), "get_metric", "name", "a str, e.g. 'emd'", name)
    try:
        return _REGISTRY[name]
    except KeyError:
        pass
    # names are matched case-insensitively, with '-' or ' ' for '_' ("E[KL-Divergence]")
    folded = {_fold(key): key for key in _REGISTRY}
    key = folded.get(_fold(name))
    if key is not None:
        return _REGISTRY[key]
    close = [
        folded[c] for c in difflib.get_close_matches(_fold(name), list(folded), n=3, cutoff=0.6)
    ]
    inner = re.fullmatch(r"e\[(.*)\]", _fold(name))
    if inner and not close:  # a misspelt expected name: match the part inside E[...]
        close = [
            f"E[{folded[c]}]"
            for c in difflib.get_close_matches(inner.group(1), list(folded), n=3, cutoff=0.6)
            if f"E[{folded[c]}]" in _REGISTRY
        ]
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    msg = f"Unknown metric {name!r}.{hint} Available: {', '.join(_REGISTRY)}."
    raise ValueError(msg)


def list_metrics(
    *,
    kind: MetricKind | None = None,
    needs_order: bool | None = None,
    symmetric: bool | None = None,
    bounded: bool | None = None,
    unary: bool | None = False,
    corpus: bool | None = False,
) -> list[str]:
    """Names of the registered metrics that match every given filter, in registry order.

    ``kind``, ``needs_order``, ``symmetric`` and ``bounded`` keep the metrics
    with that value (None: any); ``unary=False`` (default) lists the
    two-argument metrics only, True the one-argument ones (entropy), None both;
    ``corpus=False`` (default) the per-item metrics only, True the corpus-level
    ones (``soft_f1``, ``entropy_correlation``), None both.

    Examples
    --------
    >>> list_metrics(needs_order=True)
    ['emd', 'rps', 'E[emd]', 'E[rps]', 'debiased[emd]', 'debiased[rps]']
    >>> list_metrics(kind="expected")[:3]
    ['E[cross_entropy]', 'E[kl_divergence]', 'E[kl_divergence_reverse]']
    """
    if kind is not None:
        check_option("list_metrics", "kind", kind, _KINDS)
    filters = {
        "kind": kind,
        "needs_order": needs_order,
        "symmetric": symmetric,
        "bounded": bounded,
        "unary": unary,
        "corpus": corpus,
    }
    wanted = {k: v for k, v in filters.items() if v is not None}
    return [
        m.name for m in _REGISTRY.values() if all(getattr(m, k) == v for k, v in wanted.items())
    ]
