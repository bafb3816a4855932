"""Dataset: annotations plus an item table (text and features), and user data in that shape."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import examples
from dissensus.data import Annotations, read_annotations

__all__ = ["Dataset", "load_frame"]


@dataclass(frozen=True, eq=False)
class Dataset:
    """Annotations of items that have a text (and perhaps other item-level features).

    Attributes
    ----------
    annotations : Annotations
        Who gave which label to which item.
    items : DataFrame
        One row per item, indexed by item id in the order of
        ``annotations.items``; column ``text`` holds what a model reads.
    name : str
        Short name (used in report titles).
    categorical : tuple of str
        Item columns a featuriser should one-hot encode (e.g. ``"decade"``).
    description : str
        One sentence on where the data come from.

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 1, 2], "annotator": ["a", "b", "a"],
    ...                    "label": [1, 2, 2], "text": ["ok", "ok", "bad"]})
    >>> ds = Dataset.from_frame(df, scale=[1, 2])
    >>> ds.items["text"].tolist(), ds.annotations.counts().values.tolist()
    (['ok', 'bad'], [[1, 1], [0, 1]])
    """

    annotations: Annotations
    items: pd.DataFrame
    name: str = "data"
    categorical: tuple[str, ...] = ()
    description: str = ""

    def __post_init__(self) -> None:
        if "text" not in self.items.columns:
            msg = f"The item table of dataset {self.name!r} has no 'text' column (columns: {examples(list(self.items.columns))})."
            raise DataError(msg)
        if not self.items.index.equals(self.annotations.items):
            msg = f"The item table of dataset {self.name!r} must be indexed by the annotated items, in their order."
            raise DataError(msg)

    def __repr__(self) -> str:
        return f"<Dataset {self.name!r}: {self.annotations!r}, item columns {list(self.items.columns)}>"

    @classmethod
    def from_annotations(
        cls,
        annotations: Annotations,
        texts: pd.Series | pd.DataFrame | None = None,
        *,
        text: str = "text",
        categorical: Sequence[str] = (),
        name: str = "data",
        description: str = "",
    ) -> Dataset:
        """Annotations plus item texts.

        ``texts``: a Series of texts or a DataFrame with a ``text`` column
        (and the ``categorical`` ones), indexed by item id; every annotated
        item needs a row (extra rows are ignored). Without ``texts``, the
        item-level columns kept with the annotations (``meta=[text, ...]``)
        are used.

        Examples
        --------
        >>> ann = Annotations.from_frame(pd.DataFrame(
        ...     {"item": ["a", "a", "b"], "annotator": [1, 2, 1], "label": [1, 2, 2]}))
        >>> texts = pd.Series({"b": "awful", "a": "good", "c": "unused"})
        >>> Dataset.from_annotations(ann, texts).items["text"].tolist()
        ['good', 'awful']
        """
        meta = annotations.meta
        if texts is not None:
            table = texts.to_frame(text) if isinstance(texts, pd.Series) else texts
            absent = annotations.items[~annotations.items.isin(table.index)]
            if absent.size:
                msg = f"`texts` has no row for {absent.size} annotated items, e.g. {examples(list(absent))}; index the texts by item id."
                raise DataError(msg)
            meta = table.reindex(annotations.items)
        need = [text, *categorical]
        have = [] if meta is None else list(meta.columns)
        missing = [c for c in need if c not in have]
        if missing or meta is None:
            msg = (
                f"No item-level column {examples(missing)} in the annotations (have: "
                f"{examples(have) or 'none'}); keep the text when loading, e.g. "
                f"read_annotations(path, meta=[{text!r}]), or name it with text=..."
            )
            raise DataError(msg)
        texts = meta[text]
        if texts.isna().any():
            bad = meta.index[texts.isna().to_numpy()]
            msg = f"{bad.size} items have no text in column {text!r}, e.g. {examples(list(bad))}; fill them (an empty string is a text) or drop those items."
            raise DataError(msg)
        items = meta[list(dict.fromkeys(need))].copy()
        items["text"] = texts.astype(str)  # the column a featuriser reads, whatever its source name
        return cls(annotations, items, name, tuple(categorical), description)

    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        *,
        text: str = "text",
        categorical: Sequence[str] = (),
        name: str = "data",
        **options: Any,
    ) -> Dataset:
        """A long annotation table (one row per annotation) with an item text column.

        The text (and each ``categorical`` column) must be constant within an
        item. Other options (``item``, ``annotator``, ``label``, ``scale``,
        ``dropna``, ...) go to :meth:`Annotations.from_frame`.
        """
        missing = [
            c for c in (text, *categorical) if isinstance(df, pd.DataFrame) and c not in df.columns
        ]
        if missing:
            msg = f"No item text column {examples(missing)} (columns: {examples(list(df.columns), 10)}); name it with text=... (and categorical=[...] for item features)."
            raise DataError(msg)
        ann = Annotations.from_frame(df, meta=[text, *categorical], **options)
        return cls.from_annotations(ann, text=text, categorical=categorical, name=name)


def load_frame(
    path: str | os.PathLike[str],
    *,
    text: str = "text",
    categorical: Sequence[str] = (),
    name: str | None = None,
    **options: Any,
) -> Dataset:
    """Read a long annotation file with an item text column (CSV, TSV, Parquet, JSONL).

    Options (``item``, ``annotator``, ``label``, ``scale``, ``ordered``,
    ``format``, ...) go to :func:`dissensus.read_annotations`.
    """
    meta = [text, *categorical, *options.pop("meta", ())]
    ann = read_annotations(path, meta=list(dict.fromkeys(meta)), **options)
    return Dataset.from_annotations(
        ann,
        text=text,
        categorical=categorical,
        name=name or os.path.basename(os.fspath(path)),
    )
