#!/usr/bin/env bash
# The newcomer's first minutes, as CI checks them: clone this repository into a temporary
# directory, run the README's first command with --demo until the demo reports success, check
# with kubectl that the NodeClaims, Nodes and AzureMachines exist and are Ready, stop it with
# Ctrl-C (SIGINT) and time the stop, start it again and check that everything is still there.
# Usage: scripts/fresh_clone_demo.sh   (NW_DEMO_TIMEOUT bounds the demo, default 900 s)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
demo_timeout=${NW_DEMO_TIMEOUT:-900}

# The clone lives under build/ so ccache, with the repository as its base directory, finds
# what the main build compiled (paths are compared relative to the build directory).
mkdir -p "$repo/build"
work=$(mktemp -d "$repo/build/fresh-clone.XXXXXX")
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$repo} CCACHE_NOHASHDIR=1
up_pid=
cleanup() {
  if [ -n "$up_pid" ] && kill -0 "$up_pid" 2>/dev/null; then
    kill -KILL -- "-$up_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  echo "--- up output ---" >&2
  tail -n 40 "$work/up.log" >&2 || true
  echo "--- controller log ---" >&2
  tail -n 40 "$work/clone/.nodewright/nodewright.log" >&2 || true
  exit 1
}

# Waits until FILE has a line starting with TEXT, while process PID lives, for SECONDS.
await_line() {
  local file=$1 text=$2 pid=$3 seconds=$4
  local deadline=$((SECONDS + seconds))
  until grep -q "^$text" "$file" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || fail "up exited before printing \"$text\""
    [ $SECONDS -lt $deadline ] || fail "no \"$text\" within $seconds s"
    sleep 1
  done
}

# Starts the README's first command in its own process group (so a stop reaches every child).
start_up() {
  : >"$work/up.log"
  (cd "$work/clone" && exec setsid scripts/up.sh --listen 127.0.0.1:0 "$@") >>"$work/up.log" 2>&1 &
  up_pid=$!
}

# Ctrl-C, and the time it takes to stop.
stop_up() {
  local started
  started=$(date +%s%N)
  kill -INT -- "-$up_pid"
  local rc=0
  wait "$up_pid" || rc=$?
  local took_ms=$((($(date +%s%N) - started) / 1000000))
  up_pid=
  echo "stopped (exit $rc) in ${took_ms} ms: $(tail -n 1 "$work/up.log")"
  [ "$rc" -eq 0 ] || fail "up exited $rc after SIGINT"
  [ "$took_ms" -lt 5000 ] || fail "stopping took ${took_ms} ms (limit 5 s)"
}

# "name ready" lines of the demo's objects: every NodeClaim and Node Ready, every AzureMachine
# ready, as kubectl sees them.
inventory() {
  kubectl get nodeclaims -o jsonpath='{range .items[*]}nodeclaim/{.metadata.name} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}'
  kubectl get nodes -o jsonpath='{range .items[*]}node/{.metadata.name} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}'
  kubectl get azuremachines -o jsonpath='{range .items[*]}azuremachine/{.metadata.name} {.status.ready}{"\n"}{end}'
}

check_inventory() {
  local file=$1
  inventory | sort >"$file"
  local claims nodes machines
  claims=$(grep -c '^nodeclaim/.* True$' "$file" || true)
  nodes=$(grep -c '^node/.* True$' "$file" || true)
  machines=$(grep -c '^azuremachine/.* true$' "$file" || true)
  echo "ready: $claims NodeClaims, $nodes Nodes, $machines AzureMachines (of $(wc -l <"$file") objects)"
  [ "$claims" -ge 1 ] || fail "no NodeClaim is Ready"
  [ "$nodes" -ge 1 ] || fail "no Node is Ready"
  [ "$machines" -eq 20 ] || fail "$machines AzureMachines ready, want 20"
  if grep -v -E ' (True|true)$' "$file"; then
    fail "objects above are not Ready"
  fi
}

echo "==> cloning into $work/clone"
git clone -q "$repo" "$work/clone"
export KUBECONFIG=$work/clone/.nodewright/kubeconfig

echo "==> scripts/up.sh --demo (bounded by ${demo_timeout} s)"
started=$SECONDS
start_up --demo
await_line "$work/up.log" "nodewright is ready" "$up_pid" "$demo_timeout"
echo "ready after $((SECONDS - started)) s (build included): $(grep '^nodewright is ready' "$work/up.log")"
await_line "$work/up.log" "demo complete" "$up_pid" "$demo_timeout"
sed -n '/^demo: /p; /^  nodes /p; /^  cost per hour /p; /^  drift /p; /^  consolidation /p; /^  azure /p; /^demo complete/p' "$work/up.log"
# The demo ends on a bill no higher than fresh provisioning of its pods would give.
bill=$(sed -n 's/^  consolidation .*-> \$\([0-9.]*\)\/h; fresh provisioning of the same pods: \$\([0-9.]*\)\/h$/\1 \2/p' "$work/up.log")
[ -n "$bill" ] || fail "the demo summary gives no consolidation bill beside fresh provisioning"
awk -v b="$bill" 'BEGIN { split(b, x, " "); exit !(x[1] <= x[2] + 1e-9) }' ||
  fail "the demo ends at \$${bill% *}/h, above fresh provisioning's \$${bill#* }/h"
check_inventory "$work/before.txt"
echo "peak memory of the up process during the demo: $(awk '/VmHWM/ {print $2, $3}' "/proc/$up_pid/status")"
stop_up

echo "==> scripts/up.sh again: the state must still be there"
start_up
await_line "$work/up.log" "nodewright is ready" "$up_pid" 600
check_inventory "$work/after.txt"
if ! diff -u "$work/before.txt" "$work/after.txt"; then
  fail "the objects changed across the restart"
fi
# The controllers have now reconciled what they found; nothing may be torn down or relaunched
# because the process restarted. Look again after they have had a full disruption poll.
sleep 20
check_inventory "$work/settled.txt"
diff -u "$work/before.txt" "$work/settled.txt" || fail "the objects changed after the restart"
stop_up
echo "fresh-clone demo: OK"
