"""Input validation shared by every public function.

One module, one step: each public function turns its inputs into checked
``float64`` / ``int64`` arrays at the top, with the helpers below, and
nothing underneath validates again. Error messages follow one template:
name the argument, show the offending value or row, say the fix.
"""

from __future__ import annotations

import importlib
import math
import re
import warnings
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError, LabelSpellingWarning, MissingExtraError

#: Tolerance on row sums of probability matrices.
PROB_ATOL = 1e-6

SeedLike = int | np.random.Generator | None
#: Item ids that error messages name rows by.
Items = Sequence[Any] | pd.Index | None


def as_generator(seed: SeedLike) -> np.random.Generator:
    """Turn ``seed`` into a :class:`numpy.random.Generator`, once.

    ``None`` gives fresh OS entropy (explicitly asked for); an int gives a
    reproducible stream; a Generator is used as is. The global NumPy RNG is
    never touched.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, int | np.integer) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)
    msg = (
        f"The 'seed' parameter must be an int, a numpy.random.Generator or None. "
        f"Got {seed!r} instead."
    )
    raise TypeError(msg)


def check_option(func: str, name: str, value: Any, allowed: Collection[Any]) -> None:
    """Raise the standard parameter error when ``value`` is not in ``allowed``."""
    if value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        msg = f"The {name!r} parameter of {func} must be one of {choices}. Got {value!r} instead."
        raise ValueError(msg)


def check_probability_level(func: str, name: str, level: float) -> float:
    """Check a confidence / credible level in the open interval (0, 1)."""
    level = float(level)
    if not 0.0 < level < 1.0:
        msg = f"The {name!r} parameter of {func} must be in (0, 1), e.g. 0.95. Got {level!r}."
        raise ValueError(msg)
    return level


def check_resamples(func: str, n_resamples: int) -> int:
    """Check a number of resamples (bootstrap, permutation): a whole number of at least 1."""
    n = int(n_resamples)
    if n < 1:
        msg = f"The 'n_resamples' parameter of {func} must be at least 1. Got {n_resamples!r} instead."
        raise ValueError(msg)
    return n


def log_scale(func: str, base: float | None) -> float:
    """Divisor turning natural-log values into ``base`` units (1 for natural logs, None).

    ``func`` names the caller in the error for a base that is not a positive number other than 1.
    """
    if base is None:
        return 1.0
    b = float(base)
    if not (b > 0 and b != 1 and math.isfinite(b)):
        msg = (
            f"The 'base' parameter of {func} must be a positive number other than 1 "
            f"(e.g. 2 for bits) or None for natural logs. Got {base!r} instead."
        )
        raise ValueError(msg)
    return math.log(b)


def require_extra(extra: str, modules: Sequence[str], feature: str) -> None:
    """Raise :class:`~dissensus._exceptions.MissingExtraError` unless ``modules`` import.

    Called at the top of a feature that needs an optional extra, before any
    work or output, so that nothing is left half-done.

    Examples
    --------
    >>> require_extra("report", ["json"], "The HTML report")
    >>> require_extra("report", ["no_such_module_xyz"], "The HTML report")
    Traceback (most recent call last):
    ...
    dissensus._exceptions.MissingExtraError: The HTML report needs no_such_module_xyz (the 'report' extra), which is not installed: pip install 'dissensus[report]'
    """
    missing = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise MissingExtraError.for_feature(feature, missing, extra)


def examples(values: Iterable[Any], limit: int = 5) -> str:
    """Format the first ``limit`` values (of a list, array, Index, …) for an error message."""
    seq = list(values)
    vals = seq[:limit]
    more = len(seq) - len(vals)
    text = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in vals)
    return text + (f", … ({more} more)" if more > 0 else "")


def describe_row(i: int, items: Items = None) -> str:
    """``"row 3 (item 'a17')"``, or ``"row 3"`` without item ids."""
    return f"row {i}" if items is None else f"row {i} (item {examples([items[i]])})"


def as_array(x: npt.ArrayLike, name: str, dtype: type | None = None) -> npt.NDArray[Any]:
    """``np.asarray(x)``, with rows of different lengths refused by name (not numpy's words)."""
    try:
        return np.asarray(x) if dtype is None else np.asarray(x, dtype=dtype)
    except ValueError as exc:
        if "inhomogeneous" not in str(exc):
            raise
        rows: Any = x
        lengths = sorted({len(row) for row in rows if hasattr(row, "__len__")})
        msg = (
            f"`{name}` has rows of different lengths ({', '.join(map(str, lengths))}); an (N items, "
            "K categories) array needs the same K entries in every row (0 for an unused label)."
        )
        raise DataError(msg) from None


def _as_2d(x: npt.ArrayLike, name: str, dtype: type | None = None) -> npt.NDArray[Any]:
    arr = as_array(x, name, dtype)
    if arr.ndim == 1:
        msg = (
            f"`{name}` must be a 2-D (N items, K categories) array; got 1-D of length "
            f"{arr.shape[0]}. For a single item use `{name}[None, :]`."
        )
        raise DataError(msg)
    if arr.ndim != 2:
        msg = f"`{name}` must be a 2-D (N items, K categories) array; got shape {arr.shape}."
        raise DataError(msg)
    if arr.shape[1] < 1:
        msg = f"`{name}` has no categories (shape {arr.shape})."
        raise DataError(msg)
    return arr


def _as_float(arr: npt.NDArray[Any], name: str, what: str) -> npt.NDArray[np.float64]:
    """``arr`` as float64, or a DataError saying it must hold numbers (``what``)."""
    try:
        return arr.astype(np.float64, copy=False)
    except (TypeError, ValueError):
        msg = f"`{name}` must hold numbers ({what}); got dtype {arr.dtype}."
        raise DataError(msg) from None


def _refuse_cells(
    mask: npt.NDArray[np.bool_], arr: npt.NDArray[Any], name: str, items: Items, rule: str
) -> None:
    """Raise for the first cell flagged in ``mask``: "`name` row r (item i) column c is v; rule"."""
    if mask.any():
        r, c = np.argwhere(mask)[0]
        msg = f"`{name}` {describe_row(int(r), items)} column {int(c)} is {arr[r, c]}; {rule}"
        raise DataError(msg)


#: Largest count accepted: integers up to 2**53 are exact in float64 and their
#: row sums cannot overflow int64 for any realistic number of labels.
_MAX_COUNT = 2**53


def as_count_matrix(
    x: npt.ArrayLike, name: str = "counts", items: Items = None
) -> npt.NDArray[np.int64]:
    """Check an (N, K) matrix of label counts and return it as ``int64``.

    Raises :class:`DataError` for NaN, negative or non-integer entries,
    naming the first offending row (and item id when given).
    """
    arr = _as_2d(x, name)
    if arr.dtype == object or arr.dtype.kind in "USb":
        arr = _as_float(arr, name, "counts")
    too_big = (
        f"counts must be at most 2**53 = {_MAX_COUNT:,} (beyond it neither int64 sums nor "
        "float64 posteriors are exact)."
    )
    if arr.dtype.kind in "iu":
        if arr.dtype.kind == "i" and arr.size and arr.min() < 0:
            _refuse_cells(arr < 0, arr, name, items, "counts must be non-negative.")
        if arr.size and arr.max() > _MAX_COUNT:
            _refuse_cells(arr > _MAX_COUNT, arr, name, items, too_big)
        return arr.astype(np.int64, copy=False)
    arr = arr.astype(np.float64, copy=False)
    _refuse_cells(
        ~np.isfinite(arr), arr, name, items, "counts must be finite. Fill missing counts with 0."
    )
    _refuse_cells(arr < 0, arr, name, items, "counts must be non-negative.")
    _refuse_cells(arr > _MAX_COUNT, arr, name, items, too_big)
    whole = (
        "counts must be whole numbers. For soft labels (probabilities) use "
        "Predictions or pass them as targets to the metrics."
    )
    _refuse_cells(arr != np.round(arr), arr, name, items, whole)
    return arr.astype(np.int64)


def as_prob_matrix(
    x: npt.ArrayLike,
    name: str = "q",
    *,
    normalize: bool = False,
    items: Items = None,
    atol: float = PROB_ATOL,
) -> npt.NDArray[np.float64]:
    """Check an (N, K) matrix of probability rows and return it as ``float64``.

    Entries must be finite and non-negative; each row must sum to 1 within
    ``atol``, or, with ``normalize=True``, to a positive total (rows are
    then divided by their sums).
    """
    arr = _as_float(_as_2d(x, name), name, "probabilities")
    _refuse_cells(~np.isfinite(arr), arr, name, items, "probabilities must be finite numbers.")
    _refuse_cells(arr < 0, arr, name, items, "probabilities must be non-negative.")
    sums = arr.sum(axis=1)
    if normalize:
        zero = sums <= 0
        if zero.any():
            r = int(np.flatnonzero(zero)[0])
            msg = f"`{name}` {describe_row(r, items)} sums to 0 and cannot be normalised."
            raise DataError(msg)
        out: npt.NDArray[np.float64] = arr / sums[:, None]
        return out
    off = np.abs(sums - 1.0) > atol
    if off.any():
        r = int(np.flatnonzero(off)[0])
        msg = (
            f"`{name}` {describe_row(r, items)} sums to {sums[r]:.6g} "
            f"({int(off.sum())} of {arr.shape[0]} rows do not sum to 1 within {atol:g}); "
            "pass `normalize=True` to rescale rows."
        )
        raise DataError(msg)
    return arr


def as_alpha_matrix(x: npt.ArrayLike, name: str = "alpha") -> npt.NDArray[np.float64]:
    """Check an (N, K) matrix of Dirichlet parameters: finite and > 0."""
    arr = _as_float(_as_2d(x, name), name, "Dirichlet parameters")
    rule = "Dirichlet parameters must be finite and > 0 (add a prior, e.g. posterior.dirichlet(counts))."
    _refuse_cells(~(np.isfinite(arr) & (arr > 0)), arr, name, None, rule)
    return arr


def is_dask(data: object) -> bool:
    """Whether ``data`` is a Dask collection or distributed counts (by its type's module: no import)."""
    return type(data).__module__.startswith(("dask.", "dissensus.distributed"))


def refuse_dask(data: object, func: str, entry_point: str) -> None:
    """Raise a TypeError naming ``dissensus.distributed.<entry_point>`` when ``data`` is Dask."""
    if is_dask(data):
        msg = (
            f"{func} computes in memory and does not take a Dask collection; for Dask "
            f"collections use dissensus.distributed.{entry_point}."
        )
        raise TypeError(msg)


def computed(df: Any) -> Any:
    """A Dask collection computed into this process (one ``.compute()``); anything else as is.

    For the in-memory constructors given a Dask DataFrame: building an
    in-memory object is the explicit ask to collect the data. The computed
    frame keeps the Dask frame's index, so error messages name its rows.
    """
    if is_dask(df) and callable(getattr(df, "compute", None)):
        return df.compute()
    return df


# -- text values: labels and ids ------------------------------------------------------
#: Control characters (C0 and DEL): never part of a real label or id, often a broken export.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: Characters that print as nothing: zero-width space, non-joiner and joiner, word joiner,
#: byte-order mark, soft hyphen.
_ZERO_WIDTH = "[\u200b\u200c\u200d\u2060\ufeff\u00ad]"
#: Characters that print as a plain space: no-break spaces.
_SPACE_LIKE = "[\u00a0\u202f\u2007]"


def spelling_keys(texts: pd.Series, *, fold_case: bool = True) -> pd.Series:
    """What a reader sees of each text: NFC, invisible characters dropped, spaces collapsed, casefolded.

    Two texts with one key differ only by whitespace, letter case, invisible
    characters or Unicode normalisation (NFC vs NFD): almost surely one value
    spelled two ways. Vectorised (pandas string methods), for millions of ids.

    Examples
    --------
    >>> spelling_keys(pd.Series([" Pos\u200b ", "pos", "cafe\u0301", "caf\u00e9"])).tolist()
    ['pos', 'pos', 'café', 'café']
    """
    nfc = texts.str.normalize("NFC")
    visible = nfc.str.replace(_ZERO_WIDTH, "", regex=True).str.replace(_SPACE_LIKE, " ", regex=True)
    spaced = visible.str.split().str.join(" ")
    return spaced.str.casefold() if fold_case else spaced


#: The remedy for a defective id (ids are kept exactly as written: no option strips them).
ID_FIX = (
    "Ids are kept exactly as written; clean them in the file (or the frame) if they are one id."
)


def has_defect(texts: pd.Series) -> npt.NDArray[np.bool_]:
    """Which texts differ from their :func:`spelling_keys` by more than letter case, or hold a control character.

    A control character, an invisible character, surrounding or repeated
    whitespace, or decomposed (NFD) Unicode: what :func:`check_text_values`
    refuses or warns about. One vectorised regex pass, and NFC only for the
    non-ASCII texts, so that a million distinct ids cost little; the Dask
    engine collects only these (few) ids instead of every distinct id.
    """
    pattern = f"{_CONTROL.pattern}|{_ZERO_WIDTH}|{_SPACE_LIKE}|^\\s|\\s$|\\s\\s"
    found = np.array(texts.str.contains(pattern, regex=True, na=False), dtype=bool)
    wide = ~texts.str.isascii().fillna(True).to_numpy(dtype=bool)
    if wide.any():
        some = texts[wide]
        found[wide] |= (some.str.normalize("NFC") != some).fillna(False).to_numpy(dtype=bool)
    return np.asarray(found, dtype=bool)


def _defects(texts: pd.Series) -> pd.Series:
    """What is invisible in each defective text (see :func:`has_defect`)."""
    out = pd.Series("repeated whitespace", index=texts.index, dtype=object)
    out[texts.str.normalize("NFC") != texts] = "decomposed (NFD) Unicode"
    out[texts.str.strip() != texts] = "surrounding whitespace"
    invisible = texts.str.extract(f"({_ZERO_WIDTH}|{_SPACE_LIKE})", expand=False)
    found = invisible.notna()
    out[found] = invisible[found].map(lambda c: f"the invisible character U+{ord(c):04X}")
    return out


def check_text_values(
    values: Iterable[Any],
    *,
    noun: str,
    where: str,
    at: Callable[[Any], str],
    fix: str,
    fold_case: bool = True,
) -> None:
    """The one check of label and id text, for every reader and both engines.

    ``values`` are the distinct values of a column (non-strings are skipped).
    A control character is refused (a broken export); values that differ only
    by whitespace, letter case, invisible characters (zero-width space,
    byte-order mark, no-break space) or Unicode normalisation (NFC vs NFD)
    warn naming each variant, since they are kept as different values; else
    a value with surrounding whitespace, an invisible character or decomposed
    Unicode warns. ``noun`` names the values (``"Label"``, ``"Item id"``),
    ``where`` the source (``" in f.csv"``), ``at(value)`` its rows or lines,
    ``fix`` the remedy. ``fold_case=False`` (ids, where case may be meant)
    does not count letter case as a spelling variant.

    Raises
    ------
    DataError
        For a control character. Warns :class:`~dissensus.LabelSpellingWarning`.
    """
    ser = pd.Series(values if isinstance(values, pd.Index | pd.Series) else list(values))
    if pd.api.types.infer_dtype(ser, skipna=False) != "string":  # mixed: keep the strings
        ser = ser[ser.map(lambda v: isinstance(v, str))]
    texts = ser.reset_index(drop=True).astype("str")
    if texts.empty:
        return
    odd = has_defect(texts)
    control = texts[odd].str.extract(f"({_CONTROL.pattern})", expand=False).dropna()
    if len(control):
        v = texts[control.index[0]]
        msg = f"{noun} {v!r}{where} at {at(v)} contains the control character U+{ord(control.iloc[0]):04X}; control characters are not part of {noun.lower()}s (a broken export?). Clean the file."
        raise DataError(msg)
    if fold_case:  # labels: few distinct values, every one keyed
        keys = spelling_keys(texts)
    else:  # ids: only a defective id differs from its key
        keys = texts.astype(object)
        keys[odd] = spelling_keys(texts[odd]).astype(object)
    split = keys.duplicated(keep=False).to_numpy()
    if split.any():
        groups = texts[split].groupby(keys[split].to_numpy(), sort=False)
        shown = "; ".join(
            " vs ".join(repr(v) for v in group)
            + f" (at {'; '.join(at(v) for v in list(group)[:3])})"
            for _, group in list(groups)[:5]
        )
        case = " letter case," if fold_case else ""
        msg = f"{noun}s{where} differ only by whitespace,{case} invisible characters or Unicode normalisation (NFC vs NFD) and are kept apart as different values: {shown}. {fix}"
        warnings.warn(msg, LabelSpellingWarning, stacklevel=4)
        return
    if odd.any():
        defects = _defects(texts[odd])
        first = int(np.flatnonzero(odd)[0])
        v = texts.iloc[first]
        more = (
            f" ({int(odd.sum()) - 1} more: {examples(texts[odd].iloc[1:])})"
            if odd.sum() > 1
            else ""
        )
        msg = f"{noun} {v!r}{where} at {at(v)} has {defects.iloc[0]}, which does not show but makes it a different value{more}. {fix}"
        warnings.warn(msg, LabelSpellingWarning, stacklevel=4)


def _reads_as_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def check_numeric_text(
    values: Sequence[Any], *, where: str, at: Callable[[Any], str], column: str
) -> None:
    """Refuse text labels that are numbers but for a few: a stray value would make the scale text.

    A CSV column of 1 … 5 with one ``x``, an R ``NA`` or a ``True`` is read as
    text, and every label would become a text category (``"10" < "2"``, no
    numeric order). Called on the distinct labels when no scale is given.

    Examples
    --------
    >>> check_numeric_text(["1", "2", "x"], where="", at=lambda v: "line 4", column="label")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dissensus._exceptions.DataError: Labels of column 'label' are numbers except 'x' at line 4 (numbers: '1', '2'): ...
    """
    strings = [v for v in values if isinstance(v, str)]
    numbers = [v for v in strings if _reads_as_number(v)]
    if not numbers or len(numbers) == len(strings):
        return
    odd = [v for v in strings if not _reads_as_number(v)]
    shown = "; ".join(f"{v!r} at {at(v)}" for v in odd[:5])
    msg = f"Labels of column {column!r}{where} are numbers except {shown} (numbers: {examples(numbers)}): one stray text value would silently turn the whole numeric scale into text categories. Fix or drop those rows; if {odd[0]!r} means a missing label, pass na_values=[...] (CLI: --na-values {odd[0]}) with dropna=True (CLI: --dropna); or give every label with scale=[...] (CLI: --labels ...)."
    raise DataError(msg)
