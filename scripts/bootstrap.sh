#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages, idempotent), builds trainsim, then:
#   scripts/bootstrap.sh run    simulates the default scenario (trainsim run)
#   scripts/bootstrap.sh test   runs every test (what CI runs, through .ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-run}"
case "$mode" in run|test) ;; *) echo "usage: scripts/bootstrap.sh run|test" >&2; exit 2 ;; esac

packages=(
  cmake g++ make pkg-config
  libsimgrid-dev libboost-graph-dev libboost-program-options-dev
  libhdf5-dev libeigen3-dev libgtest-dev nlohmann-json3-dev
  python3-h5py python3-pandas python3-matplotlib python3-nbclient python3-nbformat python3-ipykernel
  munge slurmctld slurmd slurm-client
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "bootstrap: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs="$(nproc)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"

if [ "$mode" = run ]; then
  build/trainsim run scenarios/default.ini
else
  ctest --test-dir build --output-on-failure -j"$jobs"
fi
