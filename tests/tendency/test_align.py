"""Tests of dissensus.tendency._align: reading and aligning per-annotator predictions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dissensus import Annotations, DataError, Scale
from dissensus.tendency import align_predictions, dic, read_annotator_predictions


@pytest.fixture
def true() -> Annotations:
    df = pd.DataFrame(
        {"item": [1, 1, 2, 2, 3], "annotator": ["a", "b", "a", "b", "a"], "label": [-1, 0, 1, 1, 0]}
    )
    return Annotations.from_frame(df, scale=[-1, 0, 1])


class TestReadAnnotatorPredictions:
    def test_csv_labels_are_read_on_the_scale(self, tmp_path: Path, true) -> None:
        path = tmp_path / "p.csv"
        path.write_text("item,annotator,label\n1,a,-1\n1,b,0\n2,a,1\n2,b,1\n3,a,0\n")
        pred = read_annotator_predictions(path, true.scale)
        assert dic(true, pred, min_overlap=1, confidence_level=None).statistic == 0.0

    def test_parquet_distributions(self, tmp_path: Path, true) -> None:
        q = np.array([[0.8, 0.1, 0.1], [0, 1, 0], [0, 0, 1], [0.2, 0.3, 0.5], [0, 1, 0]])
        df = pd.DataFrame(q, columns=["-1", "0", "1"]).assign(
            item=[1, 1, 2, 2, 3], annotator=["a", "b", "a", "b", "a"]
        )
        path = tmp_path / "p.parquet"
        df.to_parquet(path)
        pred = read_annotator_predictions(path, true.scale)
        aligned = align_predictions(true, pred)
        np.testing.assert_allclose(aligned.q, q)
        assert not aligned.hard

    def test_label_off_the_scale_names_the_line(self, tmp_path: Path, true) -> None:
        path = tmp_path / "p.csv"
        path.write_text("item,annotator,label\n1,a,-1\n1,b,5\n")
        with pytest.raises(DataError, match="line 3"):
            read_annotator_predictions(path, true.scale)

    def test_neither_labels_nor_distributions(self, tmp_path: Path, true) -> None:
        path = tmp_path / "p.csv"
        path.write_text("item,annotator,guess\n1,a,-1\n")
        with pytest.raises(DataError, match="probability column per label"):
            read_annotator_predictions(path, true.scale)

    def test_missing_file(self, tmp_path: Path) -> None:
        with pytest.raises(FileNotFoundError):
            read_annotator_predictions(tmp_path / "none.csv", Scale((0, 1)))


class TestAlignPredictions:
    def test_annotations_as_predictions(self, true) -> None:
        aligned = align_predictions(true, true)
        assert aligned.hard
        np.testing.assert_array_equal(aligned.q.argmax(axis=1), true.label_codes)

    def test_wrong_type(self, true) -> None:
        with pytest.raises(TypeError, match="must be Annotations or a long DataFrame"):
            align_predictions(true, [1, 2, 3])  # type: ignore[arg-type]

    def test_missing_column(self, true) -> None:
        with pytest.raises(DataError, match="no 'annotator' column"):
            align_predictions(true, pd.DataFrame({"item": [1], "label": [0]}))

    def test_label_counts_are_refused(self, true) -> None:
        with pytest.raises(TypeError, match="must be Annotations with annotator ids"):
            align_predictions(true.counts(), true)  # type: ignore[arg-type]

    def test_needs_annotator_ids(self) -> None:
        ann = Annotations.from_frame(
            pd.DataFrame({"item": [1, 1], "label": [0, 1]}), annotator=None
        )
        with pytest.raises(DataError, match="needs annotator ids"):
            align_predictions(ann, ann)


class TestDaskInput:
    """Annotator-level measures run in memory: a Dask frame is computed first."""

    def test_dask_predictions_are_computed(self, true: Annotations) -> None:
        dd = pytest.importorskip("dask.dataframe")
        dask = pytest.importorskip("dask")
        q = np.array([[0.8, 0.1, 0.1], [0, 1, 0], [0, 0, 1], [0.2, 0.3, 0.5], [0, 1, 0]])
        df = pd.DataFrame(q, columns=["-1", "0", "1"]).assign(
            item=[1, 1, 2, 2, 3], annotator=["a", "b", "a", "b", "a"]
        )
        with dask.config.set(scheduler="synchronous"):
            got = align_predictions(true, dd.from_pandas(df, npartitions=2))
            want = align_predictions(true, df)
            np.testing.assert_array_equal(got.q, want.q)
            assert got.hard == want.hard
            # the true annotations from a Dask frame: Annotations.from_frame computes it
            long = true.to_frame()
            true_dask = Annotations.from_frame(dd.from_pandas(long, npartitions=2))
            res = dic(true_dask, dd.from_pandas(df, npartitions=3), min_overlap=1,
                      confidence_level=None)  # fmt: skip
        assert res.statistic == dic(true, df, min_overlap=1, confidence_level=None).statistic

    def test_dask_true_annotations_refused_with_the_way_forward(self, true: Annotations) -> None:
        dd = pytest.importorskip("dask.dataframe")
        ddf = dd.from_pandas(true.to_frame(), npartitions=2)
        with pytest.raises(
            TypeError, match=r"Annotations\.from_frame\(ddf, \.\.\.\), which computes"
        ):
            dic(ddf, ddf)
