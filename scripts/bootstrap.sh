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
  libhdf5-dev libeigen3-dev libgtest-dev nlohmann-json3-dev zlib1g-dev libprotobuf-dev protobuf-compiler
  python3-h5py python3-pandas python3-matplotlib python3-nbclient python3-nbformat python3-ipykernel
  munge slurmctld slurmd slurm-client
  qemu-user binutils
  libyaml-cpp-dev
  clang libclang-rt-14-dev
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
  # The fuzz targets of the scenario, sweep and Chakra trace readers (tests/fuzz/): clang with ASan and
  # UBSan in build-fuzz/ (only what they need: a few minutes), then 20 s of fuzzing each.
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j"$jobs"
  ctest --preset fuzz -j"$jobs"
fi
