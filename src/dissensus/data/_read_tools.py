"""Reading the exports of annotation tools: Label Studio, Prodigy, doccano, Argilla, SageMaker Ground Truth, MTurk.

Every reader maps its tool's export to one long table (``item``, ``annotator``,
``label``, and ``text`` when the export holds the item's text, available as
``meta=["text"]``) indexed by the place of each annotation in the file
(``record`` for JSON lists, ``line`` for JSON Lines and CSV). A label is one
value, or a tuple when the annotator chose several (a set-valued annotation,
read with :func:`read_set_annotations`; :func:`read_annotations` refuses it,
naming its place). The mapping, one per tool (``docs/formats/<tool>.md``
shows the export step):

============  ====================  =============================  ==========================================
format        item                  annotator                      label
============  ====================  =============================  ==========================================
labelstudio   task ``id``           ``completed_by`` (id, or the   the ``result[]`` entry whose ``from_name``
                                    user object's ``email``);      is the question: ``choices``, ``rating``,
                                    JSON-MIN/CSV: ``annotator``    ``number``, ``taxonomy`` (a path "A / B")
prodigy       ``_input_hash``       ``_annotator_id`` (else        binary views: ``answer`` (accept/reject);
                                    ``_session_id``)               choice views: the ``accept`` list
doccano       ``id`` (else text)    ``user``, else the file stem   the ``label`` list
argilla       ``id``                ``<q>.responses.users``        ``<q>.responses`` where the status is
                                                                   ``submitted``
sagemaker     ``source-ref``        ``annotationsFromAllWorkers``  the ``label`` in ``annotationData.content``
                                    ``[].workerId``
sagemaker     a directory: the      ``answers[].workerId``         ``answerContent.<q>``: its ``label``
              data object's number                                 (``labels``: a set)
              (after iteration-N)
mturk         ``HITId``             ``WorkerId``                   ``Answer.<q>`` (or ``Answer.<q>.label``)
============  ====================  =============================  ==========================================

A SageMaker Ground Truth job also writes each worker's answer to a data object
as a JSON file under ``annotations/worker-response/iteration-N/<object>/``;
given a directory, the ``sagemaker`` format reads those files (every file
below it whose path has a ``worker-response`` and an ``iteration-N``
directory, the one after ``iteration-N`` naming the item), whatever the
consolidation kept in the output manifest.

Nothing is dropped silently: annotations that carry no label (a cancelled or
skipped Label Studio annotation, a Prodigy ``ignore``, or ``reject`` in a
choice view where it rejects the task, an Argilla ``discarded`` or ``draft``
response, a rejected MTurk assignment, an empty answer) are dropped and
counted, by reason and place, in one :class:`~dissensus.DataDroppedWarning`.
A project with several labelling questions (Label Studio ``from_name``,
Argilla questions, Prodigy binary labels, SageMaker label attributes or answer fields, MTurk
``Answer.`` fields) is refused with the list of them until ``question``
(CLI: ``--question NAME``) names one. Errors name the file, the record or
line, and the field.
"""

from __future__ import annotations

import csv
import io
import json
import re
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from dissensus._exceptions import DataDroppedWarning, DataError
from dissensus.data._read_lewidi import json_label
from dissensus.data._scale import text_label
from dissensus.data._tables import (
    PathLike,
    existing_file,
    parse_json,
    read_delimited,
    shown,
    text_input,
)

#: The annotation-tool formats, as ``format=`` names them.
ToolFormat = Literal["labelstudio", "prodigy", "doccano", "argilla", "sagemaker", "mturk"]
TOOL_FORMATS: tuple[str, ...] = get_args(ToolFormat)
#: Label Studio result types read as labels, and the key of their value.
_LS_TYPES = {"choices": "choices", "rating": "rating", "number": "number", "taxonomy": "taxonomy"}
#: Keys of a Label Studio JSON-MIN / CSV row that are not answers.
_LS_MIN_META = frozenset(
    ("id", "annotator", "annotation_id", "created_at", "updated_at", "lead_time", "agreement")
)
_MTURK_ANSWER = re.compile(r"^Answer\.(.+?)(?:\.label)?$")
_SNIFF_BYTES = 1 << 16

