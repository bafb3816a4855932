"""scikit-learn scorers on soft targets given as label counts (extra ``models``).

Model selection on disagreement data with ``GridSearchCV`` or
``cross_val_score``: the targets ``y`` are the (N, K) label counts of the
items (an integer array, so that expected and debiased metrics can be
computed), the estimator's ``predict_proba(X)`` gives the predicted
distributions ``q``, and a scorer returns the mean over the items of a
registered metric (:func:`dissensus.metrics.get_metric`), scored as
:func:`dissensus.evaluate` scores it (:func:`dissensus.evaluation.score_counts`).

Sign convention, as scikit-learn's ``neg_`` scorers: greater is better. A
metric where lower is better (every distance and divergence) is negated and
its scorer is named ``neg_<metric>`` (``neg_debiased[emd]``); a metric where
higher is better (``intersection``, ``cosine``, ``fidelity``) keeps its sign
and its name. :func:`make_scorer` takes the metric's name and applies the
sign; :func:`get_scorer` takes the scorer's name.

The dissensus models (:mod:`dissensus.models`) fit integer count arrays
directly; a scikit-learn classifier is wrapped in :class:`CountsClassifier`,
which fits it on the expanded (or majority) labels and gives one
``predict_proba`` column per class. Neither is a scikit-learn classifier, so
the default cross-validation splitter is ``KFold`` (stratification needs 1-D
labels).

Examples
--------
>>> import numpy as np
>>> from sklearn.model_selection import GridSearchCV
>>> from dissensus.models import ExpectedEMDRegression
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(60, 3))
>>> counts = np.stack([rng.multinomial(3, [0.6, 0.3, 0.1] if x > 0 else [0.1, 0.3, 0.6])
...                    for x in X[:, 0]])
>>> search = GridSearchCV(ExpectedEMDRegression(), {"C": [0.01, 10.0]},
...                       scoring=make_scorer("debiased[emd]"), cv=3).fit(X, counts)
>>> search.best_params_
{'C': 10.0}
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Any, Literal, Self

import numpy as np
import numpy.typing as npt
from sklearn.base import BaseEstimator, clone

from dissensus._exceptions import DataError
from dissensus._validation import as_count_matrix, check_option
from dissensus.evaluation import score_counts
from dissensus.metrics import Metric, get_metric, list_metrics
from dissensus.models import expand_soft_targets
from dissensus.posterior import DEFAULT_PRIOR, PriorLike

__all__ = ["CountsClassifier", "CountsScorer", "get_scorer", "get_scorer_names", "make_scorer"]

FloatArray = npt.NDArray[np.float64]
_NEG = "neg_"


def _scorer_name(m: Metric) -> str:
    return f"{_NEG}{m.name}" if m.lower_is_better else m.name


@dataclass(frozen=True)
class CountsScorer:
    """A scikit-learn scorer ``scorer(estimator, X, y) -> float`` of one metric on label counts ``y``.

    The value is ``sign * mean_i metric(target_i, q_i)`` with ``q =
    estimator.predict_proba(X)`` and ``sign`` -1 for a metric where lower is
    better (greater is always better, as scikit-learn's ``neg_`` scorers);
    ``sample_weight`` (N,) weighs the mean. Build it with :func:`make_scorer`
    or :func:`get_scorer`.
    """

    metric: Metric
    prior: PriorLike = DEFAULT_PRIOR

    @property
    def name(self) -> str:
        """The scorer's name: ``neg_<metric>`` for a metric where lower is better."""
        return _scorer_name(self.metric)

    @property
    def sign(self) -> float:
        """-1.0 when the metric is negated (lower is better), else 1.0."""
        return -1.0 if self.metric.lower_is_better else 1.0

    def __call__(
        self, estimator: Any, X: Any, y: npt.ArrayLike, sample_weight: npt.ArrayLike | None = None
    ) -> float:
        """Score ``estimator`` on features ``X`` against label counts ``y`` (N, K)."""
        q = np.asarray(estimator.predict_proba(X), dtype=np.float64)
        values = score_counts(self.metric, y, q, prior=self.prior)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        return self.sign * float(np.average(values, weights=w))

    def __repr__(self) -> str:
        return f"make_scorer({self.metric.name!r})  # {self.name}, greater is better"

    def __reduce__(self) -> tuple[Any, tuple[str, PriorLike]]:
        # by name: the registry's functions are closures, which pickle (joblib's workers,
        # GridSearchCV(n_jobs=...)) cannot send
        return _by_name, (self.metric.name, self.prior)


def _by_name(metric: str, prior: PriorLike) -> CountsScorer:
    """The scorer of the registered ``metric`` (how a pickled scorer is rebuilt)."""
    return CountsScorer(get_metric(metric), prior)


def make_scorer(metric: str | Metric, *, prior: PriorLike = DEFAULT_PRIOR) -> CountsScorer:
    """The scorer of a registered metric, on label counts (see the module notes for the sign).

    ``metric``: a registry name (``"emd"``, ``"E[emd]"``, ``"debiased[emd]"``;
    not a scorer name); ``prior``: the Dirichlet prior of an expected metric's
    posteriors (:func:`dissensus.posterior.dirichlet`).

    Examples
    --------
    >>> make_scorer("debiased[emd]").name
    'neg_debiased[emd]'
    >>> make_scorer("intersection").name
    'intersection'
    """
    if isinstance(metric, str) and metric.lower().startswith(_NEG):
        msg = (
            f"make_scorer takes a metric name, not a scorer name: {metric!r} is "
            f"get_scorer({metric!r}), or make_scorer({metric[len(_NEG) :]!r})."
        )
        raise ValueError(msg)
    m = get_metric(metric)
    if m.unary:
        msg = f"Metric {m.name!r} takes the target only and cannot score predictions."
        raise ValueError(msg)
    return CountsScorer(m, prior)


def get_scorer_names() -> list[str]:
    """The scorer names of every registered two-argument metric, in registry order.

    Examples
    --------
    >>> "neg_debiased[emd]" in get_scorer_names(), "intersection" in get_scorer_names()
    (True, True)
    """
    return [_scorer_name(get_metric(name)) for name in list_metrics()]


def get_scorer(name: str, *, prior: PriorLike = DEFAULT_PRIOR) -> CountsScorer:
    """The scorer called ``name`` (:func:`get_scorer_names`; the metric part matched as :func:`~dissensus.metrics.get_metric` does).

    Examples
    --------
    >>> get_scorer("neg_E[emd]").metric.name
    'E[emd]'
    >>> get_scorer("emd")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Metric 'emd' is lower-is-better: its scorer is 'neg_emd' ...
    """
    negated = name.lower().startswith(_NEG)
    m = get_metric(name[len(_NEG) :] if negated else name)
    if negated != m.lower_is_better:
        want = _scorer_name(m)
        why = "lower-is-better" if m.lower_is_better else "higher-is-better"
        msg = (
            f"Metric {m.name!r} is {why}: its scorer is {want!r} (scores are negated exactly "
            "when lower is better, so that greater is better)."
        )
        raise ValueError(msg)
    return make_scorer(m, prior=prior)


Targets = Literal["expanded", "argmax"]


@dataclass(eq=False, repr=False)
class CountsClassifier(BaseEstimator):  # type: ignore[misc]
    """A scikit-learn classifier fitted on label counts, with one ``predict_proba`` column per class.

    ``fit(X, counts)`` fits a clone of ``estimator`` (in ``estimator_``) on
    hard labels made from the (N, K) counts: ``targets="expanded"`` gives
    each item one row per class it received, weighted by the share of its
    annotations (the soft cross-entropy for a multinomial loss, as
    :class:`~dissensus.models.SoftCrossEntropy`; the estimator's ``fit``
    must take ``sample_weight``), ``"argmax"`` one row with the majority
    label (the first on ties). ``predict_proba`` gives the K classes in
    order, 0 for a class no training item had. Not a scikit-learn
    classifier (its ``y`` is 2-D), so cross-validation splits by ``KFold``.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> X = np.array([[1.0], [-1.0]] * 10)
    >>> counts = np.array([[3, 1, 0], [0, 1, 3]] * 10)
    >>> CountsClassifier(LogisticRegression()).fit(X, counts).predict_proba(X[:2]).shape
    (2, 3)
    """

    estimator: Any
    _: KW_ONLY
    targets: Targets = "expanded"

    def fit(self, X: Any, y: npt.ArrayLike) -> Self:
        """Fit ``estimator`` on the labels made from the counts ``y`` (N, K)."""
        check_option("CountsClassifier", "targets", self.targets, ("expanded", "argmax"))
        counts = as_count_matrix(y, "y")
        n = counts.sum(axis=1)
        if (n == 0).any():
            r = int(np.flatnonzero(n == 0)[0])
            msg = (
                f"CountsClassifier.fit: row {r} of `y` has no annotation ({int((n == 0).sum())} "
                "rows in all); its labels are undefined. Drop these items."
            )
            raise DataError(msg)
        self.estimator_ = clone(self.estimator)
        if self.targets == "expanded":
            Xe, labels, weights = expand_soft_targets(X, counts / n[:, None])
            self.estimator_.fit(Xe, labels, sample_weight=weights)
        else:
            self.estimator_.fit(X, np.argmax(counts, axis=1))
        self.n_classes_ = counts.shape[1]
        return self

    def predict_proba(self, X: Any) -> FloatArray:
        """Predicted distributions (N, K), columns in class order."""
        if not hasattr(self, "estimator_"):
            msg = "This CountsClassifier is not fitted yet; call fit(X, counts) first."
            raise ValueError(msg)
        proba = np.asarray(self.estimator_.predict_proba(X), dtype=np.float64)
        out = np.zeros((proba.shape[0], self.n_classes_))
        out[:, np.asarray(self.estimator_.classes_, dtype=np.int64)] = proba
        return out
