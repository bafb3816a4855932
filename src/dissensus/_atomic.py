"""The one output writer: a run leaves the complete new set of files or the complete old one.

Every file goes to a temporary name in its destination directory, is
flushed to disk, and is moved into place with :func:`os.replace` only when
the whole set is complete, with a ``manifest.json`` recording the run's
parameters and the SHA-256 of each file; files of the previous set that the
new one lacks are removed (never one of the run's inputs). A file is replaced
or removed only when dissensus wrote it: the manifest in the directory is
signed (``"written_by": "dissensus"``) and the file's SHA-256 still matches
the one it lists; a foreign or damaged manifest, or a file of the new set
already there and not in the manifest, is refused before any work. The moves are
journalled (``.dissensus-commit.json``) and done with SIGINT/SIGTERM held
back, so a commit killed half-way is finished by the next run there; a run
stopped before its commit leaves the old set untouched and its temporaries
are removed (now, or by the next run when the process was killed outright).

A directory being written is locked (``flock`` on the directory itself), so
two runs cannot interleave their files: the second stops with a clear
:class:`~dissensus.OutputError` before computing anything. An output that
is one of the run's inputs (same path, symlink or hard link), an output
directory that is, holds or lies inside an input, are refused; whether the
directory is writable is tried (a probe file created and removed) before any
work. Errors, a full disk or a read-only file system included, name the path.
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

# Locks held by this process: resolved directory -> (fd, depth, the files dissensus wrote there:
# name -> SHA-256). flock locks belong to an open file description, so a nested lock on the same
# directory (the CLI holds it while it computes, Evaluation.save takes it again) must reuse the
# descriptor, not open a conflicting second one; the previous set is read (and hashed) once.
_HELD: dict[Path, tuple[int, int, dict[str, str]]] = {}
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
    _probe(out, f"output directory {out}", "choose another --out or fix its permissions")
    return out


def _probe(directory: Path, what: str, fix: str) -> None:
    """Create and remove a file in ``directory``: refuse it now, not after the work, if that fails.

    ``os.access`` is not enough: root passes it on a read-only directory, and
    a read-only file system (EROFS) only shows when a file is created.
    """
    probe = _temporary_path(directory, "probe")
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        code = f" (errno {exc.errno})" if exc.errno else ""
        msg = f"{what} is not writable: {exc.strerror or exc}{code}; {fix}."
        raise OutputError(msg) from None


def check_output_file(path: str | Path) -> Path:
    """Check up front that a single output file can be written at ``path``; return it."""
    target = Path(path)
    if target.is_dir():
        msg = f"output {target} is a directory; give a file name."
    elif not target.parent.is_dir():
        msg = f"cannot write {target}: its directory {target.parent} does not exist."
    else:
        fix = "choose another output path or fix the directory's permissions"
        _probe(target.parent, f"cannot write {target}: directory {target.parent}", fix)
        return target
    raise OutputError(msg)


def _input_at(path: Path, inputs: Iterable[str | Path]) -> Path | None:
    """The input that ``path`` is or lies inside (symlinks resolved, or by device and inode)."""
    for source in (Path(p) for p in inputs if str(p) not in ("", "-")):
        if path.resolve().is_relative_to(source.resolve()):  # the input itself, or a directory
            return source
        with contextlib.suppress(OSError):
            if path.exists() and source.exists() and os.path.samefile(path, source):
                return source
    return None


def check_not_inputs(outputs: Iterable[str | Path], inputs: Iterable[str | Path]) -> None:
    """Refuse to write any output over one of the inputs (hard links and symlinks included).

    An output inside an input directory (a partitioned Parquet dataset) is refused too:
    it would become part of that input.
    """
    inputs = list(inputs)
    for out in map(Path, outputs):
        if (source := _input_at(out, inputs)) is not None:
            inside = source.is_dir() and out.resolve() != source.resolve()
            what = "inside the input directory" if inside else "the input file"
            msg = f"refusing to write {out}: it is {what} {source}; choose another output path so the input is not overwritten."
            raise OutputError(msg)


def check_output_dir_not_inputs(out: str | Path, inputs: Iterable[str | Path]) -> None:
    """Refuse an output directory that is an input, lies inside one, or directly holds one.

    A set of files written into the directory of an input could take an input's
    name (``leaderboard gold.csv ... --out DIR`` with DIR/gold.csv the gold), and
    removing the previous set could touch it: the outputs go to a directory of their own.
    """
    directory = Path(out)
    sources = [Path(p) for p in inputs if str(p) not in ("", "-")]
    check_not_inputs([directory], sources)
    for source in sources:
        if source.exists() and source.resolve().parent == directory.resolve():
            msg = f"refusing to write into {directory}: it holds the input {source}; choose another --out (a directory of its own for the output files)."
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

    A command holds it from before its work until its outputs are committed: a bad
    ``--out`` (not writable, an input, holding an input), a concurrent run, a foreign
    ``manifest.json``, or an output file (of ``names``) that is an input or that
    dissensus did not write, fails before any work.
    """
    with _locked(path, inputs, names) as (out, _):
        yield out


