#!/usr/bin/env bash
# Set up (if needed, with the dev extra) and run every check: generated stubs up to date, ruff,
# mypy --strict, the test suite (which also runs the Node example when node/npm exist).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --dev
export PATH="$PWD/.venv/bin:$PATH"
if command -v npm >/dev/null 2>&1 && [ -f tests/node/package-lock.json ]; then
  lock_hash="$(python -c 'import hashlib; print(hashlib.sha256(open("tests/node/package-lock.json", "rb").read()).hexdigest())')"
  if [ "$(cat tests/node/node_modules/.graphmem-stamp 2>/dev/null || true)" != "$lock_hash" ]; then
    echo "setup: installing the Node test dependencies (npm ci in tests/node)"
    (cd tests/node && npm ci --silent --no-audit --no-fund >/dev/null) && echo "$lock_hash" >tests/node/node_modules/.graphmem-stamp
  fi
fi
echo "== generated stubs"; python scripts/gen_proto.py --check
echo "== ruff";            ruff check .
echo "== mypy --strict";   mypy --strict clients/graphmem daemon/graphmemd
echo "== pytest";          python -m pytest -q "$@"
