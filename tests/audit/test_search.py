"""Tests of dissensus.audit: definitions, search, shrinking, seed 001's Table 1 and examples."""

from __future__ import annotations

import json
import math
from functools import partial

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dissensus.audit import PROPERTIES, audit, check_case, property_keys
from dissensus.audit._exact import exact_values, has_exact
from dissensus.audit._properties import auditable_metrics, points
from dissensus.audit._search import _round_rows
from dissensus.cli import main
from dissensus.metrics import cross_entropy, get_metric
from tests.conftest import SHARED, shared_path

#: Seed 001's Table 1 (binary case) as the paper prints it.
_CE_CLIPPED = partial(cross_entropy, zero="clip")
_TABLE1_METRICS = {
    "cross_entropy": _CE_CLIPPED,
    "manhattan": "manhattan",
    "euclidean": "euclidean",
    "jensen_shannon": "js_distance",
}
#: Cells where the machine disagrees with the paper, each explained in docs/audit.md.
_DISAGREEMENTS = {("cross_entropy", "P5a"), ("manhattan", "P4"), ("euclidean", "P4")}
#: Properties L1 and EMD truly have for every K (proofs in docs/audit.md).
_TRUE_L1 = ["P1", "P2", "P3", "P5", "P5a", "P5b", "P5c", "P6", "P8"]
_TRUE_EMD = ["P1", "P2", "P3", "P5", "P5a", "P5c", "P6", "ordinal"]


def _nnz(distributions: dict[str, list[float]]) -> int:
    return sum(int(np.count_nonzero(np.asarray(x) > 1e-12)) for x in distributions.values())


