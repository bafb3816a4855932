"""Tests of dissensus.cli._info (`dissensus info FILE`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dissensus import Annotations, Scale
from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, cli, main
from dissensus.cli._info import format_info, info_command
from dissensus.cli._reader_options import load_annotations, parse_labels, split_names
from tests.conftest import shared_path

if "info" not in cli.commands:  # until the command is registered in cli/_commands.py
    cli.add_command(info_command)

CSV = "item,annotator,label,year\n1,a,2,2020\n1,b,3,2020\n2,a,3,2021\n2,b,3,2021\n2,c,1,2021\n"


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


class TestFormatInfo:
    def test_sections(self):
        df = pd.DataFrame(
            {"item": [1, 1, 2], "annotator": ["a", "b", "a"], "label": ["x", "y", "x"]}
        )
        text = format_info(Annotations.from_frame(df), title="demo")
        assert text.startswith("demo\n")
        assert "items                2" in text
        assert "annotators           2" in text
        assert "annotations          3" in text
        assert "annotations per item: min 1, median 1.5, max 2, mean 1.50" in text
        assert "labels (nominal, 2):" in text
        assert "x         2   66.7%" in text

    def test_binned_histogram(self):
        rng = np.random.default_rng(0)
        n = rng.integers(1, 60, size=200)
        items = np.repeat(np.arange(200), n)
        df = pd.DataFrame({"item": items, "label": rng.integers(1, 4, size=items.size)})
        text = format_info(Annotations.from_frame(df, annotator=None))
        bars = [line for line in text.splitlines() if "│" in line]
        assert 2 <= len(bars) <= 12
        assert sum(int(line.rsplit(" ", 1)[1].replace(",", "")) for line in bars) == 200
        assert "annotators        none (no annotator ids)" in text


class TestInfoCommand:
    def test_csv(self, tmp_path, capsys):
        code, out, err = _run(capsys, "info", _write(tmp_path, "a.csv", CSV), "--meta", "year")
        assert code == EXIT_OK, err
        assert "items                2" in out
        assert "annotators           3" in out
        assert "annotations          5" in out
        assert "annotations per item: min 2, median 2.5, max 3" in out
        assert "    2 │ ██████████████████████████████ 1" in out
        assert "labels (ordinal, 3):" in out
        assert "3         3   60.0%" in out
        assert (
            "year: 2 distinct (2021: 1, 2020: 1)" in out
            or "year: 2 distinct (2020: 1, 2021: 1)" in out
        )
        assert err == ""

    def test_labels_and_nominal(self, tmp_path, capsys):
        path = _write(tmp_path, "a.csv", CSV)
        code, out, _ = _run(capsys, "info", path, "--labels", "3,2,1,0", "--nominal")
        assert code == EXIT_OK
        assert "labels (nominal, 4):" in out
        lines = [
            line.split()[0] for line in out.split("labels (nominal, 4):")[1].strip().splitlines()
        ]
        assert lines == ["3", "2", "1", "0"]

    def test_wide(self, tmp_path, capsys):
        path = _write(tmp_path, "w.tsv", "item\tr1\tr2\nx\tPOS\tNEG\ny\t\tPOS\n")
        code, out, _ = _run(capsys, "info", path, "--layout", "wide", "--annotators", "r1,r2")
        assert code == EXIT_OK
        assert "annotations          3" in out

    def test_custom_columns_and_no_annotator(self, tmp_path, capsys):
        path = _write(tmp_path, "a.csv", "task,y\nt1,1\nt1,0\n")
        code, out, _ = _run(
            capsys, "info", path, "--item", "task", "--label", "y", "--no-annotator"
        )
        assert code == EXIT_OK
        assert "none (no annotator ids)" in out

    def test_warnings_become_one_line_notes(self, tmp_path, capsys):
        path = _write(tmp_path, "a.csv", CSV + "3,a,\n")
        code, out, err = _run(capsys, "info", path, "--dropna")
        assert code == EXIT_OK
        assert err.startswith("dissensus: warning: Dropped 1 of 6 rows with missing values")
        assert len(err.strip().splitlines()) == 1
        assert "annotations          5" in out

    def test_duplicates_option(self, tmp_path, capsys):
        path = _write(tmp_path, "a.csv", CSV + "1,a,3,2020\n")
        code, _, err = _run(capsys, "info", path)
        assert code == EXIT_BAD_INPUT
        assert "repeated (item, annotator) pairs" in err
        code, out, _ = _run(capsys, "info", path, "--duplicates", "keep")
        assert code == EXIT_OK
        assert "annotations          6" in out

    def test_lewidi(self, tmp_path, capsys):
        data = {"1": {"annotations": "1,0,0", "annotators": "A,B,C", "split": "dev"}}
        code, out, _ = _run(capsys, "info", _write(tmp_path, "d.json", json.dumps(data)))
        assert code == EXIT_OK
        assert "split: 1 distinct (dev: 1)" in out

    def test_bad_label_one_line(self, tmp_path, capsys):
        path = _write(tmp_path, "a.csv", CSV)
        code, out, err = _run(capsys, "info", path, "--labels", "1,2")
        assert code == EXIT_BAD_INPUT
        assert out == ""
        assert err.startswith("dissensus: error: 3 labels in ")
        assert "are not on the scale 1, 2: 3 at lines 3, 4, 5." in err
        assert len(err.strip().splitlines()) == 1

    def test_fixed_format_refuses_column_options(self, tmp_path, capsys):
        path = _write(tmp_path, "a.csv", CSV)
        code, _, err = _run(capsys, "info", path, "--format", "convabuse", "--item", "x")
        assert code == EXIT_BAD_INPUT
        assert "The convabuse format has fixed columns; the option(s) --item" in err

    def test_unknown_format_choice(self, tmp_path, capsys):
        code, _, err = _run(capsys, "info", _write(tmp_path, "a.csv", CSV), "--format", "xlsx")
        assert code == EXIT_BAD_INPUT
        assert "dissensus: error:" in err
        assert "xlsx" in err

    def test_convabuse_full(self, capsys):
        path = shared_path("data", "convabuse", "ConvAbuseEMNLPfull.csv")
        code, out, err = _run(capsys, "info", str(path), "--format", "convabuse")
        assert code == EXIT_OK
        assert "items            4,185" in out
        assert "annotators           8" in out
        assert "annotations     12,411" in out
        assert "annotations per item: min 2, median 3, max 7" in out
        assert "labels (ordinal, 5):" in out
        label_lines = out.split("labels (ordinal, 5):")[1].strip().splitlines()[:5]
        assert [line.split()[0] for line in label_lines] == ["-3", "-2", "-1", "0", "1"]
        assert "bot: 2 distinct" in out
        assert err.startswith(
            "dissensus: warning: Dropped 357 repeated (item, annotator) annotations"
        )


class TestLoadAnnotations:
    def test_labels_give_an_ordinal_scale(self, tmp_path):
        ann = load_annotations(_write(tmp_path, "a.csv", CSV), labels="1, 2, 3", ordered=None)
        assert ann.scale == Scale.ordinal([1, 2, 3])

    def test_labels_nominal(self, tmp_path):
        ann = load_annotations(_write(tmp_path, "a.csv", CSV), labels="3,2,1", ordered=False)
        assert ann.scale == Scale.nominal([3, 2, 1])

    def test_ordered_without_labels(self, tmp_path):
        ann = load_annotations(_write(tmp_path, "a.csv", CSV), ordered=False)
        assert ann.scale == Scale.nominal([1, 2, 3])

    def test_columns_and_other_options_ignored(self, tmp_path):
        path = _write(tmp_path, "w.csv", "id,r1,r2,g\nx,1,2,u\n")
        ann = load_annotations(
            path, layout="wide", item="id", annotators="r1, r2", meta="g", seed=3, out=None
        )
        assert list(ann.annotators) == ["r1", "r2"]
        assert ann.meta["g"].tolist() == ["u"]

    def test_no_annotator(self, tmp_path):
        ann = load_annotations(_write(tmp_path, "a.csv", "item,label\n1,2\n"), no_annotator=True)
        assert not ann.has_annotators

    def test_warnings_echoed(self, tmp_path, capsys):
        load_annotations(_write(tmp_path, "a.csv", CSV + "9,a,\n"), dropna=True)
        assert capsys.readouterr().err.startswith("dissensus: warning: Dropped 1 of 6 rows")


class TestParseLabels:
    def test_numbers_and_text(self):
        assert parse_labels("-3,-2, -1,0,1") == [-3, -2, -1, 0, 1]
        assert parse_labels("0.5,1.0,nan,x") == [0.5, 1, "nan", "x"]
        assert parse_labels("a,,b,") == ["a", "b"]
        assert parse_labels("0.5, 1, 1.5") == [0.5, 1, 1.5]

    def test_split_names(self):
        assert split_names(("emd, E[emd]", "manhattan")) == ["emd", "E[emd]", "manhattan"]
        assert split_names("a,,b") == ["a", "b"]
        assert split_names(None) == []


def _first_try_csv(tmp_path: Path, *, blanks: bool = True) -> str:
    """The issue's first-try file: item_id, rater_id, stars, 500 items, some blank stars."""
    rng = np.random.default_rng(3)
    items = np.repeat([f"t{i}" for i in range(500)], 3)
    raters = np.concatenate([rng.choice(20, 3, replace=False) for _ in range(500)])
    stars = rng.integers(1, 6, items.size).astype(object)
    if blanks:
        stars[[5, 172, 900]] = ""
    frame = pd.DataFrame({"item_id": items, "rater_id": [f"r{r}" for r in raters], "stars": stars})
    path = tmp_path / "first.csv"
    frame.to_csv(path, index=False)
    return str(path)


