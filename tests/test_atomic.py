"""Tests of atomic output sets: commit together or not at all, locks, inputs never overwritten."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from dissensus import OutputError
from dissensus._atomic import (
    MANIFEST,
    AtomicFileSet,
    _signals_held,
    check_not_inputs,
    check_output_dir,
    locked_dir,
    write_file_atomically,
)

SRC = Path(__file__).resolve().parents[1] / "src"


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def _old_set(out: Path) -> dict[str, bytes]:
    with AtomicFileSet(out, params={"run": "old"}) as files:
        files.write("summary.csv", "model,mean\na,1\n")
        files.write("report.html", "<p>old</p>\n")
    return _snapshot(out)


def _locked_here(directory: Path) -> bool:
    """Whether some run holds the lock of ``directory``."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _manifest_matches(out: Path) -> None:
    manifest = json.loads((out / MANIFEST).read_text())
    for name, info in manifest["files"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == info["sha256"]


class TestAtomicFileSet:
    def test_commits_the_set_with_a_manifest(self, tmp_path):
        out = tmp_path / "out"
        with AtomicFileSet(out, params={"seed": 3}) as files:
            files.write("a.csv", "x\n1\n")
            files.written("b.bin", lambda p: p.write_bytes(b"\x00\x01"))
        assert sorted(p.name for p in out.iterdir()) == ["a.csv", "b.bin", MANIFEST]
        manifest = json.loads((out / MANIFEST).read_text())
        assert manifest["params"] == {"seed": 3}
        _manifest_matches(out)

    def test_an_exception_leaves_the_old_set_and_no_temporaries(self, tmp_path):
        out = tmp_path / "out"
        old = _old_set(out)

        def run() -> None:
            with AtomicFileSet(out) as files:
                files.write("summary.csv", "model,mean\nb,2\n")
                raise RuntimeError

        with pytest.raises(RuntimeError):
            run()
        assert _snapshot(out) == old

    def test_keyboard_interrupt_leaves_the_old_set(self, tmp_path):
        out = tmp_path / "out"
        old = _old_set(out)

        def run() -> None:
            with AtomicFileSet(out) as files:
                files.write("summary.csv", "new\n")
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            run()
        assert _snapshot(out) == old

    def test_files_of_the_old_set_not_in_the_new_one_are_removed(self, tmp_path):
        # Otherwise a new summary would sit beside the old report.
        out = tmp_path / "out"
        _old_set(out)
        with AtomicFileSet(out) as files:
            files.write("summary.csv", "new\n")
        assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "summary.csv"]

    def test_an_input_of_the_run_is_never_removed_as_stale(self, tmp_path):
        # the old set's summary.csv is read by the new run (through a hard link elsewhere),
        # whose set has no summary.csv: the manifest listing an input is not taken as ours
        out = tmp_path / "out"
        old = _old_set(out)
        source = tmp_path / "input.csv"
        os.link(out / "summary.csv", source)
        with (
            pytest.raises(OutputError, match=r"not written by dissensus .*the input"),
            AtomicFileSet(out, inputs=[source]) as files,
        ):
            files.write("other.csv", "x\n")
        assert _snapshot(out) == old

    def test_a_directory_holding_an_input_is_refused(self, tmp_path):
        out = tmp_path / "out"
        out.mkdir()
        victim = out / "summary.csv"
        victim.write_text("precious\n")
        with (
            pytest.raises(OutputError, match="it holds the input"),
            AtomicFileSet(out, inputs=[victim]) as f,
        ):
            f.write("summary.csv", "new\n")
        assert victim.read_text() == "precious\n"

    def test_refuses_to_write_over_an_input(self, tmp_path):
        out = tmp_path / "out"
        _old_set(out)
        victim = tmp_path / "data.csv"
        os.link(out / "summary.csv", victim)  # the same file under another name
        with pytest.raises(OutputError, match="input"), AtomicFileSet(out, inputs=[victim]) as f:
            f.write("summary.csv", "new\n")
        assert victim.read_text() == "model,mean\na,1\n"

    def test_a_directory_inside_an_input_directory_is_refused(self, tmp_path):
        dataset = tmp_path / "data.parquet"  # a partitioned dataset is a directory
        dataset.mkdir()
        with pytest.raises(OutputError, match="inside the input directory"):
            AtomicFileSet(dataset / "report", inputs=[dataset]).__enter__()
        assert list(dataset.iterdir()) == []

    def test_a_hard_link_to_an_input_is_the_input(self, tmp_path):
        src = tmp_path / "data.csv"
        src.write_text("x\n")
        link = tmp_path / "other.csv"
        os.link(src, link)
        with pytest.raises(OutputError, match="input file"):
            check_not_inputs([link], [src])

    def test_a_crash_in_the_middle_of_a_commit_is_finished_by_the_next_run(self, tmp_path):
        # A SIGKILL between two moves leaves the journal; the next lock rolls it forward.
        out = tmp_path / "out"
        _old_set(out)
        (out / ".dissensus-tmp-1-x-summary.csv").write_text("new\n")
        (out / ".dissensus-tmp-1-other").write_text("stale temporary\n")
        manifest = {
            "format": "dissensus-output/1",
            "written_by": "dissensus",
            "files": {"summary.csv": {"sha256": hashlib.sha256(b"new\n").hexdigest()}},
        }
        (out / ".dissensus-tmp-1-x-manifest.json").write_text(json.dumps(manifest))
        plan = {
            "replace": [
                [".dissensus-tmp-1-x-summary.csv", "summary.csv"],
                [".dissensus-tmp-1-x-manifest.json", MANIFEST],
            ],
            "remove": ["report.html"],
        }
        (out / ".dissensus-commit.json").write_text(json.dumps(plan))
        with locked_dir(out):
            pass
        assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "summary.csv"]
        assert (out / "summary.csv").read_text() == "new\n"


