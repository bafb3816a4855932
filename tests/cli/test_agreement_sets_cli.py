"""Tests of ``dissensus agreement --sets`` (dissensus.cli._agreement_sets)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from dissensus import SetAnnotations
from dissensus.agreement import krippendorff_alpha
from dissensus.cli import EXIT_BAD_INPUT, EXIT_OK, main

PIPES = (
    "item,annotator,label\n1,a,E|N\n1,b,N\n1,c,E|N\n2,a,C\n2,b,C|N\n2,c,C\n3,a,E\n3,b,E\n3,c,N\n"
)


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["agreement", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _expected(text: str, distance: str) -> float:
    rows = [line.split(",") for line in text.strip().splitlines()[1:]]
    df = pd.DataFrame(
        {
            "item": [r[0] for r in rows],
            "annotator": [r[1] for r in rows],
            "label": [r[2].split("|") for r in rows],
        }
    )
    return krippendorff_alpha(SetAnnotations.from_frame(df), distance=distance).statistic  # type: ignore[arg-type]


class TestAgreementSets:
    def test_label_separator(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        path = _write(tmp_path, "s.csv", PIPES)
        code, out, _ = _run(capsys, path, "--sets", "--label-sep", "|")
        assert code == EXIT_OK
        assert "3 items, 9 sets of labels (3–3 per item), labels ['C', 'E', 'N']" in out
        assert f"krippendorff_alpha_masi     {_expected(PIPES, 'masi'):.3f}" in out
        assert f"krippendorff_alpha_jaccard  {_expected(PIPES, 'jaccard'):.3f}" in out
        assert "krippendorff_alpha[C]       1.000" in out

    def test_json_cells_and_json_output(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        text = (
            'item,annotator,label\n1,a,"[""E"", ""N""]"\n1,b,"[""N""]"\n2,a,"[]"\n2,b,"[""C""]"\n'
        )
        path = _write(tmp_path, "j.csv", text)
        code, out, _ = _run(
            capsys,
            path,
            "--sets",
            "--json",
            "-",
            "--confidence-level",
            "0.9",
            "--n-resamples",
            "50",
        )
        assert code == EXIT_OK
        table = json.loads(out)
        assert [r["coefficient"] for r in table] == [
            "krippendorff_alpha_masi",
            "krippendorff_alpha_jaccard",
            "krippendorff_alpha[C]",
            "krippendorff_alpha[E]",
            "krippendorff_alpha[N]",
        ]
        assert table[0]["n_annotations"] == 4
        assert table[0]["ci_low"] is not None

    def test_lewidi_multilabel_file(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        data = {
            "1": {"annotations": {"A": "entailment,neutral", "B": "neutral"}},
            "2": {"annotations": {"A": "contradiction", "B": "contradiction,neutral"}},
        }
        path = _write(tmp_path, "v.json", json.dumps(data))
        code, _, err = _run(capsys, path)
        assert code == EXIT_BAD_INPUT
        assert "multi-label annotation 'entailment,neutral'" in err
        assert "add --sets to read its sets of labels" in err
        code, out, _ = _run(capsys, path, "--sets")
        assert code == EXIT_OK
        assert "labels ['contradiction', 'entailment', 'neutral']" in out

    def test_text_without_separator_points_at_the_flag(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        code, _, err = _run(capsys, _write(tmp_path, "s.csv", PIPES), "--sets")
        assert code == EXIT_BAD_INPUT
        assert "at lines 2, 4: cannot read 'E|N'" in err
        assert "--label-sep '|'" in err

    @pytest.mark.parametrize(
        ("extra", "message"),
        [
            (["--label-sep", "|"], "--label-sep splits sets of labels; add --sets"),
            (["--sets", "--by", "year"], "--by is not available with --sets"),
            (["--sets", "--level", "ordinal"], "--level does not apply to --sets"),
            (["--sets", "--layout", "wide"], "--layout wide does not apply"),
        ],
    )
    def test_refused_options(
        self,
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
        extra: list[str],
        message: str,
    ) -> None:
        code, _, err = _run(capsys, _write(tmp_path, "s.csv", PIPES), *extra)
        assert code == EXIT_BAD_INPUT
        assert message in err
