#pragma once
// The most GPUs a command that builds every GPU of its cluster simulates: `collective` and
// `replay` run one actor per GPU on a platform of the whole cluster (no symmetry reduction, as
// `run` has), so their memory and time grow with the GPUs.
//
// Measured (issue 54; this build, a 2-core machine, `ulimit -v 4000000`, one 1 GiB all-reduce,
// dgx-h100): 65,536 GPUs 8.5 s and 0.45 GB resident; 131,072 GPUs 16 s and 0.86 GB; 262,144
// GPUs 36 s and 1.7 GB; 524,288 GPUs no longer fit a 4 GB address space (SimGrid's actor
// stacks beside the process' 1 GiB simulation stack). 2^17 keeps every accepted input inside
// 4 GB with room, and one size of a table inside a minute (tests/cli/resource_limits_test.cpp).
// Scenarios keep their own, larger bound (k_max_cluster_endpoints): `run` simulates one
// replica per class.

namespace trainsim::cli {

inline constexpr int k_max_full_platform_gpus = 1 << 17;

}  // namespace trainsim::cli
