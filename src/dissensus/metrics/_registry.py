"""The one metric registry: every metric's function and metadata, looked up by name.

Evaluation, audit, reports and the CLI never import metric functions
directly; they ask :func:`get_metric` for a :class:`Metric` and read its
metadata (direction, bounds, whether it needs ordered classes, whether it
takes a Dirichlet posterior).

Two kinds of entries:

``kind="pointwise"``
    ``func(p_true, q_pred, /, **options) -> (N,)`` on probability rows.
``kind="expected"``
    Named ``E[<pointwise name>]``; ``func(alpha, q_pred, /, **options) -> (N,)``
    takes Dirichlet posterior parameters instead of the target distribution
    (``needs_posterior=True``) and returns the posterior expectation of the
    pointwise metric. The functions live in :mod:`dissensus.metrics.expected`,
    imported on the first call.
``kind="debiased"``
    Named ``debiased[<pointwise name>]``; ``func(counts, q_pred, /, **options)
    -> (N,)`` takes the items' label counts (``needs_counts=True``) and
    estimates the pointwise metric against the TRUE label distribution with
    its annotation-noise bias removed (jackknife over annotations, or an
    exact U-statistic). Values can be negative; ``bounds`` are
    ``(-inf, inf)``. The functions live in :mod:`dissensus.metrics.debiased`,
    imported on the first call.

Entries with ``unary=True`` (entropy and its expectation) take the target
only; :func:`list_metrics` leaves them out unless asked, so a loop over
``list_metrics()`` can call every ``func(p, q)``.
"""

from __future__ import annotations

import difflib
import importlib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from dissensus._validation import check_option
from dissensus.metrics import _pointwise as pw

__all__ = [
    "BOUNDED_METRICS",
    "DEBIASED_METRICS",
    "EXPECTED_METRICS",
    "ORDINAL_METRICS",
    "REGISTRY",
    "SYMMETRIC_METRICS",
    "Metric",
    "MetricKind",
    "get_metric",
    "list_metrics",
    "register_metric",
]

MetricKind = Literal["pointwise", "expected", "debiased"]
_KINDS = ("pointwise", "expected", "debiased")
MetricFunc = Callable[..., npt.NDArray[np.float64]]
_INF = math.inf


