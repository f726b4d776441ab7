#!/usr/bin/env bash
# Builds nodewright and runs the main job: `nodewright up` (extra arguments are passed on).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target nodewright
exec build/nodewright up --wait --data-dir "${NW_DATA_DIR:-.nodewright}" "$@"
