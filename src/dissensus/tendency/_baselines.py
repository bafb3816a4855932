"""Reference points for DIC: random, consensus and a per-annotator-bias ITL model.

A DIC value means little alone; the tendency paper (arXiv:2508.10393)
quotes a random baseline (0.86–0.93) and a consensus baseline (0.51–0.61)
next to its models (0.23–0.54). Every baseline returns per-annotator
predictions for the true (item, annotator) cells of the evaluation
annotations, in the long shape :func:`dic` takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import sparse

from dissensus._exceptions import DataError
from dissensus._validation import SeedLike, as_generator, examples, require_extra
from dissensus.data import Annotations
from dissensus.tendency._align import check_annotations, long_frame

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def subset_items(annotations: Annotations, keep: npt.ArrayLike) -> Annotations:
    """The annotations of the items where ``keep`` (boolean, one per item) is true.

    Annotator ids and the scale are kept whole, so matrices of a subset line
    up with those of the full data.
    """
    check_annotations(annotations, "annotations", "subset_items")
    mask = np.asarray(keep, dtype=bool)
    if mask.shape != (annotations.n_items,):
        msg = f"`keep` must be a boolean array with one entry per item ({annotations.n_items}); got shape {mask.shape}."
        raise ValueError(msg)
    new_code, rows = np.cumsum(mask) - 1, mask[annotations.item_codes]
    codes, meta = annotations.annotator_codes, annotations.meta
    return replace(annotations, item_codes=new_code[annotations.item_codes[rows]].astype(np.int64),
                   label_codes=annotations.label_codes[rows], items=annotations.items[mask],
                   annotator_codes=None if codes is None else codes[rows],
                   meta=None if meta is None else meta[mask])  # fmt: skip


def split_items(
    annotations: Annotations, *, test_size: float = 0.3, seed: SeedLike = 0
) -> tuple[Annotations, Annotations]:
    """Split the items (not the annotations) into ``train, test`` Annotations, seeded.

    ``test_size`` in (0, 1) is the share of items in the test set (rounded,
    at least one item each side).

    Examples
    --------
    >>> df = pd.DataFrame({"item": np.repeat(np.arange(8), 2), "annotator": ["a", "b"] * 8,
    ...                    "label": [0, 1] * 8})
    >>> train, test = split_items(Annotations.from_frame(df), test_size=0.25, seed=0)
    >>> train.n_items, test.n_items
    (6, 2)
    """
    check_annotations(annotations, "annotations", "split_items")
    if not 0.0 < float(test_size) < 1.0:
        msg = f"The 'test_size' parameter of split_items must be in (0, 1). Got {test_size!r}."
        raise ValueError(msg)
    N = annotations.n_items
    if N < 2:
        msg = f"split_items needs at least 2 items; got {N}."
        raise DataError(msg)
    n_test = min(max(1, round(float(test_size) * N)), N - 1)
    test = np.zeros(N, dtype=bool)
    test[as_generator(seed).permutation(N)[:n_test]] = True
    return subset_items(annotations, ~test), subset_items(annotations, test)


def _annotator_positions(
    source: Annotations, target: Annotations, func: str, name: str
) -> IntArray:
    """Each annotator of ``target`` in ``source``'s annotator index (-1 if absent), by id; one scale."""
    if list(source.scale.labels) != list(target.scale.labels):
        msg = f"`{name}` of {func} has the scale {examples(list(source.scale.labels), 10)}, the evaluation annotations {examples(list(target.scale.labels), 10)}; use one scale."
        raise DataError(msg)
    return source._require_annotators(func)[1].get_indexer(target._require_annotators(func)[1])