def _manifest(files: dict[str, object], **keys: object) -> str:
    return json.dumps(
        {"format": "dissensus-output/1", "written_by": "dissensus", **keys, "files": files}
    )


class TestOnlyWhatDissensusWrote:
    """A file is replaced or removed only if the manifest there is ours and its SHA-256 matches."""

    @pytest.mark.parametrize(
        ("manifest", "why"),
        [
            ('{"files": {"keep.csv": {}}}', "signature"),
            ("not json", "not readable JSON"),
            ("[1, 2]", "signature"),
            (_manifest({"keep.csv": {}}, written_by="someone"), "written_by"),
            (_manifest({"../keep.csv": {"sha256": "0" * 64}}), "not a file name"),
            (_manifest({"keep.csv": {"sha256": 1}}), "not a file name"),
            (_manifest({"keep.csv": {"sha256": "0" * 64}}), "changed since dissensus wrote it"),
        ],
    )
    def test_a_foreign_manifest_is_refused_and_nothing_is_deleted(self, tmp_path, manifest, why):
        out = tmp_path / "out"
        out.mkdir()
        (out / "keep.csv").write_text("precious\n")
        (out / MANIFEST).write_text(manifest)
        before = _snapshot(out)
        with pytest.raises(OutputError, match=why), AtomicFileSet(out) as files:
            files.write("summary.csv", "new\n")
        with pytest.raises(OutputError, match=why), locked_dir(out, names=["summary.csv"]):
            pytest.fail("the block was entered")
        assert _snapshot(out) == before
        assert not _locked_here(out)

    def test_the_message_says_which_file_and_what_to_do(self, tmp_path):
        out = tmp_path / "out"
        out.mkdir()
        (out / MANIFEST).write_text("{}")
        with pytest.raises(OutputError) as info, locked_dir(out):
            pass
        assert str(out / MANIFEST) in str(info.value)
        assert "move it away or choose another --out" in str(info.value)

    def test_a_file_of_the_new_set_that_dissensus_did_not_write_is_not_replaced(self, tmp_path):
        out = tmp_path / "out"
        out.mkdir()
        (out / "summary.csv").write_text("mine\n")
        with pytest.raises(OutputError, match="did not write it"), AtomicFileSet(out) as files:
            files.write("summary.csv", "new\n")
        with (
            pytest.raises(OutputError, match="did not write it"),
            locked_dir(out, names=["summary.csv"]),
        ):
            pytest.fail("the block was entered")
        assert _snapshot(out) == {"summary.csv": b"mine\n"}

    def test_a_file_changed_since_it_was_written_is_not_removed(self, tmp_path):
        out = tmp_path / "out"
        _old_set(out)
        (out / "report.html").write_text("edited by hand\n")
        before = _snapshot(out)
        with (
            pytest.raises(OutputError, match=r"report\.html: it changed since"),
            AtomicFileSet(out) as files,
        ):
            files.write("summary.csv", "new\n")
        assert _snapshot(out) == before

    def test_a_file_of_our_set_is_replaced_and_the_manifest_is_signed(self, tmp_path):
        out = tmp_path / "out"
        _old_set(out)
        with AtomicFileSet(out) as files:
            files.write("summary.csv", "new\n")
        manifest = json.loads((out / MANIFEST).read_text())
        assert manifest["written_by"] == "dissensus"
        assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "summary.csv"]

    def test_a_manifest_of_an_earlier_version_is_ours_when_the_hashes_match(self, tmp_path):
        out = tmp_path / "out"
        out.mkdir()
        (out / "summary.csv").write_text("old\n")
        digest = hashlib.sha256(b"old\n").hexdigest()
        legacy = {"format": "dissensus-output/1", "files": {"summary.csv": {"sha256": digest}}}
        (out / MANIFEST).write_text(json.dumps(legacy))
        with AtomicFileSet(out) as files:
            files.write("report.html", "new\n")
        assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "report.html"]

    def test_two_sets_in_one_lock(self, tmp_path):
        # the CLI holds the lock; a library call inside commits twice
        out = tmp_path / "out"
        with locked_dir(out):
            for text in ("one\n", "two\n"):
                with AtomicFileSet(out) as files:
                    files.write("summary.csv", text)
        assert (out / "summary.csv").read_text() == "two\n"
        _manifest_matches(out)


