"""Old public names kept working for one release, with a DeprecationWarning.

The glossary (``docs/glossary.md``) settled one name per concept before 1.0:
``confidence_level`` (not ``ci``), ``n_resamples`` (not ``n_boot``),
``.statistic`` (not ``.value``), ``.pvalue`` (not ``.p_value``),
``.confidence_interval`` (not ``.ci``) and ``annotations`` as the first
argument of agreement and evaluation functions. Names that were documented
keep working until 1.0 through the two helpers here; undocumented ones were
renamed outright.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any, TypeVar, cast

__all__ = ["deprecated_attribute", "keyword_only_options", "renamed_parameters"]

F = TypeVar("F", bound=Callable[..., Any])

#: When the old names stop working.
REMOVAL = "1.0"


def renamed_parameters(**renames: str) -> Callable[[F], F]:
    """Accept the old keyword names of a function, warn, and pass the new ones.

    ``@renamed_parameters(n_boot="n_resamples", ci="confidence_level")`` lets
    ``f(x, n_boot=200)`` keep working with a :class:`DeprecationWarning`
    pointing at the caller. Passing both names is a TypeError.
    """

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        msg = (
                            f"{func.__qualname__}() got both {old!r} (its old name) and {new!r}; "
                            f"pass {new!r} only."
                        )
                        raise TypeError(msg)
                    warnings.warn(
                        f"{func.__qualname__}(): {old!r} is deprecated and stops working in "
                        f"{REMOVAL}; use {new!r}.",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return cast("F", wrapper)

    return decorate


def deprecated_attribute(old: str, new: str) -> property:
    """A read-only property ``old`` that warns and returns ``self.<new>``."""

    def get(self: Any) -> Any:
        warnings.warn(
            f"{type(self).__name__}.{old} is deprecated and stops working in {REMOVAL}; "
            f"use .{new}.",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(self, new)

    return property(get, doc=f"Deprecated alias of ``{new}`` (removed in {REMOVAL}).")


def keyword_only_options(n_data: int) -> Callable[[F], F]:
    """Accept options passed by position (the old calling form) with a DeprecationWarning.

    The function's options are keyword-only (after ``*``); ``n_data`` is the
    number of data arguments that stay positional (``self`` not counted). A call
    with more positional arguments maps the extra ones, in order, onto the
    keyword-only parameters, as the old positional signature did.
    """

    def decorate(func: F) -> F:
        params = list(inspect.signature(func).parameters.values())
        offset = 1 if params and params[0].name == "self" else 0
        keyword_only = [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
        limit = n_data + offset

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if len(args) > limit:
                extra = args[limit:]
                if len(extra) > len(keyword_only):
                    msg = f"{func.__qualname__}() takes {n_data} positional arguments"
                    raise TypeError(msg)
                names = keyword_only[: len(extra)]
                for name in names:
                    if name in kwargs:
                        msg = f"{func.__qualname__}() got multiple values for {name!r}"
                        raise TypeError(msg)
                warnings.warn(
                    f"{func.__qualname__}(): pass {', '.join(names)} by keyword "
                    f"({names[0]}=...); options by position stop working in {REMOVAL}.",
                    DeprecationWarning,
                    stacklevel=2,
                )
                kwargs.update(zip(names, extra, strict=True))
                args = args[:limit]
            return func(*args, **kwargs)

        return cast("F", wrapper)

    return decorate
