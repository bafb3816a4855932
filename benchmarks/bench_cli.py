"""Start-up cost of the ``dissensus`` command (issue 25).

Every time is the median wall time of ``--repeat`` fresh interpreters
(``subprocess``, ``time.perf_counter``), the tasks interleaved round by round so
that a change of load on a shared machine hits them alike:

- ``import dissensus.cli`` (what every run loads), ``dissensus --help`` and
  ``dissensus --version`` (``python -m dissensus.cli``); goal <= 0.3 s;
- each command's import: ``dissensus.cli._commands.load(NAME)``, the modules
  running NAME imports before any work, against ``import numpy, pandas,
  scipy.stats`` timed in the same rounds; goal: ratio <= 1.2.

The children compile to a temporary ``PYTHONPYCACHEPREFIX``, warmed by one
untimed round, as an installed package is (pip writes the bytecode on install):
from a source tree under ``PYTHONDONTWRITEBYTECODE=1`` each run would otherwise
recompile dissensus' ~100 modules (about 0.5 s). ``python -c pass`` (the
interpreter alone) is shown for scale; the load average is printed at the start
and the end. A command that cannot be imported (a
missing extra) gets a row saying why.

    python -m benchmarks cli [--repeat 5] [--commands info,evaluate]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import dissensus
from dissensus.cli._commands import SUMMARIES

GOAL_SECONDS = 0.3
GOAL_RATIO = 1.2
REFERENCE = "import numpy, pandas, scipy.stats"


@dataclass
class Timing:
    """One task: its median wall time over fresh interpreters, or why it failed."""

    task: str
    argv: list[str]
    kind: str  # "scale", "reference", "start-up" or "command"
    seconds: float | None = None
    note: str = ""


def tasks(commands: list[str]) -> list[Timing]:
    py = [sys.executable]
    out = [
        Timing("python -c pass", [*py, "-c", "pass"], "scale"),
        Timing(REFERENCE, [*py, "-c", REFERENCE], "reference"),
        Timing("import dissensus.cli", [*py, "-c", "import dissensus.cli"], "start-up"),
        Timing("dissensus --help", [*py, "-m", "dissensus.cli", "--help"], "start-up"),
        Timing("dissensus --version", [*py, "-m", "dissensus.cli", "--version"], "start-up"),
    ]
    code = "from dissensus.cli._commands import load; load({!r})"
    out += [
        Timing(f"dissensus {name} (import)", [*py, "-c", code.format(name)], "command")
        for name in commands
    ]
    return out


def measure(commands: list[str], repeat: int) -> list[Timing]:
    """Time every task ``repeat`` times, round by round; medians in ``seconds``."""
    # the dissensus the benchmark imported, also in the children (a source tree or installed)
    src = str(Path(dissensus.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    todo = tasks(commands)
    times: dict[str, list[float]] = {t.task: [] for t in todo}
    with tempfile.TemporaryDirectory(prefix="dissensus-bench-pycache-") as cache:
        env["PYTHONPYCACHEPREFIX"] = cache
        for round_ in range(repeat + 1):  # round 0 writes the bytecode, untimed
            for t in todo:
                if t.note:  # failed in an earlier round
                    continue
                t0 = time.perf_counter()
                done = subprocess.run(t.argv, env=env, capture_output=True, text=True, check=False)
                seconds = time.perf_counter() - t0
                if done.returncode != 0:
                    last = (done.stderr.strip().splitlines() or ["no message"])[-1]
                    t.note = f"failed: {last[:160]}"
                elif round_ > 0:
                    times[t.task].append(seconds)
    for t in todo:
        if not t.note:
            t.seconds = statistics.median(times[t.task])
    return todo


def reference_seconds(timings: list[Timing]) -> float | None:
    return next(t.seconds for t in timings if t.kind == "reference")


def markdown(timings: list[Timing], repeat: int, load: tuple[list[float], list[float]]) -> str:
    ref = reference_seconds(timings)
    lines = [
        f"# dissensus CLI start-up (median of {repeat} fresh interpreters)",
        "",
        f"- load average (1, 5, 15 min): start {load[0]}, end {load[1]}; {os.cpu_count()} CPUs",
        f"- goals: start-up <= {GOAL_SECONDS} s; a command's import <= {GOAL_RATIO}x `{REFERENCE}`",
        "",
        "| task | seconds | x reference | goal | note |",
        "|---|---:|---:|---|---|",
    ]
    for t in timings:
        sec = "" if t.seconds is None else f"{t.seconds:.3f}"
        ratio = "" if t.seconds is None or ref is None else f"{t.seconds / ref:.2f}x"
        goal = ""
        if t.kind == "start-up" and t.seconds is not None:
            goal = ("met" if t.seconds <= GOAL_SECONDS else "MISSED") + f" (<= {GOAL_SECONDS} s)"
        elif t.kind == "command" and t.seconds is not None and ref is not None:
            goal = ("met" if t.seconds / ref <= GOAL_RATIO else "MISSED") + f" (<= {GOAL_RATIO}x)"
        lines.append(f"| {t.task} | {sec} | {ratio} | {goal} | {t.note} |")
    return "\n".join(lines)


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main(argv: list[str] | None = None) -> list[Timing]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="fresh interpreters per task")
    ap.add_argument("--commands", default=",".join(SUMMARIES), help="comma-separated commands")
    args = ap.parse_args(argv)
    commands = [c.strip() for c in args.commands.split(",") if c.strip()]
    if unknown := [c for c in commands if c not in SUMMARIES]:
        ap.error(f"unknown command(s) {unknown}; choose from {list(SUMMARIES)}")
    start = load_average()
    timings = measure(commands, args.repeat)
    print(markdown(timings, args.repeat, (start, load_average())))
    return timings


if __name__ == "__main__":
    main()
