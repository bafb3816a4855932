"""The Dask engine against the in-memory path, on a real 2-worker LocalCluster."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest

from dissensus import DataError, FewItemsWarning, LabelSpellingWarning, evaluate
from dissensus import posterior as P
from dissensus._exceptions import ColumnsDetectedWarning
from dissensus.agreement import (
    brennan_prediger,
    chance_agreement,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    icc,
    krippendorff_alpha,
    observed_agreement,
    pairwise,
    share_unanimous,
)
from dissensus.data import Annotations, LabelCounts, Scale, read_annotations
from dissensus.posterior import PriorFitWarning

distributed = pytest.importorskip("dask.distributed")
dd = pytest.importorskip("dask.dataframe")
D = pytest.importorskip("dissensus.distributed")
_counts = pytest.importorskip("dissensus.distributed._counts")

SCALE = Scale.ordinal([1, 2, 3, 4, 5])
SEED = 11


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _long(n_items: int = 240, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 7, n_items)  # some items with a single rating (excluded)
    item = np.repeat(np.arange(n_items) * 7 + 3, n)
    centre = np.repeat(rng.integers(1, 6, n_items), n)
    label = np.clip(centre + rng.integers(-1, 2, item.size), 1, 5)
    df = pd.DataFrame({"item": item, "annotator": np.arange(item.size) % 13, "label": label})
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


@pytest.fixture(scope="module")
def long() -> pd.DataFrame:
    return _long()


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


class TestLabelCounts:
    def test_items_split_across_files_are_counted_once(
        self, counts: Any, in_memory: LabelCounts, long: pd.DataFrame, parquet_dir: Path
    ) -> None:
        files = [pd.read_parquet(f) for f in sorted(parquet_dir.iterdir())]
        split = set(files[0]["item"]) & set(files[1]["item"])
        assert len(split) > 50  # the data does exercise the shuffle
        got = counts.collect()
        order = np.argsort(in_memory.items.to_numpy())
        assert got.items.tolist() == in_memory.items[order].tolist()
        np.testing.assert_array_equal(got.values, in_memory.values[order])
        assert counts.frame.npartitions == 4

    def test_every_item_in_one_partition(self, counts: Any) -> None:
        sizes = counts.frame.map_partitions(lambda p: p.index.to_series()).compute()
        assert not sizes.duplicated().any()

    def test_scale_inferred_from_a_dask_frame(self, client: Any, long: pd.DataFrame) -> None:
        ddf = dd.from_pandas(long, npartitions=3)
        c = D.label_counts(ddf)
        assert c.scale == Scale.infer(long["label"])
        assert int(c.collect().values.sum()) == len(long)

    def test_label_not_on_scale_names_the_item(self, client: Any) -> None:
        df = pd.DataFrame({"item": [1, 1, 2], "label": [1, 9, 2]})
        with pytest.raises(DataError, match=r"item 1 with label 9"):
            D.label_counts(df, scale=[1, 2]).collect()

    @pytest.mark.parametrize("method", ["tasks", "p2p"])
    def test_shuffle_methods_give_the_same_counts(
        self, client: Any, parquet_dir: Path, in_memory: LabelCounts, method: str
    ) -> None:
        got = D.label_counts(parquet_dir, scale=SCALE, npartitions=3, shuffle=method).collect()
        order = np.argsort(in_memory.items.to_numpy())
        np.testing.assert_array_equal(got.values, in_memory.values[order])

    def test_unknown_shuffle_method(self) -> None:
        with pytest.raises(ValueError, match="shuffle"):
            D.label_counts(pd.DataFrame({"item": [1], "label": [1]}), shuffle="sort")

    def test_missing_column(self) -> None:
        df = pd.DataFrame({"x": [1], "y": [2], "label": [1]})
        with pytest.raises(DataError, match=r"item: no column named like an item id.*'x', 'y'"):
            D.label_counts(df)

    def test_columns_are_detected_as_in_memory(self, tmp_path: Path) -> None:
        path = tmp_path / "a.csv"
        path.write_text("item_id,rater,stars\n007,a,1\n7,a,2\n7,b,2\n")
        with pytest.warns(ColumnsDetectedWarning, match="item=item_id, annotator=rater"):
            counts = D.label_counts(str(path))
        with pytest.warns(ColumnsDetectedWarning):
            expected = read_annotations(path).counts()
        assert counts.collect().values.tolist() == expected.values.tolist()


#: Priors of the posterior tests: named, fitted, symmetric and per-label.
PRIORS: list[Any] = ["uniform", "jeffreys", "empirical", "hierarchical", 0.3, [0.2, 1, 2, 1, 0.5]]


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


class TestPosteriorDirichlet:
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
            want = P.dirichlet(in_memory, prior=prior)
        _same(_local(lazy, in_memory.items), want)

    def test_fitted_prior_is_fitted_to_all_items(self, counts: Any, in_memory: LabelCounts) -> None:
        # per partition the fit would differ: the prior rows are the same everywhere
        alpha = D.dirichlet(counts, prior="hierarchical").compute()
        prior = alpha.to_numpy() - counts.frame.compute().loc[alpha.index].to_numpy()
        want = P.fit_hierarchical_prior(in_memory).alpha0
        np.testing.assert_allclose(prior, np.broadcast_to(want, prior.shape), atol=1e-12)

    def test_takes_a_dask_frame(
        self, client: Any, parquet_dir: Path, in_memory: LabelCounts
    ) -> None:
        ddf = dd.read_parquet(parquet_dir)[["item", "label"]]
        lazy = D.dirichlet(ddf, prior="empirical")
        assert lazy.npartitions == 3  # label_counts' default: as many as the input
        got = lazy.compute().loc[in_memory.items]
        want = P.dirichlet(in_memory, prior="empirical")
        # the scale is inferred from the labels present: the same five
        np.testing.assert_allclose(got.to_numpy(), want, rtol=0, atol=1e-12)

    def test_in_memory_functions_name_the_dask_entry_point(
        self, parquet_dir: Path, counts: Any
    ) -> None:
        ddf = dd.read_parquet(parquet_dir)[["item", "label"]]
        for data in (ddf, counts):
            with pytest.raises(TypeError, match=r"dissensus\.distributed\.dirichlet"):
                P.dirichlet(data)
            with pytest.raises(TypeError, match=r"dissensus\.distributed\.soft_labels"):
                P.soft_labels(data)
            for coefficient in (fleiss_kappa, gwet_ac1, krippendorff_alpha):
                with pytest.raises(TypeError, match=r"dissensus\.distributed\.agreement"):
                    coefficient(data)

    def test_refuses_bad_priors_before_computing(self, counts: Any) -> None:
        with pytest.raises(ValueError, match=r"per-item \(N, K\) prior"):
            D.dirichlet(counts, prior=np.ones((3, 5)))
        with pytest.raises(ValueError, match="'prior' parameter of dirichlet must be one of"):
            D.dirichlet(counts, prior="flat")
        with pytest.raises(ValueError, match="must be finite and > 0"):
            D.dirichlet(counts, prior=-1.0)


class TestPosteriorSoftLabels:
    @pytest.mark.parametrize("prior", PRIORS, ids=str)
    def test_posterior_mean(self, counts: Any, in_memory: LabelCounts, prior: Any) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PriorFitWarning)
            lazy = D.soft_labels(counts, method="posterior_mean", prior=prior)
            want = P.soft_labels(in_memory, method="posterior_mean", prior=prior)
        _same(_local(lazy, in_memory.items), want)

    @pytest.mark.parametrize("method", ["empirical", "gaussian"])
    def test_per_item_methods(self, counts: Any, in_memory: LabelCounts, method: str) -> None:
        lazy = D.soft_labels(counts, method=method, sigma=0.7)
        want = P.soft_labels(in_memory, method=method, sigma=0.7)
        _same(_local(lazy, in_memory.items), want)

    @pytest.mark.parametrize("method", ["dawid_skene", "ordinal_dawid_skene", "mace"])
    def test_annotator_models_are_refused(self, counts: Any, method: str) -> None:
        with pytest.raises(ValueError, match="fits an annotator model to all the items at once"):
            D.soft_labels(counts, method=method)

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


class TestAgreement:
    IN_MEMORY: ClassVar[dict[str, Any]] = {
        "share_unanimous": share_unanimous,
        "fleiss_kappa": fleiss_kappa,
        "observed_agreement": observed_agreement,
        "chance_agreement": chance_agreement,
        "gwet_ac2_quadratic": lambda x: gwet_ac2(x, weights="quadratic"),
        "gwet_ac1": gwet_ac1,
        "brennan_prediger": brennan_prediger,
    }

    def test_point_estimates_equal_in_memory(self, counts: Any, in_memory: LabelCounts) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = D.agreement(counts, levels=("nominal", "ordinal", "interval", "ratio"))
            want = {name: f(in_memory) for name, f in self.IN_MEMORY.items()}
            for lvl in ("nominal", "ordinal", "interval", "ratio"):
                r = krippendorff_alpha(in_memory, level=lvl)
                want[r.name] = r
        assert set(got) == set(want)
        for name, w in want.items():
            g = got[name]
            assert g.statistic == pytest.approx(w.statistic, abs=1e-12, rel=1e-12), name
            assert (g.n_items, g.n_items_excluded, g.n_annotations) == (
                w.n_items,
                w.n_items_excluded,
                w.n_annotations,
            )
        for name in (
            "share_unanimous",
            "fleiss_kappa",
            "gwet_ac2_quadratic",
            "gwet_ac1",
            "brennan_prediger",
        ):
            assert got[name].standard_error == pytest.approx(
                want[name].standard_error, rel=1e-12
            ), name
        for name in ("krippendorff_alpha", "krippendorff_alpha_interval"):
            assert got[name].standard_error == pytest.approx(
                want[name].standard_error, rel=1e-12
            ), name
        assert got["krippendorff_alpha_ratio"].standard_error == pytest.approx(
            want["krippendorff_alpha_ratio"].standard_error, rel=1e-12
        )
        assert np.isnan(got["krippendorff_alpha_ordinal"].standard_error)
        assert np.isnan(want["krippendorff_alpha_ordinal"].standard_error)
        assert got["fleiss_kappa"].parts["chance_agreement"] == pytest.approx(
            want["fleiss_kappa"].parts["chance_agreement"], abs=1e-12
        )

    @pytest.mark.parametrize("npartitions", [1, 7])
    def test_alpha_se_does_not_depend_on_partitioning(
        self, client: Any, long: pd.DataFrame, in_memory: LabelCounts, npartitions: int
    ) -> None:
        # items with 1 to 6 ratings (the single ones excluded), rows of an item in any
        # input partition: the pooled moments give the in-memory SE
        ddf = dd.from_pandas(long, npartitions=5)
        c = D.label_counts(ddf, scale=SCALE, npartitions=npartitions)
        levels = ("ratio", "nominal", "interval")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = D.agreement(c, ["krippendorff_alpha"], levels=levels)
            for lvl in levels:
                want = krippendorff_alpha(in_memory, level=lvl)
                g = got[want.name]
                assert np.isfinite(want.standard_error)
                assert g.standard_error == pytest.approx(want.standard_error, rel=1e-12), lvl

    def test_excluded_items_warn(self, counts: Any) -> None:
        with pytest.warns(UserWarning, match="fewer than 2 ratings"):
            D.agreement(counts, ["fleiss_kappa"])

    def test_poisson_intervals_identical_to_in_memory(
        self, counts: Any, in_memory: LabelCounts
    ) -> None:
        opts = {"n_resamples": 300, "seed": SEED, "bootstrap": "poisson"}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = D.agreement(
                counts,
                levels=("nominal", "ordinal"),
                confidence_level=0.9,
                n_resamples=300,
                seed=SEED,
            )
            want = {name: f(in_memory) for name, f in self.IN_MEMORY.items()}
            want["krippendorff_alpha"] = krippendorff_alpha(in_memory)
            want["krippendorff_alpha_ordinal"] = krippendorff_alpha(in_memory, level="ordinal")
            for name, w in want.items():
                # the same call as the pass above: computed with the statistics
                assert got[name].confidence_interval(0.9, **opts) == pytest.approx(
                    w.confidence_interval(0.9, **opts), abs=1e-12
                ), name
            # other arguments: one more pass over the data
            assert got["gwet_ac1"].confidence_interval(0.8, **opts) == pytest.approx(
                want["gwet_ac1"].confidence_interval(0.8, **opts), abs=1e-12
            )
        with pytest.raises(ValueError, match="bootstrap='poisson'"):
            got["gwet_ac1"].confidence_interval(0.9)

    def test_intervals_do_not_depend_on_partitioning(
        self, client: Any, long: pd.DataFrame, counts: Any
    ) -> None:
        one = D.label_counts(long, scale=SCALE, npartitions=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = D.agreement(one, ["gwet_ac1"], confidence_level=0.95, n_resamples=100, seed=3)
            b = D.agreement(counts, ["gwet_ac1"], confidence_level=0.95, n_resamples=100, seed=3)
            c = D.agreement(counts, ["gwet_ac1"], confidence_level=0.95, n_resamples=100, seed=4)
            ci = {k: r["gwet_ac1"].confidence_interval(0.95, n_resamples=100, bootstrap="poisson",
                                                      seed=s) for k, r, s in (("a", a, 3), ("b", b, 3), ("c", c, 4))}  # fmt: skip
        assert ci["a"] == pytest.approx(ci["b"], abs=1e-12)
        assert ci["a"] != ci["c"]

    def test_more_partitions_than_items(self, client: Any) -> None:
        df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "label": [1, 1, 1, 2, 2, 2]})
        c = D.label_counts(df, scale=[1, 2], npartitions=8)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning from empty partitions
            warnings.simplefilter("ignore", FewItemsWarning)  # 3 items, on purpose
            got = D.agreement(c, ["fleiss_kappa"], confidence_level=0.9, n_resamples=20, seed=0)
        want = fleiss_kappa(LabelCounts.from_array([[2, 0], [1, 1], [0, 2]], items=[1, 2, 3]))
        assert got["fleiss_kappa"].statistic == pytest.approx(want.statistic, abs=1e-12)
        assert got["fleiss_kappa"].standard_error == pytest.approx(want.standard_error, rel=1e-12)

    def test_unknown_coefficient(self, counts: Any) -> None:
        with pytest.raises(ValueError, match="coefficients"):
            D.agreement(counts, ["cohen_kappa"])


class TestMetricMeans:
    METRICS = ("manhattan", "js_divergence", "emd", "E[emd]", "E[kl_divergence]", "debiased[emd]")

    @staticmethod
    def _predictions(items: pd.Index, seed: int) -> pd.DataFrame:
        q = np.random.default_rng(seed).dirichlet(np.ones(5), len(items))
        df = pd.DataFrame(q, columns=[str(v) for v in SCALE.labels])
        df.insert(0, "item", items.to_numpy())
        return df.sample(frac=1.0, random_state=seed)  # another order than the counts

    def test_means_equal_the_evaluation_summary(self, counts: Any, in_memory: LabelCounts) -> None:
        preds = {m: self._predictions(in_memory.items, s) for m, s in (("A", 1), ("B", 2))}
        dask_preds = {m: dd.from_pandas(p, npartitions=3) for m, p in preds.items()}
        got = D.metric_means(counts, dask_preds, self.METRICS, prior="jeffreys")
        ev = evaluate(
            in_memory,
            {m: p.set_index("item") for m, p in preds.items()},
            metrics=list(self.METRICS),
            prior="jeffreys",
        )
        want = ev.summary(n_resamples=2)
        merged = want.merge(got, on=["model", "metric"], suffixes=("", "_dask"))
        assert len(merged) == 2 * len(self.METRICS)
        np.testing.assert_allclose(merged["mean_dask"], merged["mean"], rtol=1e-12, atol=1e-12)
        assert (got["n_items"] == in_memory.N).all()

    def test_missing_items_are_an_error(self, counts: Any, in_memory: LabelCounts) -> None:
        pred = self._predictions(in_memory.items, 1).iloc[:-5]
        with pytest.raises(DataError, match=r"predict \d+ of the \d+ annotated items"):
            D.metric_means(counts, {"A": pred}, ["manhattan"])

    def test_a_repeated_item_in_place_of_a_missing_one_is_an_error(
        self, counts: Any, in_memory: LabelCounts
    ) -> None:
        # as many rows as items, but the first item twice and the last one missing
        pred = self._predictions(in_memory.items, 1).sort_values("item")
        pred.iloc[-1, 0] = pred.iloc[0, 0]
        other = self._predictions(in_memory.items, 2)
        with pytest.raises(DataError, match=r"predicted more than once"):
            D.metric_means(counts, {"A": other, "B": pred}, ["manhattan"])

    @pytest.mark.parametrize("prior", ["empirical", "hierarchical"])
    def test_fitted_prior_is_fitted_once_on_all_counts(
        self, counts: Any, in_memory: LabelCounts, prior: str
    ) -> None:
        preds = {"A": self._predictions(in_memory.items, 1)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PriorFitWarning)
            got = D.metric_means(counts, preds, ["E[emd]"], prior=prior)
            ev = evaluate(
                in_memory, {"A": preds["A"].set_index("item")}, metrics=["E[emd]"], prior=prior
            )
        want = float(ev.values[0, 0].mean())
        assert got["mean"].iloc[0] == pytest.approx(want, rel=1e-8)  # fit sums reordered


class TestStreamCounts:
    def test_batches_split_items_same_counts(
        self, parquet_dir: Path, in_memory: LabelCounts
    ) -> None:
        got = D.stream_counts(parquet_dir, scale=SCALE, batch_size=37)
        order = np.argsort(in_memory.items.to_numpy())
        assert got.items.tolist() == in_memory.items[order].tolist()
        np.testing.assert_array_equal(got.values, in_memory.values[order])
        assert got.scale == SCALE

    @pytest.mark.parametrize("cells", [10**9, 5 * 600, 5])
    def test_dense_ids_switch_to_hashing_midway(
        self, tmp_path: Path, long: pd.DataFrame, monkeypatch: pytest.MonkeyPatch, cells: int
    ) -> None:
        # item ids 3..1676 (and a negative one at the end): dense counts until an id
        # does not fit in `cells`, then partial counts merged by hash, same result
        df = pd.concat([long, pd.DataFrame({"item": [-5], "annotator": [0], "label": [2]})])
        df[["item", "label"]].to_csv(tmp_path / "a.csv", index=False)
        monkeypatch.setattr(_counts, "_DENSE_CELLS", cells)
        got = D.stream_counts(tmp_path / "a.csv", scale=SCALE, batch_size=50)
        want = Annotations.from_frame(df, scale=SCALE).counts()
        order = np.argsort(want.items.to_numpy())
        assert got.items.tolist() == want.items[order].tolist()
        np.testing.assert_array_equal(got.values, want.values[order])

    def test_csv_with_string_ids(self, tmp_path: Path, long: pd.DataFrame) -> None:
        df = long.assign(item="doc-" + long["item"].astype(str))
        df.to_csv(tmp_path / "ann.csv", index=False)
        got = D.stream_counts(tmp_path / "ann.csv", scale=SCALE, batch_size=100)
        want = Annotations.from_frame(df, scale=SCALE).counts()
        np.testing.assert_array_equal(
            got.to_frame().loc[want.items].to_numpy(), want.to_frame().to_numpy()
        )

    def test_missing_column(self, parquet_dir: Path) -> None:
        with pytest.raises(DataError, match="no column 'rating'"):
            D.stream_counts(parquet_dir, scale=SCALE, label="rating")


class TestPairwise:
    @pytest.mark.parametrize(
        ("measure", "options"),
        [
            ("cohen", {}),
            ("weighted_cohen", {"weights": "linear"}),
            ("alpha", {"level": "ordinal"}),
            ("pearson", {}),
        ],
    )
    def test_equal_to_in_memory_pairwise(
        self, client: Any, parquet_dir: Path, long: pd.DataFrame, measure: str, options: dict
    ) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pairs with one shared category are NaN in both
            want = pairwise(Annotations.from_frame(long, scale=SCALE), measure, **options)
            got = D.pairwise(parquet_dir, measure, scale=SCALE, npartitions=4, **options)
        order = sorted(want.statistic.index)
        assert got.statistic.index.tolist() == order
        w = want.statistic.loc[order, order].to_numpy()
        np.testing.assert_allclose(got.statistic.to_numpy(), w, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(
            got.overlap.to_numpy(), want.overlap.loc[order, order].to_numpy()
        )
        assert got.measure == want.measure
        # the data does put an item's annotations in several input files
        assert got.overlap.to_numpy().trace() == len(long)

    def test_partitioning_does_not_matter(self, client: Any, long: pd.DataFrame) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            one = D.pairwise(long, scale=SCALE, npartitions=1)
            many = D.pairwise(dd.from_pandas(long, npartitions=5), scale=SCALE, npartitions=7)
        np.testing.assert_array_equal(one.overlap.to_numpy(), many.overlap.to_numpy())
        np.testing.assert_allclose(one.statistic.to_numpy(), many.statistic.to_numpy(), rtol=1e-12)

    def test_repeated_annotator_is_an_error(self, client: Any) -> None:
        df = pd.DataFrame({"item": [1, 1, 2], "annotator": ["a", "a", "b"], "label": [1, 2, 1]})
        with pytest.raises(DataError, match=r"repeated \(item, annotator\) pairs, e.g. item 1"):
            D.pairwise(df, scale=[1, 2])

    def test_unknown_measure(self) -> None:
        with pytest.raises(ValueError, match="measure"):
            D.pairwise(pd.DataFrame({"item": [1]}), "kappa")


class TestEvaluate:
    METRICS = ("manhattan", "js_divergence", "emd", "E[emd]", "E[kl_divergence]", "debiased[emd]")

    @staticmethod
    def _predictions(items: pd.Index, seed: int) -> pd.DataFrame:
        return TestMetricMeans._predictions(items, seed)

    @pytest.fixture(scope="class")
    @classmethod
    def both(cls, client: Any, parquet_dir: Path, in_memory: LabelCounts) -> tuple[Any, Any]:
        preds = {m: cls._predictions(in_memory.items, s) for m, s in (("A", 1), ("B", 2), ("C", 3))}
        # the Dask path sorts the items by id: the in-memory one is given them in that order
        ordered = in_memory.take(np.argsort(in_memory.items.to_numpy()))
        opts: dict[str, Any] = {"prior": "jeffreys", "bins": [1, 3, 5], "seed": SEED}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = evaluate(ordered, {m: p.set_index("item") for m, p in preds.items()},
                            metrics=list(cls.METRICS), **opts)  # fmt: skip
            ddf = dd.read_parquet(parquet_dir)  # items split across files and partitions
            dask_preds = {m: dd.from_pandas(p, npartitions=3) for m, p in preds.items()}
            dcounts = D.label_counts(ddf, scale=SCALE, npartitions=4)
            got = evaluate(dcounts, dask_preds, metrics=list(cls.METRICS), **opts)
        return got, want

    def test_same_scores_and_tables(self, both: tuple[Any, Any]) -> None:
        got, want = both
        assert got.counts.items.tolist() == want.counts.items.tolist()
        np.testing.assert_array_equal(got.counts.values, want.counts.values)
        np.testing.assert_array_equal(got.values, want.values)  # the same registry functions
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # identical scores in the same item order: the same multinomial resamples, so
            # byte-identical tables and intervals
            for table in ("summary", "differences", "reversals"):
                pd.testing.assert_frame_equal(
                    getattr(got, table)(n_resamples=200), getattr(want, table)(n_resamples=200),
                    check_exact=True,
                )  # fmt: skip
            for table in ("by_bin", "rankings", "metric_agreement", "reversal_items"):
                pd.testing.assert_frame_equal(
                    getattr(got, table)(), getattr(want, table)(), check_exact=True
                )
            pd.testing.assert_frame_equal(
                got.prior_sensitivity(n_resamples=50), want.prior_sensitivity(n_resamples=50),
                check_exact=True,
            )  # fmt: skip
        np.testing.assert_array_equal(got.predictions, want.predictions)

    def test_dask_frame_of_long_annotations(self, client: Any, long: pd.DataFrame) -> None:
        ddf = dd.from_pandas(long, npartitions=3)
        ann = Annotations.from_frame(long)
        counts = ann.counts()
        pred = self._predictions(counts.items, 5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = evaluate(ddf, {"A": pred}, metrics=["manhattan"])
            want = evaluate(ann, {"A": pred.set_index("item")}, metrics=["manhattan"])
        assert got.dataset_info() == want.dataset_info()
        assert got.summary(n_resamples=2)["mean"].iloc[0] == pytest.approx(
            want.summary(n_resamples=2)["mean"].iloc[0], rel=1e-12
        )

    def test_missing_items(self, counts: Any, in_memory: LabelCounts) -> None:
        pred = self._predictions(in_memory.items, 1)
        with pytest.raises(DataError, match=r"predict \d+ of the \d+ annotated items"):
            evaluate(counts, {"A": pred.iloc[:-5]}, metrics=["manhattan"])
        with pytest.warns(UserWarning, match="dropped 5 annotated items"):
            ev = evaluate(counts, {"A": pred.iloc[:-5]}, metrics=["manhattan"], how="inner")
        assert ev.counts.N == in_memory.N - 5

    def test_bad_probabilities_name_the_item(self, counts: Any, in_memory: LabelCounts) -> None:
        pred = self._predictions(in_memory.items, 1)
        pred.iloc[0, 1] = -0.5
        with pytest.raises(DataError, match=rf"\(item {pred.iloc[0, 0]}\) column 0 is -0.5"):
            evaluate(counts, {"A": pred}, metrics=["manhattan"])

    @pytest.mark.parametrize("prior", ["empirical", "hierarchical"])
    def test_fitted_prior_fitted_to_all_items(
        self, counts: Any, in_memory: LabelCounts, prior: str
    ) -> None:
        pred = self._predictions(in_memory.items, 4)
        ordered = in_memory.take(np.argsort(in_memory.items.to_numpy()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PriorFitWarning)
            got = evaluate(counts, {"A": pred}, metrics=["E[emd]"], prior=prior)
            want = evaluate(ordered, {"A": pred.set_index("item")}, metrics=["E[emd]"], prior=prior)
        # the hierarchical fit sums the distinct count vectors in another order (1 ulp)
        np.testing.assert_allclose(got.values, want.values, rtol=1e-14, atol=0)
        assert got.prior == want.prior == prior


def _ratings(n_items: int = 90, seed: int = 2) -> pd.DataFrame:
    """Long complete ratings: every item rated once by each of 5 annotators, rows shuffled."""
    rng = np.random.default_rng(seed)
    raters = np.array(["ann", "bob", "cy", "dee", "eve"])
    target = rng.normal(3.0, 1.0, n_items)
    bias = rng.normal(0.0, 0.4, raters.size)
    y = target[:, None] + bias[None, :] + rng.normal(0.0, 0.7, (n_items, raters.size))
    df = pd.DataFrame(
        {
            "item": np.repeat(np.arange(n_items) * 3 + 100, raters.size),
            "annotator": np.tile(raters, n_items),
            "label": np.round(y.ravel(), 1),
        }
    )
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


class TestIcc:
    KINDS = ("1,1", "A,1", "C,1", "1,k", "A,k", "C,k")

    @pytest.fixture(scope="class")
    @classmethod
    def ratings(cls) -> pd.DataFrame:
        return _ratings()

    @pytest.fixture(scope="class")
    @classmethod
    def ddf(cls, ratings: pd.DataFrame) -> Any:
        ddf = dd.from_pandas(ratings, npartitions=3)
        first, second = (set(p.compute()["item"]) for p in ddf.to_delayed()[:2])
        assert len(first & second) > 20  # an item's rows are in several partitions
        return ddf

    @pytest.mark.parametrize("kind", KINDS)
    def test_equal_to_in_memory(
        self, client: Any, ratings: pd.DataFrame, ddf: Any, kind: str
    ) -> None:
        wide = ratings.pivot(index="item", columns="annotator", values="label")
        want = icc(wide, kind=kind)
        got = D.icc(ddf, kind=kind, npartitions=4)
        assert got.name == want.name
        assert got.statistic == pytest.approx(want.statistic, rel=1e-12, abs=1e-12)
        assert got.pvalue == pytest.approx(want.pvalue, rel=1e-12, abs=1e-300)
        assert got.confidence_interval(0.9) == pytest.approx(
            want.confidence_interval(0.9), rel=1e-12, abs=1e-12
        )
        for name, w in want.parts.items():
            assert got.parts[name] == pytest.approx(w, rel=1e-12), name
        assert (got.n_items, got.n_annotations) == (90, 450)

    def test_parquet_path(self, client: Any, ratings: pd.DataFrame, tmp_path: Path) -> None:
        for j, chunk in enumerate(np.array_split(np.arange(len(ratings)), 3)):
            ratings.iloc[chunk].to_parquet(tmp_path / f"part-{j}.parquet", index=False)
        wide = ratings.pivot(index="item", columns="annotator", values="label")
        got = D.icc(tmp_path, kind="C,1")
        assert got.statistic == pytest.approx(icc(wide, kind="C,1").statistic, rel=1e-12)

    def test_incomplete_design_names_item_and_rater(
        self, client: Any, ratings: pd.DataFrame
    ) -> None:
        row = ratings.iloc[7]
        short = ratings.drop(index=7)
        with pytest.raises(
            DataError,
            match=rf"1 of the 90 items are not, e.g. item {row['item']} has 4 of the 5 "
            rf"ratings \(no rating by '{row['annotator']}'\).*method='reml'",
        ):
            D.icc(dd.from_pandas(short, npartitions=3))

    def test_repeated_rating_names_item_and_rater(self, client: Any, ratings: pd.DataFrame) -> None:
        dup = ratings.copy()
        item = dup.loc[0, "item"]
        others = dup.index[(dup["item"] == item) & (dup["annotator"] != dup.loc[0, "annotator"])]
        dup.loc[others[0], "annotator"] = dup.loc[0, "annotator"]
        with pytest.raises(
            DataError, match=rf"annotator '{dup.loc[0, 'annotator']}' rated item {item} 2 times"
        ):
            D.icc(dd.from_pandas(dup, npartitions=3))

    def test_missing_rating_and_bad_input(self, client: Any, ratings: pd.DataFrame) -> None:
        gap = ratings.astype({"label": float})
        gap.loc[3, "label"] = np.nan
        with pytest.raises(DataError, match=rf"item {gap.loc[3, 'item']}.*method='reml'"):
            D.icc(gap)
        with pytest.raises(DataError, match="numeric ratings"):
            D.icc(ratings.assign(label="x"))
        with pytest.raises(TypeError, match="long ratings"):
            D.icc(D.label_counts(ratings.assign(label=1)))
        with pytest.raises(ValueError, match="kind"):
            D.icc(ratings, kind="2,1")


class TestSameChecksBothEngines:
    """The in-memory readers and the Dask engine apply one set of checks to the same bad files."""

    @staticmethod
    def _counts(engine: str, path: Path) -> LabelCounts:
        if engine == "memory":
            return read_annotations(path).counts()
        return D.label_counts(str(path)).collect()

    @staticmethod
    def _csv(tmp_path: Path, rows: str) -> Path:
        path = tmp_path / "a.csv"
        path.write_text("item,annotator,label\n" + rows, encoding="utf-8")
        return path

    @pytest.mark.parametrize("engine", ["memory", "dask"])
    def test_zero_padded_ids_stay_apart(self, client, tmp_path, engine):
        counts = self._counts(engine, self._csv(tmp_path, "007,a,1\n7,b,2\n7,a,2\n"))
        assert sorted(counts.items) == ["007", "7"]
        assert counts.values.sum() == 3

    @pytest.mark.parametrize("engine", ["memory", "dask"])
    def test_canonical_integer_ids_are_integers(self, client, tmp_path, engine):
        counts = self._counts(engine, self._csv(tmp_path, "7,a,1\n8,b,2\n7,b,2\n"))
        assert sorted(counts.items) == [7, 8]
        assert counts.scale == Scale.ordinal([1, 2])

    @pytest.mark.parametrize("engine", ["memory", "dask"])
    def test_repeated_pair_is_refused(self, client, tmp_path, engine):
        path = self._csv(tmp_path, "1,a,1\n1,a,2\n2,a,2\n2,b,2\n")
        with pytest.raises(
            DataError, match=r"1 repeated \(item, annotator\) pairs.* e.g. item 1 by annotator 'a'"
        ):
            self._counts(engine, path)

    @pytest.mark.parametrize("engine", ["memory", "dask"])
    def test_whitespace_variant_label_warns(self, client, tmp_path, engine):
        path = self._csv(tmp_path, "1,a,pos\n1,b,pos \n2,a,neg\n2,b,neg\n")
        with pytest.warns(LabelSpellingWarning, match="'pos' vs 'pos '"):
            counts = self._counts(engine, path)
        assert counts.scale.labels == ("neg", "pos", "pos ")

    @pytest.mark.parametrize("engine", ["memory", "dask"])
    def test_stray_text_among_numbers_is_refused(self, client, tmp_path, engine):
        path = self._csv(tmp_path, "1,a,1\n1,b,2\n2,a,NA\n2,b,3\n")
        with pytest.raises(DataError, match=r"numbers except 'NA' at .*--na-values NA"):
            self._counts(engine, path)

    @pytest.mark.parametrize("engine", ["memory", "dask"])
    def test_id_variants_warn_naming_both(self, client, tmp_path, engine):
        path = self._csv(tmp_path, " 1,a,pos\n1,b,pos\n")
        with pytest.warns(LabelSpellingWarning, match="Item ids in column 'item'") as rec:
            counts = self._counts(engine, path)
        assert "' 1'" in str(rec[0].message)
        assert len(counts.items) == 2

    @pytest.mark.parametrize("engine", ["memory", "dask"])
    def test_control_character_in_id_is_refused(self, client, tmp_path, engine):
        path = self._csv(tmp_path, '"1\n",a,pos\n2,b,pos\n')
        with pytest.raises(DataError, match="contains the control character U\\+000A"):
            self._counts(engine, path)

    @pytest.mark.parametrize("engine", ["memory", "dask"])
    def test_ordered_categorical_order_is_kept(self, client, engine):
        cat = pd.Categorical(
            ["low", "high", "mid", "low"], categories=["low", "mid", "high"], ordered=True
        )
        df = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": list("abab"), "label": cat})
        if engine == "memory":
            counts = Annotations.from_frame(df).counts()
        else:
            counts = D.label_counts(dd.from_pandas(df, npartitions=2)).collect()
        assert counts.scale == Scale.ordinal(["low", "mid", "high"])
        assert counts.values.tolist() == [[1, 0, 1], [1, 1, 0]]
