#!/usr/bin/env bash
# Installs what is missing, builds fusebox in Release, and runs the main job:
# the performance workloads on fusebox-benchdnn (benchdnn_cases/perf), each
# against the memory-bandwidth roof measured in the same run and against a
# direct oneDNN primitive call, ending with a table.
#   scripts/run.sh           the whole perf batch (about 3 minutes)
#   scripts/run.sh --short   W1, W3 and W6 only
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install_deps.sh

cmake --preset release
cmake --build --preset release
./build/release/examples/getting_started
if [ "${1:-}" = "--short" ]; then
  ./build/release/tools/fusebox-benchdnn --mode=P --num-threads=2 --max-ms-per-prb=500 \
    --case=benchdnn_cases/workloads/w1_add_f32.json --impl=dnnl --case=benchdnn_cases/workloads/w1_add_f32.json \
    --impl=auto --case=benchdnn_cases/workloads/w3_add_chain3_f32.json \
    --case=benchdnn_cases/workloads/w6_add_small.json
else
  ./build/release/tools/fusebox-benchdnn --batch=benchdnn_cases/perf
fi