Row = tuple[Any, Any, Any, Any, Any]  # (place, item, annotator, label, text)


class _Collector:
    """Rows of (item, annotator, label, text) and the annotations dropped, by reason."""

    def __init__(self, path: PathLike, place: str) -> None:
        self.path, self.place = path, place
        self.rows: list[Row] = []
        self.frames: list[pd.DataFrame] = []  # rows built whole, without a loop over them
        self.dropped: dict[str, list[Any]] = {}

    def add(self, at: Any, item: Any, annotator: Any, label: Any, text: Any = None) -> None:
        self.rows.append((at, item, annotator, label, text))

    def drop(self, reason: str, at: Any) -> None:
        self.dropped.setdefault(reason, []).append(at)

    def frame(self) -> pd.DataFrame:
        if self.dropped:
            parts = [
                f"{len(at)} {reason} ({self.place}s {', '.join(map(str, at[:5]))}{' …' if len(at) > 5 else ''})"
                for reason, at in self.dropped.items()
            ]
            total = sum(len(at) for at in self.dropped.values())
            msg = f"Dropped {total} annotation{'s' if total > 1 else ''} without a label from '{self.path}': {'; '.join(parts)}."
            warnings.warn(msg, DataDroppedWarning, stacklevel=4)
        if self.frames:
            whole = pd.concat(self.frames).rename_axis(self.place)
            if len(whole):
                return whole
        if not self.rows:
            msg = f"'{self.path}' holds no labelled annotation (dropped: {', '.join(self.dropped) or 'none'})."
            raise DataError(msg)
        at, items, annotators, labels, texts = zip(*self.rows, strict=True)
        labels_col = pd.Series(list(labels), dtype=object).to_numpy()
        df = pd.DataFrame(
            {"item": list(items), "annotator": list(annotators), "label": labels_col},
            index=pd.Index(list(at), name=self.place),
        )
        if any(t is not None for t in texts):
            df["text"] = list(texts)
        return df


def _where(path: PathLike, place: str, at: Any, field: str) -> str:
    return f"'{path}' {place} {at}, field {field!r}"


def _label(value: Any, where: str) -> Any:
    """One label from a JSON or CSV value; a list becomes a tuple (a set), one-element lists a label."""
    if isinstance(value, list):
        parts = tuple(_label(v, where) for v in value)
        return parts[0] if len(parts) == 1 else parts
    return json_label(value, where)


def _id(value: Any, where: str) -> Any:
    if value is None or value == "" or isinstance(value, list | dict | bool):
        msg = f"{where}: missing or not an id ({shown(value)}); every annotation needs one."
        raise DataError(msg)
    return value


def _pick_question(questions: Iterable[str], question: str | None, path: PathLike) -> str:
    names = list(dict.fromkeys(questions))
    if question is not None:
        if question not in names:
            msg = f"'{path}' has no labelling question {question!r}; its questions are {', '.join(map(repr, names)) or '(none)'}."
            raise DataError(msg)
        return question
    if not names:
        msg = f"'{path}' holds no labelling question with a supported answer (choices, rating, number, taxonomy)."
        raise DataError(msg)
    if len(names) > 1:
        msg = f"'{path}' has {len(names)} labelling questions: {', '.join(map(repr, names))}; say which one to read: pass question='NAME' (CLI: --question NAME)."
        raise DataError(msg)
    return names[0]


def _json_lines(path: Path, raw: bytes | None = None) -> list[tuple[int, dict[str, Any]]]:
    """The objects of a JSON Lines file with their line numbers (blank lines skipped)."""
    if raw is None:
        raw = text_input(path, "JSON Lines", "one JSON object per line")
    out: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        if line.strip():
            record = parse_json(line, path, number)
            if not isinstance(record, dict):
                msg = f"'{path}' line {number}: expected a JSON object per line, got {type(record).__name__}."
                raise DataError(msg)
            out.append((number, record))
    return out


