#include "sim/scenario/precision_recipe.hpp"

#include <string>

#include "sim/core/error.hpp"
#include "sim/scenario/field_kinds.hpp"
#include "sim/scenario/scenario_rules.hpp"

namespace trainsim {

namespace {

const parse::EnumNames<Precision> k_attention_precisions{{{"bf16", Precision::bf16}, {"fp8", Precision::fp8}}};
const parse::EnumNames<Fp8Scaling> k_fp8_scalings{{{"current", Fp8Scaling::current}, {"delayed", Fp8Scaling::delayed}}};

}  // namespace

std::vector<ScenarioField> precision_recipe_fields() {
  using field_kinds::bool_field;
  using field_kinds::enum_field;
  using field_kinds::int_field;
  return {
      enum_field(
          "training.attention_precision",
          "fused attention's format: bf16, or fp8 (Megatron-LM's fp8_dot_product_attention, cuDNN FP8 attention)",
          [](auto& s) -> auto& { return s.training.attention_precision; }, k_attention_precisions),
      enum_field(
          "training.fp8_scaling",
          "with precision = fp8: current (Megatron-LM's --fp8-recipe tensorwise, the default) or delayed",
          [](auto& s) -> auto& { return s.training.fp8_scaling; }, k_fp8_scalings),
      bool_field(
          "training.fp8_param_gather",
          "fp8 weights gathered one byte a parameter, each rank casting its master shard (--fp8-param-gather)",
          [](auto& s) -> auto& { return s.training.fp8_param_gather; }),
      bool_field(
          "training.first_last_layers_bf16",
          "under a quantized precision, the model's first and last layers' linear GEMMs in bf16",
          [](auto& s) -> auto& { return s.training.first_last_layers_bf16; }),
      int_field(
          "training.num_layers_at_start_in_bf16", "with first_last_layers_bf16: the model's first layers kept in bf16",
          [](auto& s) -> auto& { return s.training.layers_at_start_in_bf16; }, 0, k_max_layers, k_max_layers_why),
      int_field(
          "training.num_layers_at_end_in_bf16", "with first_last_layers_bf16: the model's last layers kept in bf16",
          [](auto& s) -> auto& { return s.training.layers_at_end_in_bf16; }, 0, k_max_layers, k_max_layers_why),
  };
}

void check_precision_recipe(const Scenario& s) {
  const TrainingSpec& t = s.training;
  if (t.attention_precision == Precision::fp8) {
    // cuDNN's FP8 fused attention runs on Hopper and Blackwell (cuDNN frontend's FP8 SDPA
    // benchmarks, NVIDIA/cudnn-frontend @ 0b1577c8); Megatron-LM passes
    // fp8_dot_product_attention into Transformer Engine's fp8 recipe (extensions/
    // transformer_engine.py, fp8_utils.py @ d98e8a64), so it needs an fp8 autocast; and it is
    // the fused kernel (DotProductAttention's FusedAttention backend).
    const std::string key = "training.attention_precision";
    if (!s.cluster.gpu.has_fp8())
      throw InputError(s.source, key, "fp8", "cluster.gpu = " + s.cluster.gpu.name + " has no fp8 tensor cores");
    if (!is_quantized(t.precision))
      throw InputError(s.source, key, "fp8",
                       "needs training.precision = fp8, mxfp8 or nvfp4 (fp8 attention runs inside Transformer "
                       "Engine's fp8 autocast)");
    if (t.attention != AttentionKernel::flash)
      throw InputError(s.source, key, "fp8", "needs training.attention = flash (cuDNN's fused FP8 attention)");
  }
  // Megatron-LM's --fp8-recipe picks among the per-tensor fp8 recipes; mxfp8 and nvfp4 are
  // recipes of their own (fp8_utils.py @ d98e8a64).
  if (t.fp8_scaling != Fp8Scaling::current && t.precision != Precision::fp8)
    throw InputError(s.source, "training.fp8_scaling", "delayed",
                     "is a recipe of training.precision = fp8 (per-tensor scaling); this scenario's precision has "
                     "its own scaling");
  if (t.fp8_param_gather) {
    // Transformer Engine release_v2.8 casts master shards to per-tensor fp8 only (utils.py
    // cast_master_weights_to_fp8: delayed, current and block scaling; MXFP8 "not supported
    // yet"), and Megatron-LM calls it from the distributed optimizer (ZeRO 1 and 2 here).
    if (t.precision != Precision::fp8)
      throw InputError(s.source, "training.fp8_param_gather", "true",
                       "needs training.precision = fp8 (Transformer Engine casts master shards to per-tensor fp8 only)");
    if ((s.parallel.zero != 1 && s.parallel.zero != 2) || s.parallel.megatron_fsdp())
      throw InputError(s.source, "training.fp8_param_gather", "true",
                       "needs the distributed optimizer, parallel.zero = 1 or 2 without Megatron FSDP");
  }
  if (!t.first_last_layers_bf16) {
    // Megatron-LM reads the counts only with first_last_layers_bf16: a count set without it
    // would do nothing.
    if (t.layers_at_start_in_bf16 != 1)
      throw InputError(s.source, "training.num_layers_at_start_in_bf16", std::to_string(t.layers_at_start_in_bf16),
                       "takes effect only with training.first_last_layers_bf16 = true");
    if (t.layers_at_end_in_bf16 != 1)
      throw InputError(s.source, "training.num_layers_at_end_in_bf16", std::to_string(t.layers_at_end_in_bf16),
                       "takes effect only with training.first_last_layers_bf16 = true");
    return;
  }
  if (!is_quantized(t.precision))
    throw InputError(s.source, "training.first_last_layers_bf16", "true",
                     "keeps layers in bf16 under a quantized training.precision (fp8, mxfp8, nvfp4); this one is "
                     "already 16-bit or wider");
  // Megatron-LM TransformerConfig.__post_init__ @ d98e8a64: each count between 0 and the layers
  // of a pipeline stage.
  const int per_stage = s.model.layers / s.parallel.pp;
  const std::string rule = "must be at most the layers of a pipeline stage, model.layers / parallel.pp = " +
                           std::to_string(per_stage) + " (Megatron-LM's rule)";
  if (t.layers_at_start_in_bf16 > per_stage)
    throw InputError(s.source, "training.num_layers_at_start_in_bf16", std::to_string(t.layers_at_start_in_bf16),
                     rule);
  if (t.layers_at_end_in_bf16 > per_stage)
    throw InputError(s.source, "training.num_layers_at_end_in_bf16", std::to_string(t.layers_at_end_in_bf16), rule);
}

void derive_precision_recipe(Scenario& s) {
  // Blackwell (the GPUs with MX tensor cores: B200, GB200, B300, GB300) reads an fp8 operand in
  // any layout; Hopper needs the transposed copy (TrainingSpec::fp8_single_copy).
  s.training.fp8_single_copy = s.cluster.gpu.has_mxfp8();
}

}  // namespace trainsim
