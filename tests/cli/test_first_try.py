"""End to end, as a new user tries it: a 500-item CSV and two models' prediction files.

The annotations have ``item_id, rater_id, stars`` (1..5, some blanks); each model's file has
``item_id, p1..p5`` rounded to 4 decimals (rows then miss 1 by up to 0.00025). ``evaluate``
must succeed with at most one corrective run per file, using only flags the first error names.

The annotation file takes its one corrective run: its columns are detected (and announced)
on the first run, whose one error names the blank cells and ``--dropna``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, main

N_ITEMS, K = 500, 5
#: The annotation file's one corrective flag (see test_the_annotations_take_one_corrective_run).
ANNOTATION_FLAGS = ("--dropna",)


@pytest.fixture
def first_try(tmp_path: Path) -> dict[str, Path]:
    rng = np.random.default_rng(25)
    ids = [f"t{i:04d}" for i in range(N_ITEMS)]
    n = rng.integers(2, 6, size=N_ITEMS)
    item = np.repeat(ids, n)
    stars = rng.integers(1, K + 1, size=item.size).astype(object)
    first = np.r_[0, np.cumsum(n)[:-1]]
    blank = rng.random(item.size) < 0.05
    blank[first] = False  # every item keeps one rating
    stars[blank] = ""
    raters = np.concatenate([rng.choice(20, size=k, replace=False) for k in n])
    ann = tmp_path / "ratings.csv"
    frame = pd.DataFrame({"item_id": item, "rater_id": [f"r{r}" for r in raters], "stars": stars})
    frame.to_csv(ann, index=False)
    out = {"ann": ann}
    for name in ("a", "b"):
        q = rng.dirichlet(np.ones(K), size=N_ITEMS)
        table = pd.DataFrame(q, columns=[f"p{k}" for k in range(1, K + 1)])
        table.insert(0, "item_id", ids)
        out[name] = tmp_path / f"{name}.csv"
        table.to_csv(out[name], index=False, float_format="%.4f")
    return out


def _evaluate(
    files: dict[str, Path],
    out: Path,
    *flags: str,
    annotation_flags: tuple[str, ...] = ANNOTATION_FLAGS,
) -> list[str]:
    preds = ["--pred", f"m1={files['a']}", "--pred", f"m2={files['b']}"]
    cheap = ["--metrics", "manhattan,E[emd]", "--n-resamples", "50"]
    return [
        "evaluate",
        str(files["ann"]),
        *annotation_flags,
        *preds,
        *cheap,
        "--out",
        str(out),
        *flags,
    ]


def _flags(err: str) -> set[str]:
    return set(re.findall(r"--[a-z][a-z-]+", err))


def _error(err: str) -> str:
    """The error of a failed run: what follows ``dissensus: error:``, not the notes before it."""
    return err[err.index("dissensus: error:") :]


class TestFirstTry:
    def test_the_annotations_take_one_corrective_run(self, first_try, tmp_path, capsys):
        assert main(_evaluate(first_try, tmp_path / "o1", annotation_flags=())) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert "using columns item=item_id, annotator=rater_id, label=stars" in err
        assert re.search(r"Missing 'stars' values in \S*ratings.csv: \d+ in lines \d+", err), err
        assert "dropna=" not in _error(err)  # a flag, never a Python parameter
        assert _flags(_error(err)) == {"--dropna"}, err
        assert main(_evaluate(first_try, tmp_path / "o2")) == EXIT_OK

    def test_rounded_p1_to_p5_files_are_read_on_the_first_run(self, first_try, tmp_path, capsys):
        sums = pd.read_csv(first_try["a"]).iloc[:, 1:].sum(axis=1)
        assert (sums - 1).abs().max() > 1e-6  # the rounding the old 1e-6 check refused
        code = main(_evaluate(first_try, tmp_path / "out"))
        err = capsys.readouterr().err
        assert code == EXIT_OK, err
        assert "columns p1..p5 read as the 5 labels in scale order (p1 = the first, label 1)" in err
        assert "within the rounding of 4 decimals" in err
        manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
        notes = manifest["params"]["prediction_notes"]
        assert sorted(notes) == ["m1", "m2"]
        assert any("rescaled to sum to 1" in note for note in notes["m1"])

    def test_an_unfamiliar_id_column_takes_one_corrective_run(self, first_try, tmp_path, capsys):
        # numeric ids in a column nobody would guess, beside text columns
        ratings = pd.read_csv(first_try["ann"], dtype={"item_id": str})
        ratings["item_id"] = ratings["item_id"].str[1:].astype(int)
        ratings.to_csv(first_try["ann"], index=False)
        for name in ("a", "b"):
            table = pd.read_csv(first_try[name], dtype={"item_id": str})
            table = table.assign(
                item_id=table["item_id"].str[1:].astype(int), model=name, split="test"
            )
            table.rename(columns={"item_id": "tweet"}).to_csv(
                first_try[name], index=False, float_format="%.4f"
            )
        assert main(_evaluate(first_try, tmp_path / "o1")) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert "--pred-item COLUMN" in err
        assert "'tweet'" in err  # the file's columns are listed
        assert "item=" not in _error(err)  # a flag, never a Python parameter
        assert "--na-values" not in err  # the 'model' column is not taken for probabilities
        assert _flags(_error(err)) <= {"--pred-item", "--pred-labels"}
        assert main(_evaluate(first_try, tmp_path / "o2", "--pred-item", "tweet")) == EXIT_OK
        assert "column(s) 'model', 'split' ignored" in capsys.readouterr().err

    def test_rows_beyond_rounding_take_one_corrective_run(self, first_try, tmp_path, capsys):
        table = pd.read_csv(first_try["b"])
        table.loc[[3, 7], "p5"] += 0.05
        table.to_csv(first_try["b"], index=False, float_format="%.4f")
        assert main(_evaluate(first_try, tmp_path / "o1")) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert "2 of 500 rows do not sum to 1 within rounding (4 decimals, ±0.00025)" in err
        assert "line 5 sums to" in err  # file lines: the header is line 1
        assert "normalize=" not in _error(err)
        assert _flags(_error(err)) == {"--normalize"}
        assert main(_evaluate(first_try, tmp_path / "o2", "--normalize")) == EXIT_OK
        err = capsys.readouterr().err
        assert "--normalize rescaled" in err
        manifest = json.loads((tmp_path / "o2" / "manifest.json").read_text(encoding="utf-8"))
        assert any(
            "--normalize" not in n and "rescaled" in n
            for n in manifest["params"]["prediction_notes"]["m2"]
        )
