"""study(debiased=True): the debiased family beside the empirical and expected forms."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dissensus.simulate import StudyResult, study
from dissensus.simulate._report import (
    compare_forms,
    debiased_markdown,
    debiased_reading,
    debiased_table,
    write_simulation_report,
)


class TestStudyDebiased:
    def test_debiased_estimator_rows(self) -> None:
        res = study(
            150,
            3,
            replicates=3,
            metrics=["emd"],
            priors=["uniform"],
            candidates=["truth", "tempered", "uniform"],
            debiased=True,
            seed=0,
        )
        forms = res.rankings[["form", "prior", "estimator"]].drop_duplicates()
        assert forms.values.tolist() == [
            ["empirical", "-", "empirical"],
            ["expected", "uniform", "E[uniform]"],
            ["debiased", "-", "debiased"],
        ]
        assert list(res.table(bin="all").columns[-3:]) == ["empirical", "E[uniform]", "debiased"]

    def test_debiased_brier_is_unbiased_for_the_true_mean_score(self) -> None:
        # three annotations per item: the empirical Brier score is biased upward by the
        # multinomial variance, the debiased one is exactly unbiased (Monte Carlo error only)
        res = study(
            400,
            4,
            replicates=20,
            n_annotations=3,
            metrics=["squared_euclidean"],
            priors=["jeffreys"],
            candidates=["truth", "tempered", "uniform"],
            debiased=True,
            seed=3,
        )
        sc = res.scores[res.scores["bin"] == "all"].set_index(["estimator", "model"])
        for model in ["truth", "tempered", "uniform"]:
            true = sc.loc[("debiased", model), "true_score"]
            deb = sc.loc[("debiased", model), "estimate"]
            emp = sc.loc[("empirical", model), "estimate"]
            assert abs(deb - true) < 0.01, model
            assert emp - true > 0.1, model
        assert np.isfinite(res.rankings["kendall_tau"]).all()

    def test_metric_without_a_debiased_form(self) -> None:
        with pytest.raises(ValueError, match="debiased form"):
            study(50, 3, replicates=1, metrics=["kl_divergence_reverse"], debiased=True)


@pytest.fixture(scope="module")
def res() -> StudyResult:
    return study(
        120,
        3,
        replicates=4,
        truths=["skewed", "flat"],
        metrics=["cross_entropy", "manhattan"],
        priors=["uniform"],
        candidates=["noisy", "shrunk", "marginal", "uniform"],
        debiased=True,
        seed=1,
    )


class TestDebiasedReport:
    def test_table_rows_and_columns(self, res: StudyResult) -> None:
        df = debiased_table(res)
        rk = res.rankings
        assert len(df) == len(rk[["truth", "metric", "bin"]].drop_duplicates())
        ests = ["empirical", "E[uniform]", "debiased"]
        assert list(df.columns) == [
            "truth",
            "metric",
            "bin",
            *(f"tau {e}" for e in ests),
            *(f"best {e}" for e in ests),
            "se tau",
            "se best",
        ]
        row = df.iloc[0]
        ref = rk[
            (rk["truth"] == row["truth"])
            & (rk["metric"] == row["metric"])
            & (rk["bin"] == row["bin"])
        ].set_index("estimator")
        for e in ests:
            assert row[f"tau {e}"] == pytest.approx(ref.loc[e, "kendall_tau"])
            assert row[f"best {e}"] == pytest.approx(ref.loc[e, "p_best_correct"])
        # cross-entropy is linear in the target: its debiased form ranks as the empirical one
        ce = df[df["metric"] == "cross_entropy"]
        np.testing.assert_array_equal(ce["tau debiased"], ce["tau empirical"])

    def test_markdown_and_reading(self, res: StudyResult) -> None:
        md = debiased_markdown(res).splitlines()
        assert md[0].startswith("| truth | metric | bin | tau empirical")
        assert len(md) == 2 + len(debiased_table(res))
        reading = debiased_reading(res)
        assert reading[0].startswith("Kendall tau with the true ranking, debiased against")
        assert "P(pick the truly best model)" in reading[1]

    def test_report_section_and_files(self, res: StudyResult, tmp_path: Path) -> None:
        paths = write_simulation_report(res, tmp_path)
        html = paths["report"].read_text(encoding="utf-8")
        assert "Debiased metrics: ranking against the truth" in html
        assert "fig-deb-skewed" in html
        assert "fig-deb-flat" in html
        assert pd.read_csv(paths["debiased"]).shape[0] == len(debiased_table(res))
        assert paths["debiased_markdown"].read_text(encoding="utf-8") == debiased_markdown(res)

    def test_compare_forms_is_what_the_reading_counts(self, res: StudyResult) -> None:
        d = compare_forms(res, "debiased", column="kendall_tau")
        np.testing.assert_allclose(d["difference"], d["value"] - d["baseline"])
        beyond = d["difference"].abs() > 2 * d["standard_error"]
        assert (d.loc[beyond, "verdict"] != "no clear difference").all()
        assert (d.loc[~beyond, "verdict"] == "no clear difference").all()
        better, worse = (int((d["verdict"] == v).sum()) for v in ("better", "worse"))
        assert f"better in {better}, worse in {worse}." in debiased_reading(res)[0]

    def test_absent_without_debiased(self) -> None:
        res = study(60, 3, replicates=2, metrics=["manhattan"], priors=["uniform"], seed=0)
        assert debiased_table(res).empty
        assert debiased_markdown(res) == ""
        assert debiased_reading(res) == []
