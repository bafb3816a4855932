"""The study of Magnani (2025) end to end (see :mod:`dissensus.experiments`): split items, featurise, train, evaluate.

Items (not annotations) are split into training and test, seeded and
stratified by annotation-count bin; the featuriser and every model are fitted
on the training items only; the test items are scored by :func:`dissensus.evaluate`.
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from dissensus._validation import SeedLike, as_generator, examples
from dissensus.data import LabelCounts
from dissensus.datasets import Dataset
from dissensus.evaluation import Evaluation, annotation_bins, evaluate
from dissensus.models import (
    CumulativeLink,
    EMDRegression,
    ExpectedEMDRegression,
    Marginal,
    Shrinkage,
    SmoothedKL,
    SoftCrossEntropy,
    SoftNaiveBayes,
    TextFeatures,
)
from dissensus.posterior import DEFAULT_PRIOR, PriorLike
from dissensus.report import Paragraph, Section, Table, format_number

FloatArray = npt.NDArray[np.float64]
Progress = Callable[[str], None]

#: Model codes and what they are (Magnani 2025's A–D, the new E, and references).
MODELS: dict[str, str] = {
    "A": "soft cross-entropy to the empirical distributions (multinomial logistic regression)",
    "B": "KL to Gaussian-smoothed targets (sigma 0.5 class steps)",
    "C": "cumulative-link (proportional odds) ordinal model",
    "D": "squared-EMD loss (softmax regression)",
    "E": "exact expected EMD under each item's Dirichlet posterior (softmax regression)",
    "NB": "multinomial Naive Bayes on fractional counts",
    "marginal": "the training items' mean label distribution, for every item",
    "A+shrink": "model A blended with the marginal by annotation count, n / (n + K)",
}
#: Models whose loss uses the order of the classes.
_ORDINAL_MODELS = ("B", "C", "D", "E")
#: Models trained by default.
DEFAULT_MODELS: tuple[str, ...] = tuple(MODELS)


_LINEAR = {"A": SoftCrossEntropy, "B": SmoothedKL, "C": CumulativeLink, "D": EMDRegression}


def make_model(
    code: str, *, C: float = 1.0, max_iter: int = 200, prior: PriorLike = DEFAULT_PRIOR
) -> Any:
    """A fresh, unfitted model for ``code`` (a key of :data:`MODELS`).

    ``prior`` is the Dirichlet prior of model E's posteriors (the other models ignore it).
    """
    if code == "E":
        return ExpectedEMDRegression(C=C, max_iter=max_iter, prior=prior)
    if code in _LINEAR:
        return _LINEAR[code](C=C, max_iter=max_iter)
    if code in ("NB", "marginal"):
        return SoftNaiveBayes() if code == "NB" else Marginal()
    if code == "A+shrink":
        return Shrinkage(SoftCrossEntropy(C=C, max_iter=max_iter))
    msg = f"Unknown model {code!r}; choose from {', '.join(MODELS)}."
    raise ValueError(msg)


def _split_positions(
    n: npt.ArrayLike, *, test_size: float = 0.3, seed: SeedLike = 0
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """(train, test) sorted item positions, stratified by annotation-count bin of ``n``.

    Each bin sends ``round(test_size * m)`` of its ``m`` items to test (at
    least one, and one left for training; a bin of one item goes to test).
    :func:`dissensus.tendency.split_items` splits Annotations, without strata.
    """
    ts = float(test_size)
    if not 0.0 < ts < 1.0:
        msg = f"The 'test_size' parameter of run_experiment must be in (0, 1), e.g. 0.3. Got {test_size!r} instead."
        raise ValueError(msg)
    codes, _ = annotation_bins(n, "auto")
    rng = as_generator(seed)
    is_test = np.zeros(codes.size, dtype=bool)
    for b in np.unique(codes):  # a loop over the (few) bins, not over items
        members = np.flatnonzero(codes == b)
        m = members.size
        k = 1 if m == 1 else min(max(round(ts * m), 1), m - 1)
        is_test[rng.permutation(members)[:k]] = True
    return np.flatnonzero(~is_test), np.flatnonzero(is_test)


@dataclass
class ExperimentResult:
    """What :func:`run_experiment` produced.

    The test items' :class:`Evaluation`, the dataset's name, the item ids of each side of
    the split, the JSON-ready ``settings`` (split, featuriser, models) and ``timings``.
    """

    evaluation: Evaluation
    dataset: str
    train_items: pd.Index
    test_items: pd.Index
    settings: dict[str, Any]
    timings: dict[str, float] = field(default_factory=dict)

    def test_items_by_bin(self) -> pd.DataFrame:
        """``bin, n_items``: test items per annotation-count bin (the evaluation's bins)."""
        codes, labels = annotation_bins(self.evaluation.n_annotations, "auto")
        size = np.bincount(codes, minlength=len(labels))
        return pd.DataFrame({"bin": labels, "n_items": size.astype(np.int64)})

    def verdicts(self) -> pd.DataFrame:
        """The evaluation's verdict, one answer per metric (:meth:`Evaluation.verdict`)."""
        return self.evaluation.verdict()

    def to_json(self, *, indent: int | None = 2) -> str:
        """Settings, timings and the split's per-bin counts as JSON."""
        payload = {
            "dataset": self.dataset, "n_train_items": len(self.train_items),
            "n_test_items": len(self.test_items),
            "test_items_by_bin": self.test_items_by_bin().to_dict(orient="records"),
            "settings": self.settings, "timings_seconds": {k: round(v, 4) for k, v in self.timings.items()},
        }  # fmt: skip
        return json.dumps(payload, indent=indent, default=_json_default, ensure_ascii=False)

    def save(
        self, out_dir: str | Path, *, n_resamples: int = 1000, progress: Progress | None = None
    ) -> dict[str, Path]:
        """Write the evaluation's files (:meth:`Evaluation.save`) and ``experiment.json``.

        The HTML report gets a "Training" section with the settings and
        timings. All the files are one set: written together, each in the
        manifest. ``progress`` is told each stage of the report, as by
        :meth:`Evaluation.save`. Returns file role -> path.
        """
        extra = {"experiment.json": self.to_json() + "\n"}
        sections = [_training_section(self)]
        return self.evaluation.save(
            out_dir,
            n_resamples=n_resamples,
            report_sections=sections,
            extra_files=extra,
            progress=progress,
        )


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple | set):
        return list(value)
    return repr(value)


