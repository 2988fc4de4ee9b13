#!/usr/bin/env bash
# Installs what is missing, builds, and opens Shardscope on the default sample. Without a display it
# runs the same evaluation headless and prints the summary. Extra arguments go to the program.
set -euo pipefail
cd "$(dirname "$0")"
source .ci/install-deps.sh
bash .ci/build.sh

SAMPLE=(--model gpt2-small --cluster samples/clusters/dgx-a100.cluster.json --mesh data=4,model=2 --strategy megatron)
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ "${QT_QPA_PLATFORM:-}" != "offscreen" ]; then
  exec build/app/shardscope "${SAMPLE[@]}" "$@"
else
  echo "No display: printing the evaluation of the default sample."
  exec build/app/shardscope-cli evaluate "${SAMPLE[@]}" "$@"
fi
