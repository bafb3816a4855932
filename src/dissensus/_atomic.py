"""The one output writer: a run leaves the complete new set of files or the complete old one.

Every file goes to a temporary name in its destination directory, is
flushed to disk, and is moved into place with :func:`os.replace` only when
the whole set is complete, with a ``manifest.json`` recording the run's
parameters and the SHA-256 of each file; files of the previous set that the
new one lacks are removed (never one of the run's inputs). The moves are
journalled (``.dissensus-commit.json``) and done with SIGINT/SIGTERM held
back, so a commit killed half-way is finished by the next run there; a run
stopped before its commit leaves the old set untouched and its temporaries
are removed (now, or by the next run when the process was killed outright).

A directory being written is locked (``flock`` on the directory itself), so
two runs cannot interleave their files: the second stops with a clear
:class:`~dissensus.OutputError` before computing anything. An output that
is one of the run's inputs (same path, symlink or hard link) is refused.
Errors, a full disk included, name the path.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from dissensus._exceptions import OutputError

#: Name of the manifest written with every set of files.
MANIFEST = "manifest.json"
_JOURNAL = ".dissensus-commit.json"
_TMP_PREFIX = ".dissensus-tmp-"

#: What a file is written from: text (UTF-8), bytes, or a callback given the open binary file.
Data = str | bytes | Callable[[IO[bytes]], None]

# Locks held by this process: resolved directory -> (fd, depth). flock locks belong to an open
# file description, so a nested lock on the same directory (the CLI holds it while it computes,
# Evaluation.save takes it again) must reuse the descriptor, not open a conflicting second one.
_HELD: dict[Path, tuple[int, int]] = {}
_HELD_GUARD = threading.Lock()


@contextlib.contextmanager
def _oserror(path: Path | str, doing: str) -> Iterator[None]:
    """Turn an :class:`OSError` inside into an :class:`OutputError` naming ``path``."""
    try:
        yield
    except OSError as exc:
        code = f" (errno {exc.errno})" if exc.errno else ""
        raise OutputError(f"cannot {doing} {path}: {exc.strerror or exc}{code}.") from None


def check_output_dir(path: str | Path) -> Path:
    """``path`` as a writable directory, created with its parents (OutputError if it cannot be)."""
    out = Path(path)
    existing = next(p for p in (out, *out.parents) if p.exists())
    if not existing.is_dir():
        what = "is" if existing == out else f"has a parent {existing} that is"
        msg = f"output directory {out} {what} a file, not a directory; choose another --out."
        raise OutputError(msg)
    with _oserror(out, "create the output directory"):
        out.mkdir(parents=True, exist_ok=True)
    if not os.access(out, os.W_OK | os.X_OK):
        msg = (
            f"output directory {out} is not writable; choose another --out or fix its permissions."
        )
        raise OutputError(msg)
    return out


def check_output_file(path: str | Path) -> Path:
    """Check up front that a single output file can be written at ``path``; return it."""
    target = Path(path)
    if target.is_dir():
        msg = f"output {target} is a directory; give a file name."
    elif not target.parent.is_dir():
        msg = f"cannot write {target}: its directory {target.parent} does not exist."
    elif not os.access(target.parent, os.W_OK | os.X_OK):
        msg = f"cannot write {target}: directory {target.parent} is not writable."
    else:
        return target
    raise OutputError(msg)


def _input_at(path: Path, inputs: Iterable[str | Path]) -> Path | None:
    """The input that ``path`` is (after resolving symlinks, or by device and inode), if any."""
    for source in (Path(p) for p in inputs if str(p) not in ("", "-")):
        if path.resolve() == source.resolve():
            return source
        with contextlib.suppress(OSError):
            if path.exists() and source.exists() and os.path.samefile(path, source):
                return source
    return None


def check_not_inputs(outputs: Iterable[str | Path], inputs: Iterable[str | Path]) -> None:
    """Refuse to write any output over one of the inputs (hard links and symlinks included)."""
    inputs = list(inputs)
    for out in map(Path, outputs):
        if (source := _input_at(out, inputs)) is not None:
            msg = f"refusing to write {out}: it is the input file {source}; choose another output path so the input is not overwritten."
            raise OutputError(msg)


def _lock(directory: Path, shown: Path) -> int:
    """An open descriptor of ``directory`` holding its exclusive flock."""
    with _oserror(shown, "open the output directory"):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            msg = f"another dissensus run is writing to {shown}; wait for it to finish or choose another output directory."
            raise OutputError(msg) from None
        with _oserror(shown, "lock the output directory"):
            raise
    return fd


@contextlib.contextmanager
def locked_dir(
    path: str | Path, *, inputs: Iterable[str | Path] = (), names: Iterable[str] = ()
) -> Iterator[Path]:
    """Hold the lock of directory ``path`` (checked and created; re-entrant within a process).

    A command holds it from before its work until its outputs are committed: a bad ``--out``,
    a concurrent run or an output file (of ``names``) that is an input fails before any work.
    """
    out = check_output_dir(path)
    check_not_inputs([out / name for name in names], inputs)
    key = out.resolve()
    with _HELD_GUARD:
        fd, depth = _HELD.get(key) or (_lock(key, out), 0)
        _HELD[key] = (fd, depth + 1)
        if depth == 0:
            _recover(key)
    try:
        yield out
    finally:
        with _HELD_GUARD:
            fd, depth = _HELD.pop(key)
            if depth > 1:
                _HELD[key] = (fd, depth - 1)
            else:
                os.close(fd)


def _recover(directory: Path) -> None:
    """Finish a commit killed half-way; remove stale temporaries (lock held: their run is gone)."""
    journal = directory / _JOURNAL
    if journal.exists():
        try:
            plan = json.loads(journal.read_text(encoding="utf-8"))
            for tmp, final in plan.get("replace", []):
                if (directory / tmp).exists():
                    os.replace(directory / tmp, directory / final)
            for name in plan.get("remove", []):
                (directory / name).unlink(missing_ok=True)
        except (OSError, ValueError) as exc:
            msg = f"cannot finish the interrupted write recorded in {journal}: {exc}; remove it by hand."
            raise OutputError(msg) from None
        journal.unlink()
    for stale in directory.glob(_TMP_PREFIX + "*"):
        with contextlib.suppress(OSError):
            stale.unlink()


def _temporary_path(directory: Path, name: str) -> Path:
    return directory / f"{_TMP_PREFIX}{os.getpid()}-{os.urandom(4).hex()}-{name}"


def _fsync(path: Path, data: Data | None = None) -> None:
    """Flush ``path`` (a file, or a directory when ``data`` is None) to disk, after writing ``data``."""
    if data is None:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        return
    with path.open("wb") as fh:
        if callable(data):
            data(fh)
        else:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        fh.flush()
        os.fsync(fh.fileno())


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM back while the moves of a commit run (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, ())  # the current mask, unchanged
    try:
        # Inside the try: a signal that arrived just before is raised by this call after the mask
        # changed, and the finally must restore it (else a notebook would ignore Ctrl-C from then on).
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class AtomicFileSet:
    r"""Write a set of files into one directory; commit them together or not at all.

    A context manager holding the lock of ``out_dir`` (created when missing): :meth:`write`
    (or :meth:`written` / :meth:`temporary` for writers that want a path) puts each file
    under a temporary name, refusing one of the ``inputs``; leaving the block normally
    commits the set, with the run's ``params`` (JSON-serialisable) in the manifest; leaving
    it with an exception (``KeyboardInterrupt`` too) removes the temporaries.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with AtomicFileSet(tmp, params={"seed": 0}) as files:
    ...         _ = files.write("a.txt", "hello\\n")
    ...     sorted(p.name for p in pathlib.Path(tmp).iterdir())
    ['a.txt', 'manifest.json']
    """

    def __init__(
        self,
        out_dir: str | Path,
        *,
        inputs: Iterable[str | Path] = (),
        params: Mapping[str, Any] | None = None,
    ) -> None:
        self.out_dir = Path(out_dir)
        self.inputs = [Path(p) for p in inputs]
        self.params = dict(params or {})
        self._tmp: dict[str, Path] = {}
        self._lock = contextlib.ExitStack()
        self._committed = False

    def __enter__(self) -> AtomicFileSet:
        self._lock.enter_context(locked_dir(self.out_dir))
        return self

    def __exit__(self, exc_type: object, *_: object) -> None:
        try:
            if exc_type is None and not self._committed:
                self.commit()
        finally:
            self.discard()
            self._lock.close()

    def final_path(self, name: str) -> Path:
        """Where ``name`` lands once committed."""
        return self.out_dir / name

    def temporary(self, name: str) -> Path:
        """A fresh temporary path for ``name``; refuses (OutputError) a name that is an input."""
        if name in (MANIFEST, _JOURNAL) or "/" in name or name.startswith(_TMP_PREFIX):
            msg = f"{name!r} is not a valid output file name here."
            raise ValueError(msg)
        check_not_inputs([self.final_path(name)], self.inputs)
        if name in self._tmp:
            self._tmp[name].unlink(missing_ok=True)
        self._tmp[name] = _temporary_path(self.out_dir, name)
        return self._tmp[name]

    def write(self, name: str, data: Data) -> Path:
        """Write ``name`` (text as UTF-8, bytes, or a callback given a binary file)."""
        return self.written(name, lambda tmp: _fsync(tmp, data))

    def written(self, name: str, writer: Callable[[Path], object]) -> Path:
        """Let ``writer(tmp_path)`` write ``name`` (e.g. ``DataFrame.to_parquet``)."""
        tmp = self.temporary(name)
        with _oserror(self.final_path(name), "write"):
            writer(tmp)
            _fsync(tmp)
        return self.final_path(name)

    def commit(self) -> dict[str, Path]:
        """Move the whole set into place, with its manifest; return name -> final path."""
        directory, tmp = self.out_dir, self._tmp
        with _oserror(directory, "write the output files in"):
            files = {n: {"sha256": _sha256(t), "bytes": t.stat().st_size} for n, t in tmp.items()}
            manifest = {"format": "dissensus-output/1", "params": self.params, "files": files}
            tmp[MANIFEST] = _temporary_path(directory, MANIFEST)
            _fsync(
                tmp[MANIFEST], json.dumps(manifest, indent=1, sort_keys=True, default=str) + "\n"
            )
            previous = set(_previous_set(directory)) - set(tmp)
            stale = [n for n in sorted(previous) if _input_at(directory / n, self.inputs) is None]
            plan = {"replace": [[t.name, n] for n, t in tmp.items()], "remove": stale}
            _fsync(journal := _temporary_path(directory, "journal"), json.dumps(plan))
        with _signals_held():
            os.replace(journal, directory / _JOURNAL)
            for name, path in tmp.items():
                os.replace(path, directory / name)
            for name in stale:
                (directory / name).unlink(missing_ok=True)
            (directory / _JOURNAL).unlink()
            _fsync(directory)
        self._tmp, self._committed = {}, True
        return {name: directory / name for name in tmp}

    def discard(self) -> None:
        """Remove the temporaries not yet committed."""
        for tmp in self._tmp.values():
            with contextlib.suppress(OSError):
                tmp.unlink()
        self._tmp = {}


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _previous_set(directory: Path) -> list[str]:
    """Files of the set the manifest in ``directory`` describes (empty without one)."""
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        return [str(name) for name in manifest.get("files", {}) if "/" not in str(name)]
    except (OSError, ValueError, AttributeError):
        return []


def write_file_atomically(
    path: str | Path, data: str | bytes, *, inputs: Iterable[str | Path] = ()
) -> Path:
    """Write ``path`` whole (never a mix of old and new), refusing one of ``inputs``; return it."""
    target = check_output_file(path)
    check_not_inputs([target], inputs)
    tmp = _temporary_path(target.parent, target.name)
    try:
        with _oserror(target, "write"):
            _fsync(tmp, data)
            os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target
