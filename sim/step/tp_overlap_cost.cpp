#include "sim/step/tp_overlap_cost.hpp"

#include <algorithm>
#include <cmath>

namespace trainsim {

namespace {
// The output tile a Hopper or Blackwell GEMM runs per SM: 128 x 256, the largest tile of
// CUTLASS's SM90 warp-specialized cooperative kernels (TileShape 128x256x64, cluster 2x1;
// the tile NVIDIA's cuBLAS heuristics pick for large BF16/FP8 GEMMs). A stated assumption:
// cuBLAS chooses per shape, and a smaller tile only makes the waves finer.
constexpr double k_tile_rows = 128;
constexpr double k_tile_cols = 256;
}  // namespace

double gemm_tiles(const GemmShape& g) {
  return std::ceil(g.m / k_tile_rows) * std::ceil(g.n / k_tile_cols) * std::max(1.0, g.batch);
}

double gemm_waves(double tiles, int sms) { return sms > 0 ? std::ceil(tiles / sms) : 0.0; }

double sm_share_slowdown(const GemmShape& g, int sms, int taken) {
  if (sms <= 0 || taken <= 0 || taken >= sms) return 1.0;
  const double tiles = gemm_tiles(g);
  const double all = gemm_waves(tiles, sms);
  return all > 0 ? gemm_waves(tiles, sms - taken) / all : 1.0;
}

double overlapped_gemm_s(const Op& op, double gemm_s, const TpOverlapSetting& setting, const GpuSpec& gpu,
                         double exchange_bytes, int tp) {
  if (gemm_s <= 0) return 0.0;
  // Transformer Engine launches each chunk on sm_count - num_comm_sm SMs under a margin
  // (CommOverlapCore, _math_sms). A bulk overlap launches it on all SMs, but its collective's
  // kernel starts first and holds num_sm of them (the launch order is enforced on Hopper,
  // _comm_launch_event): the GEMM is priced as if it ran beside them throughout, an upper
  // bound when the collective ends first.
  const GemmShape chunk = gemm_chunk(op).gemm;
  const double sms_s = gemm_s * sm_share_slowdown(chunk, gpu.sms, setting.sms);
  // The exchange's HBM traffic on this GPU: it reads the tp - 1 parts it sends and the peers
  // write the tp - 1 it receives. A copy-engine ring exchange takes no SM but shares the HBM;
  // a compute-bound GEMM hides it, a memory-bound one waits for the bytes of both at the
  // datasheet bandwidth (GpuSpec::hbm_bandwidth_Bps, topologies/gpu_presets.cpp).
  const double moved = 2.0 * exchange_bytes * (tp - 1) / tp;
  const double hbm_s = gpu.hbm_bandwidth_Bps > 0 ? (op.bytes + moved) / gpu.hbm_bandwidth_Bps : 0.0;
  return std::max(sms_s, hbm_s);
}

}  // namespace trainsim
