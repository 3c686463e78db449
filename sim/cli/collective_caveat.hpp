#pragma once
// How far to trust `trainsim collective` across NVL72 racks: what the published nccl-tests
// runs cover (sim/engine/README.md, "Across NVL72 racks"), said beside the table as the
// accuracy caveats of `run` are (sim/scenario/accuracy_caveats.hpp).

#include <optional>
#include <string>

#include "topologies/cluster_spec.hpp"

namespace trainsim::cli {

/// The published all-reduce runs across full GB200 NVL72 racks (coreweave/nccl-tests @ bee97e7,
/// README "Expected Performance"): 2 racks, where trainsim's NVLS-tree gives 485 to 774 GB/s
/// busbw against 494 to 810, and 20 racks with NVLS off, 151 to 406 GB/s from 512 MiB to
/// 16 GiB, where trainsim's ring gives 553 at 16 GiB (sim/engine/README.md).
inline constexpr int k_racks_measured_close = 2;

/// One line when `gpus` GPUs of `cluster` span more NVLink domains of several nodes (NVL72
/// racks) than k_racks_measured_close and no fabric calibration of the user's own stands in
/// for the model; nothing otherwise (one node's domain, DGX/HGX, is what the tables measure).
std::optional<std::string> collective_caveat(const ClusterSpec& cluster, int gpus);

}  // namespace trainsim::cli
