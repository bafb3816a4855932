"""Counterexample search (seeded trials on the simplex, shrunk to the simplest) and its table."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus.audit._exact import exact_values, has_exact
from dissensus.audit._properties import (
    PROPERTIES,
    Clause,
    MetricLike,
    Property,
    Subject,
    Trials,
    as_subject,
    points,
)
from dissensus.metrics import get_metric, list_metrics
from dissensus.report import Table, html_fragment

FloatArray = npt.NDArray[np.float64]

#: Relative tolerance of the float screen (times the two values compared).
RTOL = 1e-6
#: Absolute floor of the screen's tolerance, times the metric's scale: rounding noise of a
#: value near 0 (a perfect match) computed from terms of order 1.
ATOL = 1e-12
#: Bytes one trial of one class may take in the search (slots, losses and temporaries).
_BYTES_PER_ENTRY = 8 * 24
#: Memory the search may take; more is refused before anything is drawn.
MEMORY_LIMIT = 2 * 1024**3
#: Denominators tried when shrinking a counterexample, simplest first.
_DENOMINATORS = (1, 2, 4, 5, 10, 20, 25, 50, 100)
#: Floors below which entries are snapped to 0 when shrinking.
_FLOORS = (0.0, 0.05, 0.15)
#: Violating trials kept for shrinking.
_SHRINK_POOL = 64
#: Violating trials whose simplicity is compared.
_KEY_POOL = 4096
#: The K = 2 grid enumerated exhaustively for properties of independent slots.
_BINARY_GRID = np.linspace(0.0, 1.0, 11)


#: The properties by key, in table order.
_BY_KEY = {p.key: p for p in PROPERTIES}
_SYMBOL = {"holds": "✓", "violated": "✗", "not applicable": "–"}
_LEGEND = "✓ holds (no counterexample found), ✗ violated, – not applicable."


def property_keys() -> list[str]:
    """Keys of the audited properties, in table order (``"P1"`` ... ``"ordinal"``)."""
    return list(_BY_KEY)


def _properties(keys: Sequence[str]) -> list[Property]:
    unknown = [k for k in keys if k not in _BY_KEY]
    if unknown:
        msg = f"Unknown properties {unknown}; choose from {list(_BY_KEY)} or 'all'."
        raise ValueError(msg)
    return [_BY_KEY[k] for k in keys]


def _denominator(x: FloatArray) -> npt.NDArray[np.int64]:
    """Smallest of :data:`_DENOMINATORS` making every entry of each row a multiple of 1/m."""
    dens = np.array(_DENOMINATORS, dtype=np.float64)
    y = x[:, :, None] * dens
    whole: npt.NDArray[np.bool_] = np.all(np.abs(y - np.round(y)) <= 1e-9 * dens, axis=1)
    out: npt.NDArray[np.int64] = np.where(
        np.any(whole, axis=1), dens.astype(np.int64)[whole.argmax(axis=1)], 10_000
    )
    return out


def _complexity(prop: Property, subject: Subject, slots: list[FloatArray]) -> FloatArray:
    """Sort key: fewer non-zero entries first, then rounder numbers, then fewer annotations."""
    nnz = np.zeros(len(slots[0]))
    denom = np.ones(len(slots[0]), dtype=np.int64)
    annotations = np.zeros(len(slots[0]))
    for k, x in enumerate(slots):
        if subject.expected and k in prop.target_slots:
            annotations += x.sum(axis=1) - x.shape[1]
            continue
        nnz += (x > 1e-12).sum(axis=1)
        denom = np.maximum(denom, _denominator(x))
    out: FloatArray = nnz * 1e8 + denom * 1e3 + annotations
    return out


def _round_rows(x: FloatArray, m: npt.NDArray[np.int64]) -> FloatArray:
    """Largest-remainder rounding of row i to multiples of 1/m[i] (stays on the simplex)."""
    mm = m[:, None].astype(np.float64)
    f = x * mm
    base = np.floor(f + 1e-12)
    missing = np.round(mm[:, 0] - base.sum(axis=1))
    # Rank of each entry's remainder within its row (0 = largest): the first `missing` get +1.
    order = np.argsort(-(f - base), axis=1, kind="stable")
    rank = np.argsort(order, axis=1, kind="stable")
    out: FloatArray = (base + (rank < missing[:, None])) / mm
    return out


def _snap(x: FloatArray, floor: npt.NDArray[np.float64]) -> FloatArray:
    """Entries below ``floor`` (per row) set to 0, the row renormalised (unless all vanish)."""
    y = np.where(x < floor[:, None], 0.0, x)
    s = y.sum(axis=1, keepdims=True)
    out: FloatArray = np.where(s > 0, y / np.where(s > 0, s, 1.0), x)
    return out


class _Checker:
    """The clauses of a property on a batch of trials, with their margins.

    ``exact=False``: the float screen, tolerance ``RTOL (|lhs| + |rhs|) + ATOL scale`` on
    the side that makes a trial a candidate (a strict clause's near-tie is a candidate).
    ``exact=True``: the confirmation, no tolerance (the values are correctly rounded).
    """

    def __init__(
        self, prop: Property, subject: Subject, scale: float, *, exact: bool = False
    ) -> None:
        self.prop, self.subject, self.scale, self.exact = prop, subject, scale, exact

    def tol(self, a: FloatArray, b: FloatArray) -> FloatArray:
        with np.errstate(invalid="ignore"):
            out: FloatArray = RTOL * (np.abs(a) + np.abs(b)) + ATOL * self.scale
        return out * (not self.exact)

    def __call__(
        self, slots: list[FloatArray], c: FloatArray
    ) -> tuple[list[Clause], list[FloatArray], npt.NDArray[np.bool_]]:
        """Clauses, each clause's margin (> 0: violated) and which trials any clause applies to."""
        clauses = self.prop.check(self.subject, slots, c, self.tol)
        margins = []
        applies = np.zeros(len(slots[0]), bool)
        for cl in clauses:
            with np.errstate(invalid="ignore"):
                ref = np.abs(cl.lhs) + np.abs(cl.rhs) if cl.ref is None else cl.ref
                t = (RTOL * np.nan_to_num(ref, posinf=0.0) + ATOL * self.scale) * (not self.exact)
                margin = cl.lhs - cl.rhs + (t if cl.strict else -t)
                both_inf = np.isinf(cl.lhs) & np.isinf(cl.rhs)
            ok = cl.applicable & ~both_inf & ~np.isnan(margin)
            margins.append(np.where(ok & (margin >= 0 if cl.strict else margin > 0), margin, -1.0))
            applies |= ok
        return clauses, margins, applies


def _scale(subject: Subject, rng: np.random.Generator, K: int) -> float:
    """The median value of the metric on random (target, prediction) pairs (1 if 0 or none)."""
    n = 512
    v = np.abs(subject.loss(subject.targets(rng, n, K), rng.dirichlet(np.ones(K), size=n)))
    v = v[np.isfinite(v)]
    med = float(np.median(v)) if v.size else 1.0
    return med if med > 0 else 1.0


def _shrink(
    checker: _Checker, slots: list[FloatArray], c: FloatArray
) -> tuple[list[FloatArray], FloatArray]:
    """Variants of violating trials: small entries snapped to 0, rounded to 1/m for each m."""
    frozen = set(checker.prop.target_slots) if checker.subject.expected else set()
    grid = np.array([(f, m) for f in _FLOORS for m in _DENOMINATORS])
    floors = np.repeat(grid[:, 0], len(c))
    dens = np.repeat(grid[:, 1], len(c)).astype(np.int64)
    out = []
    for k, x in enumerate(slots):
        tiled = np.tile(x, (len(grid), 1))
        variant = tiled if k in frozen else _round_rows(_snap(tiled, floors), dens)
        out.append(np.concatenate([x, variant]))
    return out, np.concatenate([c] * (len(grid) + 1))


def _simplest(
    checker: _Checker, slots: list[FloatArray], c: FloatArray, margins: list[FloatArray]
) -> npt.NDArray[np.intp]:
    """Candidate trials, simplest first, ties broken by the rows' values (lexicographic).

    The order depends on the trials' coordinates only, never on a margin: the last bits
    of a platform's SIMD log or exp cannot pick another counterexample.
    """
    margin = np.max(np.stack(margins), axis=0)
    # The first candidates are enough to find the simplest (trials are in random order).
    bad = np.flatnonzero(margin >= 0)[:_KEY_POOL]
    key = _complexity(checker.prop, checker.subject, [x[bad] for x in slots])
    if bad.size == 0:
        return bad
    coords = np.column_stack([x[bad] for x in slots] + [c[bad].reshape(len(bad), -1)])
    out: npt.NDArray[np.intp] = bad[np.lexsort((*coords.T[::-1], key))][:_SHRINK_POOL]
    return out


def _exact_subject(subject: Subject) -> Subject | None:
    """The subject with its values in 50-digit decimal (:mod:`._exact`), if it has a form there.

    Only a registry metric under its own name and function, with default options.
    """
    name = subject.name
    if subject.expected or subject.options or not has_exact(name) or name not in list_metrics():
        return None
    if get_metric(name).func is not subject.func:
        return None
    return dataclasses.replace(subject, func=lambda P, Q: exact_values(name, P, Q))


def _confirm(
    checker: _Checker, slots: list[FloatArray], c: FloatArray, pool: npt.NDArray[np.intp]
) -> tuple[list[Clause], list[FloatArray], npt.NDArray[np.intp]]:
    """The candidates of ``pool`` that an independent recomputation confirms, in pool order.

    Where the metric has a decimal form its values are recomputed in 50 digits and the
    clauses checked without tolerance; otherwise the float screen stands (its margin
    exceeds the relative tolerance). Returns the clauses and margins of the pool's trials
    and the positions (in the pool) of the confirmed ones.
    """
    rows = [x[pool] for x in slots]
    exact = _exact_subject(checker.subject)
    judge = checker if exact is None else _Checker(checker.prop, exact, checker.scale, exact=True)
    clauses, margins, _ = judge(rows, c[pool])
    confirmed = np.flatnonzero(np.max(np.stack(margins), axis=0) >= 0)
    return clauses, margins, confirmed


def _best(checker: _Checker, slots: list[FloatArray], c: FloatArray) -> Counterexample | None:
    """The simplest confirmed counterexample, or None (no candidate survives confirmation).

    The float screen's candidates are shrunk (rounder variants), ordered simplest first,
    and the first one that :func:`_confirm` confirms is reported, with the recomputed
    values and margin.
    """
    _, margins, _ = checker(slots, c)
    pool = _simplest(checker, slots, c, margins)
    if pool.size == 0:
        return None
    # the shrunk variants of the candidates, the candidates themselves included
    slots, c = _shrink(checker, [x[pool] for x in slots], c[pool])
    _, margins, _ = checker(slots, c)
    pool = _simplest(checker, slots, c, margins)
    clauses, margins, confirmed = _confirm(checker, slots, c, pool)
    if confirmed.size == 0:
        return None
    j = int(confirmed[0])
    i = int(pool[j])
    cl = clauses[int(np.argmax([m[j] for m in margins]))]
    alpha = {k for k in checker.prop.target_slots if checker.subject.expected}
    names = [f"alpha[{s}]" if k in alpha else s for k, s in enumerate(checker.prop.slots)]
    shown = {names[k]: [float(v) for v in slots[k][i]] for k in cl.shown}
    values = {name: float(v[j]) for name, v in cl.values.items()}  # noqa: PD011 - a dict
    return Counterexample(cl.name, shown, values, float(cl.lhs[j] - cl.rhs[j]))


def _beta_hat(checker: _Checker, slots: list[FloatArray], c: FloatArray) -> float:
    """P6: the largest order β with M(p', q') <= c^β M(p, q) over every trial."""
    cl = checker(slots, c)[0][0]
    with np.errstate(all="ignore"):
        ok = cl.applicable & np.isfinite(cl.lhs) & (cl.rhs > 1e-6 * checker.scale) & (cl.lhs > 0)
        beta = np.log(cl.lhs[ok] / cl.rhs[ok]) / np.log(c[ok])
    return float(beta.min()) if beta.size else math.nan


def _draw(prop: Property, subject: Subject, K: int, n: int, seed: int) -> Trials:
    """The seeded trials of a property; they depend on the metric only through its kind of target.

    One generator per property: adding a metric or a property does not change the others' trials.
    """
    rng = np.random.default_rng([seed, K, list(_BY_KEY).index(prop.key), int(subject.expected)])
    slots, c = prop.generate(
        rng, n, K, lambda m: subject.targets(rng, m, K), lambda m: points(rng, m, K)
    )
    if prop.complete is not None:
        slots = prop.complete(subject, slots, c)
    if K == 2 and prop.independent and not subject.expected:
        grid = np.array(list(itertools.product(_BINARY_GRID, repeat=len(slots))))
        pairs = np.stack([grid, 1.0 - grid], axis=2)  # (grid points, slots, 2)
        slots = [np.concatenate([pairs[:, k], x]) for k, x in enumerate(slots)]
        c = np.concatenate([np.zeros(len(grid)), c])
    return slots, c


def _audit_one(
    subject: Subject, prop: Property, K: int, trials: Trials, scale: float
) -> PropertyResult:
    def not_applicable(why: str) -> PropertyResult:
        return PropertyResult(subject.name, prop.key, "not applicable", 0, None, why)

    if prop.min_classes > K:
        return not_applicable(f"needs K >= {prop.min_classes}")
    if prop.same_kind and subject.expected:
        return not_applicable("uses a prediction as a target (expected metric)")
    slots, c = trials
    checker = _Checker(prop, subject, scale)
    n_applicable = int(checker(slots, c)[2].sum())
    if n_applicable == 0:
        return not_applicable("no trial met the premise")
    example = _best(checker, slots, c)
    note = f"β̂ = {_beta_hat(checker, slots, c):.3g}" if prop.key == "P6" and example is None else ""
    status = "holds" if example is None else "violated"
    return PropertyResult(subject.name, prop.key, status, n_applicable, example, note)


def check_case(
    metric: MetricLike,
    prop: str,
    *distributions: npt.ArrayLike,
    scalar: float = 0.0,
    options: Mapping[str, Any] | None = None,
) -> dict[str, float]:
    """Check one property on one given case: ``{clause: margin}``, NaN where it does not apply.

    A clause is violated when its margin ``lhs - rhs`` is > 0 (>= 0 for a
    strict inequality): a published counterexample can be confirmed so.

    ``prop`` is a property key (``"P3"``), ``distributions`` one (K,) row
    per slot of ``Property.slots`` (``alpha`` for an expected metric's
    targets), ``scalar`` the contraction factor ``c`` of P6; ``metric`` and
    ``options`` as in :func:`audit`.

    Examples
    --------
    Example 2 of Rizzi et al. (2024): clipped cross-entropy breaks the triangle inequality.

    >>> from functools import partial
    >>> from dissensus.metrics import cross_entropy
    >>> ce = partial(cross_entropy, zero="clip")
    >>> m = check_case(ce, "P3", [0.7, 0.3], [0.95, 0.05], [1, 0])
    >>> round(m["M(p, r) <= M(p, q) + M(q, r)"], 4)
    5.9731
    """
    (p,) = _properties([prop])
    if len(distributions) != len(p.slots):
        msg = f"Property {prop} takes {len(p.slots)} distributions {p.slots}; got {len(distributions)}."
        raise ValueError(msg)
    subject = as_subject(metric, options=options)
    slots = [np.asarray(d, dtype=np.float64).reshape(1, -1) for d in distributions]
    checker = _Checker(p, subject, _scale(subject, np.random.default_rng(0), slots[0].shape[1]))
    clauses, _, _ = checker(slots, np.array([float(scalar)]))
    return {
        cl.name: float(cl.lhs[0] - cl.rhs[0]) if cl.applicable[0] else math.nan for cl in clauses
    }


def audit(
    metric: MetricLike | Sequence[MetricLike] | Mapping[str, MetricLike],
    *,
    properties: str | Sequence[str] = "all",
    classes: int = 2,
    n_trials: int = 100_000,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
) -> AuditResult:
    r"""Check which properties of a good soft metric a metric has, by counterexample search.

    For each property (:data:`dissensus.audit.PROPERTIES`, ``docs/audit.md``)
    the audit draws ``n_trials`` seeded trials on the simplex over ``classes``
    classes (interior points, faces with zeros, corners, round grid points;
    for K = 2 also every tuple of the 0.1 grid), screens them all at once in
    float64 with a tolerance relative to the values compared, shrinks the
    candidates to the simplest (fewest non-zero entries, then the roundest
    numbers: multiples of 1/2, 1/4, 1/5, ..., then the rows' values in
    lexicographic order) and reports the first one an independent
    recomputation confirms: for the registry's pointwise metrics the values
    in 50-digit decimal arithmetic (:mod:`dissensus.audit._exact`), compared
    without tolerance. A candidate that is not confirmed is not a violation.

    Parameters
    ----------
    metric : str, Metric, callable, or a sequence or mapping of them
        Registry names (``"manhattan"``, ``"E[emd]"``), registry entries, or
        callables ``f(p, q) -> (N,)`` taken as losses; a mapping names the
        rows. ``options`` are passed to every metric (``{"zero": "clip"}``).
    properties : "all" or sequence of str, default "all"
        Property keys, e.g. ``["P1", "P3"]``.
    classes, n_trials, seed : int, default 2, 100_000, 0
        K, trials per property and metric, and their seed (same seed, same table). A
        search that would take more than :data:`MEMORY_LIMIT` bytes (about
        ``n_trials × K × 192``) is refused before anything is drawn.
    progress : callable, optional
        ``progress(text)`` is called before each (metric, property) search,
        with ``"<i>/<total> <metric> <property>"`` (the CLI shows it).

    Returns
    -------
    AuditResult
        One row per (metric, property): ``"holds"`` (no counterexample found:
        not a proof), ``"violated"`` (the simplest counterexample, its values
        and the margin ``lhs - rhs``) or ``"not applicable"``.

    Notes
    -----
    Similarities (``cosine``) are audited as ``upper bound - value``;
    expected metrics take ``alpha = 1 + counts`` (0 to 20 annotations) as
    target, whose perfect match is the posterior mean :math:`\alpha/\alpha_0`.

    References
    ----------
    Rizzi et al. (2024), *Soft metrics for evaluation with disagreements: an
    assessment* (NLPerspectives at LREC-COLING 2024); Magnani (2025), *Soft
    metrics for ordinal label uncertainty with variable sample sizes* (ASSE
    2025); in full in :mod:`dissensus.audit._properties`.

    Examples
    --------
    >>> table = audit(["manhattan", "kl_divergence"], properties=["P1", "P3"], n_trials=2000)
    >>> table.status("kl_divergence", "P3")
    'violated'
    >>> table.status("manhattan", "P3")
    'holds'
    """
    K = int(classes)
    if K < 2:
        msg = f"The 'classes' parameter of audit must be an integer >= 2. Got {classes!r}."
        raise ValueError(msg)
    n = int(n_trials)
    if n < 1:
        msg = f"The 'n_trials' parameter of audit must be a positive integer. Got {n_trials!r}."
        raise ValueError(msg)
    need = n * K * _BYTES_PER_ENTRY
    if need > MEMORY_LIMIT:
        fits = MEMORY_LIMIT // (n * _BYTES_PER_ENTRY)
        msg = (
            f"An audit of K = {K:,} classes with {n:,} trials per property would take about "
            f"{need / 1024**3:.1f} GiB, above the limit of {MEMORY_LIMIT / 1024**3:.0f} GiB; "
            + (f"at most K = {fits:,} classes fit with {n:,} trials. " if fits >= 2 else "")
            + "Lower the number of classes or of trials (CLI: --classes, --n-trials)."
        )
        raise ValueError(msg)
    if isinstance(properties, str):
        properties = list(_BY_KEY) if properties == "all" else [properties]
    props = _properties(properties)
    if isinstance(metric, Mapping):
        subjects = [as_subject(m, name=str(k), options=options) for k, m in metric.items()]
    elif isinstance(metric, Sequence) and not isinstance(metric, str):
        subjects = [as_subject(m, options=options) for m in metric]
    else:
        subjects = [as_subject(metric, options=options)]
    rows: list[PropertyResult] = []
    drawn: dict[tuple[str, bool], Trials] = {}  # per property and kind of target, drawn once
    total = len(subjects) * len(props)
    for subject in subjects:
        scale = _scale(subject, np.random.default_rng([seed, K]), K)
        for prop in props:
            if progress is not None:
                progress(f"{len(rows) + 1}/{total} {subject.name} {prop.key}")
            key = (prop.key, subject.expected)
            trials = drawn[key] = drawn.get(key) or _draw(prop, subject, K, n, seed)
            rows.append(_audit_one(subject, prop, K, trials, scale))
    return AuditResult(rows=tuple(rows), classes=K, n_trials=n, seed=seed,
                       properties=tuple(properties))  # fmt: skip


@dataclass(frozen=True)
class Counterexample:
    """The simplest violation found: ``clause``, ``distributions``, ``values``, ``margin``.

    The inequality it breaks, its rows (``alpha[...]`` for an expected
    metric's target), the metric values and ``lhs - rhs`` (> 0, or >= 0 if strict).
    """

    clause: str
    distributions: dict[str, list[float]]
    values: dict[str, float]
    margin: float

    def describe(self) -> str:
        """One line: the distributions and the values."""
        dists = ", ".join(
            f"{k} = [{', '.join(format(v, '.4g') for v in x)}]"
            for k, x in self.distributions.items()
        )
        vals = ", ".join(f"{k} = {v:.4g}" for k, v in self.values.items())
        return f"{dists}; {vals}"


@dataclass(frozen=True)
class PropertyResult:
    """One cell of the audit: a metric and a property."""

    metric: str
    property: str
    status: str
    n_applicable: int
    counterexample: Counterexample | None
    note: str = ""


@dataclass(frozen=True)
class AuditResult:
    """The result of :func:`dissensus.audit.audit`: its ``rows``, settings and property keys."""

    rows: tuple[PropertyResult, ...]
    classes: int
    n_trials: int
    seed: int
    properties: tuple[str, ...]

    @property
    def metrics(self) -> list[str]:
        """Audited metric names, in row order."""
        return list(dict.fromkeys(r.metric for r in self.rows))

    def get(self, metric: str, prop: str) -> PropertyResult:
        """The row of one metric and property."""
        for r in self.rows:
            if r.metric == metric and r.property == prop:
                return r
        msg = f"No audit row for metric {metric!r} and property {prop!r}; metrics: {self.metrics}."
        raise KeyError(msg)

    def status(self, metric: str, prop: str) -> str:
        """``"holds"``, ``"violated"`` or ``"not applicable"``."""
        return self.get(metric, prop).status

    def to_frame(self) -> pd.DataFrame:
        """Tidy table: metric, property, status, n_applicable, counterexample, margin, note."""
        return pd.DataFrame([
            {"metric": r.metric, "property": r.property, "status": r.status,
             "n_applicable": r.n_applicable,
             "counterexample": r.counterexample.describe() if r.counterexample else "",
             "margin": r.counterexample.margin if r.counterexample else math.nan, "note": r.note}
            for r in self.rows
        ])  # fmt: skip

    def matrix(self) -> dict[str, dict[str, str]]:
        """``{metric: {property: "✓" | "✗" | "–"}}``."""
        out: dict[str, dict[str, str]] = {m: {} for m in self.metrics}
        for r in self.rows:
            out[r.metric][r.property] = _SYMBOL[r.status]
        return out

    def _repr_html_(self) -> str:
        """Compact notebook view: the ✓/✗ matrix (counterexamples: :meth:`to_markdown`)."""
        caption = (
            f"Audit: {len(self.metrics)} metrics × {len(self.properties)} properties "
            f"({self.classes} classes, {self.n_trials:,} trials, seed {self.seed}); "
            f"{_LEGEND} Counterexamples: .to_markdown()."
        )
        rows = [[m, *(cells[p] for p in self.properties)] for m, cells in self.matrix().items()]
        align = "l" + "c" * len(self.properties)
        return html_fragment(Table(["metric", *self.properties], rows, align, caption))

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready)."""
        return {
            "classes": self.classes,
            "n_trials": self.n_trials,
            "seed": self.seed,
            "properties": list(self.properties),
            "rows": [asdict(r) for r in self.rows],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False)

    def to_markdown(self) -> str:
        """The ✓/✗ matrix, then every counterexample."""
        head = "| metric | " + " | ".join(self.properties) + " |"
        lines = [head, "|" + "---|" * (len(self.properties) + 1)]
        for m, cells in self.matrix().items():
            lines.append(f"| {m} | " + " | ".join(cells[p] for p in self.properties) + " |")
        lines += ["", _LEGEND, "", "### Counterexamples", ""]
        lines += [
            f"- **{r.metric}, {r.property}** ({ce.clause}): {ce.describe()}; margin {ce.margin:.4g}."
            for r in self.rows
            if (ce := r.counterexample) is not None
        ]
        notes = [r for r in self.rows if r.note and r.status != "violated"]
        if notes:
            lines += ["", "### Notes", ""]
            lines += [f"- {r.metric}, {r.property}: {r.note}." for r in notes]
        return "\n".join(lines) + "\n"
