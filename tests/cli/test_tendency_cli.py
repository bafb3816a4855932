"""Tests of `dissensus tendency`: files written, table printed, exit codes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, main
from tests.tendency._pools import clique_model, clique_pool


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    _, df, z = clique_pool(n_items=120, n_annotators=4, seed=3)
    df = df.assign(text=df["item"].map(lambda i: f"item {i} words"))
    ann = tmp_path / "ann.csv"
    df.to_csv(ann, index=False)
    pred = tmp_path / "model.csv"
    test_items = set(df.item.unique()[:40])
    clique_model(df, z)[lambda d: d.item.isin(test_items)].drop(columns="text").to_csv(
        pred, index=False
    )
    return {"ann": ann, "pred": pred}


class TestTendencyCommand:
    def test_model_and_baselines(self, files, tmp_path, capsys) -> None:
        out = tmp_path / "out"
        code = main(
            [
                "tendency", str(files["ann"]), "--pred", str(files["pred"]), "--baselines",
                "--min-overlap", "10", "--n-resamples", "50", "--out", str(out),
            ]
        )  # fmt: skip
        captured = capsys.readouterr()
        assert code == EXIT_OK, captured.err
        assert "model" in captured.out
        assert "random" in captured.out
        assert "per-annotator-bias baseline skipped" in (out / "report.html").read_text()
        table = pd.read_csv(out / "dic.csv")
        assert table.predictions.tolist() == ["model", "random", "consensus", "consensus_soft"]
        assert (
            table.set_index("predictions").loc["model", "dic"]
            < table.set_index("predictions").loc["random", "dic"]
        )
        for name in ("consistency_true.csv", "overlap.csv", "tau_curve.csv", "report.html"):
            assert (out / name).exists()
        html = (out / "report.html").read_text()
        assert html.count("<svg") == 3

    def test_baselines_alone_with_text(self, files, tmp_path, capsys) -> None:
        out = tmp_path / "out"
        code = main(
            [
                "tendency", str(files["ann"]), "--baselines", "--text", "text",
                "--min-overlap", "5", "--n-resamples", "20", "--tables-only", "--out", str(out),
            ]
        )  # fmt: skip
        captured = capsys.readouterr()
        assert code == EXIT_OK, captured.err
        assert "annotator_bias" in captured.out
        assert not (out / "report.html").exists()
        assert "annotator_bias" in pd.read_csv(out / "tau_curve.csv").predictions.tolist()

    def test_needs_pred_or_baselines(self, files, tmp_path, capsys) -> None:
        code = main(["tendency", str(files["ann"]), "--out", str(tmp_path / "o")])
        assert code == EXIT_BAD_INPUT
        assert "--pred" in capsys.readouterr().err

    def test_prediction_missing_a_cell(self, files, tmp_path, capsys) -> None:
        df = pd.read_csv(files["pred"]).iloc[1:]
        bad = tmp_path / "bad.csv"
        df.to_csv(bad, index=False)
        code = main(
            ["tendency", str(files["ann"]), "--pred", str(bad), "--out", str(tmp_path / "o")]
        )
        assert code == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert err.startswith("dissensus: error:")
        assert "have no prediction" in err


class TestNamesThatCollide:
    """Two prediction sets never share a file or a row: refused before any work, naming both."""

    @pytest.mark.parametrize(
        ("preds", "baselines", "says"),
        [
            (["a.b={pred}", "a_b={pred}"], False, "'a.b' and 'a_b' would both be written to consistency_a_b.csv"),
            (["true={pred}"], False, "'true' would be written to consistency_true.csv, the annotators' own"),
            (["random={pred}"], True, "'random' is the name of a baseline that --baselines adds"),
        ],
    )  # fmt: skip
    def test_refused_before_reading(self, files, tmp_path, capsys, monkeypatch, preds, baselines, says):  # fmt: skip
        import dissensus.cli._reader_options as opt  # noqa: PLC0415

        def boom(*args, **kwargs):
            raise AssertionError("read before checking the names")

        monkeypatch.setattr(opt, "load_annotations", boom)
        args = ["tendency", str(files["ann"]), "--out", str(tmp_path / "o")]
        for pred in preds:
            args += ["--pred", pred.format(pred=files["pred"])]
        code = main([*args, *(["--baselines"] if baselines else [])])
        assert code == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert says in err
        assert "--pred" in err
        assert not (tmp_path / "o").exists()

    def test_a_baseline_name_without_baselines_is_a_model(self, files, tmp_path, capsys) -> None:
        out = tmp_path / "out"
        args = ["tendency", str(files["ann"]), "--pred", f"random={files['pred']}",
                "--min-overlap", "10", "--n-resamples", "20", "--tables-only", "--out", str(out)]  # fmt: skip
        assert main(args) == EXIT_OK, capsys.readouterr().err
        assert (out / "consistency_random.csv").exists()
