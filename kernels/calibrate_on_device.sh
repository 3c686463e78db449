#!/usr/bin/env bash
# Issue 8's one run on a GPU machine (kernels/README.md, "Running it on an H200"): builds
# kernels/ on its own (CUDA Toolkit + CMake, nothing else), then writes into OUT_DIR
# (default $OUT, the device tool's folder):
#   gpu.txt                       nvidia-smi's GPU, driver, clocks and power limit
#   <gpu>-layer-llama3-70b.csv    one Llama 3 70B layer, forward and backward (seconds)
#   <gpu>.csv                     the full calibration grid (~1.5 min on an H200)
#   log.txt                       build and run output
# The layer goes first: it takes seconds, so a run cut short still brings it back.
# Usage: bash kernels/calibrate_on_device.sh [OUT_DIR] [GPU_NAME]   (GPU_NAME default h200)
set -euo pipefail
out="${1:-${OUT:?set OUT or pass OUT_DIR}}"
gpu="${2:-h200}"
mkdir -p "$out"
log="$out/log.txt"
cd "$(dirname "$0")/.."
stamp() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$log"; }

stamp "GPU"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,memory.total \
  --format=csv | tee "$out/gpu.txt" | tee -a "$log"
nvcc --version | tail -1 | tee -a "$log"

stamp "build"
arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
cmake -S kernels -B build-kernels -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${arch:-90}" >>"$log" 2>&1
cmake --build build-kernels -j"$(nproc)" >>"$log" 2>&1

stamp "layer (Llama 3 70B, seq 4096, micro-batch 1)"
build-kernels/trainsim-calibrate --layer h=8192,heads=64,kv_heads=8,ffn=28672,seq=4096,mb=1 \
  --out "$out/$gpu-layer-llama3-70b.csv" 2>>"$log"

stamp "full grid"
build-kernels/trainsim-calibrate --out "$out/$gpu.csv" 2>>"$log"
stamp "done"
