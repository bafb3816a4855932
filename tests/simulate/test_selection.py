"""dissensus.simulate._selection: the validation of the estimator selection where the truth is known."""

from dissensus.simulate._selection import selection_markdown, selection_study


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
