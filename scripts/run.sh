#!/usr/bin/env bash
# Set up (if needed: runtime dependencies only) and run the main job: the daemon on a repository
# (default: the current directory), with the embedded Kùzu store in the user's data directory
# (or $GRAPHMEM_HOME). A daemon that is already running registers the repository instead.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "${1:-.}" && pwd)"
bash "$here/scripts/setup.sh"
"$here/.venv/bin/graphmem" daemon start --repo "$repo"
"$here/.venv/bin/graphmem" status
