#include "sim/step/nccl_overlap.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <vector>

#include "sim/step/tp_overlap_cost.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim {

namespace {

// NCCL's HBM bytes per byte its link carries (NVIDIA/nccl#1428, sjeaugey: stored to memory and
// read back, 2x; with the user buffers read or written, 3x).
constexpr double k_hbm_bytes_per_link_byte = 3.0;

// The makespan, in tiles, of `grid` CTAs sharing `tiles` (tile i to CTA i mod grid: the first
// tiles mod grid CTAs run one more) started in order on `slots` SMs as they free.
double persistent_makespan(double tiles, int grid, int slots) {
  const double base = std::floor(tiles / grid);
  const double extra = tiles - base * grid;
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (int i = 0; i < slots; ++i) free_at.push(0.0);
  double end = 0;
  for (int cta = 0; cta < grid; ++cta) {
    const double start = free_at.top();
    free_at.pop();
    const double done = start + base + (cta < extra ? 1.0 : 0.0);
    end = std::max(end, done);
    free_at.push(done);
  }
  return end;
}

// Whether the data-parallel group of rank 0 spans NVLink domains.
bool dp_across_domains(const Scenario& s) {
  const RankMapping mapping(s.parallel, s.cluster);
  const std::vector<int> group = mapping.group_of(0, GroupAxis::dp);
  return std::ranges::any_of(group, [&](int r) { return mapping.domain_of(r) != mapping.domain_of(group.front()); });
}

}  // namespace

int nccl_overlap_ctas(const Scenario& s) {
  return s.cluster.nccl_min_ctas;
}

double nccl_overlap_slowdown(int sms, int ctas, double fallback) {
  if (sms <= 0 || ctas <= 0 || ctas >= sms) return fallback;
  return static_cast<double>(ctas) / (sms - ctas);
}

double nccl_overlap_slowdown(const Scenario& s) {
  return nccl_overlap_slowdown(s.cluster.gpu.sms, nccl_overlap_ctas(s), s.training.overlap_slowdown);
}

// Hopper: CUTLASS's SM90 persistent schedulers launch min(sm_count, tiles) CTAs
// (PersistentTileSchedulerSm90Params::get_grid_shape, NVIDIA/cutlass @ 0046e366,
// include/cutlass/gemm/kernel/tile_scheduler_params.h: hw_info.sm_count, truncated by the
// problem's tiles), each walking its fixed tiles; cuBLAS's Hopper kernels launch the same
// grid (the forum's 132-CTA GEMM on a 132-SM H100, thread 337991). Blackwell: CUTLASS's SM100
// scheduler launches one CTA per tile (PersistentTileSchedulerSm100::get_grid_shape, the tiled
// problem shape, @ 364b9031 include/cutlass/gemm/kernel/sm100_tile_scheduler.hpp) and a
// running CTA takes an unstarted CTA's tile by cluster launch control
// (clusterlaunchcontrol.try_cancel, IsDynamicPersistent): the tiles flow onto whatever SMs are
// free; cuBLAS's Blackwell kernels are taken to launch as CUTLASS's (a stated assumption: no
// source at hand shows their grid). Ampere and unnamed architectures: a stated assumption, one
// CTA per tile (the non-persistent kernels before Hopper).
GemmLaunch gemm_launch(const GpuSpec& gpu) {
  if (gpu.architecture == "hopper") return GemmLaunch::persistent_static;
  if (gpu.architecture == "blackwell") return GemmLaunch::persistent_dynamic;
  return GemmLaunch::per_tile;
}

double persistent_slowdown(double tiles, int grid, int slots) {
  if (tiles <= 0 || grid <= 0 || slots <= 0 || slots >= grid) return 1.0;
  return persistent_makespan(tiles, grid, slots) / persistent_makespan(tiles, grid, grid);
}

double nccl_gemm_slowdown(const GemmShape& g, const GpuSpec& gpu, int ctas) {
  if (gpu.sms <= 0 || ctas <= 0 || ctas >= gpu.sms) return 1.0;
  if (gemm_launch(gpu) != GemmLaunch::persistent_static) return sm_share_slowdown(g, gpu.sms, ctas);
  const double tiles = gemm_tiles(g);
  const int grid = static_cast<int>(std::min<double>(gpu.sms, tiles));
  return persistent_slowdown(tiles, grid, gpu.sms - ctas);
}

NcclBeside nccl_beside(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  const double nic_Bps = c.gpus_per_node > 0 ? c.nic_bandwidth_Bps * c.nics_per_node / c.gpus_per_node : 0.0;
  const double link_Bps = s.parallel.dp > 1 && dp_across_domains(s) ? nic_Bps : c.nvlink_bandwidth_Bps;
  return {c.gpu, nccl_overlap_ctas(s), k_hbm_bytes_per_link_byte * link_Bps};
}

double nccl_pass_slowdown(double extra_s, double compute_s, const Scenario& s) {
  const bool priced = nccl_overlap_slowdown(s.cluster.gpu.sms, nccl_overlap_ctas(s), -1.0) >= 0;
  if (!priced || compute_s <= 0) return nccl_overlap_slowdown(s);
  return std::max(0.0, extra_s) / compute_s;
}

double nccl_op_slowdown(const Op& op, double op_s, const NcclBeside& b) {
  const int sms = b.gpu.sms;
  if (op_s <= 0 || sms <= 0 || b.ctas <= 0 || b.ctas >= sms) return 1.0;
  const bool gemm = op.kind == OpKind::gemm || op.kind == OpKind::batched_gemm;
  const double sm =
      gemm ? nccl_gemm_slowdown(gemm_chunk(op).gemm, b.gpu, b.ctas) : 1.0 + nccl_overlap_slowdown(sms, b.ctas, 0.0);
  // The op's bytes at what the HBM has left beside NCCL's (none left: the SMs' slowdown alone).
  const double left_Bps = b.gpu.hbm_bandwidth_Bps - b.hbm_Bps;
  const double hbm = left_Bps > 0 ? op.bytes / left_Bps / op_s : 0.0;
  return std::max(sm, hbm);
}

}  // namespace trainsim