class TestAudit:
    @pytest.mark.parametrize("seed", range(20))
    def test_true_metrics_never_falsely_violated(self, seed: int) -> None:
        for K in (2, 3, 5):
            l1 = audit("manhattan", properties=_TRUE_L1, classes=K, n_trials=1500, seed=seed)
            emd = audit("emd", properties=_TRUE_EMD, classes=K, n_trials=1500, seed=seed)
            for res in (l1, emd):
                bad = [r for r in res.rows if r.status == "violated"]
                assert not bad, bad

    @pytest.mark.parametrize("seed", range(20))
    def test_known_violations_caught_every_seed(self, seed: int) -> None:
        for K in (2, 4):
            res = audit({"KL": "kl_divergence", "CE": "cross_entropy"}, properties=["P3", "P5a"], classes=K, n_trials=1500,
                        seed=seed)  # fmt: skip
            assert res.status("KL", "P3") == "violated"
            assert res.status("CE", "P5a") == "violated"

    def test_same_seed_same_bytes(self) -> None:
        a = audit(
            ["emd", "kl_divergence"], properties="all", classes=3, n_trials=800, seed=7
        ).to_json()
        b = audit(
            ["emd", "kl_divergence"], properties="all", classes=3, n_trials=800, seed=7
        ).to_json()
        assert a == b

    def test_callable_metric(self) -> None:
        def total_variation(p: np.ndarray, q: np.ndarray) -> np.ndarray:
            return 0.5 * np.abs(p - q).sum(axis=1)

        res = audit(total_variation, properties=["P1", "P3", "P7"], classes=3, n_trials=1000)
        assert res.metrics == ["total_variation"]
        assert res.status("total_variation", "P3") == "holds"
        assert res.status("total_variation", "P7") == "violated"

    def test_similarity_audited_as_distance(self) -> None:
        # intersection = 1 - L1/2, so it has every property L1 has.
        res = audit("intersection", properties=["P3", "P5", "P8"], classes=3, n_trials=1000)
        assert all(r.status == "holds" for r in res.rows)

    def test_expected_metrics(self) -> None:
        res = audit(
            ["E[manhattan]", "E[squared_euclidean]"], properties="all", classes=3, n_trials=1500
        )
        for key in ("P1", "P3", "P4", "P5", "P6"):
            assert res.status("E[manhattan]", key) == "not applicable"
        # Posterior variance: a perfect match costs more on an item with fewer annotations.
        assert res.status("E[squared_euclidean]", "P5c") == "violated"
        ce = res.get("E[squared_euclidean]", "P5c").counterexample
        assert ce is not None
        assert any(k.startswith("alpha") for k in ce.distributions)

    def test_expected_l1_minimum_is_the_median_not_the_mean(self) -> None:
        # Beta(1, 3): mean 0.25, median 1 - 0.5**(1/3) = 0.206; E|p - q| is smallest at the median.
        margins = check_case("E[manhattan]", "P5a", [1, 3], [1, 3], [0.2, 0.8])
        assert margins["(i) M(p, p̄) < M(p, r) for r != p̄"] > 0

    def test_ordinal_not_applicable_for_two_classes(self) -> None:
        assert (
            audit("emd", properties=["ordinal"], classes=2, n_trials=100).status("emd", "ordinal")
            == "not applicable"
        )

    def test_p6_order_reported(self) -> None:
        res = audit(["manhattan", "js_distance"], properties=["P6"], classes=2, n_trials=2000)
        assert res.get("manhattan", "P6").note == "β̂ = 1"
        assert res.get("js_distance", "P6").note == "β̂ = 0.5"

    def test_counterexample_is_shrunk(self) -> None:
        ce = (
            audit("kl_divergence", properties=["P3"], classes=5, n_trials=3000)
            .get("kl_divergence", "P3")
            .counterexample
        )
        assert ce is not None
        assert ce.margin > 0
        # Few non-zero entries and round numbers (multiples of 1/100 at worst).
        assert _nnz(ce.distributions) <= 6
        for x in ce.distributions.values():
            assert np.allclose(np.round(np.asarray(x) * 100), np.asarray(x) * 100)

    def test_bad_input(self) -> None:
        with pytest.raises(ValueError, match="classes"):
            audit("emd", classes=1)
        with pytest.raises(ValueError, match="Unknown properties"):
            audit("emd", properties=["P9"])
        with pytest.raises(ValueError, match="one argument"):
            audit("entropy")
        with pytest.raises(ValueError, match="Unknown metric"):
            audit("manhatan")
        with pytest.raises(TypeError, match="registry name"):
            audit(3)  # type: ignore[arg-type]

    def test_result_tables(self) -> None:
        res = audit(
            ["manhattan", "cross_entropy"], properties=["P1", "P2"], classes=2, n_trials=500
        )
        frame = res.to_frame()
        assert list(frame.columns) == ["metric", "property", "status", "n_applicable",
                                       "counterexample", "margin", "note"]  # fmt: skip
        assert res.matrix() == {"manhattan": {"P1": "✓", "P2": "✓"},
                                "cross_entropy": {"P1": "✗", "P2": "✗"}}  # fmt: skip
        data = json.loads(res.to_json())
        assert data["rows"][2]["counterexample"]["values"]
        assert "| cross_entropy | ✗ | ✗ |" in res.to_markdown()

    def test_every_property_documented(self) -> None:
        assert property_keys()[:3] == ["P1", "P2", "P3"]
        for p in PROPERTIES:
            assert len(p.definition) > 40, p.key


@pytest.fixture(scope="module")
def table1() -> dict[str, object]:
    path = shared_path("reference", "soft_metric_cases.json")
    return json.loads(path.read_text())["seed001_table1_binary"]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def binary() -> object:
    return audit(_TABLE1_METRICS, properties="all", classes=2, n_trials=5000)


