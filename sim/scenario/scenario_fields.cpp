#include "sim/scenario/scenario_fields.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "models/model_presets.hpp"
#include "sim/core/units.hpp"
#include "sim/run/run_limits.hpp"
#include "sim/scenario/pipeline_layout_field.hpp"
#include "sim/scenario/field_kinds.hpp"
#include "sim/scenario/precision_recipe.hpp"
#include "sim/scenario/scenario_rules.hpp"
#include "sim/scenario/tp_overlap_fields.hpp"
#include "sim/scenario/token_drop_fields.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim {

namespace {

using Rule = std::optional<std::string>;
using field_kinds::bool_field;
using field_kinds::enum_field;
using field_kinds::int_field;
using field_kinds::number_field;
using field_kinds::number_text;

// int_field, number_field, bool_field, enum_field: field_kinds.hpp.

// A quantity with a unit: `parser` is one of units::parse_bytes/bandwidth/duration.
// Shown in `show_unit` (one of the parser's units, with its factor).
template <typename Access>
ScenarioField quantity_field(std::string name, std::string help, Access access,
                             std::optional<double> (*parser)(std::string_view), const char* units,
                             const char* show_unit, double show_factor, bool allow_zero) {
  ScenarioField f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.apply = [access, parser, units, allow_zero](Scenario& s, std::string_view text) -> Rule {
    const auto v = parser(text);
    if (!v || (!allow_zero && *v <= 0))
      return std::string(allow_zero ? "expected a value >= 0" : "expected a value > 0") + " with a unit (" + units +
             ")";
    access(s) = *v;
    return std::nullopt;
  };
  f.show = [access, show_unit, show_factor](const Scenario& s) {
    return number_text(access(s) / show_factor) + show_unit;
  };
  return f;
}

template <typename Access>
ScenarioField bytes_field(std::string name, std::string help, Access access) {
  ScenarioField f = quantity_field(std::move(name), std::move(help), access, units::parse_bytes, units::k_bytes_units,
                                   "GiB", 1024.0 * 1024.0 * 1024.0, true);
  f.show = [access](const Scenario& s) {
    constexpr double k_mib = 1024.0 * 1024.0;
    const double bytes = access(s);
    return bytes >= 1024.0 * k_mib ? number_text(bytes / (1024.0 * k_mib)) + "GiB" : number_text(bytes / k_mib) + "MiB";
  };
  return f;
}
template <typename Access>
ScenarioField bandwidth_field(std::string name, std::string help, Access access) {
  return quantity_field(std::move(name), std::move(help), access, units::parse_bandwidth, units::k_bandwidth_units,
                        "GB/s", 1e9, false);
}
template <typename Access>
ScenarioField duration_field(std::string name, std::string help, Access access) {
  return quantity_field(std::move(name), std::move(help), access, units::parse_duration, units::k_duration_units, "s",
                        1.0, true);
}
template <typename Access>
ScenarioField latency_field(std::string name, std::string help, Access access) {
  return quantity_field(std::move(name), std::move(help), access, units::parse_duration, units::k_duration_units, "us",
                        1e-6, true);
}

// A host time, or `auto`: the cluster's host type's measured cost (topologies/host_cost.hpp).
template <typename Access>
ScenarioField host_latency_field(std::string name, std::string help, Access access) {
  ScenarioField f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.apply = [access](Scenario& s, std::string_view text) -> Rule {
    if (text == "auto") {
      access(s).reset();
      return std::nullopt;
    }
    const auto v = units::parse_duration(text);
    if (!v || *v < 0) return std::string("expected auto, or a value >= 0 with a unit (") + units::k_duration_units + ")";
    access(s) = *v;
    return std::nullopt;
  };
  f.show = [access](const Scenario& s) { return access(s) ? number_text(*access(s) / 1e-6) + "us" : "auto"; };
  return f;
}

const parse::EnumNames<HostCpu> k_hosts{{{"x86", HostCpu::x86}, {"grace", HostCpu::grace}}};

const parse::EnumNames<Precision> k_precisions{
    {{"bf16", Precision::bf16}, {"fp16", Precision::fp16}, {"fp8", Precision::fp8}, {"fp32", Precision::fp32},
     {"mxfp8", Precision::mxfp8}, {"nvfp4", Precision::nvfp4}}};
const parse::EnumNames<GradPrecision> k_grad_precisions{{{"auto", GradPrecision::automatic},
                                                         {"fp32", GradPrecision::fp32},
                                                         {"bf16", GradPrecision::bf16},
                                                         {"fp16", GradPrecision::fp16}}};
const parse::EnumNames<Optimizer> k_optimizers{{{"adam", Optimizer::adam}, {"sgd", Optimizer::sgd}}};
const parse::EnumNames<Recompute> k_recomputes{
    {{"none", Recompute::none}, {"selective", Recompute::selective}, {"full", Recompute::full}}};
const parse::EnumNames<Offload> k_offloads{{{"none", Offload::none}, {"cpu", Offload::cpu}}};
const parse::EnumNames<AttentionKernel> k_attention{
    {{"flash", AttentionKernel::flash}, {"standard", AttentionKernel::standard}}};
const parse::EnumNames<Schedule> k_schedules{{{"gpipe", Schedule::gpipe},
                                              {"1f1b", Schedule::one_f_one_b},
                                              {"interleaved", Schedule::interleaved},
                                              {"zb-h1", Schedule::zb_h1}}};
const parse::EnumNames<PipelineSendOverlap> k_pp_overlap{{{"auto", PipelineSendOverlap::automatic},
                                                           {"true", PipelineSendOverlap::overlapped},
                                                           {"false", PipelineSendOverlap::blocking}}};
const parse::EnumNames<StageSplit> k_stage_splits{{{"cost", StageSplit::cost},
                                                   {"even", StageSplit::even},
                                                   {"even-with-ends", StageSplit::even_with_ends}}};
const parse::EnumNames<Fsdp> k_fsdp{{{"none", Fsdp::none}, {"megatron", Fsdp::megatron}}};
const parse::EnumNames<NeighbourPlacement> k_neighbour_placements{
    {{"after", NeighbourPlacement::after}, {"interleaved", NeighbourPlacement::interleaved}}};
const parse::EnumNames<CpAlgo> k_cp_algos{{{"ring", CpAlgo::ring}, {"all-gather", CpAlgo::all_gather}}};
const parse::EnumNames<MoeDispatcher> k_moe_dispatchers{
    {{"alltoall", MoeDispatcher::alltoall}, {"deepep", MoeDispatcher::deepep}, {"hybridep", MoeDispatcher::hybridep}}};
const parse::EnumNames<Fabric> k_fabrics{{{"single-switch", Fabric::single_switch},
                                          {"fat-tree", Fabric::fat_tree},
                                          {"rail-optimized", Fabric::rail_optimized},
                                          {"ideal", Fabric::ideal}}};
const parse::EnumNames<Network> k_networks{
    {{"infiniband", Network::infiniband}, {"spectrum-x", Network::spectrum_x}, {"roce", Network::roce}}};
const parse::EnumNames<FfnActivation> k_activations{
    {{"gelu", FfnActivation::gelu}, {"swiglu", FfnActivation::swiglu}, {"squared_relu", FfnActivation::squared_relu}}};
const parse::EnumNames<NormKind> k_norms{{{"layernorm", NormKind::layernorm}, {"rmsnorm", NormKind::rmsnorm}}};
const parse::EnumNames<PositionEmbedding> k_positions{
    {{"learned", PositionEmbedding::learned}, {"rope", PositionEmbedding::rope}}};

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

ScenarioField model_preset_field() {
  ScenarioField f;
  f.name = "model.preset";
  f.help = "published model shape: " + join(model_preset_names());
  f.priority = 0;
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const auto m = model_preset(text);
    if (!m) return "expected one of " + join(model_preset_names());
    s.model = *m;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.model.name; };
  return f;
}