def _records(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], str]:
    """A JSON list of objects (place ``record``, from 1) or JSON Lines (place ``line``)."""
    raw = text_input(path, "JSON", "a JSON export")
    if not raw.lstrip().startswith(b"["):
        return _json_lines(path, raw), "line"
    data = parse_json(raw.decode("utf-8"), path, what="an export")
    bad = [k for k, r in enumerate(data, start=1) if not isinstance(r, dict)]
    if bad:
        msg = f"'{path}' record {bad[0]}: expected a JSON object per task or record, got {shown(data[bad[0] - 1])}."
        raise DataError(msg)
    return list(enumerate(data, start=1)), "record"


# -- Label Studio -------------------------------------------------------------------------
def _ls_user(value: Any, where: str) -> Any:
    if isinstance(value, dict):
        value = value.get("email") or value.get("id")
    return _id(value, where)


def _ls_value(kind: str, value: dict[str, Any], where: str) -> Any:
    answer = value.get(_LS_TYPES[kind])
    if kind == "taxonomy":  # a list of paths from the root: each path one label "A / B"
        if not isinstance(answer, list) or not all(isinstance(p, list) for p in answer):
            msg = f"{where}: a taxonomy answer is a list of paths (lists of labels), got {shown(answer)}."
            raise DataError(msg)
        answer = [" / ".join(str(n) for n in p) for p in answer]
    return _label(answer, where)


def _ls_text(data: Any) -> Any:
    if isinstance(data, dict):
        text = data.get("text")
        return text if isinstance(text, str) else None
    return None


def _read_labelstudio(path: Path, question: str | None) -> pd.DataFrame:
    """Label Studio JSON (tasks with ``annotations``), JSON-MIN or CSV export."""
    if path.suffix.lower() == ".csv":
        df = read_delimited(path, ",", text=True)
        rows = [
            (int(line), {str(k): v for k, v in r.items()})
            for line, r in zip(df.index, df.to_dict("records"), strict=True)
        ]
        return _labelstudio_min(path, rows, "line", question, text=True)
    tasks, place = _records(path)
    if tasks and "annotations" not in tasks[0][1]:
        return _labelstudio_min(path, tasks, place, question, text=False)
    questions = [
        r["from_name"]
        for _, task in tasks
        for a in task.get("annotations") or ()
        for r in a.get("result") or ()
        if isinstance(r, dict) and r.get("type") in _LS_TYPES and "from_name" in r
    ]
    name = _pick_question(questions, question, path)
    out = _Collector(path, place)
    for at, task in tasks:
        item = _id(task.get("id"), _where(path, place, at, "id"))
        text = _ls_text(task.get("data"))
        annotations = task.get("annotations")
        if not isinstance(annotations, list):
            msg = f"{_where(path, place, at, 'annotations')}: expected a list of annotations, got {shown(annotations)}."
            raise DataError(msg)
        for k, ann in enumerate(annotations):
            where = _where(path, place, at, f"annotations[{k}]")
            if ann.get("was_cancelled"):
                out.drop("cancelled (skipped)", at)
                continue
            user = _ls_user(ann.get("completed_by"), f"{where}.completed_by")
            answers = [
                r
                for r in ann.get("result") or ()
                if isinstance(r, dict) and r.get("from_name") == name
            ]
            if not answers:
                out.drop(f"with no answer to {name!r}", at)
                continue
            if len(answers) > 1:
                msg = f"{where}.result: {len(answers)} answers to {name!r} in one annotation (per-region answers?); one is expected."
                raise DataError(msg)
            kind = answers[0].get("type")
            if kind not in _LS_TYPES or not isinstance(answers[0].get("value"), dict):
                msg = f"{where}.result: the answer to {name!r} has type {kind!r}; readable types are {', '.join(_LS_TYPES)}."
                raise DataError(msg)
            out.add(at, item, user, _ls_value(kind, answers[0]["value"], f"{where}.result"), text)
    return out.frame()


