#include "sim/step/ep_overlap_cost.hpp"

#include <algorithm>

#include "sim/step/stage_costs.hpp"
#include "sim/step/tp_overlap_cost.hpp"

namespace trainsim {

int nccl_alltoall_ctas(bool across_domains) {
  return across_domains ? 16 : 32;
}

double beside_ep_s(const std::vector<Op>& ops, const ComputeModel& compute, double load, const GpuSpec& gpu, int taken,
                   double comm_hbm_bytes) {
  double alone = 0, sms_s = 0, bytes = comm_hbm_bytes;
  const bool shared = gpu.sms > 0 && taken > 0 && taken < gpu.sms;
  const double linear = shared ? static_cast<double>(gpu.sms) / (gpu.sms - taken) : 1.0;
  for (const Op& op : ops) {
    const double scale = op_load(op, load);
    const double s = scale * compute.time_s(op);
    alone += s;
    bytes += scale * op.bytes;
    const bool gemm = op.kind == OpKind::gemm || op.kind == OpKind::batched_gemm;
    sms_s += s * (gemm ? sm_share_slowdown(gemm_chunk(op).gemm, gpu.sms, taken) : linear);
  }
  if (!shared) return alone;
  const double hbm_s = gpu.hbm_bandwidth_Bps > 0 ? bytes / gpu.hbm_bandwidth_Bps : 0.0;
  return std::max(sms_s, hbm_s);
}

}  // namespace trainsim
