#pragma once
// How the model is trained: batch shape, number formats, optimizer, memory savers.

#include <optional>

#include "models/cuda_graphs.hpp"

namespace trainsim {

/// fp8: Transformer Engine's FP8 (per-tensor scaling, E4M3/E5M2); mxfp8: OCP microscaling FP8
/// (32-element blocks, one E8M0 scale each; OCP MX spec v1.0 §5), on Blackwell tensor cores;
/// nvfp4: NVIDIA's FP4 E2M1 with one E4M3 scale per 16 elements (NVIDIA, "Introducing NVFP4
/// for efficient and accurate low-precision inference", 2025), Blackwell. In the three the
/// layers' Linear GEMMs run in that format; the rest stays bf16.
enum class Precision { bf16, fp16, fp8, fp32, mxfp8, nvfp4 };

/// True if the layers' Linear GEMMs run in a quantized format (fp8, mxfp8, nvfp4).
inline bool is_quantized(Precision p) {
  return p == Precision::fp8 || p == Precision::mxfp8 || p == Precision::nvfp4;
}

/// Bytes of one element of a quantized GEMM operand, its block scales included: fp8 one
/// byte (a per-tensor scale); mxfp8 one byte + one per 32; nvfp4 half a byte + one per 16.
inline double quantized_element_bytes(Precision p) {
  switch (p) {
    case Precision::mxfp8:
      return 1.0 + 1.0 / 32;
    case Precision::nvfp4:
      return 0.5 + 1.0 / 16;
    default:
      return 1.0;
  }
}
/// How Transformer Engine scales an fp8 (per-tensor) operand (training.fp8_scaling; Megatron-LM's
/// --fp8-recipe tensorwise or delayed): current, current scaling (Float8CurrentScaling: each tensor's amax taken
/// just before its cast); delayed, DelayedScaling (the scale from an amax history kept across
/// steps). Only what tells them apart in the step is modelled: current scaling's amax
/// all-reduce over the TP group before a sequence-parallel operand's cast
/// (sim/step/fixed_costs.hpp).
enum class Fp8Scaling { current, delayed };
enum class Optimizer { adam, sgd };
enum class Recompute { none, selective, full };
enum class Offload { none, cpu };
/// flash: fused attention that stores no s x s score matrix (Dao et al., FlashAttention);
/// standard: the unfused attention that Korthikanti et al. account for (Table 2).
enum class AttentionKernel { flash, standard };
/// The number format gradients are accumulated and reduced in. automatic: as Megatron-LM
/// does, fp32 for bf16 (and fp8) training (arguments.py turns on
/// --accumulate-allreduce-grads-in-fp32 with --bf16), the training precision otherwise.
enum class GradPrecision { automatic, fp32, bf16, fp16 };

struct TrainingSpec {
  int micro_batch = 1;  ///< b: samples per micro-batch per pipeline
  int grad_accum = 1;   ///< a: micro-batches per optimizer step (= m, the pipeline's micro-batch count)
  /// Samples per optimizer step as the scenario gives them (training.global_batch), which the
  /// loader turns into grad_accum = global_batch / (micro_batch x dp); 0: not given, the batch
  /// is micro_batch x grad_accum x dp.
  long long global_batch = 0;
  Precision precision = Precision::bf16;
  Optimizer optimizer = Optimizer::adam;
  Recompute recompute = Recompute::none;
  /// With full recomputation: the layers of each model chunk that are recomputed, the first
  /// ones (Megatron-LM's recompute_method = block, recompute_num_layers); the others keep
  /// their activations. 0: every layer (recompute_method = uniform with one layer per unit).
  int recompute_layers = 0;
  Offload offload = Offload::none;
  /// Activation offloading (Megatron-Core's cpu_offloading_num_layers, Transformer Engine's
  /// CPU offload): the saved activations of the first this many layers of each pipeline
  /// stage (chunk by chunk) go to host memory during the forward and come back before their
  /// backward, over the GPU's host link (cluster.host_link_bandwidth). 0: none.
  int offload_activations = 0;
  /// The loss as Transformer Engine's fused cross entropy computes it (Megatron-Core's
  /// cross_entropy_fusion_impl = te, set by Megatron-Bridge's performance recipes): the
  /// forward writes the logits' gradient into the 16-bit logits in place, so no fp32 copy of
  /// them waits for the backward. false: Korthikanti et al.'s fp32 logits.
  bool fused_cross_entropy = false;
  /// Megatron-Core's bias_dropout_fusion (TransformerConfig; on in Megatron-LM's arguments,
  /// off in Megatron-Bridge's GPTOSSProvider @ 00b7660b): the bias a row-parallel projection
  /// returns (skip_bias_add), the dropout and the residual add in one compiled kernel. Off, with
  /// biases, the bias is its own eager add (models/eager_passes.hpp).
  bool bias_dropout_fusion = true;
  AttentionKernel attention = AttentionKernel::flash;
  /// The number format of fused attention (training.attention_precision): bf16, or fp8 for
  /// Megatron-LM's fp8_dot_product_attention (Transformer Engine's DotProductAttention with
  /// fp8_dpa: cuDNN's FP8 fused attention, Q, K, V and O one byte an element), timed from the
  /// calibration table's fp8 attention rows (sim/scenario/precision_recipe.hpp states the rules).
  Precision attention_precision = Precision::bf16;
  /// Megatron-LM's first_last_layers_bf16 (TransformerConfig @ d98e8a64; fp8_utils.py
  /// is_first_last_bf16_layer): under a quantized precision the first layers_at_start_in_bf16
  /// and the last layers_at_end_in_bf16 transformer layers of the model (global indices) run
  /// their linear GEMMs in bf16, uncast. Megatron-LM's defaults 1 and 1 (Megatron-Bridge's
  /// MixedPrecisionConfig defaults them to 0).
  bool first_last_layers_bf16 = false;
  Fp8Scaling fp8_scaling = Fp8Scaling::current;
  int layers_at_start_in_bf16 = 1;
  int layers_at_end_in_bf16 = 1;
  /// Whether an fp8 (per-tensor) GEMM operand is cast once for all its GEMMs: Blackwell's
  /// tensor cores take fp8 operands in any layout, Hopper's only K-major, so there Transformer
  /// Engine writes a transposed copy beside the row-wise one (TransformerEngine @ 8f2e6357,
  /// common/transformer_engine.cpp nvte_is_non_tn_fp8_gemm_supported: compute capability 10.x,
  /// 11.x, >= 13). Derived from cluster.gpu when the scenario is loaded (a GPU with MX tensor
  /// cores is a Blackwell), not a key.
  bool fp8_single_copy = false;
  /// Megatron-LM's --fp8-param-gather (MLPerf's FP8_PARAM_GATHER): the linear weights kept in
  /// fp8, all-gathered one byte a parameter by the distributed optimizer, each rank casting its
  /// master shard after the update (sim/step/fp8_param_gather.hpp).
  bool fp8_param_gather = false;
  /// The framework reads the step's loss on the host between the forward-backward and the
  /// optimizer step, as NeMo 2's MaskedTokenLossReduction does (training.loss_host_sync;
  /// sim/step/loss_host_sync.hpp): the GPU idles while the host dispatches up to the norm.
  bool loss_host_sync = false;
  GradPrecision grad_precision = GradPrecision::automatic;
  /// Per-GPU memory outside the allocator: CUDA context, cuBLAS workspace, NCCL buffers.
  double framework_bytes = 1.5 * 1024 * 1024 * 1024;
  /// Stated fragmentation margin of the caching allocator, as a fraction of allocated bytes.
  double fragmentation_fraction = 0.05;
  /// Data-parallel gradient bucket (PyTorch DDP's default bucket_cap_mb is 25).
  double dp_bucket_bytes = 25.0 * 1024 * 1024;
  /// Input pipeline: CPU time to load and prepare one sample (0 = free), seconds.
  double sample_load_time_s = 0;
  /// Input pipeline: micro-batches the data loader prepares ahead.
  int prefetch = 2;
  /// Compute slowdown while a gradient reduction runs on the same GPU: NCCL runs one thread
  /// block per channel, and its 8-16 channels take ~6-15 % of an A100's 108 or an H100's
  /// 132 SMs (a stated estimate until measured).
  double overlap_slowdown = 0.1;
  /// GPU idle time between two kernels queued back to back on a stream, paid once per kernel
  /// an op launches. Measured (trainsim calibrate --from-profile, sim/profile/launch_gaps.hpp):
  /// median 2 us over the 1,059 queued kernel pairs of one step of an A100 rank
  /// (../shared/data/profiles/trace-diff-control-step1011.json.gz beside the checkout:
  /// HolisticTraceAnalysis @ f4d0062, tests/data/trace_diff/control/control.json.gz trimmed to
  /// ProfilerStep#1011, MIT; timestamps of 1 us resolution), and 2 us over the 6,230 of the
  /// whole trace (../shared/data/profiles/hta-a100-control.json.gz).
  double kernel_gap_s = 2e-6;
  /// Host time the GPU waits for per layer and pass, and per micro-batch and model chunk
  /// pass (Python and framework work the CUDA launch queue does not hide: a stated
  /// assumption, 0 by default, since with kernels of milliseconds the host runs ahead of the
  /// GPU; small models or CUDA-graph-less tiny layers may need it).
  double layer_host_overhead_s = 0;
  double microbatch_host_overhead_s = 0;
  /// Host time the framework spends per op it dispatches (Python, operator dispatch, the
  /// op's first kernel launch), and per further kernel an op launches from its own C++ loop
  /// (a grouped GEMM's per-expert GEMMs, a TP-overlapped GEMM's chunks, an fp8 quantization's
  /// second kernel): a pass whose kernels are shorter on the GPU than their launches runs at
  /// the host's pace (sim/step/host_bound_pass.hpp). Unset: the cluster's host type's costs
  /// (topologies/host_cost.hpp: an A100 trace's 30 and 6 us on x86 hosts times the fitted
  /// host_stack_factor, 69 and 13.8 us, and 2.75 times that on Grace).
  std::optional<double> kernel_host_time_s;
  std::optional<double> kernel_launch_time_s;
  /// The framework stack's host time over the A100 trace's that the x86 figures come from,
  /// applied to the trace's per-op, per-launch, per-collective and per-AccumulateGrad costs
  /// before a stated kernel_host_time or kernel_launch_time replaces them. Unset: the factor
  /// fitted for Megatron-Core with Transformer Engine (topologies/host_cost.cpp).
  std::optional<double> host_stack_factor;
  /// The scopes CUDA graphs capture (models/cuda_graphs.hpp): one host dispatch per graph.
  CudaGraphs cuda_graphs;
};

/// Whether transformer layer `layer` (0-based, of `layers`) runs its linear GEMMs in bf16
/// under first_last_layers_bf16 (Megatron-LM fp8_utils.py is_first_last_bf16_layer).
inline bool is_bf16_layer(const TrainingSpec& tr, int layer, int layers) {
  if (!tr.first_last_layers_bf16 || !is_quantized(tr.precision)) return false;
  return layer < tr.layers_at_start_in_bf16 || layer >= layers - tr.layers_at_end_in_bf16;
}

/// Bytes of one activation element as the layers hand them on (training.precision): 4 in
/// fp32, else 2 (bf16 and fp16; fp8 GEMMs take bf16 activations and cast them themselves).
inline double activation_element_bytes(Precision precision) {
  return precision == Precision::fp32 ? 4.0 : 2.0;
}

/// Bytes of one gradient element (training.grad_precision).
inline double gradient_element_bytes(const TrainingSpec& tr) {
  switch (tr.grad_precision) {
    case GradPrecision::fp32:
      return 4.0;
    case GradPrecision::bf16:
    case GradPrecision::fp16:
      return 2.0;
    case GradPrecision::automatic:
      break;
  }
  return tr.precision == Precision::bf16 || tr.precision == Precision::fp8 || tr.precision == Precision::fp32 ? 4.0
                                                                                                              : 2.0;
}

/// Layers of a model chunk of `chunk_layers` layers whose forward runs again before backward:
/// every layer for selective recomputation (its attention core) and for full recomputation
/// of all layers; at most recompute_layers with full recomputation of some; none without.
inline int recomputed_layers(const TrainingSpec& tr, int chunk_layers) {
  if (tr.recompute == Recompute::none) return 0;
  if (tr.recompute == Recompute::full && tr.recompute_layers > 0)
    return tr.recompute_layers < chunk_layers ? tr.recompute_layers : chunk_layers;
  return chunk_layers;
}

}  // namespace trainsim
