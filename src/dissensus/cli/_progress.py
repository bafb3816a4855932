"""Progress of a long command: one line on a terminal's stderr, rewritten per stage; nothing on a pipe.

:func:`stages` yields ``stage(text)``, the callable the commands pass to the
library as its optional ``progress=`` (the library never imports the CLI). The
line is ``[  12.3s] 3/7 text`` (elapsed time, the stage's number when the total
is known) and is erased when the block ends, so the command's output, an error
or a warning starts on a line of its own; :func:`clear_line` erases it before
any other message on stderr while a stage is shown (``warnings_as_lines`` does, through
``_messages.ERASE_PROGRESS``).
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

from dissensus.cli._messages import ERASE_PROGRESS

#: ``stage(text)``: says which stage starts.
Stage = Callable[[str], None]

# Erase the line the cursor is on, then go back to its start (ANSI "erase in line").
_ERASE = "\r\x1b[K"


class _Line:
    """The progress line of one command on ``stream`` (a terminal)."""

    def __init__(self, stream: TextIO, total: int | None) -> None:
        self.stream, self.total = stream, total
        self.done = 0
        self.shown = False
        self.t0 = time.perf_counter()

    def stage(self, text: str) -> None:
        self.done += 1
        count = f"{self.done}/{self.total} " if self.total else ""
        line = f"[{time.perf_counter() - self.t0:6.1f}s] {count}{text}"
        # one terminal row: a wrapped line could not be erased by one '\r'
        width = max(shutil.get_terminal_size().columns - 1, 20)
        if len(line) > width:
            line = line[: width - 1] + "…"
        self.stream.write(_ERASE + line)
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write(_ERASE)
            self.stream.flush()
            self.shown = False


# The line being shown, if any: a nested ``stages`` block reports on it, and
# ``clear_line`` erases it. Set only inside a ``stages`` block, reset when it ends.
_ACTIVE: ContextVar[_Line | None] = ContextVar("dissensus_progress_line", default=None)


def _silent(text: str) -> None:
    """A stage on a pipe: nothing is written."""


@contextmanager
def stages(total: int | None = None, *, stream: TextIO | None = None) -> Iterator[Stage]:
    """``stage(text)`` shows a stage on ``stream`` (default stderr) if it is a terminal, else nothing.

    ``total``: the number of ``stage`` calls expected (shown as ``3/7``), or
    None when the calls carry their own count. Inside another ``stages``
    block, the stages are shown on the outer block's line (its count goes on).
    """
    outer = _ACTIVE.get()
    if outer is not None:
        yield outer.stage
        return
    out = sys.stderr if stream is None else stream
    if not out.isatty():
        yield _silent
        return
    line = _Line(out, total)
    token, erase = _ACTIVE.set(line), ERASE_PROGRESS.set(line.clear)
    try:
        yield line.stage
    finally:
        ERASE_PROGRESS.reset(erase)
        _ACTIVE.reset(token)
        line.clear()


def clear_line() -> None:
    """Erase the progress line being shown (if any), so the next message on stderr starts a line."""
    line = _ACTIVE.get()
    if line is not None:
        line.clear()
