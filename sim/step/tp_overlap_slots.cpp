#include "sim/step/tp_overlap_slots.hpp"

#include <initializer_list>

#include "models/training_spec.hpp"
#include "sim/step/stage_costs.hpp"
#include "sim/step/tp_overlap_cost.hpp"

namespace trainsim {

namespace {

bool ring_reduce_scatter(TpOverlapGemm g, const TpOverlapSetting& setting) {
  return setting.method == TpOverlapMethod::ring_exchange &&
         (g == TpOverlapGemm::proj_fprop || g == TpOverlapGemm::fc2_fprop);
}

// The slot of the op named `name` (the first of `names` present), overlapped as Transformer
// Engine's GEMM `g` with a collective of `exchange_bytes`.
OverlapSlot overlap_slot(const std::vector<Op>& ops, std::initializer_list<const char*> names, TpOverlapGemm g,
                         const Scenario& s, const ComputeModel& compute, double load, double exchange_bytes) {
  for (const char* name : names)
    for (const Op& op : ops)
      if (op.name == name) {
        OverlapSlot slot;
        slot.gemm_s = op_load(op, load) * compute.time_s(op);
        const TpOverlapSetting setting =
            tp_overlap_setting(s.parallel.tp_overlap, g, s.training.precision, s.cluster.gpu.name);
        slot.beside_s = overlapped_gemm_s(op, slot.gemm_s, setting, s.cluster.gpu, exchange_bytes, s.parallel.tp) *
                        (1.0 + s.cluster.gpu.tp_overlap_slowdown);
        // The reduction after a ring exchange runs on the compute stream: priced with the
        // GEMM beside the collective, an approximation where the exchange outlasts the GEMM.
        if (ring_reduce_scatter(g, setting)) slot.beside_s += ring_reduce_s(exchange_bytes, s.parallel.tp, compute);
        return slot;
      }
  return {};
}

}  // namespace

double tp_gather_bytes(const Scenario& s, double activation_bytes) {
  return activation_bytes *
         (is_quantized(s.training.precision) ? quantized_element_bytes(s.training.precision) / 2 : 1.0);
}

double ring_reduce_s(double activation_bytes, int tp, const ComputeModel& compute) {
  if (tp <= 1 || activation_bytes <= 0) return 0.0;
  Op reduce;
  reduce.name = "tp_overlap.reduce";
  reduce.kind = OpKind::elementwise;
  reduce.bytes = activation_bytes * (1.0 + 1.0 / tp);
  return compute.time_s(reduce);
}

LayerOverlap layer_overlap(const std::vector<Op>& ops, const Scenario& s, const ComputeModel& c, double load,
                           double act, bool forward) {
  const double gathered = tp_gather_bytes(s, act);
  using G = TpOverlapGemm;
  if (forward)
    return {overlap_slot(ops, {"qkv"}, G::qkv_fprop, s, c, load, gathered),
            overlap_slot(ops, {"attention.proj"}, G::proj_fprop, s, c, load, act),
            overlap_slot(ops, {"mlp.up", "experts.up"}, G::fc1_fprop, s, c, load, gathered),
            overlap_slot(ops, {"mlp.down", "experts.down"}, G::fc2_fprop, s, c, load, act)};
  return {overlap_slot(ops, {"attention.proj.dgrad"}, G::proj_dgrad, s, c, load, gathered),
          overlap_slot(ops, {"qkv.dgrad"}, G::qkv_wgrad, s, c, load, act),
          overlap_slot(ops, {"mlp.down.dgrad", "experts.down.dgrad"}, G::fc2_dgrad, s, c, load, gathered),
          overlap_slot(ops, {"mlp.up.dgrad", "experts.up.dgrad"}, G::fc1_wgrad, s, c, load, act)};
}

}  // namespace trainsim
