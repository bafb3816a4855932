r"""Set-valued annotations: each annotator picks a *set* of labels per item.

Multi-label tasks (LeWiDi 2025 VariErrNLI, where an annotator may accept both
"entailment" and "neutral"; multi-label emotion data) give one set of labels
per (item, annotator), stored as an ``(M, L)`` boolean indicator matrix ``z``
over the label universe (a :class:`Scale` of L labels, in the order given),
next to the item / annotator codes of :class:`Annotations`. The empty set is an
annotation ("none applies"), distinct from a missing one; a label outside the
universe, or repeated within one set (a broken export), is refused, naming the
item, annotator and row.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import check_option, check_text_values, examples
from dissensus.data._annotations import (
    DUPLICATES,
    Annotations,
    Duplicates,
    ItemAnnotatorCodes,
    checked_frame,
)
from dissensus.data._counts import LabelCounts
from dissensus.data._scale import Label, Scale, _normalise_label, text_label
from dissensus.data._tables import in_source, locations, py

#: Cell types read as a set of labels.
_COLLECTIONS = (list, tuple, set, frozenset, np.ndarray)


def format_set(labels: Sequence[Label]) -> str:
    """The name of a set: its labels as a JSON list (no separator can clash with a label).

    Examples
    --------
    >>> format_set(("entailment", "neutral")), format_set(())
    ('["entailment", "neutral"]', '[]')
    """
    return json.dumps([py(v) for v in labels], ensure_ascii=False)


#: The key of a cell that nests a collection (refused).
_NESTED = object()


def _hashable(value: Any) -> Any:
    """A cell as a hashable key: collections as tuples."""
    if not isinstance(value, _COLLECTIONS):
        return value
    key = tuple(value)
    try:
        hash(key)
    except TypeError:
        return _NESTED
    return key


def _parse_text(text: str, label_sep: str | None) -> list[Any]:
    """A text cell: labels separated by ``label_sep``, or a JSON / Python list literal."""
    stripped = text.strip()
    if label_sep is not None:
        # Parts are not stripped: " b" in "a, b" is checked (and warned about) as any label is.
        return [] if not stripped else stripped.split(label_sep)
    if stripped.startswith("["):
        try:
            parsed = json.loads(stripped)
        except (ValueError, RecursionError):  # RecursionError: nested too deeply
            try:
                parsed = ast.literal_eval(stripped)
            except (ValueError, SyntaxError, RecursionError, MemoryError):
                parsed = None
        if isinstance(parsed, list | tuple):
            return list(parsed)
    msg = f'cannot read {text!r} as a set of labels; write sets as JSON lists (["a", "b"], [] for the empty set) or pass label_sep="|" (or the separator used)'
    raise ValueError(msg)


def _parse_cell(value: Any, label_sep: str | None) -> tuple[Any, ...]:
    """The labels of one cell as written, in order (repeats kept for the caller to refuse)."""
    if isinstance(value, str):
        raw = _parse_text(value, label_sep)
    elif isinstance(value, _COLLECTIONS):
        raw = list(value)
    else:
        msg = f"{value!r} ({type(value).__name__}) is not a set of labels; give a list, tuple or set per annotation, or text with label_sep="
        raise ValueError(msg)
    out = []
    for v in raw:
        if isinstance(v, (*_COLLECTIONS, dict)):
            msg = f"{value!r} nests a collection; a set holds labels (numbers or strings)"
            raise ValueError(msg)
        if isinstance(v, str) and not v.strip():
            sep = f" (a doubled or trailing {label_sep!r}?)" if label_sep is not None else ""
            msg = f"{value!r} holds an empty label{sep}, which would count as a label of its own; remove it"
            raise ValueError(msg)
        out.append(v)
    return tuple(out)


def _as_label(value: Any) -> Label:
    """A label as written: text that reads as a number is that number ("1" is 1), other text kept as is."""
    if not isinstance(value, str):
        return _normalise_label(value)
    number = text_label(value)
    return value if isinstance(number, str) else number


def _check_labels(
    raw: list[tuple[Any, ...]],
    codes: npt.NDArray[np.intp],
    label: str,
    index: pd.Index,
    source: str | None,
) -> None:
    """The single-label text checks on the labels of the sets, as written.

    Spelling variants (``"a "`` vs ``"a"``, NFC vs NFD) warn through
    :func:`~dissensus._validation.check_text_values`; a number written both
    as a number and as text (``1`` and ``"1"``) is refused, since both would
    silently become one label.
    """
    where = in_source(source)
    sizes = np.fromiter(map(len, raw), dtype=np.intp, count=len(raw))
    owner = np.repeat(np.arange(len(raw), dtype=np.intp), sizes)
    flat = pd.Series([v for cell in raw for v in cell], dtype=object)

    def at(value: Any) -> str:
        mine = flat.map(lambda v: type(v) is type(value) and v == value).to_numpy(dtype=bool)
        rows = np.flatnonzero(np.isin(codes, owner[mine]))
        return locations(index, rows, source)

    is_text = flat.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
    texts = pd.unique(flat[is_text])
    check_text_values(
        texts,
        noun="Label",
        where=where,
        at=at,
        fix="Fix the spelling; with label_sep, include the spaces around the separator in it (e.g. label_sep=', ').",
    )
    read = {_as_label(v): v for v in texts}
    numbers = [v for v in pd.unique(flat[~is_text]) if not _is_bool(v)]
    clash = [v for v in numbers if _normalise_label(v) in read]
    if clash:
        n = clash[0]
        s = read[_normalise_label(n)]
        msg = f"Label column {label!r}{where} holds {py(n)!r} as a number at {at(n)} and {s!r} as text at {at(s)}; both would silently become one label. Write the labels of the column one way (all numbers or all text)."
        raise DataError(msg)


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool | np.bool_)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | np.number) and not _is_bool(v)


def _refuse_booleans_among_numbers(
    column: pd.Series, label: str, index: pd.Index, source: str | None
) -> None:
    """Refuse sets holding booleans where other sets (or the same) hold numbers.

    ``True == 1`` and hashes alike, so ``[True, 2]`` would silently count True
    as label 1 (the single-label readers refuse the same mix).
    """

    def holds(v: Any, test: Any) -> bool:
        return isinstance(v, _COLLECTIONS) and any(test(x) for x in v)

    booleans = column.map(lambda v: holds(v, _is_bool)).to_numpy(dtype=bool)
    if not booleans.any():
        return
    numbers = column.map(lambda v: holds(v, _is_number)).to_numpy(dtype=bool)
    if not numbers.any():
        return
    b, n = np.flatnonzero(booleans), np.flatnonzero(numbers)
    both = np.flatnonzero(booleans & numbers)
    shown = (
        f"{py(column.iloc[int(both[0])])!r} at {locations(index, both, source)}"
        if both.size
        else f"{py(column.iloc[int(b[0])])!r} at {locations(index, b, source)} and "
        f"{py(column.iloc[int(n[0])])!r} at {locations(index, n, source)}"
    )
    msg = (
        f"Label column {label!r}{in_source(source)} mixes booleans and numbers: {shown}; True "
        "would silently merge with label 1 (False with 0). Write the booleans as numbers or "
        "as strings."
    )
    raise DataError(msg)


def _universe(cells: list[tuple[Label, ...]], scale: Scale | Sequence[Any] | None) -> Scale:
    """The label universe: the given one, or the distinct labels present (sorted, nominal)."""
    if isinstance(scale, Scale):
        return scale
    if scale is not None:
        return Scale.nominal(scale)
    present = [v for cell in cells for v in cell]
    if not present:
        msg = "Cannot infer the label universe: every set is empty; give it with scale=[...]."
        raise DataError(msg)
    return Scale.infer(present, ordered=False)


@dataclass(frozen=True, eq=False, kw_only=True)
class SetAnnotations(ItemAnnotatorCodes):
    r"""Set-valued annotations: one set of labels per (item, annotator).

    Build them with :meth:`from_frame` (a column of sets), :meth:`from_indicators`
    (one 0/1 column per label, e.g. GoEmotions) or :func:`~dissensus.read_lewidi`.

    Attributes
    ----------
    indicators : ndarray of bool, shape (M, L)
        ``indicators[m, l]``: annotation ``m`` includes ``scale.labels[l]``.
        A row of zeros is the empty set.
    scale : Scale
        The label universe, in the order given (the column order of
        ``indicators`` and of every per-label output). Its ``ordered`` flag
        plays no part in set distances.
    item_codes, annotator_codes, items, annotators, meta
        As in :class:`Annotations`. :meth:`counts` refuses (no one label per
        annotation): take :meth:`set_counts` (each distinct set a category)
        or a per-label view (:meth:`marginals`, :meth:`binary_counts`, ...).

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": ["a", "b", "a", "b"],
    ...                    "label": [["E", "N"], ["N"], ["C"], []]})
    >>> sets = SetAnnotations.from_frame(df, scale=["C", "E", "N"])
    >>> sets.indicators.astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [1, 0, 0], [0, 0, 0]]
    >>> sets.marginals().tolist()  # share of each item's annotators who included C, E, N
    [[0.0, 0.5, 1.0], [0.5, 0.0, 0.0]]
    """

    indicators: npt.NDArray[np.bool_]

    # -- constructors -----------------------------------------------------
    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        *,
        item: str = "item",
        annotator: str | None = "annotator",
        label: str = "label",
        scale: Scale | Sequence[Any] | None = None,
        label_sep: str | None = None,
        meta: Sequence[str] = (),
        dropna: bool = False,
        duplicates: Duplicates = "error",
        source: str | None = None,
    ) -> SetAnnotations:
        """Read a long table whose ``label`` column holds one set of labels per row.

        Parameters
        ----------
        df : DataFrame or dask.dataframe.DataFrame
            One row per (item, annotator, set of labels).
        scale : Scale or sequence of labels, optional
            The label universe, in order (a sequence is nominal). Default:
            the labels present, sorted (give it when a label may be chosen
            by nobody).
        label_sep : str, optional
            Separator of sets written as text, e.g. ``"|"`` for
            ``"entailment|neutral"`` (``""`` is then the empty set). Without
            it, text cells are JSON or Python list literals (``'["a", "b"]'``,
            ``'[]'``); lists, tuples, sets and arrays are read as they are.
            Text that reads as a number is that number (``"1"`` is 1);
            other labels are kept as written, and checked as single labels
            are: spelling variants (``"a "`` vs ``"a"``, NFC vs NFD, or
            ``" b"`` from ``"a, b"``: pass ``label_sep=", "``) warn, and a
            number written both as a number and as text is refused.
        item, annotator, label, meta, dropna, duplicates, source
            See :mod:`dissensus.data`. A missing cell is a missing
            annotation, not the empty set.

        Raises
        ------
        DataError
            As :meth:`Annotations.from_frame`, and for cells that are not
            sets or labels off ``scale`` or repeated within a set.
        """
        check_option("SetAnnotations.from_frame", "duplicates", duplicates, DUPLICATES)
        roles = {"item": item, "annotator": annotator, "label": label}
        df = checked_frame(df, "SetAnnotations.from_frame", roles, source)
        where = in_source(source)
        column = df[label]
        missing = column.isna().to_numpy(dtype=bool)  # elementwise on objects: a list is not NA
        _refuse_booleans_among_numbers(column, label, df.index, source)
        # Parse each distinct cell once: lists are not hashable, their tuples are.
        keys = column.map(_hashable).where(~missing, None)
        codes, uniq = pd.factorize(keys, use_na_sentinel=True)
        cells: list[tuple[Any, ...]] = []
        for k, value in enumerate(uniq):
            try:
                cells.append(_parse_cell(value, label_sep))
            except (ValueError, DataError) as exc:
                rows = np.flatnonzero(codes == k)
                nested = f"{py(column.iloc[int(rows[0])])!r} nests a collection; a set holds labels (numbers or strings)"
                msg = f"Label column {label!r}{where} at {locations(df.index, rows, source)}: {nested if value is _NESTED else exc}."
                raise DataError(msg) from None
        _check_labels(cells, codes, label, df.index, source)
        labels = [tuple(map(_as_label, cell)) for cell in cells]
        universe = _universe(labels, scale)
        keyed: dict[str, Any] = {"item": item, "annotator": annotator, "meta": meta}
        keyed.update(dropna=dropna, duplicates=duplicates, source=source)
        try:
            Z = _indicators(labels, universe)
        except _BadSetError as exc:
            rows = np.flatnonzero(codes == exc.cell)
            first = int(rows[0])
            who = f" by annotator {py(df[annotator].iloc[first])!r}" if annotator else ""
            msg = f"Set {list(labels[exc.cell])!r} of item {py(df[item].iloc[first])!r}{who}{where} at {locations(df.index, rows, source)} (column {label!r}): {exc}."
            raise DataError(msg) from None
        return cls._build(df, Z, codes, universe, label, **keyed)

    @classmethod
    def from_indicators(
        cls,
        df: pd.DataFrame,
        *,
        labels: Sequence[str],
        item: str = "item",
        annotator: str | None = "annotator",
        meta: Sequence[str] = (),
        dropna: bool = False,
        duplicates: Duplicates = "error",
        source: str | None = None,
    ) -> SetAnnotations:
        """Read a long table with one 0/1 column per label (GoEmotions style).

        Parameters
        ----------
        df : DataFrame or dask.dataframe.DataFrame
            One row per (item, annotator); column ``labels[l]`` is 1 (or
            True) when the annotator chose that label.
        labels : sequence of str
            The indicator columns, in the order of the universe; the column
            names become the labels.
        item, annotator, meta, dropna, duplicates, source
            As in :meth:`from_frame`. A row whose indicators are all missing
            is a missing annotation; a row with some missing (or a value
            other than 0/1) is refused.

        Examples
        --------
        >>> df = pd.DataFrame({"item": ["t1", "t1"], "annotator": ["a", "b"],
        ...                    "joy": [1, 1], "anger": [0, 1]})
        >>> SetAnnotations.from_indicators(df, labels=["joy", "anger"]).marginals().tolist()
        [[1.0, 0.5]]
        """
        labels = list(labels)
        roles: dict[str, str | None] = {f"label {c!r}": c for c in labels}
        df = checked_frame(df, "SetAnnotations.from_indicators", roles, source)
        if not labels:
            msg = "SetAnnotations.from_indicators needs at least one label column (labels=[...])."
            raise DataError(msg)
        where = in_source(source)
        block = df[labels].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
        raw_missing = df[labels].isna().to_numpy()
        bad = ~raw_missing & ~np.isin(block, (0.0, 1.0))
        if bad.any():
            r, c = np.argwhere(bad)[0]
            rows = np.flatnonzero(bad.any(axis=1))
            msg = f"Indicator column {labels[c]!r}{where} holds {py(df[labels[c]].iloc[r])!r} at {locations(df.index, rows, source)}; indicator columns hold 0 or 1 (or True/False)."
            raise DataError(msg)
        partly = raw_missing.any(axis=1) & ~raw_missing.all(axis=1)
        if partly.any():
            msg = f"Some label columns are missing and others not{where} at {locations(df.index, np.flatnonzero(partly), source)}; an annotation is a whole set: fill the gaps with 0, or leave every label column empty for a missing annotation."
            raise DataError(msg)
        first, codes = _unique_rows(np.nan_to_num(block) == 1.0)
        Z = np.nan_to_num(block[first]) == 1.0
        codes[raw_missing.all(axis=1)] = -1
        keyed: dict[str, Any] = {"item": item, "annotator": annotator, "meta": meta}
        keyed.update(dropna=dropna, duplicates=duplicates, source=source)
        return cls._build(df, Z, codes, Scale.nominal(labels), "labels", **keyed)

    @classmethod
    def _build(
        cls,
        df: pd.DataFrame,
        Z: npt.NDArray[np.bool_],
        codes: npt.NDArray[np.intp],
        universe: Scale,
        label: str,
        **keyed: Any,
    ) -> SetAnnotations:
        """The rows through :meth:`Annotations.from_frame` (same rules), with set ``codes`` as labels.

        ``Z`` holds the U distinct sets, ``codes`` the row of ``Z`` of each row
        of ``df`` (-1: missing); the kept rows' codes select their sets.
        """
        item, annotator = keyed["item"], keyed["annotator"]
        frame = df[list(dict.fromkeys([item, *([annotator] if annotator else []), *keyed["meta"]]))]
        frame = frame.copy()
        frame[label] = np.where(codes < 0, np.nan, codes.astype(np.float64))
        scale = Scale.nominal(range(max(Z.shape[0], 1)))
        ann = Annotations.from_frame(frame, label=label, scale=scale, **keyed)
        return cls(
            item_codes=ann.item_codes,
            indicators=np.ascontiguousarray(Z[ann.label_codes], dtype=bool),
            annotator_codes=ann.annotator_codes,
            items=ann.items,
            annotators=ann.annotators,
            scale=universe,
            meta=ann.meta,
        )

    # -- shape (items and annotators: ItemAnnotatorCodes) ------------------
    @property
    def L(self) -> int:
        """Number of labels in the universe."""
        return self.scale.K

    def __repr__(self) -> str:
        return f"<SetAnnotations: {self.n_annotations} sets of {self.n_items} items, {self._who()}, labels {list(self.scale.labels)!r}>"

    # -- distinct sets ------------------------------------------------------
    def distinct_sets(self) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
        """``(sets, codes)``: the (S, L) distinct sets, in order of first appearance, and each row's set.

        ``codes[m]`` (int64, shape (M,)) is the row of ``sets`` of annotation ``m``.
        """
        first, codes = _unique_rows(self.indicators)
        return self.indicators[first], codes.astype(np.int64)

    def set_counts(self) -> LabelCounts:
        """How many annotators chose each distinct set: an (N, S) :class:`LabelCounts`.

        Each distinct set is one category, labelled by :func:`format_set`, in
        order of first appearance: the input of nominal agreement that counts
        only identical sets as agreeing.

        Examples
        --------
        >>> df = pd.DataFrame({"item": [1, 1, 1], "annotator": ["a", "b", "c"],
        ...                    "label": [["x", "y"], ["x"], ["y", "x"]]})
        >>> c = SetAnnotations.from_frame(df).set_counts()
        >>> c.scale.labels, c.values.tolist()
        (('["x", "y"]', '["x"]'), [[2, 1]])
        """
        sets, codes = self.distinct_sets()
        return self._tally(codes, Scale.nominal([format_set(self._labels_of(z)) for z in sets]))

    def _labels_of(self, row: npt.NDArray[np.bool_]) -> tuple[Label, ...]:
        return tuple(v for v, z in zip(self.scale.labels, row, strict=True) if z)

    # -- per-label views ------------------------------------------------------
    def label_counts(self) -> npt.NDArray[np.int64]:
        """(N, L) how many of each item's annotators included each label.

        Rows do not sum to the number of annotations (a set may hold several
        labels or none).
        """
        out = np.zeros((self.n_items, self.L), dtype=np.int64)
        np.add.at(out, self.item_codes, self.indicators.astype(np.int64))
        return out

    def marginals(self) -> npt.NDArray[np.float64]:
        r"""Per-label soft targets: the share of each item's annotators who included each label.

        .. math:: \hat p_{i\ell} = \frac{1}{n_i} \sum_{m:\, \mathrm{item}(m) = i} z_{m\ell},

        an (N, L) matrix of marginal probabilities (rows need not sum to 1).
        This is the ``"1"`` entry of each label in the LeWiDi 2025
        VariErrNLI ``soft_label``; :meth:`binary_targets` gives both entries.
        """
        n = self.annotations_per_item.to_numpy(dtype=np.float64)
        return np.asarray(self.label_counts() / n[:, None], dtype=np.float64)

    def binary_targets(self) -> npt.NDArray[np.float64]:
        r"""Per-label binary soft labels: (N, L, 2) with ``[:, l] = [1 - p, p]``.

        ``p`` is :meth:`marginals`: the layout of the LeWiDi 2025 VariErrNLI
        gold ``soft_label`` and the ``targets`` of
        :func:`dissensus.metrics.lewidi.multilabel_average_md`, labels in the
        order of :attr:`scale`; ``[:, l]`` is an (N, 2) distribution any
        registry metric scores against a binary prediction for label ``l``.
        """
        p = self.marginals()
        return np.stack([1.0 - p, p], axis=-1)

    def binary_counts(self, label: Any) -> LabelCounts:
        """Per-item counts of annotators who left out / included ``label``: (N, 2) counts.

        A :class:`LabelCounts` on the nominal scale ``[0, 1]`` (1 = included),
        so per-label agreement (e.g. :func:`~dissensus.agreement.fleiss_kappa`)
        and Beta posteriors (:mod:`dissensus.posterior`) work as for any
        binary task.
        """
        col = self.scale.index(label)
        included = self.label_counts()[:, col]
        n = self.annotations_per_item.to_numpy(dtype=np.int64)
        counts = np.column_stack([n - included, included])
        return LabelCounts(counts, self.items, Scale.nominal([0, 1]), self.meta)

    def rater_array(self) -> npt.NDArray[np.float64]:
        """(N, L, R) 0/1 array: annotator ``r`` included label ``l`` on item ``i``; NaN if unrated.

        Annotators follow :attr:`annotators` (predictions must use the same axis):
        the ``targets`` layout of :func:`dissensus.metrics.lewidi.multilabel_error_rate`.
        Raises :class:`DataError` without annotator ids, or when an annotator labelled an item twice.
        """
        cell, R = self._cells("rater_array", "set")
        out = np.full((self.n_items * R, self.L), np.nan)
        out[cell] = self.indicators
        return np.ascontiguousarray(out.reshape(self.n_items, R, self.L).transpose(0, 2, 1))

    def counts(self) -> LabelCounts:
        """Refused (TypeError naming the readings to choose from): no single label per annotation."""
        msg = "Set-valued annotations have no one-label-per-annotation count matrix. Choose: set_counts() (each distinct set is a category), binary_counts(label) (one label, included or not), marginals() (per-label shares); for agreement with partial credit use krippendorff_alpha(sets, distance='masi' or 'jaccard')."
        raise TypeError(msg)

    def to_frame(self) -> pd.DataFrame:
        """Long DataFrame: item, annotator (when known), label (a tuple in universe order)."""
        sets, codes = self.distinct_sets()
        named = np.empty(sets.shape[0], dtype=object)
        named[:] = [self._labels_of(row) for row in sets]
        return pd.DataFrame({**self._id_columns(), "label": named[codes]})


def _unique_rows(Z: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """First row of each distinct row of ``Z`` (in order of appearance) and each row's rank."""
    if Z.shape[0] == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    packed = np.packbits(Z, axis=1)  # (M, ceil(L/8)) bytes (L >= 1): cheap rows to compare
    key = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # first appearance, not byte order
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order].astype(np.intp), rank[inverse.ravel()].astype(np.intp)


