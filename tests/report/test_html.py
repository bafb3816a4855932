"""Tests of the HTML report: content, self-containment, escaping, and a real browser."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from html.parser import HTMLParser

import numpy as np
import pytest
from PIL import Image

from dissensus.report import render_html, write_html
from dissensus.report._data import example_report_data
from tests.report._chromium import Chromium, chromium_or_skip
from tests.report._sample import sample_report_data

EVIL = "<script>alert(1)</script>"

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "wbr", "source", "area", "base"}


class _Structure(HTMLParser):
    """Checks that every non-void element is closed in order; collects ids and tags."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.ids: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.ids += [v for k, v in attrs if k == "id" and v]
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        self.ids += [v for k, v in attrs if k == "id" and v]

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()


def _structure(page: str) -> _Structure:
    parser = _Structure()
    parser.feed(page)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def page() -> str:
    return render_html(sample_report_data())


class TestRenderHtml:
    def test_well_formed_with_unique_ids(self, page):
        parsed = _structure(page)
        assert parsed.problems == []
        assert parsed.stack == []
        assert len(parsed.ids) == len(set(parsed.ids))

    def test_self_contained(self, page):
        assert "http://" not in page
        assert "https://" not in page
        assert not re.search(r"""\b(?:src|href)\s*=\s*(?!["']?#)""", page)
        assert not re.search(r"url\((?!#)", page)
        assert "@import" not in page
        assert "@font-face" not in page
        parsed = _structure(page)
        assert not {"script", "link", "img", "iframe", "object", "embed"} & set(parsed.tags)

    def test_every_figure_present(self, page):
        figures = re.findall(r'<figure id="([^"]+)">\s*<svg (.*?)</figure>', page, flags=re.DOTALL)
        assert [fid for fid, _ in figures] == ["fig-annotations", "fig-summary", "fig-by-bin"]
        for fid, body in figures:
            assert f'aria-labelledby="{fid}-title"' in body
            assert f'<title id="{fid}-title">' in body
            assert "<figcaption><b>Figure " in body

    def test_sections_and_tables(self, page):
        for section in (
            "reading",
            "dataset",
            "summary",
            "by-bin",
            "differences",
            "rankings",
            "metric-agreement",
            "metrics",
        ):
            assert f'<section id="{section}">' in page
        for table in (
            "agreement-table",
            "summary-table",
            "differences-table",
            "rankings-table",
            "reversals-table",
            "metric-agreement-table",
            "metrics-table",
        ):
            assert f'<table id="{table}">' in page
        assert (
            '<td class="num best">0.615 [0.582, 0.648]<span class="mark" aria-label="best">★</span></td>'
            in page
        )
        assert page.count('class="num best reversal"') == 4  # rank 1 cells, all in reversals
        assert "Kendall&#39;s τ" in page
        assert '<td class="num">67%</td>' in page

    def test_reversal_rows_and_legend(self, page):
        rankings = page[
            page.index('id="rankings-table"') : page.index(
                "</table>", page.index('id="rankings-table"')
            )
        ]
        assert rankings.count('<tr class="reversal-row">') == 3
        assert "⇄ highlighted</span> ranks are involved in a reversal" in page
        reversals = page[page.index('id="reversals-table"') :]
        reversals = reversals[: reversals.index("</table>")]
        assert reversals.count('<tr class="significant">') == 10

    def test_byte_identical(self, page):
        assert render_html(sample_report_data()) == page

    def test_escapes_user_strings(self):
        data = example_report_data()
        frames = {
            name: getattr(data, name).replace({"A": EVIL})
            for name in ("summary", "differences", "by_bin", "rankings", "reversals")
        }
        page = render_html(replace(data, title=EVIL, **frames))
        assert EVIL not in page
        assert "<script" not in page
        assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 6
        assert _structure(page).problems == []

    def test_no_reversals(self, monkeypatch):
        monkeypatch.setitem(render_html.__globals__, "figures", lambda data: {})  # not under test
        data = example_report_data()
        page = render_html(replace(data, reversals=data.reversals.iloc[0:0]))
        assert "No ranking reversals" in page
        assert "reversals-table" not in page
        assert 'class="num best reversal"' not in page

    def test_optional_parts_missing(self):
        data = example_report_data()
        page = render_html(
            replace(
                data,
                agreement=None,
                by_bin=data.by_bin.iloc[0:0],
                annotations_per_item=np.array([], dtype=np.int64),
            )
        )
        assert page.count("<figure") == 1
        assert 'id="by-bin"' not in page
        assert 'id="agreement-table"' not in page


