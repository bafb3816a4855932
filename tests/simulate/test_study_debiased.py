"""study(debiased=True): the debiased family beside the empirical and expected forms."""

import numpy as np
import pytest

from dissensus.simulate import study


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