class TestSeed001:
    """Table 1 reproduced in the binary case, and Examples 1-9 found again."""

    def test_table1(self, table1: dict, binary: object) -> None:
        props, rows = table1["properties"], table1["rows"]
        for metric, flags in rows.items():
            for key, flag in zip(props, flags, strict=True):
                machine = binary.status(metric, key)  # type: ignore[attr-defined]
                paper = "holds" if flag else "violated"
                if (metric, key) in _DISAGREEMENTS:
                    assert machine != paper, (metric, key)
                else:
                    assert machine == paper, (metric, key)

    def test_examples_1_to_5_hold_as_counterexamples(self) -> None:
        # Examples 1-5 of seed 001 are violations under our definitions too.
        assert check_case(_CE_CLIPPED, "P1", [0.83, 0.17], [0.5, 0.5])["M(p, q) = M(q, p)"] > 0
        tri = check_case(_CE_CLIPPED, "P3", [0.7, 0.3], [0.95, 0.05], [1, 0])
        assert tri["M(p, r) <= M(p, q) + M(q, r)"] == pytest.approx(8.2893 - 2.3162, abs=1e-4)
        for metric in (_CE_CLIPPED, "js_distance"):
            tr = check_case(metric, "P4", [0.9, 0.1], [0.7, 0.3], [1, 0])
            assert next(iter(tr.values())) > 0
            # The paper's q and r: the error of [1, 0] is smaller on every class, and costs more.
            fair = check_case(metric, "P5b", [0.9, 0.1], [1, 0], [0.7, 0.3])
            assert next(iter(fair.values())) >= 0
        pm = check_case(_CE_CLIPPED, "P5c", [0.5, 0.5], [0.9, 0.1])
        assert pm["M(p, p̄) = M(p', p̄')"] == pytest.approx(0.6931 - 0.3251, abs=1e-4)

    def test_examples_6_to_9_hold_as_counterexamples(self) -> None:
        ex6 = check_case("manhattan", "P7", [0, 0.1, 0.1, 0.8], [0.1, 0.3, 0.2, 0.4],
                         [0, 0.1, 0.5, 0.4])  # fmt: skip
        assert next(iter(ex6.values())) == pytest.approx(0.0, abs=1e-12)  # a tie: not "<"
        ex7 = check_case("euclidean", "P7", [0, 0.1, 0.4, 0.5], [0.1, 0.2, 0.3, 0.4],
                         [0, 0.1, 0.5, 0.4])  # fmt: skip
        assert next(iter(ex7.values())) == pytest.approx(0.2 - 0.1414, abs=1e-4)
        ex8 = check_case("euclidean", "P8", [0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0.2, 0.8],
                         [0, 0.05, 0.05, 0.05, 0.05, 0.8])  # fmt: skip
        assert next(iter(ex8.values())) == pytest.approx(0.2828 - 0.2236, abs=1e-4)
        ex9 = check_case("euclidean", "P8", [0, 0, 0, 0, 0.3, 0.7], [0, 0, 0, 0, 1, 0],
                         [0.25, 0.25, 0.25, 0.25, 0, 0])  # fmt: skip
        assert next(iter(ex9.values())) == pytest.approx(0.99 - 0.911, abs=1e-3)

    @pytest.mark.parametrize(
        ("metric", "key", "K", "paper"),
        [
            ("cross_entropy", "P1", 2, {"p": [0.83, 0.17], "q": [0.5, 0.5]}),
            ("cross_entropy", "P3", 2, {"p": [0.7, 0.3], "q": [0.95, 0.05], "r": [1, 0]}),
            ("cross_entropy", "P4", 2, {"p": [0.9, 0.1], "q": [0.7, 0.3], "r": [1, 0]}),
            ("jensen_shannon", "P4", 2, {"p": [0.9, 0.1], "q": [0.7, 0.3], "r": [1, 0]}),
            ("cross_entropy", "P5b", 2, {"p": [0.9, 0.1], "q": [1, 0], "r": [0.7, 0.3]}),
            ("jensen_shannon", "P5b", 2, {"p": [0.9, 0.1], "q": [1, 0], "r": [0.7, 0.3]}),
            ("cross_entropy", "P5c", 2, {"p": [0.5, 0.5], "p'": [0.9, 0.1]}),
            ("manhattan", "P7", 4, {"p": [0, .1, .1, .8], "q": [.1, .3, .2, .4], "r": [0, .1, .5, .4]}),
            ("euclidean", "P7", 4, {"p": [0, .1, .4, .5], "q": [.1, .2, .3, .4], "r": [0, .1, .5, .4]}),
            ("euclidean", "P8", 6, {"p": [0, 0, 0, 0, 0, 1], "q": [0, 0, 0, 0, .2, .8],
                                    "r": [0, .05, .05, .05, .05, .8]}),
            ("euclidean", "P8", 6, {"p": [0, 0, 0, 0, .3, .7], "q": [0, 0, 0, 0, 1, 0],
                                    "r": [.25, .25, .25, .25, 0, 0]}),
        ],
    )  # fmt: skip
    def test_found_again_at_least_as_simple(
        self, metric: str, key: str, K: int, paper: dict[str, list[float]]
    ) -> None:
        res = audit({metric: _TABLE1_METRICS[metric]}, properties=[key], classes=K, n_trials=3000)
        ce = res.get(metric, key).counterexample
        assert ce is not None
        assert _nnz(ce.distributions) <= _nnz(paper)


