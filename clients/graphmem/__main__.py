"""``python -m graphmem``: the ``graphmem`` command line."""

import sys

from graphmem.launcher import main

if __name__ == "__main__":
    sys.exit(main())
