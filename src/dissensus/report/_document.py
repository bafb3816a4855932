"""A small document model: what a report says, apart from how it is rendered.

A :class:`Document` is a title over blocks. A block is a :class:`Section`
(a heading over blocks; nested sections take the next level), a
:class:`Paragraph` (plain, ``legend``, ``note`` or ``warning``),
:class:`Bullets`, a :class:`Table` of :class:`Cell`, a :class:`Figure`
(inline SVG), :class:`Details` (a collapsed appendix; a heading in Markdown)
or a :class:`Group` (blocks side by side). Containers take their blocks as
arguments and drop None, so optional parts read inline. Text is a string, a
:class:`Span` (bold, code, a legend swatch) or a sequence of both. Every
string is plain text, escaped by the renderer; numbers enter already
formatted (``format_number``, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from dissensus.report._format import MISSING, format_count, format_number, is_missing


@dataclass(frozen=True)
class Span:
    """Inline text: ``strong`` (bold), ``code``, ``swatch`` or ``shaded`` (a legend's key)."""

    text: str
    style: Literal["strong", "code", "swatch", "shaded"] = "strong"


#: Running text: a string, a span, or a sequence of both.
Text = str | Span | Sequence[str | Span]


def _init(obj: object, **values: Any) -> None:
    """Set a frozen dataclass's fields; ``blocks`` drops None entries (optional parts read inline)."""
    if "blocks" in values:
        values["blocks"] = tuple(b for b in values["blocks"] if b is not None)
    for name, value in values.items():
        object.__setattr__(obj, name, value)


@dataclass(frozen=True, init=False)
class Paragraph:
    """A paragraph of strings and spans; ``style`` ``text``, ``legend``, ``note`` or ``warning``."""

    parts: tuple[str | Span, ...]
    style: Literal["text", "legend", "note", "warning"] = "text"
    id: str = ""

    def __init__(
        self,
        *parts: str | Span,
        style: Literal["text", "legend", "note", "warning"] = "text",
        id: str = "",
    ) -> None:
        _init(self, parts=parts, style=style, id=id)


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
    """A table: header, rows of cells or strings (the first cell heads its row) and options.

    ``align`` has one letter per column (``l`` text, ``r`` numbers, ``c``
    symbols; default ``l`` then ``r``); ``flagged_rows`` are shaded;
    ``omitted`` counts rows left out to keep the page readable (said below it).
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
        return [[c if isinstance(c, Cell) else Cell(c) for c in row] for row in self.rows]

    @classmethod
    def from_frame(
        cls, frame: pd.DataFrame, *, digits: int = 3, caption: str = "", id: str = ""
    ) -> Table:
        """A DataFrame's columns: floats with ``digits`` decimals, integers as counts.

        Examples
        --------
        >>> t = Table.from_frame(pd.DataFrame({"model": ["A"], "mean": [0.25], "n": [1200]}))
        >>> t.header, t.rows, t.alignment()
        (['model', 'mean', 'n'], [['A', '0.250', '1,200']], 'lrr')
        """
        types = pd.api.types
        numeric = [types.is_numeric_dtype(t) and not types.is_bool_dtype(t) for t in frame.dtypes]
        rows = [
            [_value(v, digits) for v in rec] for rec in frame.itertuples(index=False, name=None)
        ]
        align = "".join("r" if n else "l" for n in numeric)
        return cls([str(c) for c in frame.columns], rows, align=align, caption=caption, id=id)


def _value(v: object, digits: int) -> str:
    if is_missing(v):
        return MISSING
    if isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_):
        return format_count(v)
    return format_number(v, digits=digits) if isinstance(v, float | np.floating) else str(v)


@dataclass(frozen=True)
class Figure:
    """A figure: SVG markup (:func:`~dissensus.report.render_figure`), caption and alt text."""

    svg: str
    caption: str
    alt: str
    id: str


@dataclass(frozen=True, init=False)
class Section:
    """A heading over blocks (None entries are dropped).

    ``collapsed``: in HTML the heading is a summary line that opens the section
    (one click away; open in print), followed by ``gist``, a short line saying what
    is inside. Markdown shows it like any section.
    """

    title: str
    blocks: tuple[Block, ...]
    id: str = ""
    collapsed: bool = False
    gist: str = ""

    def __init__(
        self, title: str, *blocks: Block | None, id: str = "", collapsed: bool = False,
        gist: str = "",
    ) -> None:  # fmt: skip
        _init(self, title=title, blocks=blocks, id=id, collapsed=collapsed, gist=gist)

    def folded(self, gist: str = "") -> Section:
        """Return the section collapsed behind its heading and ``gist`` (kept if empty)."""
        return Section(self.title, *self.blocks, id=self.id, collapsed=True, gist=gist or self.gist)


@dataclass(frozen=True, init=False)
class Details:
    """A collapsible appendix: a summary line over blocks (None entries are dropped)."""

    summary: Text
    blocks: tuple[Block, ...]
    id: str = ""
    open: bool = False

    def __init__(
        self, summary: Text, *blocks: Block | None, id: str = "", open: bool = False
    ) -> None:
        _init(self, summary=summary, blocks=blocks, id=id, open=open)


@dataclass(frozen=True, init=False)
class Group:
    """Blocks side by side: ``pair`` (one narrow, one wide) or ``grid`` (equal columns)."""

    blocks: tuple[Block, ...]
    layout: Literal["pair", "grid"] = "grid"

    def __init__(self, *blocks: Block | None, layout: Literal["pair", "grid"] = "grid") -> None:
        _init(self, blocks=blocks, layout=layout)


#: Anything a document or section holds.
Block = Section | Paragraph | Bullets | Table | Figure | Details | Group


@dataclass(frozen=True, init=False)
class Document:
    """A page: a title, a subtitle line (what was compared), blocks and a footer."""

    title: str
    blocks: tuple[Block, ...]
    subtitle: str = ""
    footer: str = ""

    def __init__(
        self, title: str, *blocks: Block | None, subtitle: str = "", footer: str = ""
    ) -> None:
        _init(self, title=title, blocks=blocks, subtitle=subtitle, footer=footer)
