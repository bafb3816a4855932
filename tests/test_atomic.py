"""Tests of atomic output sets: commit together or not at all, locks, inputs never overwritten."""

from __future__ import annotations

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
        # the old set's summary.csv is read by the new run, whose set has no summary.csv
        out = tmp_path / "out"
        _old_set(out)
        source = out / "summary.csv"
        with AtomicFileSet(out, inputs=[source]) as files:
            files.write("other.csv", "x\n")
        assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "other.csv", "summary.csv"]
        assert source.read_text() == "model,mean\na,1\n"

    def test_refuses_to_write_over_an_input(self, tmp_path):
        out = tmp_path / "out"
        out.mkdir()
        victim = out / "summary.csv"
        victim.write_text("precious\n")
        with (
            pytest.raises(OutputError, match="input file"),
            AtomicFileSet(out, inputs=[victim]) as f,
        ):
            f.write("summary.csv", "new\n")
        assert victim.read_text() == "precious\n"

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
        plan = {
            "replace": [[".dissensus-tmp-1-x-summary.csv", "summary.csv"]],
            "remove": ["report.html"],
        }
        (out / ".dissensus-commit.json").write_text(json.dumps(plan))
        with locked_dir(out):
            pass
        assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "summary.csv"]
        assert (out / "summary.csv").read_text() == "new\n"


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
        _old_set(out)  # its summary.csv is the input below
        inputs = [out / "summary.csv"]
        with (
            pytest.raises(OutputError, match="input file"),
            locked_dir(out, inputs=inputs, names=["report.html", "summary.csv"]),
        ):
            pytest.fail("the block was entered")
        with locked_dir(out, inputs=inputs, names=["report.html"]):
            pass


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


class TestFaults:
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
