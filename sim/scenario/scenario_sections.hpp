#pragma once
// The scenario schema section by section: each section's keys (its scenario_fields_<section>.cpp,
// in the order scenarios/README.md documents them) and the rules across keys it owns, beside
// them. scenario_fields() composes the lists in the order of section_field_lists()
// (scenario_fields.cpp); check_scenario_rules() runs the rules in one fixed order
// (scenario_rules.cpp), the first broken one naming its key.

#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_fields.hpp"

namespace trainsim::schema {

/// A section's name and its keys, in the order scenario_fields() lists them.
struct SectionFields {
  const char* name;
  std::vector<ScenarioField> (*fields)();
};

/// Every section with keys, in the order scenarios/README.md documents them.
const std::vector<SectionFields>& section_field_lists();

// [model] (scenario_fields_model.cpp), with the token-dropping keys (token_drop_fields.hpp).
std::vector<ScenarioField> model_fields();
void check_model(const Scenario& s);

// [training] (scenario_fields_training.cpp), with the low-precision recipe's keys
// (precision_recipe.hpp).
std::vector<ScenarioField> training_fields();
void check_cuda_graphs(const Scenario& s);
void check_recompute(const Scenario& s);
void check_activation_offload(const Scenario& s);
void check_hardware(const Scenario& s);

// [parallel] (scenario_fields_parallel.cpp).
std::vector<ScenarioField> parallel_fields();
void check_layout(const Scenario& s);
void check_tensor_parallel(const Scenario& s);
void check_pipeline(const Scenario& s);
void check_context_and_experts(const Scenario& s);
void check_rank_order(const Scenario& s);
void check_hybrid_sharding(const Scenario& s);
void check_megatron_fsdp(const Scenario& s);
void check_moe_a2a_overlap(const Scenario& s);

// [cluster] (scenario_fields_cluster.cpp); check_cluster_size: scenario_rules.hpp.
std::vector<ScenarioField> cluster_fields();
void check_nvlink_domain(const Scenario& s);
void check_in_network_reduction(const Scenario& s);
void check_nccl_ctas(const Scenario& s);

// [run] (scenario_fields_run.cpp).
std::vector<ScenarioField> run_fields();
void check_run_target(const Scenario& s);
void check_simulated_work(const Scenario& s);
void check_run_length(const Scenario& s);

// [failures] (scenario_fields_failures.cpp): their rules with a run's length are the run's.
std::vector<ScenarioField> failures_fields();

// [checkpoint] (scenario_fields_checkpoint.cpp).
std::vector<ScenarioField> checkpoint_fields();

// [elastic] (scenario_fields_elastic.cpp).
std::vector<ScenarioField> elastic_fields();
void check_elastic(const Scenario& s);

// [variations] (scenario_fields_variations.cpp); check_neighbour: scenario_rules.hpp.
std::vector<ScenarioField> variations_fields();
void check_variations(const Scenario& s);

}  // namespace trainsim::schema
