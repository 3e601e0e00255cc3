#!/usr/bin/env bash
# Set up (if needed: runtime dependencies only) and run the main job: the daemon on a repository
# (default: the current directory), with its embedded store in the user's data directory (or
# $GRAPHMEM_HOME). The store engine is LadybugDB by default (runtime/config.py's
# DEFAULT_STORE_ENGINE); GRAPHMEM_STORE_ENGINE=kuzu selects Kùzu. The engine in use is printed.
# A daemon that is already running registers the repository instead (and keeps its own engine).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "${1:-.}" && pwd)"
bash "$here/scripts/setup.sh"
engine="$("$here/.venv/bin/python" -P -c \
  'from graphmemd.runtime.config import resolve_config; print(resolve_config().store_engine)')"
echo "run: store engine $engine (LadybugDB is the default; GRAPHMEM_STORE_ENGINE=kuzu selects Kùzu)"
"$here/.venv/bin/graphmem" daemon start --repo "$repo"
"$here/.venv/bin/graphmem" status