@contextlib.contextmanager
def _locked(
    path: str | Path, inputs: Iterable[str | Path], names: Iterable[str]
) -> Iterator[tuple[Path, dict[str, str]]]:
    """:func:`locked_dir`, also yielding the previous set (shared with the nested holders)."""
    inputs, names = list(inputs), list(names)
    check_output_dir_not_inputs(path, inputs)
    out = check_output_dir(path)
    check_not_inputs([out / name for name in names], inputs)
    key = out.resolve()
    with _HELD_GUARD:
        held = _HELD.get(key)
        fd, depth, owned = held or (_lock(key, out), 0, {})
        _HELD[key] = (fd, depth + 1, owned)
    try:
        if held is None:
            _recover(key)
            owned.update(previous_set(out, inputs))
        for name in names:
            _check_replaceable(out, name, owned)
        yield out, owned
    finally:
        with _HELD_GUARD:
            fd, depth, owned = _HELD.pop(key)
            if depth > 1:
                _HELD[key] = (fd, depth - 1, owned)
            else:
                os.close(fd)


def _check_replaceable(directory: Path, name: str, owned: Mapping[str, str]) -> None:
    """Refuse to replace ``directory/name`` unless the manifest there says dissensus wrote it."""
    target = directory / name
    if (target.exists() or target.is_symlink()) and name not in owned:
        msg = (
            f"refusing to replace {target}: dissensus did not write it (it is not in "
            f"{directory / MANIFEST} with its SHA-256); move it away or choose another --out."
        )
        raise OutputError(msg)


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
        # the previous set, shared with an enclosing lock of the directory (updated on commit)
        self._owned: dict[str, str] = {}

    def __enter__(self) -> AtomicFileSet:
        _, self._owned = self._lock.enter_context(_locked(self.out_dir, self.inputs, ()))
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
        """A fresh temporary path for ``name``.

        Refuses (OutputError) a name that is an input, or a file already there that
        dissensus did not write (see :func:`previous_set`).
        """
        if not _plain_name(name):
            msg = f"{name!r} is not a valid output file name here."
            raise ValueError(msg)
        check_not_inputs([self.final_path(name)], self.inputs)
        _check_replaceable(self.out_dir, name, self._owned)
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
            manifest = {
                "format": _FORMAT,
                _SIGNATURE[0]: _SIGNATURE[1],
                "params": self.params,
                "files": files,
            }
            tmp[MANIFEST] = _temporary_path(directory, MANIFEST)
            _fsync(
                tmp[MANIFEST], json.dumps(manifest, indent=1, sort_keys=True, default=str) + "\n"
            )
            # Only files whose content is still what dissensus wrote (checked again now).
            stale = [
                name
                for name, digest in sorted(self._owned.items())
                if name not in tmp and _still(directory / name, digest, self.inputs)
            ]
            plan = {"replace": [[t.name, n] for n, t in tmp.items()], "remove": stale}
            tmp[_JOURNAL] = journal = _temporary_path(directory, "journal")
            _fsync(journal, json.dumps(plan))
            del tmp[_JOURNAL]
        with _signals_held():
            os.replace(journal, directory / _JOURNAL)  # from here on a later run finishes it
            for name, path in tmp.items():
                os.replace(path, directory / name)
            for name in stale:
                (directory / name).unlink(missing_ok=True)
            (directory / _JOURNAL).unlink()
            _fsync(directory)
        self._tmp, self._committed = {}, True
        self._owned.clear()
        self._owned.update({name: str(info["sha256"]) for name, info in files.items()})
        return {name: directory / name for name in tmp}

    def discard(self) -> None:
        """Remove the temporaries not yet committed."""
        for tmp in self._tmp.values():
            with contextlib.suppress(OSError):
                tmp.unlink()
        self._tmp = {}


