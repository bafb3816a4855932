"""Pointwise soft metrics: one score per item from a target and a predicted distribution.

Each is declared once, on its row kernel, with
:func:`~dissensus.metrics._declare.pointwise_metric` (public function,
docstring, registry entry). Notation (Magnani 2025; Rizzi et al. 2024): ``p``
the target label distribution of an item, ``q`` the predicted one, rows of (N,
K) matrices on the simplex, taken as ``(p_true, q_pred)`` (sklearn's order);
``P_k``, ``Q_k`` their cumulative sums over the first ``k`` classes; ``m = (p +
q) / 2``. Logs are natural unless ``base`` is given, ``0 ln 0 = 0``. The
metrics with the log of a probability that may be 0 take a zero policy,
``zero="inf"`` (exact) or ``zero="clip"`` (the LeWiDi 2023 scorer also adds
1e-9 inside the log: :func:`dissensus.metrics.lewidi.cross_entropy_2023`). The
others are finite for every input: JS takes logs of ``p / m`` only where ``p >
0``, Clark, Canberra and the squared chi-square drop a class that both give 0.

References: Magnani, A. (2025). Soft metrics for ordinal label uncertainty
with variable sample sizes. ASSE 2025, ACM. Rizzi et al. (2024): see
:func:`js_distance`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from dissensus._validation import log_scale
from dissensus.metrics._declare import (
    FloatArray,
    ZeroPolicy,
    clip,
    pointwise_metric,
    rowsum,
)
from dissensus.metrics._registry import list_metrics

_EMD_COLUMN_LOOP_MAX_K = 16
Rows = FloatArray

_RIZZI = (
    "Rizzi, G., Leonardelli, E., Poesio, M., Uma, A., Pavlovic, M., Paun, S., Rosso, P. and "
    "Fersini, E. (2024). Soft metrics for evaluation with disagreements: an assessment. Proc. "
    "3rd Workshop on Perspectivist Approaches to NLP (NLPerspectives) at LREC-COLING 2024."
)
_GENG = (
    "Geng, X. (2016). Label distribution learning. IEEE Trans. Knowl. Data Eng. 28(7), "
    "1734–1748. doi:10.1109/TKDE.2016.2545658"
)
_CHA = (
    "Cha, S.-H. (2007). Comprehensive survey on distance/similarity measures between "
    "probability density functions. Int. J. Math. Models Methods Appl. Sci. 1(4), 300–307."
)
_KL = (
    "Kullback, S. and Leibler, R. A. (1951). On information and sufficiency. Ann. Math. "
    "Statist. 22(1), 79–86. doi:10.1214/aoms/1177729694"
)


def _neg_rowsum(x: npt.NDArray[np.floating[Any]]) -> FloatArray:
    # 0 - s rather than -s: a zero entropy prints as 0., not -0.
    s = rowsum(x)
    np.subtract(0.0, s, out=s)
    return s


def _xlogy(X: FloatArray, Y: FloatArray) -> FloatArray:
    """Elementwise ``x ln y``, ``0 ln y = 0``: :func:`scipy.special.xlogy` for ``x, y >= 0``, faster."""
    with np.errstate(divide="ignore"):
        L = np.log(Y)
    np.copyto(L, 0.0, where=X == 0.0)
    L *= X
    return L


def _rel_entr(X: FloatArray, Y: FloatArray) -> FloatArray:
    """Elementwise ``x ln(x / y)``, ``0 ln(0 / y) = 0``: :func:`scipy.special.rel_entr`, bit for bit.

    Where ``x / y`` overflows although ``y > 0`` (``y`` subnormal) the term is
    ``x (ln x - ln y)``, finite, as scipy's is.
    """
    # The overflow flag, not a scan of the result, tells whether the rare fix is needed.
    with np.errstate(divide="ignore", invalid="ignore", over="raise"):
        try:
            R = X / Y
            overflow = False
        except FloatingPointError:
            with np.errstate(over="ignore"):
                R = X / Y
            overflow = True
    np.copyto(R, 1.0, where=X == 0.0)
    with np.errstate(divide="ignore"):
        if overflow:
            fix = np.isposinf(R) & (Y > 0.0)
            R[fix] = 1.0
            np.log(R, out=R)
            R[fix] = np.log(X[fix]) - np.log(Y[fix])
        else:
            np.log(R, out=R)
    R *= X
    return R


def _in_base(d: FloatArray, base: float | None) -> FloatArray:
    if base is not None:
        d /= log_scale("", base)  # checked by the declaration
    return d


def _jsd(P: FloatArray, Q: FloatArray, base: float | None) -> FloatArray:
    M = P + Q
    M *= 0.5
    t = _rel_entr(P, M)
    t += _rel_entr(Q, M)
    d = rowsum(t)
    # KL(p||m) >= 0; a rounding error of 1e-17 must not turn into NaN under sqrt.
    np.maximum(d, 0.0, out=d)
    d *= 0.5 / log_scale("js_divergence", base)
    return d


def _abs_diff(P: FloatArray, Q: FloatArray) -> FloatArray:
    D = P - Q
    np.abs(D, out=D)
    return D


def _sq_diff(P: FloatArray, Q: FloatArray) -> FloatArray:
    D = P - Q
    D *= D
    return D


def _ratio_terms(P: FloatArray, Q: FloatArray) -> FloatArray:
    """|p - q| / (p + q), with the 0/0 term (class absent from both) set to 0."""
    num = _abs_diff(P, Q)
    den = P + Q
    # den == 0 only where p_i = q_i = 0, and there num == 0 stays as it is.
    np.divide(num, den, out=num, where=den > 0.0)
    return num


@pointwise_metric(
    "cross_entropy",
    formula="−Σ p_k ln q_k",
    label="CE",
    description="cross-entropy H(p, q), natural log",
    bounds=(0.0, math.inf),
    symmetric=False,
    degree=1,
    difference_degree=1,
    notes="Not 0 for a perfect prediction: ``H(p, q) >= H(p, p) = H(p)``.",
    references=[
        "Cover, T. M. and Thomas, J. A. (2006). Elements of Information Theory, 2nd ed. "
        "Wiley. doi:10.1002/047174882X"
    ],
    examples="""
        >>> cross_entropy([0.7, 0.3], [1.0, 0.0])
        np.float64(inf)
        >>> round(float(cross_entropy([0.7, 0.3], [1.0, 0.0], zero="clip")), 4)
        8.2893
        >>> cross_entropy([[0.5, 0.5], [0.9, 0.1]], [[0.5, 0.5], [0.9, 0.1]])
        array([0.693147, 0.325083])
    """,
)
def cross_entropy(
    P: Rows, Q: Rows, /, *, zero: ZeroPolicy = "inf", eps: float = 1e-12, base: float | None = None
) -> Rows:
    return _in_base(_neg_rowsum(_xlogy(P, clip("cross_entropy", Q, zero, eps))), base)


@pointwise_metric(
    "kl_divergence",
    formula="Σ p_k ln(p_k / q_k)",
    label="KL",
    description="Kullback-Leibler divergence KL(p || q)",
    bounds=(0.0, math.inf),
    symmetric=False,
    debiased="jackknife",
    difference_degree=1,
    notes="""
        ``= H(p, q) − H(p)``; 0 iff ``p == q``; term by term as :func:`scipy.special.rel_entr`.
        With ``zero="clip"`` a finite value can be lower by about ``eps`` (-1e-13 for 0).
    """,
    references=[_KL],
    examples="""
        Magnani (2025), example 2 (natural logs; the paper prints 0.97, which is wrong):

        >>> kl_divergence([0, 0.8, 0.2, 0, 0], [0, 0.2, 0.8, 0, 0])
        np.float64(0.831777)
        >>> kl_divergence([0.5, 0.5], [1.0, 0.0])
        np.float64(inf)
    """,
)
def kl_divergence(
    P: Rows, Q: Rows, /, *, zero: ZeroPolicy = "inf", eps: float = 1e-12, base: float | None = None
) -> Rows:
    return _in_base(rowsum(_rel_entr(P, clip("kl_divergence", Q, zero, eps))), base)


@pointwise_metric(
    "kl_divergence_reverse",
    formula="Σ q_k ln(q_k / p_k)",
    label="KL(q||p)",
    description="reverse Kullback-Leibler divergence KL(q || p)",
    bounds=(0.0, math.inf),
    symmetric=False,
    clips="p",
    notes="""
        The arguments keep the (target, prediction) order; the zero policy applies to ``p``:
        ``zero="inf"`` gives ``inf`` where a prediction puts mass where no annotator did.
    """,
    references=[_KL],
    examples="""
        >>> kl_divergence_reverse([0.5, 0.5], [0.9, 0.1])
        np.float64(0.368064)
        >>> kl_divergence_reverse([1.0, 0.0], [0.9, 0.1])
        np.float64(inf)
    """,
)
def kl_divergence_reverse(
    P: Rows, Q: Rows, /, *, zero: ZeroPolicy = "inf", eps: float = 1e-12, base: float | None = None
) -> Rows:
    return _in_base(rowsum(_rel_entr(Q, clip("kl_divergence_reverse", P, zero, eps))), base)


@pointwise_metric(
    "js_divergence",
    formula="½ KL(p‖m) + ½ KL(q‖m), m = (p + q)/2",
    label="JSD",
    description="Jensen-Shannon divergence, natural log (max ln 2)",
    bounds=(0.0, math.log(2.0)),
    debiased="jackknife",
    notes="""
        Always finite (no zero policy). This is the divergence; scipy's ``jensenshannon``
        and the "Jensen-Shannon" of Rizzi et al. (2024) are its square root, :func:`js_distance`.
    """,
    references=[
        "Lin, J. (1991). Divergence measures based on the Shannon entropy. IEEE Trans. Inf. "
        "Theory 37(1), 145–151. doi:10.1109/18.61115"
    ],
    examples="""
        >>> js_divergence([1.0, 0.0], [0.0, 1.0])
        np.float64(0.693147)
        >>> js_divergence([1.0, 0.0], [0.0, 1.0], base=2)
        np.float64(1.0)
    """,
)
def js_divergence(P: FloatArray, Q: FloatArray, /, *, base: float | None = None) -> FloatArray:
    return _jsd(P, Q, base)


@pointwise_metric(
    "js_distance",
    formula="√JSD(p, q)",
    label="JS distance",
    description="Jensen-Shannon distance, sqrt of the divergence (scipy's jensenshannon)",
    bounds=(0.0, math.sqrt(math.log(2.0))),
    debiased="jackknife",
    notes="A metric (triangle inequality), unlike the divergence.",
    references=[
        "Endres, D. M. and Schindelin, J. E. (2003). A new metric for probability "
        "distributions. IEEE Trans. Inf. Theory 49(7), 1858–1860. doi:10.1109/TIT.2003.813506",
        _RIZZI,
    ],
    examples="""
        Rizzi et al. (2024), example 3:

        >>> js_distance([[0.9, 0.1], [0.9, 0.1], [0.7, 0.3]], [[0.7, 0.3], [1, 0], [1, 0]]).round(4)
        array([0.1801, 0.1897, 0.3425])
    """,
)
def js_distance(P: FloatArray, Q: FloatArray, /, *, base: float | None = None) -> FloatArray:
    return np.sqrt(_jsd(P, Q, base))


@pointwise_metric(
    "manhattan",
    formula="Σ |p_k − q_k|",
    label="L1",
    description="Manhattan (L1) distance",
    bounds=(0.0, 2.0),
    debiased="jackknife",
    notes="Twice the total variation distance (:func:`dissensus.metrics.lewidi.average_md`).",
    references=[_RIZZI],
    examples="""
        Rizzi et al. (2024), example 6:

        >>> manhattan([0, 0.1, 0.1, 0.8], [[0.1, 0.3, 0.2, 0.4], [0, 0.1, 0.5, 0.4]])
        array([0.8, 0.8])
    """,
)
def manhattan(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    return rowsum(_abs_diff(P, Q))


@pointwise_metric(
    "euclidean",
    formula="√Σ (p_k − q_k)²",
    label="L2",
    description="Euclidean (L2) distance",
    bounds=(0.0, math.sqrt(2.0)),
    debiased="jackknife",
    references=[_RIZZI],
    examples="""
        Rizzi et al. (2024), example 7:

        >>> euclidean([0, 0.1, 0.4, 0.5], [[0.1, 0.2, 0.3, 0.4], [0, 0.1, 0.5, 0.4]])
        array([0.2     , 0.141421])
    """,
)
def euclidean(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    return np.sqrt(rowsum(_sq_diff(P, Q)))


@pointwise_metric(
    "squared_euclidean",
    formula="Σ (p_k − q_k)²",
    label="L2²",
    description="squared Euclidean distance (multi-class Brier score)",
    bounds=(0.0, 2.0),
    degree=2,
    difference_degree=1,
    notes="Unlike the Euclidean distance, it has a closed-form expectation under a Dirichlet.",
    references=[
        "Brier, G. W. (1950). Verification of forecasts expressed in terms of probability. "
        "Mon. Weather Rev. 78(1), 1–3. doi:10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2"
    ],
    examples=">>> squared_euclidean([1.0, 0.0], [0.5, 0.5])\nnp.float64(0.5)",
)
def squared_euclidean(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    return rowsum(_sq_diff(P, Q))


@pointwise_metric(
    "emd",
    formula="Σ_k |P_k − Q_k| / (K − 1), P, Q cumulative",
    label="EMD",
    description="earth mover's distance on ordered classes, ground distance |i-j|/(K-1)",
    bounds=(0.0, 1.0),
    needs_order=True,
    debiased="jackknife",
    options={
        "normalized_distance": (
            "bool",
            "Ground distance ``|i − j| / (K − 1)`` (Magnani 2025; in [0, 1]) when True; "
            "``|i − j|`` (``scipy.stats.wasserstein_distance`` on ``range(K)``, LeWiDi 2025 "
            "``average_WS``; in [0, K − 1]) when False.",
        )
    },
    notes="""
        The classes are the columns in order; k runs over 1..K − 1. In one dimension the
        transport cost is this sum over cumulative distributions (Vallender 1974); 0 for K = 1.
    """,
    references=[
        "Rubner, Y., Tomasi, C. and Guibas, L. J. (2000). The earth mover's distance as a "
        "metric for image retrieval. Int. J. Comput. Vis. 40(2), 99–121. "
        "doi:10.1023/A:1026543900054",
        "Vallender, S. S. (1974). Calculation of the Wasserstein distance between probability "
        "distributions on the line. Theory Probab. Appl. 18(4), 784–786. doi:10.1137/1118101",
    ],
    examples="""
        Magnani (2025), example 2: same KL, different ordinal error.

        >>> p = [[0, 0.8, 0.2, 0, 0], [0, 0.8, 0, 0, 0.2]]
        >>> q = [[0, 0.2, 0.8, 0, 0], [0, 0.2, 0, 0, 0.8]]
        >>> emd(p, q)
        array([0.15, 0.45])
        >>> emd(p, q, normalized_distance=False)
        array([0.6, 1.8])
    """,
)
def emd(P: FloatArray, Q: FloatArray, /, *, normalized_distance: bool = True) -> FloatArray:
    K = P.shape[1]
    D = P - Q
    if K == 1:
        d = np.zeros(P.shape[0])
    elif K <= _EMD_COLUMN_LOOP_MAX_K:
        # A running sum over columns beats np.cumsum(axis=1), whose inner loop is only K long.
        run = D[:, 0].copy()
        d = np.abs(run)
        for k in range(1, K - 1):
            run += D[:, k]
            d += np.abs(run)
    else:
        C = np.cumsum(D[:, :-1], axis=1)
        np.abs(C, out=C)
        d = rowsum(C)
    if normalized_distance and K > 1:
        d /= K - 1
    return d


@pointwise_metric(
    "rps",
    formula="Σ_k (P_k − Q_k)² / (K − 1), P, Q cumulative",
    label="RPS",
    description="ranked probability score, squared distance between cumulative distributions",
    bounds=(0.0, 1.0),
    needs_order=True,
    degree=2,
    difference_degree=1,
    notes="""
        The ordinal counterpart of the Brier score (:func:`squared_euclidean`): the classes are
        the columns in order, k runs over 1..K − 1, and the sum is divided by K − 1 so that the
        score lies in [0, 1] for every K (0 for K = 1). At K = 2 it is ``(p_1 − q_1)²``, the
        binary Brier score, half the two-class :func:`squared_euclidean`. A polynomial of degree
        2 in ``p``: ``debiased[rps]`` is its exact U-statistic from 2 annotations per item, and
        the difference between two predictions is linear in ``p``.
    """,
    references=[
        "Epstein, E. S. (1969). A scoring system for probability forecasts of ranked "
        "categories. J. Appl. Meteorol. 8(6), 985–987. "
        "doi:10.1175/1520-0450(1969)008<0985:ASSFPF>2.0.CO;2",
        "Murphy, A. H. (1971). A note on the ranked probability score. J. Appl. Meteorol. "
        "10(1), 155–156. doi:10.1175/1520-0450(1971)010<0155:ANOTRP>2.0.CO;2",
    ],
    examples="""
        Same KL, different ordinal error (Magnani 2025, example 2):

        >>> p = [[0, 0.8, 0.2, 0, 0], [0, 0.8, 0, 0, 0.2]]
        >>> q = [[0, 0.2, 0.8, 0, 0], [0, 0.2, 0, 0, 0.8]]
        >>> rps(p, q)
        array([0.09, 0.27])
        >>> rps([1.0, 0.0], [0.5, 0.5])
        np.float64(0.25)
    """,
)
def rps(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    K = P.shape[1]
    if K == 1:
        return np.zeros(P.shape[0])
    D = P - Q
    # a running sum over the columns, as in emd (np.cumsum(axis=1) has K-long inner loops)
    run = D[:, 0].copy()
    d = run * run
    for k in range(1, K - 1):
        run += D[:, k]
        d += run * run
    d /= K - 1
    return d


@pointwise_metric(
    "chebyshev",
    formula="max_k |p_k − q_k|",
    label="L∞",
    description="Chebyshev distance, largest per-class difference",
    bounds=(0.0, 1.0),
    debiased="jackknife",
    references=[_GENG],
    examples=">>> chebyshev([0.2, 0.5, 0.3], [0.4, 0.4, 0.2])\nnp.float64(0.2)",
)
def chebyshev(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    D = _abs_diff(P, Q)
    # A running maximum over the K columns beats max(axis=1), whose inner loop is only K long.
    m = D[:, 0].copy()
    for k in range(1, D.shape[1]):
        np.maximum(m, D[:, k], out=m)
    return m


@pointwise_metric(
    "clark",
    formula="√Σ ((p_k − q_k) / (p_k + q_k))²",
    label="Clark",
    description="Clark distance (at most sqrt(K))",
    bounds=(0.0, math.inf),
    k_bound="√K",
    debiased="jackknife",
    notes="A class with ``p_k = q_k = 0`` contributes 0 (as ``scipy.spatial.distance.canberra``).",
    references=[_GENG],
    examples=">>> clark([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])\nnp.float64(1.414214)",
)
def clark(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    R = _ratio_terms(P, Q)
    R *= R
    return np.sqrt(rowsum(R))


@pointwise_metric(
    "canberra",
    formula="Σ |p_k − q_k| / (p_k + q_k)",
    label="Canberra",
    description="Canberra distance (at most K)",
    bounds=(0.0, math.inf),
    k_bound="K",
    debiased="jackknife",
    notes="A class with ``p_k = q_k = 0`` contributes 0, as in ``scipy.spatial.distance.canberra``.",
    references=[
        "Lance, G. N. and Williams, W. T. (1967). Mixed-data classificatory programs I. "
        "Agglomerative systems. Aust. Comput. J. 1(1), 15–20.",
        _GENG,
    ],
    examples=">>> canberra([0.5, 0.5, 0.0], [0.25, 0.25, 0.5])\nnp.float64(1.666667)",
)
def canberra(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    return rowsum(_ratio_terms(P, Q))


@pointwise_metric(
    "cosine",
    formula="p·q / (‖p‖ ‖q‖)",
    label="cosine",
    description="cosine similarity (higher is better)",
    bounds=(0.0, 1.0),
    lower_is_better=False,
    debiased="jackknife",
    notes="1 iff ``p == q``; a similarity, not scipy's cosine distance ``1 − cosine(p, q)``.",
    references=[_GENG],
    examples=">>> cosine([1.0, 0.0], [0.5, 0.5])\nnp.float64(0.707107)",
)
def cosine(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    dot = np.einsum("ij,ij->i", P, Q)
    pp = np.einsum("ij,ij->i", P, P)
    qq = np.einsum("ij,ij->i", Q, Q)
    pp *= qq
    c: FloatArray = dot / np.sqrt(pp)
    # Rounding can push p·p/(|p||p|) a hair above 1.
    np.minimum(c, 1.0, out=c)
    return c


@pointwise_metric(
    "intersection",
    formula="Σ min(p_k, q_k)",
    label="∩",
    description="intersection similarity, sum of min(p_i, q_i) (higher is better)",
    bounds=(0.0, 1.0),
    lower_is_better=False,
    debiased="jackknife",
    notes="``= 1 − ½ L1(p, q)``; 1 iff ``p == q``.",
    references=[_GENG],
    examples=">>> intersection([0.2, 0.5, 0.3], [0.4, 0.4, 0.2])\nnp.float64(0.8)",
)
def intersection(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    return rowsum(np.minimum(P, Q))


@pointwise_metric(
    "sorensen",
    formula="Σ |p_k − q_k| / Σ (p_k + q_k)",
    label="Sørensen",
    description="Sørensen (Bray-Curtis) distance, half the L1 on the simplex",
    bounds=(0.0, 1.0),
    notes="""
        ``scipy.spatial.distance.braycurtis``; on the simplex ``½ L1(p, q) = 1 − ∩(p, q)``, so it
        ranks as Manhattan and intersection do.
    """,
    references=[_CHA, _GENG],
    examples=">>> sorensen([0.2, 0.5, 0.3], [0.4, 0.4, 0.2])\nnp.float64(0.2)",
)
def sorensen(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    num = rowsum(_abs_diff(P, Q))
    num /= rowsum(P + Q)
    return num


@pointwise_metric(
    "squared_chi2",
    formula="Σ (p_k − q_k)² / (p_k + q_k)",
    label="χ²sq",
    description="squared chi-square distance, sum (p_i - q_i)^2 / (p_i + q_i)",
    bounds=(0.0, 2.0),
    notes="The triangular discrimination: symmetric, unlike Pearson's or Neyman's chi-square.",
    references=[_CHA, _GENG],
    examples=">>> squared_chi2([0.5, 0.5, 0.0], [0.25, 0.25, 0.5])\nnp.float64(0.666667)",
)
def squared_chi2(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    D = _sq_diff(P, Q)
    den = P + Q
    # den == 0 only where p_i = q_i = 0, whose term (0/0) is 0 and stays 0.
    np.divide(D, den, out=D, where=den > 0.0)
    return rowsum(D)


@pointwise_metric(
    "fidelity",
    formula="Σ √(p_k q_k)",
    label="fidelity",
    description="fidelity similarity, sum sqrt(p_i q_i) (higher is better)",
    bounds=(0.0, 1.0),
    lower_is_better=False,
    notes="1 iff ``p == q``, 0 for disjoint supports; ``1 − H(p, q)²``, ``H`` :func:`hellinger`.",
    references=[
        _CHA,
        "Bhattacharyya, A. (1943). On a measure of divergence between two statistical "
        "populations defined by their probability distributions. Bull. Calcutta Math. Soc. 35, "
        "99–109.",
    ],
    examples="""
        >>> fidelity([0.5, 0.5], [0.5, 0.5]), fidelity([0.25, 0.75], [0.75, 0.25])
        (np.float64(1.0), np.float64(0.866025))
    """,
)
def fidelity(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    F = P * Q
    np.sqrt(F, out=F)
    f = rowsum(F)
    # Rounding can push the sum of sqrt(p_i p_i) a hair above 1.
    np.minimum(f, 1.0, out=f)
    return f


@pointwise_metric(
    "hellinger",
    formula="√(½ Σ (√p_k − √q_k)²)",
    label="Hellinger",
    description="Hellinger distance, normalised to [0, 1]",
    bounds=(0.0, 1.0),
    debiased="jackknife",
    notes="``= √(1 − Σ_k √(p_k q_k))``, computed from differences of square roots.",
    references=[
        "Hellinger, E. (1909). Neue Begründung der Theorie quadratischer Formen von "
        "unendlichvielen Veränderlichen. J. Reine Angew. Math. 136, 210–271. "
        "doi:10.1515/crll.1909.136.210"
    ],
    examples=">>> hellinger([1.0, 0.0], [0.0, 1.0])\nnp.float64(1.0)",
)
def hellinger(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    D = np.sqrt(P)
    D -= np.sqrt(Q)
    D *= D
    s = rowsum(D)
    s *= 0.5
    np.sqrt(s, out=s)
    return s


@pointwise_metric(
    "entropy",
    formula="−Σ p_k ln p_k",
    label="H",
    description="Shannon entropy of the target (one argument)",
    bounds=(0.0, math.inf),
    k_bound="ln K",
    symmetric=False,
    notes="Equal to ``scipy.stats.entropy(p, axis=1)`` for rows on the simplex.",
    references=[
        "Shannon, C. E. (1948). A mathematical theory of communication. Bell Syst. Tech. J. "
        "27(3), 379–423. doi:10.1002/j.1538-7305.1948.tb01338.x"
    ],
    examples="""
        >>> entropy([[0.5, 0.5], [1.0, 0.0]])
        array([0.693147, 0.      ])
        >>> entropy([0.25, 0.25, 0.25, 0.25], base=2)
        np.float64(2.0)
    """,
)
def entropy(P: FloatArray, /, *, base: float | None = None) -> FloatArray:
    return _in_base(_neg_rowsum(_xlogy(P, P)), base)


#: The public functions are made in _declare.py: doctest them from here.
__test__ = {name: globals()[name] for name in list_metrics(kind="pointwise", unary=None)}
