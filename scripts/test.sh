#!/usr/bin/env bash
# Builds and runs every test on a fresh machine:
#   1. the release build (g++, warnings as errors) and its tests,
#   2. the newcomer's path: a fresh clone runs the README's first command with --demo, is
#      checked with kubectl, stopped with Ctrl-C and started again (scripts/fresh_clone_demo.sh),
#   3. the benchmarks, built and run once briefly so they cannot rot,
#   4. the AddressSanitizer + UndefinedBehaviorSanitizer build (clang; it compiles in the background
#      during steps 1-3, whose tests mostly wait) and its tests,
#   5. the libFuzzer targets for a bounded time (NW_FUZZ_SECONDS, default 60 each).
# Usage: scripts/test.sh [--quick]   (--quick: only step 1)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# The Node.js client tests' npm packages (@kubernetes/client-node; the Azure SDK), pinned by
# their package-lock.json files.
command -v npm >/dev/null || { echo "node and npm are required" >&2; exit 1; }
npm ci --prefix tests/apiserver/node --no-audit --no-fund --silent
npm ci --prefix tests/emulators/arm/node --no-audit --no-fund --silent

# Paths relative to the repository, so the fresh clone's build (step 5) hits this build's cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=1

quick=false
[ "${1:-}" = "--quick" ] && quick=true
jobs=$(nproc)
fuzz_seconds=${NW_FUZZ_SECONDS:-60}

# Each step says how long the run has taken so far, so a slow CI run shows where the time went.
step() { printf '\n==> %s (at %d s)\n' "$*" "$SECONDS"; }
# Most tests wait on servers and emulated time rather than the CPU (the release suite used
# about half of two cores' time at -j2), so both test steps run two per core. The sanitizer
# build's ctest runs a GoogleTest suite per process (cmake/gtest_suites.cmake).

step "style: braces always (clang-format 14 has no InsertBraces)"
scripts/braces.py src tests bench fuzz

step "release build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNW_TESTS=ON -DNW_BENCH=ON >/dev/null
cmake --build build -j"$jobs"
$quick && {
  step "tests"
  ctest --test-dir build --output-on-failure -j"$((jobs * 2))" --timeout 600
  exit 0
}

# The release tests, the demo and the benchmarks mostly wait on servers and emulated time (the
# release suite used under one core of two), so the sanitizer build runs beside them at a lower
# priority and takes the idle CPU. Its output is kept and shown when it ends.
step "sanitizer build (ASan + UBSan, clang), in the background"
asan_log=$(mktemp)
# Its own session, so that a failing step below stops the whole build (compilers included).
NW_JOBS=$jobs setsid bash -c '
  CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DNW_SANITIZE=ON -DNW_FUZZ=ON -DNW_BENCH=OFF >/dev/null &&
    nice -n 10 cmake --build build-asan -j"$NW_JOBS"' >"$asan_log" 2>&1 &
asan_pid=$!
trap 'kill -- -"$asan_pid" 2>/dev/null || true' EXIT

step "tests"
ctest --test-dir build --output-on-failure -j"$((jobs * 2))" --timeout 600

step "fresh clone: scripts/up.sh --demo, kubectl checks, restart"
scripts/fresh_clone_demo.sh

step "benchmarks (smoke run)"
for b in build/bench/*_bench build/bench/nodewright-bench-*; do
  [ -x "$b" ] && "$b" --smoke
done

step "sanitizer build: waiting for it to finish"
asan_rc=0
wait "$asan_pid" || asan_rc=$?
trap - EXIT
if [ "$asan_rc" -ne 0 ]; then
  grep -E -A 30 "^FAILED:|CMake Error" "$asan_log" | head -n 200
  tail -n 20 "$asan_log"
  exit 1
fi
tail -n 1 "$asan_log"
rm -f "$asan_log"

step "fuzzing (${fuzz_seconds}s per target, all at once)"
# One fuzzer per process, all running together: -max_total_time is wall time, so the step takes
# one target's time rather than the sum (each gets a share of the two cores).
fuzz_one() {
  local f=$1 name corpus log rc=0 max_len=()
  name=$(basename "$f")
  corpus=$(mktemp -d)
  cp fuzz/corpus/"${name%_fuzzer}"/* "$corpus"/ 2>/dev/null || true
  log=$2
  # The request decoders take bodies up to the server's 3 MiB limit.
  case "$name" in decode_fuzzer | request_fuzzer) max_len=(-max_len=3145728) ;; esac
  "$f" -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    "${max_len[@]}" -artifact_prefix="$(mktemp -d)/" "$corpus" >"$log" 2>&1 || rc=$?
  rm -rf "$corpus"
  return "$rc"
}
fuzz_pids=() fuzz_logs=()
for f in build-asan/fuzz/*_fuzzer; do
  log=$(mktemp)
  fuzz_one "$f" "$log" &
  fuzz_pids+=("$!") fuzz_logs+=("$log")
done
fuzz_failed=0
for i in "${!fuzz_pids[@]}"; do
  rc=0
  wait "${fuzz_pids[$i]}" || rc=$?
  tail -n 8 "${fuzz_logs[$i]}"
  if [ "$rc" -ne 0 ]; then
    grep -E "ERROR|SUMMARY|#[0-9]+ " "${fuzz_logs[$i]}" | head -n 40
    fuzz_failed=1
  fi
  rm -f "${fuzz_logs[$i]}"
done
[ "$fuzz_failed" -eq 0 ] || exit 1

step "tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$((jobs * 2))" --timeout 900
step "done"
