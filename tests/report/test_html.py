"""Tests of the HTML report: content, self-containment, escaping, and a real browser."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from html.parser import HTMLParser

import numpy as np
import pytest
from PIL import Image

from dissensus.evaluation._reading import prior_sentences
from dissensus.report import to_html
from tests.report._chromium import LAYOUT, Chromium, chromium_or_skip
from tests.report._sample import evaluation_report_data, example_report_data, sample_report_data

EVIL = "<script>alert(1)</script>"


def render_html(data, *, figures=True):
    return to_html(data.document(figures=figures))


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
        assert [fid for fid, _ in figures] == [
            "fig-annotations",
            "fig-summary",
            "fig-by-bin",
            "fig-agreement",
        ]
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
        # intervals keep their two ends on one line (a no-break space)
        assert (
            '<td class="num best">0.615 [0.582,\xa00.648]<span class="mark" aria-label="best">★</span></td>'
            in page
        )
        assert "flagged" not in page[page.index('id="rankings-table"') :].split("</table>")[0]
        assert "Kendall's τ" in page
        assert '<td class="num">67%</td>' in page

    def test_reversal_rows_and_legend(self, page):
        assert "★ marks the best model under a metric only where its lead is significant" in page
        reversals = page[page.index('id="reversals-table"') :]
        reversals = reversals[: reversals.index("</table>")]
        assert reversals.count('<tr class="flagged">') == 10

    def test_sections_after_the_verdict_are_collapsed(self, page):
        sections = re.findall(r'<section id="([^"]+)">\n(<details class="fold">)?', page)
        assert sections[0] == ("verdict", "")
        assert all(fold for _, fold in sections[1:] if _ != "verdict"), sections
        assert '<summary><h2>Summary <span class="gist">' in page

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

    def test_no_reversals(self):
        data = example_report_data()
        page = render_html(replace(data, reversals=data.reversals.iloc[0:0]), figures=False)
        assert "No ranking reversals" in page
        assert "reversals-table" not in page

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
    def test_writes_utf8(self, tmp_path):
        out = tmp_path / "r.html"
        out.write_text(render_html(example_report_data(), figures=False), encoding="utf-8")
        text = out.read_bytes().decode("utf-8")
        assert text.startswith("<!DOCTYPE html>")
        assert "E[CE] ↓" in text


# --- headless Chromium ---------------------------------------------------------------------

MEASURE = """
document.querySelectorAll('details').forEach(d => { d.open = true; }),
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
        assert [b["id"] for b in boxes] == [
            "fig-annotations",
            "fig-summary",
            "fig-by-bin",
            "fig-agreement",
        ]
        for box in boxes:
            assert box["width"] > 200, box
            assert box["height"] > 80, box
            pixels = _pixels(browser.screenshot({k: box[k] for k in ("x", "y", "width", "height")}))
            ink = np.mean(pixels < 200)
            assert pixels.std() > 10, box["id"]
            top = 0.95 if box["id"] == "fig-agreement" else 0.6  # a heatmap is mostly colour
            assert 0.005 < ink < top, (box["id"], ink)

    def test_full_page_screenshot_not_blank(self, browser, tmp_path, page):
        path = tmp_path / "report.html"
        path.write_text(page, encoding="utf-8")
        browser.open(path.as_uri(), width=1280, height=1000)
        first_screen = _pixels(browser.screenshot(full_page=True))
        assert first_screen.shape[0] < 1500  # collapsed: the verdict and the section headings
        browser.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
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


# --- the verdict, on a report built by the evaluation layer ---------------------------------


@pytest.fixture(scope="module")
def verdict_page() -> str:
    return render_html(evaluation_report_data())


