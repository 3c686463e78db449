#include "sim/scenario/scenario_rules.hpp"

#include "sim/scenario/precision_recipe.hpp"
#include "sim/scenario/router_fields.hpp"
#include "sim/scenario/scenario_sections.hpp"
#include "sim/scenario/token_drop_fields.hpp"
#include "sim/scenario/tp_overlap_fields.hpp"

// Each rule lives beside its section's keys (scenario_sections.hpp); check_cluster_size is
// [cluster]'s, check_neighbour [variations]'. Here: the order they run in, which decides the
// message when a scenario breaks several.

namespace trainsim {

void check_scenario_rules(const Scenario& s) {
  schema::check_layout(s);
  schema::check_model(s);
  schema::check_tensor_parallel(s);
  check_tp_overlap(s);  // userbuffers SM counts (tp_overlap_fields.hpp)
  schema::check_pipeline(s);
  schema::check_context_and_experts(s);
  schema::check_rank_order(s);
  schema::check_hybrid_sharding(s);
  schema::check_megatron_fsdp(s);
  schema::check_cuda_graphs(s);
  check_token_drop(s);  // full_iteration and moe_preprocess on MoE layers (token_drop_fields.hpp)
  check_router(s);      // router balance and group-limited routing (router_fields.hpp)
  schema::check_moe_a2a_overlap(s);
  schema::check_recompute(s);
  schema::check_activation_offload(s);
  schema::check_hardware(s);
  check_precision_recipe(s);
  schema::check_nvlink_domain(s);
  schema::check_in_network_reduction(s);
  schema::check_nccl_ctas(s);
  schema::check_elastic(s);
  schema::check_run_target(s);
  schema::check_simulated_work(s);
  schema::check_run_length(s);
  schema::check_variations(s);
}

}  // namespace trainsim
