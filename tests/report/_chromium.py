"""A tiny DevTools-protocol client for headless Chromium over ``--remote-debugging-pipe``.

No websocket library is needed: with ``--remote-debugging-pipe`` Chromium
reads NUL-terminated JSON commands from file descriptor 3 and writes replies
and events to descriptor 4. The client opens a page, records console
messages, uncaught exceptions, log entries and every network request, and
can evaluate expressions and take screenshots. Used by the report tests and
runnable as a script to screenshot a file::

    python tests/report/_chromium.py report.html shot.png
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--hide-scrollbars",
    "--mute-audio",
)


def find_chromium() -> str | None:
    """Path of a Chromium (Debian's ``chromium``, or another common name)."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium_or_skip() -> str:
    """The browser's path; without one, skip, or fail where a run must not skip.

    ``./run-tests`` sets ``DISSENSUS_BROWSER=required`` (and CI sets ``CI``): the
    README's test command must not pass with the browser tests silently skipped.
    """
    import pytest  # noqa: PLC0415 - the script mode below runs without pytest

    exe = find_chromium()
    if exe is None:
        if os.environ.get("CI") or os.environ.get("DISSENSUS_BROWSER") == "required":
            pytest.fail(
                "chromium is not installed; install it with: sudo apt-get install chromium "
                "(or run DISSENSUS_BROWSER=skip ./run-tests to skip the browser tests)"
            )
        pytest.skip("chromium is not installed (sudo apt-get install chromium)")
    return exe


#: Layout checks run in the page (every ``<details>`` opened first). Each list names what fails:
#: ``wide``: a table wider than its container (scrollWidth > clientWidth); ``tall``: a column
#: header taller than two lines of its text; ``split``: a word of a table cell, header or
#: caption broken across lines other than after a hyphen (its characters' boxes lie on more than one line: e.g.
#: "Mo / del", one character per line); ``overlap``: two texts of one figure overlapping
#: (e.g. adjacent axis labels "101–200201–500"; rotated labels are left out, their boxes are
#: not their glyphs).
LAYOUT = r"""
(() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const out = {wide: [], tall: [], split: [], overlap: []};
  const name = el => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}`;
  for (const t of document.querySelectorAll('table')) {
    const box = t.parentElement;
    const width = Math.max(t.scrollWidth, t.getBoundingClientRect().width);
    if (width > box.clientWidth + 1 || box.scrollWidth > box.clientWidth + 1) {
      out.wide.push(`${name(t)}: ${Math.round(width)}px in ${box.clientWidth}px`);
    }
  }
  for (const th of document.querySelectorAll('thead th')) {
    const cs = getComputedStyle(th);
    const line = parseFloat(cs.lineHeight) || 1.2 * parseFloat(cs.fontSize);
    const inner = th.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
    if (inner > 2 * line + 1) out.tall.push(`${th.textContent}: ${Math.round(inner / line)} lines`);
  }
  const range = document.createRange();
  for (const cell of document.querySelectorAll('th, td, caption')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      // a line may break after a hyphen (bert-base-uncased), as in running text
      const words = /[^ \t\n\r-]+-?/g;
      let m;
      while ((m = words.exec(node.data))) {
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const rects = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
        const tops = rects.map(r => r.top);
        if (rects.length && Math.max(...tops) - Math.min(...tops) > rects[0].height / 2) {
          out.split.push(`"${m[0]}" in ${name(cell.closest('table') || cell)}`);
        }
      }
    }
  }
  for (const svg of document.querySelectorAll('svg')) {
    const texts = [...svg.querySelectorAll('text')].filter(
      t => !/rotate\((?!-?0[ ,)])/.test(t.getAttribute('transform') || ''));
    const boxes = texts.map(t => [t, t.getBoundingClientRect()]).filter(([, r]) => r.width > 0);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, ra] = boxes[i], [b, rb] = boxes[j];
        const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
        const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
        // side by side with less than 2 px between them ("101–200201–500"), or on top of each
        // other; glyph boxes include some air above and below the letters
        if (w > -2 && h > 0.4 * Math.min(ra.height, rb.height)) {
          out.overlap.push(`${svg.closest('figure')?.id}: "${a.textContent}" / "${b.textContent}"`);
        }
      }
    }
  }
  return out;
})()
"""


class ChromiumError(RuntimeError):
    """The browser did not answer as expected."""


@dataclass
class PageLog:
    """What the page did while loading: console output, errors, requests."""

    console: list[dict[str, Any]] = field(default_factory=list)
    exceptions: list[dict[str, Any]] = field(default_factory=list)
    log_entries: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def errors(self) -> list[str]:
        """Console errors/warnings/asserts, uncaught exceptions and error-level log entries."""
        out = [
            f"console.{c['type']}: {c.get('args')}"
            for c in self.console
            if c["type"] in {"error", "assert", "warning"}
        ]
        for e in self.exceptions:
            details = e.get("exceptionDetails", {})
            description = details.get("exception", {}).get("description", "")
            out.append(f"exception: {details.get('text')} {description}")
        out += [
            f"log.{e['entry']['level']}: {e['entry'].get('text')} ({e['entry'].get('url')})"
            for e in self.log_entries
            if e["entry"]["level"] in {"error", "warning"}
        ]
        return out


class Chromium:
    """Headless Chromium driven over a pipe; use as a context manager."""

    def __init__(self, executable: str, *, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="dissensus-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_fds() -> None:  # runs in the child between fork and exec
            a = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self._proc = subprocess.Popen(
            [
                executable,
                *FLAGS,
                f"--user-data-dir={self._profile.name}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=False,
            preexec_fn=wire_fds,  # noqa: PLW1509 - single-threaded test helper
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        self.session: str | None = None

    # -- protocol --------------------------------------------------------------------------
    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChromiumError("timed out waiting for Chromium")
            ready, _, _ = select.select([self._from_child], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise ChromiumError(f"Chromium closed the pipe (exit code {self._proc.poll()})")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: bool = True
    ) -> dict[str, Any]:
        """Send a command and wait for its reply; events seen meanwhile are kept."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise ChromiumError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            if "method" in reply:
                self._events.append(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        """Wait for an event (returns at once if it already arrived)."""
        for event in self._events:
            if event["method"] == method:
                return event
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._read_message(deadline)
            if "method" in message:
                self._events.append(message)
                if message["method"] == method:
                    return message

    # -- high level --------------------------------------------------------------------------
    def open(self, url: str, *, width: int = 1280, height: int = 1000) -> PageLog:
        """Open ``url`` in a fresh page, wait for the load event and return what it logged."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        attached = self.send(
            "Target.attachToTarget",
            {"targetId": target["targetId"], "flatten": True},
            session=False,
        )
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        self._events.clear()
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")
        # let late console messages arrive
        self.evaluate("new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)))")
        log = PageLog()
        for event in self._events:
            params = event.get("params", {})
            if event["method"] == "Runtime.consoleAPICalled":
                args = [a.get("value", a.get("description")) for a in params.get("args", [])]
                log.console.append({"type": params.get("type"), "args": args})
            elif event["method"] == "Runtime.exceptionThrown":
                log.exceptions.append(params)
            elif event["method"] == "Log.entryAdded":
                log.log_entries.append(params)
            elif event["method"] == "Network.requestWillBeSent":
                log.requests.append(params["request"]["url"])
        return log

    def evaluate(self, expression: str) -> Any:
        """Evaluate JavaScript in the page (awaiting promises) and return the value."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise ChromiumError(f"evaluate failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, clip: dict[str, float] | None = None, *, full_page: bool = False) -> bytes:
        """PNG bytes of the viewport, a clip rectangle (page coordinates) or the whole page."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": True}
        if full_page:
            size = self.evaluate(
                "({w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight})"
            )
            clip = {"x": 0, "y": 0, "width": size["w"], "height": size["h"]}
        if clip is not None:
            params["clip"] = {**clip, "scale": 1}
        return base64.b64decode(self.send("Page.captureScreenshot", params)["data"])

    def close(self) -> None:
        """Close the browser and wait for it to exit."""
        try:
            if self._proc.poll() is None:
                self.send("Browser.close", session=False)
        except (ChromiumError, OSError):
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._to_child, self._from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._profile.cleanup()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":
    html_path, png_path = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    width = int(sys.argv[3]) if len(sys.argv) > 3 else 1280
    exe = find_chromium()
    if exe is None:
        sys.exit("chromium not found")
    with Chromium(exe) as browser:
        page = browser.open(html_path.as_uri(), width=width)
        print("errors:", page.errors())
        print("requests:", page.requests)
        png_path.write_bytes(browser.screenshot(full_page=True))
        print(json.dumps(browser.evaluate(LAYOUT), indent=1, ensure_ascii=False))
