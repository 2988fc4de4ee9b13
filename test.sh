#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test with ctest (GUI tests offscreen).
set -euo pipefail
cd "$(dirname "$0")"
source .ci/install-deps.sh
bash .ci/build.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j2 "$@"
