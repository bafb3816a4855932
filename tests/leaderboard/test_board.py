"""Leaderboard re-ranking (Rizzi et al. 2024, §4.3) on a synthetic shared task with known rank changes."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from dissensus import LabelCounts
from dissensus.cli import cli
from dissensus.leaderboard import (
    combine_leaderboards,
    leaderboard,
    read_submission,
    team_names,
)

_METRICS = ["manhattan", "euclidean", "cross_entropy"]
#: Pairs of teams whose order cross-entropy swaps, per dataset.
_SWAPS = {"A": {0, 1, 2}, "B": {0}, "C": set()}


def _task(swapped: set[int]) -> tuple[LabelCounts, dict[str, np.ndarray]]:
    """10 teams in 5 pairs; 20 items of gold [1, 0] and 20 of [0, 1].

    Team 2i has total error S (L1 = S), team 2i + 1 has S + 0.01, S = 0.3 + 0.2 i.
    In a swapped pair team 2i puts almost all its error on the first items
    (x = S - 0.02, y = 0.02), which cross-entropy punishes more than the
    balanced error of team 2i + 1; L1 and L2 (proportional to x + y here) keep
    the order. Pairs are 0.2 apart, so nothing else moves.
    """
    counts = LabelCounts.from_array([[4, 0]] * 20 + [[0, 4]] * 20)
    subs = {}
    for pair in range(5):
        S = 0.3 + 0.2 * pair
        for member, total in ((0, S), (1, S + 0.01)):
            x, y = (total - 0.02, 0.02) if member == 0 and pair in swapped else (total / 2,) * 2
            subs[f"team{2 * pair + member}"] = np.array([[1 - x, x]] * 20 + [[y, 1 - y]] * 20)
    return counts, subs


def _expected_row(frame: pd.DataFrame, dataset: str, a: str, b: str) -> pd.Series:
    sel = frame[(frame["dataset"] == dataset) & (frame["metric_1"] == a) & (frame["metric_2"] == b)]
    assert len(sel) == 1
    return sel.iloc[0]


@pytest.fixture(scope="module")
def board() -> object:
    boards = [
        leaderboard(*_task(sw), metrics=_METRICS, dataset=name, n_resamples=200)
        for name, sw in _SWAPS.items()
    ]
    return combine_leaderboards(boards)


class TestLeaderboard:
    def test_ranks(self, board: object) -> None:
        ranks = board.ranks("A")  # type: ignore[attr-defined]
        assert ranks["manhattan"].tolist() == [float(r) for r in range(1, 11)]
        assert ranks.loc["team0", "cross_entropy"] == 2.0
        assert ranks.loc["team1", "cross_entropy"] == 1.0
        assert ranks.loc["team6", "cross_entropy"] == 7.0

    @pytest.mark.parametrize(
        ("dataset", "share", "mean", "sd", "tau"),
        [
            ("A", 0.6, 0.6, np.sqrt(0.24), 42 / 45 - 3 / 45),
            ("B", 0.2, 0.2, 0.4, 43 / 45),
            ("C", 0.0, 0.0, 0.0, 1.0),
            ("average", 0.8 / 3, 0.8 / 3, (np.sqrt(0.24) + 0.4) / 3, (39 + 43 + 45) / 135),
        ],
    )
    def test_table2_exact(
        self, board: object, dataset: str, share: float, mean: float, sd: float, tau: float
    ) -> None:
        frame = board.rerank  # type: ignore[attr-defined]
        for a in ("manhattan", "euclidean"):
            row = _expected_row(frame, dataset, a, "cross_entropy")
            assert row["share_reranked"] == pytest.approx(share, abs=1e-12)
            assert row["mean_abs_change"] == pytest.approx(mean, abs=1e-12)
            assert row["sd_abs_change"] == pytest.approx(sd, abs=1e-12)
            assert row["kendall_tau"] == pytest.approx(tau, abs=1e-12)
        same = _expected_row(frame, dataset, "manhattan", "euclidean")
        assert (same["share_reranked"], same["mean_abs_change"], same["sd_abs_change"]) == (0, 0, 0)

    def test_adjacent_tests(self, board: object) -> None:
        adj = board.adjacent  # type: ignore[attr-defined]
        one = adj[(adj["dataset"] == "C") & (adj["metric"] == "manhattan")]
        assert one["team"].tolist() == [f"team{i}" for i in range(9)]
        assert one["next_team"].tolist() == [f"team{i}" for i in range(1, 10)]
        # Every item differs in the same direction between adjacent teams: tiny p-values.
        assert (one["wilcoxon_p"] < 1e-6).all()
        assert (one["bootstrap_p"] <= 0.01).all()
        assert (one["mean_difference"] < 0).all()

    def test_reports(self, board: object) -> None:
        md = board.to_markdown()  # type: ignore[attr-defined]
        assert "| average | manhattan vs cross_entropy | 27% | 0.27 ± 0.30 |" in md
        page = board.to_html()  # type: ignore[attr-defined]
        assert page.count("<svg") == 0  # no script, no drawing: the ranks are tables
        assert page.count("<h2>") == 6  # A, B, C, the mean ranks, Table 2, adjacent teams
        assert page.count('<th scope="col" class="txt">team</th>') == 5  # 4 ranks, adjacent
        assert "| average | manhattan vs cross_entropy | 27% | 0.27 ± 0.30 |" in md

    def test_combine_refuses_mismatch(self) -> None:
        c, s = _task(set())
        one = leaderboard(c, s, metrics=["manhattan"], dataset="X", n_resamples=50)
        two = leaderboard(c, s, metrics=["euclidean"], dataset="Y", n_resamples=50)
        with pytest.raises(ValueError, match="same metrics"):
            combine_leaderboards([one, two])
        with pytest.raises(ValueError, match="distinct"):
            combine_leaderboards([one, one])

    def test_a_dataset_named_average_is_refused(self) -> None:
        # the rows averaged over the datasets are called "average": a dataset of that name
        # would vanish from the re-ranking table (or take the average's place)
        c, s = _task(set())
        with pytest.raises(ValueError, match="'average' is the name of the rows averaged"):
            leaderboard(c, s, metrics=["manhattan"], dataset="average", n_resamples=50)
        one = leaderboard(c, s, metrics=["manhattan"], dataset="X", n_resamples=50)
        renamed = dataclasses.replace(one, datasets=["average"])
        with pytest.raises(ValueError, match="DATASET=PATH"):
            combine_leaderboards([renamed, one])


def _write_task(root: Path, name: str, swapped: set[int]) -> list[str]:
    counts, subs = _task(swapped)
    rows = [
        {"item": f"i{i}", "annotator": f"a{a}", "label": k}
        for i, row in enumerate(counts.values)
        for k, c in enumerate(row)
        for a in range(int(c))
    ]
    gold = root / f"{name}.csv"
    pd.DataFrame(rows).to_csv(gold, index=False)
    args = [f"{name}={gold}"]
    for team, q in subs.items():
        path = root / name / f"{team}.csv"
        path.parent.mkdir(exist_ok=True)
        pd.DataFrame({"item": [f"i{i}" for i in range(len(q))], "0": q[:, 0], "1": q[:, 1]}).to_csv(
            path, index=False
        )
        args.append(str(path))
    return args


class TestLeaderboardCommand:
    def test_synthetic_shared_task(self, tmp_path: Path) -> None:
        args: list[str] = []
        for name, sw in _SWAPS.items():
            args += (["+"] if args else []) + _write_task(tmp_path, name, sw)
        out = tmp_path / "out"
        res = CliRunner().invoke(
            cli, ["leaderboard", *args, "--metrics", ",".join(_METRICS), "--n-resamples", "100",
                  "--out", str(out)]
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        rerank = pd.read_csv(out / "rerank.csv")
        row = _expected_row(rerank, "average", "manhattan", "cross_entropy")
        assert row["share_reranked"] == pytest.approx(0.8 / 3)
        assert row["mean_abs_change"] == pytest.approx(0.8 / 3)
        assert {p.name for p in out.iterdir()} == {
            "leaderboard.md", "leaderboard.html", "scores.csv", "rerank.csv", "adjacent.csv",
            "manifest.json",
        }  # fmt: skip
        files = json.loads((out / "manifest.json").read_text())["files"]
        assert set(files) == {p.name for p in out.iterdir()} - {"manifest.json"}

    def test_needs_a_submission(self, tmp_path: Path) -> None:
        gold = _write_task(tmp_path, "A", set())[0]
        res = CliRunner().invoke(cli, ["leaderboard", gold])
        assert res.exit_code != 0
        assert "at least one SUBMISSION" in res.output


class TestSubmissions:
    def test_lewidi_2023_and_2025(self, tmp_path: Path) -> None:
        p23 = tmp_path / "HS-Brexit_results.tsv"
        p23.write_text("0\t0.8\t0.2\n1\t0.3\t0.7\n")
        sub = read_submission(p23)
        assert isinstance(sub, np.ndarray)
        assert sub.shape == (2, 2)
        p25 = tmp_path / "par_test_soft.tsv"
        p25.write_text("7\t[0.5, 0.5]\n9\t[0.1, 0.9]\n")
        pred = read_submission(p25)
        assert list(pred.items) == ["7", "9"]  # type: ignore[union-attr]

    def test_team_names(self, tmp_path: Path) -> None:
        (tmp_path / "bert").mkdir()
        (tmp_path / "llama").mkdir()
        a, b = tmp_path / "bert" / "HS_results.tsv", tmp_path / "llama" / "HS_results.tsv"
        assert [n for n, _ in team_names([str(a), str(b)])] == ["bert", "llama"]
        assert team_names([f"x={a}"])[0] == ("x", a)
        with pytest.raises(ValueError, match="TEAM=PATH"):
            team_names([f"x={a}", f"x={b}"])


class TestReprHtml:
    def test_ranks_table_with_escaped_team_names(self) -> None:
        counts, subs = _task({0})
        subs["<script>"] = subs.pop("team9")
        one = leaderboard(counts, subs, metrics=_METRICS, dataset="<b>A</b>", n_resamples=50)
        page = one._repr_html_()
        assert "<script>" not in page
        assert "<b>A</b>" not in page
        assert "dataset &lt;b&gt;A&lt;/b&gt;" in page
        head = '>team</th><th scope="col" class="num">manhattan</th><th scope="col" class="num">euclidean</th><th scope="col" class="num">cross_entropy</th>'
        assert head in page
        rows = {
            r.split("</th>")[0].split(">")[-1]: re.findall(r"<td[^>]*>(\d+)", r)
            for r in page.split("<tr>")[2:]
        }
        # team0 and team1 swap under cross-entropy only; the last team is last everywhere
        assert rows["team0"] == ["1", "1", "2"]
        assert rows["team1"] == ["2", "2", "1"]
        assert rows["&lt;script&gt;"] == ["10", "10", "10"]
        assert page.count('aria-label="best">★') == 3  # rank 1 under each metric
        assert page.count('class="num flagged"') + page.count('class="num best flagged"') == 2

    def test_several_datasets_show_mean_ranks(self, board: object) -> None:
        page = board._repr_html_()  # type: ignore[attr-defined]
        assert "mean rank over 3 datasets" in page
        assert page.count("</td></tr>") == 10  # one row per team


class TestDaskInput:
    """The gold and the submissions may be Dask frames (scored by evaluate)."""

    def test_same_board(self) -> None:
        dask = pytest.importorskip("dask")
        dd = pytest.importorskip("dask.dataframe")
        gold, subs = _task({0, 1})
        items = [f"t{i:02d}" for i in range(gold.N)]
        labels = [str(lab) for lab in gold.scale.labels]
        frames = {
            team: pd.DataFrame(q, columns=labels).assign(item=items) for team, q in subs.items()
        }
        long = pd.DataFrame(
            {
                "item": np.repeat(items, gold.n),
                "label": np.concatenate([np.repeat(gold.scale.labels, row) for row in gold.values]),
            }
        )
        gold_ids = LabelCounts.from_array(gold.values, scale=gold.scale, items=items)
        want = leaderboard(gold_ids, frames, metrics=_METRICS, n_resamples=100)
        dask_subs = {t: dd.from_pandas(f, npartitions=2) for t, f in frames.items()}
        with dask.config.set(scheduler="synchronous"):
            in_memory_gold = leaderboard(gold_ids, dask_subs, metrics=_METRICS, n_resamples=100)
            dask_gold = leaderboard(
                dd.from_pandas(long, npartitions=3), frames, metrics=_METRICS, n_resamples=100
            )
        for got in (in_memory_gold, dask_gold):
            pd.testing.assert_frame_equal(got.ranks(), want.ranks())
            pd.testing.assert_frame_equal(got.rerank, want.rerank)
            np.testing.assert_allclose(got.scores["mean"], want.scores["mean"], rtol=1e-12)
            # the items in the same (sorted) order: the same paired bootstrap between teams
            pd.testing.assert_frame_equal(got.adjacent, want.adjacent, rtol=1e-12)
