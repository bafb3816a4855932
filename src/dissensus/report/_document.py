"""A small document model: what a report says, apart from how it is rendered.

A :class:`Document` is a title and a list of blocks. A block is a
:class:`Section` (a heading over more blocks), a :class:`Paragraph`
(plain, a legend, a note or a warning), :class:`Bullets`, a
:class:`Table` of :class:`Cell`, a :class:`Figure` (inline SVG),
:class:`Details` (a collapsed appendix) or a :class:`Group` (blocks laid
out side by side). Text is a string, a :class:`Span` (bold, code, a
swatch) or a sequence of both. Every string is plain text: the renderers
(:func:`~dissensus.report.to_html`, :func:`~dissensus.report.to_markdown`)
escape it. Numbers are formatted before they enter the model, by
:mod:`dissensus.report` 's formatter (``format_number``, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from dissensus.report._format import MISSING, format_count, format_number, is_missing

__all__ = [
    "Block",
    "Bullets",
    "Cell",
    "Details",
    "Document",
    "Figure",
    "Group",
    "Paragraph",
    "Section",
    "Span",
    "Table",
    "Text",
]


@dataclass(frozen=True)
class Span:
    """Inline text with a style: ``strong`` (bold), ``code``, ``swatch`` or ``shaded`` (legend keys)."""

    text: str
    style: Literal["strong", "code", "swatch", "shaded"] = "strong"


#: Running text: a string, a span, or a sequence of both.
Text = str | Span | Sequence[str | Span]


@dataclass(frozen=True)
class Paragraph:
    """A paragraph; ``style`` is ``text``, ``legend`` (explains the next block), ``note`` or ``warning``."""

    text: Text
    style: Literal["text", "legend", "note", "warning"] = "text"
    id: str = ""


@dataclass(frozen=True)
class Bullets:
    """An unordered list, one :data:`Text` per item."""

    items: Sequence[Text]


@dataclass(frozen=True)
class Cell:
    """A table cell: ``best`` is shown bold with ★, ``flagged`` highlighted with ⇄."""

    text: str
    best: bool = False
    flagged: bool = False


@dataclass(frozen=True)
class Table:
    """A table: a header, rows of cells (or strings), and how to show them.

    Attributes
    ----------
    header : sequence of str
    rows : sequence of sequences of Cell or str
        The first cell of a row is its header.
    align : str
        One letter per column: ``l`` text, ``r`` numbers, ``c`` short
        symbols; default ``l`` then ``r`` for every other column.
    caption, id : str
    flagged_rows : sequence of bool
        Rows to shade (e.g. an interval that excludes zero).
    omitted : int
        Rows left out to keep the page readable; the renderers say so.
    """

    header: Sequence[str]
    rows: Sequence[Sequence[Cell | str]]
    align: str = ""
    caption: str = ""
    id: str = ""
    flagged_rows: Sequence[bool] = field(default_factory=tuple)
    omitted: int = 0

    def alignment(self) -> str:
        """The column alignment, one letter per column."""
        return self.align or "l" + "r" * (len(self.header) - 1)

    def cells(self) -> list[list[Cell]]:
        """The rows with every string turned into a plain :class:`Cell`."""
        return [[c if isinstance(c, Cell) else Cell(str(c)) for c in row] for row in self.rows]

    @classmethod
    def from_frame(
        cls, frame: pd.DataFrame, *, digits: int = 3, caption: str = "", id: str = ""
    ) -> Table:
        """A table of a DataFrame's columns: floats with ``digits`` decimals, integers as counts.

        Examples
        --------
        >>> import pandas as pd
        >>> t = Table.from_frame(pd.DataFrame({"model": ["A"], "mean": [0.25], "n": [1200]}))
        >>> t.header, t.rows, t.alignment()
        (['model', 'mean', 'n'], [['A', '0.250', '1,200']], 'lrr')
        """
        types = pd.api.types
        numeric = [types.is_numeric_dtype(t) and not types.is_bool_dtype(t) for t in frame.dtypes]
        rows = [
            [_value(v, digits) for v in record]
            for record in frame.itertuples(index=False, name=None)
        ]
        align = "".join("r" if n else "l" for n in numeric)
        header = [str(c) for c in frame.columns]
        return cls(header, rows, align=align, caption=caption, id=id)


def _value(v: object, digits: int) -> str:
    if is_missing(v):
        return MISSING
    if isinstance(v, bool | np.bool_ | str):
        return str(v)
    if isinstance(v, int | np.integer):
        return format_count(v)
    if isinstance(v, float | np.floating):
        return format_number(v, digits=digits)
    return str(v)


@dataclass(frozen=True)
class Figure:
    """A figure: SVG markup (:func:`~dissensus.report.render_figure`), caption and alt text."""

    svg: str
    caption: str
    alt: str
    id: str


@dataclass(frozen=True)
class Details:
    """A collapsible appendix: a summary line over blocks (a heading in Markdown)."""

    summary: Text
    blocks: Sequence[Block]
    id: str = ""
    open: bool = False


@dataclass(frozen=True)
class Group:
    """Blocks side by side: ``pair`` (one narrow, one wide) or ``grid`` (equal columns)."""

    blocks: Sequence[Block]
    layout: Literal["pair", "grid"] = "grid"


@dataclass(frozen=True)
class Section:
    """A heading over blocks; nested sections take the next heading level."""

    title: str
    blocks: Sequence[Block]
    id: str = ""


#: Anything a document or section holds.
Block = Section | Paragraph | Bullets | Table | Figure | Details | Group


@dataclass(frozen=True)
class Document:
    """A whole page: a title, a subtitle line (e.g. what was compared), blocks and a footer."""

    title: str
    blocks: Sequence[Block]
    subtitle: str = ""
    footer: str = ""
