"""Small examples shipped with dissensus: published count tables, and files to try commands on.

:func:`load_example` gives published worked examples as :class:`~dissensus.LabelCounts`
(S. Teufel, Machine Learning and Real-world Data, lecture 6 "Uncertainty and
Human Agreement", University of Cambridge, lecture notes):

``"course_29"``
    The worked Fleiss' kappa example (N = 29 items, 4 raters, 5 categories;
    P_a = .5804, P_e = .288, kappa = .41).
``"course_reviews"``
    The class judgements (POS / NEG) of four movie reviews, one group per
    academic year 2017-18 … 2023-24, as printed (the 2021-22 rows R2–R4 look
    swapped: a real data-quality signal).

:data:`EXAMPLE_FILES` are synthetic files (fixed seeds, see
``tests/datasets/example_files.py``) that ``dissensus example NAME --out PATH``
writes: ``ratings.csv`` (40 items rated 1–5 by 2–6 of 8 annotators; item,
annotator, label, year), ``a.csv`` and ``b.csv`` (two models' distributions
over 1–5 for those items, wide; ``b`` smoother), ``convabuse.csv`` (a made-up
sample in the ConvAbuse full-file format, for ``--format convabuse`` and
``dissensus experiment convabuse --data``), ``reviews.csv`` (60 made-up product
reviews rated 1–5 stars by 3–5 of 8 raters; item, annotator, stars, review: a
text column for ``dissensus experiment``), ``labelstudio.json`` (the first 12
of those reviews as a Label Studio JSON export with a ``rating`` question and
one skipped annotation, for ``dissensus agreement labelstudio.json``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from dissensus._validation import check_option
from dissensus.data import LabelCounts, Scale

_COURSE_29 = [
    [0, 0, 0, 0, 4], [2, 0, 2, 0, 0], [0, 0, 0, 0, 4], [2, 0, 2, 0, 0], [0, 0, 0, 1, 3],
    [1, 1, 2, 0, 0], [3, 0, 1, 0, 0], [3, 0, 1, 0, 0], [0, 0, 2, 2, 0], [3, 0, 1, 0, 0],
    [0, 0, 0, 0, 4], [4, 0, 0, 0, 0], [4, 0, 0, 0, 0], [4, 0, 0, 0, 0], [0, 0, 3, 1, 0],
    [1, 0, 2, 1, 0], [0, 0, 0, 2, 2], [0, 0, 0, 0, 4], [0, 0, 3, 0, 1], [0, 1, 3, 0, 0],
    [0, 0, 1, 0, 3], [0, 0, 3, 1, 0], [4, 0, 0, 0, 0], [4, 0, 0, 0, 0], [2, 0, 2, 0, 0],
    [1, 0, 3, 0, 0], [2, 0, 2, 0, 0], [2, 0, 2, 0, 0], [0, 1, 2, 0, 1],
]  # fmt: skip

# (POS, NEG) counts of reviews R1..R4 per year.
_COURSE_REVIEWS = {
    "2017-18": [[82, 35], [8, 109], [3, 114], [112, 5]],
    "2018-19": [[87, 46], [11, 122], [2, 131], [130, 3]],
    "2019-20": [[66, 35], [8, 93], [1, 100], [96, 5]],
    "2020-21": [[74, 39], [5, 108], [2, 111], [106, 7]],
    "2021-22": [[63, 42], [99, 6], [103, 2], [3, 102]],
    "2022-23": [[76, 39], [3, 112], [3, 112], [111, 4]],
    "2023-24": [[68, 22], [5, 85], [0, 90], [90, 0]],
}

#: Example file name -> file, for ``dissensus example NAME``.
EXAMPLE_FILES: dict[str, str] = {
    **{name: f"{name}.csv" for name in ("ratings", "a", "b", "convabuse", "reviews")},
    "labelstudio": "labelstudio.json",
}


def load_example(name: Literal["course_29", "course_reviews"] = "course_29") -> LabelCounts:
    """Load a published example as :class:`~dissensus.LabelCounts` (see the module docstring).

    Parameters
    ----------
    name : {"course_29", "course_reviews"}
        ``"course_reviews"`` has item ids ``"<year>/R<k>"`` and item-level
        columns ``year`` (for ``by="year"``) and ``review``.

    Examples
    --------
    >>> load_example("course_29").values.shape
    (29, 5)
    >>> load_example("course_reviews").groups("year").nunique()
    7
    """
    check_option("load_example", "name", name, ("course_29", "course_reviews"))
    if name == "course_29":
        return LabelCounts.from_array(
            _COURSE_29, scale=Scale.nominal([1, 2, 3, 4, 5]), items=range(1, 30)
        )
    years = list(_COURSE_REVIEWS)
    values = np.concatenate([np.asarray(_COURSE_REVIEWS[y]) for y in years])
    ids = [f"{y}/R{k}" for y in years for k in range(1, 5)]
    meta = pd.DataFrame(
        {"year": np.repeat(years, 4), "review": ["R1", "R2", "R3", "R4"] * len(years)}
    )
    return LabelCounts.from_array(values, scale=Scale.nominal(["POS", "NEG"]), items=ids, meta=meta)


def example_path(name: str) -> Path:
    """The installed path of example file ``name`` (see :data:`EXAMPLE_FILES`).

    Examples
    --------
    >>> example_path("ratings").name
    'ratings.csv'
    """
    check_option("example_path", "name", name, tuple(EXAMPLE_FILES))
    return Path(__file__).with_name(EXAMPLE_FILES[name])  # package data beside this module


def write_example(name: str, out: str | os.PathLike[str]) -> Path:
    """Copy example file ``name`` to ``out`` (a file, or a directory to write it into).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_example("a", tmp).name
    'a.csv'
    """
    source = example_path(name)
    target = Path(out)
    if target.is_dir():
        target = target / EXAMPLE_FILES[name]
    shutil.copyfile(source, target)
    return target