def _params(est: Any) -> dict[str, Any]:
    """An estimator's parameters, JSON-ready (a nested estimator as its repr)."""
    plain: tuple[type, ...] = (int, float, str, bool, tuple, list, type(None))
    params = est.get_params(deep=False).items()
    return {k: v if isinstance(v, plain) else repr(v) for k, v in params}


def _training_section(result: ExperimentResult) -> Section:
    """The report's "Training" section: split, featuriser, models, timings (the verdict is the report's)."""
    s = result.settings
    rows = []
    for code, info in s["models"].items():
        params = ", ".join(f"{k}={v}" for k, v in info["params"].items())
        conv = info.get("converged")
        rows.append(
            [code, f"{info['class']}: {MODELS.get(code, '')}", params,
             "" if conv is None else ("yes" if conv else "no"),
             format_number(result.timings.get(f"fit {code}", float("nan")), digits=2, fixed=True)]
        )  # fmt: skip
    feat = ", ".join(f"{k}={v}" for k, v in s["featuriser"]["params"].items())
    split = s["split"]
    by_bin = ", ".join(f"{r.bin}: {r.n_items}" for r in result.test_items_by_bin().itertuples())
    legend = (
        f"{result.dataset}: {split['n_train_items']:,} training and {split['n_test_items']:,} "
        f"test items, split by item (seed {split['seed']}, test share {split['test_size']}, "
        f"stratified by annotation-count bin; test items per bin: {by_bin}). Featuriser fitted "
        f"on the training items only: {s['featuriser']['class']} ({feat}; "
        f"{s['featuriser']['n_features']:,} features)."
    )
    table = Table(["Model", "What", "Parameters", "Converged", "Fit (s)"], rows, align="lllrr",
                  id="training-table")  # fmt: skip
    return Section(
        "Training", Paragraph(legend, style="legend"), table, _prior_caveat(s), id="training",
        collapsed=True, gist=f"split, features and {len(rows)} models, as they ran",
    )  # fmt: skip


def _prior_caveat(settings: dict[str, Any]) -> Paragraph | None:
    """Model E's training prior beside the evaluation's, both read from what ran (``settings``)."""
    if "E" not in settings["models"]:
        return None
    trained = str(settings["models"]["E"]["params"]["prior"])
    used = str(settings["evaluation"]["prior"])
    same = (
        "the prior the expected metrics use, so its lead under expected metrics is partly by "
        "construction"
    )
    return Paragraph(
        f"Model E is trained on E[emd] under the {trained} Dirichlet prior, "
        + (same if trained == used else f"while the expected metrics use the {used} prior")
        + "; the expected metrics with few annotations reward flatter predictions (compare the "
        "marginal and A+shrink with A).",
        style="note",
    )


