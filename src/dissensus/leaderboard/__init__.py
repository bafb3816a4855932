"""Shared-task leaderboards under several metrics: who wins depends on the metric (seed 001, §4.3).

:func:`leaderboard` ranks the teams of one dataset under every metric and
measures how much each pair of metrics re-ranks them (seed 001's Table 2),
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
from dissensus.leaderboard._render import bump_chart_svg

__all__ = [
    "AVERAGE",
    "DEFAULT_METRICS",
    "Leaderboard",
    "bump_chart_svg",
    "combine_leaderboards",
    "leaderboard",
    "read_submission",
    "team_names",
]
