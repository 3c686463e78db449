#pragma once
// The framework calls and kernels of an MoE layer's router and token-dispatcher ops, counted
// from the code the NeMo 25.11 container runs: Megatron-Core at the commit Megatron-Bridge
// v0.2.1 (@ 1c43b392, the 25.11 release) pins as 3rdparty/Megatron-LM, NVIDIA/Megatron-LM @
// 0d8e0714 (core_dev_r0.15.0), with Transformer Engine v2.9's fused router and permutation,
// as every NeMo performance recipe sets them (moe_router_fusion, moe_permute_fusion). Each op
// of models/layer_workload.cpp gets, per pass, its kernels and how many of them the framework
// issues one Python-level call each (a torch op, a Triton launch, a device-to-host copy): the
// host pays HostLaunchCost::op_s for each such call (sim/step/host_bound_pass.hpp). The table
// and its sources are in moe_kernel_counts.cpp.

#include <optional>
#include <string_view>
#include <vector>

#include "models/op.hpp"

namespace trainsim {

/// Which of Megatron-Core's MoE code paths a layer takes.
struct MoePath {
  bool alltoall = true;        ///< MoEAlltoAllTokenDispatcher (else the flex dispatcher)
  bool dropless = true;        ///< counts from the routing map (not padded to capacity)
  bool forced_balance = true;  ///< moe_router_force_load_balancing: random logits (RandomSTE)
  bool capacity = false;       ///< moe_expert_capacity_factor set: apply_router_token_dropping
};

/// One op's Python-level calls and kernels.
struct KernelCount {
  int calls = 1;
  int kernels = 1;
};

/// The count of op `name` in `pass` on `path`; nullopt for an op this table does not count
/// (attention, the GEMMs and their casts, the flex dispatcher's own ops: their kernels stay
/// models/layer_workload.cpp's; the router's are counted on every dispatcher).
std::optional<KernelCount> moe_kernel_count(std::string_view name, OpPass pass, const MoePath& path);

/// Sets `calls` and `kernels` of every op of `ops` the table counts.
void apply_moe_kernel_counts(std::vector<Op>& ops, const MoePath& path);

}  // namespace trainsim
