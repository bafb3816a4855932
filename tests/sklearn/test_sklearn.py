"""Tests of dissensus.sklearn: scorers on label counts in GridSearchCV and cross_val_score."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from dissensus import DataError, LabelCounts
from dissensus.metrics import get_metric, list_metrics
from dissensus.models import EMDRegression, ExpectedEMDRegression, SoftmaxRegression
from dissensus.posterior import dirichlet
from dissensus.sklearn import CountsClassifier, get_scorer, get_scorer_names, make_scorer

K = 4


def _data(seed: int = 0, N: int = 90) -> tuple[np.ndarray, np.ndarray]:
    """Features and integer label counts (2..6 annotations per item) with signal in column 0."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, 3))
    mu = 1.5 + 1.2 * X[:, 0]
    logits = -((np.arange(K)[None, :] - mu[:, None]) ** 2)
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    n = rng.integers(2, 7, size=N)
    counts = np.stack([rng.multinomial(m, row) for m, row in zip(n, p, strict=True)])
    return X, counts


def _target(name: str, counts: np.ndarray) -> np.ndarray:
    m = get_metric(name)
    if m.needs_counts:
        return counts
    if m.needs_posterior:
        return dirichlet(counts)
    return counts / counts.sum(axis=1, keepdims=True)


def _direct(name: str, est, X, counts, train, test) -> float:
    """-mean(metric) computed directly: the fold's model, the metric's own function."""
    q = clone(est).fit(X[train], counts[train]).predict_proba(X[test])
    return -float(get_metric(name)(_target(name, counts[test]), q).mean())


class TestGridSearch:
    @pytest.mark.parametrize(
        "name", ["debiased[emd]", "E[emd]", "emd", "debiased[squared_euclidean]"]
    )
    def test_scores_are_minus_the_mean_metric(self, name: str) -> None:
        X, counts = _data()
        cv = KFold(3)
        grid = {"C": [0.01, 1.0]}
        search = GridSearchCV(ExpectedEMDRegression(), grid, scoring=make_scorer(name), cv=cv)
        search.fit(X, counts)
        for i, C in enumerate(grid["C"]):
            for f, (train, test) in enumerate(cv.split(X)):
                got = search.cv_results_[f"split{f}_test_score"][i]
                want = _direct(name, ExpectedEMDRegression(C=C), X, counts, train, test)
                assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
        assert search.best_params_ == {"C": 1.0}  # the features carry signal: less penalty wins

    def test_several_scorers_at_once(self) -> None:
        X, counts = _data(seed=1)
        scoring = {s: get_scorer(s) for s in ["neg_E[emd]", "neg_debiased[rps]", "intersection"]}
        search = GridSearchCV(
            EMDRegression(), {"C": [0.1, 10.0]}, scoring=scoring, refit="neg_E[emd]", cv=3
        )
        search.fit(X, counts)
        assert set(scoring) <= {k.removeprefix("mean_test_") for k in search.cv_results_}
        # intersection is a similarity: kept positive; the distances negated
        assert (search.cv_results_["mean_test_intersection"] > 0).all()
        assert (search.cv_results_["mean_test_neg_E[emd]"] < 0).all()