class TestColumnDetection:
    USING = "dissensus: using columns item=item_id, annotator=rater_id, label=stars in "

    def test_first_try_needs_one_corrective_run(self, tmp_path, capsys):
        path = _first_try_csv(tmp_path)
        code, out, err = _run(capsys, "info", path)
        assert code == EXIT_BAD_INPUT
        assert not out
        using, error = err.splitlines()
        assert using.startswith(self.USING)
        assert using.endswith("pass --item/--annotator/--label to choose others.")
        assert error.startswith("dissensus: error: Missing 'stars' values in ")
        assert "3 in lines 7, 174, 902" in error
        assert "--dropna" in error
        code, out, err = _run(capsys, "info", path, "--dropna")
        assert code == EXIT_OK
        assert "items              500" in out
        assert err.startswith(self.USING)
        assert "Dropped 3 of 1,500 rows" in err or "Dropped 3 of 1500 rows" in err

    @pytest.mark.parametrize("command", [["agreement"], ["info", "--json"]])
    def test_agreement_and_info_detect(self, tmp_path, capsys, command):
        path = _first_try_csv(tmp_path, blanks=False)
        extra = ["--n-resamples", "50"] if command == ["agreement"] else []
        code, out, err = _run(capsys, command[0], path, *command[1:], *extra)
        assert code == EXIT_OK, err
        assert err.startswith(self.USING)
        assert "500" in out

    def test_evaluate_detects(self, tmp_path, capsys):
        path = _first_try_csv(tmp_path, blanks=False)
        ids = [f"t{i}" for i in range(500)]
        preds = pd.DataFrame(np.full((500, 5), 0.2), columns=[str(k) for k in range(1, 6)])
        preds.insert(0, "item", ids)
        preds.to_csv(tmp_path / "a.csv", index=False)
        args = ["--pred", f"a={tmp_path / 'a.csv'}", "--pred", f"b={tmp_path / 'a.csv'}"]
        code, _, err = _run(
            capsys, "evaluate", path, *args, "--n-resamples", "20", "--out", str(tmp_path / "o")
        )
        assert code == EXIT_OK, err
        assert err.startswith(self.USING)

    def test_ambiguous_columns_one_error_with_every_role_and_blanks(self, tmp_path, capsys):
        path = _write(tmp_path, "a.csv", "id,text_id,who,y\n1,a,x,2\n2,b,z,\n")
        code, _, err = _run(capsys, "info", path)
        assert code == EXIT_BAD_INPUT
        assert len(err.splitlines()) == 1
        for part in (
            "item: 'id', 'text_id' all look like an item id; choose one with --item COLUMN",
            "name it with --annotator COLUMN or pass --no-annotator",
            "name it with --label COLUMN",
            "Columns: 'id', 'text_id', 'who', 'y'",
            "1 row with blank cells (y: 1) at line 3",
            "pass --dropna",
        ):
            assert part in err
        assert "=..." not in err
        assert "=None" not in err

    def test_flags_win_and_the_error_lists_only_what_is_left(self, tmp_path, capsys):
        path = _write(tmp_path, "a.csv", "id,text_id,who,y\n1,a,x,2\n2,b,z,3\n")
        code, _, err = _run(capsys, "info", path, "--item", "text_id", "--annotator", "who")
        assert code == EXIT_BAD_INPUT
        assert "hold the label (decided: item=text_id, annotator=who)" in err
        assert "one of 'id', 'y'; name it with --label COLUMN" in err
        # "id", a known item name, is not taken for the label nor the annotator
        code, _, err = _run(capsys, "info", path, "--item", "text_id", "--label", "y")
        assert code == EXIT_BAD_INPUT
        assert "hold the annotator (decided: item=text_id, label=y)" in err
        assert "one of 'id', 'who'" in err

    def test_explicit_flags_are_not_announced(self, tmp_path, capsys):
        path = _write(tmp_path, "a.csv", "id,rater,stars,score\n1,a,2,9\n1,b,3,9\n")
        flags = ["--item", "id", "--annotator", "rater", "--label", "score"]
        code, out, err = _run(capsys, "info", path, *flags)
        assert code == EXIT_OK
        assert not err
        assert "9" in out  # the label read is the one named, not the known name "stars"

    def test_no_annotator_flag(self, tmp_path, capsys):
        path = _write(tmp_path, "a.csv", "doc_id,user,answer\n1,u,2\n1,v,3\n")
        code, _, err = _run(capsys, "info", path, "--no-annotator")
        assert code == EXIT_OK
        assert err.startswith("dissensus: using columns item=doc_id, label=answer in ")