@dataclass(frozen=True)
class Metric:
    """A metric and what the layers above need to know about it.

    Attributes
    ----------
    name : str
        Registry key, e.g. ``"emd"`` or ``"E[emd]"``.
    func : callable
        ``func(p_true, q_pred, /, **options)`` (pointwise) or
        ``func(alpha, q_pred, /, **options)`` (expected), returning (N,).
        Unary entries take one argument.
    lower_is_better : bool
        Direction: True for divergences, distances and losses; False for
        similarities (cosine, intersection).
    bounds : tuple of float
        ``(low, high)`` over every K for rows on the simplex; ``inf`` when
        unbounded or when the bound grows with K (see :meth:`bounds_for`).
    needs_order : bool
        True when the value depends on the order of the classes (EMD).
    symmetric : bool
        ``func(p, q) == func(q, p)``. Always False for expected metrics, whose
        arguments are of different kinds.
    kind : {"pointwise", "expected", "debiased"}
        See the module docstring.
    needs_posterior : bool
        The first argument is Dirichlet ``alpha`` rather than a distribution.
    needs_counts : bool
        The first argument is the (N, K) label counts (debiased metrics).
    expected : str or None
        For a pointwise metric, the name of the registered expected form
        (``"E[emd]"``), if any.
    pointwise : str or None
        For an expected or debiased metric, the pointwise metric it estimates.
    debiased : str or None
        For a pointwise metric, the name of the registered debiased form
        (``"debiased[emd]"``), if any.
    unary : bool
        ``func`` takes the target only (entropy).
    zero_policy : bool
        ``func`` accepts ``zero=`` and ``eps=`` (metrics with logs of ``q``).
    k_bound : callable or None
        ``K -> (low, high)`` when the bounds depend on the number of classes.
    label : str
        Short label for tables and plots.
    description : str
        One line for listings.
    kernel : callable or None
        The same formula as :attr:`func` without the input checks:
        ``kernel(P, Q, /, **options)`` on float64 (N, K) arrays of the same
        shape whose rows are already known to be on the simplex (no 1-D
        input, no ``normalize=`` of the rows; scalar options such as
        ``zero=`` or ``base=`` are still checked). :attr:`func` validates and
        calls it, so the two give the same bytes. For callers that evaluate
        a metric many times on arrays they checked once (the jackknife of
        :mod:`dissensus.metrics.debiased`). None for metrics registered
        without one (then use :attr:`func`).
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
        flags = [self.kind, direction, f"bounds={self.bounds}"]
        if self.needs_order:
            flags.append("ordinal")
        if self.symmetric:
            flags.append("symmetric")
        if self.needs_posterior:
            flags.append("needs posterior")
        if self.needs_counts:
            flags.append("needs counts")
        if self.unary:
            flags.append("unary")
        return f"Metric({self.name!r}: {', '.join(flags)})"


_REGISTRY: dict[str, Metric] = {}
#: Read-only view of every registered metric, by name (add with :func:`register_metric`).
REGISTRY: Mapping[str, Metric] = MappingProxyType(_REGISTRY)


def _check_type(func: str, arg: str, value: object, typ: type) -> None:
    if not isinstance(value, typ):
        msg = (
            f"The {arg!r} parameter of {func} must be a {typ.__name__}, e.g. 'emd'. "
            f"Got {value!r} ({type(value).__name__})."
        )
        raise TypeError(msg)


def _check_callable(func: object, arg: str = "func") -> None:
    if not callable(func):
        msg = f"The {arg!r} parameter of register_metric must be callable. Got {func!r}."
        raise TypeError(msg)


def _is_expected_name(name: str) -> bool:
    return name.startswith("E[") and name.endswith("]") and len(name) > 3


def _is_debiased_name(name: str) -> bool:
    return name.startswith("debiased[") and name.endswith("]") and len(name) > 10


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
) -> Metric:
    """Add a metric to the registry and return its :class:`Metric`.

    Parameters
    ----------
    name : str
        Registry key. Expected metrics must be named ``E[<name>]``, and only
        they; debiased metrics ``debiased[<name>]``, and only they.
    func : callable
        ``func(p_true, q_pred, /, **options) -> (N,)`` (or ``func(alpha, q)``
        for an expected metric).
    lower_is_better : bool
        Direction of the metric.
    bounds : tuple of float, default (-inf, inf)
        Range of the values for rows on the simplex.
    needs_order : bool, default False
        The value depends on the order of the classes.
    symmetric : bool, default False
        ``func(p, q) == func(q, p)`` (the shared tests check it).
    kind : {"pointwise", "expected", "debiased"}, default "pointwise"
        Kind of entry (a debiased entry takes counts: ``needs_counts=True``).
    needs_posterior : bool, optional
        Defaults to ``kind == "expected"``.
    expected, pointwise : str, optional
        Links between a pointwise metric and its expected form.
    unary : bool, default False
        ``func`` takes the target only.
    zero_policy : bool, default False
        ``func`` accepts ``zero=`` and ``eps=``.
    k_bound : callable, optional
        ``K -> (low, high)`` for bounds that depend on K.
    label : str, optional
        Short label; defaults to ``name``.
    description : str, default ""
        One line for listings.
    overwrite : bool, default False
        Replace an existing entry instead of raising.
    debiased : str, optional
        For a pointwise metric, the name of its debiased form.
    kernel : callable, optional
        The unchecked entry of a pointwise metric (see :attr:`Metric.kernel`);
        it must compute exactly what ``func`` computes on valid input.

    Returns
    -------
    Metric
        The registered entry.

    Raises
    ------
    ValueError
        Name taken (without ``overwrite=True``), name and kind disagree,
        bounds not ordered.
    TypeError
        ``func`` is not callable.

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
    _check_type("register_metric", "name", name, str)
    if not name:
        msg = "The 'name' parameter of register_metric must be a non-empty string. Got ''."
        raise ValueError(msg)
    _check_callable(func)
    if kernel is not None:
        _check_callable(kernel, "kernel")
    check_option("register_metric", "kind", kind, _KINDS)
    if (kind == "expected") != _is_expected_name(name):
        msg = (
            f"Metric {name!r} has kind={kind!r}: expected metrics, and only they, are "
            "named 'E[<pointwise name>]', e.g. 'E[emd]'."
        )
        raise ValueError(msg)
    if (kind == "debiased") != _is_debiased_name(name):
        msg = (
            f"Metric {name!r} has kind={kind!r}: debiased metrics, and only they, are "
            "named 'debiased[<pointwise name>]', e.g. 'debiased[emd]'."
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
    )
    _REGISTRY[name] = metric
    return metric


