#!/usr/bin/env bash
# Set up (if needed, with the dev extra) and run every check: generated stubs up to date, ruff,
# mypy --strict, the import-layer contracts, the test suite (which also runs the Node example when node/npm exist).
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
if command -v npm >/dev/null 2>&1 && [ -f clients/vscode/package-lock.json ]; then
  # The VS Code extension: install (when its lock file changed), compile, its node tests, a .vsix.
  lock_hash="$(python -c 'import hashlib; print(hashlib.sha256(open("clients/vscode/package-lock.json", "rb").read()).hexdigest())')"
  if [ "$(cat clients/vscode/node_modules/.graphmem-stamp 2>/dev/null || true)" != "$lock_hash" ]; then
    echo "setup: installing the VS Code extension's dependencies (npm ci in clients/vscode)"
    (cd clients/vscode && npm ci --silent --no-audit --no-fund >/dev/null) && echo "$lock_hash" >clients/vscode/node_modules/.graphmem-stamp
  fi
  echo "== VS Code extension: compile, node tests, vsce package"
  (cd clients/vscode && npm run --silent compile && npm test --silent >/dev/null && npx --no-install vsce package --skip-license --allow-missing-repository --out graphmem.vsix >/dev/null) \
    || { echo "the VS Code extension failed (cd clients/vscode && npm run compile && npm test && npx vsce package)" >&2; exit 1; }
  echo "   packaged clients/vscode/graphmem.vsix"
fi
echo "== generated stubs"; python scripts/gen_proto.py --check
echo "== ruff";            ruff check .
echo "== mypy --strict";   mypy --strict clients/graphmem daemon/graphmemd
echo "== import layers";   lint-imports --no-cache
# The suite runs with a fresh $TMPDIR and must leave it empty (pytest's own tmp_path root is a
# sibling this script removes).
scratch="$(mktemp -d /tmp/gmtest.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/tmp"
echo "== pytest"
status=0
TMPDIR="$scratch/tmp" python -m pytest -q -p no:cacheprovider --basetemp="$scratch/pytest" "$@" || status=$?
if [ "$#" -eq 0 ]; then
  # The store's other engine (store/engines.py): the store, fault and durability tests once more
  # on it (a pytest process holds one engine, so this is its own pass).
  other="$(python -c 'from graphmemd.runtime.config import DEFAULT_STORE_ENGINE as d, STORE_ENGINES as e; print(next(n for n in e if n != d))')"
  echo "== pytest on the store engine $other (store, fault and durability tests)"
  GRAPHMEM_STORE_ENGINE="$other" TMPDIR="$scratch/tmp" python -m pytest -q -p no:cacheprovider \
    --basetemp="$scratch/pytest-$other" tests/store tests/faults tests/service/test_crash.py \
    tests/memory/test_durability_units.py tests/indexing/test_warm_restart.py || status=$?
fi
left="$(ls -A "$scratch/tmp")"
if [ -n "$left" ]; then
  echo "== the tests left $(echo "$left" | wc -l) entries in \$TMPDIR:" >&2
  echo "$left" | head -20 >&2
  [ "$status" -ne 0 ] || status=1
else
  echo "== \$TMPDIR left empty"
fi
exit "$status"
