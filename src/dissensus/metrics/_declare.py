"""How a pointwise metric is declared: one decorator on its row kernel.

From one :func:`pointwise_metric` declaration come the registry entry,
``Metric.kernel`` (the row kernel on float64 (n, K) blocks on the simplex,
applied by :func:`chunked` after a check of the options) and the public
function, which validates ``(p_true, q_pred)`` once (:func:`pair`), calls the
kernel and carries the generated numpydoc docstring (doctested from the
declaring module's ``__test__``). Values do not depend on the blocks or threads.
"""

from __future__ import annotations

import functools
import inspect
import math
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from dissensus._exceptions import DataError
from dissensus._parallel import for_blocks, n_threads
from dissensus._validation import PROB_ATOL, as_prob_matrix, check_option, log_scale
from dissensus.metrics._registry import register_metric

FloatArray = npt.NDArray[np.float64]
ZeroPolicy = Literal["inf", "clip"]
_ZERO_OPTIONS = ("inf", "clip")
#: Largest K for which row sums run as a loop over the columns.
COLUMN_LOOP_MAX_K = 8
#: Entries per block of rows in :func:`chunked` (1 MiB of float64 per temporary; measured
#: fastest at 10^6 x 5 among 2^13 .. 2^20 on the 2-core development machine).
CHUNK_ELEMENTS = 131_072


def as_rows(x: npt.ArrayLike, name: str, *, normalize: bool) -> tuple[FloatArray, bool]:
    """Validate one probability argument; remember whether it was a single 1-D row."""
    arr = np.asarray(x)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if not normalize and _surely_valid(arr):
        return arr, single
    return as_prob_matrix(arr, name, normalize=normalize), single


