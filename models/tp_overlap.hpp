#pragma once
// How Transformer Engine's userbuffers overlap each sequence-parallel collective with its
// GEMM (Megatron-LM --tp-comm-overlap): the method per GEMM, the SMs its communication
// kernels take, its chunks. A value type the scenario sets (parallel.tp_overlap_*) and the
// step prices (sim/step/tp_overlap_cost.hpp).
//
// Sources: Transformer Engine transformer_engine/common/comm_gemm_overlap/comm_gemm_overlap.cpp
// @ 4757bfa7 (CommOverlapCore: the GEMM is launched on `sm_count - num_comm_sm` SMs when
// set_sm_margin, else on all of them; CommOverlapBase, bulk and pipelined, moves data with
// userbuffers kernels on num_comm_sm SMs; CommOverlapP2PBase, ring exchange, with copy-engine
// peer copies when use_ce, its GEMM split into tp chunks), and the per-GEMM configs of
// Megatron-Bridge src/megatron/bridge/training/comm_overlap.py @ aae82005.

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "models/training_spec.hpp"

namespace trainsim {

/// ring_exchange: the GEMM in tp chunks, each beside a copy-engine send of the next chunk
/// (no SMs taken unless the recipe sets a margin); pipeline: the GEMM in `splits` chunks,
/// each chunk's reduce-scatter on SM kernels beside the next chunk; bulk: the whole GEMM
/// beside one SM-kernel collective.
enum class TpOverlapMethod { ring_exchange, pipeline, bulk };

/// The overlapped GEMMs of a transformer layer, by Transformer Engine's names. The backward
/// reduce-scatters are Transformer Engine's *_wgrad bulk overlaps (the input gradient's
/// reduce-scatter beside the weight-gradient GEMM); trainsim runs them beside the input
/// gradient GEMM of the same size.
enum class TpOverlapGemm { qkv_fprop, proj_fprop, fc1_fprop, fc2_fprop, proj_dgrad, fc2_dgrad, qkv_wgrad, fc1_wgrad };
inline constexpr int k_tp_overlap_gemms = 8;

struct TpOverlapSetting {
  TpOverlapMethod method = TpOverlapMethod::ring_exchange;
  /// SMs the GEMM is launched without: the communication kernels' num_sm when they take SMs
  /// from the GEMM (bulk and pipeline; ring exchange with set_sm_margin), else 0.
  int sms = 0;
  /// Chunks the GEMM runs as: pipeline's num_splits (0: 4, Transformer Engine's default);
  /// ring exchange always tp; bulk 1.
  int splits = 0;
  bool operator==(const TpOverlapSetting&) const = default;
};

/// What the scenario sets: per GEMM, a setting or nothing (the GPU family's default); and
/// `sms` (parallel.tp_comm_overlap_sms), the SMs of every SM-kernel collective when set.
struct TpOverlapSettings {
  std::array<std::optional<TpOverlapSetting>, k_tp_overlap_gemms> gemm;
  int sms = 0;
  bool operator==(const TpOverlapSettings&) const = default;
};

/// Transformer Engine's name of `g` ("qkv_fprop", ...).
const char* tp_overlap_gemm_name(TpOverlapGemm g);

/// The setting `g` runs with: the scenario's, else the default of `gpu`'s family in
/// `precision` (Megatron-Bridge's configs; tp_overlap.cpp). An empty `gpu` gives the
/// method and chunks, which do not depend on the family, with the Hopper SM counts.
TpOverlapSetting tp_overlap_setting(const TpOverlapSettings& settings, TpOverlapGemm g, Precision precision,
                                    std::string_view gpu);

/// Chunks the GEMM runs as under `s` at tensor-parallel size `tp`.
int tp_overlap_splits(const TpOverlapSetting& s, int tp);

/// Chunks of every overlapped GEMM, by TpOverlapGemm: Transformer Engine's userbuffers
/// (Megatron-LM --tp-comm-overlap) run each GEMM beside its sequence-parallel collective in
/// chunks of T / splits rows (Wang et al. 2022): tp for a ring exchange, num_splits for a
/// pipelined reduce-scatter, one for a bulk overlap; all 1 without `overlap`.
std::array<int, k_tp_overlap_gemms> tp_overlap_chunks(const TpOverlapSettings& settings, Precision precision, int tp,
                                                      bool overlap);

/// "ring_exchange", "ring_exchange:1" (one SM of margin), "pipeline:24:4", "bulk:8".
std::string tp_overlap_setting_text(const TpOverlapSetting& s);
/// The setting `text` spells, or the violated rule.
std::optional<TpOverlapSetting> parse_tp_overlap_setting(std::string_view text, TpOverlapGemm g, std::string* rule);

}  // namespace trainsim
