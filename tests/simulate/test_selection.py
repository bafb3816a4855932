"""dissensus.simulate._selection: the validation of the estimator selection where the truth is known."""

import pandas as pd

from dissensus.simulate._selection import selection_document, selection_markdown, selection_study


def test_small_study_table():
    table = selection_study(truths=("skewed",), n_annotations=(2,), metrics=("manhattan",),
                            n_items=60, replicates=3, n_replicas=10)  # fmt: skip
    assert set(table["estimator"]) == {
        "empirical", "debiased", "expected", "selected", "selected among all three",
    }  # fmt: skip
    sel = table.set_index("estimator")
    # the selected estimator is one of the fixed ones in each dataset, so it cannot beat them all
    assert (
        sel.loc["selected", "p_correct_order"]
        <= sel.loc[["empirical", "debiased", "expected"], "p_correct_order"].max()
    )
    md = selection_markdown(table)
    assert md.count("\n") == 2 + 5


def test_document_names_where_selection_falls_short():
    rows = [
        ("debiased", 0.9, 0.01, 0.8, 0.05),
        ("empirical", 0.8, 0.01, 0.1, 0.05),
        ("expected", 0.85, 0.01, 0.0, 0.01),
        ("selected", 0.8, 0.01, 0.1, 0.05),
        ("selected among all three", 0.85, 0.01, 0.0, 0.01),
    ]
    table = pd.DataFrame(
        [("flat", 3, "emd", e, p, sp, b, sb, 40) for e, p, sp, b, sb in rows],
        columns=["truth", "n_annotations", "metric", "estimator", "p_correct_order",
                 "se_correct_order", "p_best", "se_best", "replicates"],
    )  # fmt: skip
    doc = selection_document(table)
    assert "- flat, n = 3, emd: selected P(best) 0.10, debiased 0.80." in doc
    assert "| flat | 3 | emd | selected | 0.80 ± 0.01 | 0.10 ± 0.05 | **no** |" in doc
    assert "- flat, n = 3, emd: selected P(correct order) 0.80, debiased 0.90." in doc
    is_sel = table["estimator"] == "selected"
    fixed = table.assign(
        p_best=table["p_best"].where(~is_sel, 0.8),
        p_correct_order=table["p_correct_order"].where(~is_sel, 0.9),
    )
    assert "Nowhere beyond two standard errors" in selection_document(fixed)
