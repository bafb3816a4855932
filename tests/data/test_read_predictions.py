"""Tests of ``read_predictions``: ids read exactly, ``na_values``, ``strip_labels``, cell errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dissensus import DataError, LabelCounts, read_annotations
from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, main
from dissensus.data import read_predictions


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


class TestReadPredictionsNaValues:
    @pytest.mark.parametrize("word", ["NA", "null", "None", "n/a", "NaN"])
    def test_words_that_look_missing_are_ids_by_default(self, tmp_path, word):
        path = _write(tmp_path, "p.csv", f"item,1,2\n{word},0.5,0.5\nb,0.2,0.8\n")
        pred = read_predictions(path)
        assert pred.items.tolist() == [word, "b"]

    def test_null_id_in_jsonl_is_refused_with_its_line(self, tmp_path):
        text = '{"item": "a", "1": 0.5, "2": 0.5}\n{"item": null, "1": 0.2, "2": 0.8}\n'
        with pytest.raises(DataError, match=r"missing 'item' values at line 2"):
            read_predictions(_write(tmp_path, "p.jsonl", text))

    def test_na_values_make_an_id_missing_and_that_is_an_error(self, tmp_path):
        path = _write(tmp_path, "p.csv", "item,1,2\nNA,0.5,0.5\nb,0.2,0.8\n")
        with pytest.raises(DataError, match=r"1 missing 'item' values at line 2"):
            read_predictions(path, na_values=["NA"])

    def test_an_empty_id_is_refused_not_read_as_nan(self, tmp_path):
        path = _write(tmp_path, "p.csv", "item,1,2\n,0.5,0.5\nb,0.2,0.8\n")
        with pytest.raises(DataError, match=r"missing 'item' values at line 2"):
            read_predictions(path)

    def test_text_probability_names_line_column_and_option(self, tmp_path):
        path = _write(tmp_path, "p.csv", "item,1,2\na,0.5,0.5\nb,NA,0.8\n")
        with pytest.raises(DataError, match=r"column '1' holds 'NA' at line 3.*--na-values"):
            read_predictions(path)

    def test_missing_probability_names_its_line(self, tmp_path):
        path = _write(tmp_path, "p.csv", "item,1,2\na,0.5,0.5\nb,NA,0.8\n")
        with pytest.raises(DataError, match=r"1 missing probabilities in column '1' at line 3"):
            read_predictions(path, na_values=["NA"])

    def test_long_layout_ids_and_labels_named_na_are_data(self, tmp_path):
        text = "item,label,prob\nNA,null,0.25\nNA,pos,0.75\n"
        pred = read_predictions(_write(tmp_path, "p.csv", text), layout="long")
        assert pred.items.tolist() == ["NA"]
        assert set(pred.scale.labels) == {"null", "pos"}

    def test_long_layout_missing_label_with_na_values(self, tmp_path):
        text = "item,label,prob\na,null,0.25\na,pos,0.75\n"
        with pytest.raises(DataError, match=r"missing 'label' values at line 2"):
            read_predictions(_write(tmp_path, "p.csv", text), layout="long", na_values=["null"])


class TestReadPredictionsStripLabels:
    def test_wide_label_columns_keep_whitespace_by_default(self, tmp_path):
        pred = read_predictions(_write(tmp_path, "p.csv", "item, pos, neg\na,0.5,0.5\n"))
        assert pred.scale is not None
        assert pred.scale.labels == (" pos", " neg")

    def test_wide_label_columns_stripped(self, tmp_path):
        path = _write(tmp_path, "p.csv", "item, pos,neg \na,0.25,0.75\n")
        pred = read_predictions(path, strip_labels=True)
        assert pred.scale is not None
        assert pred.scale.labels == ("pos", "neg")
        np.testing.assert_array_equal(pred.values, [[0.25, 0.75]])

    def test_stripping_that_merges_two_columns_is_refused(self, tmp_path):
        path = _write(tmp_path, "p.csv", "item,pos, pos\na,0.25,0.75\n")
        with pytest.raises(DataError, match=r"columns 'pos' and ' pos' are the same label"):
            read_predictions(path, strip_labels=True)

    def test_long_label_cells_stripped(self, tmp_path):
        text = "item,label,prob\na, pos,0.25\na,neg ,0.75\n"
        pred = read_predictions(_write(tmp_path, "p.csv", text), layout="long", strip_labels=True)
        assert pred.scale is not None
        assert set(pred.scale.labels) == {"pos", "neg"}

    def test_whitespace_mismatch_with_the_annotations_suggests_the_option(self, tmp_path):
        counts = LabelCounts.from_array([[1, 2]], items=["a"], scale=["pos", "neg"])
        pred = read_predictions(_write(tmp_path, "p.csv", "item, pos, neg\na,0.5,0.5\n"))
        with pytest.raises(DataError, match=r"only by surrounding whitespace.*--strip-labels"):
            pred.align(counts)


class TestEvaluateCommandReadsPredictionsLikeAnnotations:
    @pytest.fixture
    def files(self, tmp_path: Path) -> dict[str, Path]:
        ann = "item,annotator,label\nNA,x,pos\nNA,y,neg\nnull,x,pos\nnull,y,pos\n"
        pred = "item, pos, neg\nNA,0.5,0.5\nnull,0.9,0.1\n"
        return {"ann": _write(tmp_path, "ann.csv", ann), "pred": _write(tmp_path, "p.csv", pred)}

    def _run(self, files: dict[str, Path], out: Path, *extra: str) -> int:
        return main(
            [
                "evaluate", str(files["ann"]), "--pred", f"m={files['pred']}",
                "--metrics", "manhattan", "--n-resamples", "20", "--out", str(out), *extra,
            ]
        )  # fmt: skip

    def test_ids_na_and_null_are_items_and_strip_labels_applies_to_predictions(
        self, files, tmp_path, capsys
    ):
        assert read_annotations(files["ann"]).items.tolist() == ["NA", "null"]
        code = self._run(files, tmp_path / "out", "--strip-labels")
        assert code == EXIT_OK, capsys.readouterr().err
        err = capsys.readouterr().err
        assert "error" not in err

    def test_without_strip_labels_the_columns_do_not_match(self, files, tmp_path, capsys):
        assert self._run(files, tmp_path / "out") == EXIT_BAD_INPUT
        assert "--strip-labels" in capsys.readouterr().err

    def test_na_values_apply_to_prediction_files(self, files, tmp_path, capsys):
        files["pred"].write_text("item, pos, neg\nNA,0.5,0.5\nnull,-,0.1\n", encoding="utf-8")
        assert self._run(files, tmp_path / "o1", "--strip-labels") == EXIT_BAD_INPUT
        assert "holds '-' at line 3" in capsys.readouterr().err
        code = self._run(files, tmp_path / "o2", "--strip-labels", "--na-values", "-")
        assert code == EXIT_BAD_INPUT
        assert "1 missing probabilities in column 'pos' at line 3" in capsys.readouterr().err
