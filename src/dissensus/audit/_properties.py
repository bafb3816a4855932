r"""The properties a soft evaluation metric should have, as machine-checkable definitions.

Notation. :math:`\Delta_K` is the probability simplex over K classes, ``M``
the metric under audit (a :class:`Subject`) seen as a loss, ``p`` the
target, ``q`` and ``r`` two predictions. For an expected metric the target
is a Dirichlet posterior :math:`\alpha` (``1 + counts``),
``M(α, q) = E_{p∼Dir(α)}[m(p, q)]``, and the perfect match :math:`\bar p`
is the posterior mean :math:`\alpha / \alpha_0` (what a calibrated model
predicts); for a pointwise metric :math:`\bar p = p`. Properties that feed
a prediction back in as a target (P1, P3, P4, P5, P6) do not apply to
expected metrics, whose two arguments are of different kinds.

The definitions follow Properties 1–8 of Rizzi et al. (2024) and the
ordinal example of Magnani (2025); where a paper does not say what to do
with distributions, the definition states the reading taken. Strict
inequalities are checked on premises that are not degenerate (predictions
at least ``1e-3`` apart in L1). The search screens trials in float64 with a
tolerance relative to the values compared, ``1e-6 × (|a| + |b|)`` plus
``1e-12 × scale`` (``scale`` the median value of the metric on random
pairs), and a candidate is a violation only when an independent
recomputation confirms it (:mod:`dissensus.audit._search`): a metric
quadratic near ``p = q`` (values near 1e-7) is judged on its values, not on
an absolute tolerance.

References
----------
Rizzi, G., Leonardelli, E., Poesio, M., Uma, A., Pavlovic, M., Paun, S.,
Rosso, P. and Fersini, E. (2024). Soft metrics for evaluation with
disagreements: an assessment. *Proc. 3rd Workshop on Perspectivist
Approaches to NLP (NLPerspectives)* at LREC-COLING 2024.

Magnani, A. (2025). Soft metrics for ordinal label uncertainty with
variable sample sizes. *ASSE 2025* (6th Asia Service Sciences and Software
Engineering Conference), ACM.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from dissensus.metrics import Metric, get_metric, list_metrics

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Tol = Callable[[FloatArray, FloatArray], FloatArray]
Points = Callable[[int], FloatArray]
Trials = tuple[list[FloatArray], FloatArray]
Generate = Callable[[np.random.Generator, int, int, Points, Points], Trials]

#: Smallest L1 difference that makes a premise "clearly" true.
_GAP = 1e-3
#: Slack for rows built by arithmetic (translations, contractions) to count as on the simplex.
_ON_SIMPLEX = 1e-12


MetricLike = str | Metric | Callable[..., Any]

#: Annotation counts drawn for the targets of expected metrics (their sum is the item's n).
_EXPECTED_N = np.array([0, 1, 2, 3, 4, 5, 10, 20])
#: Grid resolutions: a random grid point has entries that are multiples of 1/m.
_GRIDS = np.array([1, 2, 4, 5, 10, 20])


def _compositions(rng: np.random.Generator, total: npt.NDArray[Any], K: int) -> FloatArray:
    """Random non-negative integer rows of K entries summing to ``total`` (sorted cut points)."""
    cuts = np.sort(np.floor(rng.random((len(total), K - 1)) * (total[:, None] + 1)), axis=1)
    edges = np.column_stack([np.zeros(len(total)), cuts, total.astype(np.float64)])
    out: FloatArray = np.diff(edges, axis=1)
    return out


def points(rng: np.random.Generator, n: int, K: int) -> FloatArray:
    """Seeded points of the simplex: interior, faces (zeros), corners and round grid points."""
    kind = rng.choice(4, size=n, p=[0.35, 0.2, 0.05, 0.4])
    g = rng.standard_exponential((n, K))
    # Faces: keep a random non-empty subset of the classes.
    keep = rng.random((n, K)) < rng.random((n, 1))
    keep[np.arange(n), rng.integers(0, K, n)] = True
    face = np.where(kind[:, None] == 1, g * keep, g)
    x = face / face.sum(axis=1, keepdims=True)
    x = np.where(kind[:, None] == 2, np.eye(K)[rng.integers(0, K, n)], x)
    m = rng.choice(_GRIDS, size=n)
    out: FloatArray = np.where(kind[:, None] == 3, _compositions(rng, m, K) / m[:, None], x)
    return out


@dataclass(frozen=True)
class Subject:
    """A metric under audit: ``func(target, q, **options) -> (N,)`` named ``name`` in the table.

    A similarity (not ``lower_is_better``) with upper bound ``upper`` is
    audited as the loss ``upper - s`` (``cosine`` as the cosine distance);
    ``expected``: the target is Dirichlet ``alpha`` (module notation).
    """

    name: str
    func: Callable[..., Any]
    lower_is_better: bool = True
    upper: float = 0.0
    expected: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)

    def loss(self, target: FloatArray, q: FloatArray) -> FloatArray:
        """The metric as a loss, one value per row."""
        with np.errstate(all="ignore"):
            v = np.asarray(self.func(target, q, **self.options), dtype=np.float64).reshape(-1)
            if not self.lower_is_better:
                v = self.upper - v
        return v

    def perfect(self, target: FloatArray) -> FloatArray:
        """The perfect prediction for each target: itself, or the posterior mean."""
        if not self.expected:
            return target
        out: FloatArray = target / target.sum(axis=1, keepdims=True)
        return out

    def targets(self, rng: np.random.Generator, n: int, K: int) -> FloatArray:
        """Seeded targets: :func:`points`, or ``alpha = 1 + counts`` (0 to 20 annotations)."""
        if not self.expected:
            return points(rng, n, K)
        return 1.0 + _compositions(rng, rng.choice(_EXPECTED_N, size=n).astype(np.float64), K)


def auditable_metrics() -> list[str]:
    """Registry metrics the audit takes: pointwise and expected, in registration order.

    Not ``debiased[...]`` estimators (they take counts; their properties are
    those of the metric they estimate) nor one-argument metrics (entropy).

    Examples
    --------
    >>> names = auditable_metrics()
    >>> "manhattan" in names and "E[emd]" in names and "debiased[emd]" not in names
    True
    """
    return [n for n in list_metrics() if not get_metric(n).needs_counts]


def as_subject(
    metric: MetricLike, *, name: str | None = None, options: Mapping[str, Any] | None = None
) -> Subject:
    """Turn a registry name, a :class:`~dissensus.metrics.Metric` or a callable into a Subject.

    A plain callable is taken as a loss (lower is better) on two distributions.
    """
    opts = dict(options or {})
    given: object = metric  # checked at run time whatever the annotation says
    if isinstance(given, str | Metric):
        m = get_metric(given)
        if m.unary:
            msg = (
                f"Metric {m.name!r} takes one argument (the target only); the audit needs a "
                "metric f(target, prediction). Pick one of dissensus.metrics.list_metrics()."
            )
            raise ValueError(msg)
        if m.needs_counts:
            msg = (
                f"Metric {m.name!r} is an estimator from annotation counts, not a function of two "
                "distributions; its properties are those of the metric it estimates: audit "
                f"{m.name.removeprefix('debiased[').removesuffix(']')!r} instead."
            )
            raise ValueError(msg)
        return Subject(name or m.name, m.func, m.lower_is_better, m.bounds[1], m.needs_posterior,
                       opts)  # fmt: skip
    if callable(given):
        label = name or getattr(given, "__name__", None) or repr(given)
        return Subject(name=str(label), func=given, options=opts)
    msg = (
        "The 'metric' parameter of audit must be a registry name (e.g. 'manhattan'), a "
        f"dissensus.metrics.Metric or a callable f(p, q) -> (N,). Got {metric!r}."
    )
    raise TypeError(msg)


@dataclass(frozen=True)
class Clause:
    """``lhs <= rhs`` (``<`` if strict) on the ``applicable`` trials of a batch.

    A counterexample prints ``values`` and the slots ``shown``; ``ref`` scales
    the tolerance (default ``|lhs| + |rhs|``).
    """

    name: str
    applicable: BoolArray
    lhs: FloatArray
    rhs: FloatArray
    _: KW_ONLY
    strict: bool
    values: dict[str, FloatArray]
    shown: tuple[int, ...] = (0, 1, 2)
    ref: FloatArray | None = None


@dataclass(frozen=True)
class Property:
    """A property: its definition and how to draw and check trials.

    ``key`` and ``title`` (``"P3"``, ``"triangle inequality"``), the
    ``definition`` (Markdown with inline math, as documented); ``slots`` name
    the distributions of a trial, those in ``target_slots`` are targets
    (``alpha`` for expected metrics); ``generate`` draws trials, ``complete``
    (if any) finishes them for a subject, ``check`` gives the clauses.
    ``same_kind``: uses a prediction as a target (not applicable to expected
    metrics); ``min_classes``: the smallest K it means something for;
    ``independent``: slots drawn independently (for K = 2 the 0.1 grid is added).
    """

    key: str
    title: str
    definition: str
    slots: tuple[str, ...]
    target_slots: tuple[int, ...]
    generate: Generate
    check: Callable[[Subject, list[FloatArray], FloatArray, Tol], list[Clause]]
    same_kind: bool = False
    min_classes: int = 2
    independent: bool = True
    complete: Callable[[Subject, list[FloatArray], FloatArray], list[FloatArray]] | None = None


def _l1(a: FloatArray, b: FloatArray) -> FloatArray:
    out: FloatArray = np.abs(a - b).sum(axis=1)
    return out


def _equal(name: str, a: FloatArray, b: FloatArray, labels: tuple[str, str]) -> list[Clause]:
    """The clause ``a = b`` as ``|a - b| <= 0`` (two infinities count as equal)."""
    with np.errstate(invalid="ignore"):
        lhs = np.abs(a - b)
    lhs = np.where(np.isinf(a) & np.isinf(b), 0.0, lhs)
    ok = np.ones(len(a), bool)
    return [Clause(name, ok, lhs, np.zeros(len(a)), strict=False, shown=(0, 1),
                   ref=np.abs(a) + np.abs(b), values={labels[0]: a, labels[1]: b})]  # fmt: skip


def _versus(
    s: Subject, name: str, ok: BoolArray, x: list[FloatArray], *, strict: bool
) -> list[Clause]:
    """The clause ``M(p, q) < M(p, r)`` (``<=`` unless strict) on trials ``(p, q, r)``."""
    p, q, r = x
    a, b = s.loss(p, q), s.loss(p, r)
    return [Clause(name, ok, a, b, strict=strict, values={"M(p, q)": a, "M(p, r)": b})]


def _onto_simplex(x: FloatArray) -> tuple[FloatArray, BoolArray]:
    """Rows built by arithmetic: valid if no entry is below -1e-12; clipped and renormalised."""
    ok = x.min(axis=1) >= -_ON_SIMPLEX
    y = np.clip(x, 0.0, None)
    y /= y.sum(axis=1, keepdims=True)
    return y, ok


def _unique_argmax(x: FloatArray) -> tuple[npt.NDArray[np.intp], BoolArray]:
    top = np.sort(x, axis=1)
    return x.argmax(axis=1), (top[:, -1] - top[:, -2]) > 1e-9


def _indep(n_slots: int, targets: tuple[int, ...] = (0,)) -> Generate:
    def gen(rng: np.random.Generator, n: int, K: int, tgt: Points, pts: Points) -> Trials:
        return [tgt(n) if k in targets else pts(n) for k in range(n_slots)], np.zeros(n)

    return gen


def _check_p1(s: Subject, x: list[FloatArray], c: FloatArray, tol: Tol) -> list[Clause]:
    p, q = x
    return _equal("M(p, q) = M(q, p)", s.loss(p, q), s.loss(q, p), ("M(p, q)", "M(q, p)"))


def _check_p2(s: Subject, x: list[FloatArray], c: FloatArray, tol: Tol) -> list[Clause]:
    v, zero = s.loss(*x), np.zeros(len(x[0]))
    return [Clause("M(p, q) finite", zero == 0, (~np.isfinite(v)).astype(np.float64), zero,
                   strict=False, shown=(0, 1), ref=zero, values={"M(p, q)": v})]  # fmt: skip


def _check_p3(s: Subject, x: list[FloatArray], c: FloatArray, tol: Tol) -> list[Clause]:
    p, q, r = x
    pq, qr, pr = s.loss(p, q), s.loss(q, r), s.loss(p, r)
    values = {"M(p, q)": pq, "M(q, r)": qr, "M(p, q) + M(q, r)": pq + qr, "M(p, r)": pr}
    return [Clause("M(p, r) <= M(p, q) + M(q, r)", np.ones(len(p), bool), pr, pq + qr,
                   strict=False, values=values)]  # fmt: skip


def _check_p4(s: Subject, x: list[FloatArray], c: FloatArray, tol: Tol) -> list[Clause]:
    p, q, r = x
    pq, pr, qr = s.loss(p, q), s.loss(p, r), s.loss(q, r)
    with np.errstate(invalid="ignore"):
        premise = (pq < pr - tol(pq, pr)) & (_l1(p, q) >= _GAP) & (_l1(q, r) >= _GAP)
    return [Clause("M(p, q) < M(p, r) => M(q, r) < M(p, r)", premise, qr, pr, strict=True,
                   values={"M(p, q)": pq, "M(p, r)": pr, "M(q, r)": qr})]  # fmt: skip


def _gen_p5(rng: np.random.Generator, n: int, K: int, tgt: Points, pts: Points) -> Trials:
    p, q = tgt(n), pts(n)
    d = pts(n) - p
    # Largest step t along d that keeps both p + t d and q + t d on the simplex.
    with np.errstate(divide="ignore", invalid="ignore"):
        lim = np.where(d < 0, np.minimum(p, q) / -d, np.inf).min(axis=1)
    t = np.minimum(1.0, lim) * rng.choice([1.0, 0.5, rng.uniform()], size=n)
    return [p, q, p + t[:, None] * d], np.zeros(n)


def _check_p5(s: Subject, x: list[FloatArray], c: FloatArray, tol: Tol) -> list[Clause]:
    p, q, p2 = x
    q2, ok = _onto_simplex(q + (p2 - p))
    before, after = s.loss(p, q), s.loss(p2, q2)
    return [Clause("M(p + c, q + c) <= M(p, q)", ok & (_l1(p2, p) >= _GAP), after, before,
                   strict=False, values={"M(p, q)": before, "M(p + c, q + c)": after})]  # fmt: skip


def _check_p5a(s: Subject, x: list[FloatArray], c: FloatArray, tol: Tol) -> list[Clause]:
    p, p2, r = x
    perfect1, perfect2 = s.loss(p, s.perfect(p)), s.loss(p2, s.perfect(p2))
    imperfect = s.loss(p2, r)
    ok = _l1(r, s.perfect(p2)) >= 10 * _GAP
    return [
        Clause("(i) M(p, p̄) < M(p, r) for r != p̄", ok, perfect2, imperfect, strict=True,
               shown=(1, 2), values={"M(p, p̄)": perfect2, "M(p, r)": imperfect}),
        Clause("(ii) M(p', p̄') <= M(p, r) for r != p̄", ok, perfect1, imperfect, strict=False,
               values={"M(p', p̄')": perfect1, "M(p, r)": imperfect}),
    ]  # fmt: skip


def _gen_p5b(rng: np.random.Generator, n: int, K: int, tgt: Points, pts: Points) -> Trials:
    p, q, r = tgt(n), pts(n), pts(n)
    # Two thirds of the trials put q on the line through the perfect match and r, between
    # them (λ > 0) or mirrored through the perfect match (λ < 0), so that q's error is
    # smaller on every class (built by _complete_p5b); the rest draw q freely.
    q[: 2 * n // 3] = np.nan
    lam = rng.choice(np.array([0.5, 0.25, 0.75, 0.9, -0.5, -0.25, -0.75, -0.9]), size=n)
    return [p, q, r], lam


def _complete_p5b(s: Subject, x: list[FloatArray], c: FloatArray) -> list[FloatArray]:
    p, q, r = x
    t = s.perfect(p)
    d = np.sign(c)[:, None] * (r - t)
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(d < 0, t / -d, np.inf).min(axis=1)
    between, _ = _onto_simplex(t + np.minimum(np.abs(c), room)[:, None] * d)
    return [p, np.where(np.isnan(q), between, q), r]


def _check_p5b(s: Subject, x: list[FloatArray], c: FloatArray, tol: Tol) -> list[Clause]:
    p, q, r = x
    t = s.perfect(p)
    dq, dr = np.abs(t - q), np.abs(t - r)
    ok = (dq <= dr + _ON_SIMPLEX).all(axis=1) & ((dr - dq).sum(axis=1) >= _GAP)
    return _versus(s, "|p̄ - q| <= |p̄ - r| per class => M(p, q) < M(p, r)", ok, x, strict=True)


def _check_p5c(s: Subject, x: list[FloatArray], c: FloatArray, tol: Tol) -> list[Clause]:
    p, p2 = x
    a, b = s.loss(p, s.perfect(p)), s.loss(p2, s.perfect(p2))
    return _equal("M(p, p̄) = M(p', p̄')", a, b, ("M(p, p̄)", "M(p', p̄')"))


def _gen_p6(rng: np.random.Generator, n: int, K: int, tgt: Points, pts: Points) -> Trials:
    return [tgt(n), pts(n), pts(n)], rng.choice(np.array([0.5, 0.25, 0.1, 0.9]), size=n)


def _check_p6(s: Subject, x: list[FloatArray], c: FloatArray, tol: Tol) -> list[Clause]:
    p, q, centre = x
    p2, ok1 = _onto_simplex(centre + c[:, None] * (p - centre))
    q2, ok2 = _onto_simplex(centre + c[:, None] * (q - centre))
    before, after = s.loss(p, q), s.loss(p2, q2)
    ok = ok1 & ok2 & (c < 1)
    # With M(p, q) > 0, c^β M(p, q) < M(p, q) for every β > 0: the contraction must lower
    # the value strictly. With M(p, q) = 0 it must stay 0.
    positive = before > tol(before, before)
    values = {"c": c, "M(p, q)": before, "M(p', q')": after}
    return [
        Clause("M(p', q') < M(p, q) for x' = s + c(x - s), c < 1", ok & positive, after,
               before, strict=True, values=values),
        Clause("M(p', q') = 0 when M(p, q) = 0", ok & ~positive, after, before, strict=False,
               values=values),
    ]  # fmt: skip


def _check_p7(s: Subject, x: list[FloatArray], c: FloatArray, tol: Tol) -> list[Clause]:
    p, q, r = x
    (kt, ut), (kq, uq), (kr, ur) = (_unique_argmax(y) for y in (s.perfect(p), q, r))
    ok = ut & uq & ur & (kq == kt) & (kr != kt)
    return _versus(s, "argmax q = argmax p̄ != argmax r => M(p, q) < M(p, r)", ok, x, strict=True)


def _check_p8(s: Subject, x: list[FloatArray], c: FloatArray, tol: Tol) -> list[Clause]:
    p, q, r = x
    t = s.perfect(p)
    a, b, lq, lr = s.loss(p, q), s.loss(p, r), _l1(t, q), _l1(t, r)
    values = {"L1(p̄, q)": lq, "L1(p̄, r)": lr, "M(p, q)": a, "M(p, r)": b}
    return [Clause("Σ|p̄ - q| <= Σ|p̄ - r| => M(p, q) <= M(p, r)", lq <= lr + _ON_SIMPLEX, a, b,
                   strict=False, values=values)]  # fmt: skip


def _gen_ordinal(rng: np.random.Generator, n: int, K: int, tgt: Points, pts: Points) -> Trials:
    # q and r are built by _complete_ordinal from (i, j, j', δ) drawn from u.
    return [tgt(n), np.full((n, K), np.nan), np.full((n, K), np.nan)], rng.random((n, 4))


def _complete_ordinal(s: Subject, x: list[FloatArray], u: FloatArray) -> list[FloatArray]:
    """Move δ of the perfect match's mass from class i to a near class j and a far class j'."""
    p = x[0]
    t = s.perfect(p)
    n, K = t.shape
    rows = np.arange(n)
    # i drawn with probability t_i (so t_i > 0), δ a round fraction of t_i.
    i = np.minimum((t.cumsum(axis=1) < u[:, :1]).sum(axis=1), K - 1)
    delta = t[rows, i] * np.array([1.0, 0.5, 0.25, 0.1])[np.minimum((u[:, 1] * 4).astype(int), 3)]
    j1 = (i + 1 + (u[:, 2] * (K - 1)).astype(int)) % K
    j2 = (i + 1 + (u[:, 3] * (K - 1)).astype(int)) % K
    nearer = np.abs(j1 - i) <= np.abs(j2 - i)
    q, r = t.copy(), t.copy()
    q[rows, i] -= delta
    r[rows, i] -= delta
    q[rows, np.where(nearer, j1, j2)] += delta
    r[rows, np.where(nearer, j2, j1)] += delta
    return [p, q, r]


def _check_ordinal(s: Subject, x: list[FloatArray], c: FloatArray, tol: Tol) -> list[Clause]:
    p, q, r = x
    t = s.perfect(p)
    dq, dr = q - t, r - t
    eps = 1e-9
    negq, posq, negr, posr = dq < -eps, dq > eps, dr < -eps, dr > eps
    ok = (negq.sum(1) == 1) & (posq.sum(1) == 1) & (negr.sum(1) == 1) & (posr.sum(1) == 1)
    i, j, i2, j2 = negq.argmax(1), posq.argmax(1), negr.argmax(1), posr.argmax(1)
    rows = np.arange(len(p))
    ok &= (i == i2) & (np.abs(dq[rows, i] - dr[rows, i]) <= eps) & (-dq[rows, i] >= _GAP)
    ok &= np.abs(j2 - i) > np.abs(j - i)
    ok &= np.abs(dq).sum(1) - 2 * np.abs(dq[rows, i]) <= 2 * eps
    ok &= np.abs(dr).sum(1) - 2 * np.abs(dr[rows, i]) <= 2 * eps
    name = "moving δ from class i to j (q) costs less than to j' (r), |j' - i| > |j - i|"
    return _versus(s, name, ok, x, strict=True)


_PQR = ("p", "q", "r")

PROPERTIES: tuple[Property, ...] = (
    Property("P1", "symmetry",
        r"$M(p, q) = M(q, p)$ for all $p, q \in \Delta_K$.",
        ("p", "q"), (0,), _indep(2), _check_p1, same_kind=True),
    Property("P2", "boundedness",
        r"There are finite $a \le b$ with $a \le M(p, q) \le b$ for all $p, q \in \Delta_K$, "
        "faces and corners included; checked as: every value is finite (a continuous metric "
        "finite on the compact simplex is bounded).",
        ("p", "q"), (0,), _indep(2), _check_p2),
    Property("P3", "triangle inequality",
        r"$M(p, r) \le M(p, q) + M(q, r)$ for all $p, q, r \in \Delta_K$.",
        _PQR, (0,), _indep(3), _check_p3, same_kind=True),
    Property("P4", "transitivity",
        r"$M(p, q) < M(p, r) \Rightarrow M(q, r) < M(p, r)$ for all $p, q, r$ (Rizzi et "
        "al. 2024, Property 4, as written).",
        _PQR, (0,), _indep(3), _check_p4, same_kind=True),
    Property("P5", "sum invariance",
        r"$M(p + c, q + c) \le M(p, q)$ for every $c \in \mathbb{R}^K$ with $\sum_k c_k = 0$ "
        r"and $p + c, q + c \in \Delta_K$ (the paper's constant shift, read as a translation "
        "that keeps both on the simplex).",
        ("p", "q", "p + c"), (0, 2), _gen_p5, _check_p5, same_kind=True, independent=False),
    Property("P5a", "minimum penalty at a perfect match",
        r"(i) $M(p, \bar p) < M(p, r)$ for every $r \ne \bar p$ (Rizzi et al. 2024, "
        r"Property 5.a, as written), and (ii) $M(p', \bar p') \le M(p, r)$ for all targets "
        r"$p, p'$ and every $r \ne \bar p$: the perfect match gets the minimum penalty the "
        r"metric gives, on any item. Here $r \ne \bar p$ means $\|r - \bar p\|_1 \ge 0.01$.",
        ("p'", "p", "r"), (0, 1), _indep(3, (0, 1)), _check_p5a),
    Property("P5b", "fair penalisation",
        r"If $|\bar p_k - q_k| \le |\bar p_k - r_k|$ for every class $k$, with "
        r"$\sum_k (|\bar p_k - r_k| - |\bar p_k - q_k|) \ge 10^{-3}$, then $M(p, q) < M(p, r)$ "
        r"(the paper's binary $|p - q| < |p - r|$, class by class; the L1 version is P8).",
        _PQR, (0,), _gen_p5b, _check_p5b, independent=False, complete=_complete_p5b),
    Property("P5c", "equal penalty for every perfect match",
        r"$M(p, \bar p) = M(p', \bar p')$ for all targets $p, p'$.",
        ("p", "p'"), (0, 1), _indep(2, (0, 1)), _check_p5c),
    Property("P6", "scale sensitivity",
        r"There is $\beta > 0$ such that $M(p', q') \le c^\beta M(p, q)$ for all $p, q, s \in "
        r"\Delta_K$ and $c \in (0, 1)$, where $x' = s + c (x - s)$ contracts both towards a "
        r"common centre s (the paper's scaling by c, on the simplex); where it holds the "
        r"table reports $\hat\beta$, the largest order consistent with all trials.",
        ("p", "q", "s"), (0,), _gen_p6, _check_p6, same_kind=True, independent=False),
    Property("P7", "non-invariance to the most probable label",
        r"If $\arg\max q = \arg\max \bar p \ne \arg\max r$ (each a unique maximum), then "
        "$M(p, q) < M(p, r)$.",
        _PQR, (0,), _indep(3), _check_p7),
    Property("P8", "positional error sensitivity",
        r"If $\sum_k |\bar p_k - q_k| \le \sum_k |\bar p_k - r_k|$ then $M(p, q) \le M(p, r)$ "
        "(Rizzi et al. 2024, Property 8, as written).",
        _PQR, (0,), _indep(3), _check_p8),
    Property("ordinal", "ordinal: more distant moves cost more",
        r"Moving mass $\delta \ge 10^{-3}$ of $\bar p$ from class $i$ to class $j'$ costs "
        r"strictly more than moving it to class $j$ when $|j' - i| > |j - i|$: "
        r"$M(p, \bar p + \delta(e_j - e_i)) < M(p, \bar p + \delta(e_{j'} - e_i))$ (Magnani "
        "2025, Example 2).",
        _PQR, (0,), _gen_ordinal, _check_ordinal, min_classes=3, independent=False,
        complete=_complete_ordinal),
)  # fmt: skip
