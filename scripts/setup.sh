#!/usr/bin/env bash
# Set up a fresh machine: a virtualenv in .venv with graphmem and its pinned dependencies.
# Needs only Python 3.11+ (and network access to the package index for the first install).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for c in python3.13 python3.12 python3.11 python3; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then PY="$c"; break; fi
  done
fi
[ -n "$PY" ] || { echo "setup: Python 3.11 or newer is required" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"
echo "setup: ready ($(.venv/bin/python --version)) — activate with: source .venv/bin/activate"