class TestVerdict:
    def test_verdict_comes_first(self, verdict_page):
        sections = re.findall(r'<section id="([^"]+)">', verdict_page)
        assert sections[0] == "verdict"
        assert sections.index("where-models-disagree") < sections.index("differences")

    def test_names_best_model_per_family(self, verdict_page):
        verdict = verdict_page[verdict_page.index('id="verdict-table"') :]
        verdict = verdict[: verdict.index("</table>")]
        assert "Empirical (3)" in verdict
        assert "Expected (3)" in verdict
        assert "observed-mixed-with-noise-70-30" in verdict

    def test_prior_robustness_side_by_side(self, verdict_page):
        prior = verdict_page[verdict_page.index('id="prior-table"') :]
        header = prior[: prior.index("</thead>")]
        assert "uniform (used)" in header
        assert "jeffreys" in header
        assert "empirical (strength" in header
        assert "★ best fit" in header
        assert 'id="prior-fit-table"' in verdict_page

    def test_warns_when_prior_outweighs_annotations(self, verdict_page):
        warning = re.search(
            r'<p class="warning" role="note"><b>Prior check.</b>(.*?)</p>', verdict_page
        )
        assert warning is not None
        assert "uniform prior adds 5.00 pseudo-counts" in warning.group(1)
        assert re.search(r"annotations of \d+% of items", warning.group(1))

    def test_reversals_grouped_and_table_in_appendix(self, verdict_page):
        statements = verdict_page[verdict_page.index("Where the families disagree") :]
        statements = statements[: statements.index("</ul>")]
        assert "under the empirical metrics" in statements
        assert "under the expected metrics" in statements
        appendix = verdict_page.index('<details id="reversals-appendix">')
        assert appendix < verdict_page.index('id="reversals-table"')

    def test_items_behind_reversals(self, verdict_page):
        figures = re.findall(r'<figure id="(fig-items-\d)">', verdict_page)
        assert 1 <= len(figures) <= 3
        assert re.search(
            r"conv-\d{4} \(n=\d\)", verdict_page
        )  # items with their counts, in the alt text
        assert "posterior mean" in verdict_page

    def test_metric_agreement_is_a_heatmap(self, verdict_page):
        assert '<figure id="fig-agreement">' in verdict_page
        assert '<details id="metric-agreement-appendix">' in verdict_page

    def test_real_bin_ranges(self, verdict_page):
        assert "6–7" in verdict_page
        assert "6–10" not in verdict_page

    def test_infinite_mean_shown_with_footnote(self):
        data = example_report_data()
        summary = data.summary.assign(mean=[np.inf, 0.45, 1.23, 1.20])
        page = render_html(replace(data, summary=summary))
        assert "∞" in page
        assert 'id="infinite-note"' in page

    def test_few_items_warned(self):
        page = render_html(
            replace(example_report_data(), dataset={**example_report_data().dataset, "n_items": 12})
        )
        assert "<b>Few items.</b>" in page


OVERFLOW = """
(() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const bad = [];
  for (const el of document.querySelectorAll('main *')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || !el.parentElement) continue;
    const p = el.parentElement.getBoundingClientRect();
    if (r.right > p.right + 1 || r.left < p.left - 1) {
      bad.push(`${el.tagName}#${el.id}.${el.className} ${r.width}px in ${p.width}px`);
    }
  }
  for (const w of document.querySelectorAll('.table-wrap')) {
    if (w.scrollWidth > w.clientWidth + 1) bad.push(`scrolling ${w.firstElementChild.id}`);
  }
  return bad;
})()
"""


@pytest.mark.parametrize("width", [1280, 1920])
class TestVerdictInChromium:
    def test_fits_without_errors_or_fetches(self, browser, tmp_path, verdict_page, width):
        path = tmp_path / "report.html"
        path.write_text(verdict_page, encoding="utf-8")
        log = browser.open(path.as_uri(), width=width, height=1000)
        assert log.errors() == []
        assert log.requests == [path.as_uri()]
        assert browser.evaluate(OVERFLOW) == []

    def test_every_figure_has_ink(self, browser, tmp_path, verdict_page, width):
        path = tmp_path / "report.html"
        path.write_text(verdict_page, encoding="utf-8")
        browser.open(path.as_uri(), width=width, height=1000)
        boxes = browser.evaluate(MEASURE)
        assert {"fig-annotations", "fig-summary", "fig-by-bin", "fig-agreement", "fig-items-1"} <= {
            b["id"] for b in boxes
        }
        for box in boxes:
            assert box["width"] > 150, box
            assert box["height"] > 80, box
            pixels = _pixels(browser.screenshot({k: box[k] for k in ("x", "y", "width", "height")}))
            assert pixels.std() > 10, box["id"]
            # a heatmap is mostly colour; the other figures mostly paper
            top = 0.95 if box["id"] == "fig-agreement" else 0.6
            assert 0.005 < np.mean(pixels < 200) < top, box["id"]

    def test_overflow_check_can_fail(self, browser, tmp_path, width):
        wide = (
            "<!DOCTYPE html><html><head><title>x</title></head><body><main style='width:300px'>"
            "<div class='table-wrap' style='overflow-x:auto'><table id='t'><tr><td style='white-space:nowrap'>"
            + "x" * 200
            + "</td></tr></table></div></main></body></html>"
        )
        path = tmp_path / "wide.html"
        path.write_text(wide, encoding="utf-8")
        browser.open(path.as_uri(), width=width, height=600)
        assert browser.evaluate(OVERFLOW) != []


BROKEN_PAGES = {
    # each page breaks one rule; the layout check must name it
    "wide": "<main style='width:300px'><div><table id='t'><tr><td style='white-space:nowrap'>"
    + "x " * 100
    + "</td></tr></table></div></main>",
    "tall": "<table><thead><tr><th style='width:3em'>Mean position change of the models</th>"
    "</tr></thead><tbody><tr><td>1</td></tr></tbody></table>",
    "split": "<table><tr><td style='width:2em; overflow-wrap:anywhere'>cross_entropy</td>"
    "<td>0.1</td></tr></table>",
    "overlap": "<figure id='f'><svg width='300' height='40'><text x='10' y='20' "
    "style='font-size:10px'>101–200</text><text x='40' y='20' style='font-size:10px'>"
    "201–500</text></svg></figure>",
}


