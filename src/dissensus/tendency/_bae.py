r"""Behaviour alignment explainability (BAE): Section 3.2 of the tendency paper.

"A Unified Evaluation Framework for Multi-Annotator Tendency Learning",
arXiv:2508.10393 (2025). Notation (the paper's): :math:`S_{true}` the annotators' behavioural
similarity (their agreement on shared items), :math:`S_{model}` the cosine
similarity of the model's per-annotator representations (e.g. averaged
penultimate-layer features :math:`F_{avg}` or attention maps
:math:`A_{avg}`).
"""

from __future__ import annotations

import inspect
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy.spatial import procrustes

from dissensus._exceptions import DataError
from dissensus._validation import SeedLike, as_generator, examples, require_extra
from dissensus.agreement.kernels import Level, Weights
from dissensus.data import Annotations
from dissensus.report import Table, format_count, format_number, html_fragment
from dissensus.tendency._consistency import MeasureArg, consistency_matrix

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class BAEResult:
    r"""Behaviour alignment of model representations with annotator agreement (higher is better).

    ``statistic`` is :func:`bae` over the ``n_pairs`` off-diagonal pairs
    defined in ``similarity_true`` (:math:`S_{true}`; ``similarity_model`` is
    :math:`S_{model}`). ``embedding_true``, ``embedding_model`` and
    ``disparity`` are :func:`aligned_embeddings` of the two (None, None and
    NaN when :math:`S_{true}` has an undefined pair or ``embed=False``); the
    disparity is in [0, 1], lower is better.
    """

    statistic: float
    n_pairs: int
    similarity_true: pd.DataFrame
    similarity_model: pd.DataFrame
    embedding_true: pd.DataFrame | None
    embedding_model: pd.DataFrame | None
    disparity: float

    def __float__(self) -> float:
        return self.statistic

    def __repr__(self) -> str:
        return (
            f"<BAEResult: {self.statistic:.4f} over {self.n_pairs} pairs, Procrustes "
            f"disparity {self.disparity:.4f}>"
        )

    def _repr_html_(self) -> str:
        """Compact notebook view: one row with BAE, the pairs, the disparity and annotators."""
        row = [
            format_number(self.statistic, digits=4),
            format_count(self.n_pairs),
            format_number(self.disparity, digits=4),
            examples(self.similarity_true.index),
        ]
        caption = "BAE (higher is better); Procrustes disparity (lower is better): .embedding_true, .embedding_model."
        return html_fragment(
            Table(["BAE", "pairs", "disparity", "annotators"], [row], align="rrrl", caption=caption)
        )


def _representations(representations: object, names: pd.Index) -> FloatArray:
    """Unit rows, one per annotator of ``names`` (looked up by id in a mapping or frame)."""
    if isinstance(representations, pd.DataFrame):
        rows = representations.to_numpy(dtype=np.float64)
        representations = dict(zip(representations.index, rows, strict=True))
    if isinstance(representations, Mapping):
        missing = [a for a in names if a not in representations]
        if missing:
            msg = f"`representations` of bae has no vector for {len(missing)} annotators ({examples(missing)}); give one per annotator of the annotations."
            raise DataError(msg)
        X = np.asarray([np.asarray(representations[a], dtype=np.float64).ravel() for a in names])
    else:
        X = np.asarray(representations, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] != len(names):
            msg = f"`representations` of bae must be (M annotators = {len(names)}, d) in the annotations' annotator order; got shape {X.shape}."
            raise DataError(msg)
    if X.ndim != 2 or not np.isfinite(X).all():
        msg = "`representations` of bae must be finite vectors of one length."
        raise DataError(msg)
    norm = np.linalg.norm(X, axis=1)
    if (norm == 0).any():
        msg = f"Annotators {examples(list(names[norm == 0]))} have a zero representation; cosine similarity is undefined."
        raise DataError(msg)
    return np.asarray(X / norm[:, None], dtype=np.float64)


def mds_embedding(
    similarity: npt.ArrayLike, *, n_components: int = 2, seed: SeedLike = 0
) -> FloatArray:
    """Metric MDS (scikit-learn, SMACOF) of the dissimilarities ``1 - similarity``.

    ``similarity`` is a symmetric, finite (M, M) matrix with values in [-1, 1]
    (kappa, alpha, correlation or cosine); ``seed`` sets the ``random_state`` of
    the four SMACOF starts. Returns an (M, n_components) array; needs
    scikit-learn (``pip install 'dissensus[models]'``, else
    :class:`MissingExtraError`).

    Examples
    --------
    >>> S = np.array([[1.0, 0.9, 0.1], [0.9, 1.0, 0.2], [0.1, 0.2, 1.0]])
    >>> mds_embedding(S).shape
    (3, 2)
    """
    require_extra("models", ["sklearn"], "MDS embeddings (mds_embedding)")
    from sklearn.manifold import MDS  # noqa: PLC0415 - optional extra (scikit-learn)

    S = np.asarray(similarity, dtype=np.float64)
    D = np.clip(1.0 - (S + S.T) / 2.0, 0.0, None)
    np.fill_diagonal(D, 0.0)
    state = int(as_generator(seed).integers(2**31 - 1))
    params = inspect.signature(MDS).parameters
    kw: dict[str, Any] = {"n_components": int(n_components), "n_init": 4, "random_state": state}
    if "metric_mds" in params:  # scikit-learn >= 1.8
        kw.update(metric="precomputed", metric_mds=True, init="random")
    else:
        kw.update(dissimilarity="precomputed")
    return np.asarray(MDS(**kw).fit_transform(D), dtype=np.float64)


