"""Library messages in the command line's words: one mapping from keyword arguments to flags.

The library's errors say how to fix a call (``pass how='inner'``); on the
command line the fix is a flag (``--how inner``). :func:`cli_message`
rewrites the keyword-argument hints, and :func:`format_hint` suggests
``--format convabuse|lewidi`` for a file that looks like one.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from dissensus._exceptions import DissensusWarning

if TYPE_CHECKING:
    from dissensus.evaluation import Evaluation

__all__ = ["FLAG_HINTS", "cli_message", "echo_warnings", "format_hint", "prior_note"]

Replacement = str | Callable[[re.Match[str]], str]

#: (pattern in a library message, what to say on the command line), applied in order.
FLAG_HINTS: tuple[tuple[str, Replacement], ...] = (
    (r"pass annotator=None\b", "pass --no-annotator"),
    (r"\b(item|annotator|label)=\.\.\.", lambda m: f"--{m[1]} COLUMN"),
    (r"\bmeta=\.\.\.", "--meta COLUMN"),
    (r"\bannotators=(?:\[\.\.\.\]|\.\.\.)", "--annotators COL,COL"),
    (r"\bdropna=True\b", "--dropna"),
    (r"\bduplicates='(first|last)' or '(first|last)'", r"--duplicates \1 or --duplicates \2"),
    (r"\bduplicates='(\w+)'", r"--duplicates \1"),
    (r"\bhow='inner'", "--how inner"),
    (r"`?\bnormalize=True\b`?", "--normalize"),
    (r"\bordered=True \(or Scale\.ordinal\)", "--ordinal"),
    (r"\bordered=True\b", "--ordinal"),
    (r"\bmetrics=\[((?:'[^']*'(?:,\s*)?)+)\]", lambda m: "--metrics " + re.sub(r"['\s]", "", m[1])),
    (r"\bprior=(['\"]?)(\w+)\1", r"--prior \2"),
    (r"\blabel_sep=(['\"])([^'\"]*)\1", r"--label-sep '\2'"),
    (
        r"read it with read_lewidi\(path\) or multilabel=True, which gives SetAnnotations",
        "add --sets to read its sets of labels",
    ),
)
_COMPILED = tuple((re.compile(p), r) for p, r in FLAG_HINTS)


def cli_message(text: str) -> str:
    """``text`` with every keyword-argument hint replaced by the flag that does it.

    Examples
    --------
    >>> cli_message("No label column 'lab' in x.csv; name the column with label=...")
    "No label column 'lab' in x.csv; name the column with --label COLUMN"
    >>> cli_message("cover different items. Pass how='inner' to keep the common items.")
    'cover different items. Pass --how inner to keep the common items.'
    >>> cli_message("rows do not sum to 1; pass `normalize=True` to rescale rows.")
    'rows do not sum to 1; pass --normalize to rescale rows.'
    """
    for pattern, replacement in _COMPILED:
        text = pattern.sub(replacement, text)
    return text


def format_hint(path: str | Path) -> str | None:
    r"""``"convabuse"`` or ``"lewidi"`` when the start of ``path`` looks like that format.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = os.path.join(tmp, "x.csv")
    ...     _ = open(p, "w").write("example_id,Annotator1_is_abuse.1,Annotator1_is_abuse.0\\n")
    ...     format_hint(p)
    'convabuse'
    """
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    first_line = head.split("\n", 1)[0]
    if re.search(r"is_abuse\.-?\d", first_line):
        return "convabuse"
    if head.lstrip().startswith("{") and '"soft_label"' in head and '"annotations"' in head:
        return "lewidi"
    return None


def echo_warnings(caught: Iterable[warnings.WarningMessage]) -> None:
    """Print the library's warnings as ``dissensus: warning: …`` lines; re-issue the others."""
    for w in caught:
        if issubclass(w.category, DissensusWarning):
            text = cli_message(" ".join(str(w.message).split()))
            click.echo(f"dissensus: warning: {text}", err=True)
        else:  # not ours: let Python's filters decide
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


#: Say so when the prior weighs at least as much as the annotations on this share of items.
_WEAK_SHARE = 0.2


def prior_note(evaluation: Evaluation) -> str | None:
    """One line for the terminal when the prior drives the expected metrics, else None.

    The note names the prior the annotations support (highest
    Dirichlet-multinomial likelihood) and the flag that uses it.
    """
    if not any(m.startswith("E[") for m in evaluation.metrics):
        return None
    try:
        fit = evaluation.prior_fit()
    except ValueError:
        return None
    used = fit.iloc[0]
    if not float(used["share_items_weak"]) >= _WEAK_SHARE:
        return None
    best = fit.iloc[int(fit["log_likelihood"].to_numpy(dtype=float).argmax())]
    flag = str(best["prior"]).split(" ")[0]
    advice = (
        f"; the annotations support the {best['prior']} prior (--prior {flag}), "
        "and report.html compares the verdict under each prior"
        if str(best["prior"]) != str(used["prior"])
        else ""
    )
    return (
        f"note: the {used['prior']} prior adds {float(used['strength']):g} pseudo-counts per "
        f"item, at least as many as the annotations of {100 * float(used['share_items_weak']):.0f}% "
        f"of items, so the expected metrics there reflect the prior more than the annotators{advice}."
    )
