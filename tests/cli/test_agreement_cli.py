"""Tests of ``dissensus agreement`` (dissensus.cli._agreement)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from dissensus import load_example
from dissensus.agreement import fleiss_kappa
from dissensus.cli._agreement import agreement_command


def _run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(agreement_command, list(args))
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res.exit_code, res.stdout, res.stderr


class TestAgreementCommand:
    def test_no_file_runs_the_seed_example(self) -> None:
        code, out, _ = _run()
        assert code == 0
        assert "course_29" in out
        assert "fleiss_kappa        0.410" in out
        assert "observed_agreement  0.580" in out
        assert "chance_agreement    0.288" in out

    def test_course_reviews_by_year_shows_anomaly(self) -> None:
        code, out, _ = _run("--example", "course_reviews", "--by", "year")
        assert code == 0
        for year in ("2017-18", "2021-22", "2023-24", "all"):
            assert year in out
        assert "2021-22  POS 60%  POS 94%" in out
        assert "! year 2021-22" in out
        assert "on R2, R3, R4" in out

    def test_json_to_stdout(self) -> None:
        code, out, _ = _run("--json", "-")
        assert code == 0
        rows = json.loads(out)
        kappa = next(r for r in rows if r["coefficient"] == "fleiss_kappa")
        assert kappa["value"] == pytest.approx(fleiss_kappa(load_example("course_29")).statistic)

    def test_csv_file_and_ci(self, tmp_path: Path) -> None:
        out_path = tmp_path / "out.csv"
        code, out, _ = _run(
            "--confidence-level", "0.9", "--n-resamples", "200", "--csv", str(out_path)
        )
        assert code == 0
        df = pd.read_csv(out_path)
        k = df.set_index("coefficient").loc["fleiss_kappa"]
        assert k["ci_low"] < k["value"] < k["ci_high"]
        assert "[" in out  # the interval column is printed

    def test_too_many_resamples_are_refused_with_the_range(self) -> None:
        code, _, err = _run("--confidence-level", "0.9", "--n-resamples", "100000000000")
        assert code == 2
        assert "--n-resamples" in err
        assert "2<=x<=10000000" in err

    def test_reads_a_file_with_groups(self, tmp_path: Path) -> None:
        rows = []
        for item in range(6):
            for a, lab in zip("abc", ["x", "x", "y"] if item % 2 else ["y", "y", "y"], strict=True):
                rows.append({"item": item, "annotator": a, "label": lab, "part": item % 3})
        path = tmp_path / "ann.csv"
        pd.DataFrame(rows).to_csv(path, index=False)
        code, out, _ = _run(str(path), "--by", "part", "--level", "nominal")
        assert code == 0
        assert "6 items, 18 ratings" in out
        assert "part" in out

    def test_file_and_example_conflict(self) -> None:
        res = CliRunner().invoke(agreement_command, ["x.csv", "--example", "course_29"])
        assert res.exit_code == 2
        assert "either FILE or --example" in res.output

    def test_degenerate_group_warns_on_stderr(self, tmp_path: Path) -> None:
        rows = [
            {"item": i, "annotator": a, "label": "x" if i < 2 else ("x" if a == "a" else "y"),
             "g": "same" if i < 2 else "mixed"}
            for i in range(4) for a in "ab"
        ]  # fmt: skip
        path = tmp_path / "d.csv"
        pd.DataFrame(rows).to_csv(path, index=False)
        code, out, err = _run(str(path), "--by", "g")
        assert code == 0
        assert "warning" in err
        assert "undefined" in out


class TestLevelAuto:
    """Without --level, alpha follows the scale: ordinal labels get ordinal alpha."""

    def _write(self, tmp_path):
        path = tmp_path / "ratings.csv"
        rows = ["item,annotator,label"]
        for i, labels in enumerate([(1, 2, 2), (3, 3, 4), (5, 4, 5), (1, 1, 2), (2, 3, 3)]):
            rows += [f"i{i},a{j},{lab}" for j, lab in enumerate(labels)]
        path.write_text("\n".join(rows) + "\n")
        return path

    def test_ordinal_scale_gets_ordinal_alpha(self, tmp_path):
        path = self._write(tmp_path)
        runner = CliRunner()
        auto = runner.invoke(agreement_command, [str(path), "--csv", "-"])
        explicit = runner.invoke(agreement_command, [str(path), "--level", "ordinal", "--csv", "-"])
        assert auto.exit_code == 0, auto.output
        assert "krippendorff_alpha_ordinal" in auto.output
        assert auto.output == explicit.output

    def test_nominal_flag_keeps_nominal_alpha(self, tmp_path):
        path = self._write(tmp_path)
        result = CliRunner().invoke(agreement_command, [str(path), "--nominal", "--csv", "-"])
        assert result.exit_code == 0, result.output
        assert "krippendorff_alpha_ordinal" not in result.output
