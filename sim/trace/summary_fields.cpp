#include "sim/trace/summary_fields.hpp"

namespace trainsim::hdf5 {

std::vector<std::pair<std::string, double*>> summary_fields(StepResult& r) {
  StepBreakdown& b = r.breakdown_s;
  return {{"step_time_s", &r.step_time_s},
          {"global_batch_samples", &r.global_batch_samples},
          {"tokens_per_step", &r.tokens_per_step},
          {"tokens_per_s", &r.tokens_per_s},
          {"tokens_per_s_per_gpu", &r.tokens_per_s_per_gpu},
          {"model_tflops_per_gpu", &r.model_tflops_per_gpu},
          {"hardware_tflops_per_gpu", &r.hardware_tflops_per_gpu},
          {"mfu", &r.mfu},
          {"hfu", &r.hfu},
          {"bubble_fraction", &r.bubble_fraction},
          {"collective_fraction", &r.collective_fraction},
          {"exposed_comm_fraction", &r.exposed_comm_fraction},
          {"breakdown_data_s", &b.data},
          {"breakdown_forward_s", &b.forward},
          {"breakdown_backward_s", &b.backward},
          {"breakdown_recompute_s", &b.recompute},
          {"breakdown_optimizer_s", &b.optimizer},
          {"breakdown_tp_comm_s", &b.tp_comm},
          {"breakdown_pp_comm_s", &b.pp_comm},
          {"breakdown_dp_comm_s", &b.dp_comm},
          {"breakdown_zero_comm_s", &b.zero_comm},
          {"breakdown_ep_comm_s", &b.ep_comm},
          {"breakdown_cp_comm_s", &b.cp_comm},
          {"breakdown_idle_s", &b.idle},
          {"comm_bytes_per_gpu_tp", &r.comm_bytes_per_gpu.tp},
          {"comm_bytes_per_gpu_pp", &r.comm_bytes_per_gpu.pp},
          {"comm_bytes_per_gpu_dp", &r.comm_bytes_per_gpu.dp},
          {"comm_bytes_per_gpu_zero", &r.comm_bytes_per_gpu.zero},
          {"comm_bytes_per_gpu_ep", &r.comm_bytes_per_gpu.ep},
          {"comm_bytes_per_gpu_cp", &r.comm_bytes_per_gpu.cp},
          {"peak_memory_bytes", &r.peak_memory_bytes},
          {"energy_per_step_j", &r.energy_per_step_j},
          {"energy_per_token_j", &r.energy_per_token_j},
          {"avg_power_w", &r.avg_power_w},
          {"sim_wall_s", &r.sim_wall_s}};
}

}  // namespace trainsim::hdf5
