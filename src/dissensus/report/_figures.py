"""Figures for the document model: one matplotlib style, drawn to clean inline SVG.

No pyplot (no global figure state): a drawing function builds a
:class:`matplotlib.figure.Figure` (:func:`new_figure`, :func:`panels`) and
:func:`render_figure` saves it as SVG inside an ``rc_context`` that fixes
the style and the hash salt (same input, same bytes) and keeps text as
``<text>`` in DejaVu Sans with the system's sans-serif as fallback (a tenth
of the bytes of glyph paths; nothing is fetched), then cleans the SVG for
inlining in HTML: no XML prolog or DOCTYPE, no metadata, comments or
namespace URLs, ids prefixed per figure so that several figures share one
page, repeated styles as classes of the figure, coordinates to 0.1 pt, and
a ``<title>`` for screen readers. Series differ by
marker and dash as well as colour (Okabe–Ito, colour-blind safe), so they
survive greyscale printing. matplotlib is the ``report`` extra.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from dissensus._validation import require_extra
from dissensus.report._document import Figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure as MplFigure
    from matplotlib.typing import RcKeyType


#: Okabe–Ito colours (colour-blind safe), paired with markers and dashes for greyscale.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_DASHES = ("-", "--", ":", "-.")
#: Text and axes colour; light grid lines.
INK, GRID = "#222222", "#dddddd"

_RC: dict[RcKeyType, Any] = {
    "svg.hashsalt": "dissensus-report", "svg.fonttype": "none", "font.family": ["DejaVu Sans", "sans-serif"],
    "font.size": 8.0, "axes.titlesize": 9.0, "axes.labelsize": 8.0, "axes.edgecolor": INK,
    "axes.labelcolor": INK, "axes.spines.top": False, "axes.spines.right": False,
    "axes.axisbelow": True, "grid.color": GRID, "grid.linewidth": 0.6, "xtick.color": INK,
    "ytick.color": INK, "legend.frameon": False, "legend.fontsize": 8.0, "lines.linewidth": 1.4,
    "lines.markersize": 5.0, "savefig.transparent": False, "figure.facecolor": "white",
    "path.simplify": True,
}  # fmt: skip
_METADATA: dict[str, Any] = {"Creator": None, "Date": None, "Format": None, "Type": None}
_ID = re.compile(r'\bid="([^"]+)"')
_SPACED_ID = re.compile(r'\s\bid="([^"]+)"')
_REF = re.compile(r'(\bid="|url\(#|href="#)([^")]+)')
_USED = re.compile(r'(?:url\(#|href="#)([^")]+)')
_TAG = re.compile(r"<[^>]+>")
_LONG_DECIMAL = re.compile(r"(-?\d+\.\d)\d+")
_NO_ROTATION = re.compile(r' transform="rotate\(-?0 [-\d.]+ [-\d.]+\)"')


def _compact_tag(match: re.Match[str]) -> str:
    """One tag: coordinates to 0.1 pt (a fortieth of a millimetre), one-line paths, no null rotation."""
    return _NO_ROTATION.sub("", " ".join(_LONG_DECIMAL.sub(r"\1", match.group(0)).split()))


def _compact(svg: str) -> str:
    """Drop what the page never uses from matplotlib's SVG (about half the bytes).

    Ids nothing refers to, groups without attributes, digits past 0.1 pt and
    the indentation between tags.
    """
    used = set(_USED.findall(svg))
    svg = _SPACED_ID.sub(lambda m: m.group(0) if m.group(1) in used else "", svg)
    svg = re.sub(r">\s+<", "><", _TAG.sub(_compact_tag, svg))
    # a <g> without attributes only groups: drop it and its </g> (a stack pairs them)
    out, stack = [], []
    for piece in re.split(r"(<g>|<g/>|<g [^>]*[^/]>|</g>)", svg):
        if piece == "<g/>":
            continue
        if piece.startswith("<g") and piece.endswith(">"):
            stack.append(piece == "<g>")
            if piece == "<g>":
                continue
        elif piece == "</g>" and stack.pop():
            continue
        out.append(piece)
    return "".join(out)


def _style_classes(svg: str, fig_id: str) -> str:
    """Each style repeated in the figure becomes one class rule (matplotlib repeats them)."""
    styles = re.findall(r' style="([^"]*)"', svg)
    counts: dict[str, int] = {}
    for style in styles:
        counts[style] = counts.get(style, 0) + 1
    names = {st: f"{fig_id}-s{i}" for i, st in enumerate(st for st, n in counts.items() if n > 1)}
    if not names:
        return svg
    svg = re.sub(
        r' style="([^"]*)"',
        lambda m: f' class="{names[m.group(1)]}"' if m.group(1) in names else m.group(0),
        svg,
    )
    rules = "".join(f".{name}{{{style}}}" for style, name in names.items())
    open_end = svg.index(">") + 1
    return f"{svg[:open_end]}<style>{rules}</style>{svg[open_end:]}"


def require_figures(feature: str) -> None:
    """Raise :class:`~dissensus.MissingExtraError` (the ``report`` extra) unless matplotlib imports."""
    require_extra("report", ("matplotlib",), feature)


def plot_text(value: object) -> str:
    """User text for matplotlib: ``$`` would switch to mathtext."""
    return str(value).replace("$", r"\$")


def series_style(i: int) -> dict[str, Any]:
    """Colour, marker and dash of the i-th series; past eight series markers turn hollow."""
    cycle, k = divmod(i, len(COLOURS))
    return {
        "color": COLOURS[k],
        "marker": _MARKERS[k % len(_MARKERS)],
        "linestyle": _DASHES[(i + cycle) % len(_DASHES)],
        "markerfacecolor": COLOURS[k] if cycle % 2 == 0 else "white",
    }


def new_figure(width: float, height: float) -> MplFigure:
    """An empty figure of ``width`` × ``height`` inches with a constrained layout."""
    from matplotlib.figure import Figure as MplFigure  # noqa: PLC0415 - the report extra

    return MplFigure(figsize=(width, height), dpi=100, layout="constrained")


def panels(
    n: int, *, max_cols: int, size: tuple[float, float], pad: tuple[float, float] = (0.0, 0.0),
    **subplots: Any,
) -> tuple[MplFigure, list[Axes]]:  # fmt: skip
    """A figure with ``n`` panels of ``size`` inches, ``max_cols`` per row; extra axes hidden."""
    n_cols = min(n, max_cols)
    n_rows = -(-n // n_cols)
    fig = new_figure(size[0] * n_cols + pad[0], size[1] * n_rows + pad[1])
    axes = list(np.asarray(fig.subplots(n_rows, n_cols, squeeze=False, **subplots)).ravel())
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes


def top_legend(fig: MplFigure, ax: Axes, *, max_cols: int = 6) -> None:
    """One legend for the figure, above the panels, from the series of ``ax``."""
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=min(len(labels), max_cols))


def _svg(fig: MplFigure, fig_id: str, alt: str) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata=_METADATA)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<!--.*?-->|<metadata>.*?</metadata>", "", svg, flags=re.DOTALL)
    # matplotlib's global ``*{stroke-linejoin…}`` rule would leak into the page; report.css scopes it.
    svg = re.sub(r"<style[^>]*>.*?</style>", "", svg, flags=re.DOTALL)
    svg = re.sub(r"<defs>\s*</defs>", "", svg)
    svg = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", svg)
    svg = _compact(svg)
    ids = set(_ID.findall(svg))
    svg = _REF.sub(
        lambda m: f"{m.group(1)}{fig_id}-{m.group(2)}" if m.group(2) in ids else m.group(0), svg
    )
    svg = _style_classes(svg, fig_id)
    open_end = svg.index(">") + 1
    root = svg[:open_end]
    # Scale with the page, up to 1.25 times the drawn size (text stays proportionate).
    width = re.search(r'width="([\d.]+)pt"', root)
    limit = f' style="max-width: {1.25 * float(width.group(1)):.0f}pt"' if width else ""
    root = root.replace(
        "<svg ", f'<svg role="img" aria-labelledby="{fig_id}-title" class="figure-svg"{limit} ', 1
    )
    title = f'<title id="{fig_id}-title">{html.escape(alt)}</title>'
    return root + title + svg[open_end:].rstrip() + "\n"


def render_figure(
    draw: Callable[..., MplFigure], *args: Any, id: str, caption: str, alt: str
) -> Figure:
    """``draw(*args)`` in the house style, as a document :class:`Figure` with inline SVG.

    ``id`` prefixes every id inside the SVG (unique within the page); ``alt``
    is its ``<title>``; the SVG carries ``role="img"`` and scales with the page.
    """
    from matplotlib import rc_context  # noqa: PLC0415 - the report extra is optional

    with rc_context(_RC):
        svg = _svg(draw(*args), id, alt)
    return Figure(svg=svg, caption=caption, alt=alt, id=id)