class TestPlainClassifier:
    @pytest.mark.parametrize("targets", ["expanded", "argmax"])
    def test_logistic_regression_in_cross_val_score(self, targets: str) -> None:
        X, counts = _data(seed=2)
        est = CountsClassifier(LogisticRegression(C=2.0), targets=targets)
        cv = KFold(3, shuffle=True, random_state=0)
        got = cross_val_score(est, X, counts, scoring=make_scorer("debiased[emd]"), cv=cv)
        want = [_direct("debiased[emd]", est, X, counts, tr, te) for tr, te in cv.split(X)]
        np.testing.assert_allclose(got, want, rtol=1e-12)

    def test_expanded_targets_are_the_soft_cross_entropy_fit(self) -> None:
        X, counts = _data(seed=3)
        wrapped = CountsClassifier(LogisticRegression(C=1.0, tol=1e-10, max_iter=1000)).fit(
            X, counts
        )
        ours = SoftmaxRegression(C=1.0, tol=1e-10, max_iter=1000).fit(X, counts)
        np.testing.assert_allclose(wrapped.predict_proba(X), ours.predict_proba(X), atol=1e-4)

    def test_absent_class_gets_a_zero_column(self) -> None:
        X = np.array([[1.0], [-1.0]] * 5)
        counts = np.array([[2, 1, 0], [0, 3, 0]] * 5)
        q = CountsClassifier(LogisticRegression(), targets="argmax").fit(X, counts).predict_proba(X)
        assert q.shape == (10, 3)
        assert (q[:, 2] == 0).all()

    def test_refusals(self) -> None:
        with pytest.raises(DataError, match="row 1 of `y` has no annotation"):
            CountsClassifier(LogisticRegression()).fit(np.zeros((2, 1)), np.array([[1, 1], [0, 0]]))
        with pytest.raises(ValueError, match="targets"):
            CountsClassifier(LogisticRegression(), targets="mode").fit(np.zeros((1, 1)), [[1, 0]])  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="not fitted"):
            CountsClassifier(LogisticRegression()).predict_proba(np.zeros((1, 1)))


class TestScorer:
    def test_value_sign_weights_and_prior(self) -> None:
        X, counts = _data(seed=4, N=30)
        est = SoftmaxRegression().fit(X, counts)
        q = est.predict_proba(X)
        alpha = dirichlet(counts, prior=2.0)
        assert make_scorer("E[emd]", prior=2.0)(est, X, counts) == pytest.approx(
            -get_metric("E[emd]")(alpha, q).mean(), rel=1e-12
        )
        p = counts / counts.sum(axis=1, keepdims=True)
        w = np.arange(1.0, 31.0)
        want = np.average(get_metric("intersection")(p, q), weights=w)
        assert make_scorer("intersection")(est, X, counts, sample_weight=w) == pytest.approx(
            want, rel=1e-12
        )

    def test_dissensus_models_fit_integer_counts_as_label_counts(self) -> None:
        X, counts = _data(seed=5, N=40)
        a = ExpectedEMDRegression().fit(X, counts).predict_proba(X)
        b = ExpectedEMDRegression().fit(X, LabelCounts.from_array(counts)).predict_proba(X)
        np.testing.assert_array_equal(a, b)

    def test_names(self) -> None:
        names = get_scorer_names()
        assert len(names) == len(list_metrics())
        assert {"neg_emd", "neg_E[emd]", "neg_debiased[emd]", "intersection"} <= set(names)
        assert get_scorer("NEG_E[EMD]").metric.name == "E[emd]"
        assert make_scorer("debiased[emd]").name == "neg_debiased[emd]"
        assert "neg_debiased[emd]" in repr(make_scorer("debiased[emd]"))

    def test_refusals(self) -> None:
        with pytest.raises(ValueError, match="its scorer is 'neg_emd'"):
            get_scorer("emd")
        with pytest.raises(ValueError, match="its scorer is 'intersection'"):
            get_scorer("neg_intersection")
        with pytest.raises(ValueError, match=r"not a scorer name.*make_scorer\('emd'\)"):
            make_scorer("neg_emd")
        with pytest.raises(ValueError, match="target only"):
            make_scorer("entropy")
        with pytest.raises(ValueError, match="Unknown metric"):
            get_scorer("neg_emdd")


def test_scorer_pickles_by_name_for_parallel_search() -> None:
    scorer = make_scorer("emd", prior=2.0)  # the pointwise metrics' functions are closures
    back = pickle.loads(pickle.dumps(scorer))
    assert back == scorer
    X, counts = _data(seed=6, N=30)
    search = GridSearchCV(SoftmaxRegression(), {"C": [0.1, 1.0]}, scoring=scorer, cv=3, n_jobs=2)
    serial = GridSearchCV(SoftmaxRegression(), {"C": [0.1, 1.0]}, scoring=scorer, cv=3)
    np.testing.assert_array_equal(
        search.fit(X, counts).cv_results_["mean_test_score"],
        serial.fit(X, counts).cv_results_["mean_test_score"],
    )
