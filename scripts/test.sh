#!/usr/bin/env bash
# Set up (if needed) and run every check: generated stubs up to date, ruff, mypy --strict, the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
echo "== generated stubs"; python scripts/gen_proto.py --check
echo "== ruff";            ruff check .
echo "== mypy --strict";   mypy --strict clients/graphmem daemon/graphmemd
# Pinned JS formatter (prettier) for the format-invariance tests; skipped without node.
if command -v npm >/dev/null 2>&1; then
  echo "== npm ci (tests/node)"; (cd tests/node && npm ci --no-audit --no-fund --ignore-scripts --silent)
fi
echo "== pytest";          python -m pytest -q "$@"
