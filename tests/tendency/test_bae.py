"""Tests of dissensus.tendency._bae."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from dissensus import DataError
from dissensus.report import format_number
from dissensus.tendency import bae, consistency_matrix, mds_embedding
from tests.tendency._pools import clique_pool


@pytest.fixture(scope="module")
def pool():
    return clique_pool(n_items=200, n_annotators=6, seed=2)


def _exact_representations(S: np.ndarray) -> np.ndarray:
    w, V = np.linalg.eigh(S)
    assert w.min() > -1e-9  # the clique kappa matrix is positive semi-definite
    return V * np.sqrt(np.clip(w, 0.0, None))


class TestBae:
    def test_representations_with_the_true_similarity_score_one(self, pool) -> None:
        ann = pool[0]
        S = consistency_matrix(ann).statistic.to_numpy()
        r = bae(_exact_representations(S), ann)
        assert r.statistic == pytest.approx(1.0, abs=1e-9)
        assert r.disparity == pytest.approx(0.0, abs=1e-6)
        assert r.n_pairs == 15

    def test_clique_vectors_beat_random_vectors(self, pool) -> None:
        ann = pool[0]
        names = list(ann.annotators)
        cliques = {a: np.eye(2)[int(a[1:]) % 2] for a in names}
        rng = np.random.default_rng(0)
        noise = {a: rng.normal(size=8) for a in names}
        good, bad = bae(cliques, ann), bae(noise, ann)
        assert good.statistic > 0.5 > bad.statistic
        assert good.disparity < bad.disparity

    def test_dataframe_in_any_row_order(self, pool) -> None:
        ann = pool[0]
        names = list(ann.annotators)
        X = pd.DataFrame(np.random.default_rng(1).normal(size=(6, 3)), index=names)
        a = bae(X, ann, embed=False).statistic
        b = bae(X.iloc[::-1], ann, embed=False).statistic
        assert a == b

    def test_embeddings_are_aligned_frames(self, pool) -> None:
        ann = pool[0]
        r = bae({a: np.eye(2)[int(a[1:]) % 2] for a in ann.annotators}, ann, seed=3)
        assert r.embedding_true.shape == r.embedding_model.shape == (6, 2)
        assert list(r.embedding_true.index) == list(ann.annotators)

    def test_missing_annotator(self, pool) -> None:
        with pytest.raises(DataError, match="no vector for 1 annotators"):
            bae({a: [1.0, 0.0] for a in list(pool[0].annotators)[1:]}, pool[0])

    def test_zero_vector(self, pool) -> None:
        reps = {a: [1.0, 0.0] for a in pool[0].annotators}
        reps["a0"] = [0.0, 0.0]
        with pytest.raises(DataError, match="zero representation"):
            bae(reps, pool[0])

    def test_wrong_array_shape(self, pool) -> None:
        with pytest.raises(DataError, match="must be"):
            bae(np.ones((3, 2)), pool[0])


class TestMdsEmbedding:
    def test_recovers_two_groups(self) -> None:
        S = np.kron(np.eye(2), np.ones((3, 3)))
        E = mds_embedding(S, seed=0)
        d_within = np.linalg.norm(E[0] - E[1])
        d_across = np.linalg.norm(E[0] - E[3])
        assert d_within < 0.1 * d_across

    def test_seeded(self) -> None:
        S = np.array([[1, 0.5, 0.1], [0.5, 1, 0.2], [0.1, 0.2, 1]])
        np.testing.assert_array_equal(mds_embedding(S, seed=4), mds_embedding(S, seed=4))


class TestReprHtml:
    def test_one_row_with_statistic_and_escaped_names(self, pool) -> None:
        ann = pool[0]
        S = consistency_matrix(ann).statistic.to_numpy()
        r = bae(_exact_representations(S), ann)
        first = r.similarity_true.index[0]
        page = replace(
            r, similarity_true=r.similarity_true.rename(index={first: "<script>"})
        )._repr_html_()
        assert "<script>" not in page
        assert "'&lt;script&gt;'" in page
        stat, disparity = (format_number(v, digits=4) for v in (r.statistic, r.disparity))
        assert (
            f'num">{stat}</th><td class="num">{r.n_pairs:,}</td><td class="num">{disparity}</td>'
            in page
        )
        assert '<th scope="col" class="num">BAE</th>' in page
