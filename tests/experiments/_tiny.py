"""A tiny annotation table with item texts that carry signal (for end-to-end runs)."""

from __future__ import annotations

import numpy as np
import pandas as pd

WORDS = {0: "awful dreadful", 1: "poor dull", 2: "fine okay", 3: "good nice", 4: "great superb"}


def tiny_frame(n_items: int = 150, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        centre = int(rng.integers(0, 5))
        text = f"{WORDS[centre]} {rng.choice(['film', 'movie', 'show'])}"
        n = int(rng.choice([2, 3, 3, 4, 5, 8]))
        for a in rng.choice(30, n, replace=False):
            label = int(np.clip(centre + rng.integers(-1, 2), 0, 4)) + 1
            rows.append((f"i{i}", f"a{a}", label, text))
    return pd.DataFrame(rows, columns=["item", "annotator", "label", "text"])
