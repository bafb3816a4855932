"""Library messages in the command line's words: one mapping from keyword arguments to flags.

The library's errors say how to fix a call (``pass how='inner'``); on the command line
the fix is a flag (``--how inner``): :func:`cli_message` rewrites the hints.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

import click

from dissensus._exceptions import ColumnsDetectedWarning, DissensusWarning

Replacement = str | Callable[[re.Match[str]], str]

#: Erases the progress line shown on stderr while there is one (``cli._progress.stages``
#: sets it): a warning is printed on a line of its own. Held here, not in _progress, so that
#: ``dissensus --help`` imports no more than the messages.
ERASE_PROGRESS: ContextVar[Callable[[], None] | None] = ContextVar(
    "dissensus_erase_progress", default=None
)

#: (pattern in a library message, what to say on the command line), applied in order.
FLAG_HINTS: tuple[tuple[str, Replacement], ...] = (
    # a hint that names its flag itself: "pass layout='long' (CLI: --pred-layout long)"
    (r"\b(?:[\w.]+=(?:'[^']*'|\[\.\.\.\]|\.\.\.|\w+)|[\w.]+\(\)|read_set_annotations) \(CLI: ([^)]+)\)", r"\1"),
    (r"\bthe option\(s\) ([\w, ]+) of read_annotations\b",
     lambda m: "the option(s) " + ", ".join("--" + n.strip().replace("_", "-") for n in m[1].split(","))),
    (r"\bformat='\.\.\.'", "--format FORMAT"),
    (r"\bformat='(\w+)'( / '(\w+)')?", lambda m: f"--format {m[1]}" + (f" / --format {m[3]}" if m[3] else "")),
    (r"\blayout='(long|wide)'", r"--layout \1"),
    (r"\bdrop scale/ordered\b", "drop --labels/--ordinal"),
    (r"\bdropna and duplicates apply\b", "--dropna and --duplicates apply"),
    (r"\bstrip_labels=True\b", "--strip-labels"),
    (r"\bna_values=\[\.\.\.\]", "--na-values TEXT"),
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
    (r"read it with read_lewidi\(path\) or multilabel=True, which gives SetAnnotations", "add --sets to read its sets of labels"),
    # the prediction reader's hints name the argument; on the command line the file is named
    (r"`predictions` (row|column)", r"\1"),
    (r"\bevaluate\(method='(\w+)'\)", r"--targets \1"),
    (r"\bannotator='<column>'", "--annotator COLUMN"),
    (r"\bitem=/annotator=/label=", "--item/--annotator/--label"),
    (r"\bwith scale=(?=[.;]|$)", "with --labels"),
)  # fmt: skip
#: Library parameters that a flag of the same name (underscores as hyphens) sets.
FLAG_PARAMETERS = frozenset(
    {"prior", "confidence_level", "n_resamples", "level", "ci_method", "weights", "measure"}
    | {"format", "layout", "duplicates", "how", "metrics", "seed", "budget", "targets", "bins"}
)


def _parameter(match: re.Match[str]) -> str:
    name = match[1]
    return f"--{name.replace('_', '-')}" if name in FLAG_PARAMETERS else match[0]


_COMPILED = (
    *((re.compile(p), r) for p, r in FLAG_HINTS),
    # "The 'prior' parameter of dirichlet must be ..." -> "--prior must be ..."
    (re.compile(r"\bThe '(\w+)' parameter of [\w.]+(?= must)"), _parameter),
)


#: A run of this many characters without a space (a cell 50,000 brackets deep) is shortened.
LONGEST_WORD = 300
_LONG_WORD = re.compile(rf"\S{{{LONGEST_WORD + 1},}}")


def _shorten(match: re.Match[str]) -> str:
    word = match[0]
    return f"{word[:100]}…{word[-40:]} ({len(word):,} characters)"


def cli_message(text: str) -> str:
    """``text`` with every keyword-argument hint (``how='inner'``) replaced by its flag.

    A value quoted whole from the input (a huge cell) is shortened to one readable line.
    """
    for pattern, replacement in _COMPILED:
        text = pattern.sub(replacement, text)
    return _LONG_WORD.sub(_shorten, text)


def format_hint(path: str | Path) -> str | None:
    """``"convabuse"`` or ``"lewidi"`` when the start of ``path`` looks like that format."""
    try:
        if not Path(path).is_file():
            return None  # a pipe is read once, by the reader: opening it again would wait forever
        with open(path, encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    if re.search(r"is_abuse\.-?\d", head.split("\n", 1)[0]):
        return "convabuse"
    lewidi = head.lstrip().startswith("{") and '"soft_label"' in head and '"annotations"' in head
    return "lewidi" if lewidi else None


@contextmanager
def warnings_as_lines() -> Iterator[None]:
    """Print the library's warnings raised inside as ``dissensus: warning: …`` lines, once each.

    The columns a reader chose by their names are not a warning but a note:
    ``dissensus: using columns item=item_id, … (pass --item/… to choose others)``.
    """
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DissensusWarning)  # one line each, flags named
            yield
    finally:
        if caught and (erase := ERASE_PROGRESS.get()) is not None:
            erase()  # a warning never shares the progress line
        printed = set()
        for w in caught:
            if not issubclass(w.category, DissensusWarning):  # not ours: Python's filters decide
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            elif (text := cli_message(" ".join(str(w.message).split()))) not in printed:
                printed.add(text)
                if issubclass(w.category, ColumnsDetectedWarning):
                    click.echo(f"dissensus: {text[:1].lower()}{text[1:]}", err=True)
                else:
                    click.echo(f"dissensus: warning: {text}", err=True)
