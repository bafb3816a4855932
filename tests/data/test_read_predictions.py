"""Tests of ``read_predictions``: every layout, ids read exactly, ``na_values``, ``strip_labels``, one error per file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dissensus import DataError, DissensusWarning, LabelCounts, evaluate, read_annotations
from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, main
from dissensus.data import Predictions, Scale, read_predictions


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


FIXTURES = Path(__file__).parent / "fixtures" / "predictions"


def _read_noting(path: Path, *notes: str, **options: object) -> Predictions:
    """``read_predictions(path)``, checking that each of ``notes`` is said in a warning."""
    with pytest.warns(DissensusWarning) as caught:
        pred = read_predictions(path, **options)  # type: ignore[arg-type]
    said = " ".join(str(w.message) for w in caught)
    for note in notes:
        assert note in said
    assert list(pred.notes) == [str(w.message).removeprefix(f"{path}: ")[:-1] for w in caught]
    return pred


class TestLayouts:
    """Each layout people have, from a hand-written fixture, read without options."""

    def test_columns_named_after_the_labels(self):
        pred = read_predictions(FIXTURES / "wide_labels.csv")
        assert pred.scale is not None
        assert pred.scale.labels == (1, 2, 3)
        np.testing.assert_array_equal(pred.values, [[0.2, 0.3, 0.5], [0.6, 0.4, 0.0]])
        assert pred.notes == ()

    @pytest.mark.parametrize("name", ["wide_p_prefix.csv", "wide_prob_prefix.tsv"])
    def test_prefixed_label_columns_and_an_ignored_text_column(self, name):
        ignored = "'model'" if name.endswith(".csv") else "'split'"
        pred = _read_noting(
            FIXTURES / name, "read as labels 'neg', 'pos'", f"column(s) {ignored} ignored"
        )
        assert pred.scale is not None
        assert pred.scale.labels == ("neg", "pos")
        assert pred.items.tolist() == ["a", "b"]
        np.testing.assert_array_equal(pred.values, [[0.25, 0.75], [0.9, 0.1]])

    def test_numbered_columns_are_the_scale_in_order_and_rounding_is_accepted(self):
        pred = _read_noting(
            FIXTURES / "wide_p1_rounded.csv",
            "item ids read from column 'item_id'",
            "columns p1..p5 read as the 5 labels in scale order (p1 = the first)",
            "2 rows summing to 1 only within the rounding of 4 decimals",
        )
        assert pred.scale is None  # matched to the annotations' labels by position
        np.testing.assert_allclose(pred.values.sum(axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(pred.values[0, 0], 0.1429 / 1.0001)

    def test_numbered_columns_take_the_given_scale(self):
        scale = Scale((-1, 0, 1))
        pred = _read_noting(FIXTURES / "wide_p0.csv", "p0 = the first, label -1", scale=scale)
        assert pred.scale == scale
        np.testing.assert_array_equal(pred.values[1], [0.6, 0.4, 0.0])

    def test_long_table_is_detected(self):
        pred = read_predictions(FIXTURES / "long.csv")
        assert pred.items.tolist() == ["a", "b"]
        assert pred.scale is not None
        assert set(pred.scale.labels) == {"neg", "pos"}
        frame = pred.to_frame()
        assert frame.loc["b", "neg"] == 0.9
        assert frame.loc["a", "pos"] == 0.75

    def test_pipeline_output_without_ids_maps_label_n_by_position(self):
        pred = _read_noting(
            FIXTURES / "pipeline_bare.jsonl",
            "labels LABEL_0..LABEL_1 read as the 2 labels in scale order",
            "no item ids: line i holds the i-th annotated item",
        )
        assert pred.items is None
        assert pred.scale is None
        np.testing.assert_array_equal(pred.values, [[0.25, 0.75], [0.9, 0.1]])
        counts = LabelCounts.from_array([[1, 3], [4, 0]], items=["x", "y"], scale=["neg", "pos"])
        aligned, _ = pred.align(counts)
        assert aligned.items.tolist() == ["x", "y"]

    def test_pipeline_output_with_ids_maps_labels_by_name(self):
        pred = read_predictions(FIXTURES / "pipeline_ids.jsonl", scale=Scale(("pos", "neg")))
        assert pred.items.tolist() == ["a", "b"]
        np.testing.assert_array_equal(pred.values, [[0.75, 0.25], [0.1, 0.9]])

    def test_pipeline_output_lacking_a_label_names_top_k(self, tmp_path):
        text = '[{"label": "a", "score": 0.7}, {"label": "b", "score": 0.3}]\n[{"label": "a", "score": 1.0}]\n'
        with pytest.raises(DataError, match=r"line 2 label 'b'; run the pipeline with top_k=None"):
            read_predictions(_write(tmp_path, "p.jsonl", text))

    def test_npy_with_its_sibling_ids_file(self, tmp_path):
        np.save(tmp_path / "m.npy", np.array([[0.5, 0.5], [0.2, 0.8]]))
        _write(tmp_path, "m.ids.txt", "007\n12\n")
        pred = _read_noting(
            tmp_path / "m.npy", "the array's 2 columns read as the labels in scale order"
        )
        assert pred.items.tolist() == ["007", "12"]
        np.testing.assert_array_equal(pred.values, [[0.5, 0.5], [0.2, 0.8]])

    def test_npy_ids_file_named_and_row_count_checked(self, tmp_path):
        np.save(tmp_path / "m.npy", np.array([[0.5, 0.5], [0.2, 0.8]]))
        ids = _write(tmp_path, "ids.txt", "1\n2\n3\n")
        with pytest.raises(DataError, match=r"has 3 lines but the array has 2 rows"):
            read_predictions(tmp_path / "m.npy", ids=ids)
        with pytest.raises(DataError, match=r"m\.ids\.txt' does not exist.*--pred-ids FILE"):
            read_predictions(tmp_path / "m.npy")


class TestOneErrorForEveryProblem:
    def test_every_problem_of_the_file_at_once(self):
        with pytest.raises(DataError) as info:
            read_predictions(FIXTURES / "many_problems.csv", scale=Scale(("a", "b", "c")))
        text = str(info.value)
        assert "columns: 'key', 'p1', 'p2', 'p3', 'model'" in text
        assert "3 problems" in text
        assert "(1) no column named like an item id" in text
        assert "(CLI: --pred-item COLUMN)" in text
        assert "(2) 1 missing probabilities in column 'p2' at line 3" in text
        assert "(3) 1 of 3 rows do not sum to 1" in text
        assert "line 4 sums to 1.7" in text
        assert "(CLI: --normalize)" in text
        assert (
            "As read: columns p1..p3 read as the 3 labels in scale order (p1 = the first, label 'a')"
            in text
        )

    def test_numbered_columns_not_matching_the_scale_come_first(self):
        with pytest.raises(DataError) as info:
            read_predictions(FIXTURES / "many_problems.csv", scale=Scale(("neg", "pos")))
        text = str(info.value)
        assert "(1) 3 numbered label columns but the annotations have 2 labels" in text
        assert "The row sums are checked once every label has its column" in text
        assert "rows do not sum" not in text

    def test_unknown_label_columns_come_before_the_row_sums(self, tmp_path):
        path = _write(tmp_path, "p.csv", "item,1,2,9\na,0.2,0.3,0.6\n")
        with pytest.raises(DataError) as info:
            read_predictions(path, scale=Scale((1, 2)))
        text = str(info.value)
        assert (
            "(1) the label columns do not match the annotations' labels 1, 2: not labels 9; no column for none"
            in text
        )
        assert "--pred-labels" in text
        assert (
            "(2) 1 of 1 rows do not sum to 1 within rounding (2 decimals, ±0.01): line 2 sums to 0.5"
            in text
        )

    def test_rounding_beyond_the_tolerance_is_refused_with_lines_and_sums(self, tmp_path):
        path = _write(tmp_path, "p.csv", "item,1,2\na,0.5,0.5\nb,0.4,0.5\nc,0.3,0.702\n")
        with pytest.raises(
            DataError,
            match=r"2 of 3 rows do not sum to 1 within rounding \(3 decimals, ±0.001\): line 3 sums to 0.9, line 4 sums to 1.002",
        ):
            read_predictions(path)

    def test_normalize_says_how_many_rows_and_by_how_much(self, tmp_path):
        path = _write(tmp_path, "p.csv", "item,1,2\na,0.5,0.5\nb,0.4,0.5\nc,0.3,0.8\n")
        pred = _read_noting(
            path,
            "normalize=True rescaled 2 of 3 rows to sum to 1 (sums 0.9 to 1.1; |sum - 1| up to 0.1)",
            normalize=True,
        )
        np.testing.assert_allclose(pred.values[1], [4 / 9, 5 / 9])

    def test_full_precision_rows_keep_the_strict_tolerance(self, tmp_path):
        path = _write(tmp_path, "p.csv", "item,1,2\na,0.123456789,0.87654\n")
        with pytest.raises(DataError, match=r"within rounding \(±1e-06\)"):
            read_predictions(path)

    def test_one_hot_rows_are_not_read_as_rounded(self, tmp_path):
        path = _write(tmp_path, "p.csv", "item,1,2,3\na,1,0,1\n")
        with pytest.raises(DataError, match=r"line 2 sums to 2"):
            read_predictions(path)


class TestPythonFramesWithAnIdColumn:
    def test_evaluate_takes_an_item_id_column_and_says_so(self):
        counts = LabelCounts.from_array([[3, 1], [0, 4]], items=["a", "b"], scale=[1, 2])
        frame = pd.DataFrame({"item_id": ["b", "a"], 1: [0.1, 0.7], 2: [0.9, 0.3]})
        with pytest.warns(DissensusWarning, match=r"item ids read from column 'item_id'"):
            ev = evaluate(counts, {"m1": frame}, metrics=["manhattan"])
        assert ev.counts.items.tolist() == ["a", "b"]

    def test_a_text_column_that_is_not_an_id_is_named(self):
        frame = pd.DataFrame({"name": ["b", "a"], 1: [0.1, 0.7], 2: [0.9, 0.3]})
        with pytest.raises(DataError, match=r"column\(s\) 'name' hold text.*item='\.\.\.'"):
            Predictions.from_frame(frame)


class TestLongAndIdColumns:
    def test_a_long_row_sum_names_the_item_and_its_first_line(self, tmp_path):
        text = "item,label,prob\na,neg,0.5\na,pos,0.5\nb,neg,0.2\nb,pos,0.5\n"
        with pytest.raises(DataError, match=r"line 4 \(item 'b'\) sums to 0\.7"):
            read_predictions(_write(tmp_path, "p.csv", text))

    def test_a_second_id_column_is_not_a_label(self, tmp_path):
        path = _write(tmp_path, "p.csv", "item,id,1,2\na,7,0.5,0.5\n")
        pred = _read_noting(path, "column(s) 'id' ignored")
        assert pred.scale is not None
        assert pred.scale.labels == (1, 2)

    def test_the_annotations_item_column_comes_first(self, tmp_path):
        path = _write(tmp_path, "p.csv", "id,tweet,1,2\n1,a,0.5,0.5\n")
        pred = _read_noting(path, "item ids read from column 'tweet'", annotation_item="tweet")
        assert pred.items.tolist() == ["a"]
