"""Tests of ``dissensus agreement --engine dask`` (dissensus.cli._engine)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from dissensus.agreement import fleiss_kappa, krippendorff_alpha
from dissensus.cli import cli, main
from dissensus.cli._agreement import agreement_command
from dissensus.cli._engine import with_engine
from dissensus.data import Annotations

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        yield str(cluster.scheduler_address)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    rng = np.random.default_rng(3)
    item = np.repeat(np.arange(80), 4)
    df = pd.DataFrame({"id": item, "label": rng.integers(1, 5, item.size)}).sample(
        frac=1.0, random_state=1
    )
    path = tmp_path_factory.mktemp("parquet")
    for j, rows in enumerate(np.array_split(np.arange(len(df)), 2)):
        df.iloc[rows].to_parquet(path / f"p{j}.parquet", index=False)
    return path, df


def _run(*args: str) -> Any:
    return CliRunner().invoke(with_engine(agreement_command), list(args))


class TestEngineOption:
    def test_dask_equals_in_memory_on_a_parquet_directory(
        self, address: str, data: tuple[Path, pd.DataFrame]
    ) -> None:
        path, df = data
        res = _run(
            str(path), "--engine", "dask", "--scheduler", address, "--item", "id", "--json", "-"
        )
        assert res.exit_code == 0, res.output
        rows = {r["coefficient"]: r for r in json.loads(res.stdout)}
        counts = Annotations.from_frame(df, item="id", annotator=None).counts()
        assert rows["fleiss_kappa"]["value"] == pytest.approx(
            float(fleiss_kappa(counts)), abs=1e-12
        )
        # numeric labels are ordinal, as in memory
        assert rows["krippendorff_alpha_ordinal"]["value"] == pytest.approx(
            float(krippendorff_alpha(counts, level="ordinal")), abs=1e-12
        )

    def test_dask_detects_the_columns_and_says_so(
        self, address: str, data: tuple[Path, pd.DataFrame]
    ) -> None:
        path, df = data  # "id" is a known item name; no annotator column
        res = _run(str(path), "--engine", "dask", "--scheduler", address, "--json", "-")
        assert res.exit_code == 0, res.output
        assert res.stderr.startswith("dissensus: using columns item=id, label=label")
        rows = {r["coefficient"]: r for r in json.loads(res.stdout)}
        counts = Annotations.from_frame(df, item="id", annotator=None).counts()
        assert rows["fleiss_kappa"]["value"] == pytest.approx(
            float(fleiss_kappa(counts)), abs=1e-12
        )

    def test_one_item_gives_nan_errors_without_numpy_warnings(
        self, address: str, tmp_path: Path
    ) -> None:
        path = tmp_path / "one.csv"
        path.write_text("item,annotator,label\n1,A,1\n1,B,2\n", encoding="utf-8")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = _run(str(path), "--engine", "dask", "--scheduler", address, "--json", "-")
        assert res.exit_code == 0, res.output
        assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], caught
        rows = {r["coefficient"]: r for r in json.loads(res.stdout)}
        assert rows["fleiss_kappa"]["standard_error"] is None  # NaN: no error from one item

    def test_both_engines_print_the_same_rows(
        self, address: str, data: tuple[Path, pd.DataFrame], tmp_path: Path
    ) -> None:
        # the same file through both engines: the same coefficients, order, columns and floats
        _, df = data
        csv = tmp_path / "long.csv"
        df.to_csv(csv, index=False)
        rows = {}
        for engine in ("memory", "dask"):
            res = _run(
                str(csv), "--engine", engine, *(("--scheduler", address) * (engine == "dask")),
                "--item", "id", "--no-annotator", "--json", "-",
            )  # fmt: skip
            assert res.exit_code == 0, res.output
            rows[engine] = json.loads(res.stdout)
        memory, dask = rows["memory"], rows["dask"]
        assert [r["coefficient"] for r in dask] == [r["coefficient"] for r in memory]
        assert len(memory) == 8  # with gwet_ac2_quadratic: numeric labels are ordinal
        # bit for bit: both engines finalise the same sorted distinct count rows
        assert dask == memory

    def test_text_table_with_interval(self, address: str, data: tuple[Path, pd.DataFrame]) -> None:
        path, _ = data
        res = _run(
            str(path), "--engine", "dask", "--scheduler", address, "--item", "id",
            "--confidence-level", "0.9", "--n-resamples", "50",
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        assert "dask, Poisson bootstrap" in res.stdout
        assert "fleiss_kappa" in res.stdout

    def test_unsupported_options_are_refused(self, data: tuple[Path, pd.DataFrame]) -> None:
        path, _ = data
        assert main(["agreement", str(path), "--engine", "dask", "--by", "year"]) == 2
        assert main(["agreement", "--scheduler", "tcp://x:1"]) == 2

    @pytest.mark.parametrize("inside", [False, True])
    def test_an_output_over_the_input_is_refused_before_the_cluster(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inside: bool
    ) -> None:
        import dissensus.cli._engine as engine  # noqa: PLC0415

        def boom(*args: object) -> None:
            raise AssertionError("started a cluster before checking --csv")

        monkeypatch.setattr(engine, "_cluster", boom)
        data = tmp_path / "d.csv"
        data.write_text("item,label\n1,a\n1,b\n2,a\n2,a\n")
        target = data
        if inside:  # a file inside a partitioned dataset would become part of it
            data = tmp_path / "dataset"
            data.mkdir()
            target = data / "table.csv"
        before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
        assert main(["agreement", str(data), "--engine", "dask", "--csv", str(target)]) == 2
        assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before

    def test_evaluate_out_in_the_dataset_is_refused_before_the_cluster(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        import dissensus.cli._engine as engine  # noqa: PLC0415

        def boom(*args: object) -> None:
            raise AssertionError("started a cluster before checking --out")

        monkeypatch.setattr(engine, "_cluster", boom)
        data = tmp_path / "dataset"
        data.mkdir()
        (data / "p0.csv").write_text("item,label\n1,a\n1,b\n")
        pred = tmp_path / "m.csv"
        pred.write_text("item,a,b\n1,0.5,0.5\n")
        args = ["evaluate", str(data), "--engine", "dask", "--pred", f"m={pred}"]
        assert main([*args, "--out", str(data / "report")]) == 2
        assert sorted(p.name for p in data.iterdir()) == ["p0.csv"]

    def test_memory_engine_runs_the_command_unchanged(self) -> None:
        res = _run()
        assert res.exit_code == 0
        assert "course_29" in res.stdout


class TestEvaluateEngine:
    def test_dask_summary_equals_in_memory(
        self, address: str, data: tuple[Path, pd.DataFrame], tmp_path: Path
    ) -> None:
        from dissensus import evaluate  # noqa: PLC0415

        path, df = data
        # items in id order in memory: the order the Dask engine collects them in
        ann = Annotations.from_frame(df.sort_values("id", kind="stable"), item="id", annotator=None)
        counts = ann.counts()
        args = []
        preds = {}
        for name, seed in (("A", 1), ("B", 2)):
            q = np.random.default_rng(seed).dirichlet(np.ones(4), counts.N)
            preds[name] = pd.DataFrame(q, columns=[1, 2, 3, 4], index=counts.items)
            file = tmp_path / f"{name}.csv"
            preds[name].rename_axis("item").reset_index().sample(frac=1.0, random_state=0).to_csv(
                file, index=False
            )
            args += ["--pred", f"{name}={file}"]
        res = CliRunner().invoke(
            cli,
            ["evaluate", str(path), "--engine", "dask", "--scheduler", address, "--item", "id",
             *args, "--metrics", "manhattan,E[emd]", "--n-resamples", "50", "--out",
             str(tmp_path / "out"), "--json"],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        got = pd.DataFrame(json.loads(res.stdout)["summary"])
        want = evaluate(ann, preds, metrics=["manhattan", "E[emd]"]).summary(n_resamples=50)
        cols = ["model", "metric", "mean", "ci_low", "ci_high", "best"]
        pd.testing.assert_frame_equal(got[cols], want[cols].astype({"model": str, "metric": str}))
        assert (tmp_path / "out" / "report.html").is_file()

    def test_memory_engine_refuses_scheduler(self) -> None:
        assert main(["evaluate", "x.csv", "--pred", "a=b.csv", "--out", "o", "--workers", "3"]) == 2


class TestSameRefusalsBothEngines:
    """The CLI's refusals name the flag that fixes them, on either engine."""

    @staticmethod
    def _engine(engine: str, address: str) -> list[str]:
        return [] if engine == "memory" else ["--engine", "dask", "--scheduler", address]

    @pytest.mark.parametrize("engine", ["memory", "dask"])
    def test_ordinal_level_on_text_labels_needs_their_order(
        self, address: str, tmp_path: Path, engine: str
    ) -> None:
        path = tmp_path / "a.csv"
        rows = ["low,mid", "mid,high", "high,high", "low,low", "low,mid", "mid,high"]
        lines = [
            f"{i},{who},{lab}"
            for i, pair in enumerate(rows)
            for who, lab in zip("ab", pair.split(","), strict=True)
        ]
        path.write_text("item,annotator,label\n" + "\n".join(lines) + "\n", encoding="utf-8")
        res = _run(str(path), "--level", "ordinal", *self._engine(engine, address))
        assert res.exit_code != 0
        message = str(res.exception)  # main() prints it as "dissensus: error: ..."
        assert "needs the order of the labels" in message
        assert "--labels high,low,mid" in message
        res = _run(
            str(path),
            "--level",
            "ordinal",
            "--labels",
            "low,mid,high",
            *self._engine(engine, address),
            "--json",
            "-",
        )
        assert res.exit_code == 0, res.output
        alpha = {r["coefficient"]: r["value"] for r in json.loads(res.stdout)}[
            "krippendorff_alpha_ordinal"
        ]
        assert alpha > 0.5  # low < mid < high: the pairs are near neighbours

    @pytest.mark.parametrize("engine", ["memory", "dask"])
    def test_stray_na_among_numbers_names_the_flag(
        self, address: str, tmp_path: Path, engine: str
    ) -> None:
        path = tmp_path / "a.csv"
        path.write_text("item,annotator,label\n1,a,1\n1,b,2\n2,a,NA\n2,b,3\n", encoding="utf-8")
        res = _run(str(path), *self._engine(engine, address))
        assert res.exit_code != 0
        assert "--na-values NA" in str(res.exception)
        assert "--dropna" in str(res.exception)
