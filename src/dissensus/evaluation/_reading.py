"""The plain-language reading of an evaluation report (:meth:`ReportData.reading`).

Who is best, and whether the lead is significant, is the verdict table's; the
sentences only say it. The rest is read off the reversals, per-bin means,
metric agreement and prior-fit tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dissensus.evaluation._verdict import difference, excludes_zero
from dissensus.report import format_interval, format_number, format_percent, is_missing

if TYPE_CHECKING:
    from dissensus.evaluation._data import ReportData


#: How each family of metrics (``Metric.kind``) is named in a sentence.
FAMILY_WORDS = {
    "pointwise": "pointwise (empirical) metrics",
    "expected": "expected (uncertainty-aware) metrics",
    "debiased": "debiased (annotation-noise corrected) metrics",
}
#: Warn when the prior outweighs the annotations on at least this share of items.
WEAK_SHARE = 0.2
_PREFERRED_COEFFICIENTS = ("alpha", "kappa", "ac1", "ac2")


def join(items: Sequence[str], word: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return "".join(items) if len(items) <= 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


def flag(value: Any) -> bool:
    """Whether a boolean cell is true (missing is false)."""
    return False if is_missing(value) else bool(value)


def _metric_rows(data: ReportData, scope: str = "overall") -> pd.DataFrame:
    v = data.family_verdict
    return v[(v["scope"] == scope) & v["metric"].notna() & (v["best"] != "")]


def _best(data: ReportData) -> dict[str, list[str]]:
    """Per metric, its best model(s) (the verdict's)."""
    return {str(r.metric): str(r.best).split(" = ") for r in _metric_rows(data).itertuples()}


def _best_sentence(data: ReportData) -> str | None:
    rows = _metric_rows(data)
    if rows.empty or len(data.models) < 2:
        return None
    best = _best(data)

    def who(metric: str) -> str:
        models = best[metric]
        return f"{models[0]} is best" if len(models) == 1 else f"{join(models)} tie as best"

    metrics = list(best)
    if len(set(rows["best"])) == 1:
        return f"{who(metrics[0])} under every metric ({join(metrics)})."
    clauses = []
    for family, group in rows.groupby("family", sort=False):
        names = [str(m) for m in group["metric"]]
        label = FAMILY_WORDS[str(family)]
        if len(set(group["best"])) == 1:
            clauses.append(f"under the {label} ({join(names)}), {who(names[0])}")
        else:
            per_metric = [f"{join(best[m])} under {m}" for m in names]
            clauses.append(f"under the {label} the best model varies: {join(per_metric)}")
    sentence = "; ".join(clauses) + "."
    return sentence[0].upper() + sentence[1:]


def _lead_sentence(data: ReportData) -> str | None:
    rows = _metric_rows(data)
    leads = [
        (str(r.metric), str(r.best), str(r.runner_up), flag(r.significant))
        for r in rows[(rows["n_best"] == 1) & rows["lead"].notna()].itertuples()
    ]
    if not leads:
        return None
    pairs = {(w, r) for _, w, r, _ in leads}
    if len(pairs) == 1:  # one winner and one runner-up throughout: name them once
        ((winner, runner),) = pairs
        subject = f"{winner}'s lead over the runner-up, {runner},"
        names = [[m for m, _, _, s in leads if s is sig] for sig in (True, False)]
    else:
        subject = "The best model's lead over the runner-up"
        names = [
            [f"{m} ({w} over {r})" for m, w, r, s in leads if s is sig] for sig in (True, False)
        ]
    significant, not_significant = names
    if not not_significant:
        if len(leads) < len(data.metrics):
            return f"{subject} is significant under {join(significant)}."
        listed = "" if len(pairs) == 1 else f": {join(significant)}"
        return f"{subject} is significant under every metric{listed}."
    if not significant:
        return (
            f"{subject} is not significant under any metric (the interval of the difference "
            f"includes zero): {join(not_significant)}."
        )
    return (
        f"{subject} is significant under {join(significant)}, but not under "
        f"{join(not_significant)}, where the interval of the difference includes zero."
    )


def _headline_reversal(data: ReportData) -> pd.Series:
    """The reversal most worth a sentence: between the best models, mixed kinds, significant."""
    best = _best(data)

    def score(row: pd.Series) -> tuple[int, int, int]:
        m1, m2 = str(row["metric_1"]), str(row["metric_2"])
        top = str(row["better_1"]) in best.get(m1, []) and str(row["better_2"]) in best.get(m2, [])
        mixed = {data.kind(m1), data.kind(m2)} == {"pointwise", "expected"}
        return int(top), int(mixed), flag(row["significant_1"]) + flag(row["significant_2"])

    rev = data.reversals
    scores = [score(row) for _, row in rev.iterrows()]
    return rev.iloc[max(range(len(scores)), key=lambda i: scores[i])]


def _reversal_sentences(data: ReportData) -> list[str]:
    rev = data.reversals
    if len(data.models) < 2 or len(data.metrics) < 2:
        return []
    if rev.empty:
        return ["No pair of models changes order between any two metrics."]
    sig_1, sig_2 = (rev[f"significant_{k}"].map(flag).to_numpy(dtype=bool) for k in (1, 2))
    n_both, n_one = int(np.sum(sig_1 & sig_2)), int(np.sum(sig_1 ^ sig_2))
    noun = "reversal" if len(rev) == 1 else "reversals"
    sentences = [
        f"{len(rev)} ranking {noun} (a pair of models ordered differently by two metrics): "
        f"{n_both} significant under both metrics, {n_one} under one only, "
        f"{len(rev) - n_both - n_one} under neither."
    ]
    row = _headline_reversal(data)
    a, b = str(row["model_a"]), str(row["model_b"])
    m1, m2 = str(row["metric_1"]), str(row["metric_2"])
    s1, s2 = flag(row["significant_1"]), flag(row["significant_2"])
    loser_1, loser_2 = (b if str(row[f"better_{k}"]) == a else a for k in (1, 2))
    verdict = "so this reversal is " + (
        "significant under both metrics" if s1 and s2
        else f"significant only under {m1 if s1 else m2}" if s1 or s2
        else "not significant under either metric"
    )  # fmt: skip
    words = {True: "significant", False: "not significant"}
    sentences.append(
        f"{row['better_1']} beats {loser_1} under {m1} ({a} − {b} = "
        f"{format_number(row['diff_1'])} {format_interval(row['ci_low_1'], row['ci_high_1'])}, "
        f"{words[s1]}), but {row['better_2']} beats {loser_2} under {m2} "
        f"({format_number(row['diff_2'])} "
        f"{format_interval(row['ci_low_2'], row['ci_high_2'])}, {words[s2]}); {verdict}."
    )
    bins_sentence = _bins_sentence(data, a, b, m1, m2)
    return [*sentences, bins_sentence] if bins_sentence else sentences


def _ahead_by_bin(data: ReportData, metric: str, a: str, b: str) -> dict[str, tuple[str, int]]:
    """Per bin: which of ``a``/``b`` has the better mean under ``metric`` ("" for a tie), and items."""
    lower = data.lower_is_better(metric)
    out: dict[str, tuple[str, int]] = {}
    for label, means, n_items in data.bin_means(metric):
        if a not in means or b not in means or not np.isfinite([means[a], means[b]]).all():
            continue
        ahead = a if (means[a] < means[b]) == lower else b
        out[label] = ("" if means[a] == means[b] else ahead, n_items)
    return out


def _bins_sentence(data: ReportData, a: str, b: str, m1: str, m2: str) -> str | None:
    first, second = _ahead_by_bin(data, m1, a, b), _ahead_by_bin(data, m2, a, b)
    common = [label for label in first if label in second]
    if not common:
        return None
    disagree = [label for label in common if first[label][0] != second[label][0]]
    agree = [label for label in common if label not in disagree]
    total = sum(first[label][1] for label in common)
    n_disagree = sum(first[label][1] for label in disagree)
    if not disagree:
        return (
            f"Within every bin of annotations per item, {m1} and {m2} order {a} and {b} "
            "the same way; the overall reversal comes from ties or bins missing a model."
        )
    tail = (
        f" and the same way among items with {join(agree, 'or')}"
        if agree
        else ", that is, in every bin"
    )
    return (
        f"{m1} and {m2} order {a} and {b} differently among items with "
        f"{join(disagree, 'or')} annotations ({n_disagree:,} of {total:,} items){tail}."
    )


def _agreement_sentence(data: ReportData) -> str | None:
    table = data.metric_agreement.dropna(subset=["share_reranked"])
    if table.empty:
        return None

    def describe(row: pd.Series) -> str:
        tau = format_number(row["kendall_tau"], digits=2)
        return f"{format_percent(row['share_reranked'])} of models re-ranked, Kendall's τ = {tau}"

    ordered = table.assign(_tau=table["kendall_tau"].astype(float).fillna(0.0))
    ordered = ordered.sort_values(
        ["share_reranked", "_tau"], ascending=[False, True], kind="stable"
    )
    most, least = ordered.iloc[0], ordered.iloc[-1]
    if len(ordered) == 1:
        return f"Rankings under {most['metric_1']} and {most['metric_2']}: {describe(most)}."
    if float(most["share_reranked"]) == float(least["share_reranked"]):
        return f"Every pair of metrics re-ranks the same share of models ({describe(most)})."
    return (
        f"Rankings differ most between {most['metric_1']} and {most['metric_2']} "
        f"({describe(most)}) and least between {least['metric_1']} and {least['metric_2']} "
        f"({describe(least)})."
    )


def _dataset_sentence(data: ReportData) -> str | None:
    counts = data.annotations_per_item
    if counts.size == 0:
        return None
    few = int(np.count_nonzero(counts <= 3))
    sentence = (
        f"{counts.size:,} items with a median of {float(np.median(counts)):g} annotations each "
        f"(range {counts.min():,}–{counts.max():,})"
    )
    if few:
        sentence += (
            f"; {format_percent(few / counts.size)} have at most 3, where an item's observed "
            "label proportions are least certain"
        )
    sentence += "."
    agreement = data.agreement
    if agreement is not None and len(agreement):
        # quote a chance-corrected coefficient (alpha, kappa, AC1) when there is one
        names = agreement["coefficient"].astype(str).str.lower()
        hits = [agreement[names.str.contains(k, regex=False)] for k in _PREFERRED_COEFFICIENTS]
        row = next((h.iloc[0] for h in hits if len(h)), agreement.iloc[0])
        interval = format_interval(row["ci_low"], row["ci_high"])
        sentence += f" {row['coefficient']} = {format_number(row['value'])}"
        sentence += f" {interval}." if interval else "."
    return sentence


def plain_reading(data: ReportData) -> list[str]:
    """The sentences of :meth:`ReportData.reading`; empty tables give fewer sentences."""
    sentences = [_best_sentence(data), _lead_sentence(data), *_reversal_sentences(data)]
    sentences += [_agreement_sentence(data), _dataset_sentence(data)]
    return [s for s in sentences if s]


def supported_prior(data: ReportData) -> dict[str, Any] | None:
    """The ``prior_fit`` row with the highest marginal log-likelihood, or None."""
    fit = data.prior_fit
    if fit is None or fit.empty or fit["log_likelihood"].isna().all():
        return None
    best = int(np.nanargmax(fit["log_likelihood"].to_numpy(dtype=float)))
    return {str(k): v for k, v in fit.iloc[best].items()}


def prior_sentences(data: ReportData) -> tuple[list[str], str | None]:
    """(how the expected metrics' verdict depends on the prior, and a warning or None)."""
    sentences: list[str] = []
    per_prior: dict[str, dict[str, str]] = {}
    for r in _metric_rows(data, "prior").itertuples():
        per_prior.setdefault(str(r.prior), {})[str(r.metric)] = str(r.best)

    def describe(winners: dict[str, str]) -> str:
        groups: dict[str, list[str]] = {}
        for metric, models in winners.items():
            groups.setdefault(models, []).append(metric)
        if len(groups) == 1:
            return f"{next(iter(groups))} under every expected metric"
        return ", ".join(f"{m} under {join(ms)}" for m, ms in groups.items())

    if per_prior and len({tuple(sorted(w.items())) for w in per_prior.values()}) == 1:
        sentences.append(
            f"The expected metrics pick the same best model under every prior compared "
            f"({join(list(per_prior))}): {describe(next(iter(per_prior.values())))}."
        )
    elif per_prior:
        listed = "; ".join(f"{p}: {describe(w)}" for p, w in per_prior.items())
        sentences.append(
            f"The expected metrics' verdict depends on the prior ({listed}). Read them with "
            "the prior the data support."
        )
    fit, supported = data.prior_fit, supported_prior(data)
    warning = None
    if fit is not None and len(fit):
        used = fit[fit["used"].astype(bool)]
        row = used.iloc[0] if len(used) else fit.iloc[0]
        if not is_missing(row["share_items_weak"]) and row["share_items_weak"] >= WEAK_SHARE:
            warning = (
                f"The {row['prior']} prior adds {format_number(row['strength'], digits=2)} "
                f"pseudo-counts per item, at least as many as the annotations of "
                f"{format_percent(row['share_items_weak'])} of items; on those items the "
                "expected metrics reflect the prior more than the annotators."
            )
    if supported is not None and fit is not None and len(fit) > 1:
        others = [
            f"{format_number(rec['log_likelihood'], digits=1)} for {rec['prior']}"
            for rec in fit.to_dict("records")
            if str(rec["prior"]) != str(supported["prior"])
            and not is_missing(rec["log_likelihood"])
        ]
        sentences.append(
            f"The data support the {supported['prior']} prior: Dirichlet-multinomial "
            f"log-likelihood {format_number(supported['log_likelihood'], digits=1)}"
            + (f", against {join(others)}." if others else ".")
        )
    return sentences, warning


def reversal_statements(data: ReportData) -> list[str]:
    """Reversals grouped by pair of models and family of metrics, one sentence per pair."""
    rev = data.reversals
    position = {m: i for i, m in enumerate(data.models)}
    pairs = dict.fromkeys(
        tuple(sorted((str(a), str(b)), key=lambda m: (position.get(m, len(position)), m)))
        for a, b in zip(rev["model_a"], rev["model_b"], strict=True)
    )
    statements = []
    for a, b in pairs:
        clauses = []
        for family, metrics in data.families().items():
            sides: dict[str, list[tuple[str, bool]]] = {}
            for metric in metrics:
                d = difference(data.differences, metric, a, b)
                if d is None or np.isnan(d[0]) or d[0] == 0:
                    continue
                better = a if (d[0] < 0) == data.lower_is_better(metric) else b
                sides.setdefault(better, []).append((metric, excludes_zero(d[1], d[2])))
            parts = [
                f"{winner} is better ({', '.join(m for m, _ in won)}; "
                f"significant under {sum(s for _, s in won)} of {len(won)})"
                for winner, won in sorted(sides.items(), key=lambda kv: -len(kv[1]))
            ]
            if parts:
                label = "empirical" if family == "pointwise" else family
                clauses.append(f"under the {label} metrics " + " but ".join(parts))
        if clauses:
            statements.append(f"{a} vs {b}: " + "; ".join(clauses) + ".")
    return statements