def _still(path: Path, digest: str, inputs: Iterable[str | Path]) -> bool:
    """``path`` still holds what dissensus wrote (SHA-256 ``digest``) and is not an input."""
    return (
        path.is_file()
        and not path.is_symlink()
        and _sha256(path) == digest
        and _input_at(path, inputs) is None
    )


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


#: The signature of a manifest dissensus wrote (with its "format").
_SIGNATURE = ("written_by", "dissensus")
_FORMAT = "dissensus-output/1"


def _foreign(manifest: Path, why: str) -> OutputError:
    msg = (
        f"{manifest} was not written by dissensus ({why}), so the files it lists are not "
        f"replaced or removed; move it away or choose another --out."
    )
    return OutputError(msg)


def previous_set(directory: str | Path, inputs: Iterable[str | Path] = ()) -> dict[str, str]:
    """The files of the previous set in ``directory`` that dissensus wrote: name -> SHA-256.

    Read from ``manifest.json``, which must be one dissensus wrote: a JSON object
    with ``"format": "dissensus-output/1"`` (and ``"written_by": "dissensus"``; the
    format alone is accepted from earlier versions) whose files are plain names in
    the directory, none of them an input, each with its SHA-256. A listed file that
    is missing is left out; one whose content no longer matches its SHA-256 (changed
    since) is refused, like a foreign manifest (:class:`OutputError`), so that
    nothing dissensus did not write is ever replaced or removed. Empty without a manifest.
    """
    directory = Path(directory)
    path = directory / MANIFEST
    if not (path.exists() or path.is_symlink()):
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _foreign(path, f"it is not readable JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
        raise _foreign(path, f'no "format": "{_FORMAT}" signature')
    if manifest.get(_SIGNATURE[0], _SIGNATURE[1]) != _SIGNATURE[1]:
        raise _foreign(path, f"it says written_by {manifest.get(_SIGNATURE[0])!r}")
    files = manifest.get("files")
    if not isinstance(files, dict):
        raise _foreign(path, 'no "files" object')
    inputs = list(inputs)
    owned: dict[str, str] = {}
    for name, info in files.items():
        digest = info.get("sha256") if isinstance(info, dict) else None
        if not _plain_name(name) or not isinstance(digest, str):
            raise _foreign(path, f"it lists {name!r}, not a file name with its SHA-256")
        target = directory / name
        if (source := _input_at(target, inputs)) is not None:
            raise _foreign(path, f"it lists {name}, the input {source}")
        if not target.exists():
            continue
        if not target.is_file() or target.is_symlink() or _sha256(target) != digest:
            msg = (
                f"refusing to replace {target}: it changed since dissensus wrote it (its SHA-256 "
                f"differs from {path}'s); move it away or choose another --out."
            )
            raise OutputError(msg)
        owned[name] = digest
    return owned


def _plain_name(name: object) -> bool:
    """A file name dissensus writes: no directory part, not its own bookkeeping."""
    return (
        isinstance(name, str)
        and name not in ("", ".", "..", MANIFEST, _JOURNAL)
        and "/" not in name
        and "\0" not in name
        and not name.startswith(_TMP_PREFIX)
    )


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