class TestWriteHtml:
    def test_writes_utf8(self, tmp_path, monkeypatch):
        monkeypatch.setitem(render_html.__globals__, "figures", lambda data: {})  # not under test
        out = write_html(example_report_data(), str(tmp_path / "r.html"))
        assert out == tmp_path / "r.html"
        text = out.read_bytes().decode("utf-8")
        assert text.startswith("<!DOCTYPE html>")
        assert "E[CE] ↓" in text


# --- headless Chromium ---------------------------------------------------------------------

MEASURE = """
[...document.querySelectorAll('figure svg')].map(s => {
  const r = s.getBoundingClientRect();
  return {id: s.closest('figure').id, x: r.left + scrollX, y: r.top + scrollY,
          width: r.width, height: r.height};
})
"""


@pytest.fixture(scope="module")
def browser():
    exe = chromium_or_skip()
    with Chromium(exe, timeout=20) as chromium:
        yield chromium


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)


class TestInChromium:
    def test_loads_without_errors_or_fetches(self, browser, tmp_path, page):
        path = tmp_path / "report.html"
        path.write_text(page, encoding="utf-8")
        log = browser.open(path.as_uri(), width=1280, height=1000)
        assert log.errors() == []
        assert log.requests == [path.as_uri()]
        assert browser.evaluate("document.title") == "Evaluation report"
        assert browser.evaluate("getComputedStyle(document.body).fontFamily").startswith(
            "-apple-system"
        )

    def test_every_figure_has_size_and_ink(self, browser, tmp_path, page):
        path = tmp_path / "report.html"
        path.write_text(page, encoding="utf-8")
        browser.open(path.as_uri(), width=1280, height=1000)
        boxes = browser.evaluate(MEASURE)
        assert [b["id"] for b in boxes] == ["fig-annotations", "fig-summary", "fig-by-bin"]
        for box in boxes:
            assert box["width"] > 200, box
            assert box["height"] > 80, box
            pixels = _pixels(browser.screenshot({k: box[k] for k in ("x", "y", "width", "height")}))
            ink = np.mean(pixels < 200)
            assert pixels.std() > 10, box["id"]
            assert 0.005 < ink < 0.6, (box["id"], ink)

    def test_full_page_screenshot_not_blank(self, browser, tmp_path, page):
        path = tmp_path / "report.html"
        path.write_text(page, encoding="utf-8")
        browser.open(path.as_uri(), width=1280, height=1000)
        pixels = _pixels(browser.screenshot(full_page=True))
        assert pixels.shape[0] > 2000
        assert pixels.std() > 10
        assert np.mean(pixels == 255) < 0.99

    def test_harness_sees_console_errors_and_fetches(self, browser, tmp_path):
        # The checks above must be able to fail: a page with a script error, a console
        # error and an external image is reported.
        broken = (
            "<!DOCTYPE html><html><head><title>x</title></head><body>"
            "<script>console.error('boom'); undefinedFunction();</script>"
            '<img src="http://127.0.0.1:9/x.png" alt="x"></body></html>'
        )
        path = tmp_path / "broken.html"
        path.write_text(broken, encoding="utf-8")
        log = browser.open(path.as_uri())
        errors = " ".join(log.errors())
        assert "boom" in errors
        assert "undefinedFunction" in errors
        assert "http://127.0.0.1:9/x.png" in log.requests
