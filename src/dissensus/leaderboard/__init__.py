"""Shared-task leaderboards under several metrics: who wins depends on the metric.

:func:`leaderboard` ranks the teams of one dataset under every metric and
measures how much each pair of metrics re-ranks them (Table 2 of Rizzi et al.
2024, NLPerspectives at LREC-COLING 2024, §4.3),
with top-to-bottom significance between adjacent teams and Kendall's tau;
:func:`combine_leaderboards` puts several datasets together and averages.
"""

from dissensus.leaderboard._board import (
    AVERAGE,
    DEFAULT_METRICS,
    Leaderboard,
    combine_leaderboards,
    leaderboard,
)
from dissensus.leaderboard._io import read_submission, team_names

__all__ = [
    "AVERAGE", "DEFAULT_METRICS", "Leaderboard", "combine_leaderboards", "leaderboard",
    "read_submission", "team_names",
]  # fmt: skip