class TestSignalsHeld:
    def test_a_signal_raised_as_the_mask_changes_leaves_the_mask_as_it_was(self, monkeypatch):
        # pthread_sigmask runs the handlers of signals that arrived before it returns:
        # a KeyboardInterrupt then comes out of the call that blocked SIGINT.
        real = signal.pthread_sigmask
        before = real(signal.SIG_BLOCK, ())

        def interrupted(how: int, mask: object) -> set[signal.Signals]:
            old = real(how, mask)
            if how == signal.SIG_BLOCK and mask:
                raise KeyboardInterrupt
            return old

        monkeypatch.setattr(signal, "pthread_sigmask", interrupted)
        with pytest.raises(KeyboardInterrupt), _signals_held():
            pytest.fail("the block was entered")
        assert real(signal.SIG_BLOCK, ()) == before

    def test_signals_are_held_inside_and_restored_after(self):
        before = signal.pthread_sigmask(signal.SIG_BLOCK, ())
        with _signals_held():
            inside = signal.pthread_sigmask(signal.SIG_BLOCK, ())
        assert {signal.SIGINT, signal.SIGTERM} <= inside
        assert signal.pthread_sigmask(signal.SIG_BLOCK, ()) == before


class TestCheckOutputDir:
    def test_a_file_is_not_a_directory(self, tmp_path):
        f = tmp_path / "file"
        f.write_text("")
        with pytest.raises(OutputError, match="is a file"):
            check_output_dir(f)
        with pytest.raises(OutputError, match=r"parent .* is a file"):
            check_output_dir(f / "sub")

    @pytest.mark.skipif(os.geteuid() == 0, reason="root can write to any directory")
    def test_not_writable(self, tmp_path):
        d = tmp_path / "ro"
        d.mkdir(mode=0o500)
        with pytest.raises(OutputError, match="not writable"):
            check_output_dir(d)


class TestLockedDir:
    def test_a_second_run_is_refused_while_the_first_holds_the_lock(self, tmp_path):
        out = tmp_path / "out"
        out.mkdir()
        fd = os.open(out, os.O_RDONLY)  # another open file description: another run
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            with pytest.raises(OutputError, match="another dissensus run"), locked_dir(out):
                pass
        finally:
            os.close(fd)
        with locked_dir(out), locked_dir(out):  # re-entrant within one run
            pass

    def test_an_output_name_that_is_an_input_is_refused_before_the_lock(self, tmp_path):
        out = tmp_path / "out"
        out.mkdir()
        source = tmp_path / "gold.csv"
        source.write_text("x\n")
        os.link(source, out / "summary.csv")
        with (
            pytest.raises(OutputError, match="input file"),
            locked_dir(out, inputs=[source], names=["report.html", "summary.csv"]),
        ):
            pytest.fail("the block was entered")
        assert not _locked_here(out)


class TestWriteFileAtomically:
    def test_replaces_whole(self, tmp_path):
        target = tmp_path / "t.json"
        target.write_text("old")
        write_file_atomically(target, "new")
        assert target.read_text() == "new"
        assert [p.name for p in tmp_path.iterdir()] == ["t.json"]

    def test_refuses_an_input(self, tmp_path):
        target = tmp_path / "t.csv"
        target.write_text("old")
        with pytest.raises(OutputError, match="input file"):
            write_file_atomically(target, "new", inputs=[str(target)])
        assert target.read_text() == "old"


def _fail(code: int) -> OSError:
    return OSError(code, os.strerror(code))


