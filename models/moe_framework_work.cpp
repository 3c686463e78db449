#include "models/moe_framework_work.hpp"

#include "models/expert_capacity.hpp"
#include "models/expert_quantization_padding.hpp"
#include "models/moe_collective_calls.hpp"
#include "models/moe_kernel_counts.hpp"

namespace trainsim {

void apply_moe_framework_work(PassOps& ops, const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p) {
  add_expert_quantization_padding(ops, m, tr, p);
  const MoePath path{p.moe_dispatcher == MoeDispatcher::alltoall, !pads_to_capacity(m),
                     !m.router_aux_loss && m.expert_imbalance == 0, m.capacity_factor > 0};
  for (std::vector<Op>* pass : {&ops.forward, &ops.backward, &ops.recompute}) {
    apply_moe_kernel_counts(*pass, path);
    const OpPass kind = pass == &ops.backward ? OpPass::backward : OpPass::forward;
    apply_moe_collective_calls(*pass, kind, path, p.ep, p.expert_tp_size());
  }
}

}  // namespace trainsim
