"""Tests of dissensus.datasets.load_example and the example files."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import numpy as np
import pytest

from dissensus import load_example, read_annotations, read_convabuse, read_predictions
from dissensus.datasets import EXAMPLE_FILES, example_path, write_example
from tests.conftest import reference_cases
from tests.datasets import example_files

_CASES = reference_cases("agreement_cases")


class TestLoadExample:
    def test_course_29(self):
        c = load_example("course_29")
        assert c.values.shape == (29, 5)
        # Teufel's MLRD notes: 4 raters per item, items numbered 1..29
        assert (c.n == 4).all()
        assert list(c.items) == list(range(1, 30))
        # chance agreement of the worked example, sum_j p_j^2 = .288 (Teufel, MLRD lecture 6)
        p = c.values.sum(axis=0) / c.values.sum()
        assert np.sum(p**2) == pytest.approx(0.288, abs=5e-4)

    def test_course_29_matches_the_published_table(self):
        if "course_29_items" not in _CASES:
            pytest.skip("../shared/reference/agreement_cases.json is absent")
        case = _CASES["course_29_items"]
        c = load_example("course_29")
        np.testing.assert_array_equal(c.values, case["data"])
        assert list(c.scale.labels) == case["categories"]

    def test_course_reviews_match_the_published_table(self):
        if "course_review_judgements" not in _CASES:
            pytest.skip("../shared/reference/agreement_cases.json is absent")
        case = _CASES["course_review_judgements"]
        c = load_example("course_reviews")
        years = c.groups("year")
        for year, table in case["data"].items():
            np.testing.assert_array_equal(c.values[(years == year).to_numpy()], table)

    def test_course_29_is_default(self):
        np.testing.assert_array_equal(load_example().values, load_example("course_29").values)

    def test_course_reviews(self):
        c = load_example("course_reviews")
        assert c.values.shape == (28, 2)
        assert c.scale.labels == ("POS", "NEG")
        assert c.items[0] == "2017-18/R1"
        years = c.groups("year")
        assert years.nunique() == 7
        assert (years.value_counts() == 4).all()
        assert c.meta is not None
        assert c.meta["review"].iloc[:4].tolist() == ["R1", "R2", "R3", "R4"]

    def test_unknown_name(self):
        with pytest.raises(ValueError, match="The 'name' parameter of load_example must be one of"):
            load_example("nope")  # type: ignore[arg-type]


class TestExampleFiles:
    def test_every_file_reads(self):
        ratings = read_annotations(example_path("ratings"), meta=["year"])
        assert (ratings.n_items, ratings.n_annotators) == (40, 8)
        for model in ("a", "b"):
            pred = read_predictions(example_path(model))
            assert pred.align(ratings.counts())[0].values.shape == (40, 5)
        assert read_convabuse(example_path("convabuse")).scale.K == 5
        reviews = read_annotations(example_path("reviews"), label="stars", meta=["review"])
        assert (reviews.n_items, reviews.n_annotators, reviews.scale.K) == (60, 8, 5)
        assert reviews.counts().meta is not None  # the text, one per item

    def test_write_to_a_directory_or_a_file(self, tmp_path):
        assert write_example("ratings", tmp_path) == tmp_path / "ratings.csv"
        target = write_example("b", tmp_path / "mine.csv")
        assert target.read_bytes() == example_path("b").read_bytes()

    def test_unknown_file(self):
        with pytest.raises(ValueError, match="The 'name' parameter of example_path must be one of"):
            example_path("nope")

    def test_files_are_what_the_generator_writes(self, tmp_path):
        example_files.write(tmp_path)
        for name, file in EXAMPLE_FILES.items():
            assert (tmp_path / file).read_bytes() == example_path(name).read_bytes(), file

    def test_files_are_package_data(self):
        # the wheel ships what the package-data globs name (checked by hand with pip wheel)
        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        globs = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]["package-data"]
        for file in EXAMPLE_FILES.values():
            path = f"datasets/{file}"
            assert any(fnmatch.fnmatch(path, g) for g in globs["dissensus"]), path
