#!/usr/bin/env bash
# Set up (if needed) and run every check: generated stubs up to date, ruff, mypy --strict, the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
echo "== generated stubs"; python scripts/gen_proto.py --check
echo "== ruff";            ruff check .
echo "== mypy --strict";   mypy --strict clients/graphmem daemon/graphmemd
echo "== pytest";          python -m pytest -q "$@"
