#!/usr/bin/env bash
# Installs the Debian packages nodewright needs. Idempotent: does nothing when all are present.
set -euo pipefail
packages=(
  cmake ninja-build g++ clang libclang-rt-14-dev ccache pkg-config
  libyaml-cpp-dev libyaml-dev nlohmann-json3-dev libcli11-dev libexpected-dev libfmt-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev libssl-dev libsqlite3-dev libboost-dev
  libcurl4-openssl-dev libpugixml-dev python3-prometheus-client libtoml11-dev
  git tmux  # the fresh-clone check clones; the status view's live test runs in tmux
  python3-kubernetes  # the official Python client as a third real client of the API server
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
