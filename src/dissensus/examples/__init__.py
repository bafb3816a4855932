"""Small example files shipped with dissensus, to try every command on.

``ratings.csv``
    40 items rated 1–5 by 2–6 of 8 annotators (long layout: item,
    annotator, label, year), synthetic.
``a.csv``, ``b.csv``
    Two models' predicted distributions over the labels 1–5 for those
    items (wide layout: item, 1, …, 5): ``a`` close to the annotators,
    ``b`` smoother.
``convabuse.csv``
    A made-up sample in the format of the ConvAbuse full file (one row
    per annotator and response, one-hot ``is_abuse.K`` severities); read
    it with ``--format convabuse``.

``dissensus example NAME --out PATH`` writes one out; :func:`example_path`
gives the installed file.
"""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

__all__ = ["EXAMPLES", "example_path", "write_example"]

#: Example name -> file name.
EXAMPLES: dict[str, str] = {
    "ratings": "ratings.csv",
    "a": "a.csv",
    "b": "b.csv",
    "convabuse": "convabuse.csv",
}


def example_path(name: str) -> Path:
    """The installed path of example ``name`` (see :data:`EXAMPLES`).

    Examples
    --------
    >>> example_path("ratings").name
    'ratings.csv'
    """
    if name not in EXAMPLES:
        msg = f"No example {name!r}; the examples are {', '.join(EXAMPLES)}."
        raise ValueError(msg)
    return Path(str(resources.files("dissensus.examples") / EXAMPLES[name]))


def write_example(name: str, out: str | Path) -> Path:
    """Copy example ``name`` to ``out`` (a file, or a directory to write it into).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_example("a", tmp).name
    'a.csv'
    """
    target = Path(out)
    if target.is_dir():
        target = target / EXAMPLES[name]
    source = example_path(name)
    shutil.copyfile(source, target)
    return target
