#pragma once
// What a GEMM pays beside its overlapped tensor-parallel collective (Transformer Engine's
// userbuffers, models/tp_overlap.hpp): the SMs the communication kernels take from it, as
// waves of its output tiles, and the HBM bandwidth a copy-engine exchange shares with it.
// The exchange's own time stays on the link (the engine plays it beside the GEMM).

#include "models/op.hpp"
#include "models/tp_overlap.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {

/// Output tiles of one GEMM of shape `g` (its `batch` products counted).
double gemm_tiles(const GemmShape& g);

/// Waves `tiles` take on `sms` SMs, one tile per SM at a time: ceil(tiles / sms).
double gemm_waves(double tiles, int sms);

/// How much longer a GEMM of shape `g` runs on `sms - taken` SMs than on all `sms`: the ratio
/// of their waves (1 when nothing is taken or the SM count is unknown).
double sm_share_slowdown(const GemmShape& g, int sms, int taken);

/// The seconds GEMM `op`, `gemm_s` alone (as the kernel table times it, in its chunks),
/// takes beside its collective under `setting`: each chunk on the SMs left to it, and no
/// faster than the HBM moves its bytes and the exchange's. `exchange_bytes`: the
/// collective's gathered (or reduced) tensor; `tp`: its group.
double overlapped_gemm_s(const Op& op, double gemm_s, const TpOverlapSetting& setting, const GpuSpec& gpu,
                         double exchange_bytes, int tp);

}  // namespace trainsim
