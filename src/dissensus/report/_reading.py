"""A short plain-language reading of a report, generated from its tables.

Every sentence is read off the tables (best model per metric, paired
differences, reversals, results per number of annotations, metric
agreement); significance is stated as the tables give it (an interval that
excludes zero), never implied.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from dissensus.report._data import (
    FAMILY_LABELS,
    ReportData,
    difference,
    excludes_zero,
    family_metrics,
    format_interval,
    format_number,
    ordered_models,
    supported_prior,
    used_prior,
)

__all__ = ["plain_reading", "prior_sentences", "reversal_statements"]

_KIND_LABELS = {
    "pointwise": "pointwise (empirical) metrics",
    "expected": "expected (uncertainty-aware) metrics",
    "debiased": "debiased (annotation-noise corrected) metrics",
}


def _join(items: Sequence[str], word: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {word} " + items[-1]


def _flag(value: Any) -> bool:
    return bool(value) if not pd.isna(value) else False


def _best_models(data: ReportData) -> dict[str, list[str]]:
    best: dict[str, list[str]] = {}
    for metric in data.metrics:
        rows = data.summary[(data.summary["metric"].astype(str) == metric) & data.summary["best"]]
        best[metric] = [str(m) for m in rows["model"]]
    return best


def _best_sentence(data: ReportData, best: dict[str, list[str]]) -> str | None:
    metrics = [m for m in data.metrics if best.get(m)]
    if not metrics or len(data.models) < 2:
        return None

    def who(models: list[str]) -> str:
        return f"{models[0]} is best" if len(models) == 1 else f"{_join(models)} tie as best"

    winners = {tuple(best[m]) for m in metrics}
    if len(winners) == 1:
        return f"{who(best[metrics[0]])} under every metric ({_join(metrics)})."
    clauses = []
    kinds: dict[str | None, list[str]] = {}
    for metric in metrics:
        kinds.setdefault(data.kind(metric), []).append(metric)
    for kind, group in kinds.items():
        label = _KIND_LABELS.get(kind or "", "other metrics")
        group_winners = {tuple(best[m]) for m in group}
        if len(group_winners) == 1:
            clauses.append(f"under the {label} ({_join(group)}), {who(best[group[0]])}")
        else:
            per_metric = [f"{_join(best[m])} under {m}" for m in group]
            clauses.append(f"under the {label} the best model varies: {_join(per_metric)}")
    sentence = "; ".join(clauses) + "."
    return sentence[0].upper() + sentence[1:]


def _lead_sentence(data: ReportData, best: dict[str, list[str]]) -> str | None:
    leads: list[tuple[str, str, str, bool]] = []  # metric, winner, runner-up, significant
    for metric, winners in best.items():
        if len(winners) != 1:
            continue
        rows = data.summary[data.summary["metric"].astype(str) == metric]
        rows = rows[np.isfinite(rows["mean"].astype(float))]
        rows = rows.sort_values("mean", ascending=data.lower_is_better(metric), kind="stable")
        others = [str(m) for m in rows["model"] if str(m) != winners[0]]
        if not others:
            continue
        diff = difference(data, metric, winners[0], others[0])
        if diff is not None:
            leads.append((metric, winners[0], others[0], excludes_zero(diff[1], diff[2])))
    if not leads:
        return None
    pairs = {(w, r) for _, w, r, _ in leads}
    if len(pairs) == 1:
        # one winner and one runner-up throughout: name them once
        ((winner, runner),) = pairs
        subject = f"{winner}'s lead over the runner-up, {runner},"

        def names(group: list[tuple[str, str, str, bool]]) -> list[str]:
            return [m for m, _, _, _ in group]
    else:
        subject = "The best model's lead over the runner-up"

        def names(group: list[tuple[str, str, str, bool]]) -> list[str]:
            return [f"{m} ({w} over {r})" for m, w, r, _ in group]

    significant = [lead for lead in leads if lead[3]]
    not_significant = [lead for lead in leads if not lead[3]]
    if not not_significant:
        if len(leads) < len(data.metrics):
            return f"{subject} is significant under {_join(names(significant))}."
        listed = "" if len(pairs) == 1 else f": {_join(names(significant))}"
        return f"{subject} is significant under every metric{listed}."
    if not significant:
        return (
            f"{subject} is not significant under any metric (the interval of the difference "
            f"includes zero): {_join(names(not_significant))}."
        )
    return (
        f"{subject} is significant under {_join(names(significant))}, but not under "
        f"{_join(names(not_significant))}, where the interval of the difference includes zero."
    )


def _headline_reversal(data: ReportData, best: dict[str, list[str]]) -> pd.Series | None:
    """The reversal most worth a sentence: between the best models, significant first."""
    rev = data.reversals
    if rev.empty:
        return None

    def score(row: pd.Series) -> tuple[int, int, int]:
        best_pair = str(row["better_1"]) in best.get(str(row["metric_1"]), []) and str(
            row["better_2"]
        ) in best.get(str(row["metric_2"]), [])
        kinds = {data.kind(str(row["metric_1"])), data.kind(str(row["metric_2"]))}
        n_sig = _flag(row["significant_1"]) + _flag(row["significant_2"])
        return (int(best_pair), int(kinds == {"pointwise", "expected"}), n_sig)

    scores = [score(row) for _, row in rev.iterrows()]
    return rev.iloc[max(range(len(scores)), key=lambda i: scores[i])]


def _significance_words(flag: bool) -> str:
    return "significant" if flag else "not significant"


def _reversal_sentences(data: ReportData, best: dict[str, list[str]]) -> list[str]:
    rev = data.reversals
    if len(data.models) < 2 or len(data.metrics) < 2:
        return []
    if rev.empty:
        return ["No pair of models changes order between any two metrics."]
    sig_1 = rev["significant_1"].map(_flag).to_numpy(dtype=bool)
    sig_2 = rev["significant_2"].map(_flag).to_numpy(dtype=bool)
    n_both = int(np.sum(sig_1 & sig_2))
    n_one = int(np.sum(sig_1 ^ sig_2))
    n_none = len(rev) - n_both - n_one
    noun = "reversal" if len(rev) == 1 else "reversals"
    sentences = [
        f"{len(rev)} ranking {noun} (a pair of models ordered differently by two metrics): "
        f"{n_both} significant under both metrics, {n_one} under one only, "
        f"{n_none} under neither."
    ]
    row = _headline_reversal(data, best)
    if row is None:  # pragma: no cover - rev is not empty here
        return sentences
    a, b = str(row["model_a"]), str(row["model_b"])
    m1, m2 = str(row["metric_1"]), str(row["metric_2"])
    s1, s2 = _flag(row["significant_1"]), _flag(row["significant_2"])
    loser_1 = b if str(row["better_1"]) == a else a
    loser_2 = b if str(row["better_2"]) == a else a
    if s1 and s2:
        verdict = "so this reversal is significant under both metrics"
    elif s1 or s2:
        verdict = f"so this reversal is significant only under {m1 if s1 else m2}"
    else:
        verdict = "so this reversal is not significant under either metric"
    sentences.append(
        f"{row['better_1']} beats {loser_1} under {m1} ({a} − {b} = "
        f"{format_number(row['diff_1'])} {format_interval(row['ci_low_1'], row['ci_high_1'])}, "
        f"{_significance_words(s1)}), but {row['better_2']} beats {loser_2} under {m2} "
        f"({format_number(row['diff_2'])} "
        f"{format_interval(row['ci_low_2'], row['ci_high_2'])}, {_significance_words(s2)}); "
        f"{verdict}."
    )
    bins_sentence = _bins_sentence(data, a, b, m1, m2)
    if bins_sentence:
        sentences.append(bins_sentence)
    return sentences


def _winner_by_bin(data: ReportData, metric: str, a: str, b: str) -> dict[str, tuple[str, int]]:
    """Per bin: which of ``a``/``b`` is ahead under ``metric`` ("" for a tie), and items."""
    sub = data.by_bin[data.by_bin["metric"].astype(str) == metric]
    lower = data.lower_is_better(metric)
    out: dict[str, tuple[str, int]] = {}
    for label in data.bins():
        in_bin = sub[sub["bin"].astype(str) == label]
        means = {str(m): float(v) for m, v in zip(in_bin["model"], in_bin["mean"], strict=True)}
        if a not in means or b not in means or not np.isfinite([means[a], means[b]]).all():
            continue
        ahead = a if (means[a] < means[b]) == lower else b
        winner = "" if means[a] == means[b] else ahead
        out[label] = (winner, int(in_bin["n_items"].max()))
    return out


def _bins_sentence(data: ReportData, a: str, b: str, m1: str, m2: str) -> str | None:
    first = _winner_by_bin(data, m1, a, b)
    second = _winner_by_bin(data, m2, a, b)
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
    sentence = (
        f"{m1} and {m2} order {a} and {b} differently among items with "
        f"{_join(disagree, 'or')} annotations ({n_disagree:,} of {total:,} items)"
    )
    if agree:
        sentence += f" and the same way among items with {_join(agree, 'or')}"
    else:
        sentence += ", that is, in every bin"
    return sentence + "."


def _agreement_sentence(data: ReportData) -> str | None:
    table = data.metric_agreement.dropna(subset=["share_reranked"])
    if table.empty:
        return None

    def describe(row: pd.Series) -> str:
        return (
            f"{100 * float(row['share_reranked']):.0f}% of models re-ranked, "
            f"Kendall's τ = {format_number(row['kendall_tau'], digits=2)}"
        )

    ordered = table.assign(_tau=table["kendall_tau"].astype(float).fillna(0.0)).sort_values(
        ["share_reranked", "_tau"], ascending=[False, True], kind="stable"
    )
    most, least = ordered.iloc[0], ordered.iloc[-1]
    if len(ordered) == 1 or float(most["share_reranked"]) == float(least["share_reranked"]):
        return (
            f"Rankings under {most['metric_1']} and {most['metric_2']}: {describe(most)}."
            if len(ordered) == 1
            else f"Every pair of metrics re-ranks the same share of models ({describe(most)})."
        )
    return (
        f"Rankings differ most between {most['metric_1']} and {most['metric_2']} "
        f"({describe(most)}) and least between {least['metric_1']} and {least['metric_2']} "
        f"({describe(least)})."
    )


_PREFERRED_COEFFICIENTS = ("alpha", "kappa", "ac1", "ac2")


def _agreement_row(agreement: pd.DataFrame) -> pd.Series | None:
    """The coefficient to quote: a chance-corrected one (alpha, kappa, AC1) if present."""
    names = agreement["coefficient"].astype(str).str.lower()
    for key in _PREFERRED_COEFFICIENTS:
        hits = agreement[names.str.contains(key, regex=False)]
        if len(hits):
            return hits.iloc[0]
    return agreement.iloc[0] if len(agreement) else None


def _dataset_sentence(data: ReportData) -> str | None:
    counts = data.annotations_per_item
    if counts.size == 0:
        return None
    median = float(np.median(counts))
    few = int(np.count_nonzero(counts <= 3))
    sentence = (
        f"{counts.size:,} items with a median of {median:g} annotations each "
        f"(range {counts.min():,}–{counts.max():,})"
    )
    if few:
        sentence += (
            f"; {100 * few / counts.size:.0f}% have at most 3, where an item's observed label "
            "proportions are least certain"
        )
    sentence += "."
    row = None if data.agreement is None else _agreement_row(data.agreement)
    if row is not None:
        interval = format_interval(row["ci_low"], row["ci_high"])
        sentence += f" {row['coefficient']} = {format_number(row['value'])}" + (
            f" {interval}." if interval else "."
        )
    return sentence


#: Warn when the prior outweighs the annotations on at least this share of items.
WEAK_SHARE = 0.2


def prior_sentences(data: ReportData) -> tuple[list[str], str | None]:
    """(sentences on how the expected metrics' verdict depends on the prior, warning or None).

    Examples
    --------
    >>> from dissensus.report._data import example_report_data
    >>> prior_sentences(example_report_data())
    ([], None)
    """
    sentences: list[str] = []
    table = data.prior_sensitivity
    if table is not None and not table.empty:
        best = table[table["best"].astype(bool)]
        per_prior: dict[str, dict[str, tuple[str, ...]]] = {}
        for rec in best.itertuples(index=False):
            metric_winners = per_prior.setdefault(str(rec.prior), {})
            metric_winners[str(rec.metric)] = (
                *metric_winners.get(str(rec.metric), ()),
                str(rec.model),
            )
        verdicts = {tuple(sorted(w.items())) for w in per_prior.values()}

        def describe(winners: dict[str, tuple[str, ...]]) -> str:
            groups: dict[str, list[str]] = {}
            for metric, models in winners.items():
                groups.setdefault(" = ".join(models), []).append(metric)
            if len(groups) == 1:
                ((model, _),) = groups.items()
                return f"{model} under every expected metric"
            return ", ".join(f"{m} under {_join(ms)}" for m, ms in groups.items())

        if len(verdicts) == 1:
            sentences.append(
                f"The expected metrics pick the same best model under every prior compared "
                f"({_join(list(per_prior))}): {describe(next(iter(per_prior.values())))}."
            )
        else:
            listed = "; ".join(f"{p}: {describe(w)}" for p, w in per_prior.items())
            sentences.append(
                f"The expected metrics' verdict depends on the prior ({listed}). Read them with "
                "the prior the data support."
            )
    used, supported = used_prior(data), supported_prior(data)
    warning = None
    if used is not None and not pd.isna(used["share_items_weak"]):
        share = float(used["share_items_weak"])
        if share >= WEAK_SHARE:
            warning = (
                f"The {used['prior']} prior adds {format_number(used['strength'], digits=2)} "
                f"pseudo-counts per item, at least as many as the annotations of "
                f"{100 * share:.0f}% of items; on those items the expected metrics reflect the "
                "prior more than the annotators."
            )
    if supported is not None and data.prior_fit is not None and len(data.prior_fit) > 1:
        others = [
            f"{format_number(rec['log_likelihood'], digits=1)} for {rec['prior']}"
            for rec in data.prior_fit.to_dict("records")
            if str(rec["prior"]) != str(supported["prior"]) and not pd.isna(rec["log_likelihood"])
        ]
        sentences.append(
            f"The data support the {supported['prior']} prior: Dirichlet-multinomial "
            f"log-likelihood {format_number(supported['log_likelihood'], digits=1)}"
            + (f", against {_join(others)}." if others else ".")
        )
    return sentences, warning


def reversal_statements(data: ReportData) -> list[str]:
    """Reversals grouped by pair of models and family of metrics, one sentence per pair.

    Examples
    --------
    >>> from dissensus.report._data import example_report_data
    >>> reversal_statements(example_report_data())
    ['A vs B: under the empirical metrics A is better (CE; significant under 1 of 1); under the expected metrics B is better (E[CE]; significant under 0 of 1).']
    """
    rev = data.reversals
    if rev.empty:
        return []
    position = {m: i for i, m in enumerate(data.models)}
    pairs = list(
        dict.fromkeys(
            tuple(sorted((str(a), str(b)), key=lambda m: (position.get(m, len(position)), m)))
            for a, b in zip(rev["model_a"], rev["model_b"], strict=True)
        )
    )
    statements = []
    for a, b in pairs:
        clauses = []
        for kind, metrics in family_metrics(data).items():
            sides: dict[str, list[tuple[str, bool]]] = {}
            for metric in metrics:
                order = [m for m in ordered_models(data, metric) if m in (a, b)]
                if len(order) < 2:
                    continue
                diff = difference(data, metric, order[0], order[1])
                if diff is None or diff[0] == 0:
                    continue
                sides.setdefault(order[0], []).append((metric, excludes_zero(diff[1], diff[2])))
            parts = []
            for winner, won in sorted(sides.items(), key=lambda kv: -len(kv[1])):
                n_sig = sum(sig for _, sig in won)
                parts.append(
                    f"{winner} is better ({', '.join(m for m, _ in won)}; "
                    f"significant under {n_sig} of {len(won)})"
                )
            if parts:
                label = FAMILY_LABELS.get(kind, kind).lower()
                clauses.append(f"under the {label} metrics " + " but ".join(parts))
        if clauses:
            statements.append(f"{a} vs {b}: " + "; ".join(clauses) + ".")
    return statements


def plain_reading(data: ReportData) -> list[str]:
    """A short plain-language reading of the report, one sentence (or two) per point.

    Read off the tables: which model is best under the pointwise and the
    expected metrics, whether the best model's lead over the runner-up is
    significant, how many ranking reversals there are and how many are
    significant under both metrics, the headline reversal with its
    differences, the bins of annotations per item where its two metrics
    disagree, which metrics rank most and least alike, and how sparse the
    annotations are.

    Parameters
    ----------
    data : ReportData
        The report's tables.

    Returns
    -------
    list of str
        Sentences in reading order; empty tables give fewer sentences.

    Notes
    -----
    "Significant" means what the tables say: the interval of the paired
    difference excludes zero. Nothing else (no causal claim, no judgement
    of size) is added.

    Examples
    --------
    >>> from dissensus.report._data import example_report_data
    >>> for sentence in plain_reading(example_report_data()):
    ...     print(sentence)
    Under the pointwise (empirical) metrics (CE), A is best; under the expected (uncertainty-aware) metrics (E[CE]), B is best.
    The best model's lead over the runner-up is significant under CE (A over B), but not under E[CE] (B over A), where the interval of the difference includes zero.
    1 ranking reversal (a pair of models ordered differently by two metrics): 0 significant under both metrics, 1 under one only, 0 under neither.
    A beats B under CE (A − B = −0.050 [−0.080, −0.020], significant), but B beats A under E[CE] (0.030 [−0.010, 0.070], not significant); so this reversal is significant only under CE.
    CE and E[CE] order A and B differently among items with 2–3 annotations (80 of 100 items) and the same way among items with 4+.
    Rankings under CE and E[CE]: 100% of models re-ranked, Kendall's τ = −1.00.
    100 items with a median of 3 annotations each (range 2–6); 80% have at most 3, where an item's observed label proportions are least certain.
    """
    best = _best_models(data)
    sentences = [
        _best_sentence(data, best),
        _lead_sentence(data, best),
        *_reversal_sentences(data, best),
        _agreement_sentence(data),
        _dataset_sentence(data),
    ]
    return [s for s in sentences if s]
