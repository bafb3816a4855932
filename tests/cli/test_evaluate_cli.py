"""Tests of `dissensus evaluate`: files written, compact table, exit codes, determinism."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, main

K = 5


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    rng = np.random.default_rng(7)
    n_items = 60
    rows = []
    for i in range(n_items):
        n = int(rng.integers(2, 7))
        p = rng.dirichlet(np.ones(K))
        for a in rng.choice(8, n, replace=False):
            rows.append((f"i{i}", f"a{a}", int(rng.choice(K, p=p)) + 1))
    ann = tmp_path / "ann.csv"
    pd.DataFrame(rows, columns=["item", "annotator", "label"]).to_csv(ann, index=False)
    out = {"ann": ann}
    for m in ("good", "bad"):
        q = rng.dirichlet(np.ones(K) * 2, size=n_items)
        df = pd.DataFrame(q, columns=[str(k) for k in range(1, K + 1)])
        df.insert(0, "item", [f"i{i}" for i in range(n_items)])
        path = tmp_path / f"{m}.csv"
        df.to_csv(path, index=False)
        out[m] = path
    return out


def _run(files: dict[str, Path], out: Path, *extra: str) -> int:
    return main(
        [
            "evaluate", str(files["ann"]),
            "--pred", f"good={files['good']}", "--pred", f"bad={files['bad']}",
            "--n-resamples", "200", "--out", str(out), *extra,
        ]
    )  # fmt: skip


class TestEvaluateCommand:
    def test_writes_the_four_files_and_prints_a_table(self, files, tmp_path, capsys):
        out = tmp_path / "out"
        assert _run(files, out) == EXIT_OK
        printed = capsys.readouterr().out
        assert sorted(p.name for p in out.iterdir()) == [
            "manifest.json", "rankings.csv", "report.html", "scores.parquet", "summary.csv",
        ]  # fmt: skip
        header = printed.splitlines()[0].split()
        assert header == ["metric", "good", "bad"]
        assert "E[emd] ↓" in printed
        summary = pd.read_csv(out / "summary.csv")
        assert set(summary["model"]) == {"good", "bad"}
        # every metric row of the printed table marks exactly one best model
        # (or all tied ones)
        table = printed.split("(* best")[0].splitlines()[1:]
        assert len(table) == len(set(summary["metric"]))
        for line in table:
            assert "*" in line

    def test_ends_with_the_verdict(self, files, tmp_path, capsys):
        assert _run(files, tmp_path / "o", "--metrics", "emd,E[emd],debiased[emd]") == EXIT_OK
        lines = capsys.readouterr().out.splitlines()
        # one answer for emd (its three estimators), then the expected metric's place
        assert " under emd (" in lines[-2]
        assert "cannot be estimated without bias" in lines[-2]
        assert lines[-1].startswith("The expected metrics (E[...]) are the posterior view")

    def test_quiet_on_stderr_when_not_a_terminal(self, files, tmp_path, capsys):
        assert _run(files, tmp_path / "o") == EXIT_OK
        assert capsys.readouterr().err == ""

    def test_same_seed_gives_byte_identical_summary(self, files, tmp_path, capsys):
        assert _run(files, tmp_path / "one", "--seed", "3") == EXIT_OK
        assert _run(files, tmp_path / "two", "--seed", "3") == EXIT_OK
        one = (tmp_path / "one" / "summary.csv").read_bytes()
        two = (tmp_path / "two" / "summary.csv").read_bytes()
        assert one == two

    def test_metrics_option(self, files, tmp_path, capsys):
        assert _run(files, tmp_path / "o", "--metrics", "emd,E[emd]") == EXIT_OK
        summary = pd.read_csv(tmp_path / "o" / "summary.csv")
        assert list(dict.fromkeys(summary["metric"])) == ["emd", "E[emd]"]

    def test_debiased_metrics_option(self, files, tmp_path, capsys):
        metrics = "emd,E[emd],debiased[emd],debiased[squared_euclidean]"
        assert _run(files, tmp_path / "o", "--metrics", metrics) == EXIT_OK
        summary = pd.read_csv(tmp_path / "o" / "summary.csv")
        assert list(dict.fromkeys(summary["metric"])) == metrics.split(",")
        assert np.isfinite(summary["mean"]).all()

    def test_bad_pred_spec_exits_2(self, files, tmp_path, capsys):
        code = main(
            [
                "evaluate",
                str(files["ann"]),
                "--pred",
                str(files["good"]),
                "--out",
                str(tmp_path / "o"),
            ]
        )
        assert code == EXIT_BAD_INPUT
        err = capsys.readouterr().err.strip()
        assert err.startswith("dissensus: error:")
        assert "NAME=PATH" in err

    def test_predictions_for_other_items_exit_2(self, files, tmp_path, capsys):
        df = pd.read_csv(files["bad"]).iloc[:-3]
        df.to_csv(files["bad"], index=False)
        assert _run(files, tmp_path / "o") == EXIT_BAD_INPUT
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1
        assert "different items" in err[0]
        assert "3 of 60 annotated items have no prediction" in err[0]

    def test_unknown_metric_exits_2(self, files, tmp_path, capsys):
        assert _run(files, tmp_path / "o", "--metrics", "emdd") == EXIT_BAD_INPUT
        assert "emdd" in capsys.readouterr().err

    def test_bad_bins_exit_2(self, files, tmp_path, capsys):
        assert _run(files, tmp_path / "o", "--bins", "two,four") == EXIT_BAD_INPUT
        assert "--bins" in capsys.readouterr().err


class TestWithoutReportExtra:
    def test_writes_the_tables_and_names_the_extra(self, files, tmp_path, capsys, monkeypatch):
        # the old command refused (even with --json); before that it wrote the CSVs, then
        # exited 1 with "internal error: ImportError"
        monkeypatch.setitem(sys.modules, "matplotlib", None)
        out = tmp_path / "out"
        assert _run(files, out, "--json") == EXIT_OK
        captured = capsys.readouterr()
        assert captured.err.count("\n") == 1
        assert "pip install 'dissensus[report]'" in captured.err
        assert "matplotlib" in captured.err
        written = {"summary", "rankings", "scores", "manifest"}
        assert set(json.loads(captured.out)["written"]) == written
        names = ["manifest.json", "rankings.csv", "scores.parquet", "summary.csv"]
        assert sorted(p.name for p in out.iterdir()) == names


class TestJsonOutput:
    def test_prints_parseable_summary_and_still_writes_files(self, files, tmp_path, capsys):
        out = tmp_path / "out"
        assert _run(files, out, "--metrics", "emd,E[emd]", "--json", "--seed", "3") == EXIT_OK
        record = json.loads(capsys.readouterr().out)
        assert {"summary", "best", "models", "metrics", "written", "note", "prior"} <= set(record)
        assert record["models"] == ["good", "bad"]
        assert record["metrics"] == ["emd", "E[emd]"]
        assert record["n_items"] == 60
        assert record["n_resamples"] == 200
        assert record["confidence_level"] == 0.95
        # the printed numbers are those of summary.csv, the best flags too
        csv = pd.read_csv(out / "summary.csv")
        assert len(record["summary"]) == len(csv) == 4
        for row, (_, expected) in zip(record["summary"], csv.iterrows(), strict=True):
            assert (row["model"], row["metric"]) == (expected["model"], expected["metric"])
            for key in ("mean", "standard_error", "ci_low", "ci_high"):
                assert row[key] == pytest.approx(expected[key], rel=1e-8)  # csv: 10 digits
            assert row["ci_low"] <= row["mean"] <= row["ci_high"]
            assert row["best"] == bool(expected["best"])
        for metric in ("emd", "E[emd]"):
            best = csv[(csv["metric"] == metric) & csv["best"]]["model"].tolist()
            assert record["best"][metric] == best
        assert sorted(Path(p).name for p in record["written"].values()) == [
            "manifest.json", "rankings.csv", "report.html", "scores.parquet", "summary.csv",
        ]  # fmt: skip
        assert (out / "report.html").exists()

    def test_infinite_mean_is_strict_json(self, files, tmp_path, capsys):
        # a zero probability where annotators put mass: cross-entropy is infinite
        zero = pd.read_csv(files["bad"])
        zero["1"] = 0.0
        cols = [str(k) for k in range(1, K + 1)]
        zero[cols] = zero[cols].div(zero[cols].sum(axis=1), axis=0)
        files = {**files, "bad": tmp_path / "zero.csv"}
        zero.to_csv(files["bad"], index=False)
        args = ("--metrics", "cross_entropy", "--json")
        assert _run(files, tmp_path / "o", *args) == EXIT_OK
        text = capsys.readouterr().out
        assert "NaN" not in text
        assert "Infinity" not in text
        record = json.loads(text)
        bad = next(r for r in record["summary"] if r["model"] == "bad")
        assert bad["mean"] == "inf"
        assert record["best"]["cross_entropy"] == ["good"]


class TestTargetsOption:
    def test_annotator_model_targets_reach_the_report(self, files, tmp_path, capsys):
        out = tmp_path / "out"
        code = _run(files, out, "--targets", "ordinal_dawid_skene", "--metrics", "manhattan")
        assert code == EXIT_OK, capsys.readouterr().err
        page = (out / "report.html").read_text()
        assert "Pointwise targets" in page
        assert 'id="fig-annotators' in page
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["params"]["targets"] == "ordinal_dawid_skene"
        # the annotators are counted although the table was kept for the model
        assert '<th scope="row" class="txt">Annotators</th><td class="txt">8</td>' in page

    def test_empirical_targets_are_the_default(self, files, tmp_path, capsys):
        out = tmp_path / "out"
        assert _run(files, out, "--metrics", "manhattan") == EXIT_OK
        assert "Pointwise targets" not in (out / "report.html").read_text()


class TestPredictionFilesAsPeopleHaveThem:
    """``--pred`` reads each layout without a conversion script; errors name flags."""

    @pytest.fixture
    def ann(self, tmp_path: Path) -> Path:
        rows = "".join(f"{i},{a},{lab}\n" for i, a, lab in [
            ("t1", "x", "neg"), ("t1", "y", "pos"), ("t2", "x", "neg"), ("t2", "y", "neg"),
        ])  # fmt: skip
        path = tmp_path / "ann.csv"
        path.write_text("tweet,annotator,label\n" + rows, encoding="utf-8")
        return path

    def _run(self, ann: Path, pred: Path, out: Path, *extra: str) -> int:
        return main(
            [
                "evaluate", str(ann), "--item", "tweet", "--pred", f"m={pred}",
                "--metrics", "manhattan", "--n-resamples", "20", "--out", str(out), *extra,
            ]
        )  # fmt: skip

    def _ok(self, ann: Path, pred: Path, out: Path, capsys, *extra: str) -> str:
        code = self._run(ann, pred, out, *extra)
        err = capsys.readouterr().err
        assert code == EXIT_OK, err
        scores = pd.read_parquet(out / "scores.parquet")
        # manhattan of (0.25, 0.75) against (0.5, 0.5) and of (0.9, 0.1) against (1, 0)
        np.testing.assert_allclose(sorted(scores["value"]), [0.2, 0.5])
        return err

    def test_the_annotations_item_column_name_is_used(self, ann, tmp_path, capsys):
        pred = tmp_path / "p.csv"
        pred.write_text("tweet,prob_neg,prob_pos\nt1,0.25,0.75\nt2,0.9,0.1\n", encoding="utf-8")
        self._ok(ann, pred, tmp_path / "o", capsys)

    def test_pipeline_jsonl(self, ann, tmp_path, capsys):
        pred = tmp_path / "p.jsonl"
        lines = [
            {
                "tweet": "t1",
                "out": [{"label": "neg", "score": 0.25}, {"label": "pos", "score": 0.75}],
            },
            {
                "tweet": "t2",
                "out": [{"label": "pos", "score": 0.1}, {"label": "neg", "score": 0.9}],
            },
        ]
        pred.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
        self._ok(ann, pred, tmp_path / "o", capsys, "--pred-item", "tweet")

    def test_npy_with_pred_ids(self, ann, tmp_path, capsys):
        np.save(tmp_path / "p.npy", np.array([[0.25, 0.75], [0.9, 0.1]]))
        ids = tmp_path / "ids.txt"
        ids.write_text("t1\nt2\n", encoding="utf-8")
        err = self._ok(
            ann,
            tmp_path / "p.npy",
            tmp_path / "o",
            capsys,
            "--labels",
            "neg,pos",
            "--nominal",
            "--pred-ids",
            str(ids),
        )
        assert "the array's 2 columns read as the labels in scale order" in err

    def test_long_table_with_other_column_names(self, ann, tmp_path, capsys):
        pred = tmp_path / "p.csv"
        text = "id,cls,pr\nt1,neg,0.25\nt1,pos,0.75\nt2,pos,0.1\nt2,neg,0.9\n"
        pred.write_text(text, encoding="utf-8")
        assert self._run(ann, pred, tmp_path / "o1") == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert "item=" not in err
        assert "labels=" not in err
        self._ok(
            ann,
            pred,
            tmp_path / "o2",
            capsys,
            "--pred-layout",
            "long",
            "--pred-label",
            "cls",
            "--pred-prob",
            "pr",
        )

    def test_one_error_names_every_problem_with_its_flag(self, ann, tmp_path, capsys):
        pred = tmp_path / "p.csv"
        pred.write_text("key,neg,maybe,model\n1,0.5,0.6,a\n2,,0.1,a\n", encoding="utf-8")
        assert self._run(ann, pred, tmp_path / "o") == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert "3 problems" in err
        assert "columns: 'key', 'neg', 'maybe', 'model'" in err
        assert "not labels 'key', 'maybe'; no column for 'pos'" in err
        assert "--pred-labels COL,COL" in err
        assert "--pred-item COLUMN" in err
        assert "1 missing probabilities in column 'neg' at line 3" in err
        assert "The row sums are checked once every label has its column" in err
        assert not re.search(r"\b(item|labels|normalize|na_values)=", err)
