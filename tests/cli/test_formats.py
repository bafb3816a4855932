"""``dissensus agreement EXPORT`` on annotation-tool exports (--format, --question, --sets)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dissensus.cli import main

FIXTURES = Path(__file__).parent.parent / "data" / "fixtures"


@pytest.mark.parametrize(
    ("path", "dropped"),
    [
        ("labelstudio/export.json", "1 cancelled (skipped)"),
        ("prodigy/binary.jsonl", "1 ignored"),
        ("argilla/records.jsonl", "1 discarded (lines 2); 1 draft (lines 3)"),
        ("sagemaker/output.manifest", None),
        ("sagemaker", "1 with no answer (files annotations/worker-response/iteration-1/1/"),
        ("mturk/Batch_4242_batch_results.csv", "1 rejected (lines 4)"),
        ("doccano", "1 with no label (lines 2)"),
    ],
)
def test_agreement_on_each_export(
    path: str, dropped: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["agreement", str(FIXTURES / path)]) == 0
    out, err = capsys.readouterr()
    assert "krippendorff_alpha" in out
    if dropped is None:
        # the fixtures are a few items each: only that is warned about
        assert [e for e in err.splitlines() if "rests on only" not in e] == []
    else:
        assert "dissensus: warning: Dropped" in err
        assert dropped in err


@pytest.mark.parametrize(
    "path", ["labelstudio/multi.json", "prodigy/choice.jsonl", "labelstudio/export.csv"]
)
def test_set_valued_exports_with_sets(path: str, capsys: pytest.CaptureFixture[str]) -> None:
    question = ["--question", "topics"] if path.endswith("multi.json") else []
    assert main(["agreement", "--sets", str(FIXTURES / path), *question]) == 0
    assert "krippendorff_alpha" in capsys.readouterr().out


def test_several_questions_name_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agreement", str(FIXTURES / "labelstudio/multi.json")]) == 2
    err = capsys.readouterr().err
    assert "'topics', 'quality'" in err
    assert "--question NAME" in err
    assert "question=" not in err
    assert (
        main(["agreement", str(FIXTURES / "labelstudio/multi.json"), "--question", "quality"]) == 0
    )


def test_multiple_choices_without_sets_name_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agreement", str(FIXTURES / "prodigy/choice.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "--sets" in err
    assert "read_set_annotations" not in err


def test_question_for_a_plain_table_names_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "mturk/Batch_4242_batch_results.csv"
    assert main(["agreement", str(path), "--format", "csv", "--question", "x"]) == 2
    err = capsys.readouterr().err
    assert "--question" in err
    assert "question=" not in err
