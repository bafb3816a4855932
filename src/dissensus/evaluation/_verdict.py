"""The verdict of an evaluation (:meth:`Evaluation.verdict`, whose docstring describes it).

:func:`verdict_table` holds every "which model wins" answer of the report,
with the counts its sentences quote; the report and its reading only render it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from dissensus.report import is_missing

if TYPE_CHECKING:
    from dissensus.evaluation._data import ReportData


#: Columns of :func:`verdict_table`.
VERDICT_COLUMNS = (
    "scope", "prior", "bin", "family", "metric", "best", "n_best", "wins", "n_metrics",
    "runner_up", "lead", "ci_low", "ci_high", "significant", "n_won", "n_significant",
)  # fmt: skip


def excludes_zero(low: Any, high: Any) -> bool:
    """Whether the interval ``[low, high]`` lies strictly on one side of zero."""
    if is_missing(low) or is_missing(high):
        return False
    return bool(float(low) > 0 or float(high) < 0)


def difference(
    differences: pd.DataFrame, metric: str, a: str, b: str
) -> tuple[float, Any, Any] | None:
    """``mean(a) - mean(b)`` under ``metric`` with its interval, from either orientation."""
    rows = differences[differences["metric"].astype(str) == metric]
    first, second = rows["model_a"].astype(str), rows["model_b"].astype(str)
    same = rows[(first == a) & (second == b)]
    if len(same):
        row = same.iloc[0]
        return float(row["diff"]), row["ci_low"], row["ci_high"]
    flipped = rows[(first == b) & (second == a)]
    if len(flipped):
        row = flipped.iloc[0]
        return -float(row["diff"]), -row["ci_high"], -row["ci_low"]
    return None


def _family(
    base: dict[str, Any], leads: Mapping[str, tuple[list[str], bool | None]], models: list[str], *,
    tested: bool = True,
) -> dict[str, Any]:  # fmt: skip
    """The family row from each metric's (best models, lead significant or None)."""
    wins = dict.fromkeys(models, 0)
    for best, _ in leads.values():
        if best:
            wins[best[0]] = wins.get(best[0], 0) + 1
    top = max(wins.values(), default=0)
    winners = [m for m, w in wins.items() if w == top and top > 0]
    won = [sig for best, sig in leads.values() if best and best[0] in winners]
    return {
        **base, "metric": None, "best": " = ".join(winners), "n_best": len(winners),
        "wins": top, "n_metrics": len(leads), "n_won": len(won),
        "n_significant": sum(bool(s) for s in won) if tested else None,
        "significant": (bool(won) and all(bool(s) for s in won)) if tested else None,
    }  # fmt: skip


def verdict_table(data: ReportData) -> pd.DataFrame:
    """The verdict (module docstring) of a report's tables."""
    models, metrics, bins = data.models, data.metrics, data.bins()
    prior = str(data.dataset["prior"])
    summary, differences = data.summary, data.differences
    kinds, lower = {m: data.kind(m) for m in metrics}, {m: data.lower_is_better(m) for m in metrics}
    families = data.families()
    rows: list[dict[str, Any]] = []
    overall = {"scope": "overall", "prior": prior, "bin": "all"}
    leads: dict[str, tuple[list[str], bool | None]] = {}
    for metric in metrics:
        sub = summary[summary["metric"].astype(str) == metric]
        best = [str(m) for m in sub.loc[sub["best"].astype(bool), "model"]]
        finite = sub[np.isfinite(sub["mean"].to_numpy(dtype=float))]
        finite = finite.sort_values("mean", ascending=lower[metric], kind="stable")
        runner = next((str(m) for m in finite["model"] if best and str(m) != best[0]), None)
        lead = None if runner is None else difference(differences, metric, best[0], runner)
        sig = None if lead is None else excludes_zero(lead[1], lead[2])
        leads[metric] = (best, sig)
        rows.append(
            {**overall, "family": kinds[metric], "metric": metric,
             "best": " = ".join(best), "n_best": len(best), "runner_up": runner,
             "lead": np.nan if lead is None else lead[0], "significant": sig,
             "ci_low": np.nan if lead is None else lead[1],
             "ci_high": np.nan if lead is None else lead[2]}
        )  # fmt: skip
    for family, names in families.items():
        rows.append(_family({**overall, "family": family}, {m: leads[m] for m in names}, models))
    per_bin = {m: {label: means for label, means, _ in data.bin_means(m)} for m in metrics}
    for family, names in families.items():
        for label in bins:
            firsts: dict[str, tuple[list[str], bool | None]] = {}
            for metric in names:
                means = {k: v for k, v in per_bin[metric].get(label, {}).items() if not np.isnan(v)}
                pick = (
                    (min if lower[metric] else max)(means, key=means.__getitem__) if means else None
                )
                firsts[metric] = ([pick] if pick is not None else [], None)
            base = {"scope": "bin", "prior": prior, "bin": label, "family": family}
            rows.append(_family(base, firsts, models, tested=False))
    sens = data.prior_sensitivity if data.prior_sensitivity is not None else pd.DataFrame()
    for name in pd.unique(sens["prior"].astype(str)) if len(sens) else []:
        base = {"scope": "prior", "prior": str(name), "bin": "all", "family": "expected"}
        per_prior = sens[sens["prior"].astype(str) == name]
        firsts = {}
        for metric in pd.unique(per_prior["metric"].astype(str)):
            rows_ = per_prior[per_prior["metric"].astype(str) == metric]
            best = rows_[rows_["best"].astype(bool)]
            models_best = [str(m) for m in best["model"]]
            sig = bool(best["significant"].astype(bool).all()) if len(best) else None
            firsts[str(metric)] = (models_best, sig)
            rows.append(
                {**base, "metric": str(metric), "best": " = ".join(models_best),
                 "n_best": len(models_best), "significant": sig}
            )  # fmt: skip
        rows.append(_family(base, firsts, models))
    types = dict.fromkeys(("n_best", "wins", "n_metrics", "n_won", "n_significant"), "Int64")
    types |= dict.fromkeys(("lead", "ci_low", "ci_high"), "float64") | {"significant": "boolean"}
    return pd.DataFrame(rows, columns=list(VERDICT_COLUMNS)).astype(types)
