"""``python -m dissensus.cli``: the ``dissensus`` command."""

import sys

from dissensus.cli import main

if __name__ == "__main__":
    sys.exit(main())