ScenarioField cluster_preset_field() {
  ScenarioField f;
  f.name = "cluster.preset";
  f.help = "node type and fabric defaults: " + join(cluster_preset_names());
  f.priority = 0;
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const auto c = cluster_preset(text);
    if (!c) return "expected one of " + join(cluster_preset_names());
    s.cluster = *c;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.cluster.preset; };
  return f;
}

ScenarioField gpu_field() {
  ScenarioField f;
  f.name = "cluster.gpu";
  f.help = "GPU type: " + join(gpu_preset_names());
  f.priority = 1;  // before cluster.gpu_memory, which overrides its capacity
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const auto g = gpu_preset(text);
    if (!g) return "expected one of " + join(gpu_preset_names());
    s.cluster.gpu = *g;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.cluster.gpu.name; };
  return f;
}

ScenarioField order_field() {
  ScenarioField f;
  f.name = "parallel.order";
  f.help = "rank mapping, innermost axis first, as Megatron-Core's order: tp, cp, ep, dp, pp (some of them) joined "
           "by '-'; default tp-cp-ep-dp-pp";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const auto order = RankOrder::parse(text);
    if (!order)
      return "expected some of tp, cp, ep, dp, pp, each once, joined by '-' (Megatron-Core's order, e.g. "
             "tp-cp-ep-dp-pp or tp-pp-dp)";
    s.parallel.order = *order;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.parallel.order.text(); };
  return f;
}

// model.router_balance: "forced" (1) or the busiest expert-parallel rank's load factor (>= 1).
ScenarioField router_balance_field() {
  ScenarioField f;
  f.name = "model.router_balance";
  f.help = "forced (Megatron's force-balanced routing) or the busiest expert-parallel rank's tokens over the mean";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    if (text == "forced") {
      s.model.router_load = 1.0;
      return std::nullopt;
    }
    const auto v = parse::number(text);
    if (!v || !(*v >= 1.0)) return "expected forced or a load factor >= 1 (e.g. 1.15)";
    s.model.router_load = *v;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) {
    return s.model.router_load == 1.0 ? std::string("forced") : number_text(s.model.router_load);
  };
  return f;
}

// training.cuda_graphs: "none" or scopes joined by '+' or ',' (Megatron-Bridge's
// --cuda_graph_scope joins them by ','; a sweep's [vary] list separates its values by ',').
ScenarioField cuda_graphs_field() {
  ScenarioField f;
  f.name = "training.cuda_graphs";
  f.help = "CUDA graph scopes: none, or attn, mlp, moe_router, moe_preprocess, moe, full_iteration joined by '+' or ','";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    std::string rule = "expected none, or scopes of";
    for (const std::string& n : graph_scope_names()) rule += " " + n;
    rule += " joined by '+' or ','";
    CudaGraphs graphs;
    if (text != "none") {
      for (const std::string_view piece : parse::pieces(text, ",+")) {
        const std::string_view name = parse::trimmed(piece);
        const auto& names = graph_scope_names();
        const auto it = std::find(names.begin(), names.end(), name);
        if (it == names.end()) return rule;
        graphs.add(static_cast<GraphScope>(it - names.begin()));
      }
    }
    s.training.cuda_graphs = graphs;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return graph_scopes_text(s.training.cuda_graphs); };
  return f;
}

template <typename Access>
ScenarioField fraction_field(std::string name, std::string help, Access access) {
  ScenarioField f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.apply = [access](Scenario& s, std::string_view text) -> Rule {
    const auto v = parse::fraction(text);
    if (!v || *v < 0 || *v > 1) return "expected a fraction from 0 to 1 (0.05 or 5%)";
    access(s) = *v;
    return std::nullopt;
  };
  f.show = [access](const Scenario& s) { return number_text(access(s) * 100) + "%"; };
  return f;
}


