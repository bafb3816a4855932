"""Tests of the plain-language reading."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from tests.report._sample import example_report_data, sample_report_data


def plain_reading(data):
    return data.reading()


class TestPlainReading:
    def test_constructed_reversal_names_both_models_and_significance(self):
        sentences = plain_reading(example_report_data())
        text = " ".join(sentences)
        assert "A beats B under CE" in text
        assert "B beats A under E[CE]" in text
        assert "significant only under CE" in text
        assert (
            "1 ranking reversal (a pair of models ordered differently by two metrics): 0 significant under both metrics, 1 under one only, 0 under neither."
            in sentences
        )

    def test_reversal_significant_under_both(self):
        data = example_report_data()
        rev = data.reversals.assign(significant_2=True, ci_low_2=0.01)
        text = " ".join(plain_reading(replace(data, reversals=rev)))
        assert "significant under both metrics" in text
        assert "1 significant under both metrics" in text

    def test_reversal_significant_under_neither(self):
        data = example_report_data()
        rev = data.reversals.assign(significant_1=False, significant_2=False)
        text = " ".join(plain_reading(replace(data, reversals=rev)))
        assert "not significant under either metric" in text

    def test_kinds_and_bins(self):
        sentences = plain_reading(sample_report_data())
        assert sentences[0] == (
            "Under the pointwise (empirical) metrics (CE and EMD), A is best; under the "
            "expected (uncertainty-aware) metrics (E[CE] and E[EMD]), B is best."
        )
        bins = next(s for s in sentences if s.startswith("CE and E[CE] order A and B"))
        assert "2–3" in bins
        assert "(368 of 400 items)" in bins

    def test_same_winner_everywhere(self):
        data = example_report_data()
        summary = data.summary.assign(best=[True, False, True, False])
        first = plain_reading(replace(data, summary=summary, reversals=data.reversals.iloc[0:0]))
        assert first[0] == "A is best under every metric (CE and E[CE])."
        assert "No pair of models changes order between any two metrics." in first

    def test_lead_not_significant_is_said(self):
        text = " ".join(plain_reading(example_report_data()))
        assert (
            "but not under E[CE] (B over A), where the interval of the difference includes zero"
            in text
        )

    def test_single_model(self):
        data = example_report_data()
        one = data.summary[data.summary["model"] == "A"]
        sentences = plain_reading(
            replace(
                data,
                summary=one,
                differences=data.differences.iloc[0:0],
                reversals=data.reversals.iloc[0:0],
                metric_agreement=data.metric_agreement.iloc[0:0],
            )
        )
        assert len(sentences) == 1
        assert sentences[0].startswith("100 items with a median of 3 annotations")

    def test_one_winner_and_runner_up_named_once(self):
        data = example_report_data()
        summary = data.summary.assign(best=[True, False, True, False])
        diffs = data.differences.assign(ci_low=[-0.08, 0.01], ci_high=[-0.02, 0.05])
        sentences = plain_reading(replace(data, summary=summary, differences=diffs))
        assert sentences[1] == (
            "A's lead over the runner-up, B, is significant under every metric."
        )

    def test_agreement_prefers_chance_corrected(self):
        agreement = pd.DataFrame(
            {
                "coefficient": ["percent_agreement", "fleiss_kappa", "krippendorff_alpha"],
                "value": [0.8, 0.5, 0.45],
                "standard_error": [0.1, 0.1, 0.1],
                "ci_low": [0.7, 0.4, 0.35],
                "ci_high": [0.9, 0.6, 0.55],
                "n_items": [100] * 3,
                "n_annotations": [330] * 3,
            }
        )
        last = plain_reading(replace(example_report_data(), agreement=agreement))[-1]
        assert last.endswith("krippendorff_alpha = 0.450 [0.350, 0.550].")
