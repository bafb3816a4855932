"""Regenerate the results of docs/torch_example.md: a small PyTorch MLP on the MovieLens demo, three losses.

The seed paper's models A (soft cross-entropy) and E (exact expected EMD
under each item's Dirichlet posterior) rebuilt as a one-hidden-layer MLP in
PyTorch, plus the same MLP trained with the debiased Brier loss (the exact
U-statistic of the squared Euclidean distance to the TRUE distribution), all
with the losses of :mod:`dissensus.torch`; next to them the linear baselines
A and E of ``dissensus demo``. The split (by item, stratified by
annotation-count bin, seed 0) and the TF-IDF features are the demo's
(:func:`dissensus.experiments.run_experiment`); the test items are scored by
:func:`dissensus.evaluate` and the page shows its verdict. CPU, seeded, float64.

Run from the repository root (needs the ``torch``, ``models`` and ``demo`` extras;
about a minute on two cores)::

    PYTHONPATH=src python docs/torch_example.py > /tmp/torch_example.md

``--min-ratings 150 --epochs 5`` runs it on a tiny subset (the test does).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import torch
from scipy import sparse

from dissensus.data import LabelCounts
from dissensus.datasets import load_movielens
from dissensus.evaluation import DEFAULT_METRICS, Evaluation, evaluate
from dissensus.experiments import run_experiment
from dissensus.models import TextFeatures
from dissensus.posterior import DEFAULT_PRIOR
from dissensus.report import Document, Section, to_markdown
from dissensus.torch import functional

#: The losses, by the name of the model they train: ``loss(logits, counts)``.
LOSSES: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    # the soft cross-entropy to the empirical distributions counts / n (model A)
    "MLP soft CE": lambda z, c: functional.cross_entropy(z, c / c.sum(dim=1, keepdim=True)),
    # the exact expected EMD under Dir(prior + counts) (model E)
    "MLP E[EMD]": lambda z, c: functional.expected_emd(z, c, prior=DEFAULT_PRIOR),
    # the unbiased Brier score to the true distribution
    "MLP debiased Brier": functional.debiased_squared_euclidean,
}


#: The demo's metrics and the Brier score, each with its expected and debiased forms.
_BASE = (*DEFAULT_METRICS, "squared_euclidean")
METRICS = [*_BASE, *(f"E[{m}]" for m in _BASE), *(f"debiased[{m}]" for m in _BASE)]
#: Subsections of the report's verdict this page leaves out.
_LEFT_OUT = ("Robustness to the prior", "Where the families disagree")
#: The columns of the table of mean test scores.
SHOWN = (
    "cross_entropy",
    "emd",
    "squared_euclidean",
    "E[emd]",
    "debiased[emd]",
    "debiased[squared_euclidean]",
)


def _scores_table(ev: Evaluation) -> str:
    """Mean test score of every model under the :data:`SHOWN` metrics, Markdown (lower is better)."""
    means = ev.summary().pivot(index="model", columns="metric", values="mean")
    rows = ["| Model | " + " | ".join(SHOWN) + " |", "| --- |" + " --: |" * len(SHOWN)]
    rows += [
        f"| {model} | " + " | ".join(f"{means.loc[model, m]:.4f}" for m in SHOWN) + " |"
        for model in ev.models
    ]
    return "\n".join(rows)


def _sparse_tensor(X: sparse.csr_matrix) -> torch.Tensor:
    coo = X.tocoo()
    index = torch.from_numpy(np.vstack([coo.row, coo.col]).astype(np.int64))
    values = torch.from_numpy(coo.data)
    return torch.sparse_coo_tensor(index, values, coo.shape, check_invariants=True).coalesce()


class MLP(torch.nn.Module):
    """``d -> hidden -> K`` logits, ReLU, on sparse TF-IDF rows (the first layer a sparse product)."""

    def __init__(self, d: int, K: int, hidden: int) -> None:
        super().__init__()
        self.first = torch.nn.Linear(d, hidden, dtype=torch.float64)
        self.out = torch.nn.Linear(hidden, K, dtype=torch.float64)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """Logits (N, K) of the sparse (N, d) features ``X``."""
        h = torch.sparse.mm(X, self.first.weight.T) + self.first.bias
        out: torch.Tensor = self.out(torch.relu(h))
        return out


def train(
    loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
    X: torch.Tensor,
    counts: torch.Tensor,
    *,
    epochs: int,
    hidden: int = 64,
    lr: float = 0.01,
    weight_decay: float = 1e-3,
    seed: int = 0,
) -> MLP:
    """Full-batch Adam on ``loss(logits, counts)``, the same seed (initial weights) for every loss."""
    torch.manual_seed(seed)
    model = MLP(X.shape[1], counts.shape[1], hidden)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    for _ in range(epochs):
        opt.zero_grad()
        value = loss(model(X), counts)
        value.backward()
        opt.step()
    return model


def main(argv: list[str] | None = None) -> str:
    """Train, evaluate and return the Markdown of the results (also printed)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-ratings", type=int, default=5, help="MovieLens items kept (demo: 5)")
    parser.add_argument("--epochs", type=int, default=100, help="full-batch Adam steps")
    parser.add_argument("--seed", type=int, default=0, help="split, initial weights, bootstrap")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    torch.set_num_threads(1)

    dataset = load_movielens(min_ratings=args.min_ratings)
    # the demo's split and linear baselines A and E
    demo = run_experiment(dataset, models=("A", "E"), seed=args.seed)
    counts: LabelCounts = dataset.annotations.counts()
    train_at = counts.items.get_indexer(demo.train_items)
    test_at = counts.items.get_indexer(demo.test_items)
    features = TextFeatures(categorical=dataset.categorical)  # the demo's featuriser
    X_train = _sparse_tensor(features.fit_transform(dataset.items.iloc[train_at]))
    X_test = _sparse_tensor(features.transform(dataset.items.iloc[test_at]))
    c_train = torch.from_numpy(counts.take(train_at).values.astype(np.float64))
    t_data = time.perf_counter() - t0

    predictions = dict(zip(["linear A", "linear E"], demo.evaluation.predictions, strict=True))
    fit_times = {}
    for name, loss in LOSSES.items():
        t = time.perf_counter()
        model = train(loss, X_train, c_train, epochs=args.epochs, seed=args.seed)
        with torch.no_grad():
            predictions[name] = torch.softmax(model(X_test), dim=1).numpy()
        fit_times[name] = time.perf_counter() - t

    ev = evaluate(counts.take(test_at), predictions, metrics=METRICS, seed=args.seed)
    doc = ev.report(figures=False)
    verdict = next(b for b in doc.blocks if isinstance(b, Section) and b.title == "Verdict")
    # the answers and the rankings by family; the prior's and the pairs' details are the report's
    kept = [b for b in verdict.blocks if not (isinstance(b, Section) and b.title in _LEFT_OUT)]
    verdict = Section(verdict.title, *kept)
    timing = ", ".join(f"{name} {s:.1f} s" for name, s in fit_times.items())
    lines = [
        f"MovieLens (min_ratings={args.min_ratings}): {len(train_at):,} training and "
        f"{len(test_at):,} test items, {X_train.shape[1]:,} features; MLP {X_train.shape[1]} → 64 "
        f"→ {counts.K}, {args.epochs} full-batch Adam steps (lr 0.01, weight decay 1e-3), "
        f"seed {args.seed}, torch {torch.__version__}, 1 thread.",
        "",
        f"Data and linear baselines {t_data:.1f} s; training: {timing}; total "
        f"{time.perf_counter() - t0:.0f} s.",
        "",
        "Mean scores on the test items (lower is better):",
        "",
        _scores_table(ev),
        "",
        # the section alone, without the empty page title
        to_markdown(Document("", verdict)).strip().removeprefix("#").strip(),
    ]
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    main()