class TestDocumentedDisagreements:
    """The counterexamples docs/audit.md gives for the cells where we disagree with the paper."""

    def test_p4_fails_for_l1_and_l2(self) -> None:
        for metric in ("manhattan", "euclidean"):
            m = check_case(metric, "P4", [0.25, 0.75], [0, 1], [1, 0])
            assert next(iter(m.values())) > 0

    def test_p5a_clause_ii_fails_for_ce_clause_i_holds(self) -> None:
        m = check_case(_CE_CLIPPED, "P5a", [0.5, 0.5], [1, 0], [0.75, 0.25])
        assert m["(ii) M(p', p̄') <= M(p, r) for r != p̄"] > 0
        assert m["(i) M(p, p̄) < M(p, r) for r != p̄"] < 0

    def test_unclipped_ce_is_unbounded(self) -> None:
        assert math.isinf(float(get_metric("cross_entropy")([0.5, 0.5], [1.0, 0.0])))


def test_shared_reference_location_is_known() -> None:
    # The reference file is looked up beside the repository, or at $DISSENSUS_SHARED.
    assert SHARED.name == "shared" or SHARED.exists()


class TestShrinkHelpers:
    @given(
        st.lists(st.floats(0.0, 1.0), min_size=2, max_size=7).filter(lambda v: sum(v) > 1e-3),
        st.sampled_from([1, 2, 4, 5, 10, 20, 100]),
    )
    def test_round_rows_stays_on_the_grid_and_simplex(self, raw: list[float], m: int) -> None:
        x = np.asarray(raw) / sum(raw)
        y = _round_rows(x[None, :], np.array([m]))[0]
        assert y.min() >= 0.0
        assert y.sum() == pytest.approx(1.0)
        assert np.allclose(y * m, np.round(y * m))
        assert np.abs(y - x).max() <= 1.0 / m + 1e-12

    @pytest.mark.parametrize("K", [2, 3, 7])
    def test_points_on_the_simplex(self, K: int) -> None:
        x = points(np.random.default_rng(0), 5000, K)
        assert x.min() >= 0.0
        assert np.allclose(x.sum(axis=1), 1.0)
        # faces, corners and grid points are all drawn
        assert (x == 0).any(axis=1).mean() > 0.2
        assert (x.max(axis=1) == 1.0).any()


class TestReprHtml:
    def test_matrix_cells_and_escaped_names(self) -> None:
        res = audit(
            {"<script>": "manhattan", "KL": "kl_divergence"},
            properties=["P3", "P5a"],
            classes=2,
            n_trials=300,
        )
        page = res._repr_html_()
        assert "<script>" not in page
        # drawn by dissensus.report's renderer: the first cell of a row is its header
        assert '<th scope="row" class="txt">&lt;script&gt;</th>' in page
        assert '>P3</th><th scope="col" class="mid">P5a</th>' in page
        for metric, cells in res.matrix().items():
            row = "".join(f'<td class="mid">{cells[p]}</td>' for p in ("P3", "P5a"))
            assert f"{metric.replace('<', '&lt;').replace('>', '&gt;')}</th>{row}</tr>" in page
        assert "300 trials" in page


