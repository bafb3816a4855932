"""Collection rules for the whole tree (the doctests under src/ included).

``dissensus.torch`` needs the optional ``torch`` extra: without it its modules
(and their doctests) are not collected; tests/torch skips with a reason.
"""

from __future__ import annotations

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("torch") else ["src/dissensus/torch/*"]
