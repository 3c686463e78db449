#!/bin/sh
# Prints the collective table (`trainsim collective --json`: every row's simulated time to the
# last bit) for a set of operations, algorithms, sizes, GPU counts and clusters, one block per
# case; run it with two builds and compare, to show that a change of the engine's speed leaves
# every simulated time as it was:
#
#   bench/collective_equivalence.sh OLD/trainsim > /tmp/old.txt
#   bench/collective_equivalence.sh build/trainsim > /tmp/new.txt
#   cmp /tmp/old.txt /tmp/new.txt && echo identical
#
# Each case: CLUSTER FABRIC GPUS OP ALGO MINBYTES MAXBYTES FACTOR. With --large, also the
# 16,384- and 131,072-GPU all-reduces of bench/CMakeLists.txt's collective targets.
set -eu
trainsim=${1:?usage: collective_equivalence.sh TRAINSIM [--large]}
large=${2:-}

run_case() {
  echo "== $*"
  "$trainsim" collective --cluster "$1" --fabric "$2" --gpus "$3" --op "$4" --algo "$5" -b "$6" -e "$7" -f "$8" --json
}

while read -r cluster fabric gpus op algo lo hi factor; do
  case "$cluster" in '#'* | '') continue ;; esac
  run_case "$cluster" "$fabric" "$gpus" "$op" "$algo" "$lo" "$hi" "$factor"
done <<'EOF'
dgx-h100 rail-optimized 8 allreduce auto 8 1G 16
dgx-h100 rail-optimized 16 allreduce auto 8 1G 16
dgx-h100 rail-optimized 64 allreduce auto 8 1G 16
dgx-h100 rail-optimized 512 allreduce auto 1K 1G 32
dgx-h100 rail-optimized 4096 allreduce auto 64K 1G 16
dgx-h100 rail-optimized 4096 allreduce nvls-tree 1M 1G 32
dgx-h100 rail-optimized 4096 allreduce tree 1M 1G 32
dgx-h100 rail-optimized 4096 allreduce ring 1M 1G 32
dgx-h100 fat-tree 1024 allreduce auto 1K 1G 32
dgx-h100 fat-tree 1000 allreduce auto 1M 1G 32
dgx-h100 rail-optimized 1024 allreduce nvls-tree 1M 1G 32
dgx-h100 rail-optimized 1024 allreduce hierarchical 1M 1G 32
dgx-h100 rail-optimized 96 allreduce nvls-tree 1M 1G 32
dgx-h100 rail-optimized 512 allgather auto 1K 1G 32
dgx-h100 rail-optimized 512 reducescatter auto 1K 1G 32
dgx-h100 rail-optimized 512 broadcast auto 1K 1G 32
dgx-h100 rail-optimized 64 alltoall auto 1K 1G 32
dgx-h100 rail-optimized 16 sendrecv auto 1K 1G 32
dgx-a100 fat-tree 512 allreduce auto 1K 1G 32
dgx-a100 rail-optimized 256 allgather ring 1M 1G 32
hgx-h200 rail-optimized 256 allreduce auto 1K 1G 32
dgx-b200 rail-optimized 256 allreduce auto 1K 1G 32
gb200-nvl72 rail-optimized 72 allreduce auto 1K 1G 32
gb200-nvl72 rail-optimized 288 allreduce auto 1K 1G 32
gb200-nvl72 rail-optimized 576 allgather auto 1K 1G 32
gb300-nvl72 rail-optimized 1152 allreduce auto 1K 1G 32
gb200-nvl72 rail-optimized 288 reducescatter auto 1K 1G 32
# One size a run (trainsim collective then runs the plan it planned with, not a second one).
dgx-h100 rail-optimized 4096 allreduce auto 1G 1G 2
dgx-h100 rail-optimized 1024 allreduce nvls-tree 1M 1M 2
dgx-h100 rail-optimized 1024 allreduce ring 64M 64M 2
dgx-h100 fat-tree 1000 allreduce auto 1M 1M 2
gb200-nvl72 rail-optimized 288 allreduce auto 1G 1G 2
dgx-h100 rail-optimized 64 alltoall auto 1M 1M 2
EOF

if [ "$large" = "--large" ]; then
  run_case dgx-h100 rail-optimized 16384 allreduce auto 1G 1G 2
  run_case dgx-h100 rail-optimized 131072 allreduce auto 1G 1G 2
  run_case dgx-h100 rail-optimized 131072 allreduce tree 1G 1G 2
fi
