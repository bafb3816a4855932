"""Small synthetic annotator pools with planted structure: two cliques."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dissensus import Annotations


def clique_pool(
    *,
    n_items: int = 200,
    n_annotators: int = 6,
    noise: float = 0.1,
    coverage: float = 0.8,
    seed: int = 0,
) -> tuple[Annotations, pd.DataFrame, np.ndarray]:
    """Annotators ``a0 .. a{R-1}``; even ones follow latent label z0, odd ones z1.

    Returns the annotations, their long frame, and the latent labels (n_items, 2).
    Within a clique pairs agree (kappa about (1 - noise)^2), across cliques they
    agree only by chance (z0, z1 independent).
    """
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, size=(n_items, 2))
    rows = []
    for a in range(n_annotators):
        flip = rng.random(n_items) < noise
        lab = np.where(flip, rng.integers(0, 2, n_items), z[:, a % 2])
        for i in np.flatnonzero(rng.random(n_items) < coverage):
            rows.append((f"i{i}", f"a{a}", int(lab[i])))
    df = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    return Annotations.from_frame(df), df, z


def clique_model(df: pd.DataFrame, z: np.ndarray) -> pd.DataFrame:
    """Predict each annotator as their clique's latent label: reproduces the cliques."""
    item = df["item"].str[1:].astype(int).to_numpy()
    clique = df["annotator"].str[1:].astype(int).to_numpy() % 2
    return df.assign(label=z[item, clique])


def one_clique_model(df: pd.DataFrame, z: np.ndarray) -> pd.DataFrame:
    """Predict everybody as clique 0: the right labels for half the pool, no clique structure."""
    item = df["item"].str[1:].astype(int).to_numpy()
    return df.assign(label=z[item, 0])