class _BadSetError(ValueError):
    """A set with a label off the universe or repeated; ``cell`` is its distinct cell."""

    def __init__(self, cell: int, problem: str) -> None:
        super().__init__(problem)
        self.cell = cell


def _indicators(cells: list[tuple[Label, ...]], universe: Scale) -> npt.NDArray[np.bool_]:
    """The (U, L) indicators of the distinct cells; unknown and repeated labels refused."""
    sizes = np.fromiter(map(len, cells), dtype=np.intp, count=len(cells))
    owner = np.repeat(np.arange(len(cells), dtype=np.intp), sizes)
    flat = np.fromiter((v for cell in cells for v in cell), dtype=object, count=int(sizes.sum()))
    cols = universe.encode(pd.Series(flat, dtype=object)) if flat.size else np.zeros(0, np.int64)
    unknown = cols < 0
    pair = owner.astype(np.int64) * universe.K + cols
    repeated = ~unknown & pd.Series(pair).duplicated().to_numpy()
    bad = unknown | repeated
    if bad.any():
        k = int(owner[np.flatnonzero(bad)[0]])
        mine = owner == k
        if unknown[mine].any():
            odd = [py(v) for v in flat[mine & unknown]]
            problem = f"{examples(odd)} {'is' if len(odd) == 1 else 'are'} not in the label universe {examples(list(universe.labels), 10)}. Fix the labels or pass a scale that includes them: scale=[...] (CLI: --labels)"
        else:
            twice = py(flat[np.flatnonzero(mine & repeated)[0]])
            problem = f"label {twice!r} appears twice in one set; a set lists each label once (fix the export)"
        raise _BadSetError(k, problem)
    Z = np.zeros((len(cells), universe.K), dtype=bool)
    Z[owner, cols] = True
    return Z
