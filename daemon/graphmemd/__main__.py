"""``python -m graphmemd``: the daemon, whatever the working directory holds.

``python -m`` puts the working directory first on ``sys.path``; a folder named ``graphmem``
there would shadow an editable install of the client package (a namespace package found by
the path finder before setuptools' editable finder runs). Drop that entry before importing
anything else (``graphmemd`` itself is already imported; its submodules resolve through its
``__path__``). ``python -P -m graphmemd`` (what ``graphmem daemon start/run`` execute) never
adds it.
"""

import os
import sys

if not sys.flags.safe_path and sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from graphmemd.main import main  # imported after the sys.path fix, on purpose

sys.exit(main())