ScenarioField checkpoint_interval_field() {
  ScenarioField f;
  f.name = "checkpoint.interval";
  f.help = "training between checkpoints: auto (Daly's optimum), a duration, a step count (500steps), or 0 (never)";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    s.checkpoint.automatic = text == "auto";
    s.checkpoint.interval_s = 0;
    s.checkpoint.interval_steps = 0;
    if (s.checkpoint.automatic) return std::nullopt;
    const std::string_view steps = "steps";
    if (text.size() > steps.size() && text.substr(text.size() - steps.size()) == steps) {
      const std::string_view count = parse::trimmed(text.substr(0, text.size() - steps.size()));
      const auto n = parse::integer(count);
      if (!n || *n < 1) return "expected a step count >= 1, e.g. 500steps";
      s.checkpoint.interval_steps = *n;
      return std::nullopt;
    }
    const auto v = units::parse_duration(text);
    if (!v)
      return std::string("expected auto, a step count (500steps) or a duration with a unit (") +
             units::k_duration_units + ")";
    s.checkpoint.interval_s = *v;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) {
    if (s.checkpoint.automatic) return std::string("auto");
    if (s.checkpoint.interval_steps > 0) return std::to_string(s.checkpoint.interval_steps) + "steps";
    return number_text(s.checkpoint.interval_s) + "s";
  };
  return f;
}

const parse::EnumNames<FailureDistribution> k_failure_distributions{
    {{"exponential", FailureDistribution::exponential}, {"weibull", FailureDistribution::weibull}}};
const parse::EnumNames<FailureUnit> k_failure_units{{{"node", FailureUnit::node}, {"gpu", FailureUnit::gpu}}};
const parse::EnumNames<FailureCauses> k_failure_causes{
    {{"llama3", FailureCauses::llama3}, {"hardware", FailureCauses::hardware}}};
const parse::EnumNames<CheckpointMode> k_checkpoint_modes{
    {{"sync", CheckpointMode::sync}, {"async", CheckpointMode::async}}};
const parse::EnumNames<DataSampler> k_data_samplers{
    {{"global", DataSampler::global}, {"per_rank", DataSampler::per_rank}}};
const parse::EnumNames<ElasticPolicy> k_elastic_policies{
    {{"wait", ElasticPolicy::wait}, {"shrink", ElasticPolicy::shrink}}};
const parse::EnumNames<GrowPolicy> k_grow_policies{
    {{"auto", GrowPolicy::automatic}, {"always", GrowPolicy::always}, {"never", GrowPolicy::never}}};
const parse::EnumNames<GlobalBatchPolicy> k_global_batch_policies{
    {{"keep", GlobalBatchPolicy::keep}, {"scale", GlobalBatchPolicy::scale}}};

// A mean time between failures, or its inverse as a rate: "264d", or "0.0038/day".
ScenarioField mtbf_field() {
  ScenarioField f;
  f.name = "failures.mtbf";
  f.help = "mean time between interruptions of one failure unit (a duration, or a rate like 0.004/day; 0: none)";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const std::string_view per_day = "/day";
    if (text.size() > per_day.size() && text.substr(text.size() - per_day.size()) == per_day) {
      const auto rate = parse::number(text.substr(0, text.size() - per_day.size()));
      if (!rate || *rate <= 0) return "expected a rate > 0 per day, e.g. 0.004/day";
      // A rate so small its mean time overflows is no rate a duration can state.
      if (!std::isfinite(86400.0 / *rate)) return "expected a rate > 0 per day whose mean time is finite";
      s.failures.mtbf_s = 86400.0 / *rate;
      return std::nullopt;
    }
    const auto v = units::parse_duration(text);
    if (!v)
      return std::string("expected a duration with a unit (") + units::k_duration_units + ") or a rate like 0.004/day";
    s.failures.mtbf_s = *v;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return number_text(s.failures.mtbf_s) + "s"; };
  return f;
}

ScenarioField spare_nodes_field() {
  ScenarioField f;
  f.name = "failures.spare_nodes";
  f.help = "healthy nodes beyond the job's: unlimited (a failed node is replaced at once) or a count";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    if (text == "unlimited") {
      s.failures.spare_nodes = -1;
      return std::nullopt;
    }
    const auto v = parse::integer(text);
    if (!v || *v < 0 || *v > std::numeric_limits<int>::max()) return "expected unlimited or an integer >= 0";
    s.failures.spare_nodes = static_cast<int>(*v);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) {
    return s.failures.spare_nodes < 0 ? std::string("unlimited") : std::to_string(s.failures.spare_nodes);
  };
  return f;
}

// variations.neighbour: a scenario file's path (the scenario loader reads it), or none.
ScenarioField neighbour_field() {
  ScenarioField f;
  f.name = "variations.neighbour";
  f.help = "another job's scenario file, played on its own nodes of this fabric beside the step; none: no neighbour";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    if (text.empty()) return "expected none or the path of a scenario file";
    s.variations.neighbour = text == "none" ? std::string() : std::string(text);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.variations.neighbour.empty() ? std::string("none") : s.variations.neighbour; };
  return f;
}

ScenarioField calibration_field() {
  ScenarioField f;
  f.name = "cluster.calibration";
  f.help = "kernel timings: auto (the GPU's shipped table), none (datasheet roofline), or a table's path";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    if (text.empty()) return "expected auto, none or the path of a calibration table";
    s.cluster.calibration = std::string(text);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.cluster.calibration; };
  return f;
}

// At most k_max_run_duration_s (sim/run/run_limits.hpp), said with the text as written.
ScenarioField run_duration_field() {
  ScenarioField f = duration_field(
      "run.duration", "run-level simulation of this long (0: until run.train_steps, or the step only)",
      [](auto& s) -> auto& { return s.run.duration_s; });
  f.apply = [parse = f.apply](Scenario& s, std::string_view text) -> Rule {
    if (auto rule = parse(s, text)) return rule;
    if (s.run.duration_s > k_max_run_duration_s)
      return "at most 100 years (36525d) are simulated, where a run.train_steps target stops too";
    return std::nullopt;
  };
  return f;
}

