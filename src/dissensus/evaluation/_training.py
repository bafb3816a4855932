"""Metrics inside a training loop: scores from label counts, and the Hugging Face Trainer's ``compute_metrics``.

:func:`score_counts` scores predictions against (N, K) label counts under any
registered metric, each kind with its own target (``counts / n``, the
Dirichlet posterior ``prior + counts``, or the counts), as :func:`evaluate`
does; the scikit-learn scorers (:mod:`dissensus.sklearn`) and
:func:`hf_compute_metrics` are thin layers over it. NumPy only: no
``transformers``, no ``torch``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from scipy import special

from dissensus._exceptions import DataError
from dissensus._validation import as_count_matrix, check_option, examples
from dissensus.metrics import Metric, get_metric
from dissensus.posterior import DEFAULT_PRIOR, PriorLike, dirichlet

FloatArray = npt.NDArray[np.float64]
InputType = Literal["logits", "probs"]
_INPUTS: tuple[InputType, ...] = ("logits", "probs")


def score_counts(
    metric: str | Metric,
    counts: npt.ArrayLike,
    q_pred: npt.ArrayLike,
    /,
    *,
    prior: PriorLike = DEFAULT_PRIOR,
) -> FloatArray:
    """Each item's score (N,) under ``metric``, predictions ``q_pred`` (N, K) against label ``counts`` (N, K).

    The target of each kind of metric is that of :func:`dissensus.evaluate`:
    a pointwise metric compares ``q`` with the empirical distribution
    ``counts / n``, an expected one (``E[...]``) takes the expectation under
    the Dirichlet posterior ``prior + counts`` (``prior``: see
    :func:`dissensus.posterior.dirichlet`), a debiased one
    (``debiased[...]``) reads the counts. Values are the metric's, whichever
    its direction (see :attr:`Metric.lower_is_better`).

    Raises
    ------
    DataError
        Counts that are not whole non-negative numbers, shapes that differ,
        an item with no annotation under a pointwise metric (its empirical
        distribution is undefined) or a debiased one.
    ValueError
        An unknown metric, or one that takes the target only (entropy).

    Examples
    --------
    >>> counts = [[3, 1, 0], [0, 2, 2]]
    >>> q = [[0.7, 0.2, 0.1], [0.1, 0.4, 0.5]]
    >>> score_counts("emd", counts, q).round(4)
    array([0.075, 0.05 ])
    >>> bool(score_counts("E[emd]", counts, q)[0] > 0.075)  # the posterior is wider than p̂
    True
    """
    m = get_metric(metric)
    if m.unary:
        msg = f"Metric {m.name!r} takes the target only and cannot score predictions."
        raise ValueError(msg)
    C = as_count_matrix(counts, "counts")
    if m.needs_counts:
        return np.asarray(m.func(C, q_pred), dtype=np.float64)
    if m.needs_posterior:
        return np.asarray(m.func(dirichlet(C, prior=prior), q_pred), dtype=np.float64)
    n = C.sum(axis=1)
    if (n == 0).any():
        empty = np.flatnonzero(n == 0)
        msg = (
            f"{empty.size} items have no annotation (rows {examples(empty.tolist())}), so the "
            f"empirical metric {m.name!r} is undefined for them; drop these items or use an "
            f"expected metric (e.g. {m.expected or 'E[emd]'!r})."
        )
        raise DataError(msg)
    return np.asarray(m.func(C / n[:, None], q_pred), dtype=np.float64)


def _field(pred: Any, attribute: str, position: int) -> Any:
    """``pred.attribute`` (an ``EvalPrediction``) or ``pred[position]`` (a tuple)."""
    if hasattr(pred, attribute):
        return getattr(pred, attribute)
    if isinstance(pred, Sequence) and not isinstance(pred, str) and len(pred) >= 2:
        return pred[position]
    msg = (
        "compute_metrics expects the Trainer's EvalPrediction (with .predictions and "
        f".label_ids) or a (predictions, label_ids) tuple; got {type(pred).__name__}."
    )
    raise TypeError(msg)


def _counts_from(label_ids: Any, counts_key: int | str | None) -> Any:
    if counts_key is None:
        return label_ids
    try:
        return label_ids[counts_key]
    except (KeyError, IndexError, TypeError):
        have = list(label_ids) if isinstance(label_ids, Mapping) else type(label_ids).__name__
        msg = (
            f"The label_ids have no entry {counts_key!r} (counts_key of hf_compute_metrics); "
            f"they hold {have}. Name the entry that holds the (N, K) label counts."
        )
        raise DataError(msg) from None


def hf_compute_metrics(
    metrics: Sequence[str] | str = ("cross_entropy", "emd", "E[emd]", "debiased[emd]"),
    *,
    counts_key: int | str | None = None,
    input_type: InputType = "logits",
    prior: PriorLike = DEFAULT_PRIOR,
) -> Callable[[Any], dict[str, float]]:
    r"""A ``compute_metrics`` for the Hugging Face ``Trainer``: logits and label counts in, dissensus metrics out.

    The returned function takes the Trainer's ``EvalPrediction`` (or any
    object with ``.predictions`` and ``.label_ids``, or a ``(predictions,
    label_ids)`` tuple) and returns ``{metric name: mean over the items}``,
    each the value :func:`dissensus.evaluate` reports for the same
    predictions (:func:`score_counts`). ``predictions`` are (N, K) logits
    (``input_type="logits"``: softmax in NumPy, float64) or probabilities
    (``"probs"``); a tuple of model outputs gives its first element.
    ``label_ids`` are the (N, K) label counts of the evaluated items (give
    the dataset a ``labels`` column of count vectors), or a tuple / mapping
    holding them at ``counts_key``. ``metrics``: registry names (pointwise,
    ``E[...]`` and ``debiased[...]`` forms); ``prior``: of the expected forms.

    The values keep each metric's direction: for the Trainer's
    ``metric_for_best_model="eval_E[emd]"`` set ``greater_is_better=False``
    (lower is better for every distance). No dependency on ``transformers``.

    Examples
    --------
    >>> compute = hf_compute_metrics(["emd", "debiased[squared_euclidean]"])
    >>> logits = np.log([[0.7, 0.2, 0.1], [0.1, 0.4, 0.5]])
    >>> scores = compute((logits, np.array([[3, 1, 0], [0, 2, 2]])))
    >>> {name: round(value, 4) for name, value in scores.items()}
    {'emd': 0.0625, 'debiased[squared_euclidean]': -0.1283}

    In a ``Trainer``::

        trainer = Trainer(model, args, train_dataset=train, eval_dataset=dev,
                          compute_metrics=hf_compute_metrics(["E[emd]", "debiased[rps]"]))
    """
    check_option("hf_compute_metrics", "input_type", input_type, _INPUTS)
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        msg = "The 'metrics' parameter of hf_compute_metrics must name at least one metric."
        raise ValueError(msg)
    resolved = [get_metric(name) for name in names]  # an unknown name fails here, not in training

    def compute_metrics(eval_pred: Any) -> dict[str, float]:
        predictions = _field(eval_pred, "predictions", 0)
        if isinstance(predictions, tuple):  # the model's outputs (logits, hidden states, ...)
            predictions = predictions[0]
        counts = _counts_from(_field(eval_pred, "label_ids", 1), counts_key)
        z = np.asarray(predictions, dtype=np.float64)
        q = special.softmax(z, axis=-1) if input_type == "logits" else z
        return {m.name: float(np.mean(score_counts(m, counts, q, prior=prior))) for m in resolved}

    return compute_metrics