def run_experiment(
    dataset: Dataset, *, models: Sequence[str] = DEFAULT_MODELS, test_size: float = 0.3,
    seed: int = 0, featurizer: TextFeatures | None = None, C: float = 1.0, max_iter: int = 200,
    prior: PriorLike = DEFAULT_PRIOR, progress: Progress | None = None,
) -> ExperimentResult:  # fmt: skip
    """Train the soft-label models on the training items, evaluate them on the test items.

    ``dataset``: annotations and item texts (:mod:`dissensus.datasets`);
    ``models``: codes of :data:`MODELS` (default all); ``test_size``: share of
    each annotation-count bin's items held out for testing; ``seed``: of the
    split and of the evaluation's bootstrap; ``featurizer``: default
    ``TextFeatures(categorical=dataset.categorical)``; ``C``, ``max_iter``:
    inverse L2 strength and optimiser iterations of every linear model;
    ``prior``: the Dirichlet prior of model E's training posteriors and of
    the expected metrics (recorded in ``settings`` as read back from the
    fitted model and the evaluation);
    ``progress``: called with a short text at each stage and model.
    ValueError for unknown model codes or ``test_size`` outside (0, 1).

    References
    ----------
    Magnani, A. (2025). Soft metrics for ordinal label uncertainty with
    variable sample sizes. ASSE 2025, ACM.
    """
    say: Progress = progress if progress is not None else (lambda _text: None)
    codes = list(models)
    if not codes or len(set(codes)) != len(codes) or not set(codes) <= set(MODELS):
        msg = f"The 'models' parameter of run_experiment must list distinct codes from {', '.join(MODELS)}; got {examples(codes)}."
        raise ValueError(msg)
    ordinal_only = [m for m in codes if m in _ORDINAL_MODELS]
    if ordinal_only and not dataset.annotations.scale.ordered:
        msg = f"Models {examples(ordinal_only)} need ordered labels, but the scale of {dataset.name!r} is nominal; load the data with ordered labels (--ordinal, Scale.ordinal) or choose from A, NB, marginal, A+shrink."
        raise ValueError(msg)
    timings: dict[str, float] = {}
    t = time.perf_counter()
    counts: LabelCounts = dataset.annotations.counts()
    train, test = _split_positions(counts.n, test_size=test_size, seed=seed)
    feat = featurizer if featurizer is not None else TextFeatures(categorical=dataset.categorical)
    say(f"featurising {len(train):,} training items")
    X_train = feat.fit_transform(dataset.items.iloc[train])
    X_test = feat.transform(dataset.items.iloc[test])
    y_train, y_test = counts.take(train), counts.take(test)
    timings["split and features"] = time.perf_counter() - t

    predictions: dict[str, FloatArray] = {}
    model_info: dict[str, Any] = {}
    fitted: dict[str, Any] = {}
    for code in codes:
        est = make_model(code, C=C, max_iter=max_iter, prior=prior)
        if code == "A+shrink" and "A" in fitted:
            est = Shrinkage(fitted["A"], refit=False)  # the same A, fitted once
        say(f"training {code} ({type(est).__name__})")
        t = time.perf_counter()
        est.fit(X_train, y_train)
        timings[f"fit {code}"] = time.perf_counter() - t
        fitted[code] = est
        t = time.perf_counter()
        shrink = isinstance(est, Shrinkage)
        q = est.predict_proba(X_test, n=y_test.n) if shrink else est.predict_proba(X_test)
        timings[f"predict {code}"] = time.perf_counter() - t
        predictions[code] = np.asarray(q, dtype=np.float64)
        inner = est.estimator_ if shrink else est
        model_info[code] = {"class": type(est).__name__, "params": _params(est)}
        model_info[code] |= {k: getattr(inner, f"{k}_", None) for k in ("n_iter", "converged")}

    say(f"scoring {len(test):,} test items")
    t = time.perf_counter()
    ev = evaluate(y_test, predictions, seed=seed, prior=prior)
    timings["evaluate"] = time.perf_counter() - t
    stratified = "annotation-count bin (dissensus.evaluation.annotation_bins, 'auto')"
    settings = {
        "split": {"seed": seed, "test_size": test_size, "stratified_by": stratified,
                  "n_train_items": len(train), "n_test_items": len(test)},
        "featuriser": {"class": type(feat).__name__, "params": _params(feat),
                       "n_features": int(X_train.shape[1])},
        "models": model_info,
        "evaluation": {"prior": ev.prior, "metrics": ev.metrics},
        "python": platform.python_version(),
    }  # fmt: skip
    return ExperimentResult(
        ev, dataset.name, counts.items[train], counts.items[test], settings, timings
    )