class TestFaults:
    @pytest.mark.parametrize("code", [errno.EACCES, errno.EROFS])
    def test_a_read_only_directory_fails_before_the_lock(self, tmp_path, monkeypatch, code):
        # root ignores permissions: the refusal of the file system is simulated
        out = tmp_path / "out"
        old = _old_set(out)
        real = os.open

        def refused(path, flags, *args, **kwargs):
            if flags & os.O_CREAT and Path(path).parent == out:
                raise _fail(code)
            return real(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", refused)
        with (
            pytest.raises(OutputError, match=f"{out} is not writable: .*errno {code}"),
            AtomicFileSet(out),
        ):
            pytest.fail("the block was entered")
        with pytest.raises(OutputError, match="is not writable"):
            write_file_atomically(out / "summary.csv", "new\n")
        monkeypatch.undo()
        assert _snapshot(out) == old

    @pytest.mark.skipif(os.geteuid() == 0, reason="root can write to any directory")
    def test_a_read_only_directory_for_real(self, tmp_path):
        out = tmp_path / "out"
        old = _old_set(out)
        out.chmod(0o555)
        try:
            with pytest.raises(OutputError, match="is not writable"), AtomicFileSet(out):
                pytest.fail("the block was entered")
        finally:
            out.chmod(0o755)
        assert _snapshot(out) == old

    @pytest.mark.parametrize("when", ["write", "fsync", "manifest"])
    def test_disk_full_leaves_the_old_set_and_no_temporaries(self, tmp_path, monkeypatch, when):
        out = tmp_path / "out"
        old = _old_set(out)
        real_fsync = os.fsync
        calls = {"n": 0}

        def full_fsync(fd: int) -> None:
            calls["n"] += 1
            # the second file of the set, or the manifest written by the commit
            if when == "fsync" or (when == "manifest" and calls["n"] > 2):
                raise _fail(errno.ENOSPC)
            real_fsync(fd)

        def full_write(fh: object) -> None:
            raise _fail(errno.ENOSPC)

        def run() -> None:
            with AtomicFileSet(out) as files:
                files.write("summary.csv", "new\n")
                files.write("report.html", full_write if when == "write" else "<p>new</p>\n")

        monkeypatch.setattr(os, "fsync", full_fsync)
        with pytest.raises(OutputError, match="No space left on device"):
            run()
        monkeypatch.undo()
        assert _snapshot(out) == old  # no 0-byte file, no temporary
        _manifest_matches(out)

    def test_disk_full_on_a_single_file_keeps_the_old_one(self, tmp_path, monkeypatch):
        target = tmp_path / "r.csv"
        target.write_text("old\n")

        def full(fd: int) -> None:
            raise _fail(errno.ENOSPC)

        monkeypatch.setattr(os, "fsync", full)
        with pytest.raises(OutputError, match=r"cannot write .*r\.csv: No space left"):
            write_file_atomically(target, "new\n")
        monkeypatch.undo()
        assert _snapshot(tmp_path) == {"r.csv": b"old\n"}

    def test_disk_full_names_the_path_and_keeps_the_old_set(self, tiny_tmpfs):
        out = tiny_tmpfs / "out"
        old = _old_set(out)
        with (
            pytest.raises(OutputError, match=r"cannot write .*big\.bin: No space left.*errno 28"),
            AtomicFileSet(out) as files,
        ):
            files.write("big.bin", b"\x00" * 200_000)
        assert _snapshot(out) == old
        _manifest_matches(out)

    def test_sigterm_during_a_write_keeps_the_old_set(self, tmp_path):
        out = tmp_path / "out"
        old = _old_set(out)
        started = tmp_path / "started"
        script = textwrap.dedent(
            f"""
            import pathlib, time
            from dissensus._atomic import AtomicFileSet

            def slow(fh):
                fh.write(b"partial")
                fh.flush()
                pathlib.Path({str(started)!r}).touch()
                time.sleep(60)

            with AtomicFileSet({str(out)!r}) as files:
                files.write("summary.csv", slow)
            """
        )
        env = {**os.environ, "PYTHONPATH": str(SRC)}
        proc = subprocess.Popen([sys.executable, "-c", script], env=env)
        try:
            deadline = time.monotonic() + 30
            while not started.exists():
                assert proc.poll() is None, "the writer stopped early"
                assert time.monotonic() < deadline, "the writer never started"
                time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        # The process died outright (no handler): its temporary is left, the set is intact.
        files = {n: b for n, b in _snapshot(out).items() if not n.startswith(".dissensus-tmp-")}
        assert files == old
        _manifest_matches(out)
        with locked_dir(out):  # the next run removes the dead run's temporaries
            pass
        assert _snapshot(out) == old