def aligned_embeddings(
    reference: pd.DataFrame, other: pd.DataFrame, *, seed: SeedLike = 0
) -> tuple[pd.DataFrame, pd.DataFrame, float] | None:
    """MDS embeddings of two similarity matrices, the second Procrustes-aligned to the first.

    ``reference`` and ``other`` are annotator × annotator similarities with
    the same index. Returns ``(embedding_reference, embedding_other,
    disparity)``, both standardised by :func:`scipy.spatial.procrustes`
    (disparity: the sum of squared differences after alignment), or None
    when a matrix has an undefined entry or fewer than three annotators.
    """
    S1, S2 = reference.to_numpy(), other.to_numpy()
    if S1.shape[0] < 3 or not (np.isfinite(S1).all() and np.isfinite(S2).all()):
        return None
    m1, m2, disparity = procrustes(mds_embedding(S1, seed=seed), mds_embedding(S2, seed=seed))
    cols = [f"dim{j + 1}" for j in range(m1.shape[1])]
    return (
        pd.DataFrame(m1, index=reference.index, columns=cols),
        pd.DataFrame(m2, index=reference.index, columns=cols),
        float(disparity),
    )


def bae(
    representations: Mapping[Hashable, npt.ArrayLike] | pd.DataFrame | npt.ArrayLike,
    true: Annotations,
    *,
    measure: MeasureArg = "cohen",
    min_overlap: int = 20,
    weights: Weights = "quadratic",
    level: Level = "nominal",
    embed: bool = True,
    seed: SeedLike = 0,
) -> BAEResult:
    r"""Behaviour alignment explainability: whether representations mirror who agrees with whom.

    .. math::

        \mathrm{BAE} = 1 - \frac{\lVert S_{model} - S_{true} \rVert_F}{\lVert S_{true} \rVert_F}

    with :math:`S_{model}` the cosine similarity of the annotators'
    representations and :math:`S_{true}` their behavioural similarity, the
    consistency matrix of :func:`consistency_matrix` (agreement on shared
    items, NaN below ``min_overlap``), over the off-diagonal pairs defined
    in :math:`S_{true}` (the diagonal is 1 on both sides; see :func:`dic`).

    The paper defines BAE as above. Ours: the behavioural similarity is the
    same pair agreement as DIC (any of its measures, with :math:`\tau`); the
    diagonal is excluded; the Procrustes disparity of the MDS embeddings
    (:func:`aligned_embeddings`) adds a number for the alignment the paper
    shows as pictures.

    Parameters
    ----------
    representations : mapping annotator -> vector, DataFrame or array of shape (M, d)
        One vector per annotator of ``true`` (a DataFrame indexed by
        annotator id; an array in ``true.annotators`` order).
    true : Annotations
        True annotations with annotator ids.
    measure, min_overlap, weights, level
        As in :func:`consistency_matrix`.
    embed, seed : bool, default True; int, Generator or None, default 0
        Compute the MDS embeddings (seeded starts) and Procrustes disparity
        (needs scikit-learn and every pair defined).

    Returns
    -------
    BAEResult

    Examples
    --------
    >>> df = pd.DataFrame({"item": np.repeat(np.arange(4), 3), "annotator": list("abc") * 4,
    ...                    "label": list("xxy" "yyx" "xxx" "yyy")})
    >>> true = Annotations.from_frame(df)
    >>> S = consistency_matrix(true, min_overlap=4).statistic.to_numpy()
    >>> w, V = np.linalg.eigh(S)
    >>> reps = V * np.sqrt(np.clip(w, 0, None))  # rows whose cosines are S
    >>> round(float(bae(reps, true, min_overlap=4, embed=False)), 6)
    1.0
    """
    cm = consistency_matrix(
        true, measure=measure, min_overlap=min_overlap, weights=weights, level=level
    )
    names = cm.statistic.index
    X = _representations(representations, pd.Index(names))
    S_model = np.clip(X @ X.T, -1.0, 1.0)
    np.fill_diagonal(S_model, 1.0)
    S_true = cm.statistic.to_numpy()
    iu, ju = np.triu_indices(len(names), 1)
    st, sm = S_true[iu, ju], S_model[iu, ju]
    ok = np.isfinite(st)
    den = float(np.sqrt((st[ok] ** 2).sum()))
    stat = 1.0 - float(np.sqrt(((st[ok] - sm[ok]) ** 2).sum())) / den if den > 0 else float("nan")
    S_model_df = pd.DataFrame(S_model, index=names, columns=cm.statistic.columns)
    aligned = aligned_embeddings(cm.statistic, S_model_df, seed=seed) if embed else None
    emb_t, emb_m, disparity = (None, None, float("nan")) if aligned is None else aligned
    return BAEResult(
        statistic=stat,
        n_pairs=int(ok.sum()),
        similarity_true=cm.statistic,
        similarity_model=S_model_df,
        embedding_true=emb_t,
        embedding_model=emb_m,
        disparity=float(disparity),
    )
