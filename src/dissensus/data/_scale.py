"""The label set (which labels exist, in which order, whether order matters) and label codes."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import check_numeric_text, check_text_values, examples
from dissensus.data._tables import in_source, locations, py

#: Integers up to 2**53 are exact in float64 (the numeric scale's values).
_EXACT_INT = 2**53

Label = int | float | str


def text_label(text: str) -> Label:
    """A label written as text: stripped, and a number when it reads as a finite one.

    ``"0.0"``, ``"0"`` and ``" 0 "`` are the label 0; ``"1.5"`` is 1.5;
    ``"inf"`` and ``"pos"`` stay text. For formats that write every label
    as text (LeWiDi JSON, set cells split by a separator).

    Examples
    --------
    >>> text_label(" 2.0 "), text_label("1.5"), text_label("inf"), text_label("pos")
    (2, 1.5, 'inf', 'pos')
    """
    stripped = text.strip()
    try:
        number = float(stripped)
    except ValueError:
        return stripped
    if not math.isfinite(number):
        return stripped
    return int(number) if number.is_integer() else number


def _normalise_label(value: Any) -> Label:
    """Plain Python label: numpy scalars unwrapped, integral floats made ints.

    ``2.0`` and ``2`` are one label (pandas reads an int column with gaps as
    floats); ``"2"`` stays a string, because a label read as text is text.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            msg = f"A label cannot be {value!r}; missing labels are not part of a scale."
            raise DataError(msg)
        return int(value) if value.is_integer() else value
    if isinstance(value, int | str):
        return value
    msg = f"Labels must be ints, floats or strings; got {value!r} ({type(value).__name__})."
    raise DataError(msg)


