"""Annotation-tool exports through read_annotations / read_set_annotations (hand-written fixtures)."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest

from dissensus import DataDroppedWarning, DataError
from dissensus.data import read_annotations, read_set_annotations
from dissensus.data._read_tools import sniff_tool

FIXTURES = Path(__file__).parent / "fixtures"


def _read(path: Path, **options: object) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ann = read_annotations(path, **options)  # type: ignore[arg-type]
    return ann, [str(w.message) for w in caught if issubclass(w.category, DataDroppedWarning)]


def _pairs(ann: object) -> set[tuple[object, object, object]]:
    frame = ann.to_frame()  # type: ignore[attr-defined]
    return set(zip(frame["item"], frame["annotator"], frame["label"], strict=True))


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("labelstudio/export.json", "labelstudio"),
        ("labelstudio/export_min.json", "labelstudio"),
        ("labelstudio/export.csv", "labelstudio"),
        ("labelstudio/multi.json", "labelstudio"),
        ("prodigy/binary.jsonl", "prodigy"),
        ("prodigy/choice.jsonl", "prodigy"),
        ("doccano", "doccano"),
        ("argilla/records.jsonl", "argilla"),
        ("argilla/multi.json", "argilla"),
        ("sagemaker/output.manifest", "sagemaker"),
        ("sagemaker", "sagemaker"),  # a job's output: annotations/worker-response/...
        ("sagemaker/annotations/worker-response/iteration-1", "sagemaker"),
        ("mturk/Batch_4242_batch_results.csv", "mturk"),
    ],
)
def test_formats_are_recognised_from_content(path: str, fmt: str) -> None:
    assert sniff_tool(FIXTURES / path) == fmt


def test_plain_tables_are_not_taken_for_tool_exports(tmp_path: Path) -> None:
    f = tmp_path / "a.jsonl"
    f.write_text('{"item": 1, "annotator": "a", "label": 2}\n')
    g = tmp_path / "b.csv"
    g.write_text("item,annotator,label\n1,a,2\n")
    assert sniff_tool(f) is None
    assert sniff_tool(g) is None


def test_labelstudio_json() -> None:
    ann, dropped = _read(FIXTURES / "labelstudio/export.json")
    # 4 tasks, 11 annotations, 1 cancelled (task 2, annotator 3)
    assert (ann.n_items, ann.n_annotators, ann.n_annotations) == (4, 3, 10)  # type: ignore[attr-defined]
    assert (2, 3, "Negative") not in _pairs(ann)
    assert (1, "bea@example.org", "Positive") in _pairs(ann)  # completed_by object: its email
    assert (4, 1, "Neutral") in _pairs(ann)  # completed_by int
    assert len(dropped) == 1
    assert "1 cancelled (skipped) (records 2)" in dropped[0]


def test_labelstudio_several_questions_ask_which_one() -> None:
    with pytest.raises(DataError, match=r"2 labelling questions: 'topics', 'quality'.*question="):
        read_set_annotations(FIXTURES / "labelstudio/multi.json")
    quality = read_annotations(FIXTURES / "labelstudio/multi.json", question="quality")
    assert quality.n_annotations == 6
    assert sorted(quality.scale.labels) == [2, 3, 4, 5]
    with pytest.raises(DataError, match="no labelling question 'nope'"):
        read_annotations(FIXTURES / "labelstudio/multi.json", question="nope")


def test_labelstudio_multiple_choices_are_sets() -> None:
    path = FIXTURES / "labelstudio/multi.json"
    with pytest.raises(DataError, match=r"record 1: the annotation chose several labels.*--sets"):
        read_annotations(path, question="topics")
    sets = read_set_annotations(path, question="topics")
    assert sets.n_annotations == 6
    assert sets.scale.labels == ("battery", "price", "screen", "shipping")
    # battery: 2 of 2, screen: 1 of 2 annotators on task 7
    assert sets.marginals()[0].tolist() == [1.0, 0.0, 0.5, 0.0]


@pytest.mark.parametrize("name", ["export_min.json", "export.csv"])
def test_labelstudio_min_and_csv(name: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sets = read_set_annotations(FIXTURES / "labelstudio" / name)
    # 6 rows; the CSV leaves one answer empty (dropped and counted)
    assert sets.n_annotations == (6 if name.endswith(".json") else 5)
    assert sets.n_items == 3
    dropped = [str(w.message) for w in caught if issubclass(w.category, DataDroppedWarning)]
    assert dropped == ([] if name.endswith(".json") else [dropped[0]])
    if dropped:
        assert "1 with no answer to 'sentiment' (lines 7)" in dropped[0]


def test_prodigy_binary() -> None:
    ann, dropped = _read(FIXTURES / "prodigy/binary.jsonl")
    # 9 lines, 1 ignore: accept/reject are the labels
    assert (ann.n_items, ann.n_annotators, ann.n_annotations) == (3, 3, 8)  # type: ignore[attr-defined]
    assert ann.scale.labels == ("accept", "reject")  # type: ignore[attr-defined]
    assert (-1020, "reviews-ann", "accept") in _pairs(ann)
    assert "1 ignored (lines 6)" in dropped[0]


def test_prodigy_choice_is_set_valued() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sets = read_set_annotations(FIXTURES / "prodigy/choice.jsonl")
    # 7 lines: 1 reject and 1 ignore dropped
    assert (sets.n_items, sets.n_annotations) == (3, 5)
    message = next(str(w.message) for w in caught if issubclass(w.category, DataDroppedWarning))
    assert "1 rejected (lines 4)" in message
    assert "1 ignored (lines 7)" in message
    with (
        pytest.warns(DataDroppedWarning),
        pytest.raises(DataError, match="line 1: the annotation chose several labels"),
    ):
        read_annotations(FIXTURES / "prodigy/choice.jsonl")


def test_doccano_directory_one_file_per_user() -> None:
    ann, dropped = _read(FIXTURES / "doccano")
    assert (ann.n_items, ann.n_annotators, ann.n_annotations) == (3, 3, 8)  # type: ignore[attr-defined]
    assert (3, "bob", "positive") in _pairs(ann)  # the file name is the annotator
    assert "carol.jsonl" in dropped[0]
    assert "1 with no label (lines 2)" in dropped[0]


def test_argilla_discarded_and_draft_are_counted() -> None:
    ann, dropped = _read(FIXTURES / "argilla/records.jsonl")
    assert (ann.n_items, ann.n_annotators, ann.n_annotations) == (3, 3, 7)  # type: ignore[attr-defined]
    assert "1 discarded (lines 2); 1 draft (lines 3)" in dropped[0]


def test_argilla_multi_label_question() -> None:
    sets = read_set_annotations(FIXTURES / "argilla/multi.json", question="topics")
    assert (sets.n_items, sets.n_annotations) == (2, 4)
    ratings = read_annotations(FIXTURES / "argilla/multi.json", question="quality")
    assert ratings.scale.labels == (2, 4, 5)


def test_argilla_lists_of_unequal_length_name_record_and_field(tmp_path: Path) -> None:
    f = tmp_path / "bad.jsonl"
    record = {"id": "r1", "q.responses": ["a", "b"], "q.responses.users": ["u1"]}
    f.write_text(json.dumps(record) + "\n")
    with pytest.raises(DataError, match=r"line 1, field 'q.responses'"):
        read_annotations(f, format="argilla")


def test_sagemaker_every_worker() -> None:
    ann, dropped = _read(FIXTURES / "sagemaker/output.manifest")
    assert (ann.n_items, ann.n_annotators, ann.n_annotations) == (3, 3, 8)  # type: ignore[attr-defined]
    assert ("Broke after a day", "private.us-east-1.c3d4", "neutral") in _pairs(ann)
    assert dropped == []


def test_sagemaker_consolidated_label_only_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "out.manifest"
    line = {"source-ref": "s3://b/1.jpg", "cat": 0, "cat-metadata": {"class-name": "cat"}}
    f.write_text(json.dumps(line) + "\n")
    with pytest.raises(DataError, match=r"line 1, field 'cat'.*consolidated label"):
        read_annotations(f, format="sagemaker")


def test_sagemaker_worker_responses() -> None:
    # 6 worker-response files, 8 answers: 1 with an empty answer (object 1, worker e5f6);
    # the consolidation request beside them has the iteration-N layout too and is not read
    ann, dropped = _read(FIXTURES / "sagemaker")
    assert (ann.n_items, ann.n_annotators, ann.n_annotations) == (4, 3, 7)  # type: ignore[attr-defined]
    assert _pairs(ann) == {
        (0, "private.us-east-1.a1b2", "positive"),
        (0, "private.us-east-1.c3d4", "positive"),
        (1, "private.us-east-1.a1b2", "negative"),
        (1, "private.us-east-1.c3d4", "neutral"),
        (2, "private.us-east-1.a1b2", "neutral"),
        (2, "private.us-east-1.e5f6", "positive"),
        (3, "private.us-east-1.c3d4", "negative"),  # iteration-2
    }
    assert len(dropped) == 1
    assert (
        "1 with no answer (files annotations/worker-response/iteration-1/1/2024-05-01_10-04-30.json)"
        in dropped[0]
    )
    # the same answers from the worker-response directory itself
    inner, _ = _read(FIXTURES / "sagemaker/annotations/worker-response", format="sagemaker")
    assert _pairs(inner) == _pairs(ann)


def _worker_response(root: Path, obj: str, answers: list[object]) -> Path:
    folder = root / "worker-response" / "iteration-1" / obj
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{len(list(folder.iterdir()))}.json").write_text(json.dumps({"answers": answers}))
    return root


def test_sagemaker_worker_responses_multi_select_and_questions(tmp_path: Path) -> None:
    both = {"topics": {"labels": ["price", "quality"]}, "tone": {"label": "calm"}}
    _worker_response(tmp_path, "0", [{"workerId": "w1", "answerContent": both}])
    _worker_response(
        tmp_path,
        "1",
        [
            {
                "workerId": "w2",
                "answerContent": {"topics": {"labels": ["price"]}, "tone": {"label": "angry"}},
            }
        ],
    )
    with pytest.raises(DataError, match=r"2 labelling questions: 'topics', 'tone'.*question="):
        read_annotations(tmp_path, format="sagemaker")
    topics = read_set_annotations(tmp_path, format="sagemaker", question="topics")
    assert topics.n_annotations == 2
    tone = read_annotations(tmp_path, question="tone")  # recognised from the directory
    assert _pairs(tone) == {(0, "w1", "calm"), (1, "w2", "angry")}


def test_sagemaker_worker_response_errors_name_the_file(tmp_path: Path) -> None:
    _worker_response(tmp_path, "0", [{"answerContent": {"q": {"label": "a"}}}])
    with pytest.raises(
        DataError, match=r"file worker-response/iteration-1/0/0.json, field 'answers\[0\].workerId'"
    ):
        read_annotations(tmp_path, format="sagemaker")
    bad = tmp_path / "worker-response" / "iteration-1" / "0" / "0.json"
    bad.write_text('{"answer": []}')
    with pytest.raises(DataError, match=r"0.json.*expected an object with an 'answers' list"):
        read_annotations(tmp_path, format="sagemaker")
    stray = tmp_path / "other" / "worker-response" / "x.json"
    stray.parent.mkdir(parents=True)
    stray.write_text('{"answers": []}')
    bad.unlink()
    with pytest.raises(DataError, match=r"outside an iteration-N/<object>/ directory"):
        read_annotations(tmp_path / "other", format="sagemaker")
    with pytest.raises(DataError, match=r"holds no SageMaker Ground Truth worker-response file"):
        read_annotations(tmp_path / "worker-response" / "iteration-1" / "0", format="sagemaker")


def test_mturk_rejected_assignments_are_counted() -> None:
    ann, dropped = _read(FIXTURES / "mturk/Batch_4242_batch_results.csv")
    assert (ann.n_items, ann.n_annotators, ann.n_annotations) == (3, 3, 7)  # type: ignore[attr-defined]
    assert ("3HIT1", "W3CCC", "Negative") not in _pairs(ann)
    assert "1 rejected (lines 4)" in dropped[0]


def test_errors_name_record_and_field(tmp_path: Path) -> None:
    f = tmp_path / "ls.json"
    answer = {"from_name": "q", "type": "choices", "value": {"choices": ["A"]}}
    task = {"id": 5, "data": {}, "annotations": [{"result": [answer], "was_cancelled": False}]}
    f.write_text(json.dumps([task]))
    with pytest.raises(DataError, match=r"record 1, field 'annotations\[0\]'.completed_by"):
        read_annotations(f)
    g = tmp_path / "p.jsonl"
    g.write_text(
        json.dumps({"_input_hash": 1, "_annotator_id": "a", "label": "X", "answer": "maybe"}) + "\n"
    )
    with pytest.raises(DataError, match=r"line 1, field 'answer'"):
        read_annotations(g)


def test_column_options_do_not_apply() -> None:
    with pytest.raises(ValueError, match=r"fixed columns.*label"):
        read_annotations(FIXTURES / "mturk/Batch_4242_batch_results.csv", label="stars")
    with pytest.raises(ValueError, match="question="):
        read_annotations(FIXTURES / "doccano/alice.jsonl", format="jsonl", question="x")


def test_mturk_errors_name_line_and_column(tmp_path: Path) -> None:
    f = tmp_path / "batch.csv"
    f.write_text("HITId,WorkerId,AssignmentStatus,Answer.q\nH1,W1,Approved,a\nH1,,Approved,b\n")
    with pytest.raises(DataError, match=r"line 3, field 'WorkerId'"):
        read_annotations(f)
    f.write_text("HITId,WorkerId,AssignmentStatus,Answer.q\nH1,W1,Rejected,a\n")
    with (
        pytest.warns(DataDroppedWarning, match="1 rejected"),
        pytest.raises(DataError, match="no labelled annotation"),
    ):
        read_annotations(f)
    f.write_text("HITId,WorkerId,Answer.q,Answer.r\nH1,W1,a,b\n")
    with pytest.raises(DataError, match=r"2 labelling questions: 'q', 'r'"):
        read_annotations(f)


def test_the_text_is_item_level_meta() -> None:
    ann, _ = _read(FIXTURES / "labelstudio/export.json", meta=["text"])
    assert ann.meta["text"].tolist()[:2] == ["Great product", "Broke after a day"]  # type: ignore[attr-defined]


def test_what_cannot_be_sniffed_is_left_to_the_readers(tmp_path: Path) -> None:
    assert sniff_tool(tmp_path) is None  # a directory without .jsonl files
    assert sniff_tool(tmp_path / "missing.json") is None
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert sniff_tool(fifo) is None  # not opened: its bytes are read once, by the reader
