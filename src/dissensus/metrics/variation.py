r"""Human label variation: item entropy corrected for few annotators, its correlation with a model's, soft F1.

Per item (``(N, K)`` label counts in, ``(N,)`` out):

- :func:`entropy_miller_madow` and :func:`entropy_jackknife`: the entropy of
  the item's true label distribution :math:`\pi` estimated from ``n``
  annotations. The plug-in :math:`H(\hat p)` is biased low, by
  :math:`-(K-1)/(2n) + O(n^{-2})` (Miller 1955); Miller–Madow adds back the
  first-order term with the observed number of classes, the jackknife over
  annotations (Zahl 1977) removes the :math:`1/n` term whatever its
  coefficient. Registered as ``debiased[entropy]`` (``method="jackknife"``,
  the default, or ``"miller_madow"``), the debiased form of the unary
  ``entropy``. ``python -m dissensus.simulate.entropy_bias`` tabulates their
  exact bias (docs/entropy_bias.md).

Corpus level (one number for the corpus; ``Metric.corpus`` is true and
``list_metrics`` lists them with ``corpus=True``):

- ``entropy_correlation`` (:func:`entropy_correlation`): Pearson's correlation
  over items between the human entropy :math:`H(p_i)` and the model's
  :math:`H(q_i)` (Kurniawan et al. 2025 rank it among the metrics that agree
  best with human judgement). Its debiased form
  ``debiased[entropy_correlation]`` (:func:`entropy_correlation_corrected`)
  takes the counts: with few annotations the per-item entropy is a noisy
  estimate and the correlation is attenuated towards 0, so the correlation of
  the Miller–Madow entropies is divided by the square root of their
  split-half reliability (Spearman's 1904 correction for attenuation, with
  the Spearman–Brown step-up; the model's entropy is exact).
- ``soft_precision``, ``soft_recall``, ``soft_f1`` (:func:`soft_f1`): the
  fuzzy-set precision, recall and F1 of Harju and Mesaros (2023), whose micro
  average is the soft micro F1 of Kurniawan et al. (2025).

References
----------
Miller, G. A. (1955). Note on the bias of information estimates. In H. Quastler
(ed.), *Information Theory in Psychology*, 95–100. Free Press.

Zahl, S. (1977). Jackknifing an index of diversity. *Ecology* 58(4), 907–913.
doi:10.2307/1936227

Spearman, C. (1904). The proof and measurement of association between two
things. *Am. J. Psychol.* 15(1), 72–101. doi:10.2307/1412159

Spearman, C. (1910). Correlation calculated from faulty data. *Br. J. Psychol.*
3(3), 271–295. Brown, W. (1910). Some experimental results in the correlation
of mental abilities. *Br. J. Psychol.* 3(3), 296–322.

Harju, M. and Mesaros, A. (2023). Evaluating classification systems against
soft labels with fuzzy precision and recall. *DCASE 2023*. arXiv:2309.13938

Kurniawan, K., Mistica, M., Baldwin, T. and Lau, J. H. (2025). Training and
evaluating with human label variation: an empirical study. arXiv:2502.01891
(*Computational Linguistics* 52(1), 2026).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt

from dissensus._exceptions import DataError
from dissensus._validation import SeedLike, as_generator, check_option, examples, log_scale
from dissensus.metrics import _declare, debiased
from dissensus.metrics._pointwise import entropy
from dissensus.metrics._registry import _REGISTRY, REGISTRY, MetricFunc, register_metric

__all__ = [
    "entropy_correlation",
    "entropy_correlation_corrected",
    "entropy_jackknife",
    "entropy_miller_madow",
    "soft_f1",
    "soft_precision",
    "soft_recall",
    "split_halves",
]

FloatArray = npt.NDArray[np.float64]
EntropyMethod = Literal["jackknife", "miller_madow"]
_METHODS: tuple[EntropyMethod, ...] = ("jackknife", "miller_madow")
Average = Literal["micro", "macro"]
_AVERAGES: tuple[Average, ...] = ("micro", "macro")


def entropy_miller_madow(counts: npt.ArrayLike, /, *, base: float | None = None) -> FloatArray:
    r"""Miller–Madow entropy of each item's label distribution, from its label counts.

    :math:`\hat H_{MM} = H(\hat p) + (\hat m - 1) / (2n)`, with :math:`\hat p =
    n_k / n` and :math:`\hat m` the number of classes observed (Miller 1955).
    ``counts`` is (N, K) (or one row), at least one annotation per item
    (``DataError`` otherwise); natural log unless ``base`` is given.

    Examples
    --------
    >>> entropy_miller_madow([[1, 1], [2, 0]]).round(4).tolist()
    [0.9431, 0.0]
    """
    C, n, one = debiased._checked_counts(counts, "entropy_miller_madow")
    P = C / n[:, None]
    m = np.count_nonzero(C, axis=1).astype(np.float64)
    out: FloatArray = (entropy(P) + (m - 1.0) / (2.0 * n)) / log_scale("entropy", base)
    return out[0] if one else out


def entropy_jackknife(
    counts: npt.ArrayLike, /, *, base: float | None = None, return_variance: bool = False
) -> FloatArray | tuple[FloatArray, FloatArray]:
    r"""Jackknife (Zahl 1977) entropy of each item's label distribution, from its label counts.

    :math:`\hat H_J = n H(\hat p) - (n - 1) \sum_k (n_k / n) H(\hat p_{-k})`,
    :math:`\hat p_{-k} = (n - e_k)/(n - 1)`: the jackknife over annotations of
    :func:`dissensus.metrics.debiased.jackknife` (the same code) applied to the
    plug-in entropy. An item with one annotation gets NaN (the jackknife needs
    two); ``return_variance=True`` also returns each item's jackknife variance
    :math:`\frac{n-1}{n}\sum_k n_k (H(\hat p_{-k}) - \bar H_{(\cdot)})^2` (NaN
    for one annotation).

    Examples
    --------
    Two annotations of a fair coin: the plug-in entropy averages
    :math:`\ln 2 / 2`, the jackknife :math:`\ln 2` (exactly unbiased here).

    >>> entropy_jackknife([[1, 1], [2, 0]]).round(4).tolist()
    [1.3863, 0.0]
    """
    C, n, one = debiased._checked_counts(counts, "entropy_jackknife")
    met = dataclasses.replace(REGISTRY["entropy"], kernel=_entropy_of_first, func=_entropy_of_first)
    Q = np.broadcast_to(np.full(C.shape[1], 1.0 / C.shape[1]), C.shape)
    est, var = debiased._jackknife(met, C, n, Q, {}, want_variance=return_variance)
    unit = log_scale("entropy", base)
    est = np.where(n >= 2, est, np.nan) / unit
    if not return_variance:
        return est[0] if one else est
    v = cast("FloatArray", var) / unit**2
    return (est[0], v[0]) if one else (est, v)


def _entropy_of_first(P: FloatArray, Q: FloatArray, /) -> FloatArray:
    """The entropy of ``P`` as a two-argument kernel (the jackknife passes a prediction).

    The unchecked kernel: the jackknife's leave-one-out rows of weight 0 need not sum to 1.
    """
    return cast("MetricFunc", REGISTRY["entropy"].kernel)(P)


def _debiased_entropy(
    counts: npt.ArrayLike, /, *, method: EntropyMethod = "jackknife", base: float | None = None
) -> FloatArray:
    """``debiased[entropy]``: :func:`entropy_jackknife` or :func:`entropy_miller_madow`."""
    check_option("debiased[entropy]", "method", method, _METHODS)
    if method == "miller_madow":
        return entropy_miller_madow(counts, base=base)
    return cast("FloatArray", entropy_jackknife(counts, base=base))


# --------------------------------------------------------------------------- corpus level


def _pearson(x: FloatArray, y: FloatArray) -> float:
    xc, yc = x - x.mean(), y - y.mean()
    den = float(np.sqrt((xc @ xc) * (yc @ yc)))
    return float(xc @ yc) / den if den > 0 else float("nan")


def entropy_correlation(p_true: npt.ArrayLike, q_pred: npt.ArrayLike, /) -> float:
    r"""Pearson's correlation over items between :math:`H(p_i)` and :math:`H(q_i)`.

    ``p_true`` and ``q_pred`` are (N, K) distributions (as for any pointwise
    metric); NaN when either entropy is constant over items. Higher is better
    (the model is uncertain where humans disagree).

    Examples
    --------
    >>> round(entropy_correlation([[0.5, 0.5], [0.9, 0.1], [1.0, 0.0]],
    ...                           [[0.6, 0.4], [0.8, 0.2], [0.95, 0.05]]), 4)
    0.9817
    """
    P, Q, _ = _declare.pair(p_true, q_pred, normalize=False)
    return _pearson(entropy(P), entropy(Q))


def split_halves(
    counts: npt.ArrayLike, *, n_splits: int = 1, seed: SeedLike = 0
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    r"""Random splits of each item's annotations into two halves, as counts.

    Half A takes :math:`\lfloor n/2 \rfloor` of the item's ``n`` annotations
    drawn without replacement (a multivariate hypergeometric draw, one class
    at a time), half B the rest. Returns two ``(n_splits, N, K)`` count arrays
    (``n_splits`` independent seeded splits).

    Examples
    --------
    >>> a, b = split_halves([[3, 1], [2, 2]], n_splits=2, seed=0)
    >>> (a + b).tolist() == [[[3, 1], [2, 2]]] * 2, a.sum(axis=2).tolist()
    (True, [[2, 2], [2, 2]])
    """
    C = np.asarray(counts, dtype=np.int64)
    S = int(n_splits)
    rng = as_generator(seed)
    rep = np.broadcast_to(C, (S, *C.shape)).reshape(-1, C.shape[1])
    need = rep.sum(axis=1) // 2
    left = rep.sum(axis=1)
    A = np.zeros_like(rep)
    for k in range(C.shape[1] - 1):  # K sequential hypergeometric draws, vectorised over items
        A[:, k] = rng.hypergeometric(rep[:, k], left - rep[:, k], need)
        need = need - A[:, k]
        left = left - rep[:, k]
    A[:, -1] = need
    return A.reshape(S, *C.shape), (rep - A).reshape(S, *C.shape)


def entropy_correlation_corrected(
    counts: npt.ArrayLike, q_pred: npt.ArrayLike, /, *, n_splits: int = 20, seed: SeedLike = 0
) -> float:
    r"""The entropy correlation against the TRUE distributions, corrected for annotation noise.

    From ``counts`` (N, K; at least two annotations per item, ``DataError``
    otherwise) and the model's (N, K) ``q_pred``. The human entropy of item
    ``i`` is estimated by Miller–Madow, :math:`\hat H_i`
    (:func:`entropy_miller_madow`), whose sampling noise attenuates its
    correlation with the model's exact :math:`H(q_i)` towards 0. Spearman's
    (1904) correction divides by the square root of the reliability
    :math:`\lambda` of :math:`\hat H` (the share of its variance over items
    that is not annotation noise), estimated by split halves (Spearman 1910;
    Brown 1910): each item's annotations are split at random into two halves
    (:func:`split_halves`), :math:`\rho` is the correlation over items of the
    two halves' Miller–Madow entropies (averaged over ``n_splits`` seeded
    splits), and the Spearman–Brown formula steps it up to the full number of
    annotations:

    .. math::

        \lambda = \frac{2\rho}{1 + \rho}, \qquad
        r_c = \frac{r(\hat H, H(q))}{\sqrt{\lambda}} \text{ clipped to } [-1, 1].

    NaN when :math:`\rho \le 0` or is undefined: every item needs four or
    more annotations for halves of two (an entropy from one annotation is 0).
    The halves make the noise estimate free of a model of the noise (a
    per-item jackknife variance is 0 whenever an item's annotations agree and
    made the correction far too large). In the simulation of
    docs/entropy_bias.md (500 items, K = 4) it turns an error of -0.32 into
    +0.06 at 4 annotations per item and -0.15 into +0.02 at 10: most of the
    attenuation is removed, with a slight over-correction at few annotations.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> pi = rng.dirichlet([0.7, 0.7, 0.7], 2000)
    >>> q = 0.8 * pi + 0.2 / 3
    >>> C = rng.multinomial(10, pi)
    >>> truth = entropy_correlation(pi, q)
    >>> plug_in = entropy_correlation(C / 10, q)
    >>> corrected = entropy_correlation_corrected(C, q)
    >>> bool(abs(corrected - truth) < abs(plug_in - truth) / 2)
    True
    """
    C, n, _ = debiased._checked_counts(counts, "debiased[entropy_correlation]")
    if (n < 2).any():
        few = np.flatnonzero(n < 2)
        msg = (
            f"debiased[entropy_correlation]: {few.size} items have one annotation (rows "
            f"{examples(few.tolist())}); the noise correction needs two per item (four for a "
            "value). Drop these items or use entropy_correlation on the label shares."
        )
        raise DataError(msg)
    Q, _ = _declare.prediction_for(C, q_pred, "counts")
    r = _pearson(entropy_miller_madow(C), entropy(np.ascontiguousarray(Q)))
    A, B = split_halves(C, n_splits=n_splits, seed=seed)
    K = C.shape[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        ha = entropy_miller_madow(A.reshape(-1, K)).reshape(A.shape[:2])
        hb = entropy_miller_madow(B.reshape(-1, K)).reshape(B.shape[:2])
    ha_c = ha - ha.mean(axis=1, keepdims=True)
    hb_c = hb - hb.mean(axis=1, keepdims=True)
    den = np.sqrt((ha_c**2).sum(axis=1) * (hb_c**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = float(np.mean(np.where(den > 0, (ha_c * hb_c).sum(axis=1) / den, np.nan)))
    if not rho > 0:
        return float("nan")
    return float(np.clip(r / np.sqrt(2 * rho / (1 + rho)), -1.0, 1.0))


def _fuzzy(
    p_true: npt.ArrayLike, q_pred: npt.ArrayLike, average: str, func: str
) -> tuple[float, float]:
    """(precision, recall) with fuzzy true positives ``min(p, q)`` (Harju and Mesaros 2023)."""
    check_option(func, "average", average, _AVERAGES)
    P, Q, _ = _declare.pair(p_true, q_pred, normalize=False)
    tp = np.minimum(P, Q).sum(axis=0)  # per class
    pred, true = Q.sum(axis=0), P.sum(axis=0)
    if average == "micro":
        return float(tp.sum() / pred.sum()), float(tp.sum() / true.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.nanmean(tp / pred)), float(np.nanmean(tp / true))


def soft_precision(
    p_true: npt.ArrayLike, q_pred: npt.ArrayLike, /, *, average: Average = "micro"
) -> float:
    r"""Fuzzy precision :math:`\sum_i \min(p_{ik}, q_{ik}) / \sum_i q_{ik}` (see :func:`soft_f1`)."""
    return _fuzzy(p_true, q_pred, average, "soft_precision")[0]


def soft_recall(
    p_true: npt.ArrayLike, q_pred: npt.ArrayLike, /, *, average: Average = "micro"
) -> float:
    r"""Fuzzy recall :math:`\sum_i \min(p_{ik}, q_{ik}) / \sum_i p_{ik}` (see :func:`soft_f1`)."""
    return _fuzzy(p_true, q_pred, average, "soft_recall")[1]


def soft_f1(
    p_true: npt.ArrayLike, q_pred: npt.ArrayLike, /, *, average: Average = "micro"
) -> float:
    r"""Soft (fuzzy-set) F1 of predicted label distributions against human ones, over the corpus.

    Fuzzy-set counts (Harju and Mesaros 2023; the soft micro F1 of Kurniawan
    et al. 2025): per class :math:`k`, :math:`TP_k = \sum_i \min(p_{ik},
    q_{ik})`, precision :math:`TP_k / \sum_i q_{ik}`, recall :math:`TP_k /
    \sum_i p_{ik}`, F1 their harmonic mean. ``average="micro"`` sums
    :math:`TP`, predictions and targets over the classes first; ``"macro"``
    averages the per-class precision and recall (classes with no mass are
    skipped) and takes F1 of the averages. With rows that sum to one the micro
    precision, recall and F1 coincide: :math:`1 - \overline{TV}`, one minus the
    mean total-variation distance. Higher is better; in
    [0, 1]. These are corpus-level scores (one number): not a mean of per-item
    scores.

    Examples
    --------
    >>> p, q = [[0.5, 0.5], [1.0, 0.0]], [[0.7, 0.3], [0.6, 0.4]]
    >>> round(soft_f1(p, q), 4), round(soft_f1(p, q, average="macro"), 4)
    (0.7, 0.6517)
    """
    prec, rec = _fuzzy(p_true, q_pred, average, "soft_f1")
    return 2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0


# --------------------------------------------------------------------------- registration


def _register() -> None:
    register_metric(
        "debiased[entropy]",
        _debiased_entropy,
        lower_is_better=False,
        kind="debiased",
        pointwise="entropy",
        unary=True,
        label="deb[H]",
        description="entropy of the true label distribution, bias-corrected from the counts "
        "(jackknife, or method='miller_madow')",
        formula="n H(p̂) − (n − 1) Σ_k (n_k / n) H(p̂₋ₖ); Miller–Madow: H(p̂) + (m̂ − 1)/(2n)",
    )
    _REGISTRY["entropy"] = dataclasses.replace(REGISTRY["entropy"], debiased="debiased[entropy]")
    corpus: dict[str, tuple[Any, str, str]] = {
        "entropy_correlation": (
            entropy_correlation,
            "r(H)",
            "Pearson correlation over items of H(p) and H(q)",
        ),
        "soft_precision": (soft_precision, "soft P", "fuzzy-set precision Σ min(p, q) / Σ q"),
        "soft_recall": (soft_recall, "soft R", "fuzzy-set recall Σ min(p, q) / Σ p"),
        "soft_f1": (soft_f1, "soft F1", "fuzzy-set F1 (micro: 1 − mean total variation)"),
    }
    for name, (func, label, formula) in corpus.items():
        register_metric(
            name,
            cast("MetricFunc", func),
            lower_is_better=False,
            bounds=(-1.0, 1.0) if name == "entropy_correlation" else (0.0, 1.0),
            symmetric=name == "entropy_correlation",
            corpus=True,
            label=label,
            description=f"corpus-level {formula}",
            formula=formula,
        )
    register_metric(
        "debiased[entropy_correlation]",
        cast("MetricFunc", entropy_correlation_corrected),
        lower_is_better=False,
        bounds=(-1.0, 1.0),
        kind="debiased",
        pointwise="entropy_correlation",
        corpus=True,
        label="deb[r(H)]",
        description="corpus-level correlation of the Miller-Madow item entropy with the "
        "model's, disattenuated by its split-half reliability (Spearman 1904, Spearman-Brown)",
        formula="r(Ĥ_MM, H(q)) / √(2ρ / (1 + ρ)), ρ = r(Ĥ_half A, Ĥ_half B)",
    )
    _REGISTRY["entropy_correlation"] = dataclasses.replace(
        REGISTRY["entropy_correlation"], debiased="debiased[entropy_correlation]"
    )


_register()
