"""dissensus.metrics.selection: the parametric bootstrap that selects an estimator."""

import numpy as np
import pytest

from dissensus.metrics.selection import (
    ESTIMATORS,
    PAIR_COLUMNS,
    SELECTION_COLUMNS,
    estimator_forms,
    pick_estimator,
    select_estimators,
)


def _data(seed: int = 0, n_items: int = 150):
    rng = np.random.default_rng(seed)
    pi = rng.dirichlet([0.3, 0.3, 3.0], size=n_items)
    counts = rng.multinomial(3, pi)
    preds = np.stack([0.9 * pi + 0.1 / 3, 0.5 * pi + 0.5 / 3, np.full_like(pi, 1 / 3)])
    return counts, preds


def test_tables_and_one_selected_per_metric():
    counts, preds = _data()
    sel = select_estimators(
        counts, preds, ["manhattan", "E[js_divergence]"], [0.3, 0.3, 3.0],
        models=["close", "flat", "uniform"], n_replicas=30,
    )  # fmt: skip
    assert list(sel.summary.columns) == list(SELECTION_COLUMNS)
    assert list(sel.pairs.columns) == list(PAIR_COLUMNS)
    assert sel.summary.groupby("metric")["selected"].sum().tolist() == [1, 1]
    # by default the expected form is neither measured nor eligible
    assert set(sel.summary["estimator"]) == {"empirical", "debiased"}
    assert set(sel.summary["metric"]) == {"manhattan", "js_divergence"}
    assert (sel.summary["n_replicas"] == 30).all()
    assert sel.summary[["p_correct_order", "p_best"]].stack().between(0, 1).all()
    # the drawn truth is the same for every estimator
    truth = sel.pairs.pivot_table(index=["metric", "model_a", "model_b"], columns="estimator",
                                  values="p_true_a_above_b")  # fmt: skip
    assert np.allclose(truth.to_numpy() - truth.to_numpy()[:, :1], 0)


def test_all_three_estimators_on_request():
    counts, preds = _data()
    sel = select_estimators(counts, preds, ["emd"], [0.3, 0.3, 3.0], n_replicas=20,
                            candidates=ESTIMATORS)  # fmt: skip
    assert sel.summary["estimator"].tolist() == ["empirical", "debiased", "expected"]
    assert sel.summary["form"].tolist() == ["emd", "debiased[emd]", "E[emd]"]
    rows = sel.summary.to_dict("records")
    assert rows[pick_estimator(rows, ESTIMATORS)]["selected"]
    assert pick_estimator(rows, ("empirical",)) == 0
    with pytest.raises(ValueError, match="must include 'empirical'"):
        select_estimators(counts, preds, ["emd"], [1.0, 1.0, 1.0], candidates=("debiased",))


def test_a_clearly_better_model_is_found():
    counts, preds = _data(n_items=400)
    sel = select_estimators(counts, preds[[2, 0]], ["squared_euclidean"], [0.3, 0.3, 3.0],
                            models=["uniform", "close"], n_replicas=30)  # fmt: skip
    pairs = sel.pairs
    assert (pairs["p_true_a_above_b"] == 0).all()  # "close" is truly better in every replica
    assert sel.summary["p_best"].max() == 1.0


def test_seeded():
    counts, preds = _data()
    a = select_estimators(counts, preds, ["emd"], [1.0, 1.0, 1.0], n_replicas=20, seed=3)
    b = select_estimators(counts, preds, ["emd"], [1.0, 1.0, 1.0], n_replicas=20, seed=3)
    assert a.summary.equals(b.summary)


def test_auto_stops_when_errors_are_small():
    counts, preds = _data()
    sel = select_estimators(counts, preds, ["emd"], [0.3, 0.3, 3.0], chunk_rows=150 * 50)
    R = int(sel.summary["n_replicas"].iloc[0])
    assert 100 <= R <= 200
    if R < 200:
        assert sel.summary[["se_correct_order", "se_best"]].max().max() <= 0.0354


def test_errors():
    counts, preds = _data()
    with pytest.raises(ValueError, match="at least two models"):
        select_estimators(counts, preds[:1], ["emd"], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="one annotation per item"):
        select_estimators(counts * 0, preds, ["emd"], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="'auto' or an integer"):
        select_estimators(counts, preds, ["emd"], [1.0, 1.0, 1.0], n_replicas="many")
    with pytest.raises(ValueError, match="target only"):
        estimator_forms("entropy")
    assert estimator_forms("E[emd]") == {
        "empirical": "emd",
        "debiased": "debiased[emd]",
        "expected": "E[emd]",
    }
