"""Every published case of ../shared/reference/agreement_cases.json, reproduced.

Sources are named per case in the JSON (``source``): the MLRD lecture notes
(seed 002), Fleiss (1971) via R irr / irrCAC, Krippendorff (2011), the
fast-krippendorff test data, Gwet's irrCAC 3×3 abstractors table and Shrout
& Fleiss (1979).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dissensus import agreement as ag
from tests.agreement._helpers import counts, decimals_tolerance, pairable, rater_matrix
from tests.conftest import reference_cases

CASES = reference_cases("agreement_cases")


def _expected(*names: str) -> list[Any]:
    out = []
    for case_name, case in CASES.items():
        for key, value in case.get("expected", {}).items():
            if any(key == n or key.startswith(n) for n in names):
                out.append(pytest.param(case, key, value, id=f"{case_name}-{key}"))
    return out


def _compute(case: dict[str, Any], key: str) -> Any:
    layout = case["layout"]
    if layout == "contingency_2_raters":
        T = case["data"]
        table_fns = {
            "cohen_kappa": lambda: ag.cohen_kappa(table=T),
            "cohen_kappa_se": lambda: ag.cohen_kappa(table=T).standard_error,
            "cohen_kappa_quadratic": lambda: ag.cohen_kappa(table=T, weights="quadratic"),
            "cohen_kappa_quadratic_se": lambda: (
                ag.cohen_kappa(table=T, weights="quadratic").standard_error
            ),
            "scott_pi": lambda: ag.scott_pi(table=T),
            "gwet_ac1": lambda: ag.gwet_ac1(table=T),
            "gwet_ac1_se": lambda: ag.gwet_ac1(table=T).standard_error,
            "brennan_prediger": lambda: ag.brennan_prediger(table=T),
            # the reference file's name for the share of unanimous items
            "percent_agreement": lambda: ag.share_unanimous(ag.contingency_to_counts(T)),
        }
        return table_fns[key]()
    if layout == "items_x_raters":
        kind = {"icc_1_1": "1,1", "icc_a_1": "A,1", "icc_c_1": "C,1", "icc_1_k": "1,k",
                "icc_a_k": "A,k", "icc_c_k": "C,k"}[key]  # fmt: skip
        return ag.icc(np.asarray(case["data"], dtype=float), kind=kind)
    lc = pairable(counts(case))
    if key.startswith("krippendorff_alpha_"):
        return ag.krippendorff_alpha(lc, level=key.removeprefix("krippendorff_alpha_"))
    fleiss = ag.fleiss_kappa(lc)
    simple = {
        "observed_agreement": lambda: ag.observed_agreement(lc),
        "chance_agreement": lambda: ag.chance_agreement(lc),
        "fleiss_kappa": lambda: fleiss,
        "fleiss_kappa_se0": lambda: fleiss.parts["se0"],
        "fleiss_kappa_z": lambda: fleiss.z,
        "fleiss_kappa_se_gwet": lambda: fleiss.standard_error,
        "fleiss_kappa_per_category": lambda: ag.fleiss_category_kappa(lc).to_numpy(),
        "brennan_prediger": lambda: ag.brennan_prediger(lc),
        "gwet_ac1": lambda: ag.gwet_ac1(lc),
        "gwet_ac1_se": lambda: ag.gwet_ac1(lc).standard_error,
    }
    if key in simple:
        return simple[key]()
    codes, scale = rater_matrix(case)
    if key == "conger_kappa":
        return ag.conger_kappa(codes)
    if key == "light_kappa":
        return ag.light_kappa(codes)
    if key == "cohen_kappa":
        a = [scale.labels[int(c)] for c in codes[:, 0]]
        b = [scale.labels[int(c)] for c in codes[:, 1]]
        return ag.cohen_kappa(a, b)
    raise KeyError(key)


@pytest.mark.parametrize(("case", "key", "expected"), _expected(""))
def test_reference_value(case: dict[str, Any], key: str, expected: Any) -> None:
    got = _compute(case, key)
    if isinstance(expected, list):
        tol = max(decimals_tolerance(e, case["tolerance"]) for e in expected)
        np.testing.assert_allclose(np.asarray(got, dtype=float), expected, atol=tol)
        return
    tol = decimals_tolerance(expected, case["tolerance"])
    if key == "fleiss_kappa_z":
        tol = 0.005  # printed to two decimals (irr::kappam.fleiss)
    assert float(got) == pytest.approx(expected, abs=tol)


def test_cases_present() -> None:
    if not CASES:
        pytest.skip("../shared/reference/agreement_cases.json is absent")
    assert "fleiss_1971_diagnoses" in CASES
