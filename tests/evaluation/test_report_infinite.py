"""Infinite scores: counted per model and metric, explained (cause, remedy), smoothed on request."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dissensus import LabelCounts
from dissensus.cli._evaluate import format_summary, infinite_note, smoothing_note
from dissensus.evaluation import evaluate
from dissensus.evaluation._report import differences_table
from dissensus.evaluation._report import infinite_note as report_note
from dissensus.report import to_html

N = 60


def _data():
    rng = np.random.default_rng(0)
    counts = np.zeros((N, 3), dtype=np.int64)
    counts[:, 0] = rng.integers(
        1, 4, N
    )  # every item: label 0 chosen, labels 1, 2 never on items < 20
    counts[20:, 1] = rng.integers(1, 3, N - 20)
    lc = LabelCounts.from_array(counts)
    good = np.full((N, 3), 1 / 3)
    # "zeroed" gives 0 to label 2 on every item (no annotator chose it: empirical CE finite)
    zeroed = np.tile([0.6, 0.4, 0.0], (N, 1))
    # "wrong" gives 0 to label 0 on 5 items (annotators chose it: empirical CE infinite)
    wrong = good.copy()
    wrong[:5] = [0.0, 0.5, 0.5]
    return lc, {"good": good, "zeroed": zeroed, "wrong": wrong}


def _evaluate(**kw):
    lc, preds = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(lc, preds, metrics=["cross_entropy", "E[cross_entropy]"], **kw)


@pytest.fixture(scope="module")
def ev():
    return _evaluate()


def _n_inf(summary, metric, model):
    row = summary[(summary["metric"] == metric) & (summary["model"] == model)]
    return int(row["n_infinite"].iloc[0])


class TestCounted:
    def test_n_infinite_per_model_and_metric(self, ev):
        s = ev.summary(n_resamples=50)
        # empirical: a zero where an annotator chose the label
        assert _n_inf(s, "cross_entropy", "wrong") == 5
        assert _n_inf(s, "cross_entropy", "zeroed") == 0
        # expected: a zero anywhere, since the posterior gives every label mass
        assert _n_inf(s, "E[cross_entropy]", "zeroed") == N
        assert _n_inf(s, "E[cross_entropy]", "wrong") == 5
        assert _n_inf(s, "E[cross_entropy]", "good") == 0
        assert np.isinf(s["mean"]).sum() == 3


class TestNotes:
    def test_cli_table_never_prints_inf_without_a_note(self, ev):
        text = format_summary(ev.summary(n_resamples=50))
        assert "inf" in text
        note = text.splitlines()[-1]
        assert note.startswith("note: inf = an infinite mean")
        assert "E[cross_entropy]: zeroed (60 items), wrong (5 items)" in note
        assert "cross_entropy: wrong (5 items)" in note
        assert "the posterior gives every label mass" in note
        assert "a label some annotator chose" in note
        assert "--smooth 1e-6" in note

    def test_cause_named_per_kind(self, ev):
        s = ev.summary(n_resamples=50)
        only_expected = s[~((s["metric"] == "cross_entropy") & (s["model"] == "wrong"))]
        only_expected = only_expected[only_expected["model"] != "wrong"]
        note = infinite_note(only_expected)
        assert note is not None
        assert "posterior gives every label mass" in note
        assert "annotator chose" not in note  # the empirical cross-entropy was finite
        assert infinite_note(s[s["model"] == "good"]) is None

    def test_report_note_and_no_ns_beside_infinity(self, ev):
        data = ev.report_data(n_resamples=50, priors=(), audit=False, agreement_ci=False)
        note = report_note(data)
        assert note is not None
        text = "".join(p if isinstance(p, str) else p.text for p in note.parts)
        assert "zeroed (60 items)" in text
        assert "the posterior gives every label mass" in text
        assert "smooth=1e-6" in text
        for row in differences_table(data).cells():
            if row[2].text in {"∞", "−∞"}:
                assert "(n.s.)" not in row[4].text
                assert row[4].text == "∞: see the note"
        page = to_html(data.document(figures=False))
        assert 'id="infinite-note"' in page


class TestSmooth:
    def test_smoothing_makes_every_mean_finite(self):
        ev = _evaluate(smooth=1e-6)
        s = ev.summary(n_resamples=50)
        assert np.isfinite(s["mean"]).all()
        assert (s["n_infinite"] == 0).all()
        assert ev.smoothing == {
            "epsilon": 1e-6,
            "rows_with_zero": {"good": 0, "zeroed": N, "wrong": 5},
        }
        np.testing.assert_allclose(ev.predictions.sum(axis=2), 1.0)
        q = ev.predictions[1, 0]
        np.testing.assert_allclose(q, (np.array([0.6, 0.4, 0.0]) + 1e-6) / (1 + 3e-6))
        assert "rows that held a 0: good 0, zeroed 60, wrong 5" in smoothing_note(ev.smoothing)

    def test_no_smoothing_by_default(self, ev):
        assert ev.smoothing is None
        assert "smoothing" not in ev.dataset_info()

    def test_report_says_it_smoothed(self):
        ev = _evaluate(smooth=1e-6)
        data = ev.report_data(n_resamples=50, priors=(), audit=False, agreement_ci=False)
        page = to_html(data.document(figures=False))
        assert 'id="smoothing-note"' in page
        assert "with ε = 1e−06; rows that held a 0: good 0, zeroed 60, wrong 5" in page
        assert 'id="infinite-note"' not in page

    @pytest.mark.parametrize("bad", [0.0, 1.0, -1e-3, float("nan"), "x"])
    def test_bad_epsilon(self, bad):
        with pytest.raises(ValueError, match="'smooth' parameter of evaluate must be a number in"):
            _evaluate(smooth=bad)


class TestPriorTable:
    def test_no_ns_beside_an_infinite_mean(self, ev):
        from dissensus.evaluation._report import prior_table  # noqa: PLC0415

        data = ev.report_data(n_resamples=50, priors=("jeffreys", "uniform"), audit=False)
        table = prior_table(data)
        assert table.rows
        # every model with a zero prediction has an infinite E[cross_entropy] under every prior
        for row in table.cells():
            assert row[0].text.startswith("E[cross_entropy]")
            for cell in row[1:]:
                assert "(n.s.)" not in cell.text
                assert cell.text.endswith("(∞: see the note)")


class TestCli:
    """``dissensus evaluate``: an infinite mean comes with its note; --smooth removes it."""

    def _files(self, tmp_path):
        import pandas as pd  # noqa: PLC0415

        lc, preds = _data()
        counts = lc.values
        rows = [
            (f"i{i}", f"a{i}-{j}-{k}", k + 1)
            for i in range(N) for k in range(3) for j in range(int(counts[i, k]))
        ]  # fmt: skip
        rows.append((f"i{N - 1}", "extra", 3))  # every label used once, so the scale has three
        ann = tmp_path / "ann.csv"
        pd.DataFrame(rows, columns=["item", "annotator", "label"]).to_csv(ann, index=False)
        args = ["evaluate", str(ann)]
        for name in ("good", "wrong"):
            df = pd.DataFrame(preds[name], columns=["1", "2", "3"])
            df.insert(0, "item", [f"i{i}" for i in range(N)])
            df.to_csv(path := tmp_path / f"{name}.csv", index=False)
            args += ["--pred", f"{name}={path}"]
        return [*args, "--metrics", "cross_entropy", "--n-resamples", "50"]

    def test_note_then_smoothing(self, tmp_path, capsys):
        from dissensus.cli import main  # noqa: PLC0415

        args = self._files(tmp_path)
        assert main([*args, "--out", str(tmp_path / "raw")]) == 0
        out = capsys.readouterr().out
        assert "inf" in out
        assert "note: inf = an infinite mean (cross_entropy: wrong (5 items))" in out
        assert main([*args, "--out", str(tmp_path / "smooth"), "--smooth", "1e-6"]) == 0
        out = capsys.readouterr().out
        assert "inf" not in out.split("note: predictions smoothed")[0]
        assert "rows that held a 0: good 0, wrong 5." in out

    def test_bad_smooth_names_the_flag(self, tmp_path, capsys):
        from dissensus.cli import main  # noqa: PLC0415

        code = main([*self._files(tmp_path), "--out", str(tmp_path / "o"), "--smooth", "2"])
        assert code != 0
        assert "--smooth" in capsys.readouterr().err
