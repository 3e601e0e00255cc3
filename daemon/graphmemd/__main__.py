import sys

from graphmemd.main import main

sys.exit(main())
