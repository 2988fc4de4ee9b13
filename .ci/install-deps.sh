#!/usr/bin/env bash
# Installs the Debian packages Shardscope builds and tests with, if any is missing. Sourced by
# run.sh and test.sh; quick when everything is present.
set -euo pipefail

SHARDSCOPE_PACKAGES=(cmake g++ make pkg-config
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-svg-dev libgl-dev
  libgraphviz-dev libeigen3-dev nlohmann-json3-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  python3 valgrind
  xvfb xauth)

missing=()
for p in "${SHARDSCOPE_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "Installing missing packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
