#pragma once
// How one training job is split across GPUs: the parallel axes and the pipeline schedule.

#include <array>

namespace trainsim {

enum class Schedule { gpipe, one_f_one_b, interleaved, zb_h1 };
enum class ParallelAxis { tp, cp, pp, dp };

struct ParallelSpec {
  int tp = 1;  ///< tensor parallel
  int pp = 1;  ///< pipeline parallel (stages)
  int dp = 1;  ///< data parallel (replicas); expert parallelism is carved out of it
  int cp = 1;  ///< context parallel (sequence split across ranks)
  int ep = 1;  ///< expert parallel (MoE experts split over ep ranks of the DP group)
  bool sequence_parallel = false;
  int zero = 0;  ///< ZeRO stage 0-3; 3 is FSDP-style full sharding
  Schedule schedule = Schedule::one_f_one_b;
  int virtual_stages = 1;  ///< model chunks per pipeline rank (interleaved schedule)
  /// Gradients are reduced bucket by bucket during the last backward (Megatron-Core's
  /// overlap_grad_reduce); false: after the whole backward (Megatron-LM 2021, --DDP-impl local).
  bool overlap_grad_reduce = true;
  /// ZeRO-3 / FSDP: layers gathered as one unit, and units gathered ahead of their use.
  int zero3_unit_layers = 1;
  int zero3_prefetch = 1;
  /// Rank-mapping order, innermost (fastest-varying) axis first.
  std::array<ParallelAxis, 4> order{ParallelAxis::tp, ParallelAxis::cp, ParallelAxis::pp, ParallelAxis::dp};

  int world_size() const { return tp * pp * dp * cp; }
  /// Ranks over which dense gradients are reduced and ZeRO shards states
  /// (Megatron-LM's data-parallel group with context parallelism folded in).
  int gradient_group() const { return dp * cp; }
};

}  // namespace trainsim