class TestConfirmedVerdicts:
    """Issue 23: a violation is reported only when a 50-digit recomputation confirms it."""

    #: Quadratic near p = q: values around 1e-7 there, where an absolute tolerance of
    #: 1e-6 × scale turned a genuine decrease into "not strictly less".
    _QUADRATIC = (
        "js_divergence",
        "kl_divergence",
        "kl_divergence_reverse",
        "squared_euclidean",
        "squared_chi2",
        "fidelity",
    )

    def test_issue_case_is_a_decrease(self) -> None:
        # p = [.5505, .4495], q = [.55, .45], c = 0.9: M(p', q') is 0.83 M(p, q)
        p, q, s = [0.5505, 0.4495], [0.55, 0.45], [0.5, 0.5]
        m = check_case("js_divergence", "P6", p, q, s, scalar=0.9)
        assert m["M(p', q') < M(p, q) for x' = s + c(x - s), c < 1"] < 0

    def test_quadratic_metrics_are_scale_sensitive_k2(self) -> None:
        table = audit(list(self._QUADRATIC), properties=["P6"], classes=2, n_trials=20_000)
        assert {r.metric: r.status for r in table.rows} == dict.fromkeys(self._QUADRATIC, "holds")

    @pytest.mark.parametrize("K", [3, 5])
    def test_squared_euclidean_is_scale_sensitive(self, K: int) -> None:
        assert (
            audit("squared_euclidean", properties=["P6"], classes=K, n_trials=5000).status(
                "squared_euclidean", "P6"
            )
            == "holds"
        )

    def test_every_reported_margin_is_a_violation(self) -> None:
        names = [n for n in auditable_metrics() if has_exact(n)]
        table = audit(names, classes=3, n_trials=1000)
        examples = [r.counterexample for r in table.rows if r.counterexample is not None]
        assert examples
        # the margin printed is the recomputed one: >= 0 (strict clauses), never negative
        assert all(ce.margin >= 0 for ce in examples)

    def test_exact_values_agree_with_the_kernels(self) -> None:
        rng = np.random.default_rng(4)
        P, Q = rng.dirichlet(np.ones(4), size=40), rng.dirichlet(np.ones(4), size=40)
        P[0], Q[0] = [0.5, 0.5, 0, 0], [0.5, 0, 0.5, 0]  # zeros: inf and 0 ln 0
        for name in auditable_metrics():
            if not has_exact(name):
                continue
            fast = np.asarray(get_metric(name).func(P, Q), dtype=np.float64)
            exact = exact_values(name, P, Q)
            np.testing.assert_allclose(fast, exact, rtol=1e-12, atol=1e-15, err_msg=name)

    def test_order_of_metrics_does_not_change_a_row(self) -> None:
        names = ["squared_euclidean", "manhattan", "E[emd]", "cosine"]
        forward = audit(names, classes=3, n_trials=1000)
        backward = audit(names[::-1], classes=3, n_trials=1000)
        for r in forward.rows:
            assert backward.get(r.metric, r.property) == r

    def test_huge_k_is_refused_before_allocating(self) -> None:
        with pytest.raises(ValueError, match=r"at most K = [\d,]+ classes fit"):
            audit("manhattan", classes=100_000)
        with pytest.raises(ValueError, match="GiB"):
            audit("manhattan", classes=10**9, n_trials=1)

    def test_cli_huge_k_names_the_flags(self, capsys: pytest.CaptureFixture[str]) -> None:
        assert main(["audit", "--classes", "100000"]) == 2  # bad input, not internal error
        err = capsys.readouterr().err
        assert "--classes" in err
        assert "internal error" not in err
