"""Tests of dissensus.experiments: the split, run_experiment, the saved report."""

from __future__ import annotations

import hashlib
import json
import warnings

import numpy as np
import pytest

from dissensus import DataDroppedWarning
from dissensus.datasets import Dataset, load_convabuse
from dissensus.evaluation import _report, annotation_bins
from dissensus.experiments import MODELS, make_model, run_experiment
from dissensus.experiments._study import _split_positions as split_items
from tests.experiments._tiny import tiny_frame


class TestSplitItems:
    def test_stratified_every_bin_tested(self):
        rng = np.random.default_rng(0)
        n = np.concatenate([rng.integers(2, 4, 500), rng.integers(4, 6, 90), [6, 7, 9]])
        train, test = split_items(n, test_size=0.3, seed=1)
        assert np.intersect1d(train, test).size == 0
        assert train.size + test.size == n.size
        codes, labels = annotation_bins(n)
        per_bin = np.bincount(codes[test], minlength=len(labels))
        assert labels == ["2–3", "4–5", "6–9"]  # the last bin closes at the largest count
        assert per_bin.tolist() == [150, 27, 1]

    def test_seeded(self):
        n = np.arange(100) % 9 + 2
        a = split_items(n, seed=4)
        b = split_items(n, seed=4)
        c = split_items(n, seed=5)
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
        assert not np.array_equal(a[1], c[1])

    @pytest.mark.shared
    def test_convabuse_bins(self, convabuse_dir):
        # the counts `dissensus experiment convabuse` prints next to Magnani (2025)'s 508 / 93 / 8
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataDroppedWarning)
            n = load_convabuse(convabuse_dir).annotations.counts().n
        _, test = split_items(n, test_size=0.3, seed=0)
        codes, labels = annotation_bins(n[test])
        assert dict(zip(labels, np.bincount(codes).tolist(), strict=True)) == {
            "2–3": 1062,
            "4–5": 184,
            "6–7": 10,  # no test item has more than 7 annotations
        }

    def test_bad_test_size(self):
        with pytest.raises(ValueError, match="'test_size' parameter of run_experiment must be in"):
            split_items([2, 3], test_size=1.0)


@pytest.fixture(scope="module")
def result():
    ds = Dataset.from_frame(tiny_frame(), name="tiny")
    return run_experiment(ds, models=["A", "E", "marginal", "A+shrink"], max_iter=50, seed=3)


class TestRunExperiment:
    def test_models_learn_and_split_is_by_item(self, result):
        ev = result.evaluation
        assert ev.models == ["A", "E", "marginal", "A+shrink"]
        assert set(result.train_items).isdisjoint(result.test_items)
        assert list(ev.counts.items) == list(result.test_items)
        s = ev.summary(n_resamples=50).set_index(["metric", "model"])["mean"]
        assert s["emd", "A"] < s["emd", "marginal"]
        assert s["E[emd]", "E"] < s["E[emd]", "marginal"]

    def test_settings_and_save(self, result, tmp_path, monkeypatch):
        # the figures of the full report are tested in tests/report and by the CLI test
        monkeypatch.setattr(_report, "report_figures", lambda data: {})
        monkeypatch.setattr(_report, "reversal_item_figures", lambda data: [])
        settings = result.settings
        assert settings["featuriser"]["class"] == "TextFeatures"
        assert settings["models"]["E"]["params"]["max_iter"] == 50
        assert settings["split"]["n_test_items"] == len(result.test_items)
        paths = result.save(tmp_path / "out", n_resamples=50)
        page = paths["report"].read_text()
        assert page.index('<section id="training">') < page.index("</main>")
        assert "ExpectedEMDRegression" in page
        payload = json.loads(paths["experiment"].read_text())
        assert payload["timings_seconds"]["fit E"] >= 0
        assert sum(b["n_items"] for b in payload["test_items_by_bin"]) == len(result.test_items)
        # one set: the manifest holds every file as it is on disk, the edited report included
        files = json.loads(paths["manifest"].read_text())["files"]
        assert {"report.html", "experiment.json"} <= set(files)
        for name, entry in files.items():
            digest = hashlib.sha256((tmp_path / "out" / name).read_bytes()).hexdigest()
            assert entry["sha256"] == digest, name

    def test_same_seed_same_bytes(self, result):
        ds = Dataset.from_frame(tiny_frame(), name="tiny")
        again = run_experiment(ds, models=["A", "E", "marginal", "A+shrink"], max_iter=50, seed=3)
        assert again.evaluation.values.tobytes() == result.evaluation.values.tobytes()

    def test_recorded_prior_is_the_one_that_ran(self, tmp_path, monkeypatch):
        # the prior is read back from the fitted model E and the evaluation, never assumed
        monkeypatch.setattr(_report, "report_figures", lambda data: {})
        monkeypatch.setattr(_report, "reversal_item_figures", lambda data: [])
        ds = Dataset.from_frame(tiny_frame(), name="tiny")
        for prior in ("uniform", "jeffreys"):
            res = run_experiment(ds, models=["A", "E"], max_iter=20, seed=1, prior=prior)
            assert res.evaluation.prior == prior
            paths = res.save(tmp_path / prior, n_resamples=20)
            payload = json.loads(paths["experiment"].read_text())
            assert payload["settings"]["evaluation"]["prior"] == prior
            assert payload["settings"]["models"]["E"]["params"]["prior"] == prior
            page = paths["report"].read_text()
            training = page[page.index('<section id="training">') :]
            assert f"trained on E[emd] under the {prior} Dirichlet prior, the prior the" in training
            other = "jeffreys" if prior == "uniform" else "uniform"
            assert f"under the {other}" not in training
            assert page.index('<section id="training">') < page.index("<footer>")

    def test_training_sentence_says_when_priors_differ(self, result):
        from dissensus.experiments._study import _prior_caveat  # noqa: PLC0415

        settings = {**result.settings, "evaluation": {"prior": "uniform"}}
        caveat = _prior_caveat(settings)
        assert caveat is not None
        text = "".join(str(p) for p in caveat.parts)
        assert (
            "under the jeffreys Dirichlet prior, while the expected metrics use the uniform" in text
        )
        assert _prior_caveat({**settings, "models": {"A": {}}}) is None

    def test_errors(self):
        ds = Dataset.from_frame(tiny_frame(60), name="tiny")
        with pytest.raises(ValueError, match="distinct codes from A, B"):
            run_experiment(ds, models=["A", "Z"])
        nominal = Dataset.from_frame(tiny_frame(60), ordered=False)
        with pytest.raises(ValueError, match="need ordered labels"):
            run_experiment(nominal, models=["C"])
        with pytest.raises(ValueError, match="Unknown model 'Z'"):
            make_model("Z")
        assert set(MODELS) >= {"A", "B", "C", "D", "E"}
