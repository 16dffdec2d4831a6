#!/usr/bin/env bash
# Installs what is missing, builds fusebox in Release, and runs the main job:
# the getting-started example.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install_deps.sh

cmake --preset release
cmake --build --preset release
./build/release/examples/getting_started