def _labelstudio_min(
    path: Path,
    rows: list[tuple[int, dict[str, Any]]],
    place: str,
    question: str | None,
    *,
    text: bool,
) -> pd.DataFrame:
    """JSON-MIN / CSV: one row per annotation, a column per question (multiple choices as ``{"choices": [...]}``)."""
    columns = list(dict.fromkeys(k for _, r in rows for k in r))
    for needed in ("id", "annotator"):
        if needed not in columns:
            msg = f"'{path}' is not a Label Studio JSON-MIN/CSV export: no {needed!r} column (columns: {', '.join(columns[:10])})."
            raise DataError(msg)
    name = _pick_question(
        [c for c in columns if c not in _LS_MIN_META and c != "text"], question, path
    )
    out = _Collector(path, place)
    for at, row in rows:
        where = _where(path, place, at, name)
        value = row.get(name)
        if text and isinstance(value, str) and value.lstrip().startswith("{"):
            value = parse_json(value, path, at if place == "line" else None)
        if isinstance(value, dict):  # {"choices": [...]}, {"taxonomy": [[...]]}, ...
            kinds = [k for k in _LS_TYPES if k in value]
            if len(kinds) != 1:
                msg = f"{where}: expected one of {', '.join(_LS_TYPES)} in {shown(value)}."
                raise DataError(msg)
            value = _ls_value(kinds[0], value, where)
        elif value is None or value == "":
            out.drop(f"with no answer to {name!r}", at)
            continue
        else:
            value = _label(value, where)
        item = _id(row.get("id"), _where(path, place, at, "id"))
        user = _id(row.get("annotator"), _where(path, place, at, "annotator"))
        out.add(at, text_label(item) if text else item, user, value, row.get("text"))
    return out.frame()


# -- Prodigy ----------------------------------------------------------------------------------
def _read_prodigy(path: Path, question: str | None) -> pd.DataFrame:
    """Prodigy ``db-out`` JSONL: choice views (``options`` + ``accept``) and binary views (``label``)."""
    records = _json_lines(path)
    choice = any("options" in r for _, r in records)
    if choice and question is not None:
        msg = f"'{path}' is a Prodigy choice dataset with one question; question={question!r} applies to binary datasets (it names the label asked)."
        raise DataError(msg)
    name = (
        None
        if choice
        else _pick_question(
            [str(r.get("label")) for _, r in records if "label" in r], question, path
        )
    )
    out = _Collector(path, "line")
    for at, r in records:
        item = _id(r.get("_input_hash"), _where(path, "line", at, "_input_hash"))
        field = "_annotator_id" if "_annotator_id" in r else "_session_id"
        user = _id(r.get(field), _where(path, "line", at, field))
        answer = r.get("answer")
        if answer not in ("accept", "reject", "ignore"):
            msg = f"{_where(path, 'line', at, 'answer')}: {shown(answer)}; Prodigy answers are accept, reject or ignore."
            raise DataError(msg)
        if answer == "ignore":
            out.drop("ignored", at)
            continue
        if choice:
            if answer == "reject":  # the annotator rejected the task itself, not an option
                out.drop("rejected", at)
                continue
            accepted = r.get("accept")
            if not isinstance(accepted, list):
                msg = f"{_where(path, 'line', at, 'accept')}: expected the list of accepted options, got {shown(accepted)}."
                raise DataError(msg)
            if not accepted:
                out.drop("accepted with no option chosen", at)
                continue
            out.add(
                at, item, user, _label(accepted, _where(path, "line", at, "accept")), r.get("text")
            )
        elif str(r.get("label")) == name:
            out.add(at, item, user, answer, r.get("text"))
    return out.frame()


# -- doccano ----------------------------------------------------------------------------------
def _doccano_files(path: PathLike | Sequence[PathLike]) -> list[Path]:
    if isinstance(path, str | Path) or not isinstance(path, Sequence):
        p = Path(path)
        if p.is_dir():
            files = sorted(p.glob("*.jsonl"))
            if not files:
                msg = f"'{path}' holds no .jsonl file; give the directory of a doccano export (one file per user)."
                raise DataError(msg)
            return files
        return [existing_file(p)]
    return [existing_file(p) for p in path]


def read_doccano(path: PathLike | Sequence[PathLike]) -> pd.DataFrame:
    """Doccano text-classification JSONL, one file per annotator (a directory, a file or several)."""
    frames = []
    for file in _doccano_files(path):
        out = _Collector(file, "line")
        for at, r in _json_lines(file):
            where = _where(file, "line", at, "id")
            item = _id(r.get("id", r.get("text")), where)
            user = _id(r.get("user", file.stem), _where(file, "line", at, "user"))
            labels = r.get("label", r.get("cats"))
            if labels is None or labels == []:
                out.drop("with no label", at)
                continue
            out.add(
                at, item, user, _label(labels, _where(file, "line", at, "label")), r.get("text")
            )
        frames.append(out.frame())
    return pd.concat(frames)