def _surely_valid(arr: npt.NDArray[Any]) -> bool:
    """Cheap pre-check (one read per block) that ``as_prob_matrix`` would accept ``arr`` as is.

    The full validator makes five passes (most of a metric's run time at 10^6 x
    5); what this does not accept (NaN, inf too) goes through it.
    """
    if arr.dtype != np.float64 or arr.ndim != 2 or arr.size == 0:
        return False
    n, K = arr.shape
    step = max(256, CHUNK_ELEMENTS // K)
    for start in range(0, n, step):
        block = arr[start : start + step]
        if not block.min() >= 0.0:  # False for NaN too
            return False
        dev = rowsum(block)
        dev -= 1.0
        np.abs(dev, out=dev)
        if not dev.max() <= PROB_ATOL:
            return False
    return True


def pair(
    p: npt.ArrayLike, q: npt.ArrayLike, *, normalize: bool
) -> tuple[FloatArray, FloatArray, bool]:
    """Validate ``(p_true, q_pred)`` once: same K, same N (or one single row)."""
    P, p_single = as_rows(p, "p_true", normalize=normalize)
    Q, q_single = as_rows(q, "q_pred", normalize=normalize)
    if P.shape[1] != Q.shape[1]:
        msg = (
            f"`p_true` has {P.shape[1]} categories (shape {P.shape}) but `q_pred` has "
            f"{Q.shape[1]} (shape {Q.shape}); both must be (N, K) over the same K classes."
        )
        raise DataError(msg)
    if P.shape[0] != Q.shape[0]:
        if p_single:
            P = np.broadcast_to(P, Q.shape)
        elif q_single:
            Q = np.broadcast_to(Q, P.shape)
        else:
            msg = (
                f"`p_true` has {P.shape[0]} items but `q_pred` has {Q.shape[0]}; pass the "
                "same items in the same order (see Predictions.align)."
            )
            raise DataError(msg)
    return P, Q, p_single and q_single


def prediction_for(
    T: npt.NDArray[Any], q_pred: npt.ArrayLike, target: str
) -> tuple[FloatArray, bool]:
    """``q_pred`` checked against the (N, K) ``target`` (Dirichlet ``alpha``, counts).

    One prediction row is used for every item; also returns whether ``q_pred``
    was that single 1-D row.
    """
    Q, single = as_rows(q_pred, "q_pred", normalize=False)
    if single and T.shape[0] != 1 and Q.shape[1] == T.shape[1]:
        Q = np.broadcast_to(Q, T.shape)
    if Q.shape != T.shape:
        msg = (
            f"`{target}` has shape {T.shape} but `q_pred` has shape {Q.shape}; give one "
            "prediction row per item, columns in the same class order."
        )
        raise DataError(msg)
    return Q, single


def clip_bound(func: str, zero: str, eps: float) -> float | None:
    """Check the zero policy; the clipping bound, or None for exact values."""
    check_option(func, "zero", zero, _ZERO_OPTIONS)
    if zero == "inf":
        return None
    e = float(eps)
    if not 0.0 < e < 0.5:
        msg = f"The 'eps' parameter of {func} must be in (0, 0.5), e.g. 1e-12. Got {eps!r}."
        raise ValueError(msg)
    return e


def clip(func: str, X: FloatArray, zero: str, eps: float) -> FloatArray:
    """The zero policy: ``X`` as is (``"inf"``) or clipped to [eps, 1 - eps], not renormalised."""
    e = clip_bound(func, zero, eps)
    return X if e is None else np.clip(X, e, 1.0 - e)


def _check_options(func: str, options: dict[str, Any], allowed: frozenset[str]) -> None:
    """The metric's scalar options: known names, a valid zero policy and log base."""
    unknown = options.keys() - allowed
    if unknown:
        msg = f"{func}() got an unexpected keyword argument {min(unknown)!r}"
        raise TypeError(msg)
    if "zero" in options or "eps" in options:
        clip_bound(func, options.get("zero", "inf"), options.get("eps", 1e-12))
    if "base" in options:
        log_scale(func, options["base"])


def chunked(kernel: Callable[..., FloatArray], *arrays: FloatArray) -> FloatArray:
    """Apply a row-wise kernel to blocks of rows, writing into one (N,) result.

    On blocks of ``CHUNK_ELEMENTS`` entries the temporaries stay in cache
    (1.3-2x faster at 10^6 x 5); the blocks share the
    :func:`dissensus._parallel.n_threads` threads.
    """
    n, K = arrays[0].shape
    step = max(256, CHUNK_ELEMENTS // max(K, 1))
    if n <= step:
        return kernel(*arrays)
    out = np.empty(n)

    def block(lo: int, hi: int) -> None:
        out[lo:hi] = kernel(*(a[lo:hi] for a in arrays))

    for_blocks(n, step, block, n_threads(None, "dissensus.metrics"))
    return out


def rowsum(x: npt.NDArray[np.floating[Any]]) -> FloatArray:
    """Row sums that depend only on the row; for small K a running sum over the columns (faster)."""
    K = x.shape[1]
    if K > COLUMN_LOOP_MAX_K or K == 0:
        out: FloatArray = x.sum(axis=1, dtype=np.float64)
        return out
    total = x[:, 0].astype(np.float64, copy=True)
    for k in range(1, K):
        total += x[:, k]
    return total


#: Type, then description, of the options the kernels share (``{x}``: the clipped argument).
_OPTION_DOCS = {
    "zero": (
        '{"inf", "clip"}',
        '``"inf"``: exact, ``inf`` where some ``{x}_i = 0 < {y}_i``. ``"clip"``: clip '
        "``{x}`` to ``[eps, 1 - eps]`` first, without renormalising (the convention of "
        "Rizzi et al. 2024).",
    ),
    "eps": ("float", 'Clipping bound used with ``zero="clip"``.'),
    "base": ("float", "Log base; natural log when None (2 gives bits)."),
}
_BOUND_TEXT = {math.log(2.0): "ln 2", math.sqrt(2.0): "√2", math.sqrt(math.log(2.0)): "√(ln 2)"}
#: Bounds that grow with the number of classes K, by the text the docstrings show.
K_BOUNDS: dict[str, Callable[[int], tuple[float, float]]] = {
    "√K": lambda K: (0.0, math.sqrt(K)),
    "K": lambda K: (0.0, float(K)),
    "ln K": lambda K: (0.0, math.log(K)),
}


def _bound(x: float) -> str:
    return "∞" if math.isinf(x) else _BOUND_TEXT.get(x, f"{x:g}")


def _default(value: Any) -> str:
    return "optional" if value is None else f"default {value!r}".replace("'", '"')


def _wrap(text: str, first: str = "    ", rest: str = "    ") -> str:
    return textwrap.fill(text, 79, initial_indent=first, subsequent_indent=rest)


_DATA = {
    True: "p : array_like, shape (N, K) or (K,)\n    Distributions (rows on the simplex).",
    False: "p_true, q_pred : array_like, shape (N, K) or (K,)\n"
    "    Target and predicted distributions (rows on the simplex).",
}
_TEMPLATE = """{summary}

Parameters
----------
{data}
{options}normalize : bool, default False
    Rescale rows that do not sum to 1 instead of raising.

Returns
-------
ndarray of float64, shape (N,)
    In {span}; {traits}. A float64 scalar when the inputs are 1-D.

Raises
------
DataError
    Rows off the simplex, mismatched shapes.{raises}

Notes
-----
::

    {name}({args}) = {formula}
{notes}{references}
Examples
--------
{examples}
"""


def _docstring(spec: Mapping[str, Any], params: Sequence[inspect.Parameter], unary: bool) -> str:
    """The numpydoc docstring of a declared metric."""
    x, y = ("p", "q") if spec["clips"] == "p" else ("q", "p")
    options = ""
    for prm in params:
        typ, text = spec["options"].get(prm.name) or _OPTION_DOCS[prm.name]
        options += f"{prm.name} : {typ}, {_default(prm.default)}\n{_wrap(text.format(x=x, y=y))}\n"
    checked = ", ".join(f"``{p.name}``" for p in params if p.name in _OPTION_DOCS)
    traits = ["symmetric"] if spec["symmetric"] else []
    traits.append("lower is better" if spec["lower_is_better"] else "higher is better")
    refs = [_wrap(ref, f".. [{i}] ", "   ") for i, ref in enumerate(spec["references"], 1)]
    low, high = spec["bounds"]
    return _TEMPLATE.format(
        summary=f"{spec['description'][0].upper()}{spec['description'][1:]}, per item.",
        data=_DATA[unary],
        options=options,
        span=f"[{_bound(low)}, {spec['k_bound'] or _bound(high)}]",
        traits="; ".join(traits),
        raises=f"\nValueError\n    An invalid {checked}." if checked else "",
        name=spec["name"],
        args="p" if unary else "p, q",
        formula=spec["formula"],
        notes=f"\n{inspect.cleandoc(spec['notes'])}\n" if spec["notes"] else "",
        references="\nReferences\n----------\n" + "\n".join(refs) + "\n" if refs else "",
        examples=inspect.cleandoc(spec["examples"]),
    )


def pointwise_metric(
    name: str,
    *,
    formula: str,
    label: str,
    description: str,
    bounds: tuple[float, float],
    examples: str,
    k_bound: str | None = None,
    lower_is_better: bool = True,
    symmetric: bool = True,
    needs_order: bool = False,
    debiased: Literal["jackknife"] | None = None,
    references: Sequence[str] = (),
    notes: str = "",
    options: Mapping[str, tuple[str, str]] | None = None,
    clips: Literal["p", "q"] = "q",
    degree: int | None = None,
    difference_degree: int | None = None,
) -> Callable[[Callable[..., FloatArray]], Callable[..., FloatArray]]:
    """Declare a pointwise metric on its row kernel; return its public function.

    The :class:`~dissensus.metrics.Metric` fields, with ``formula`` in plain text
    over ``p``, ``q`` and classes ``k``, ``description`` also the docstring's
    first line, ``k_bound`` (``"√K"``, ``"K"`` or ``"ln K"``) for a bound that
    grows with K; ``debiased="jackknife"`` makes the jackknife its debiased form
    (others are declared in :mod:`dissensus.metrics.debiased`); ``references``,
    ``notes``, ``examples`` and ``options`` (docs the shared table lacks)
    complete the docstring, ``clips`` names the argument ``zero="clip"`` clips;
    ``degree`` and ``difference_degree``: the polynomial degrees in ``p`` of the
    metric and of a paired difference (:class:`~dissensus.metrics.Metric`).
    """
    spec = dict(locals())
    spec["options"] = options or {}

    def declare(rows: Callable[..., FloatArray]) -> Callable[..., FloatArray]:
        sig = inspect.signature(rows)
        data = [p for p in sig.parameters.values() if p.kind is p.POSITIONAL_ONLY]
        params = [p for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY]
        allowed = frozenset(p.name for p in params)
        unary = len(data) == 1

        def kernel(*arrays: FloatArray, **opts: Any) -> FloatArray:
            if opts:
                _check_options(name, opts, allowed)
                return chunked(functools.partial(rows, **opts), *arrays)
            return chunked(rows, *arrays)

        def one(p: npt.ArrayLike, /, *, normalize: bool = False, **opts: Any) -> Any:
            P, single = as_rows(p, "p", normalize=normalize)
            values = kernel(P, **opts)
            return values[0] if single else values

        def two(
            p_true: npt.ArrayLike, q_pred: npt.ArrayLike, /, *, normalize: bool = False, **opts: Any
        ) -> Any:
            P, Q, single = pair(p_true, q_pred, normalize=normalize)
            values = kernel(P, Q, **opts)
            # a single item gives a NumPy float64 scalar, which is also a Python float
            return values[0] if single else values

        public: Callable[..., Any] = one if unary else two
        first = list(inspect.signature(public).parameters.values())[: len(data)]
        flag = inspect.Parameter(
            "normalize", inspect.Parameter.KEYWORD_ONLY, default=False, annotation="bool"
        )
        public.__signature__ = sig.replace(  # type: ignore[attr-defined]
            parameters=[*first, *params, flag], return_annotation="FloatArray"
        )
        public.__name__ = public.__qualname__ = name
        public.__module__ = rows.__module__
        public.__doc__ = _docstring(spec, params, unary)
        kernel.__name__ = kernel.__qualname__ = f"{name}_kernel"
        register_metric(
            name,
            public,
            lower_is_better=lower_is_better,
            bounds=bounds,
            needs_order=needs_order,
            symmetric=symmetric,
            unary=unary,
            zero_policy="zero" in allowed,
            k_bound=K_BOUNDS[k_bound] if k_bound else None,
            label=label,
            description=description,
            debiased=f"debiased[{name}]" if debiased == "jackknife" else None,
            kernel=kernel,
            formula=formula,
            degree=degree,
            difference_degree=difference_degree,
        )
        return public

    return declare
