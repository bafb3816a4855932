"""ConvAbuse with the text of the judged user turn (and its conversational context)."""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pandas as pd

from dissensus.data import Duplicates, read_convabuse
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
    r"""ConvAbuse: abuse severity of user turns, with their text.

    Parameters
    ----------
    path : str or path-like
        A ConvAbuse CSV (the full file or a split file) or the directory
        holding ``ConvAbuseEMNLPfull.csv``.
    context : bool, default False
        ``False``: ``text`` is the judged user turn. ``True``: ``text`` also
        holds the previous agent turn, previous user turn and the agent turn
        the user answered (models A and B of Magnani, 2025, differ only by
        this), their words marked by turn (``pa_``, ``pu_``, ``ag_``) so that
        a bag-of-words featuriser keeps them apart.
    duplicates : {"first", "last", "keep", "error"}, default "first"
        As in :func:`dissensus.read_convabuse`.

    Returns
    -------
    Dataset
        Annotations on the ordinal scale −3 < −2 < −1 < 0 < 1 and the item
        table ``conv_id, bot, prev_agent, prev_user, agent, user, text``
        (missing turns are empty strings).

    References
    ----------
    A. Cercas Curry, G. Abercrombie, V. Rieser. "ConvAbuse: Data, Analysis,
    and Benchmarks for Nuanced Abuse Detection in Conversational AI".
    EMNLP 2021, 7388–7403. :doi:`10.18653/v1/2021.emnlp-main.587`

    A. Magnani. "Soft metrics for ordinal label uncertainty with variable
    sample sizes". ASSE 2025 (6th Asia Service Sciences and Software
    Engineering Conference), ACM.

    Examples
    --------
    >>> from dissensus.datasets import example_path
    >>> ds = load_convabuse(example_path("convabuse"), context=True)
    >>> ds.items["text"].iloc[0].split()[:7]
    ['tell', 'me', 'a', 'joke', 'pa_Hello,', 'pa_how', 'pa_can']
    """
    p = Path(path)
    if p.is_dir():
        p = p / _FULL
    ann = read_convabuse(p, duplicates=duplicates, meta=("conv_id", "bot", *_TURNS))
    items = pd.DataFrame(ann.meta).copy()  # the meta columns asked for
    for col in _TURNS:
        items[col] = items[col].fillna("").astype(str)
    text = items["user"]
    if context:
        parts = [text]
        for col, prefix in (("prev_agent", "pa"), ("prev_user", "pu"), ("agent", "ag")):
            parts.append(_marked(items[col], prefix))
        text = pd.concat(parts, axis=1).agg(" ".join, axis=1).str.split().str.join(" ")
    items["text"] = text
    return Dataset(
        dataclasses.replace(ann, meta=None),
        items,
        name="ConvAbuse" + (" (with context)" if context else ""),
        description=(
            "ConvAbuse (A. Cercas Curry, G. Abercrombie, V. Rieser, EMNLP 2021, "
            "doi:10.18653/v1/2021.emnlp-main.587), CC BY 4.0: abuse severity of user turns "
            "addressed to conversational AI systems."
        ),
    )
