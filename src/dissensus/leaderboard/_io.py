"""Reading shared-task submissions: LeWiDi 2023 / 2025 files, or wide CSV / TSV / Parquet / JSONL."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np

from dissensus.data import read_predictions
from dissensus.evaluation import PredictionLike
from dissensus.metrics.lewidi import read_lewidi_predictions


def _lewidi_year(path: Path) -> Literal[2023, 2025] | None:
    """2023 or 2025 when ``path`` looks like a LeWiDi submission (headerless TSV), else None."""
    if path.suffix.lower() != ".tsv":
        return None
    with path.open(encoding="utf-8") as fh:
        first = next((line for line in fh if line.strip()), "")
    cells = first.rstrip("\n").split("\t")
    if len(cells) == 2 and cells[1].lstrip().startswith("["):
        return 2025
    try:
        [float(c) for c in cells]
    except ValueError:
        return None
    return 2023 if len(cells) >= 3 else None


def read_submission(path: str | Path) -> PredictionLike:
    """Read one team's predictions.

    LeWiDi 2025 ``*_test_soft.tsv`` (``item_id<TAB>[p_0, ...]``) and 2023
    ``*_results.tsv`` (``hard<TAB>p_0<TAB>p_1``, rows in the order of the gold
    file, returned as an array) are recognised from their first line; any
    other file is read as a wide table (an ``item`` column and one column per
    label) by :func:`dissensus.data.read_predictions`. Returns Predictions, or
    an (N, K) array for 2023 files, which carry no item ids.
    """
    p = Path(path)
    if not p.is_file():
        msg = f"No such submission file: {p}"
        raise FileNotFoundError(msg)
    year = _lewidi_year(p)
    if year is None:
        return read_predictions(p)
    sub = read_lewidi_predictions(p, year=year)
    if sub.items is None:  # 2023: no item ids, rows in the order of the gold file
        return np.asarray(sub.soft, dtype=np.float64)
    return sub.to_predictions()


def team_names(paths: Sequence[str]) -> list[tuple[str, Path]]:
    """``(team, path)`` for each ``PATH`` or ``TEAM=PATH``.

    A team is named by its file name without extension; when two files have
    the same name (LeWiDi files are named after the dataset), by their folder.
    """
    given: list[tuple[str | None, Path]] = []
    for text in paths:
        name, sep, rest = text.partition("=")
        if sep and name and rest and not Path(text).exists():
            given.append((name, Path(rest)))
        else:
            given.append((None, Path(text)))
    stems = [p.stem for n, p in given if n is None]
    out = []
    for given_name, p in given:
        auto = p.stem if stems.count(p.stem) == 1 else p.resolve().parent.name
        out.append((auto if given_name is None else given_name, p))
    names = [n for n, _ in out]
    if dup := sorted({n for n in names if names.count(n) > 1}):
        msg = f"Team name(s) {dup} given to more than one submission; name them with TEAM=PATH (e.g. bert=runs/bert/HS-Brexit_results.tsv)."
        raise ValueError(msg)
    return out
