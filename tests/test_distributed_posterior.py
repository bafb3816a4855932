"""Posteriors and soft labels on a real 2-worker LocalCluster, against the in-memory path."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dissensus import DataError, posterior
from dissensus.data import Annotations, LabelCounts, Scale
from dissensus.posterior import PriorFitWarning

distributed = pytest.importorskip("dask.distributed")
dd = pytest.importorskip("dask.dataframe")
D = pytest.importorskip("dissensus.distributed")

SCALE = Scale.ordinal([1, 2, 3, 4, 5])
PRIORS: list[Any] = ["uniform", "jeffreys", "empirical", "hierarchical", 0.3, [0.2, 1, 2, 1, 0.5]]


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def long() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    n_items = 300
    n = rng.integers(1, 7, n_items)
    item = np.repeat(np.arange(n_items) * 7 + 3, n)
    centre = np.repeat(rng.integers(1, 6, n_items), n)
    label = np.clip(centre + rng.integers(-1, 2, item.size), 1, 5)
    df = pd.DataFrame({"item": item, "annotator": np.arange(item.size) % 11, "label": label})
    return df.sample(frac=1.0, random_state=5).reset_index(drop=True)


@pytest.fixture(scope="module")
def parquet_dir(long: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> Path:
    # rows shuffled, then cut in three files: most items are split across files
    path = tmp_path_factory.mktemp("annotations")
    for j, chunk in enumerate(np.array_split(np.arange(len(long)), 3)):
        long.iloc[chunk].to_parquet(path / f"part-{j}.parquet", index=False)
    return path


@pytest.fixture(scope="module")
def in_memory(long: pd.DataFrame) -> LabelCounts:
    return Annotations.from_frame(long, scale=SCALE).counts()


@pytest.fixture(scope="module")
def counts(client: Any, parquet_dir: Path) -> Any:
    return D.label_counts(parquet_dir, scale=SCALE, npartitions=4).persist()


def _local(lazy: Any, items: pd.Index) -> pd.DataFrame:
    """A lazy result computed, checked to be partitioned, in the order of ``items``."""
    assert isinstance(lazy, dd.DataFrame)
    assert lazy.npartitions == 4
    got = lazy.compute()
    assert not got.index.has_duplicates
    assert list(got.columns) == list(SCALE.labels)
    return got.loc[items]


def _same(got: pd.DataFrame, want: Any) -> None:
    np.testing.assert_allclose(got.to_numpy(), np.asarray(want), rtol=0, atol=1e-12)


class TestDirichlet:
    def test_items_split_across_partitions(self, counts: Any, in_memory: LabelCounts) -> None:
        sizes = counts.frame.map_partitions(len).compute().tolist()
        assert len(sizes) == 4
        assert sum(s > 0 for s in sizes) > 1
        assert sum(sizes) == in_memory.N

    @pytest.mark.parametrize("prior", PRIORS, ids=str)
    def test_equals_in_memory(self, counts: Any, in_memory: LabelCounts, prior: Any) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PriorFitWarning)
            lazy = D.dirichlet(counts, prior=prior)
            want = posterior.dirichlet(in_memory, prior=prior)
        _same(_local(lazy, in_memory.items), want)

    def test_fitted_prior_is_fitted_to_all_items(self, counts: Any, in_memory: LabelCounts) -> None:
        # per partition the fit would differ: the prior rows are the same everywhere
        alpha = D.dirichlet(counts, prior="hierarchical").compute()
        prior = alpha.to_numpy() - counts.frame.compute().loc[alpha.index].to_numpy()
        want = posterior.fit_hierarchical_prior(in_memory).alpha0
        np.testing.assert_allclose(prior, np.broadcast_to(want, prior.shape), atol=1e-12)

    def test_posterior_api_takes_dask(
        self, client: Any, parquet_dir: Path, in_memory: LabelCounts
    ) -> None:
        ddf = dd.read_parquet(parquet_dir)[["item", "label"]]
        lazy = posterior.dirichlet(ddf, prior="empirical")
        assert lazy.npartitions == 3  # label_counts' default: as many as the input
        got = lazy.compute().loc[in_memory.items]
        want = posterior.dirichlet(in_memory, prior="empirical")
        # the scale is inferred from the labels present: the same five
        np.testing.assert_allclose(got.to_numpy(), want, rtol=0, atol=1e-12)

    def test_refuses_bad_priors_before_computing(self, counts: Any) -> None:
        with pytest.raises(ValueError, match=r"per-item \(N, K\) prior"):
            D.dirichlet(counts, prior=np.ones((3, 5)))
        with pytest.raises(ValueError, match="'prior' parameter of dirichlet must be one of"):
            D.dirichlet(counts, prior="flat")
        with pytest.raises(ValueError, match="must be finite and > 0"):
            D.dirichlet(counts, prior=-1.0)


class TestSoftLabels:
    @pytest.mark.parametrize("prior", PRIORS, ids=str)
    def test_posterior_mean(self, counts: Any, in_memory: LabelCounts, prior: Any) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PriorFitWarning)
            lazy = D.soft_labels(counts, method="posterior_mean", prior=prior)
            want = posterior.soft_labels(in_memory, method="posterior_mean", prior=prior)
        _same(_local(lazy, in_memory.items), want)

    @pytest.mark.parametrize("method", ["empirical", "gaussian"])
    def test_per_item_methods(self, counts: Any, in_memory: LabelCounts, method: str) -> None:
        lazy = posterior.soft_labels(counts, method=method, sigma=0.7)  # the public dispatch
        want = posterior.soft_labels(in_memory, method=method, sigma=0.7)
        _same(_local(lazy, in_memory.items), want)

    @pytest.mark.parametrize("method", ["dawid_skene", "ordinal_dawid_skene", "mace"])
    def test_annotator_models_are_refused(self, counts: Any, method: str) -> None:
        with pytest.raises(ValueError, match="fits an annotator model to all the items at once"):
            posterior.soft_labels(counts, method=method)

    def test_option_errors_are_raised_at_once(
        self, client: Any, counts: Any, long: pd.DataFrame
    ) -> None:
        nominal = D.label_counts(long, scale=Scale.nominal([1, 2, 3, 4, 5]), npartitions=2)
        with pytest.raises(DataError, match="Gaussian smoothing needs ordered classes"):
            D.soft_labels(nominal, method="gaussian")
        with pytest.raises(ValueError, match="'sigma' parameter of soft_labels"):
            D.soft_labels(counts, method="gaussian", sigma=0.0)
        with pytest.raises(ValueError, match="'method' parameter of soft_labels"):
            D.soft_labels(counts, method="mode")

    def test_empty_items_named_when_computed(self, client: Any) -> None:
        wide = pd.DataFrame(
            {"c0": [1, 0, 2], "c1": [1, 0, 0]}, index=pd.Index([10, 11, 12], name="item")
        )
        counts = D.DistributedCounts(dd.from_pandas(wide, npartitions=2), Scale.nominal("ab"))
        lazy = D.soft_labels(counts)
        with pytest.raises(DataError, match=r"1 items have no annotations.*11"):
            lazy.compute()
        got = D.soft_labels(counts, method="posterior_mean", prior="uniform").compute()
        np.testing.assert_allclose(got.loc[11].to_numpy(), [0.5, 0.5], atol=1e-15)