def _layout(browser, path, width: int, media: str = "") -> dict[str, list[str]]:
    browser.open(path.as_uri(), width=width, height=1000)
    browser.send("Emulation.setEmulatedMedia", {"media": media})
    try:
        return browser.evaluate(LAYOUT)
    finally:
        browser.send("Emulation.setEmulatedMedia", {"media": ""})


@pytest.mark.parametrize("width", [1280, 1920])
class TestLayoutInChromium:
    """Tables fit, headers take at most two lines, no word breaks inside, figure texts apart."""

    @pytest.mark.parametrize("which", ["sample", "verdict", "many-models"])
    def test_fits(self, browser, tmp_path, page, verdict_page, width, which):
        html = {
            "sample": page, "verdict": verdict_page,
            "many-models": render_html(sample_report_data(models=tuple("ABCDEFGH"))),
        }[which]  # fmt: skip
        path = tmp_path / f"{which}.html"
        path.write_text(html, encoding="utf-8")
        problems = _layout(browser, path, width)
        shot = tmp_path / f"{which}-{width}.png"
        shot.write_bytes(browser.screenshot(full_page=True))
        print(f"full-page screenshot (every section open): {shot}")
        assert problems == {"wide": [], "tall": [], "split": [], "overlap": []}

    @pytest.mark.parametrize("rule", list(BROKEN_PAGES))
    def test_each_check_can_fail(self, browser, tmp_path, width, rule):
        path = tmp_path / f"broken-{rule}.html"
        path.write_text(
            f"<!DOCTYPE html><html><head><title>x</title></head><body>{BROKEN_PAGES[rule]}</body></html>",
            encoding="utf-8",
        )
        problems = _layout(browser, path, width)
        assert problems[rule], problems
        assert not any(v for k, v in problems.items() if k != rule), problems


class TestVerdictInPrint:
    def test_layout_in_print(self, browser, tmp_path, verdict_page):
        path = tmp_path / "report.html"
        path.write_text(verdict_page, encoding="utf-8")
        problems = _layout(browser, path, 690, media="print")
        assert problems == {"wide": [], "tall": [], "split": [], "overlap": []}

    def test_collapsed_sections_print_open(self, browser, tmp_path, verdict_page):
        # on paper a closed <details> would hide its section: print shows every section
        path = tmp_path / "report.html"
        path.write_text(verdict_page, encoding="utf-8")
        browser.open(path.as_uri(), width=690, height=1000)
        visible = "document.getElementById('summary-table').checkVisibility()"
        assert browser.evaluate(visible) is False
        browser.send("Emulation.setEmulatedMedia", {"media": "print"})
        try:
            assert browser.evaluate(visible) is True
        finally:
            browser.send("Emulation.setEmulatedMedia", {"media": ""})

    def test_fits_an_a4_page_in_print(self, browser, tmp_path, verdict_page):
        # A4 at 96 dpi minus the 14 mm margins is about 690 px wide
        path = tmp_path / "report.html"
        path.write_text(verdict_page, encoding="utf-8")
        browser.open(path.as_uri(), width=690, height=1000)
        browser.send("Emulation.setEmulatedMedia", {"media": "print"})
        try:
            assert browser.evaluate("matchMedia('print').matches") is True
            assert browser.evaluate(OVERFLOW) == []
        finally:
            browser.send("Emulation.setEmulatedMedia", {"media": ""})


class TestPriorSentences:
    def test_a_split_verdict_is_not_called_the_same(self, verdict_page):
        # the fixture's verdict differs between priors metric by metric (one model wins every
        # expected metric under the uniform prior, not under the others), even though the
        # model winning most metrics is the same: the page must say it depends on the prior
        table = evaluation_report_data().prior_sensitivity
        best = table[table["best"]].sort_values(["prior", "metric"])
        per_prior = best.groupby("prior", sort=False)["model"].apply(tuple)
        assert per_prior.nunique() > 1
        sentences, _ = prior_sentences(evaluation_report_data())
        assert sentences[0].startswith("The expected metrics' verdict depends on the prior (")
        assert "depends on the prior" in verdict_page


class TestAuditAppendix:
    def test_collapsed_details_well_formed(self):
        from tests.report.test_data import _audit_frame  # noqa: PLC0415

        page = render_html(replace(example_report_data(), metric_audit=_audit_frame()))
        parsed = _structure(page)
        assert parsed.problems == []
        assert parsed.stack == []
        assert len(parsed.ids) == len(set(parsed.ids))
        assert '<details id="audit-appendix">' in page  # collapsed: no "open"
        appendix = page[page.index('<details id="audit-appendix">') :].split("</details>")[0]
        assert "K = 2 classes" in appendix
        assert "<code>dissensus audit --classes 2</code>" in appendix
        assert 'id="audit-table"' in appendix
        assert 'id="audit-counterexamples-table"' in appendix
        assert "audit-appendix" not in render_html(example_report_data())
