"""The CLI's outputs: checked before computing, atomic, never over an input; signals and faults."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dissensus.cli._experiment
import dissensus.cli._reader_options
import dissensus.experiments
import dissensus.simulate
from dissensus._atomic import AtomicFileSet
from dissensus.cli import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, _Terminated, main
from dissensus.cli._commands import SUMMARIES, load
from dissensus.datasets import example_path
from dissensus.leaderboard import Leaderboard
from tests.experiments._tiny import tiny_frame

K = 4
SRC = Path(__file__).resolve().parents[2] / "src"

# Commands are imported when they first run: import them all now, so that a module
# first imported while a test's monkeypatch is active does not keep the patched name.
for _name in SUMMARIES:
    load(_name)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    rng = np.random.default_rng(11)
    n_items = 30
    rows = [
        (f"i{i}", f"a{a}", int(rng.integers(1, K + 1))) for i in range(n_items) for a in range(3)
    ]
    ann = tmp_path / "ann.csv"
    pd.DataFrame(rows, columns=["item", "annotator", "label"]).to_csv(ann, index=False)
    out = {"ann": ann}
    for m in ("a", "b"):
        q = rng.dirichlet(np.ones(K), size=n_items)
        df = pd.DataFrame(q, columns=[str(k) for k in range(1, K + 1)])
        df.insert(0, "item", [f"i{i}" for i in range(n_items)])
        out[m] = tmp_path / f"{m}.csv"
        df.to_csv(out[m], index=False)
    return out


def _args(files: dict[str, Path], out: Path, *extra: str) -> list[str]:
    return [
        "evaluate", str(files["ann"]), "--pred", f"a={files['a']}", "--pred", f"b={files['b']}",
        "--n-resamples", "50", "--metrics", "emd,E[emd]", "--out", str(out), *extra,
    ]  # fmt: skip


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


class TestEvaluateOut:
    def test_out_below_a_file_fails_before_computing(self, files, tmp_path, capsys, monkeypatch):
        def boom(*a, **k):
            raise AssertionError("computed before checking --out")

        monkeypatch.setattr(dissensus.cli._reader_options, "load_annotations", boom)
        blocker = tmp_path / "file"
        blocker.write_text("")
        assert main(_args(files, blocker / "sub")) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert "is a file, not a directory" in err

    def test_a_prediction_file_inside_out_is_not_overwritten(self, files, tmp_path, capsys):
        out = tmp_path / "out"
        out.mkdir()
        pred = out / "summary.csv"
        shutil.copy(files["a"], pred)
        before = pred.read_bytes()
        code = main(_args({**files, "a": pred}, out))
        assert code == EXIT_BAD_INPUT
        assert "refusing to write" in capsys.readouterr().err
        assert pred.read_bytes() == before

    def test_a_concurrent_run_is_refused(self, files, tmp_path, capsys):
        out = tmp_path / "out"
        out.mkdir()
        fd = os.open(out, os.O_RDONLY)  # what the other run holds
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            assert main(_args(files, out)) == EXIT_BAD_INPUT
        finally:
            os.close(fd)
        assert "another dissensus run is writing to" in capsys.readouterr().err
        assert list(out.iterdir()) == []

    def test_one_resample_is_refused(self, files, tmp_path, capsys):
        assert main(_args(files, tmp_path / "o", "--n-resamples", "1")) == EXIT_BAD_INPUT
        assert "--n-resamples" in capsys.readouterr().err

    def test_too_many_resamples_are_refused_with_the_range(self, files, tmp_path, capsys):
        args = _args(files, tmp_path / "o", "--n-resamples", "1000000000000")
        assert main(args) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert "--n-resamples" in err
        assert "2<=x<=10000000" in err
        assert "MemoryError" not in err

    def test_a_rerun_replaces_the_set_and_the_manifest_ties_it(self, files, tmp_path, capsys):
        out = tmp_path / "out"
        assert main(_args(files, out, "--seed", "1")) == EXIT_OK
        assert main(_args(files, out, "--seed", "2")) == EXIT_OK
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["params"]["seed"] == 2
        for name, info in manifest["files"].items():
            assert hashlib.sha256((out / name).read_bytes()).hexdigest() == info["sha256"]


def _slow_run_script(files: dict[str, Path], out: Path, started: Path) -> str:
    # The report is rendered last, after every table is written to its
    # temporary: stopping the run there is the worst moment for the old set.
    return textwrap.dedent(
        f"""
        import pathlib, signal, sys, time

        # Ctrl-C as from an interactive shell: SIGINT unblocked, Python's handler. A
        # test worker can hand its child a blocked or ignored SIGINT (seen twice in
        # CI: the sleep below then ran to its end); the inherited state goes to stderr.
        held = {{signal.SIGINT, signal.SIGTERM}}
        inherited = signal.pthread_sigmask(signal.SIG_UNBLOCK, held) & held
        print(f"inherited: blocked {{sorted(inherited)}}, SIGINT {{signal.getsignal(signal.SIGINT)}}",
              file=sys.stderr)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import dissensus.evaluation as ev

        def slow(self, *args, **kwargs):
            pathlib.Path({str(started)!r}).touch()
            time.sleep(60)

        ev.Evaluation.to_html = slow
        from dissensus.cli import main
        sys.exit(main({_args(files, out)!r}))
        """
    )


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGINT, EXIT_INTERRUPTED), (signal.SIGTERM, 128 + signal.SIGTERM)]
)
def test_a_signal_during_the_write_keeps_the_old_set(files, tmp_path, capsys, signum, code):
    out = tmp_path / "out"
    assert main(_args(files, out)) == EXIT_OK
    old = _snapshot(out)
    started = tmp_path / "started"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen(
        [sys.executable, "-c", _slow_run_script(files, out, started)],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the run never reached the report"
            time.sleep(0.05)
        proc.send_signal(signum)
        # a guard against a hang, not a speed check: a loaded CI machine took over 30 s
        _, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert "earlier output files are unchanged" in err
    assert _snapshot(out) == old  # no temporaries left, old files byte-identical


def test_disk_full_is_one_line_naming_the_path_and_keeps_the_old_set(
    files, tmp_path, capsys, tiny_tmpfs
):
    out = tiny_tmpfs / "out"
    # An old set small enough for the disk (no report), then a run that cannot fit.
    with AtomicFileSet(out) as old_set:
        old_set.write("summary.csv", "model,mean\nold,1\n")
    old = _snapshot(out)
    # the report is small now (tens of KB): leave the new set less room than it needs
    free = os.statvfs(tiny_tmpfs).f_bavail * os.statvfs(tiny_tmpfs).f_frsize
    (tiny_tmpfs / "filler").write_bytes(b"\0" * max(free - 8 * 1024, 0))
    assert main(_args(files, out)) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    # a small example also warns (one line per warning); the error itself is one line
    errors = [line for line in err.splitlines() if not line.startswith("dissensus: warning:")]
    assert len(errors) == 1
    assert f"cannot write {out}/" in err
    assert "No space left on device" in err
    assert _snapshot(out) == old


class TestAgreementOutputs:
    def test_csv_over_its_own_input_is_refused(self, files, capsys):
        before = files["ann"].read_bytes()
        assert main(["agreement", str(files["ann"]), "--csv", str(files["ann"])]) == EXIT_BAD_INPUT
        assert "refusing to write" in capsys.readouterr().err
        assert files["ann"].read_bytes() == before

    def test_json_and_csv_both_on_stdout_are_refused(self, files, capsys):
        code = main(["agreement", str(files["ann"]), "--json", "-", "--csv", "-"])
        assert code == EXIT_BAD_INPUT
        captured = capsys.readouterr()
        assert captured.out == ""
        assert "at most one" in captured.err

    def test_missing_directory_fails_up_front(self, files, tmp_path, capsys):
        code = main(["agreement", str(files["ann"]), "--csv", str(tmp_path / "no" / "t.csv")])
        assert code == EXIT_BAD_INPUT
        assert "does not exist" in capsys.readouterr().err

    def test_writes_files_whole(self, files, tmp_path, capsys):
        target = tmp_path / "t.csv"
        target.write_text("old")
        assert main(["agreement", str(files["ann"]), "--csv", str(target)]) == EXIT_OK
        assert target.read_text().startswith("coefficient")
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_few_items_warn_in_one_line(tmp_path, capsys):
    ann = tmp_path / "ann.csv"
    ann.write_text("item,annotator,label\ni1,a,1\ni1,b,2\ni2,a,2\ni2,b,2\n")
    pred = tmp_path / "p.csv"
    pred.write_text("item,1,2\ni1,0.5,0.5\ni2,0.1,0.9\n")
    args = [
        "evaluate",
        str(ann),
        "--pred",
        f"m={pred}",
        "--n-resamples",
        "20",
        "--out",
        str(tmp_path / "o"),
    ]
    assert main(args) == EXIT_OK
    err = capsys.readouterr().err
    assert err.startswith("dissensus: warning: The evaluation's bootstrap interval rests on only 2")
    # one line per warning: the scores' intervals, the agreement coefficients' and their
    # intervals in the report
    lines = err.splitlines()
    assert len(lines) == 3
    assert all(line.startswith("dissensus: warning: ") for line in lines)
    assert sum("rests on only 2 item(s)" in line for line in lines) == 3


class TestExactReadingCli:
    def test_items_007_and_7_stay_two(self, tmp_path, capsys):
        ann = tmp_path / "a.csv"
        ann.write_text("item,annotator,label\n007,a,1\n007,b,2\n7,a,1\n7,b,1\n")
        assert main(["agreement", str(ann)]) == EXIT_OK
        assert "2 items, 4 ratings" in capsys.readouterr().out

    def test_strip_labels_and_the_spelling_warning(self, tmp_path, capsys):
        ann = tmp_path / "a.csv"
        ann.write_text("item,annotator,label\n1,a, pos\n1,b,pos\n2,a,neg\n2,b,neg\n")
        assert main(["agreement", str(ann)]) == EXIT_OK
        captured = capsys.readouterr()
        assert "dissensus: warning: Labels in" in captured.err
        assert "--strip-labels" in captured.err
        assert main(["agreement", str(ann), "--strip-labels"]) == EXIT_OK
        captured = capsys.readouterr()
        # nothing but the small example's own few-items warning
        assert [e for e in captured.err.splitlines() if "rests on only" not in e] == []
        assert "labels ['neg', 'pos']" in captured.out

    def test_na_values(self, tmp_path, capsys):
        ann = tmp_path / "a.csv"
        ann.write_text("item,annotator,label\n1,a,1\n1,b,NA\n")
        assert main(["agreement", str(ann), "--na-values", "NA"]) == EXIT_BAD_INPUT
        assert "Missing 'label' values" in capsys.readouterr().err

    def test_long_predictions_as_wide_hint(self, files, tmp_path, capsys):
        long = tmp_path / "long.csv"
        long.write_text("item,label,prob\ni0,1,0.5\ni0,2,0.5\n")
        code = main(_args({**files, "a": long}, tmp_path / "o", "--pred-layout", "wide"))
        assert code == EXIT_BAD_INPUT
        assert "--pred-layout long" in capsys.readouterr().err

    def test_trailing_comma_names_the_line(self, tmp_path, capsys):
        ann = tmp_path / "a.csv"
        ann.write_text("item,annotator,label\n1,a,1,\n1,b,2,\n")
        assert main(["agreement", str(ann)]) == EXIT_BAD_INPUT
        assert "line 2: 4 fields but the header has 3" in capsys.readouterr().err


@pytest.mark.parametrize("prior", ["1e20", "jeffreys"])
def test_extreme_priors_give_a_full_report(files, tmp_path, capsys, prior):
    tiny = tmp_path / "tiny.csv"
    q = pd.read_csv(files["a"])
    q[["1", "2"]] = [1e-307, 0.5]
    q[["3", "4"]] = [0.25, 0.25 - 1e-307]
    q.to_csv(tiny, index=False, float_format="%.17g")
    out = tmp_path / "o"
    args = _args({**files, "a": tiny}, out, "--prior", prior)
    args[args.index("emd,E[emd]")] = "emd,E[emd],E[manhattan],E[js_divergence]"
    assert main(args) == EXIT_OK
    err = capsys.readouterr().err
    # no raw numpy warnings; a prior of 1e20 pseudo-counts is rightly said to dominate
    assert all(line.startswith("dissensus: warning: ") for line in err.splitlines()), err
    assert ("weighs" in err) == (prior == "1e20")
    summary = pd.read_csv(out / "summary.csv")
    assert summary["mean"].notna().all()
    assert (out / "report.html").exists()


def test_no_scores(files, tmp_path, capsys):
    out = tmp_path / "o"
    assert main(_args(files, out)) == EXIT_OK
    assert (out / "scores.parquet").exists()
    assert main(_args(files, out, "--no-scores")) == EXIT_OK
    # the new set has no scores: the old file does not linger beside it
    assert not (out / "scores.parquet").exists()
    assert "scores.parquet" not in json.loads((out / "manifest.json").read_text())["files"]


def _boom(*args, **kwargs):
    raise AssertionError("worked before checking the outputs")


def _fill(disk: Path) -> None:
    """Fill a tiny tmpfs to the last byte, so that any new file fails with ENOSPC."""
    with (disk / "filler").open("wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError:
            pass


class TestOutputIsAnInput:
    """Every command that writes refuses, before any work, an output that is one of its inputs."""

    def test_allocate_out_over_the_annotations(self, files, capsys, monkeypatch):
        monkeypatch.setattr(dissensus.cli._reader_options, "load_annotations", _boom)
        before = files["ann"].read_bytes()
        args = ["allocate", str(files["ann"]), "--pred", f"a={files['a']}",
                "--pred", f"b={files['b']}", "--out", str(files["ann"])]  # fmt: skip
        assert main(args) == EXIT_BAD_INPUT
        assert "refusing to write" in capsys.readouterr().err
        assert files["ann"].read_bytes() == before

    def test_allocate_out_over_a_prediction_by_hard_link(
        self, files, tmp_path, capsys, monkeypatch
    ):
        monkeypatch.setattr(dissensus.cli._reader_options, "load_annotations", _boom)
        link = tmp_path / "link.csv"
        os.link(files["a"], link)
        args = ["allocate", str(files["ann"]), "--pred", f"a={files['a']}",
                "--pred", f"b={files['b']}", "--out", str(link)]  # fmt: skip
        assert main(args) == EXIT_BAD_INPUT
        assert f"it is the input file {files['a']}" in capsys.readouterr().err

    @pytest.mark.parametrize(
        ("command", "name"),
        [(["leaderboard", "{ann}", "{a}"], "scores.csv"), (["tendency", "{ann}", "--baselines"], "dic.csv")],
    )  # fmt: skip
    def test_annotations_named_like_an_output(self, files, tmp_path, capsys, monkeypatch, command, name):  # fmt: skip
        monkeypatch.setattr(dissensus.cli._reader_options, "load_annotations", _boom)
        out = tmp_path / "out"
        out.mkdir()
        ann = out / name
        shutil.copy(files["ann"], ann)
        args = [a.format(ann=ann, a=files["a"]) for a in command]
        assert main([*args, "--out", str(out)]) == EXIT_BAD_INPUT
        assert "refusing to write" in capsys.readouterr().err
        assert ann.read_bytes() == files["ann"].read_bytes()

    def test_experiment_file_named_like_an_output(self, tmp_path, capsys, monkeypatch):
        # the command imports run_experiment from dissensus.experiments when it runs
        monkeypatch.setattr(dissensus.experiments, "run_experiment", _boom)
        out = tmp_path / "out"
        out.mkdir()
        data = out / "summary.csv"
        tiny_frame(60).to_csv(data, index=False)
        assert main(["experiment", str(data), "--out", str(out)]) == EXIT_BAD_INPUT
        assert "refusing to write" in capsys.readouterr().err

    def test_example_over_the_shipped_file(self, capsys):
        shipped = example_path("a")
        before = shipped.read_bytes()
        assert main(["example", "a", "--out", str(shipped)]) == EXIT_BAD_INPUT
        assert "refusing to write" in capsys.readouterr().err
        assert shipped.read_bytes() == before

    def test_simulate_out_below_a_file(self, tmp_path, capsys, monkeypatch):
        monkeypatch.setattr(dissensus.simulate, "study", _boom)
        blocker = tmp_path / "file"
        blocker.write_text("")
        assert main(["simulate", "--out", str(blocker / "sub")]) == EXIT_BAD_INPUT
        assert "is a file, not a directory" in capsys.readouterr().err


class TestFailedWritesKeepTheOldOutput:
    """One fault per family: a set of files (leaderboard) and a single file (allocate, example)."""

    def test_leaderboard_interrupted_while_writing_keeps_the_old_set(self, files, tmp_path, capsys, monkeypatch):  # fmt: skip
        out = tmp_path / "board"
        args = ["leaderboard", str(files["ann"]), str(files["a"]), str(files["b"]),
                "--n-resamples", "20", "--out", str(out)]  # fmt: skip
        assert main(args) == EXIT_OK
        old = _snapshot(out)
        assert "manifest.json" in old

        def interrupted(self):
            raise KeyboardInterrupt

        monkeypatch.setattr(Leaderboard, "to_html", interrupted)
        assert main([*args, "--seed", "1"]) == EXIT_INTERRUPTED
        assert "earlier output files are unchanged" in capsys.readouterr().err
        assert _snapshot(out) == old

    def test_allocate_on_a_full_disk_keeps_the_old_file(self, files, tiny_tmpfs, capsys):
        out = tiny_tmpfs / "next.csv"
        out.write_text("item,expected_gain\nold,1\n")
        _fill(tiny_tmpfs)
        args = ["allocate", str(files["ann"]), "--pred", f"a={files['a']}",
                "--pred", f"b={files['b']}", "--budget", "5", "--out", str(out)]  # fmt: skip
        assert main(args) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert f"cannot write {out}: No space left on device" in err
        assert out.read_text() == "item,expected_gain\nold,1\n"
        assert sorted(p.name for p in tiny_tmpfs.iterdir()) == ["filler", "next.csv"]

    def test_example_on_a_full_disk_keeps_the_old_file(self, tiny_tmpfs, capsys):
        out = tiny_tmpfs / "a.csv"
        out.write_text("old\n")
        _fill(tiny_tmpfs)
        assert main(["example", "ratings", "--out", str(out)]) == EXIT_BAD_INPUT
        assert "No space left on device" in capsys.readouterr().err
        assert out.read_text() == "old\n"


# --------------------------------------------------------------------------- every command
#: Every command that writes files: its arguments (``{out}`` the output, ``{ann}``, ``{a}``,
#: ``{b}``, ``{pred}`` and ``{data}`` inputs), whether it writes a set of files into a
#: directory or one file, and the name of the step that does the work (patched to fail).
_WRITERS = {
    "evaluate": ("evaluate {ann} --pred a={a} --pred b={b} --n-resamples 20 --metrics emd,E[emd] --out {out}", "set", "read"),
    "leaderboard": ("leaderboard {ann} {a} {b} --n-resamples 20 --metrics emd,manhattan --out {out}", "set", "read"),
    "tendency": ("tendency {ann} --pred p={pred} --n-resamples 20 --min-overlap 5 --tables-only --out {out}", "set", "read"),
    "simulate": ("simulate --replicates 2 --items 10 --classes 3 --metrics emd --priors uniform --coverage-replicates 0 --allocation-replicates 0 --out {out}", "set", "study"),
    "experiment": ("experiment {data} --models A,B --n-resamples 20 --out {out}", "set", "experiment"),
    "allocate": ("allocate {ann} --pred a={a} --pred b={b} --budget 5 --out {out}", "file", "read"),
    "agreement": ("agreement {ann} --n-resamples 20 --csv {out}", "file", "read"),
    "agreement --json": ("agreement {ann} --n-resamples 20 --json {out}", "file", "read"),
    "example": ("example ratings --out {out}", "file", None),
}  # fmt: skip


@pytest.fixture
def inputs(files: dict[str, Path], tmp_path: Path) -> dict[str, Path]:
    """The fixture's files, per-annotator predictions and a text dataset, all in ``tmp_path``."""
    ann = pd.read_csv(files["ann"])
    pred = tmp_path / "pred.csv"
    ann.assign(label=(ann["label"] % K) + 1).to_csv(pred, index=False)
    data = tmp_path / "data.csv"
    tiny_frame(60).to_csv(data, index=False)
    return {**files, "pred": pred, "data": data}


