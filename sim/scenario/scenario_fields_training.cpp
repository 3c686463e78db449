// [training]: batch, number formats, optimizer, recomputation, offload, memory margins and host overheads, and
// the rules across them. The low-precision recipe's keys (precision_recipe.hpp) come last.

#include <algorithm>
#include <string>
#include <vector>

#include "models/memory_budget.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/field_kinds.hpp"
#include "sim/scenario/precision_recipe.hpp"
#include "sim/scenario/rule_helpers.hpp"
#include "sim/scenario/scenario_rules.hpp"
#include "sim/scenario/scenario_sections.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim::schema {

namespace {

using field_kinds::Rule;
using field_kinds::bool_field;
using field_kinds::bytes_field;
using field_kinds::enum_field;
using field_kinds::fraction_field;
using field_kinds::int_field;
using field_kinds::latency_field;
using field_kinds::number_text;

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

// training.host_stack_factor: `auto` (the fitted factor, topologies/host_cost.cpp) or a number > 0.
ScenarioField host_stack_factor_field() {
  ScenarioField f;
  f.name = "training.host_stack_factor";
  f.help =
      "the framework's host time over the A100 trace's per op, launch, collective call and "
      "AccumulateGrad (auto: fitted for Megatron-Core)";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    if (text == "auto") {
      s.training.host_stack_factor.reset();
      return std::nullopt;
    }
    const auto v = parse::number(text);
    if (!v || *v <= 0) return std::string("expected auto, or a number > 0");
    // Bounded so that every host time it scales stays finite (1e308 made them inf: an internal
    // error, exit 1). 1000 is over 400 times the fitted 2.3: a host of milliseconds an op.
    if (*v > 1000) return std::string("expected auto, or a number > 0 and at most 1000 (the fitted stack is 2.3)");
    s.training.host_stack_factor = *v;
    return std::nullopt;
  };
  f.show = [](const Scenario& s) {
    return s.training.host_stack_factor ? number_text(*s.training.host_stack_factor) : std::string("auto");
  };
  return f;
}

const parse::EnumNames<Precision> k_precisions{{{"bf16", Precision::bf16},
                                                {"fp16", Precision::fp16},
                                                {"fp8", Precision::fp8},
                                                {"fp32", Precision::fp32},
                                                {"mxfp8", Precision::mxfp8},
                                                {"nvfp4", Precision::nvfp4}}};
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

}  // namespace

std::vector<ScenarioField> training_fields() {
  std::vector<ScenarioField> fields{
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
      bool_field(
          "training.loss_host_sync",
          "the host reads the loss before the optimizer step (NeMo 2's MaskedTokenLossReduction)",
          [](auto& s) -> auto& { return s.training.loss_host_sync; }),
      bool_field(
          "training.bias_dropout_fusion",
          "a projection's bias, dropout and residual add in one kernel (Megatron's bias_dropout_fusion)",
          [](auto& s) -> auto& { return s.training.bias_dropout_fusion; }),
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
      host_stack_factor_field(),
      cuda_graphs_field(),
  };
  // The low-precision recipe's keys (precision_recipe.hpp), after the other training keys.
  const std::vector<ScenarioField> recipe = precision_recipe_fields();
  fields.insert(fields.end(), recipe.begin(), recipe.end());
  return fields;
}

// CUDA graphs as Megatron-Core allows them (models/cuda_graphs.hpp; Megatron-LM
// docs/discussions/deepseek-v3-gb200-optimization @ eb0783b6): moe_preprocess only with
// moe_router, the MoE scopes on MoE models, and full_iteration alone and without a host sync,
// which MoE layers without static shapes pay every forward (their token counts).
void check_cuda_graphs(const Scenario& s) {
  const CudaGraphs& g = s.training.cuda_graphs;
  if (g.none()) return;
  const auto refuse = [&](const std::string& rule) {
    throw InputError(s.source, "training.cuda_graphs", graph_scopes_text(g), rule);
  };
  CudaGraphs full;
  full.add(GraphScope::full_iteration);
  if (g.has(GraphScope::full_iteration) && !(g == full)) refuse("full_iteration captures every op: give it alone");
  if (g.has(GraphScope::moe_preprocess) && !g.has(GraphScope::moe_router))
    refuse("moe_preprocess is captured together with moe_router (Megatron-Core)");
  if ((g.has(GraphScope::moe_router) || g.has(GraphScope::moe_preprocess) || g.has(GraphScope::moe)) &&
      !s.model.is_moe())
    refuse("the moe scopes need model.experts > 1");
  if (g.has(GraphScope::moe) && g.has(GraphScope::moe_router)) refuse("moe and moe_router exclude each other (Megatron-Core)");
}

void check_recompute(const Scenario& s) {
  const TrainingSpec& t = s.training;
  require(s, t.recompute_layers == 0 || t.recompute == Recompute::full, "training.recompute_layers",
          t.recompute_layers, "recomputing some layers needs training.recompute = full");
}

// Activation offloading keeps the last layer of each stage on the GPU: its backward follows
// its forward at once (Megatron-Core refuses cpu_offloading_num_layers >= the layers it
// holds; Transformer Engine's handler offloads num_layers of a block's layers, never all).
// Called once the pipeline's layout is known to be valid.
void check_activation_offload(const Scenario& s) {
  const TrainingSpec& t = s.training;
  if (t.offload_activations == 0) return;
  if (!(s.cluster.host_link_bandwidth_Bps > 0))
    throw InputError(s.source, "cluster.host_link_bandwidth", "0GB/s",
                     "training.offload_activations needs a host link to copy the activations over");
  const std::vector<ModelChunk> chunks = balanced_chunks(s.model, s.parallel);
  for (int stage = 0; stage < s.parallel.pp; ++stage) {
    int layers = 0;
    for (const ModelChunk& c : rank_chunks(chunks, s.parallel, stage)) layers += c.layers;
    require(s, t.offload_activations < layers, "training.offload_activations", t.offload_activations,
            "must be fewer than the layers of every pipeline stage (stage " + str(stage) + " holds " + str(layers) +
                "): the last layer's activations stay on the GPU");
  }
}

void check_hardware(const Scenario& s) {
  const Precision p = s.training.precision;
  if (p == Precision::fp8 && !s.cluster.gpu.has_fp8())
    throw InputError(s.source, "training.precision", "fp8",
                     "cluster.gpu = " + s.cluster.gpu.name + " has no fp8 tensor cores");
  // Block-scaled formats run on Blackwell's tensor cores only (B200/GB200/B300 datasheets).
  if (p == Precision::mxfp8 && !s.cluster.gpu.has_mxfp8())
    throw InputError(s.source, "training.precision", "mxfp8",
                     "cluster.gpu = " + s.cluster.gpu.name + " has no MX (block-scaled fp8) tensor cores");
  if (p == Precision::nvfp4 && !s.cluster.gpu.has_nvfp4())
    throw InputError(s.source, "training.precision", "nvfp4",
                     "cluster.gpu = " + s.cluster.gpu.name + " has no NVFP4 tensor cores");
}

}  // namespace trainsim::schema
