"""``dissensus audit``."""

from __future__ import annotations

import json

from click.testing import CliRunner

from dissensus.cli import cli, main


class TestAuditCommand:
    def test_json(self) -> None:
        out = CliRunner().invoke(
            cli, ["audit", "--metric", "manhattan", "--metric", "kl_divergence", "--classes", "3",
                  "--n-trials", "500", "--property", "P3", "--json"]
        )  # fmt: skip
        assert out.exit_code == 0, out.output
        data = json.loads(out.output)
        assert data["classes"] == 3
        status = {(r["metric"], r["property"]): r["status"] for r in data["rows"]}
        assert status == {("manhattan", "P3"): "holds", ("kl_divergence", "P3"): "violated"}

    def test_default_table(self) -> None:
        out = CliRunner().invoke(cli, ["audit", "--metric", "emd", "--n-trials", "300"])
        assert out.exit_code == 0, out.output
        assert out.output.startswith("| metric | P1 |")
        assert "| emd | ✓ | ✓ | ✓ | ✗ |" in out.output

    def test_markdown_document(self) -> None:
        out = CliRunner().invoke(
            cli, ["audit", "--metric", "emd", "-k", "3", "--n-trials", "300", "--markdown"]
        )
        assert out.output.startswith("# Metric property audit, K = 3")
        assert "`dissensus audit --classes 3 --n-trials 300 --markdown`" in out.output

    def test_unknown_metric_is_a_user_error(self, capsys: object) -> None:
        code = main(["audit", "--metric", "manhatan", "--n-trials", "10"])
        assert code == 2
        err = capsys.readouterr().err  # type: ignore[attr-defined]
        assert "Unknown metric 'manhatan'" in err
        assert err.count("\n") == 1
