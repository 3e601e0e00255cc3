#!/usr/bin/env bash
# Set up a virtualenv in .venv with graphmem (editable) and its pinned dependencies.
#   scripts/setup.sh          runtime dependencies only (what `scripts/run.sh` needs)
#   scripts/setup.sh --dev    plus the development tools of the `dev` extra (what `scripts/test.sh` needs)
# Needs only Python 3.11+ (and the package index for the first install). Prints one line per
# step; pip's output goes to .venv/setup.log and is shown only when a step fails. Skipped when
# nothing changed: .venv/.graphmem-setup holds the hash of pyproject.toml and the installed extra.
set -euo pipefail
cd "$(dirname "$0")/.."
extra=""
case "${1:-}" in
  --dev) extra="dev" ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--dev]" >&2; exit 64 ;;
esac
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for c in python3.13 python3.12 python3.11 python3; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then PY="$c"; break; fi
  done
fi
[ -n "$PY" ] || { echo "setup: Python 3.11 or newer is required" >&2; exit 1; }

stamp=.venv/.graphmem-setup
log=.venv/setup.log
want="$("$PY" -c 'import hashlib; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')"
have="$(cat "$stamp" 2>/dev/null || true)"
# Up to date when the stamp has this pyproject's hash and the wanted extra (dev covers runtime).
if [ -x .venv/bin/python ] && { [ "$have" = "$want dev" ] || [ "$have" = "$want $extra" ]; }; then
  echo "setup: up to date (.venv, $(.venv/bin/python --version))"
  exit 0
fi

step() {  # step "message" command...: one line, the command's output only on failure
  local msg="$1"; shift
  echo "setup: $msg"
  if ! "$@" >>"$log" 2>&1; then
    echo "setup: FAILED: $msg; output:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
}

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
  echo "setup: created .venv ($("$PY" --version))"
fi
: >"$log"
pip=(.venv/bin/python -m pip --disable-pip-version-check --quiet)
step "upgrading pip" "${pip[@]}" install --upgrade pip
if [ -n "$extra" ]; then
  step "installing graphmem with the development tools (editable, .[dev])" "${pip[@]}" install -e ".[dev]"
else
  step "installing graphmem with its runtime dependencies (editable)" "${pip[@]}" install -e .
fi
# Bytecode, as installing a wheel compiles it: a daemon start then imports instead of
# compiling its ~170 modules (0.3-0.4 s of every start where PYTHONDONTWRITEBYTECODE is set).
step "compiling bytecode" .venv/bin/python -m compileall -q daemon clients
echo "$want $extra" >"$stamp"
echo "setup: ready ($(.venv/bin/python --version)); activate with: source .venv/bin/activate"