# -- Argilla ----------------------------------------------------------------------------------
def _argilla_responses(record: dict[str, Any]) -> dict[str, list[tuple[Any, Any, Any]]]:
    """{question: [(value, user, status)]} from a flat (``q.responses``) or nested (``responses``) record."""
    out: dict[str, list[tuple[Any, Any, Any]]] = {}
    nested = record.get("responses")
    if isinstance(nested, dict):
        for q, answers in nested.items():
            out[q] = [
                (a.get("value"), a.get("user_id"), a.get("status", "submitted"))
                for a in answers or ()
            ]
    for key, values in record.items():
        if key.endswith(".responses"):
            q = key.removesuffix(".responses")
            users = record.get(f"{key}.users")
            status = record.get(f"{key}.status")
            if values is None:
                out[q] = []
                continue
            n = len(values) if isinstance(values, list) else -1
            if (
                n < 0
                or not isinstance(users, list)
                or len(users) != n
                or (isinstance(status, list) and len(status) != n)
            ):
                raise DataError(key)
            out[q] = list(
                zip(
                    values,
                    users,
                    status if isinstance(status, list) else ["submitted"] * n,
                    strict=True,
                )
            )
    return out


def _read_argilla(path: Path, question: str | None) -> pd.DataFrame:
    """Argilla 2.x records (``<question>.responses``, ``.responses.users``, ``.responses.status``)."""
    records, place = _records(path)
    parsed = []
    for at, r in records:
        try:
            parsed.append((at, r, _argilla_responses(r)))
        except DataError as exc:
            msg = f"{_where(path, place, at, str(exc))}: the responses, their users and their statuses must be lists of one length."
            raise DataError(msg) from None
    name = _pick_question((q for _, _, rs in parsed for q in rs), question, path)
    out = _Collector(path, place)
    for at, r, responses in parsed:
        item = _id(r.get("id", r.get("_server_id")), _where(path, place, at, "id"))
        for value, who, status in responses.get(name, ()):
            if status != "submitted":
                out.drop(str(status), at)
                continue
            user = _id(who, _where(path, place, at, f"{name}.responses.users"))
            if value is None or value == []:
                out.drop("submitted with no answer", at)
                continue
            out.add(
                at,
                item,
                user,
                _label(value, _where(path, place, at, f"{name}.responses")),
                r.get("text"),
            )
    return out.frame()


# -- SageMaker Ground Truth ---------------------------------------------------------------
def _read_sagemaker(path: Path, question: str | None) -> pd.DataFrame:
    """An output manifest whose label attribute keeps every worker (``annotationsFromAllWorkers``)."""
    records = _json_lines(path)
    attributes = [k for _, r in records for k in r if f"{k}-metadata" in r]
    name = _pick_question(attributes, question, path)
    out = _Collector(path, "line")
    for at, r in records:
        where = _where(path, "line", at, name)
        item = _id(r.get("source-ref", r.get("source")), _where(path, "line", at, "source-ref"))
        value = r.get(name)
        if value is None:
            out.drop("not labelled (no label attribute)", at)
            continue
        workers = value.get("annotationsFromAllWorkers") if isinstance(value, dict) else None
        if not isinstance(workers, list):
            msg = f"{where}: holds only the consolidated label {shown(value)}, not each worker's answer; export the job with a consolidation that keeps annotationsFromAllWorkers, or read its worker-response files."
            raise DataError(msg)
        for k, w in enumerate(workers):
            field = f"{name}.annotationsFromAllWorkers[{k}]"
            user = _id(w.get("workerId"), _where(path, "line", at, f"{field}.workerId"))
            content = (w.get("annotationData") or {}).get("content")
            answer = parse_json(content, path, at) if isinstance(content, str) else content
            if isinstance(answer, dict) and len(answer) == 1:  # {"<task name>": {...}}
                answer = next(iter(answer.values()))
            if isinstance(answer, dict):
                answer = answer.get("label", answer.get("labels"))
            if answer is None or answer == []:
                out.drop("with no answer", at)
                continue
            out.add(
                at, item, user, _label(answer, _where(path, "line", at, f"{field}.annotationData"))
            )
    return out.frame()