ScenarioField seed_field() {
  ScenarioField f;
  f.name = "run.seed";
  f.help = "random seed: same scenario and seed, same results";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const auto v = parse::integer(text);
    if (!v || *v < 0) return "expected an integer >= 0";
    s.run.seed = static_cast<std::uint64_t>(*v);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return std::to_string(s.run.seed); };
  return f;
}

// variations.slow_gpu_ids, slow_nic_ids: ids joined by '+' or ',' ("none": none listed).
template <typename Access>
ScenarioField id_list_field(std::string name, std::string help, const char* what, Access access) {
  ScenarioField f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.apply = [access, what](Scenario& s, std::string_view text) -> Rule {
    std::vector<int> ids;
    if (text != "none") {
      for (const std::string_view piece : parse::pieces(text, ",+")) {
        const auto id = parse::integer(parse::trimmed(piece));
        if (!id || *id < 0 || *id > std::numeric_limits<int>::max())
          return std::string("expected none, or ") + what + " ids (integers >= 0) joined by '+' or ','";
        ids.push_back(static_cast<int>(*id));
      }
    }
    std::sort(ids.begin(), ids.end());
    if (const auto twice = std::adjacent_find(ids.begin(), ids.end()); twice != ids.end())
      return std::string(what) + " " + std::to_string(*twice) + " is listed twice";
    access(s) = std::move(ids);
    return std::nullopt;
  };
  f.show = [access](const Scenario& s) {
    std::string text;
    for (const int id : access(s)) text += (text.empty() ? "" : "+") + std::to_string(id);
    return text.empty() ? std::string("none") : text;
  };
  return f;
}

// variations.slow_gpu_speed, slow_nic_speed: above 0, at most 1.
template <typename Access>
ScenarioField speed_field(std::string name, std::string help, Access access) {
  ScenarioField f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.apply = [access](Scenario& s, std::string_view text) -> Rule {
    const auto v = parse::fraction(text);
    if (!v || !(*v > 0) || *v > 1) return "expected a fraction above 0 and at most 1 (0.9 or 90%)";
    access(s) = *v;
    return std::nullopt;
  };
  f.show = [access](const Scenario& s) { return number_text(access(s)); };
  return f;
}

}  // namespace

std::vector<std::string> scenario_sections() {
  return {"model", "training", "parallel", "cluster", "run", "failures", "checkpoint", "elastic", "variations"};
}
std::vector<std::string> reserved_sections() {
  return {};
}