def _fold(name: str) -> str:
    """A metric name for case-insensitive matching: lower case, '_' for '-' and spaces."""
    return re.sub(r"[-\s]+", "_", name.strip().lower())


def get_metric(name: str | Metric) -> Metric:
    """Look a metric up by name.

    Parameters
    ----------
    name : str or Metric
        A registered name, e.g. ``"kl_divergence"``, ``"emd"`` or ``"E[emd]"``
        (a :class:`Metric` is returned as is). Case does not matter, and
        ``-`` or a space may stand for ``_``.

    Returns
    -------
    Metric
        The registry entry; call it like the function.

    Raises
    ------
    ValueError
        Unknown name; the message lists the available names and the closest
        matches.
    TypeError
        ``name`` is not a string.

    Examples
    --------
    >>> m = get_metric("emd")
    >>> m.needs_order, m.bounds, m.lower_is_better, m.expected
    (True, (0.0, 1.0), True, 'E[emd]')
    >>> get_metric("E[emd]").needs_posterior
    True
    >>> get_metric("E[KL-Divergence]").name  # case and '-' do not matter
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
    _check_type("get_metric", "name", name, str)
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
) -> list[str]:
    """Names of the registered metrics that match every given filter, in registration order.

    Parameters
    ----------
    kind : {"pointwise", "expected", "debiased"}, optional
        Only this kind; every kind when None.
    needs_order : bool, optional
        Only metrics that need (True) or ignore (False) the class order.
    symmetric : bool, optional
        Only symmetric (True) or asymmetric (False) metrics.
    bounded : bool, optional
        Only bounded (True) or unbounded (False) metrics.
    unary : bool or None, default False
        By default only two-argument (target, prediction) metrics, so every
        listed ``func`` can be called as ``func(p, q)``; True lists only the
        one-argument ones (entropy), None both.

    Returns
    -------
    list of str

    Examples
    --------
    >>> list_metrics(needs_order=True)
    ['emd', 'E[emd]', 'debiased[emd]']
    >>> list_metrics(kind="expected")[:3]
    ['E[cross_entropy]', 'E[kl_divergence]', 'E[kl_divergence_reverse]']
    """
    if kind is not None:
        check_option("list_metrics", "kind", kind, _KINDS)
    out = []
    for m in _REGISTRY.values():
        if kind is not None and m.kind != kind:
            continue
        if needs_order is not None and m.needs_order != needs_order:
            continue
        if symmetric is not None and m.symmetric != symmetric:
            continue
        if bounded is not None and m.bounded != bounded:
            continue
        if unary is not None and m.unary != unary:
            continue
        out.append(m.name)
    return out


# --------------------------------------------------------------------------- expected forms

_EXPECTED_MODULE = "dissensus.metrics.expected"


def _expected_func(fname: str) -> MetricFunc:
    """Forward to ``dissensus.metrics.expected.<fname>``, imported on the first call.

    The import is deferred so that the registry (and ``dissensus.metrics``)
    load without the expected module and without an import cycle.
    """

    def call(*args: Any, **kwargs: Any) -> npt.NDArray[np.float64]:
        module = importlib.import_module(_EXPECTED_MODULE)
        try:
            func = getattr(module, fname)
        except AttributeError:
            msg = f"{_EXPECTED_MODULE} has no function {fname!r} (needed by 'E[{fname}]')."
            raise NotImplementedError(msg) from None
        result: npt.NDArray[np.float64] = func(*args, **kwargs)
        return result

    call.__name__ = call.__qualname__ = f"E[{fname}]"
    call.__doc__ = (
        f"Posterior expectation of {fname}: calls {_EXPECTED_MODULE}.{fname}(alpha, q, ...)."
    )
    return call


_DEBIASED_MODULE = "dissensus.metrics.debiased"
#: Pointwise metrics with a ``debiased[...]`` form (kept equal to
#: ``dissensus.metrics.debiased.DEBIASED_METRICS``; a test checks it).
_DEBIASED = (
    "cross_entropy", "kl_divergence", "js_divergence", "js_distance", "manhattan", "euclidean",
    "squared_euclidean", "emd", "chebyshev", "clark", "canberra", "cosine", "intersection",
    "hellinger",
)  # fmt: skip


def _debiased_func(fname: str) -> MetricFunc:
    """Forward to ``dissensus.metrics.debiased.debiased(counts, q, metric=fname)``, lazily."""

    def call(*args: Any, **kwargs: Any) -> npt.NDArray[np.float64]:
        module = importlib.import_module(_DEBIASED_MODULE)
        result: npt.NDArray[np.float64] = module.debiased(*args, metric=fname, **kwargs)
        return result

    call.__name__ = call.__qualname__ = f"debiased[{fname}]"
    call.__doc__ = (
        f"Debiased estimate of {fname} against the true distribution: calls "
        f"{_DEBIASED_MODULE}.debiased(counts, q, metric={fname!r}, ...)."
    )
    return call


def _register_builtins() -> None:
    def reg(
        name: str,
        func: MetricFunc,
        *,
        lower: bool = True,
        bounds: tuple[float, float],
        order: bool = False,
        sym: bool = True,
        expected: bool = False,
        unary: bool = False,
        zero: bool = False,
        k_bound: Callable[[int], tuple[float, float]] | None = None,
        label: str,
        description: str,
    ) -> None:
        register_metric(
            name,
            func,
            lower_is_better=lower,
            bounds=bounds,
            needs_order=order,
            symmetric=sym,
            expected=f"E[{name}]" if expected else None,
            debiased=f"debiased[{name}]" if name in _DEBIASED else None,
            kernel=pw.UNCHECKED[name],
            unary=unary,
            zero_policy=zero,
            k_bound=k_bound,
            label=label,
            description=description,
        )

    ln2 = math.log(2.0)
    reg("cross_entropy", pw.cross_entropy, bounds=(0.0, _INF), sym=False, expected=True,
        zero=True, label="CE", description="cross-entropy H(p, q), natural log")  # fmt: skip
    reg("kl_divergence", pw.kl_divergence, bounds=(0.0, _INF), sym=False, expected=True,
        zero=True, label="KL", description="Kullback-Leibler divergence KL(p || q)")  # fmt: skip
    reg("kl_divergence_reverse", pw.kl_divergence_reverse, bounds=(0.0, _INF), sym=False,
        expected=True, zero=True, label="KL(q||p)",
        description="reverse Kullback-Leibler divergence KL(q || p)")  # fmt: skip
    reg("js_divergence", pw.js_divergence, bounds=(0.0, ln2), expected=True, label="JSD",
        description="Jensen-Shannon divergence, natural log (max ln 2)")  # fmt: skip
    reg("js_distance", pw.js_distance, bounds=(0.0, math.sqrt(ln2)), label="JS distance",
        description="Jensen-Shannon distance, sqrt of the divergence (scipy's jensenshannon)")  # fmt: skip
    reg("manhattan", pw.manhattan, bounds=(0.0, 2.0), expected=True, label="L1",
        description="Manhattan (L1) distance")  # fmt: skip
    reg("euclidean", pw.euclidean, bounds=(0.0, math.sqrt(2.0)), label="L2",
        description="Euclidean (L2) distance")  # fmt: skip
    reg("squared_euclidean", pw.squared_euclidean, bounds=(0.0, 2.0), expected=True,
        label="L2²", description="squared Euclidean distance (multi-class Brier score)")  # fmt: skip
    reg("emd", pw.emd, bounds=(0.0, 1.0), order=True, expected=True, label="EMD",
        description="earth mover's distance on ordered classes, ground distance |i-j|/(K-1)")  # fmt: skip
    reg("chebyshev", pw.chebyshev, bounds=(0.0, 1.0), label="L∞",
        description="Chebyshev distance, largest per-class difference")  # fmt: skip
    reg("clark", pw.clark, bounds=(0.0, _INF), k_bound=lambda K: (0.0, math.sqrt(K)),
        label="Clark", description="Clark distance (at most sqrt(K))")  # fmt: skip
    reg("canberra", pw.canberra, bounds=(0.0, _INF), k_bound=lambda K: (0.0, float(K)),
        label="Canberra", description="Canberra distance (at most K)")  # fmt: skip
    reg("cosine", pw.cosine, lower=False, bounds=(0.0, 1.0), label="cosine",
        description="cosine similarity (higher is better)")  # fmt: skip
    reg("intersection", pw.intersection, lower=False, bounds=(0.0, 1.0), label="∩",
        description="intersection similarity, sum of min(p_i, q_i) (higher is better)")  # fmt: skip
    reg("sorensen", pw.sorensen, bounds=(0.0, 1.0), label="Sørensen",
        description="Sørensen (Bray-Curtis) distance, half the L1 on the simplex")  # fmt: skip
    reg("squared_chi2", pw.squared_chi2, bounds=(0.0, 2.0), label="χ²sq",
        description="squared chi-square distance, sum (p_i - q_i)^2 / (p_i + q_i)")  # fmt: skip
    reg("fidelity", pw.fidelity, lower=False, bounds=(0.0, 1.0), label="fidelity",
        description="fidelity similarity, sum sqrt(p_i q_i) (higher is better)")  # fmt: skip
    reg("hellinger", pw.hellinger, bounds=(0.0, 1.0), label="Hellinger",
        description="Hellinger distance, normalised to [0, 1]")  # fmt: skip
    reg("entropy", pw.entropy, bounds=(0.0, _INF), sym=False, expected=True, unary=True,
        k_bound=lambda K: (0.0, math.log(K)), label="H",
        description="Shannon entropy of the target (one argument)")  # fmt: skip

    for base in list(_REGISTRY.values()):
        if base.expected is None:
            continue
        register_metric(
            base.expected,
            _expected_func(base.name),
            lower_is_better=base.lower_is_better,
            bounds=base.bounds,
            needs_order=base.needs_order,
            symmetric=False,
            kind="expected",
            needs_posterior=True,
            pointwise=base.name,
            unary=base.unary,
            zero_policy=base.zero_policy,
            k_bound=base.k_bound,
            label=f"E[{base.label}]",
            description=f"posterior expectation of {base.description}",
        )
    for name in _DEBIASED:
        base = _REGISTRY[name]
        register_metric(
            f"debiased[{name}]",
            _debiased_func(name),
            lower_is_better=base.lower_is_better,
            needs_order=base.needs_order,
            kind="debiased",
            pointwise=name,
            zero_policy=base.zero_policy,
            label=f"deb[{base.label}]",
            description=f"debiased estimate (vs the true distribution) of {base.description}",
        )


_register_builtins()

#: Built-in metrics with ``func(p, q) == func(q, p)`` (drives the shared symmetry tests).
SYMMETRIC_METRICS = frozenset(list_metrics(symmetric=True, unary=None))
#: Built-in metrics with a finite range for each K (drives the shared bound tests).
BOUNDED_METRICS = frozenset(list_metrics(bounded=True, unary=None))
#: Built-in metrics that depend on the order of the classes.
ORDINAL_METRICS = frozenset(list_metrics(needs_order=True, unary=None))
#: Built-in expected metrics (take Dirichlet ``alpha``).
EXPECTED_METRICS = frozenset(list_metrics(kind="expected", unary=None))
#: Built-in debiased metrics (take label counts).
DEBIASED_METRICS = frozenset(list_metrics(kind="debiased", unary=None))