def _command(name: str, inputs: dict[str, Path], out: Path) -> list[str]:
    template = _WRITERS[name][0]
    return [part.format(out=out, **inputs) for part in template.split()]


def _forbid_work(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the command's work fail: the checks of its outputs must come first."""
    step = _WRITERS[name][2]
    if step == "read":
        monkeypatch.setattr(dissensus.cli._reader_options, "load_annotations", _boom)
    elif step == "study":
        monkeypatch.setattr(dissensus.simulate, "study", _boom)
    elif step == "experiment":
        monkeypatch.setattr(dissensus.cli._experiment, "_load", _boom)


def _previous(name: str, tmp_path: Path) -> Path:
    """The output of an earlier run (a set dissensus wrote, or one file); returns ``{out}``."""
    if _WRITERS[name][1] == "file":
        out = tmp_path / "earlier" / "result.txt"
        out.parent.mkdir()
        out.write_text("earlier result\n")
        return out
    out = tmp_path / "earlier"
    with AtomicFileSet(out) as files:
        files.write("summary.csv", "model,mean\nold,1\n")
    return out


def _state(out: Path) -> dict[str, bytes]:
    return _snapshot(out if out.is_dir() else out.parent)


@pytest.mark.parametrize("name", list(_WRITERS))
class TestEveryCommandThatWrites:
    """One row per command: the guarantees of the one output writer hold on every path."""

    def test_an_output_that_is_or_holds_an_input_is_refused_before_work(self, name, inputs, tmp_path, capsys, monkeypatch):  # fmt: skip
        if name in ("simulate", "example"):
            pytest.skip(f"{name} reads no file of the user's")
        _forbid_work(name, monkeypatch)
        # a directory holding the inputs, or the annotations themselves
        out = tmp_path if _WRITERS[name][1] == "set" else inputs["ann"]
        before = _snapshot(tmp_path)
        assert main(_command(name, inputs, out)) == EXIT_BAD_INPUT
        assert "refusing to write" in capsys.readouterr().err
        assert _snapshot(tmp_path) == before

    def test_a_foreign_manifest_deletes_nothing(self, name, inputs, tmp_path, capsys, monkeypatch):
        if _WRITERS[name][1] == "file":
            pytest.skip("a single file has no manifest")
        _forbid_work(name, monkeypatch)
        out = tmp_path / "out"
        out.mkdir()
        (out / "keep.csv").write_text("the user's\n")
        (out / "summary.csv").write_text("the user's too\n")
        (out / "manifest.json").write_text('{"files": {"keep.csv": {}, "summary.csv": {}}}')
        before = _snapshot(out)
        assert main(_command(name, inputs, out)) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert f"{out / 'manifest.json'} was not written by dissensus" in err
        assert "move it away or choose another --out" in err
        assert _snapshot(out) == before

    @pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
    def test_a_read_only_output_fails_before_work(self, name, inputs, tmp_path, capsys, monkeypatch, code):  # fmt: skip
        # root ignores permissions, so the file system's refusal is simulated
        out = _previous(name, tmp_path)
        before = _state(out)
        _forbid_work(name, monkeypatch)
        real = os.open
        directory = out if out.is_dir() else out.parent

        def read_only(path, flags, *args, **kwargs):
            if flags & os.O_CREAT and Path(path).parent == directory:
                raise OSError(code, os.strerror(code))
            return real(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", read_only)
        assert main(_command(name, inputs, out)) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert f"is not writable: {os.strerror(code)} (errno {code})" in err
        assert "internal error" not in err
        assert _state(out) == before

    @pytest.mark.parametrize(
        ("stop", "code"),
        [(KeyboardInterrupt, EXIT_INTERRUPTED), (_Terminated, 128 + signal.SIGTERM)],
    )
    def test_a_run_stopped_while_writing_keeps_the_previous_output(
        self, name, inputs, tmp_path, capsys, monkeypatch, stop, code
    ):
        # Ctrl-C, or SIGTERM (which the CLI turns into _Terminated), as a file is flushed
        out = _previous(name, tmp_path)
        before = _state(out)

        def stopped(fd: int) -> None:
            raise stop

        monkeypatch.setattr(os, "fsync", stopped)
        assert main(_command(name, inputs, out)) == code
        assert "earlier output files are unchanged" in capsys.readouterr().err
        assert _state(out) == before

    def test_a_full_disk_keeps_the_previous_output(
        self, name, inputs, tmp_path, capsys, monkeypatch
    ):
        out = _previous(name, tmp_path)
        before = _state(out)

        def full(fd: int) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(os, "fsync", full)
        assert main(_command(name, inputs, out)) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert "No space left on device" in err
        assert "internal error" not in err
        assert _state(out) == before  # byte-identical: no 0-byte file, no temporary