def random_baseline(
    true: Annotations, *, train: Annotations | None = None, seed: SeedLike = 0
) -> pd.DataFrame:
    """Each annotator's labels drawn at random from that annotator's own marginal.

    It keeps every annotator's label frequencies and nothing of who agrees
    with whom, so ``M'`` is near 0 off the diagonal and DIC near 1 (the paper:
    0.86–0.93). One prediction per (item, annotator) cell of ``true``
    (columns ``item``, ``annotator``, ``label``); the marginals are counted on
    ``train`` (default ``true``), where an absent annotator gets the pooled
    marginal.

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": ["a", "b", "a", "b"],
    ...                    "label": ["x", "y", "x", "x"]})
    >>> random_baseline(Annotations.from_frame(df), seed=0).shape
    (4, 3)
    """
    func = "random_baseline"
    check_annotations(true, "true", func)
    source = true if train is None else train
    check_annotations(source, "train", func)
    K = true.scale.K
    pos = _annotator_positions(source, true, func, "train")  # train may order them otherwise
    s_codes, s_names = source._require_annotators(func)
    counts = np.bincount(s_codes * K + source.label_codes, minlength=len(s_names) * K)
    counts = counts.reshape(-1, K).astype(np.float64)
    own = np.where(pos[:, None] >= 0, counts[np.maximum(pos, 0)], 0.0)
    own[own.sum(axis=1) == 0] = counts.sum(axis=0)  # the pooled marginal
    cdf = np.cumsum(own / own.sum(axis=1, keepdims=True), axis=1)
    acodes = true._require_annotators(func)[0]
    u = as_generator(seed).random(acodes.size)
    codes = np.minimum((u[:, None] >= cdf[acodes]).sum(axis=1), K - 1)
    return long_frame(true, func, label=np.asarray(true.scale.labels, dtype=object)[codes])


def consensus_baseline(true: Annotations, *, soft: bool = False) -> pd.DataFrame:
    """Every annotator predicted as the item's consensus (an oracle consensus model).

    The consensus of ``true`` itself: the best a consensus model can do, so
    the DIC it leaves is what ignoring individual tendencies costs (the paper:
    0.51–0.61). ``soft=False``: the majority label (ties to the lowest index)
    for every annotator; ``soft=True``: the item's label distribution, one
    probability column per label (pass ``soft=True`` to :func:`dic` too).

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 1, 1, 2, 2], "annotator": ["a", "b", "c", "a", "b"],
    ...                    "label": ["x", "y", "y", "y", "x"]})
    >>> consensus_baseline(Annotations.from_frame(df)).label.tolist()  # item 2 ties: lowest label
    ['y', 'y', 'y', 'x', 'x']
    """
    func = "consensus_baseline"
    check_annotations(true, "true", func)
    counts = true.counts().values.astype(np.float64)  # noqa: PD011 - LabelCounts, not pandas
    q = counts / counts.sum(axis=1, keepdims=True)
    if soft:
        return long_frame(true, func, q[true.item_codes])
    majority = q.argmax(axis=1)
    labels = np.asarray(true.scale.labels, dtype=object)[majority[true.item_codes]]
    return long_frame(true, func, label=labels)


def _texts(annotations: Annotations, text: pd.Series | str | Sequence[str], func: str) -> list[str]:
    if isinstance(text, pd.Series):
        absent = ~annotations.items.isin(text.index)
        if absent.any():
            miss = annotations.items[absent]
            msg = (
                f"`text` of {func} has no text for {miss.size} items, e.g. {examples(list(miss))}."
            )
            raise DataError(msg)
        if text.index.has_duplicates:
            dup = text.index[text.index.duplicated()]
            msg = f"`text` of {func} repeats item ids ({examples(list(dup))}); give one text per item."
            raise DataError(msg)
        found = text.reindex(annotations.items)
        return ["" if pd.isna(t) else str(t) for t in found]
    cols = [text] if isinstance(text, str) else list(text)
    if annotations.meta is None or any(c not in annotations.meta.columns for c in cols):
        have = [] if annotations.meta is None else list(annotations.meta.columns)
        msg = f"`text` of {func} names item columns {cols!r}, but the annotations keep {have!r}; load them with meta=[...] or pass a Series of texts indexed by item id."
        raise DataError(msg)
    # a missing text is an empty text (pandas keeps NaN through astype(str))
    parts = annotations.meta[cols].fillna("").astype(str)
    return parts.iloc[:, 0].str.cat(parts.iloc[:, 1:], sep=" ").tolist()