@dataclass(frozen=True)
class Scale:
    """The K labels annotators choose from, in a fixed order.

    Build it with :meth:`nominal`, :meth:`ordinal` or :meth:`infer`. Labels
    (``labels``, a tuple in column order) may be ints (severity −3…1), floats
    (0.5…5 half stars) or strings; ``ordered`` says whether their order is
    that of the classes (ordinal metrics such as EMD need it) or only the
    column order of count matrices.

    Examples
    --------
    >>> s = Scale.ordinal([-3, -2, -1, 0, 1])
    >>> s.K, s.ordered, s.index(0)
    (5, True, 3)
    >>> Scale.infer(["POS", "NEG", "POS"]).labels
    ('NEG', 'POS')
    """

    labels: tuple[Label, ...]
    ordered: bool = False
    _index: pd.Index = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        labels = tuple(_normalise_label(v) for v in self.labels)
        if not labels:
            msg = "A scale needs at least one label."
            raise DataError(msg)
        index = pd.Index(labels, dtype=object)
        if index.has_duplicates:
            dup = index[index.duplicated()].unique().tolist()
            msg = f"Scale labels must be distinct; repeated: {examples(dup)}. Give each label once in scale=[...] (CLI: --labels)."
            raise DataError(msg)
        kinds = {type(v) is str for v in labels}
        if len(kinds) > 1:
            msg = f"Scale labels mix strings and numbers ({examples(list(labels))}); convert them to one type first."
            raise DataError(msg)
        inexact = [
            v for v in labels if isinstance(v, int) and abs(v) > _EXACT_INT and int(float(v)) != v
        ]
        if inexact:
            msg = f"Label {inexact[0]} is an integer beyond 2**53, which a float64 cannot hold exactly (it would merge with a neighbouring label); write the labels as text or as smaller numbers."
            raise DataError(msg)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "ordered", bool(self.ordered))
        object.__setattr__(self, "_index", index)

    # -- constructors -----------------------------------------------------
    @classmethod
    def nominal(cls, labels: Iterable[Any]) -> Scale:
        """Unordered labels, kept in the order given."""
        return cls(tuple(labels), ordered=False)

    @classmethod
    def ordinal(cls, labels: Iterable[Any]) -> Scale:
        """Ordered labels, lowest first, in the order given."""
        return cls(tuple(labels), ordered=True)

    @classmethod
    def infer(cls, values: Iterable[Any], *, ordered: bool | None = None) -> Scale:
        """Infer the scale of the distinct non-missing ``values``.

        Numbers are sorted numerically and, unless ``ordered=False``, the
        scale is ordinal. Strings are sorted alphabetically and nominal; an
        alphabetical order is rarely the real one, so ``ordered=True`` with
        strings is refused: give the order with :meth:`ordinal`.
        """
        ser = pd.Series(list(values) if not isinstance(values, pd.Series) else values)
        uniq = ser.dropna().unique()
        if len(uniq) == 0:
            msg = "Cannot infer a scale: no non-missing labels."
            raise DataError(msg)
        labels = list(dict.fromkeys(_normalise_label(v) for v in uniq))
        if any(isinstance(v, str) for v in labels):
            if not all(isinstance(v, str) for v in labels):
                msg = f"Labels mix strings and numbers ({examples(labels)}); convert the label column to one type first (e.g. `df[label].astype(str)`)."
                raise DataError(msg)
            if ordered:
                msg = f"Cannot infer the order of string labels ({examples(sorted(labels))}); give it explicitly, lowest first, with scale=[...] (CLI: --labels low,mid,high)."
                raise DataError(msg)
            return cls(tuple(sorted(labels)), ordered=False)
        return cls(tuple(sorted(labels)), ordered=True if ordered is None else ordered)

    @classmethod
    def of_categorical(cls, dtype: Any, *, ordered: bool | None = None) -> Scale | None:
        """The scale of a pandas Categorical column's dtype: its categories, in their order.

        An ordered Categorical gives an ordinal scale (its order is the user's,
        not the alphabet's), an unordered one a nominal scale in the order of
        its categories (``ordered`` overrides). Every category is a label, used
        or not. None for any other dtype, or a Categorical without categories.

        Examples
        --------
        >>> dtype = pd.CategoricalDtype(["low", "mid", "high"], ordered=True)
        >>> Scale.of_categorical(dtype)
        Scale.ordinal(['low', 'mid', 'high'])
        """
        if not isinstance(dtype, pd.CategoricalDtype) or dtype.categories is None:
            return None
        categories = list(dtype.categories)
        if not categories:
            return None
        return cls(tuple(categories), ordered=bool(dtype.ordered) if ordered is None else ordered)

    # -- properties -------------------------------------------------------
    @property
    def K(self) -> int:
        """Number of labels."""
        return len(self.labels)

    @property
    def is_numeric(self) -> bool:
        """Whether every label is a number (interval / ratio metrics need it)."""
        return all(not isinstance(v, str) for v in self.labels)

    @property
    def values(self) -> npt.NDArray[np.float64]:
        """Numeric values of the labels, in column order (TypeError if the labels are strings)."""
        if not self.is_numeric:
            msg = f"Scale labels {examples(list(self.labels))} are not numbers; interval and ratio measures need numeric labels."
            raise TypeError(msg)
        return np.asarray(self.labels, dtype=np.float64)

    def __len__(self) -> int:
        return self.K

    def __iter__(self) -> Iterator[Label]:
        return iter(self.labels)

    def __contains__(self, label: object) -> bool:
        try:
            return _normalise_label(label) in self._index
        except DataError:
            return False

    def index(self, label: Any) -> int:
        """Column index of ``label``."""
        pos = self._index.get_indexer(pd.Index([_normalise_label(label)], dtype=object))[0]
        if pos < 0:
            msg = f"Label {label!r} is not on the scale {examples(list(self.labels), 10)}."
            raise DataError(msg)
        return int(pos)

    def encode(self, values: Sequence[Any] | npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Column indices of ``values``; ``-1`` where a value is missing or not on the scale."""
        if isinstance(values, pd.Series):
            ser = values
        else:
            ser = pd.Series(values if hasattr(values, "dtype") else list(values))  # type: ignore[arg-type]
        # Encode the distinct values only: an object column of a million rows
        # holds a handful of labels, and per-row Python calls would dominate.
        codes, uniq = pd.factorize(ser, use_na_sentinel=True)
        if not self.is_numeric:
            found = self._index.get_indexer(pd.Index(uniq, dtype=object))
        elif uniq.dtype.kind in "iufb":
            found = pd.Index(self.values).get_indexer(pd.Index(np.asarray(uniq, dtype=np.float64)))
        else:
            # Object column: numbers match by value (2 == 2.0); text never
            # matches a numeric label, since "2" read as text is another label.
            # (bools count as 0/1, as in a Scale)
            number = (int, float, np.number, np.bool_)
            num = np.array([float(v) if isinstance(v, number) else np.nan for v in uniq])
            found = pd.Index(self.values).get_indexer(pd.Index(num))
        lookup = np.append(found.astype(np.int64), np.int64(-1))  # code -1 (missing) -> -1
        return lookup[codes]

    def with_order(self, ordered: bool) -> Scale:
        """Return the same labels, ordered or not."""
        return Scale(self.labels, ordered=ordered)

    def __repr__(self) -> str:
        kind = "ordinal" if self.ordered else "nominal"
        return f"Scale.{kind}({list(self.labels)!r})"


def given_scale(scale: Scale | Sequence[Any] | None, ordered: bool | None) -> Scale | None:
    """The scale a user passed (a plain sequence ordinal unless ``ordered=False``), or None."""
    if scale is None:
        return None
    if isinstance(scale, Scale):
        return scale if ordered is None else scale.with_order(ordered)
    return Scale(tuple(scale), ordered=True if ordered is None else ordered)


def _kind(value: Any) -> str:
    if isinstance(value, bool | np.bool_):
        return "boolean"
    return "string" if isinstance(value, str) else "number"


def encode_labels(
    labels: pd.Series,
    scale: Scale | Sequence[Any] | None,
    ordered: bool | None,
    *,
    source: str | None,
    column: str,
) -> tuple[Scale, npt.NDArray[np.int64]]:
    """The scale (given, or inferred from ``labels``) and the code of each label.

    Refuses labels off the scale and labels that would silently merge or split
    categories (a boolean among numbers, strings mixed with numbers, control
    characters); warns about labels that differ only by whitespace or case.
    """
    where = in_source(source)
    if labels.dtype == object:
        nested = labels.map(lambda v: isinstance(v, list | tuple | set | frozenset | dict))
        if nested.any():
            rows = np.flatnonzero(nested.to_numpy(dtype=bool))
            msg = (
                f"Labels of column {column!r}{where} hold collections, e.g. "
                f"{labels.iloc[rows[0]]!r} at {locations(labels.index, rows, source)}: "
                "a set of labels per annotation is read with SetAnnotations.from_frame or "
                "read_set_annotations() (CLI: --sets); one label per annotation is a number or a string."
            )
            raise DataError(msg)
    uniq = [v for v in pd.unique(labels) if not (isinstance(v, float) and np.isnan(v))]

    def at(value: Any) -> str:
        rows = np.flatnonzero(
            labels.map(lambda v: type(v) is type(value) and v == value).to_numpy(dtype=bool)
        )
        return locations(labels.index, rows, source)

    kinds: dict[str, list[Any]] = {}
    for v in uniq:
        kinds.setdefault(_kind(v), []).append(v)
    hideable = set(kinds) == {"boolean"} or ("number" in kinds and "boolean" not in kinds)
    if labels.dtype == object and hideable:
        # True == 1 hashes alike, so the distinct values can hide a boolean
        # among numbers, or a number among booleans.
        is_bool = labels.map(lambda v: isinstance(v, bool | np.bool_)).to_numpy(dtype=bool)
        if is_bool.any() and not is_bool.all():
            v = labels.iloc[int(np.flatnonzero(is_bool)[0])]
            kinds.setdefault("boolean", []).append(v)
            other = labels.iloc[int(np.flatnonzero(~is_bool)[0])]
            kinds.setdefault(_kind(other), []).append(other)
    if "boolean" in kinds and len(kinds) > 1:
        v = kinds["boolean"][0]
        msg = f"Label {py(v)!r}{where} at {at(v)} is a boolean among {' and '.join(k for k in kinds if k != 'boolean')} labels; a boolean would silently merge with 1/0. Write it as a number or a string."
        raise DataError(msg)
    if "string" in kinds and "number" in kinds:
        odd = min(("string", "number"), key=lambda k: len(kinds[k]))
        v = kinds[odd][0]
        msg = f"Labels mix strings and numbers{where}: {odd} label {py(v)!r} at {at(v)} among {'numbers' if odd == 'string' else 'strings'} {examples(kinds['number' if odd == 'string' else 'string'])}. Fix that label, or convert the {column!r} column to one type."
        raise DataError(msg)
    check_text_values(
        kinds.get("string", []),
        noun="Label",
        where=where,
        at=at,
        fix="Pass strip_labels=True (CLI: --strip-labels) to strip surrounding whitespace, or fix the spelling.",
    )
    sc = given_scale(scale, ordered)
    if sc is None:
        sc = Scale.of_categorical(labels.dtype, ordered=ordered)
    if sc is None:
        check_numeric_text(kinds.get("string", []), where=where, at=at, column=column)
        sc = Scale.infer(labels, ordered=ordered)
    codes = sc.encode(labels)
    off = np.flatnonzero(codes < 0)
    if off.size:
        msg = f"{off.size} labels{where} are not on the scale {examples(list(sc.labels), 10)}: {examples(pd.unique(labels.iloc[off]))} at {locations(labels.index, off, source)}. Fix the labels or pass a scale that includes them: scale=[...] (CLI: --labels)."
        raise DataError(msg)
    return sc, codes
