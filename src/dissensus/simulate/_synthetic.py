r"""Synthetic annotated data with KNOWN true label distributions, and candidate models.

Notation. ``N`` items, ``K`` classes; ``pi`` the (N, K) true label
distribution of each item (what annotators would say in the limit of
infinitely many); ``n`` the (N,) annotations per item; ``counts`` the
observed (N, K) counts, ``counts[i] ~ Multinomial(n_i, pi_i)``.

Truth families (``truth=``), each a documented distribution of ``pi_i``:

``"mixture"``
    A Dirichlet mixture with :math:`K + 1` components. Component ``k``
    (weight :math:`0.75 / K`) is :math:`\mathrm{Dir}(4 m_k)` with mean
    :math:`m_k = 0.7 e_k + 0.3 / K`: items on which most annotators choose
    class ``k`` and a minority scatter; the last component (weight 0.25) is
    :math:`\mathrm{Dir}(1, \dots, 1)`: genuinely ambiguous items.
``"ordinal"``
    Peaked, unimodal distributions on an ordered scale: centre
    :math:`c \sim U(0, K - 1)`, width :math:`\sigma \sim \mathrm{LogU}(0.3, 1.5)`
    class steps, :math:`\pi_k \propto \exp(-(k - c)^2 / (2\sigma^2))`.
``"skewed"``
    ConvAbuse-like: :math:`\mathrm{Dir}(s\,m)` with strength :math:`s = 1.5`
    and mean ``m`` the ConvAbuse label marginal (0.022, 0.072, 0.063,
    0.052, 0.789) for ``K = 5``; for other ``K``, 0.8 on the last class and
    0.2 spread evenly over the others. Most items are near-unanimous on
    the majority class.
``"flat"``
    Near-uniform: :math:`\mathrm{Dir}(10, \dots, 10)`.
``"uniform"``, ``"jeffreys"``
    :math:`\mathrm{Dir}(1, \dots, 1)` and :math:`\mathrm{Dir}(1/2, \dots, 1/2)`:
    the families of the uniform and Jeffreys priors (coverage checks).
an array of shape (K,)
    :math:`\mathrm{Dir}(\text{truth})`.

Annotation counts (``n_annotations="zipf"``): a discrete power law on
``n_range = (lo, hi)`` (default 2 to 1,000),
:math:`P(n) \propto n^{-s}` with ``s = zipf_exponent`` (default 2). With
the defaults 39% of items have 2 annotations, about 85% have at most 10,
1.5% more than 100 (like the ratings studied by Magnani 2025: many items
with a handful of ratings, a long tail of popular ones).

Candidate models (:data:`CANDIDATES`) are functions of the truth and a
seed, at controlled distances from it, each mixed with the uniform
distribution at weight ``floor`` (default 1e-3) so that no prediction is 0
and log-based metrics stay finite (no trained model outputs an exact 0).

Every function takes ``seed`` (int, Generator or None, default 0): the same
seed gives the same draws.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._dirichlet import draw_rows
from dissensus._validation import SeedLike, as_generator, check_option, examples
from dissensus.data import Annotations, LabelCounts, Scale
from dissensus.posterior import soft_labels

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
TruthLike = Literal["mixture", "ordinal", "skewed", "flat", "uniform", "jeffreys"] | npt.ArrayLike

TRUTH_FAMILIES: tuple[str, ...] = ("mixture", "ordinal", "skewed", "flat", "uniform", "jeffreys")
#: The ConvAbuse label marginal (Cercas Curry, Abercrombie and Rieser, EMNLP 2021),
#: ordered from most to least abusive.
_CONVABUSE_MARGINAL = (0.022, 0.072, 0.063, 0.052, 0.789)
_SKEW_STRENGTH = 1.5


def check_integer(func: str, name: str, value: Any, low: int = 1) -> int:
    """A whole number >= ``low`` (sizes, replicates), or ValueError naming the parameter."""
    if isinstance(value, bool) or int(value) != value or int(value) < low:
        msg = f"The {name!r} parameter of {func} must be an integer >= {low}. Got {value!r}."
        raise ValueError(msg)
    return int(value)


def _dirichlet_rows(rng: np.random.Generator, a: FloatArray) -> FloatArray:
    """One Dirichlet draw per row of ``a`` (N, K) (:func:`dissensus._dirichlet.draw_rows`)."""
    return draw_rows(rng, a)


def _sample_labels(rng: np.random.Generator, probs: FloatArray) -> IntArray:
    """One categorical draw per row of ``probs`` (inverse CDF)."""
    cdf = np.cumsum(probs, axis=1)
    u = rng.random(probs.shape[0]) * cdf[:, -1]
    out: IntArray = np.minimum((cdf < u[:, None]).sum(axis=1), probs.shape[1] - 1).astype(np.int64)
    return out


def draw_truth(
    n_items: int, n_classes: int, *, truth: TruthLike = "mixture", seed: SeedLike = 0
) -> FloatArray:
    r"""Draw ``n_items`` true label distributions over ``n_classes`` (``K >= 2``) classes.

    ``truth`` is a family of the module docstring or ``K`` Dirichlet
    parameters; returns an (N, K) float64 array of rows on the simplex.

    Examples
    --------
    >>> pi = draw_truth(3, 4, truth="flat", seed=1)
    >>> pi.shape, bool(abs(pi.sum(axis=1) - 1).max() < 1e-12)
    ((3, 4), True)
    """
    N = check_integer("draw_truth", "n_items", n_items)
    K = check_integer("draw_truth", "n_classes", n_classes, 2)
    rng = as_generator(seed)
    if isinstance(truth, str):
        check_option("draw_truth", "truth", truth, TRUTH_FAMILIES)
        if truth == "mixture":
            comp = rng.choice(K + 1, size=N, p=[*([0.75 / K] * K), 0.25])
            means = np.vstack([0.7 * np.eye(K) + 0.3 / K, np.full((1, K), 1.0 / K)])
            strength = np.r_[np.full(K, 4.0), float(K)]
            return _dirichlet_rows(rng, means[comp] * strength[comp, None])
        if truth == "ordinal":
            c = rng.uniform(0.0, K - 1.0, size=N)
            sigma = np.exp(rng.uniform(np.log(0.3), np.log(1.5), size=N))
            z = (np.arange(K)[None, :] - c[:, None]) / sigma[:, None]
            w = np.exp(-0.5 * z * z)
            out: FloatArray = w / w.sum(axis=1, keepdims=True)
            return out
        m = np.r_[np.full(K - 1, 0.2 / (K - 1)), 0.8]
        if len(_CONVABUSE_MARGINAL) == K:
            m = np.asarray(_CONVABUSE_MARGINAL)
        base = {
            "skewed": _SKEW_STRENGTH * (m / m.sum()),
            "flat": np.full(K, 10.0),
            "uniform": np.ones(K),
            "jeffreys": np.full(K, 0.5),
        }[truth]
        return _dirichlet_rows(rng, np.broadcast_to(base, (N, K)).copy())
    a = np.asarray(truth, dtype=np.float64)
    if a.shape != (K,) or not np.all(np.isfinite(a) & (a > 0)):
        msg = f"The 'truth' parameter of draw_truth must be one of {examples(TRUTH_FAMILIES, 9)} or {K} positive Dirichlet parameters. Got {truth!r}."
        raise ValueError(msg)
    return _dirichlet_rows(rng, np.broadcast_to(a, (N, K)).copy())


# --------------------------------------------------------------------------- n per item


def annotation_counts(
    n_items: int,
    *,
    n_range: tuple[int, int] = (2, 1000),
    zipf_exponent: float = 2.0,
    seed: SeedLike = 0,
) -> IntArray:
    r"""Annotations per item from a truncated discrete power law.

    :math:`P(n) \propto n^{-s}` for :math:`lo \le n \le hi` (``n_range``,
    inclusive; ``s = zipf_exponent``); returns ``n_items`` int64 counts.

    Examples
    --------
    >>> n = annotation_counts(10_000, seed=0)
    >>> int(n.min()), int(n.max()) <= 1000, round(float((n == 2).mean()), 2)
    (2, True, 0.39)
    """
    lo, hi = (int(v) for v in n_range)
    if not 1 <= lo <= hi:
        msg = f"The 'n_range' parameter must be (lo, hi) with 1 <= lo <= hi. Got {n_range!r}."
        raise ValueError(msg)
    s = float(zipf_exponent)
    if not np.isfinite(s) or s < 0:
        msg = f"The 'zipf_exponent' parameter must be finite and >= 0. Got {zipf_exponent!r}."
        raise ValueError(msg)
    support = np.arange(lo, hi + 1)
    cdf = np.cumsum(support.astype(np.float64) ** -s)
    cdf /= cdf[-1]
    u = as_generator(seed).random(int(n_items))
    idx = np.minimum(np.searchsorted(cdf, u, side="right"), support.size - 1)
    return support[idx].astype(np.int64)


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class SyntheticData:
    """Synthetic annotations with their known truth.

    ``counts`` are ``Multinomial(n_i, truth[i])`` (without annotator biases),
    ``truth`` the (N, K) true distributions, ``annotations`` the labels with
    annotator ids when ``n_annotators`` was given, ``annotator_bias`` each
    annotator's (A, K) log-odds tilt (:func:`make_synthetic`), ``family`` the
    truth family.
    """

    counts: LabelCounts
    truth: FloatArray
    annotations: Annotations | None = None
    annotator_bias: FloatArray | None = field(default=None, repr=False)
    family: str = "mixture"

    @property
    def n(self) -> IntArray:
        """Annotations per item, shape (N,)."""
        return self.counts.n


def make_synthetic(
    n_items: int,
    n_classes: int = 5,
    *,
    ordered: bool = True,
    truth: TruthLike = "mixture",
    n_annotations: int | npt.ArrayLike | Literal["zipf"] = "zipf",
    n_range: tuple[int, int] = (2, 1000),
    zipf_exponent: float = 2.0,
    n_annotators: int | None = None,
    bias_sd: float = 0.0,
    seed: SeedLike = 0,
) -> SyntheticData:
    r"""Synthetic annotated items whose true label distributions are known.

    Parameters
    ----------
    n_items, n_classes, ordered, truth : int, int (default 5), bool, default True, "mixture"
        ``N`` and ``K``, whether the scale's classes (labels ``0 … K-1``) are
        ordered, and the truth (:func:`draw_truth`).
    n_annotations, n_range, zipf_exponent : "zipf", int or array_like of int, default "zipf"
        The power law of :func:`annotation_counts` (with ``n_range`` and
        ``zipf_exponent``), the same count for every item, or one per item.
    n_annotators : int, optional
        Annotator ids: each item is labelled by ``n_i`` distinct annotators
        of a pool of this size (at least the largest ``n_i``).
    bias_sd : float, default 0.0
        Annotator ``a`` labels item ``i`` from :math:`\pi_{ik} e^{b_{ak}}`
        renormalised: on an ordered scale :math:`b_{ak} = \beta_a (k - (K-1)/2)
        / (K-1)`, :math:`\beta_a \sim N(0, \text{bias\_sd}^2)` (a lenient or
        severe rater); on a nominal one :math:`b_{ak} \sim N(0, \text{bias\_sd}^2)`.

    Returns
    -------
    SyntheticData

    Examples
    --------
    >>> data = make_synthetic(200, 5, truth="ordinal", seed=3)
    >>> data.counts.N, data.truth.shape, int(data.n.min()) >= 2
    (200, (200, 5), True)
    >>> withids = make_synthetic(50, 3, n_annotations=4, n_annotators=10, bias_sd=0.5, seed=0)
    >>> withids.annotations.n_annotations, withids.counts.n.tolist()[:3]
    (200, [4, 4, 4])
    """
    N = check_integer("make_synthetic", "n_items", n_items)
    K = check_integer("make_synthetic", "n_classes", n_classes, 2)
    rng = as_generator(seed)
    pi = draw_truth(N, K, truth=truth, seed=rng)
    if isinstance(n_annotations, str):
        check_option("make_synthetic", "n_annotations", n_annotations, ("zipf",))
        n = annotation_counts(N, n_range=n_range, zipf_exponent=zipf_exponent, seed=rng)
    else:
        n = np.broadcast_to(np.asarray(n_annotations), (N,)).astype(np.int64)
        if np.any(n < 0) or not np.array_equal(n, np.asarray(n_annotations) + 0 * n):
            msg = f"The 'n_annotations' parameter must hold whole numbers >= 0. Got {examples(np.unique(n))}."
            raise ValueError(msg)
    scale = Scale(tuple(range(K)), ordered=bool(ordered))
    family = truth if isinstance(truth, str) else "dirichlet"
    if n_annotators is None:
        if bias_sd:
            msg = "The 'bias_sd' parameter needs 'n_annotators' (biases belong to annotators)."
            raise ValueError(msg)
        counts = rng.multinomial(n, pi / pi.sum(axis=1, keepdims=True))
        lc = LabelCounts.from_array(counts, scale=scale)
        return SyntheticData(lc, pi, family=family)
    A = int(n_annotators)
    if max(int(n.max()), 1) > A:
        msg = f"The 'n_annotators' parameter must be at least the largest number of annotations per item ({int(n.max())}), so that each item has distinct annotators. Got {n_annotators!r}."
        raise ValueError(msg)
    if ordered:
        beta = rng.normal(0.0, float(bias_sd), size=A)
        bias = beta[:, None] * ((np.arange(K) - (K - 1) / 2) / (K - 1))[None, :]
    else:
        bias = rng.normal(0.0, float(bias_sd), size=(A, K))
    item_codes = np.repeat(np.arange(N), n)
    start = np.repeat(np.cumsum(n) - n, n)
    within = np.arange(item_codes.size) - start
    offset = rng.integers(0, A, size=N)
    ann_codes = (offset[item_codes] + within) % A
    probs = pi[item_codes] * np.exp(bias[ann_codes])
    labels = _sample_labels(rng, probs)
    annotations = Annotations(
        item_codes=item_codes.astype(np.int64),
        label_codes=labels,
        annotator_codes=ann_codes.astype(np.int64),
        items=pd.RangeIndex(N, name="item"),
        annotators=pd.RangeIndex(A, name="annotator"),
        scale=scale,
    )
    return SyntheticData(annotations.counts(), pi, annotations, bias, family)


# --------------------------------------------------------------------------- candidates


Rng = np.random.Generator
Options = dict[str, Any]
#: ``(truth, rng, n, options) -> predictions``; ``options`` are the keyword
#: options of :func:`candidate_predictions`.
Candidate = Callable[[FloatArray, Rng, IntArray, Options], FloatArray]


def _normalise(x: FloatArray) -> FloatArray:
    out: FloatArray = x / x.sum(axis=1, keepdims=True)
    return out


def _temper(pi: FloatArray, t: float) -> FloatArray:
    with np.errstate(divide="ignore"):
        logp = np.log(pi) / t
    logp -= logp.max(axis=1, keepdims=True)
    return _normalise(np.exp(logp))


def _smoothed(pi: FloatArray, rng: Rng, n: IntArray, p: Options) -> FloatArray:
    # soft_labels is linear in the proportions: the one-hot rows of an identity give its kernel
    eye = np.eye(pi.shape[1], dtype=np.int64)
    return _normalise(pi @ soft_labels(eye, method="gaussian", sigma=float(p["sigma"])))


def _overfit(pi: FloatArray, rng: Rng, n: IntArray, p: Options) -> FloatArray:
    m = p["train_size"]
    size = np.maximum(n if m is None else np.full(pi.shape[0], int(m)), 1)
    return rng.multinomial(size, _normalise(pi)) / size[:, None].astype(np.float64)


def _marginal(pi: FloatArray, rng: Rng, n: IntArray, p: Options) -> FloatArray:
    groups = int(p["groups"])
    m = pi.reshape(groups, -1, pi.shape[1]).mean(axis=1, keepdims=True)
    return np.broadcast_to(m, (groups, pi.shape[0] // groups, pi.shape[1])).reshape(pi.shape)


#: Candidate models: name -> :data:`Candidate`.
CANDIDATES: dict[str, Candidate] = {
    "truth": lambda pi, rng, n, p: pi,
    "noisy": lambda pi, rng, n, p: _dirichlet_rows(rng, float(p["noise_strength"]) * pi + 1e-3),
    "tempered": lambda pi, rng, n, p: _temper(pi, float(p["temperature"])),
    "sharpened": lambda pi, rng, n, p: _temper(pi, float(p["sharpen"])),
    "smoothed": _smoothed,
    "overfit": _overfit,
    "shrunk": lambda pi, rng, n, p: (1.0 - p["shrink"]) * pi + p["shrink"] / pi.shape[1],
    "marginal": _marginal,
    "uniform": lambda pi, rng, n, p: np.full(pi.shape, 1.0 / pi.shape[1]),
}
#: The default candidate set of :func:`study` (``"sharpened"`` is left out).
DEFAULT_CANDIDATES = ("truth", "noisy", "tempered", "smoothed", "overfit", "marginal", "uniform")


def candidate_predictions(
    truth: npt.ArrayLike,
    names: Sequence[str] = DEFAULT_CANDIDATES,
    *,
    n: npt.ArrayLike | None = None,
    floor: float = 1e-3,
    noise_strength: float = 20.0,
    temperature: float = 2.0,
    sharpen: float = 0.5,
    sigma: float = 1.0,
    train_size: int | None = None,
    groups: int = 1,
    shrink: float = 0.3,
    seed: SeedLike = 0,
) -> dict[str, FloatArray]:
    r"""Predictions of candidate models at controlled distances from the truth.

    Parameters
    ----------
    truth : array_like, shape (N, K)
        True label distributions.
    names : sequence of str, default :data:`DEFAULT_CANDIDATES`
        Any of :data:`CANDIDATES`:

        ``"truth"``: :math:`\pi`. ``"noisy"``: :math:`\mathrm{Dir}(s\,\pi + 10^{-3})`,
        ``s = noise_strength`` (larger is closer). ``"tempered"``: :math:`\pi^{1/T}`
        renormalised, ``T = temperature`` (> 1 flattens); ``"sharpened"``: the
        same with ``T = sharpen`` (< 1). ``"smoothed"``: :math:`\pi` smoothed over
        ordered classes by the Gaussian kernel of
        :func:`dissensus.posterior.soft_labels` (width ``sigma``). ``"overfit"``:
        the shares of an independent training sample of ``train_size`` labels
        per item (default ``n``), a model that memorised its training labels.
        ``"shrunk"``: :math:`(1 - w)\,\pi + w / K`, ``w = shrink``. ``"marginal"``:
        the mean truth over each group of ``N / groups`` consecutive items.
        ``"uniform"``: :math:`1/K`.
    n, groups : array_like of int, shape (N,), optional; int, default 1
        Annotations per item (``"overfit"`` without ``train_size``), and the
        independent datasets stacked in ``truth`` (for ``"marginal"``).
    floor : float, default 1e-3
        Every prediction is :math:`(1 - \text{floor})\,q + \text{floor}/K`.

    Returns
    -------
    dict of str to ndarray of float64, shape (N, K)

    Examples
    --------
    >>> pi = draw_truth(4, 3, seed=0)
    >>> q = candidate_predictions(pi, ["truth", "uniform"], seed=0)
    >>> q["uniform"][0].round(4).tolist()
    [0.3333, 0.3333, 0.3333]
    """
    pi = np.asarray(truth, dtype=np.float64)
    if pi.ndim != 2:
        msg = f"`truth` must be an (N, K) array of distributions; got shape {pi.shape}."
        raise ValueError(msg)
    unknown = [c for c in names if c not in CANDIDATES]
    if unknown:
        msg = f"Unknown candidate models {examples(unknown)}; choose from {examples(list(CANDIDATES), 10)}."
        raise ValueError(msg)
    if "overfit" in names and n is None and train_size is None:
        msg = "The 'overfit' candidate needs `n` (annotations per item) or `train_size`."
        raise ValueError(msg)
    if pi.shape[0] % int(groups):
        msg = f"`truth` has {pi.shape[0]} rows, not a multiple of groups={groups}."
        raise ValueError(msg)
    n_arr = np.zeros(pi.shape[0], np.int64) if n is None else np.asarray(n, dtype=np.int64)
    params = {
        "noise_strength": noise_strength,
        "temperature": temperature,
        "sharpen": sharpen,
        "sigma": sigma,
        "train_size": train_size,
        "groups": groups,
        "shrink": shrink,
    }
    base = int(as_generator(seed).integers(2**63))
    K = pi.shape[1]
    out = {}
    for name in names:  # a stream per candidate name: adding a candidate moves no other
        child = np.random.default_rng([base, zlib.crc32(name.encode())])
        q = CANDIDATES[name](pi, child, n_arr, params)
        out[name] = np.ascontiguousarray((1.0 - floor) * q + floor / K)
    return out
