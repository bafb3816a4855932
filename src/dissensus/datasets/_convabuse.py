"""ConvAbuse with the text of the judged user turn (and its conversational context)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from dissensus.data import Annotations, Duplicates, read_convabuse
from dissensus.datasets._dataset import Dataset

__all__ = ["load_convabuse"]

_TURNS = ("prev_agent", "prev_user", "agent", "user")
_FULL = "ConvAbuseEMNLPfull.csv"
_WORD = re.compile(r"\b(\w\w+)\b")


def _marked(text: pd.Series, prefix: str) -> pd.Series:
    """Every word of ``text`` prefixed (``prev_agent`` words as ``pa_word``)."""
    return (
        text.fillna("")
        .astype(str)
        .str.replace(_WORD, lambda m: f"{prefix}_{m.group(1)}", regex=True)
    )


def load_convabuse(
    path: str | os.PathLike[str],
    *,
    context: bool = False,
    duplicates: Duplicates = "first",
) -> Dataset:
    r"""ConvAbuse (Cercas Curry et al., 2021): abuse severity of user turns, with their text.

    Parameters
    ----------
    path : str or path-like
        A ConvAbuse CSV (the full file or a split file) or the directory
        holding ``ConvAbuseEMNLPfull.csv``.
    context : bool, default False
        ``False``: ``text`` is the judged user turn. ``True``: ``text`` also
        holds the conversation before it, the previous agent turn, previous
        user turn and the agent turn the user answered (the seed paper's
        ConvAbuse models A and B differ only by this). The context's words are
        marked by their turn (``pa_``, ``pu_``, ``ag_``) so that a bag-of-words
        featuriser keeps them apart from the user's own words.
    duplicates : {"first", "last", "keep", "error"}, default "first"
        Repeated annotations, as in :func:`dissensus.read_convabuse` (which
        warns with the number dropped).

    Returns
    -------
    Dataset
        Annotations on the ordinal scale −3 < −2 < −1 < 0 < 1 and the item
        table ``conv_id, bot, prev_agent, prev_user, agent, user, text``
        (missing turns are empty strings).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "full.csv"
    >>> head = "example_no,annotator_id,conv_id,prev_agent,prev_user,agent,user,bot,"
    >>> head += "is_abuse.1,is_abuse.0,is_abuse.-1,is_abuse.-2,is_abuse.-3\n"
    >>> rows = ["0,Annotator1,7,Hi,hey,How are you?,bad bot,E,0,0,1,0,0",
    ...         "1,Annotator2,7,Hi,hey,How are you?,bad bot,E,1,0,0,0,0"]
    >>> _ = f.write_text(head + "\n".join(rows) + "\n")
    >>> load_convabuse(f, context=True).items["text"].tolist()
    ['bad bot pa_Hi pu_hey ag_How ag_are ag_you?']
    """
    p = Path(path)
    if p.is_dir():
        p = p / _FULL
    ann = read_convabuse(p, duplicates=duplicates, meta=("conv_id", "bot", *_TURNS))
    items = ann.meta
    if items is None:  # pragma: no cover - meta was asked for
        msg = "internal: the item table was not kept"
        raise RuntimeError(msg)
    items = items.copy()
    for col in _TURNS:
        items[col] = items[col].fillna("").astype(str)
    text = items["user"]
    if context:
        parts = [text]
        for col, prefix in (("prev_agent", "pa"), ("prev_user", "pu"), ("agent", "ag")):
            parts.append(_marked(items[col], prefix))
        text = pd.concat(parts, axis=1).agg(" ".join, axis=1).str.split().str.join(" ")
    items["text"] = text
    plain = Annotations(
        ann.item_codes, ann.label_codes, ann.annotator_codes, ann.items, ann.annotators, ann.scale
    )
    return Dataset(
        plain,
        items,
        name="ConvAbuse" + (" (with context)" if context else ""),
        description=(
            "ConvAbuse (A. Cercas Curry, G. Abercrombie, V. Rieser, EMNLP 2021, "
            "doi:10.18653/v1/2021.emnlp-main.587), CC BY 4.0: abuse severity of user turns "
            "addressed to conversational AI systems."
        ),
    )