_ITERATION = re.compile(r"^iteration-\d+$")


def _worker_response_files(root: Path) -> list[tuple[Path, str]]:
    """(file, data object) of every worker-response JSON file under ``root``, in path order."""
    found = []
    for file in sorted(root.rglob("*.json")):
        parts = file.resolve().parts
        if "worker-response" not in parts:
            continue  # consolidation requests and responses share the iteration-N layout
        at = max((k for k, part in enumerate(parts) if _ITERATION.match(part)), default=-1)
        if at < 0 or at + 2 >= len(parts):
            msg = f"'{file}': a worker-response file outside an iteration-N/<object>/ directory; give the job's annotations/worker-response directory as it was exported."
            raise DataError(msg)
        found.append((file, parts[at + 1]))
    if not found:
        msg = f"'{root}' holds no SageMaker Ground Truth worker-response file (annotations/worker-response/iteration-N/<object>/*.json); give that directory, or the output manifest (manifests/output/output.manifest)."
        raise DataError(msg)
    return found


def _answer_label(content: Any) -> Any:
    """The answer of one ``answerContent`` field: its ``label``, its ``labels`` (a set) or the value itself."""
    if isinstance(content, dict):
        return content.get("label", content.get("labels"))
    return content


def _read_sagemaker_responses(root: Path, question: str | None) -> pd.DataFrame:
    """The per-worker JSON files of a job (``{"answers": [{"answerContent", "workerId", ...}]}``)."""
    files = _worker_response_files(root)
    parsed = []
    for file, obj in files:
        where = f"'{file}'"
        data = parse_json(
            text_input(file, "JSON", "a worker-response file").decode("utf-8"),
            file,
            what="a worker-response file",
        )
        answers = data.get("answers") if isinstance(data, dict) else None
        if not isinstance(answers, list):
            msg = f"{where}: not a SageMaker Ground Truth worker-response file (expected an object with an 'answers' list, got {shown(data)})."
            raise DataError(msg)
        for k, a in enumerate(answers):
            content = a.get("answerContent") if isinstance(a, dict) else None
            if content is not None and not isinstance(content, dict):
                msg = f"{where}, field 'answers[{k}].answerContent': expected an object of the task's fields, got {shown(content)}."
                raise DataError(msg)
            parsed.append((file, obj, k, a, content))
    name = _pick_question((q for *_, content in parsed if content for q in content), question, root)
    out = _Collector(root, "file")
    for file, obj, k, a, content in parsed:
        at = file.relative_to(root).as_posix()
        field = f"answers[{k}]"
        user = _id(
            a.get("workerId") if isinstance(a, dict) else None,
            _where(root, "file", at, f"{field}.workerId"),
        )
        answer = None if content is None else _answer_label(content.get(name))
        if answer is None or answer in ([], ""):
            out.drop("with no answer", at)
            continue
        item = int(obj) if obj.isdigit() else obj  # the object's number in the input manifest
        out.add(
            at,
            item,
            user,
            _label(answer, _where(root, "file", at, f"{field}.answerContent.{name}")),
        )
    return out.frame()