def itl_bias_baseline(
    train: Annotations,
    test: Annotations,
    *,
    text: pd.Series | str | Sequence[str],
    n_folds: int = 5,
    C: float = 1.0,
    max_features: int = 20000,
    seed: SeedLike = 0,
) -> pd.DataFrame:
    r"""A simple real ITL model: a shared text classifier plus per-annotator calibration.

    1. *Shared*: TF-IDF (word uni- and bigrams) of each item's text and a
       one-vs-rest logistic regression (liblinear) on every training
       annotation :math:`(x_i, y_{ia})`: log-probabilities :math:`z_i` (K).
    2. *Per annotator*: :math:`p(y_{ia} = k) \propto \exp(b_{ak} + \sum_j
       W_{akj} z_{ij})`, a multinomial logistic regression on :math:`z_i`
       with a weight matrix and bias per annotator (who is stricter, who
       uses which labels, who follows the shared signal), all annotators in
       one regression on interaction features, fitted on out-of-fold
       :math:`z_i` (``n_folds`` folds of training items) as at test time.

    Trained on ``train`` only; predicts every (item, annotator) cell of ``test``.

    Parameters
    ----------
    train, test : Annotations
        With annotator ids and the same scale (e.g. from :func:`split_items`).
    text : Series, str or sequence of str
        Item texts: a Series indexed by item id, or the ``meta`` column(s) to
        join (e.g. ``["prev_agent", "prev_user", "agent", "user"]`` for
        ConvAbuse read with ``meta=``); a missing text is empty.
    n_folds, C, max_features, seed : default 5, 1.0, 20000, 0
        Folds (assigned with ``seed``), inverse regularisation of both
        regressions, TF-IDF vocabulary.

    Returns a DataFrame: ``item``, ``annotator`` and one probability column
    per label. Raises MissingExtraError without scikit-learn (``pip install
    'dissensus[models]'``), DataError for missing texts, different scales or
    annotators of ``test`` never seen in ``train``.
    """
    func = "itl_bias_baseline"
    require_extra("models", ["sklearn"], func)
    from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: PLC0415 - optional extra
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 - optional extra
    from sklearn.multiclass import OneVsRestClassifier  # noqa: PLC0415 - optional extra

    check_annotations(train, "train", func)
    check_annotations(test, "test", func)
    tr_codes, tr_names = train._require_annotators(func)
    te_codes, te_names = test._require_annotators(func)
    te_pos = _annotator_positions(train, test, func, "train")  # one annotator index, by id
    tr_has = np.bincount(tr_codes, minlength=len(tr_names)) > 0
    bad = [te_names[c] for c in np.unique(te_codes) if te_pos[c] < 0 or not tr_has[te_pos[c]]]
    if bad:
        msg = f"{len(bad)} annotators of `test` have no training labels ({examples(bad)}); a per-annotator model cannot predict them. Split by item so that every annotator keeps training labels, or drop them."
        raise DataError(msg)
    K, R = train.scale.K, len(tr_names)
    vec = TfidfVectorizer(ngram_range=(1, 2), min_df=2, max_features=int(max_features),
                          sublinear_tf=True)  # fmt: skip
    X_tr_items = vec.fit_transform(_texts(train, text, func))
    X_te_items = vec.transform(_texts(test, text, func))
    y = train.label_codes

    def shared_logp(fit_items: IntArray, X_pred: sparse.csr_matrix) -> FloatArray:
        rows = np.isin(train.item_codes, fit_items)
        # one-vs-rest liblinear on the sparse TF-IDF: seconds, where multinomial
        # lbfgs over K x vocabulary weights took minutes (ConvAbuse, 20k features)
        model = OneVsRestClassifier(LogisticRegression(C=float(C), solver="liblinear"))
        model.fit(X_tr_items[train.item_codes[rows]], y[rows])
        out = np.full((X_pred.shape[0], K), np.log(1e-6))
        out[:, model.classes_] = np.log(np.clip(model.predict_proba(X_pred), 1e-6, None))
        return out

    rng = as_generator(seed)
    fold = rng.permutation(train.n_items) % max(2, int(n_folds))
    z_items = np.empty((train.n_items, K))
    for f in range(max(2, int(n_folds))):  # a handful of folds, not a hot loop
        held = np.flatnonzero(fold == f)
        z_items[held] = shared_logp(np.flatnonzero(fold != f), X_tr_items[held])
    z_te_items = shared_logp(np.arange(train.n_items), X_te_items)

    def design(z: FloatArray, a: IntArray) -> sparse.csr_matrix:
        n = a.size
        rows = np.repeat(np.arange(n), K + 1)
        cols = (a[:, None] * (K + 1) + np.arange(K + 1)[None, :]).ravel()
        vals = np.concatenate([z, np.ones((n, 1))], axis=1).ravel()
        return sparse.csr_matrix((vals, (rows, cols)), shape=(n, R * (K + 1)))

    calib = LogisticRegression(C=float(C), max_iter=2000)
    calib.fit(design(z_items[train.item_codes], tr_codes), y)
    te_a = te_pos[te_codes].astype(np.int64)
    q = np.zeros((test.n_annotations, K))
    q[:, calib.classes_] = calib.predict_proba(design(z_te_items[test.item_codes], te_a))
    q /= q.sum(axis=1, keepdims=True)
    return long_frame(test, func, q)
