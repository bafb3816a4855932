"""Atomic output: a run leaves the complete new set of files or the complete old one.

Every file is written to a temporary name in its destination directory,
flushed to disk, and moved into place with :func:`os.replace` only when the
whole set is complete. A ``manifest.json`` written with the set records the
run's parameters and the SHA-256 of each file, so a reader can tell which
files belong together.

The moves of a set are journalled (``.dissensus-commit.json``) and done with
SIGINT/SIGTERM held back, so an interrupted commit is finished by the next
run in that directory; a run stopped before its commit leaves the old set
untouched and its temporaries are removed (now, or by the next run when the
process was killed outright).

A directory being written is locked (``flock`` on the directory itself), so
two runs on the same directory cannot interleave their files: the second one
stops with a clear :class:`~dissensus.OutputError` before computing anything.
An output that resolves to one of the run's input files is refused.
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

__all__ = [
    "MANIFEST",
    "AtomicFileSet",
    "check_not_inputs",
    "check_output_dir",
    "check_output_file",
    "locked_dir",
    "write_file_atomically",
]

#: Name of the manifest written with every set of files.
MANIFEST = "manifest.json"
_JOURNAL = ".dissensus-commit.json"
_TMP_PREFIX = ".dissensus-tmp-"

# Locks held by this process: resolved directory -> (fd, depth). flock locks
# belong to an open file description, so a nested lock on the same directory
# (the CLI holds it while it computes, Evaluation.save takes it again) must
# reuse the descriptor instead of opening a second one that would conflict.
_HELD: dict[Path, tuple[int, int]] = {}
_HELD_GUARD = threading.Lock()


def _oserror(exc: OSError, path: Path | str, doing: str) -> OutputError:
    reason = exc.strerror or str(exc)
    code = f" (errno {exc.errno})" if exc.errno else ""
    return OutputError(f"cannot {doing} {path}: {reason}{code}.")


def check_output_dir(path: str | Path) -> Path:
    """Make sure ``path`` is, or can be created as, a writable directory.

    Creates the directory (with its parents) when it is missing, so that a
    bad ``--out`` fails before any computation rather than after it.

    Raises
    ------
    OutputError
        ``path`` (or one of its parents) is a file, or the directory is not
        writable.
    """
    out = Path(path)
    for parent in (out, *out.parents):
        if parent.exists() and not parent.is_dir():
            what = "is" if parent == out else f"has a parent {parent} that is"
            msg = f"output directory {out} {what} a file, not a directory; choose another --out."
            raise OutputError(msg)
        if parent.exists():
            break
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _oserror(exc, out, "create the output directory") from None
    if not os.access(out, os.W_OK | os.X_OK):
        msg = (
            f"output directory {out} is not writable; choose another --out or fix its permissions."
        )
        raise OutputError(msg)
    return out


def check_output_file(path: str | Path) -> Path:
    """Check up front that a single output file can be written at ``path``."""
    target = Path(path)
    if target.is_dir():
        msg = f"output {target} is a directory; give a file name."
        raise OutputError(msg)
    parent = target.parent
    if not parent.is_dir():
        msg = f"cannot write {target}: its directory {parent} does not exist."
        raise OutputError(msg)
    if not os.access(parent, os.W_OK | os.X_OK):
        msg = f"cannot write {target}: directory {parent} is not writable."
        raise OutputError(msg)
    return target


def check_not_inputs(outputs: Iterable[str | Path], inputs: Iterable[str | Path]) -> None:
    """Refuse to write any output over one of the inputs.

    Paths are compared after resolving symlinks and, for files that exist,
    by device and inode (:func:`os.path.samefile`), so hard links and
    different spellings of one file are caught too.
    """
    ins = [Path(p) for p in inputs if str(p) not in ("", "-")]
    for out in outputs:
        o = Path(out)
        for i in ins:
            same = o.resolve() == i.resolve()
            if not same and o.exists() and i.exists():
                with contextlib.suppress(OSError):
                    same = os.path.samefile(o, i)
            if same:
                msg = (
                    f"refusing to write {o}: it is the input file {i}; "
                    "choose another output path so the input is not overwritten."
                )
                raise OutputError(msg)


@contextlib.contextmanager
def locked_dir(path: str | Path) -> Iterator[Path]:
    """Hold an exclusive lock on directory ``path`` (re-entrant within a process).

    Raises
    ------
    OutputError
        Another process holds the lock.
    """
    out = check_output_dir(path)
    key = out.resolve()
    with _HELD_GUARD:
        held = _HELD.get(key)
        if held is not None:
            _HELD[key] = (held[0], held[1] + 1)
        else:
            try:
                fd = os.open(key, os.O_RDONLY | os.O_DIRECTORY)
            except OSError as exc:
                raise _oserror(exc, out, "open the output directory") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    msg = (
                        f"another dissensus run is writing to {out}; wait for it to "
                        "finish or choose another output directory."
                    )
                    raise OutputError(msg) from None
                raise _oserror(exc, out, "lock the output directory") from None
            _HELD[key] = (fd, 1)
            _recover(key)
    try:
        yield out
    finally:
        with _HELD_GUARD:
            fd, depth = _HELD[key]
            if depth > 1:
                _HELD[key] = (fd, depth - 1)
            else:
                del _HELD[key]
                os.close(fd)


def _recover(directory: Path) -> None:
    """Finish a commit that was killed half-way; remove stale temporaries.

    Called with the directory lock held, so every temporary file found
    belongs to a run that no longer exists.
    """
    journal = directory / _JOURNAL
    if journal.exists():
        try:
            plan = json.loads(journal.read_text(encoding="utf-8"))
            for tmp, final in plan.get("replace", []):
                if (directory / tmp).exists():
                    os.replace(directory / tmp, directory / final)
            for name in plan.get("remove", []):
                with contextlib.suppress(FileNotFoundError):
                    (directory / name).unlink()
        except (OSError, ValueError) as exc:
            msg = f"cannot finish the interrupted write recorded in {journal}: {exc}; remove it by hand."
            raise OutputError(msg) from None
        journal.unlink()
    for stale in directory.glob(_TMP_PREFIX + "*"):
        with contextlib.suppress(OSError):
            stale.unlink()


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM back while the moves of a commit run (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, ())  # the current mask, unchanged
    try:
        # Inside the try: a signal that arrived just before is raised by this call
        # after the mask changed, and the finally must still restore it (else a
        # notebook's kernel would ignore Ctrl-C from then on).
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class AtomicFileSet:
    r"""Write a set of files into one directory; commit them together or not at all.

    Use as a context manager. :meth:`write` (or :meth:`temporary` for writers
    that want a path) puts each file under a temporary name; leaving the
    block normally commits the set with a manifest, leaving it with an
    exception (including ``KeyboardInterrupt``) removes the temporaries and
    leaves the directory as it was.

    Parameters
    ----------
    out_dir : str or Path
        Destination directory; created when missing.
    inputs : iterable of str or Path, optional
        Files the run read; writing over any of them is refused.
    params : mapping, optional
        The run's parameters, recorded in the manifest (JSON-serialisable).

    Raises
    ------
    OutputError
        The directory is not usable, is locked by another run, an output
        would overwrite an input, or a write fails (disk full, ...): the
        message names the path.

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
        self._lock: contextlib.ExitStack | None = None

    def __enter__(self) -> AtomicFileSet:
        stack = contextlib.ExitStack()
        stack.enter_context(locked_dir(self.out_dir))
        self._lock = stack
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        assert self._lock is not None
        try:
            if exc_type is None:
                self.commit()
        finally:
            self.discard()
            self._lock.close()

    def final_path(self, name: str) -> Path:
        """Where ``name`` lands once committed."""
        return self.out_dir / name

    def temporary(self, name: str) -> Path:
        """A fresh temporary path for ``name`` in the destination directory."""
        if name in (MANIFEST, _JOURNAL) or "/" in name or name.startswith(_TMP_PREFIX):
            msg = f"{name!r} is not a valid output file name here."
            raise ValueError(msg)
        check_not_inputs([self.final_path(name)], self.inputs)
        if name in self._tmp:
            self._tmp[name].unlink(missing_ok=True)
        tmp = self.out_dir / f"{_TMP_PREFIX}{os.getpid()}-{os.urandom(4).hex()}-{name}"
        self._tmp[name] = tmp
        return tmp

    def write(self, name: str, data: str | bytes | Callable[[IO[bytes]], None]) -> Path:
        """Write ``name`` (text as UTF-8, bytes, or a callback given a binary file)."""
        tmp = self.temporary(name)
        try:
            with tmp.open("wb") as fh:
                if callable(data):
                    data(fh)
                else:
                    fh.write(data.encode("utf-8") if isinstance(data, str) else data)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            raise _oserror(exc, self.final_path(name), "write") from None
        return self.final_path(name)

    def written(self, name: str, writer: Callable[[Path], object]) -> Path:
        """Let ``writer(tmp_path)`` write ``name`` (e.g. ``DataFrame.to_parquet``)."""
        tmp = self.temporary(name)
        try:
            writer(tmp)
            with tmp.open("rb") as fh:
                os.fsync(fh.fileno())
        except OSError as exc:
            raise _oserror(exc, self.final_path(name), "write") from None
        return self.final_path(name)

    def commit(self) -> dict[str, Path]:
        """Move the whole set into place, with its manifest; return name -> final path."""
        directory = self.out_dir
        try:
            files = {
                name: {"sha256": _sha256(tmp), "bytes": tmp.stat().st_size}
                for name, tmp in self._tmp.items()
            }
            manifest = {"format": "dissensus-output/1", "params": self.params, "files": files}
            manifest_tmp = directory / f"{_TMP_PREFIX}{os.getpid()}-{MANIFEST}"
            with manifest_tmp.open("w", encoding="utf-8") as fh:
                json.dump(manifest, fh, indent=1, sort_keys=True, default=str)
                fh.write("\n")
                fh.flush()
                os.fsync(fh.fileno())
            self._tmp[MANIFEST] = manifest_tmp
            stale = sorted(set(_previous_set(directory)) - set(self._tmp))
            plan = {
                "replace": [[tmp.name, name] for name, tmp in self._tmp.items()],
                "remove": stale,
            }
            journal_tmp = directory / f"{_TMP_PREFIX}{os.getpid()}-journal"
            journal_tmp.write_text(json.dumps(plan), encoding="utf-8")
        except OSError as exc:
            raise _oserror(exc, directory, "write the output files in") from None
        with _signals_held():
            os.replace(journal_tmp, directory / _JOURNAL)
            for name, tmp in self._tmp.items():
                os.replace(tmp, directory / name)
            for name in stale:
                with contextlib.suppress(FileNotFoundError):
                    (directory / name).unlink()
            (directory / _JOURNAL).unlink()
            _fsync_dir(directory)
        done = {name: directory / name for name in self._tmp}
        self._tmp = {}
        return done

    def discard(self) -> None:
        """Remove the temporaries not yet committed."""
        for tmp in self._tmp.values():
            with contextlib.suppress(OSError):
                tmp.unlink()
        self._tmp = {}


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
    """Write one file through a temporary name and :func:`os.replace`.

    The file at ``path`` is either the old one or the complete new one,
    never a truncated mix.

    Raises
    ------
    OutputError
        ``path`` is one of ``inputs``, or the write fails (the message names
        the path).
    """
    target = check_output_file(path)
    check_not_inputs([target], inputs)
    tmp = target.parent / f"{_TMP_PREFIX}{os.getpid()}-{os.urandom(4).hex()}-{target.name}"
    try:
        with tmp.open("wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        raise _oserror(exc, target, "write") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return target