# -- Mechanical Turk -------------------------------------------------------------------------
def _read_mturk(path: Path, question: str | None) -> pd.DataFrame:
    """A batch results CSV: ``HITId``, ``WorkerId``, ``AssignmentStatus``, ``Answer.<field>``."""
    df = read_delimited(path, ",", text=True)
    for needed in ("HITId", "WorkerId"):
        if needed not in df.columns:
            msg = f"'{path}' is not an MTurk batch results file: no {needed!r} column (columns: {', '.join(map(str, df.columns[:10]))})."
            raise DataError(msg)
    answers = {m.group(1): c for c in df.columns if (m := _MTURK_ANSWER.match(str(c)))}
    name = _pick_question(answers, question, path)
    column = answers[name]
    status = (
        df["AssignmentStatus"]
        if "AssignmentStatus" in df.columns
        else pd.Series("", index=df.index)
    )
    answer = df[column].str.strip()
    rejected = status.eq("Rejected").to_numpy()
    empty = ~rejected & answer.eq("").to_numpy()
    keep = ~(rejected | empty)
    for field in ("HITId", "WorkerId"):
        blank = np.flatnonzero(keep & df[field].str.strip().eq("").to_numpy())
        if blank.size:
            msg = f"{_where(path, 'line', df.index[blank[0]], field)}: empty ({blank.size} such rows); every assignment needs one."
            raise DataError(msg)
    out = _Collector(path, "line")
    out.dropped.update(
        {
            reason: df.index[mask].tolist()
            for reason, mask in (("rejected", rejected), (f"with no answer in {column!r}", empty))
            if mask.any()
        }
    )
    long = pd.DataFrame(
        {
            "item": df["HITId"].to_numpy()[keep],
            "annotator": df["WorkerId"].to_numpy()[keep],
            "label": answer[keep].map(text_label).to_numpy(dtype=object),
        },
        index=df.index[keep],
    )
    if "Input.text" in df.columns:
        long["text"] = df["Input.text"].to_numpy()[keep]
    out.frames.append(long)
    return out.frame()


_READERS: dict[str, Callable[[Path, str | None], pd.DataFrame]] = {
    "labelstudio": _read_labelstudio,
    "prodigy": _read_prodigy,
    "argilla": _read_argilla,
    "sagemaker": _read_sagemaker,
    "mturk": _read_mturk,
}


def read_tool(
    path: PathLike | Sequence[PathLike], fmt: str, question: str | None = None
) -> pd.DataFrame:
    """The long table (item, annotator, label[, text]) of a tool export; see the module docstring."""
    if fmt == "doccano":
        if question is not None:
            msg = f"A doccano export holds one classification per file; question={question!r} (CLI: --question) does not apply to it."
            raise ValueError(msg)
        return read_doccano(path)
    if not isinstance(path, str | Path):
        msg = f"Several paths are read only for format='doccano'; the {fmt} format reads one file."
        raise ValueError(msg)
    if fmt == "sagemaker" and Path(path).is_dir():  # the job's worker-response files
        return _read_sagemaker_responses(Path(path), question)
    return _READERS[fmt](existing_file(path), question)


def sniff_tool(path: PathLike) -> str | None:
    """The tool format of ``path`` when its first bytes say so unambiguously, else None."""
    p = Path(path)
    if p.is_dir():  # a doccano project export (one .jsonl file per annotator), or SageMaker's
        if any(p.glob("*.jsonl")):
            return "doccano"
        responses = "worker-response" in p.resolve().parts or any(
            (p / sub).is_dir() for sub in ("worker-response", "annotations/worker-response")
        )
        return "sagemaker" if responses else None
    if not p.is_file() or p.suffix.lower() in (".parquet", ".pq"):  # a pipe would lose the bytes
        return None
    try:
        with p.open("rb") as fh:
            head = fh.read(_SNIFF_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    except OSError:
        return None
    if head.startswith("["):
        if re.search(r'"annotations"\s*:\s*\[', head) and re.search(r'"data"\s*:', head):
            return "labelstudio"
        if re.search(r'"[^"]+\.responses"\s*:', head):
            return "argilla"
        if re.search(r'"annotation_id"\s*:', head) and re.search(r'"annotator"\s*:', head):
            return "labelstudio"
        return None
    if head.startswith("{"):
        try:
            first = json.loads(head.split("\n", 1)[0])
        except (ValueError, RecursionError):  # the reader proper says what is wrong
            return None
        if not isinstance(first, dict):
            return None
        if "_input_hash" in first:
            return "prodigy"
        if any(str(k).endswith(".responses") for k in first):
            return "argilla"
        if any(f"{k}-metadata" in first for k in first):
            return "sagemaker"
        return None
    try:
        header = next(csv.reader(io.StringIO(head.splitlines()[0] if head else "")), [])
    except csv.Error:  # not CSV either: the reader proper says what the file is
        return None
    if {"HITId", "WorkerId"} <= set(header) and any(h.startswith("Answer.") for h in header):
        return "mturk"
    if {"annotation_id", "annotator", "id"} <= set(header):
        return "labelstudio"
    return None
