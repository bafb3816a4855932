"""Annotation-count bins: group items by how many annotations they have.

Shared by the evaluation (its ``by_bin`` tables) and the simulation study
(decision accuracy per bin), so both cut the same way.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt

from dissensus._exceptions import DataError
from dissensus._validation import check_option, examples

BinsLike = Literal["auto"] | Sequence[int] | None

#: Readable left edges for ``bins="auto"``: 1, 2, 4, 6, 11, 21, 51, then 101,
#: 201, 501, 1001, ... (1-2-5 steps).
_LADDER: tuple[int, ...] = (1, 2, 4, 6, 11, 21, 51)
_LADDER += tuple(m * 10**e + 1 for e in range(2, 10) for m in (1, 2, 5))
_MAX_AUTO_BINS = 6


def _bin_label(low: int, high: int | None) -> str:
    if high is None:
        return f"{low}+"
    return str(low) if high == low else f"{low}–{high}"


def annotation_bins(
    n: npt.ArrayLike, bins: BinsLike = "auto"
) -> tuple[npt.NDArray[np.int64], list[str]]:
    """Group items by their number of annotations.

    Parameters
    ----------
    n : array_like of int, shape (N,)
        Annotations per item.
    bins : "auto", sequence of int, or None, default "auto"
        ``"auto"``: the first edge is ``min(n)``, the next ones are the
        values of the ladder 2, 4, 6, 11, 21, 51, 101, 201, 501, 1001, …
        above it and not above ``max(n)``. With at most six bins the last
        one is closed at the next ladder value minus one or at ``max(n)``,
        whichever is smaller (``"6–8"`` when no item has more than 8, so the
        label shows the real range); otherwise the sixth bin is open
        (``"101+"``). This gives the bins of Magnani (2025): 2–3, 4–5, 6–8 on
        ConvAbuse (2 to 8 annotations) and
        5, 6–10, 11–20, 21–50, 51–100, 101+ on product reviews (5 to
        thousands of ratings).
        A sequence: increasing left edges; bin ``j`` holds
        ``edges[j] <= n < edges[j + 1]`` and the last bin is open.
        ``None``: one bin, ``"all"``.

    Returns
    -------
    codes : ndarray of int64, shape (N,)
        Bin of each item.
    labels : list of str
        One label per bin (``"2–3"``, ``"5"``, ``"11+"``), in order. Bins may
        be empty.

    Raises
    ------
    ValueError
        Edges that are not increasing integers, or ``bins`` of another type.
    DataError
        Items with fewer annotations than the first edge.

    Examples
    --------
    >>> annotation_bins([2, 3, 5, 8])
    (array([0, 0, 1, 2]), ['2–3', '4–5', '6–8'])
    >>> annotation_bins([5, 7, 30, 5000])[1]
    ['5', '6–10', '11–20', '21–50', '51–100', '101+']
    >>> annotation_bins([1, 4, 12], [1, 4, 11])
    (array([0, 1, 2]), ['1–3', '4–10', '11+'])
    """
    counts = np.asarray(n, dtype=np.int64).ravel()
    if counts.size == 0:
        msg = "annotation_bins needs at least one item."
        raise DataError(msg)
    if bins is None:
        return np.zeros(counts.size, dtype=np.int64), ["all"]
    if isinstance(bins, str):
        check_option("annotation_bins", "bins", bins, ("auto",))
        lo, hi = int(counts.min()), int(counts.max())
        above = [e for e in _LADDER if e > lo]
        edges = [lo] + [e for e in above if e <= hi]
        if len(edges) > _MAX_AUTO_BINS:
            edges = edges[:_MAX_AUTO_BINS]
            last: int | None = None
        else:
            # close the last bin at the largest count seen: "6–7", not "6–10" when nobody has 8
            last = min(next(e for e in _LADDER if e > edges[-1]) - 1, hi)
        highs: list[int | None] = [*(e - 1 for e in edges[1:]), last]
    else:
        try:
            edges = [int(e) for e in bins]
        except (TypeError, ValueError):
            msg = f"The 'bins' parameter of annotation_bins must be 'auto', None or a list of increasing integers. Got {bins!r} instead."
            raise ValueError(msg) from None
        if not edges or any(b <= a for a, b in itertools.pairwise(edges)):
            msg = f"The 'bins' parameter of annotation_bins must be a non-empty list of increasing integers (left edges). Got {bins!r} instead."
            raise ValueError(msg)
        short = counts < edges[0]
        if short.any():
            msg = (
                f"{int(short.sum())} items have fewer than {edges[0]} annotations (the first bin edge), "
                f"e.g. with n = {examples(np.unique(counts[short]))}; start the bins at {int(counts.min())}."
            )
            raise DataError(msg)
        highs = [*(e - 1 for e in edges[1:]), None]
    codes = np.searchsorted(np.asarray(edges), counts, side="right").astype(np.int64) - 1
    labels = [_bin_label(a, b) for a, b in zip(edges, highs, strict=True)]
    return codes, labels