std::vector<ScenarioField> scenario_fields() {
  std::vector<ScenarioField> fields{
      model_preset_field(),
      int_field(
          "model.layers", "transformer layers", [](auto& s) -> auto& { return s.model.layers; }, 1, k_max_layers,
          k_max_layers_why),
      int_field(
          "model.hidden", "hidden size h", [](auto& s) -> auto& { return s.model.hidden; }, 1),
      int_field(
          "model.heads", "attention heads a", [](auto& s) -> auto& { return s.model.heads; }, 1),
      int_field(
          "model.kv_heads", "key/value heads (GQA); default: heads", [](auto& s) -> auto& { return s.model.kv_heads; },
          1),
      int_field(
          "model.ffn_hidden", "MLP inner size (per expert)", [](auto& s) -> auto& { return s.model.ffn_hidden; }, 1),
      int_field(
          "model.vocab", "vocabulary size V", [](auto& s) -> auto& { return s.model.vocab; }, 1),
      int_field(
          "model.seq_len", "sequence length s", [](auto& s) -> auto& { return s.model.seq_len; }, 1),
      int_field(
          "model.experts", "MoE experts (1 = dense)", [](auto& s) -> auto& { return s.model.experts; }, 1,
          k_max_experts, k_max_experts_why),
      int_field(
          "model.top_k", "experts per token", [](auto& s) -> auto& { return s.model.top_k; }, 1),
      enum_field(
          "model.activation", "MLP type", [](auto& s) -> auto& { return s.model.activation; }, k_activations),
      enum_field(
          "model.norm", "normalisation", [](auto& s) -> auto& { return s.model.norm; }, k_norms),
      enum_field(
          "model.position_embedding", "position encoding", [](auto& s) -> auto& { return s.model.position; },
          k_positions),
      bool_field(
          "model.bias", "linear layers have biases", [](auto& s) -> auto& { return s.model.bias; }),
      bool_field(
          "model.tied_embeddings", "output layer shares the embedding",
          [](auto& s) -> auto& { return s.model.tied_embeddings; }),
      bool_field(
          "model.dropout", "dropout layers (their masks are stored)", [](auto& s) -> auto& { return s.model.dropout; }),
      number_field(
          "model.capacity_factor", "expert capacity as a multiple of the balanced share (0: dropless)",
          [](auto& s) -> auto& { return s.model.capacity_factor; }, 0.0),
      number_field(
          "model.expert_imbalance", "coefficient of variation of the experts' token counts",
          [](auto& s) -> auto& { return s.model.expert_imbalance; }, 0.0),
      router_balance_field(),
      int_field(
          "model.head_dim", "head dimension when not hidden / heads (0: hidden / heads)",
          [](auto& s) -> auto& { return s.model.explicit_head_dim; }, 0),
      bool_field(
          "model.qk_norm", "RMSNorm on each query and key head (Qwen3)",
          [](auto& s) -> auto& { return s.model.qk_norm; }),
      int_field(
          "model.q_lora_rank", "MLA: rank of the query projection (0: full rank)",
          [](auto& s) -> auto& { return s.model.q_lora_rank; }, 0),
      int_field(
          "model.kv_lora_rank", "MLA: rank of the key-value latent (0: no MLA)",
          [](auto& s) -> auto& { return s.model.kv_lora_rank; }, 0),
      int_field(
          "model.qk_rope_head_dim", "MLA: rotary part of each query and key head",
          [](auto& s) -> auto& { return s.model.qk_rope_head_dim; }, 0),
      int_field(
          "model.qk_nope_head_dim", "MLA: part of each query and key head without rotary embedding",
          [](auto& s) -> auto& { return s.model.qk_nope_head_dim; }, 0),
      int_field(
          "model.v_head_dim", "MLA: each value head's dimension", [](auto& s) -> auto& { return s.model.v_head_dim; },
          0),
      int_field(
          "model.sliding_window", "tokens a query attends over (0: the whole sequence)",
          [](auto& s) -> auto& { return s.model.sliding_window; }, 0),
      int_field(
          "model.full_attention_interval", "with a window, every N-th layer attends fully (0: none)",
          [](auto& s) -> auto& { return s.model.full_attention_interval; }, 0),
      bool_field(
          "model.attention_sinks", "a learned sink logit per head (GPT-OSS)",
          [](auto& s) -> auto& { return s.model.attention_sinks; }),
      bool_field(
          "model.parallel_block", "attention and MLP side by side on one norm (GPT-J, PaLM)",
          [](auto& s) -> auto& { return s.model.parallel_block; }),
      int_field(
          "model.moe_ffn_hidden", "routed experts' inner size (0: model.ffn_hidden)",
          [](auto& s) -> auto& { return s.model.moe_ffn_hidden; }, 0),
      int_field(
          "model.shared_experts", "always-active experts beside the routed ones",
          [](auto& s) -> auto& { return s.model.shared_experts; }, 0),
      int_field(
          "model.shared_expert_ffn_hidden", "each shared expert's inner size (0: the routed experts')",
          [](auto& s) -> auto& { return s.model.shared_expert_ffn_hidden; }, 0),
      int_field(
          "model.dense_layers", "first layers with a dense MLP of model.ffn_hidden",
          [](auto& s) -> auto& { return s.model.dense_layers; }, 0),
      int_field(
          "model.moe_layer_interval", "after the dense layers, every N-th layer is MoE, the others dense",
          [](auto& s) -> auto& { return s.model.moe_layer_interval; }, 1),
      bool_field(
          "model.router_bias", "the router has a bias per expert",
          [](auto& s) -> auto& { return s.model.router_bias; }),
      int_field(
          "model.mtp_depth", "multi-token prediction modules (DeepSeek-V3: 1)",
          [](auto& s) -> auto& { return s.model.mtp_depth; }, 0, k_max_mtp_depth, k_max_mtp_depth_why),

      int_field(
          "training.micro_batch", "b: samples per micro-batch", [](auto& s) -> auto& { return s.training.micro_batch; },
          1),
      int_field(
          "training.grad_accum", "a: micro-batches per step per pipeline",
          [](auto& s) -> auto& { return s.training.grad_accum; }, 1, k_max_simulated_microbatches,
          k_simulated_microbatches_why),
      int_field(
          "training.global_batch",
          "samples per step, instead of grad_accum: grad_accum = global_batch / (micro_batch x dp) (0: from grad_accum)",
          [](auto& s) -> auto& { return s.training.global_batch; }, 0),
      enum_field(
          "training.precision", "number format", [](auto& s) -> auto& { return s.training.precision; }, k_precisions),
      enum_field(
          "training.grad_precision",
          "gradient accumulation and reduction format (auto: fp32 for bf16/fp8, as Megatron-LM)",
          [](auto& s) -> auto& { return s.training.grad_precision; }, k_grad_precisions),
      enum_field(
          "training.optimizer", "optimizer (sgd: with momentum)", [](auto& s) -> auto& { return s.training.optimizer; },
          k_optimizers),
      enum_field(
          "training.recompute", "activation recomputation", [](auto& s) -> auto& { return s.training.recompute; },
          k_recomputes),
      int_field(
          "training.recompute_layers", "with full recompute: layers recomputed per model chunk (0: all)",
          [](auto& s) -> auto& { return s.training.recompute_layers; }, 0),
      enum_field(
          "training.offload", "optimizer-state offload", [](auto& s) -> auto& { return s.training.offload; },
          k_offloads),
      int_field(
          "training.offload_activations",
          "layers per pipeline stage whose activations go to host memory (Megatron's cpu_offloading_num_layers)",
          [](auto& s) -> auto& { return s.training.offload_activations; }, 0, k_max_layers, k_max_layers_why),
      bool_field(
          "training.fused_cross_entropy",
          "the loss keeps 16-bit logits holding their gradient (TE's fused cross entropy)",
          [](auto& s) -> auto& { return s.training.fused_cross_entropy; }),
      enum_field(
          "training.attention", "attention kernel", [](auto& s) -> auto& { return s.training.attention; }, k_attention),
      bytes_field(
          "training.framework_memory", "per-GPU CUDA context, workspaces, NCCL",
          [](auto& s) -> auto& { return s.training.framework_bytes; }),
      fraction_field(
          "training.fragmentation", "allocator fragmentation margin",
          [](auto& s) -> auto& { return s.training.fragmentation_fraction; }),
      bytes_field(
          "training.dp_bucket", "gradient bucket size", [](auto& s) -> auto& { return s.training.dp_bucket_bytes; }),
      latency_field(
          "training.sample_load_time", "data loading time per sample",
          [](auto& s) -> auto& { return s.training.sample_load_time_s; }),
      int_field(
          "training.prefetch", "micro-batches the data loader prepares ahead",
          [](auto& s) -> auto& { return s.training.prefetch; }, 1),
      fraction_field(
          "training.overlap_slowdown", "compute slowdown while gradients are reduced",
          [](auto& s) -> auto& { return s.training.overlap_slowdown; }),
      latency_field(
          "training.kernel_gap", "GPU idle time between kernels queued back to back (per kernel)",
          [](auto& s) -> auto& { return s.training.kernel_gap_s; }),
      latency_field(
          "training.layer_host_overhead", "host time the GPU waits for per layer and pass",
          [](auto& s) -> auto& { return s.training.layer_host_overhead_s; }),
      latency_field(
          "training.microbatch_host_overhead", "host time the GPU waits for per micro-batch and model-chunk pass",
          [](auto& s) -> auto& { return s.training.microbatch_host_overhead_s; }),
      host_latency_field(
          "training.kernel_host_time",
          "host time per op dispatched, its first kernel's launch included (auto: the host's)",
          [](auto& s) -> auto& { return s.training.kernel_host_time_s; }),
      host_latency_field(
          "training.kernel_launch_time",
          "host time per further kernel an op launches from its own loop (auto: the host's)",
          [](auto& s) -> auto& { return s.training.kernel_launch_time_s; }),
      cuda_graphs_field(),

      int_field(
          "parallel.tp", "tensor-parallel size", [](auto& s) -> auto& { return s.parallel.tp; }, 1),
      int_field(
          "parallel.pp", "pipeline-parallel size", [](auto& s) -> auto& { return s.parallel.pp; }, 1),
      int_field(
          "parallel.dp", "data-parallel size; default GPUs / (tp pp cp)",
          [](auto& s) -> auto& { return s.parallel.dp; }, 1),
      int_field(
          "parallel.cp", "context-parallel size", [](auto& s) -> auto& { return s.parallel.cp; }, 1),
      int_field(
          "parallel.ep", "expert-parallel size (folded over the stage's tp x cp x dp ranks)",
          [](auto& s) -> auto& { return s.parallel.ep; }, 1),
      int_field(
          "parallel.expert_tp", "expert tensor-parallel size (0 = parallel.tp; MoE parallel folding)",
          [](auto& s) -> auto& { return s.parallel.expert_tp; }, 0),
      enum_field(
          "parallel.cp_algo", "context parallelism: ring (K/V beside attention) or all-gather (Llama 3)",
          [](auto& s) -> auto& { return s.parallel.cp_algo; }, k_cp_algos),
      enum_field(
          "parallel.moe_dispatcher",
          "MoE token dispatcher: alltoall (Megatron-Core's NCCL path), deepep or hybridep (its flex dispatcher)",
          [](auto& s) -> auto& { return s.parallel.moe_dispatcher; }, k_moe_dispatchers),
      int_field(
          "parallel.moe_dispatcher_sms",
          "SMs of deepep's or hybridep's dispatch and combine kernels (0: DeepEP 20, HybridEP 24 or 8 across domains)",
          [](auto& s) -> auto& { return s.parallel.moe_dispatcher_sms; }, 0, 1024, "beyond any GPU's SMs"),
      bool_field(
          "parallel.sequence_parallel", "Megatron sequence parallelism",
          [](auto& s) -> auto& { return s.parallel.sequence_parallel; }),
      int_field(
          "parallel.zero", "ZeRO stage (3 = FSDP full sharding)", [](auto& s) -> auto& { return s.parallel.zero; }, 0,
          3),
      enum_field(
          "parallel.schedule", "pipeline schedule", [](auto& s) -> auto& { return s.parallel.schedule; }, k_schedules),
      int_field(
          "parallel.virtual_stages", "model chunks per pipeline rank (interleaved)",
          [](auto& s) -> auto& { return s.parallel.virtual_stages; }, 1),
      int_field(
          "parallel.microbatch_group",
          "interleaved: micro-batches per model chunk before the next (Llama 3's N; 0 = pp)",
          [](auto& s) -> auto& { return s.parallel.microbatch_group; }, 0),
      enum_field(
          "parallel.stage_split", "layers per model chunk: cost (balanced), even, even-with-ends (Megatron-Core)",
          [](auto& s) -> auto& { return s.parallel.stage_split; }, k_stage_splits),
      pipeline_layout_field(),
      bool_field(
          "parallel.overlap_grad_reduce", "reduce gradients during the last backward",
          [](auto& s) -> auto& { return s.parallel.overlap_grad_reduce; }),
      bool_field(
          "parallel.overlap_param_gather", "ZeRO-1/2: gather updated parameters beside the next forward",
          [](auto& s) -> auto& { return s.parallel.overlap_param_gather; }),
      bool_field(
          "parallel.tp_comm_overlap", "pipeline sequence-parallel collectives with their GEMMs (--tp-comm-overlap)",
          [](auto& s) -> auto& { return s.parallel.tp_comm_overlap; }),
      bool_field(
          "parallel.moe_a2a_overlap",
          "MoE: a forward and a backward run together, each one's all-to-alls beside the other's compute "
          "(overlap_moe_expert_parallel_comm)",
          [](auto& s) -> auto& { return s.parallel.moe_a2a_overlap; }),
      bool_field(
          "parallel.delay_wgrad_compute",
          "with moe_a2a_overlap: a backward's expert weight gradients run beside its dispatch gradient",
          [](auto& s) -> auto& { return s.parallel.delay_wgrad_compute; }),
      enum_field(
          "parallel.pp_comm_overlap", "pipeline senders go on while activations travel (auto: with interleaving)",
          [](auto& s) -> auto& { return s.parallel.pp_comm_overlap; }, k_pp_overlap),
      int_field(
          "parallel.zero_shard_size", "HSDP: ZeRO shards within groups of this many dp x cp ranks (0 = all)",
          [](auto& s) -> auto& { return s.parallel.zero_shard_size; }, 0),
      enum_field(
          "parallel.fsdp", "ZeRO 2/3 as Megatron FSDP runs it (megatron) or as the zero3_* keys say (none)",
          [](auto& s) -> auto& { return s.parallel.fsdp; }, k_fsdp),
      int_field(
          "parallel.zero3_unit_layers", "ZeRO-3: layers gathered as one unit",
          [](auto& s) -> auto& { return s.parallel.zero3_unit_layers; }, 1),
      int_field(
          "parallel.zero3_prefetch", "ZeRO-3: units gathered ahead of their use",
          [](auto& s) -> auto& { return s.parallel.zero3_prefetch; }, 0),
      order_field(),

      cluster_preset_field(),
      gpu_field(),
      bytes_field(
          "cluster.gpu_memory", "GPU memory capacity; default: the GPU's",
          [](auto& s) -> auto& { return s.cluster.gpu.memory_bytes; }),
      fraction_field(
          "cluster.tp_overlap_slowdown",
          "extra slowdown of GEMMs beside overlapped TP communication, over the SMs and HBM its kernels take",
          [](auto& s) -> auto& { return s.cluster.gpu.tp_overlap_slowdown; }),
      int_field(
          "cluster.nodes", "nodes", [](auto& s) -> auto& { return s.cluster.nodes; }, 1),
      int_field(
          "cluster.gpus_per_node", "GPUs per node", [](auto& s) -> auto& { return s.cluster.gpus_per_node; }, 1),
      int_field(
          "cluster.nvlink_domain", "GPUs per NVLink domain, whole nodes (GB200 NVL72: 72); 0: one node",
          [](auto& s) -> auto& { return s.cluster.nvlink_domain; }, 0),
      int_field(
          "cluster.gpus_per_domain",
          "GPUs the job uses in each NVLink domain, whole nodes (NVL72 jobs past one rack: 64); 0: the whole domain",
          [](auto& s) -> auto& { return s.cluster.gpus_per_domain; }, 0),
      enum_field(
          "cluster.fabric", "inter-node fabric", [](auto& s) -> auto& { return s.cluster.fabric; }, k_fabrics),
      enum_field(
          "cluster.network", "what the NICs and switches speak: infiniband, spectrum-x (Ethernet), roce (Ethernet)",
          [](auto& s) -> auto& { return s.cluster.network; }, k_networks),
      enum_field(
          "cluster.host", "the CPU that issues the GPUs' work: x86 (DGX, HGX) or grace (GB200, GB300)",
          [](auto& s) -> auto& { return s.cluster.host; }, k_hosts),
      bool_field(
          "cluster.sharp", "InfiniBand switches reduce (SHARP) and NCCL's CollNet plugin is loaded",
          [](auto& s) -> auto& { return s.cluster.sharp; }),
      bandwidth_field(
          "cluster.nvlink_bandwidth", "NVLink per GPU per direction",
          [](auto& s) -> auto& { return s.cluster.nvlink_bandwidth_Bps; }),
      latency_field(
          "cluster.nvlink_latency", "NVLink hop latency", [](auto& s) -> auto& { return s.cluster.nvlink_latency_s; }),
      bandwidth_field(
          "cluster.nic_bandwidth", "per NIC per direction",
          [](auto& s) -> auto& { return s.cluster.nic_bandwidth_Bps; }),
      int_field(
          "cluster.nics_per_node", "compute NICs per node", [](auto& s) -> auto& { return s.cluster.nics_per_node; },
          1),
      latency_field(
          "cluster.nic_latency", "NIC latency", [](auto& s) -> auto& { return s.cluster.nic_latency_s; }),
      latency_field(
          "cluster.switch_latency", "per switch hop", [](auto& s) -> auto& { return s.cluster.switch_latency_s; }),
      number_field(
          "cluster.oversubscription", "fat-tree leaf down:up bandwidth ratio (1 = full bisection)",
          [](auto& s) -> auto& { return s.cluster.oversubscription; }, 1.0),
      int_field(
          "cluster.fat_tree_levels", "fat-tree levels", [](auto& s) -> auto& { return s.cluster.fat_tree_levels; }, 2,
          3),
      bandwidth_field(
          "cluster.host_link_bandwidth", "GPU-host link (PCIe) per direction",
          [](auto& s) -> auto& { return s.cluster.host_link_bandwidth_Bps; }),
      calibration_field(),

      int_field(
          "run.steps", "optimizer steps to simulate", [](auto& s) -> auto& { return s.run.steps; }, 1,
          k_max_simulated_microbatches, k_simulated_microbatches_why),
      seed_field(),
      run_duration_field(),
      int_field(
          "run.train_steps", "run-level simulation until this many steps are trained (0: for run.duration)",
          [](auto& s) -> auto& { return s.run.train_steps; }, 0),

      mtbf_field(),
      enum_field(
          "failures.unit", "what fails on its own: a node, or each GPU (a node's rate is then gpus_per_node times)",
          [](auto& s) -> auto& { return s.failures.unit; }, k_failure_units),
      enum_field(
          "failures.distribution", "time between a node's interruptions",
          [](auto& s) -> auto& { return s.failures.distribution; }, k_failure_distributions),
      number_field(
          "failures.weibull_shape", "Weibull shape k (1: exponential)",
          [](auto& s) -> auto& { return s.failures.weibull_shape; }, 0.1),
      enum_field(
          "failures.causes",
          "causes drawn per interruption: llama3 (Llama 3 405B's mix; hardware ones send the node to repair) or "
          "hardware (all do)",
          [](auto& s) -> auto& { return s.failures.causes; }, k_failure_causes),
      duration_field(
          "failures.detection", "time to notice a failure", [](auto& s) -> auto& { return s.failures.detection_s; }),
      duration_field(
          "failures.restart", "time to restart the job", [](auto& s) -> auto& { return s.failures.restart_s; }),
      duration_field(
          "failures.maintenance_interval", "planned maintenance stops this often (0: none)",
          [](auto& s) -> auto& { return s.failures.maintenance_interval_s; }),
      duration_field(
          "failures.maintenance_downtime", "a planned stop's length, before the restart",
          [](auto& s) -> auto& { return s.failures.maintenance_downtime_s; }),
      spare_nodes_field(),
      duration_field(
          "failures.repair", "time to repair a node out for hardware (with a finite spare pool)",
          [](auto& s) -> auto& { return s.failures.repair_s; }),

      checkpoint_interval_field(),
      enum_field(
          "checkpoint.mode", "sync (training stops for the write) or async (snapshot to host memory, write behind)",
          [](auto& s) -> auto& { return s.checkpoint.mode; }, k_checkpoint_modes),
      bandwidth_field(
          "checkpoint.write_bandwidth", "parallel file system write bandwidth, aggregate",
          [](auto& s) -> auto& { return s.checkpoint.write_bandwidth_Bps; }),
      bandwidth_field(
          "checkpoint.read_bandwidth", "parallel file system read bandwidth, aggregate",
          [](auto& s) -> auto& { return s.checkpoint.read_bandwidth_Bps; }),
      bandwidth_field(
          "checkpoint.node_bandwidth", "each node's link to the file system",
          [](auto& s) -> auto& { return s.checkpoint.node_bandwidth_Bps; }),
      bool_field(
          "checkpoint.save_data_cursor", "checkpoints record the data loader's position",
          [](auto& s) -> auto& { return s.checkpoint.save_data_cursor; }),
      enum_field(
          "checkpoint.sampler",
          "the saved data position: global (consumed samples) or per_rank (each rank's offset in its shard)",
          [](auto& s) -> auto& { return s.checkpoint.sampler; }, k_data_samplers),
      bool_field(
          "checkpoint.reshardable", "checkpoints load at another data-parallel size",
          [](auto& s) -> auto& { return s.checkpoint.reshardable; }),

      enum_field(
          "elastic.policy", "with no spare node free: wait for a repair, or shrink data parallelism",
          [](auto& s) -> auto& { return s.elastic.policy; }, k_elastic_policies),
      enum_field(
          "elastic.global_batch", "when shrinking: keep the global batch (more micro-batches) or scale it down",
          [](auto& s) -> auto& { return s.elastic.global_batch; }, k_global_batch_policies),
      enum_field(
          "elastic.grow",
          "grow back when nodes return: auto (when the throughput gained until the next expected interruption pays "
          "for the restart), always or never",
          [](auto& s) -> auto& { return s.elastic.grow; }, k_grow_policies),
      int_field(
          "elastic.min_dp", "never shrink below this many data-parallel replicas",
          [](auto& s) -> auto& { return s.elastic.min_dp; }, 1),

      int_field(
          "variations.slow_gpus", "slow GPUs drawn at random with run.seed (or list them: slow_gpu_ids)",
          [](auto& s) -> auto& { return s.variations.slow_gpu_count; }, 0),
      id_list_field(
          "variations.slow_gpu_ids",
          "slow GPUs listed by id (rank r runs on GPU r), joined by '+' or ','; none: none listed", "GPU",
          [](auto& s) -> auto& { return s.variations.slow_gpu_ids; }),
      speed_field(
          "variations.slow_gpu_speed",
          "a slow GPU's compute speed over the others' (0.9 or 90%: its kernels take 1/0.9 as long)",
          [](auto& s) -> auto& { return s.variations.slow_gpu_speed; }),
      int_field(
          "variations.slow_nics", "NICs at a fraction of their bandwidth, drawn at random with run.seed",
          [](auto& s) -> auto& { return s.variations.slow_nic_count; }, 0),
      id_list_field(
          "variations.slow_nic_ids",
          "slow NICs listed by id (node x nics_per_node + the NIC's index), joined by '+' or ','; none: none listed",
          "NIC", [](auto& s) -> auto& { return s.variations.slow_nic_ids; }),
      int_field(
          "variations.down_uplinks", "leaf switch uplink cables down, drawn at random with run.seed",
          [](auto& s) -> auto& { return s.variations.down_uplink_count; }, 0),
      id_list_field(
          "variations.down_uplink_ids",
          "leaf uplink cables down, listed by id (leaf x uplinks per leaf + index; an id past the last says how many)",
          "uplink", [](auto& s) -> auto& { return s.variations.down_uplink_ids; }),
      int_field(
          "variations.down_spines", "spine switches down, drawn at random with run.seed",
          [](auto& s) -> auto& { return s.variations.down_spine_count; }, 0),
      id_list_field(
          "variations.down_spine_ids",
          "spine switches down, listed by id (pod or rail x uplinks per leaf + index; trainsim topology counts them)",
          "spine", [](auto& s) -> auto& { return s.variations.down_spine_ids; }),
      speed_field(
          "variations.slow_nic_speed", "a slow NIC's bandwidth over the others' (0.5 or 50%)",
          [](auto& s) -> auto& { return s.variations.slow_nic_speed; }),
      duration_field(
          "variations.straggler_mtbf",
          "run level: mean time between one GPU turning slow (at slow_gpu_speed) while the job trains (0: none)",
          [](auto& s) -> auto& { return s.variations.straggler_mtbf_s; }),
      duration_field(
          "variations.straggler_detection", "run level: from a straggler's appearance to its node's drain",
          [](auto& s) -> auto& { return s.variations.straggler_detection_s; }),
      neighbour_field(),
      enum_field(
          "variations.neighbour_placement",
          "the neighbour's nodes: after the job's, or interleaved with them node by node (sharing their leaves)",
          [](auto& s) -> auto& { return s.variations.neighbour_placement; }, k_neighbour_placements),
  };
  // The low-precision recipe's keys (precision_recipe.hpp), after the other training keys.
  const auto after_training = std::find_if(fields.rbegin(), fields.rend(), [](const ScenarioField& f) {
                                return f.section() == "training";
                              }).base();
  const std::vector<ScenarioField> recipe = precision_recipe_fields();
  fields.insert(after_training, recipe.begin(), recipe.end());
  // The token-dropping keys follow model.capacity_factor (token_drop_fields.hpp).
  const auto capacity = std::find_if(fields.begin(), fields.end(),
                                     [](const ScenarioField& f) { return f.name == "model.capacity_factor"; });
  const std::vector<ScenarioField> drop = token_drop_fields();
  fields.insert(capacity + 1, drop.begin(), drop.end());
  // Topic files' keys after the key they belong with.
  const auto after = [&fields](const char* name, std::vector<ScenarioField> more) {
    const auto at = std::find_if(fields.begin(), fields.end(), [&](const ScenarioField& f) { return f.name == name; });
    fields.insert(at + 1, std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  };
  after("parallel.tp_comm_overlap", tp_overlap_fields());
  return fields;
}

}  // namespace trainsim
