"""The generator of the example files shipped in dissensus/datasets (synthetic).

Nothing here is read from a real dataset: the ratings, predictions, the
ConvAbuse-format sample, the reviews and their Label Studio export are drawn from fixed seeds, so the files are the same
on every run; test_examples.py checks the shipped files are exactly these.
Regenerate them from the repository root with

    python -m tests.datasets.example_files
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

SHIPPED = Path(__file__).resolve().parents[2] / "src" / "dissensus" / "datasets"
_TURNS = (
    ("Hello, how can I help?", "you are useless"),
    ("What would you like to talk about?", "tell me a joke"),
    ("I am a chatbot.", "shut up you stupid machine"),
    ("Sorry, I did not get that.", "I will find you"),
    ("Nice to meet you!", "nice to meet you too"),
    ("Do you like music?", "only when you stop talking"),
)
# Review words by star rating (1 = worst), for reviews().
_TONES = (
    ("broken", "useless", "awful", "a waste of money", "returned"),
    ("flimsy", "disappointing", "slow", "overpriced", "noisy"),
    ("okay", "average", "fine for the price", "plain", "acceptable"),
    ("solid", "handy", "well made", "good value", "reliable"),
    ("excellent", "brilliant", "perfect", "a joy to use", "outstanding"),
)
_THINGS = ("kettle", "lamp", "backpack", "phone case", "blender", "desk chair", "umbrella")


def ratings(rng: np.random.Generator) -> pd.DataFrame:
    """40 items rated 1–5 by 2–6 of 8 annotators, over three years."""
    rows = []
    for i in range(40):
        centre = rng.uniform(1, 5)
        n = int(rng.integers(2, 7))
        year = 2022 + i % 3
        for a in rng.choice(8, n, replace=False):
            label = int(np.clip(np.rint(centre + rng.normal(0, 0.9)), 1, 5))
            rows.append((f"r{i:02d}", f"ann{a}", label, year))
    return pd.DataFrame(rows, columns=["item", "annotator", "label", "year"])


def predictions(table: pd.DataFrame, rng: np.random.Generator, *, sharp: bool) -> pd.DataFrame:
    """One row per item, a column per label: a sharp model (a) and a smooth one (b)."""
    counts = pd.crosstab(table["item"], table["label"]).reindex(columns=range(1, 6), fill_value=0)
    p = counts.to_numpy(dtype=float) / counts.to_numpy().sum(axis=1, keepdims=True)
    noise = rng.dirichlet(np.ones(5), size=len(p))
    q = 0.8 * p + 0.2 * noise if sharp else 0.4 * p + 0.4 * noise + 0.2 / 5
    q = np.round(q / q.sum(axis=1, keepdims=True), 4)
    q[:, -1] = np.round(1 - q[:, :-1].sum(axis=1), 4)
    out = pd.DataFrame(q, columns=[str(k) for k in range(1, 6)])
    out.insert(0, "item", counts.index)
    return out


def convabuse(rng: np.random.Generator) -> pd.DataFrame:
    """A ConvAbuse-format full file (one row per annotator and response), made up."""
    levels = ["1", "0", "-1", "-2", "-3"]
    rows = []
    example_no = 0
    for conv in range(12):
        prev_agent, prev_user = _TURNS[conv % len(_TURNS)]
        agent, user = _TURNS[(conv + 1) % len(_TURNS)]
        abusive = rng.uniform() < 0.4
        for a in rng.choice(8, int(rng.integers(2, 5)), replace=False):
            share = [0.1, 0.1, 0.3, 0.3, 0.2] if abusive else [0.8, 0.15, 0.05, 0.0, 0.0]
            k = int(rng.choice(5, p=share))
            one_hot = ["1" if j == k else "0" for j in range(5)]
            rows.append(
                [example_no, f"Annotator{a + 1}", 1000 + conv, prev_agent, prev_user, agent, user,
                 "E" if conv % 2 else "R", *one_hot]
            )  # fmt: skip
            example_no += 1
    columns = ["example_no", "annotator_id", "conv_id", "prev_agent", "prev_user", "agent",
               "user", "bot", *(f"is_abuse.{k}" for k in levels)]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def reviews(rng: np.random.Generator) -> pd.DataFrame:
    """60 made-up product reviews rated 1–5 stars by 3–5 of 8 raters; the words follow the stars.

    The columns (item, annotator, stars, review) are those of the README's
    ``dissensus experiment reviews.csv --text-column review --label stars``.
    """
    rows = []
    for i in range(60):
        centre = rng.uniform(1, 5)
        tone = _TONES[int(np.clip(np.rint(centre), 1, 5)) - 1]
        words = rng.choice(len(tone), 3, replace=False)
        thing = _THINGS[int(rng.integers(len(_THINGS)))]
        text = f"The {thing} is {tone[words[0]]}, {tone[words[1]]} and {tone[words[2]]}."
        for a in rng.choice(8, int(rng.integers(3, 6)), replace=False):
            stars = int(np.clip(np.rint(centre + rng.normal(0, 0.8)), 1, 5))
            rows.append((f"p{i:02d}", f"rater{a + 1}", stars, text))
    return pd.DataFrame(rows, columns=["item", "annotator", "stars", "review"])


def labelstudio(reviews: pd.DataFrame) -> list[dict[str, Any]]:
    """The first 12 of ``reviews`` as a Label Studio JSON export: a ``rating`` question.

    One task per review (``data.text``), one annotation per rater (``completed_by``
    a user id, or a user object with its email as Label Studio 1.9+ writes it), the
    stars as ``value.rating``; one cancelled (skipped) annotation, which the reader
    drops and reports, as in a real export.
    """
    tasks = []
    for t, (item, rows) in enumerate(reviews.groupby("item", sort=True)):
        if t == 12:
            break
        annotations: list[dict[str, Any]] = []
        for a, row in enumerate(rows.itertuples()):
            user = int(str(row.annotator).removeprefix("rater"))
            who: Any = user if a % 2 == 0 else {"id": user, "email": f"{row.annotator}@example.org"}
            result = {
                "id": f"{item}-{a}",
                "from_name": "stars",
                "to_name": "text",
                "type": "rating",
                "value": {"rating": int(row.stars)},
            }
            annotations.append(
                {"id": 100 * t + a, "completed_by": who, "result": [result], "was_cancelled": False}
            )
        if t == 3:
            annotations.append(
                {"id": 100 * t + 99, "completed_by": 9, "result": [], "was_cancelled": True}
            )
        tasks.append(
            {"id": t + 1, "data": {"text": rows["review"].iloc[0]}, "annotations": annotations}
        )
    return tasks


def write(out: Path = SHIPPED) -> None:
    """Write ratings.csv, a.csv, b.csv, convabuse.csv, reviews.csv and labelstudio.json into ``out``."""
    rng = np.random.default_rng(2025)
    table = ratings(rng)
    table.to_csv(out / "ratings.csv", index=False)
    predictions(table, rng, sharp=True).to_csv(out / "a.csv", index=False)
    predictions(table, rng, sharp=False).to_csv(out / "b.csv", index=False)
    convabuse(rng).to_csv(out / "convabuse.csv", index=False)
    shop = reviews(rng)
    shop.to_csv(out / "reviews.csv", index=False)
    text = json.dumps(labelstudio(shop), indent=1, ensure_ascii=False)
    (out / "labelstudio.json").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    write()
