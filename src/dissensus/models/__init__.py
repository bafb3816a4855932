"""Soft-label baseline models with the scikit-learn estimator API (extra ``models``).

Every model has ``fit(X, Y)`` with ``Y`` an (N, K) matrix of target
distributions, or label counts (a :class:`~dissensus.LabelCounts` or an
integer (N, K) array), and
``predict_proba(X) -> (N, K)``; fits are deterministic. The models of the
study of Magnani (2025), *Soft metrics for ordinal label uncertainty with
variable sample sizes* (ASSE 2025, ACM), as linear models over text features:

- A :class:`SoftCrossEntropy`: soft cross-entropy to the empirical distributions;
- B :class:`SmoothedKL`: KL to Gaussian-smoothed targets;
- C :class:`CumulativeLink`: proportional-odds ordinal model;
- D :class:`EMDRegression`: trained with the EMD loss;
- E :class:`ExpectedEMDRegression`: trained with the exact expected EMD under
  each item's Dirichlet posterior;

plus :class:`SoftNaiveBayes` (fractional counts), :class:`Marginal` and
:class:`Shrinkage` (a model blended with the marginal by annotation count),
and the featuriser :class:`TextFeatures`. Needs scikit-learn
(``pip install 'dissensus[models]'``); no PyTorch.

Parameters shared by the linear models: ``C`` (float, default 1.0), the
inverse L2 strength of scikit-learn's ``LogisticRegression``; ``max_iter``
(default 200) and ``tol`` (default 1e-5), the L-BFGS iterations and gradient
tolerance; ``n_classes`` (optional), the number of classes the targets must
have; ``n_jobs`` (default 1; None: every core), the BLAS / OpenMP threads
of the fit: one by default, since at this size the threads'
synchronisation costs more than it saves, far more on a busy machine
(MovieLens demo, 2 cores at load 10: 0.8 s with one thread, 9.5 s with
two). Fitted, they set ``n_iter_``, ``converged_`` and ``fit_time_``
(seconds in :meth:`fit`).
"""

from dissensus.models._base import Marginal, Shrinkage, Targets, as_targets
from dissensus.models._linear import (
    CumulativeLink,
    EMDRegression,
    ExpectedEMDRegression,
    SoftmaxRegression,
)
from dissensus.models._sklearn import (
    SmoothedKL,
    SoftCrossEntropy,
    SoftNaiveBayes,
    TextFeatures,
    expand_soft_targets,
)

__all__ = [
    "CumulativeLink",
    "EMDRegression",
    "ExpectedEMDRegression",
    "Marginal",
    "Shrinkage",
    "SmoothedKL",
    "SoftCrossEntropy",
    "SoftNaiveBayes",
    "SoftmaxRegression",
    "Targets",
    "TextFeatures",
    "as_targets",
    "expand_soft_targets",
]
