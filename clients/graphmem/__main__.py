"""``python -m graphmem``: the ``graphmem`` command line."""

import sys

from graphmem.cli import main

if __name__ == "__main__":
    sys.exit(main())
