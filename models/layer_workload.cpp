#include "models/layer_workload.hpp"

#include <utility>

#include "models/cast_ops.hpp"
#include "models/cp_ring_attention.hpp"
#include "models/cuda_graphs.hpp"
#include "models/eager_passes.hpp"
#include "models/expert_capacity.hpp"
#include "models/model_state_memory.hpp"
#include "models/moe_dispatch.hpp"
#include "models/moe_framework_work.hpp"
#include "models/original_input_casts.hpp"

namespace trainsim {
namespace {

// Causal fused attention skips the blocks above the diagonal: about half the work
// (Dao 2023, FlashAttention-2 §3.1.1). Model FLOPs keep the full count (Megatron eq. 3).
constexpr double k_causal_fraction = 0.5;
// FlashAttention-2's backward runs five matrix products against the forward's two, and its
// benchmarks count 2.5x the forward FLOPs for it (Dao 2023, §4.1).
constexpr double k_flash_backward_factor = 2.5;

struct Dims {
  double tokens;     ///< T = b s / cp: tokens of the micro-batch on this rank
  double sp_tokens;  ///< tokens through norms and residuals (T / t with sequence parallelism)
  double samples;    ///< b
  double q_len;      ///< s / cp: queries per sample on this rank
  double keys;       ///< s: keys each query attends over
  double h, f, d, t;
  double qk_d, v_d;  ///< a head's query/key and value widths (head_dim, or MLA's)
  /// Keys a query attends over in model FLOPs (the window's, or s) and the fraction of them a
  /// causal kernel computes (0.5 for full attention; 1 - w / 2s for a window w).
  double window_keys, causal_fraction;
  double heads_local, kv_local;  ///< a / t, kv_heads / t
  double element;                ///< bytes per activation element
  double grad_element;           ///< bytes per accumulated weight-gradient element (training.grad_precision)
  /// Chunks of each TP-overlapped GEMM (by TpOverlapGemm; 1 without tp_comm_overlap).
  std::array<int, k_tp_overlap_gemms> overlap_splits;
  Precision linear;              ///< number format of the layers' linear GEMMs
  Precision other;               ///< of the router and output layer
  Precision attention;           ///< of fused attention (training.attention_precision)
  double attention_element;      ///< bytes of one Q, K, V or O element of fused attention
  TrainingSpec training;         ///< the casts' recipe (models/cast_ops.hpp)
};

Dims dims_of(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p, bool bf16_linears = false) {
  Dims d{};
  d.samples = tr.micro_batch;
  d.q_len = static_cast<double>(m.seq_len) / p.cp;
  d.tokens = d.samples * d.q_len;
  d.t = p.tp;
  d.sp_tokens = p.sequence_parallel ? d.tokens / d.t : d.tokens;
  d.keys = m.seq_len;
  d.h = m.hidden;
  d.f = m.ffn_hidden;
  d.d = m.head_dim();
  d.qk_d = m.qk_head_dim();
  d.v_d = m.value_head_dim();
  d.window_keys = d.keys;
  d.causal_fraction = k_causal_fraction;
  if (m.sliding_window > 0 && m.sliding_window < m.seq_len) {
    // A query at position i sees min(i, w) keys: sum over i of min(i, w) is about w s - w^2 / 2,
    // i.e. the band's w s keys times 1 - w / 2s (Beltagy et al. 2020, Longformer §3.1).
    d.window_keys = m.sliding_window;
    d.causal_fraction = 1.0 - static_cast<double>(m.sliding_window) / (2.0 * m.seq_len);
  }
  d.heads_local = static_cast<double>(m.heads) / p.tp;
  d.kv_local = static_cast<double>(m.kv_heads) / p.tp;
  d.element = activation_element_bytes(tr.precision);
  d.grad_element = gradient_element_bytes(tr);
  d.linear = bf16_linears && is_quantized(tr.precision) ? Precision::bf16 : tr.precision;
  d.training = tr;
  // Each GEMM beside its sequence-parallel collective runs in chunks (models/tp_overlap.hpp).
  d.overlap_splits = tp_overlap_chunks(p.tp_overlap, tr.precision, p.tp,
                                       p.tp_comm_overlap && p.sequence_parallel && p.tp > 1);
  // Transformer Engine runs only the transformer layers' Linear modules in fp8; attention
  // (DotProductAttention without fp8_dpa), the router and the output layer stay bf16
  // (Megatron-Core / NeMo FP8 recipes).
  d.other = is_quantized(tr.precision) ? Precision::bf16 : tr.precision;
  // With fp8_dot_product_attention cuDNN's FP8 attention reads and writes one byte an element.
  d.attention = tr.attention_precision == Precision::fp8 ? Precision::fp8 : d.other;
  d.attention_element = d.attention == Precision::fp8 ? 1.0 : d.element;
  return d;
}

// Bytes of one element of a GEMM operand in `p`: quantized inputs are one byte (fp8), with
// their block scales (mxfp8, nvfp4); quantized GEMMs write bf16 outputs (Transformer Engine).
double input_element(Precision p, double element) {
  return is_quantized(p) ? quantized_element_bytes(p) : element;
}

Op gemm(std::string name, double m, double n, double k, double batch, double element, Precision precision,
        OpKind kind = OpKind::gemm) {
  Op op;
  op.name = std::move(name);
  op.kind = kind;
  op.precision = precision;
  op.gemm = {m, n, k, batch};
  // A grouped GEMM (the routed experts, batch = local experts) launches one cuBLAS GEMM per
  // group: Transformer Engine's GroupedLinear runs general_grouped_gemm, which loops over the
  // GEMMs on 4 streams (TransformerEngine, transformer_engine/common/gemm/cublaslt_gemm.cu,
  // nvte_multi_stream_cublas_gemm). Strided-batched attention products are one kernel.
  op.kernels = kind == OpKind::gemm ? static_cast<int>(batch) : 1;
  op.flops = op.model_flops = op.causal_model_flops = 2.0 * m * n * k * batch;
  op.bytes = ((m * k + k * n) * input_element(precision, element) + m * n * element) * batch;
  return op;
}

Op memory_op(std::string name, OpKind kind, double bytes) {
  Op op;
  op.name = std::move(name);
  op.kind = kind;
  op.bytes = bytes;
  return op;
}

Op as_pass(Op op, OpPass pass) {
  op.pass = pass;
  return op;
}

Op split_into(Op op, int splits) {
  op.splits = splits;
  op.kernels *= splits;
  return op;
}

// A quantized GEMM's operands are cast by the kernels of models/cast_ops.hpp. Forward: the
// GEMM's input; backward: the gradient of its output. A tensor of hidden width is cast before
// the sequence-parallel all-gather, on this rank's T / t rows, and gathered quantized. (The
// weights are cast once per step: weight_quantize_op.) A grouped GEMM's operand is cast expert
// by expert (`groups` tensors: Transformer Engine's GroupedLinear quantizes each split).
double quantized_groups(const Op& gemm_op) {
  return gemm_op.kind == OpKind::gemm ? gemm_op.gemm.batch : 1.0;
}

// Bytes per element of what a backward pass reads and writes.
struct Elements {
  double activation = 2;
  double gradient = 4;  ///< the weight gradients' accumulation buffer
};

// dA = dC B^T (shape m x k over n) and, for a weight, dB = A^T dC (k x n over m). A weight's
// gradient is added to its accumulation buffer every micro-batch (PyTorch's AccumulateGrad,
// Megatron-LM's main_grad.add_): buffer read and written, new gradient read, 2 x grad_precision
// + 1 x activation bytes an element (counted unfused: --gradient-accumulation-fusion saves the read).
void add_gemm_backward(const Op& fwd, bool has_weight, Elements elements, int dgrad_splits,
                       const std::vector<Op>& casts, std::vector<Op>& backward) {
  const double element = elements.activation;
  const GemmShape& g = fwd.gemm;
  for (Op cast : casts) {
    cast.pass = OpPass::backward;
    backward.push_back(std::move(cast));
  }
  Op dgrad = split_into(gemm(fwd.name + ".dgrad", g.m, g.k, g.n, g.batch, element, fwd.precision, fwd.kind),
                        dgrad_splits);
  dgrad.pass = OpPass::backward;
  backward.push_back(dgrad);
  Op second = gemm(fwd.name + (has_weight ? ".wgrad" : ".dgrad2"), g.k, g.n, g.m, g.batch, element, fwd.precision,
                   fwd.kind);
  second.pass = OpPass::backward;
  second.weight_gradient = has_weight;
  backward.push_back(second);
  if (has_weight) {
    Op accumulate = memory_op(fwd.name + ".wgrad.accumulate", OpKind::elementwise,
                              (2.0 * elements.gradient + element) * g.k * g.n * g.batch);
    accumulate.pass = OpPass::backward;
    accumulate.weight_gradient = true;
    accumulate.gemm = second.gemm;  // the GEMM whose gradient it adds (a fused one takes it in: compute model)
    backward.push_back(accumulate);
  }
}

// Backward of a memory-bound op reading `in` and writing `out` bytes: it reads the saved
// input and the output gradient and writes the input gradient.
Op memory_backward(const Op& fwd, double in_bytes, double out_bytes) {
  Op op = memory_op(fwd.name + ".bwd", fwd.kind, 2.0 * in_bytes + out_bytes);
  op.pass = OpPass::backward;
  return op;
}

// A layer's forward in order, with for each op how to differentiate it.
struct ForwardStep {
  Op op;
  /// memory: reads its saved input and the output gradient, writes the input gradient;
  /// linear_memory: a linear map (rotary embedding, fp8 quantization of a GEMM input) whose
  /// gradient reads the output gradient and writes the input gradient only; quantize: the
  /// forward half of an fp8 GEMM's operand quantization (its backward half is the GEMM's).
  /// none: integer work with no gradient (the dispatcher's token counts).
  enum class Grad { weight_gemm, activation_gemm, memory, linear_memory, quantize, attention, none } grad;
  double in_bytes = 0;
  double out_bytes = 0;
  bool core_attention = false;  ///< recomputed by selective recompute
  int dgrad_splits = 1;         ///< chunks of the input-gradient GEMM (TP overlap)
  /// Quantized: the backward's casts before its GEMMs (the output gradient's, the weight's
  /// scale swizzle for the input-gradient GEMM).
  std::vector<Op> grad_casts{};
};

// How a linear layer runs: its GEMM in `splits` chunks forward and `dgrad_splits` for its
// input gradient (TP overlap); in fp8, the rows of its input and of its output gradient
// this rank quantizes (0: all of the GEMM's m).
struct LinearRun {
  int splits = 1;
  int dgrad_splits = 1;
  double input_rows = 0;
  double grad_rows = 0;
};

// A linear layer's GEMM; quantized, preceded by the cast of its input (with the swizzle of its
// weight's scales), its backward by backward_casts (models/cast_ops.hpp).
void add_weight_gemm(Op op, const Dims& d, std::vector<ForwardStep>& steps, const LinearRun& run = {}) {
  const GemmShape g = op.gemm;
  const bool quantized = is_quantized(op.precision);
  const double groups = quantized_groups(op), weight = g.k * g.n * g.batch;
  auto casts = [&](const std::string& name, double rows, double cols) {  // rows of all g.m after any gather
    return operand_casts(name, d.training, rows > 0 ? rows : g.m, g.m, cols * g.batch, groups, weight);
  };
  const auto in = quantized ? casts(op.name + ".quantize", run.input_rows, g.k) : std::nullopt;
  const auto grad = quantized ? casts(op.name + ".quantize.bwd", run.grad_rows, g.n) : std::nullopt;
  if (in) steps.push_back({in->cast, ForwardStep::Grad::quantize});
  ForwardStep step{split_into(std::move(op), run.splits), ForwardStep::Grad::weight_gemm};
  step.dgrad_splits = run.dgrad_splits;
  if (in) step.grad_casts = backward_casts(*in, *grad);
  steps.push_back(step);
}

// Megatron-LM's column-parallel linear (QKV, the MLP's first): its input has hidden width,
// sequence-parallel; its output gradient is this rank's column slice of all rows.
// `fprop`: the Transformer Engine GEMM its forward is (its input gradient's reduce-scatter
// is a bulk overlap, one chunk).
LinearRun column_parallel(const Dims& d, TpOverlapGemm fprop) {
  return {d.overlap_splits[static_cast<size_t>(fprop)], 1, d.sp_tokens, 0};
}

// Row-parallel linear (the output projection, the MLP's second): its input is this rank's
// slice; its output gradient has hidden width, sequence-parallel.
LinearRun row_parallel(const Dims& d, TpOverlapGemm fprop, TpOverlapGemm dgrad) {
  return {d.overlap_splits[static_cast<size_t>(fprop)], d.overlap_splits[static_cast<size_t>(dgrad)], 0, d.sp_tokens};
}

ForwardStep memory_step(std::string name, OpKind kind, double in_bytes, double out_bytes) {
  return {memory_op(std::move(name), kind, in_bytes + out_bytes), ForwardStep::Grad::memory, in_bytes, out_bytes};
}

void add_attention_core(const ModelSpec& m, const TrainingSpec& tr, const Dims& d, std::vector<ForwardStep>& steps) {
  const double batch = d.samples * d.heads_local;
  if (tr.attention == AttentionKernel::flash) {
    Op op;
    // A windowed layer runs the same kernel with a band mask; sink attention runs fused as well
    // (cuDNN >= 9.13.1 under Transformer Engine >= 2.8, SBHD: models/README.md, "Attention sinks").
    op.name = m.sliding_window > 0 ? "attention.window" : "attention";
    op.kind = OpKind::attention;
    op.precision = d.attention;
    // Its shape as the calibration tables write attention rows (kernels/README.md): queries,
    // keys a query reads (the window's, or s), the query/key head width, batch x query heads;
    // the compute model times it by the rows of the nearest measured head width.
    op.gemm = {d.q_len, d.window_keys, d.qk_d, batch};
    if (!m.is_mla() && m.explicit_head_dim == 0 && m.sliding_window == 0) {
      op.model_flops = 4.0 * d.tokens * d.keys * d.heads_local * d.d;  // QK^T and AV, 2 s h each per token
      op.flops = op.causal_model_flops = op.model_flops * k_causal_fraction;
      op.bytes = (2.0 * d.tokens * d.heads_local * d.d + 2.0 * d.tokens * d.kv_local * d.d) * d.attention_element;
    } else {
      // QK^T over qk_d and AV over v_d, per head and key (MLA: 192 and 128 for DeepSeek-V3).
      op.model_flops = 2.0 * d.tokens * d.window_keys * d.heads_local * (d.qk_d + d.v_d);
      op.flops = op.causal_model_flops = op.model_flops * d.causal_fraction;
      // Reads Q, K, V and writes O: MLA's K and V are per head after the up-projection.
      const double kv_heads = m.is_mla() ? d.heads_local : d.kv_local;
      op.bytes = d.tokens * (d.heads_local * (d.qk_d + d.v_d) + kv_heads * (d.qk_d + d.v_d)) * d.attention_element;
    }
    ForwardStep step{op, ForwardStep::Grad::attention, 0, 0, true};
    if (d.attention == Precision::fp8) {  // Q, K and V cast forward, the output's gradient backward
      const double qkv = op.bytes / d.attention_element - d.tokens * d.heads_local * d.v_d;
      ForwardStep cast{fp8_attention_cast_op("attention.quantize", qkv), ForwardStep::Grad::quantize};
      cast.core_attention = true;
      steps.push_back(std::move(cast));
      step.grad_casts.push_back(fp8_attention_cast_op("attention.quantize.bwd", d.tokens * d.heads_local * d.v_d));
    }
    steps.push_back(step);
    return;
  }
  // Unfused attention: scores, softmax (and dropout) over b a s^2 / t elements, then P V.
  const double scores = batch * d.q_len * d.keys * d.element;
  ForwardStep qk{gemm("attention.scores", d.q_len, d.keys, d.qk_d, batch, d.element, d.other, OpKind::batched_gemm),
                 ForwardStep::Grad::activation_gemm};
  qk.core_attention = true;
  steps.push_back(qk);
  ForwardStep softmax = memory_step("attention.softmax", OpKind::elementwise, scores, scores);
  softmax.core_attention = true;
  steps.push_back(softmax);
  if (m.dropout) {
    ForwardStep dropout = memory_step("attention.dropout", OpKind::elementwise, scores, scores + scores / d.element);
    dropout.core_attention = true;
    steps.push_back(dropout);
  }
  ForwardStep pv{gemm("attention.values", d.q_len, d.v_d, d.keys, batch, d.element, d.other, OpKind::batched_gemm),
                 ForwardStep::Grad::activation_gemm};
  pv.core_attention = true;
  steps.push_back(pv);
}

// A memory-bound linear map (a gather, scatter or permutation of rows) of `kernels` kernels:
// its gradient is the inverse map, reading the output gradient and writing the input's.
void add_linear_memory(std::vector<ForwardStep>& steps, std::string name, double in_bytes, double out_bytes,
                       int kernels, bool host_sync = false) {
  Op op = memory_op(std::move(name), OpKind::elementwise, in_bytes + out_bytes);
  op.kernels = kernels;
  op.host_sync = host_sync;
  steps.push_back({op, ForwardStep::Grad::linear_memory, in_bytes, out_bytes});
}

// The router's work beside its GEMM with moe_router_fusion (the NeMo recipes set it): the
// fused score function and top-k over the [tokens, experts] fp32 logits (reads the logits,
// writes the probabilities and the bool routing map), and the load-balancing loss on the same
// scores (Fedus et al. 2021, Switch Transformer eq. 4; calls: models/moe_kernel_counts.hpp).
void add_router_kernels(const ModelSpec& m, const Dims& d, std::vector<ForwardStep>& steps) {
  const double scores = d.sp_tokens * m.experts * 4.0;
  steps.push_back(memory_step("router.topk", OpKind::elementwise, scores, scores + scores / 4.0));
  steps.push_back(memory_step("router.aux_loss", OpKind::elementwise, scores + scores / 4.0, m.experts * 4.0));
}

// Token permutation (moe_permute_fusion): each token's top_k copies gathered into expert order
// (moe.permute), scattered back and summed by probability (moe.unpermute), each one's gradient
// the other's map. The dispatch is
// where Megatron-Core's dispatcher has copied the token counts to the host and waits for them
// (token_dispatcher.py, _maybe_dtoh_and_synchronize), forward only: the backward all-to-alls
// reuse the split sizes on the host. Static expert shapes (models/expert_capacity.hpp) have no
// such wait. Kernels and calls: models/moe_kernel_counts.hpp.
void add_token_permutation(double in_bytes, double out_bytes, bool dispatch, bool host_sync,
                           std::vector<ForwardStep>& steps) {
  add_linear_memory(steps, dispatch ? "moe.permute" : "moe.unpermute", in_bytes, out_bytes, dispatch ? 4 : 1,
                    dispatch && host_sync);
}

// A dense MLP of inner size f, named `name` ("mlp", "shared_experts").
void add_dense_mlp(const std::string& name, const ModelSpec& m, double f, const Dims& d,
                   std::vector<ForwardStep>& steps) {
  const double up_width = (m.activation == FfnActivation::swiglu ? 2.0 : 1.0) * f / d.t;
  add_weight_gemm(gemm(name + ".up", d.tokens, up_width, d.h, 1, d.element, d.linear), d, steps,
                  column_parallel(d, TpOverlapGemm::fc1_fprop));
  steps.push_back(memory_step(name + ".activation", OpKind::elementwise, d.tokens * up_width * d.element,
                              d.tokens * f / d.t * d.element));
  add_weight_gemm(gemm(name + ".down", d.tokens, d.h, f / d.t, 1, d.element, d.linear), d, steps,
                  row_parallel(d, TpOverlapGemm::fc2_fprop, TpOverlapGemm::fc2_dgrad));
}

void add_mlp(const ModelSpec& m, const ParallelSpec& p, const Dims& d, std::vector<ForwardStep>& steps) {
  if (!m.is_moe()) {
    add_dense_mlp("mlp", m, d.f, d, steps);
    return;
  }
  // Shared experts see every token: a dense MLP beside the routed ones (Dai et al. 2024,
  // DeepSeekMoE §3.2; DeepSeek-V3 §2.1.2), split over TP as one.
  if (m.shared_experts > 0) add_dense_mlp("shared_experts", m, static_cast<double>(m.shared_experts) * m.shared_ffn(), d, steps);
  const double expert_f = m.expert_ffn();
  const double etp = p.expert_tp_size();
  const double up_width = (m.activation == FfnActivation::swiglu ? 2.0 : 1.0) * expert_f / etp;
  // Mixture of experts: the router scores every token; each rank's E/ep experts receive, on
  // balance, the top_k copies of the tokens its ep group dispatches (Fedus et al. 2021, Switch
  // Transformer §2; Lepikhin et al. 2020, GShard), gathered over the expert_tp ranks that
  // split each expert's MLP as a dense one is split over TP. Every rank dispatches T / t
  // tokens (its sequence shard; all T without sequence parallelism, where expert_tp = tp), so
  // a rank runs T top_k expert_tp / t token-expert rows in all: T top_k with expert_tp = tp.
  steps.push_back({gemm("router", d.sp_tokens, m.experts, d.h, 1, d.element, d.other), ForwardStep::Grad::weight_gemm});
  add_router_kernels(m, d, steps);
  const double local_experts = static_cast<double>(m.experts) / p.ep;
  const double rows = d.tokens * m.top_k * etp / d.t;
  const double tokens_per_expert = rows / local_experts;
  // The bytes this rank dispatches (its sequence shard's top_k copies with SP; padded to every
  // expert's capacity under pad_to_capacity) and those its experts get (the rows above; the
  // step scales them by the rows' load, op_load in sim/step/stage_costs.hpp).
  const double dispatched_bytes = d.sp_tokens * m.top_k * d.h * d.element * padded_row_share(m, d.sp_tokens);
  const bool host_sync = !static_expert_shapes(m);
  const double received_bytes = rows * d.h * d.element;
  const bool alltoall = p.moe_dispatcher == MoeDispatcher::alltoall;
  // DeepEP and HybridEP (models/moe_dispatch.hpp): the kernel sends each token once per
  // destination rank, so the sender permutes nothing; the receiver's rows, one per (token,
  // source), are permuted into its local experts' order (the flex dispatcher's
  // dispatch_postprocess, Transformer Engine's moe_permute) once the host has the received
  // counts, and unpermuted with their probabilities before the combine.
  const double unique_bytes = received_bytes * dispatched_rows_per_token(m, p) / m.top_k;
  if (alltoall) {
    // The preprocess sums the counts from the bool routing map; dropless, moe.dtoh copies them out.
    const double counts = d.sp_tokens * m.experts + 16.0 * m.experts;
    steps.push_back({memory_op("moe.preprocess", OpKind::elementwise, counts), ForwardStep::Grad::none});
    if (host_sync) steps.push_back({memory_op("moe.dtoh", OpKind::elementwise, 32. * m.experts), ForwardStep::Grad::none});
    add_token_permutation(d.sp_tokens * d.h * d.element, dispatched_bytes, true, host_sync, steps);
  } else {
    add_token_permutation(unique_bytes, received_bytes, true, host_sync, steps);
  }
  // Permutation 2 (Megatron-Core's sort_chunks_by_idxs, fused): the received rows sorted by
  // local expert, and back after the experts; only with more than one local expert. Padded to
  // capacity, every source's chunk of every expert has the same rows: a transpose of fixed
  // shape copied contiguous, tokens and probabilities (token_dispatcher.py @ d98e8a64,
  // dispatch_preprocess), the same bytes without the index arithmetic.
  const bool padded = pads_to_capacity(m);
  if (alltoall && local_experts > 1)
    add_linear_memory(steps, padded ? "experts.reshape" : "experts.sort", received_bytes, received_bytes, 2);
  add_weight_gemm(gemm("experts.up", tokens_per_expert, up_width, d.h, local_experts, d.element, d.linear), d, steps);
  steps.push_back(memory_step("experts.activation", OpKind::elementwise, rows * up_width * d.element,
                              rows * expert_f / etp * d.element));
  add_weight_gemm(gemm("experts.down", tokens_per_expert, d.h, expert_f / etp, local_experts, d.element, d.linear),
                  d, steps);
  if (alltoall && local_experts > 1)
    add_linear_memory(steps, padded ? "experts.unreshape" : "experts.unsort", received_bytes, received_bytes,
                      padded ? 1 : 2);
  if (alltoall) {
    add_token_permutation(dispatched_bytes, d.sp_tokens * d.h * d.element, false, false, steps);
  } else {
    add_token_permutation(received_bytes, unique_bytes, false, false, steps);
  }
}

// MLA's projections (DeepSeek-V2 §2.1.2-2.1.3; Megatron-Core's MLASelfAttention): the
// down-projections to the query and key-value latents (and the shared rotary key) are not
// split over TP, every rank runs them on all its tokens; their RMSNorms; the up-projections
// split by heads as QKV is.
void add_mla_projections(const ModelSpec& m, const Dims& d, std::vector<ForwardStep>& steps) {
  const double q_width = d.heads_local * d.qk_d;
  if (m.q_lora_rank > 0) {
    add_weight_gemm(gemm("q.down", d.tokens, m.q_lora_rank, d.h, 1, d.element, d.linear), d, steps);
    const double latent = d.tokens * m.q_lora_rank * d.element;
    steps.push_back(memory_step("q.norm", OpKind::norm, latent, latent));
    add_weight_gemm(gemm("q.up", d.tokens, q_width, m.q_lora_rank, 1, d.element, d.linear), d, steps);
  } else {
    add_weight_gemm(gemm("q", d.tokens, q_width, d.h, 1, d.element, d.linear), d, steps,
                    column_parallel(d, TpOverlapGemm::qkv_fprop));
  }
  add_weight_gemm(gemm("kv.down", d.tokens, m.kv_lora_rank + m.qk_rope_head_dim, d.h, 1, d.element, d.linear), d, steps);
  const double latent = d.tokens * m.kv_lora_rank * d.element;
  steps.push_back(memory_step("kv.norm", OpKind::norm, latent, latent));
  add_weight_gemm(
      gemm("kv.up", d.tokens, d.heads_local * (m.qk_nope_head_dim + m.v_head_dim), m.kv_lora_rank, 1, d.element, d.linear),
      d, steps);
}

std::vector<ForwardStep> layer_forward(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p,
                                       const Dims& d) {
  std::vector<ForwardStep> steps;
  const double act = d.sp_tokens * d.h * d.element;  // one [T(/t), h] activation
  steps.push_back(memory_step(m.parallel_block ? "block.norm" : "attention.norm", OpKind::norm, act, act));
  if (m.is_mla()) {
    add_mla_projections(m, d, steps);
  } else {
    // Q: a/t heads, K and V: kv/t heads each, of head_dim d (GQA: Ainslie et al. 2023).
    add_weight_gemm(gemm("qkv", d.tokens, (d.heads_local + 2.0 * d.kv_local) * d.d, d.h, 1, d.element, d.linear),
                    d, steps, column_parallel(d, TpOverlapGemm::qkv_fprop));
    if (m.qk_norm) {
      // Qwen3: RMSNorm over each query and key head before the rotary embedding.
      const double qk = d.tokens * (d.heads_local + d.kv_local) * d.d * d.element;
      steps.push_back(memory_step("attention.qk_norm", OpKind::norm, qk, qk));
    }
  }
  if (m.is_mla()) {
    // The rotary parts only: each head's qk_rope_head_dim query slice and the one shared key.
    const double qk = d.tokens * (d.heads_local + 1.0) * m.qk_rope_head_dim * d.element;
    steps.push_back({memory_op("attention.rope", OpKind::elementwise, 2.0 * qk), ForwardStep::Grad::linear_memory,
                     qk, qk});
  } else if (m.position == PositionEmbedding::rope) {
    // Rotary embedding of Q and K (Su et al. 2021, RoFormer), one fused kernel reading and
    // writing both (Megatron-Core's apply_rope_fusion); its gradient is the inverse rotation.
    const double qk = d.tokens * (d.heads_local + d.kv_local) * d.d * d.element;
    steps.push_back({memory_op("attention.rope", OpKind::elementwise, 2.0 * qk), ForwardStep::Grad::linear_memory,
                     qk, qk});
  }
  add_attention_core(m, tr, d, steps);
  add_weight_gemm(gemm("attention.proj", d.tokens, d.h, d.heads_local * d.v_d, 1, d.element, d.linear), d, steps,
                  row_parallel(d, TpOverlapGemm::proj_fprop, TpOverlapGemm::proj_dgrad));
  if (m.parallel_block) {
    // GPT-J / PaLM §2: y = x + Attention(LN(x)) + MLP(LN(x)): the MLP reads the same normed
    // input, and one add sums the three.
    add_mlp(m, p, d, steps);
    steps.push_back(memory_step("block.residual", OpKind::elementwise, 3.0 * act, act));
    return steps;
  }
  steps.push_back(memory_step("attention.residual", OpKind::elementwise, 2.0 * act, act));
  steps.push_back(memory_step("mlp.norm", OpKind::norm, act, act));
  add_mlp(m, p, d, steps);
  steps.push_back(memory_step("mlp.residual", OpKind::elementwise, 2.0 * act, act));
  return steps;
}

void add_backward(const ForwardStep& s, Elements elements, std::vector<Op>& backward) {
  switch (s.grad) {
    case ForwardStep::Grad::weight_gemm:
      add_gemm_backward(s.op, true, elements, s.dgrad_splits, s.grad_casts, backward);
      return;
    case ForwardStep::Grad::activation_gemm:
      add_gemm_backward(s.op, false, elements, 1, s.grad_casts, backward);
      return;
    case ForwardStep::Grad::memory:
      backward.push_back(memory_backward(s.op, s.in_bytes, s.out_bytes));
      return;
    case ForwardStep::Grad::linear_memory:
      backward.push_back(as_pass(memory_op(s.op.name + ".bwd", s.op.kind, s.in_bytes + s.out_bytes), OpPass::backward));
      return;
    case ForwardStep::Grad::quantize:  // the output gradient's quantization belongs to the GEMM's backward
    case ForwardStep::Grad::none:
      return;
    case ForwardStep::Grad::attention: {
      for (Op cast : s.grad_casts) backward.push_back(as_pass(std::move(cast), OpPass::backward));
      Op op = s.op;
      op.name += ".bwd";
      op.pass = OpPass::backward;
      op.flops = s.op.flops * k_flash_backward_factor;
      op.model_flops = 2.0 * s.op.model_flops;  // Megatron eq. 3: backward = 2x forward
      op.causal_model_flops = 2.0 * s.op.causal_model_flops;
      op.bytes = 2.0 * s.op.bytes;
      backward.push_back(op);
      return;
    }
  }
}

// Unfused attention computes every score and masks half: its products' causal model FLOPs
// are half their model FLOPs, as fused attention's.
void halve_causal_attention(std::vector<Op>& ops) {
  for (Op& op : ops)
    if (op.kind == OpKind::batched_gemm && is_attention_core(op)) op.causal_model_flops = k_causal_fraction * op.model_flops;
}

PassOps assemble(const std::vector<ForwardStep>& steps, Recompute recompute, const Dims& d) {
  PassOps ops;
  for (const ForwardStep& s : steps) {
    ops.forward.push_back(s.op);
    const bool again = recompute == Recompute::full || (recompute == Recompute::selective && s.core_attention);
    if (again) ops.recompute.push_back(as_pass(s.op, OpPass::recompute));
  }
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) add_backward(*it, {d.element, d.grad_element}, ops.backward);
  for (std::vector<Op>* pass : {&ops.forward, &ops.recompute, &ops.backward}) halve_causal_attention(*pass);
  return ops;
}

}  // namespace

PassOps transformer_layer_ops(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p, bool bf16_linears) {
  const Dims d = dims_of(m, tr, p, bf16_linears);
  PassOps ops = with_eager_passes(assemble(layer_forward(m, tr, p, d), tr.recompute, d), m, tr, p);
  apply_cp_ring_attention(ops, m, tr, p);  // Transformer Engine's P2P pieces under ring CP
  if (m.is_moe()) apply_moe_framework_work(ops, m, tr, p);
  apply_original_input_casts(ops, tr);
  const GraphedLayer graphed{m.is_moe(), p.moe_dispatcher == MoeDispatcher::alltoall};
  for (std::vector<Op>* pass : {&ops.forward, &ops.backward, &ops.recompute})
    apply_cuda_graphs(*pass, tr.cuda_graphs, graphed);
  return ops;
}

PassOps embedding_ops(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p) {
  const Dims d = dims_of(m, tr, p);
  const double act = d.tokens * d.h * d.element;
  std::vector<ForwardStep> steps{memory_step("embedding", OpKind::embedding, act, act)};
  return assemble(steps, Recompute::none, d);
}

PassOps output_ops(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p) {
  const Dims d = dims_of(m, tr, p);
  const double act = d.sp_tokens * d.h * d.element;
  const double vocab_local = m.vocab / d.t;  // vocabulary-parallel output layer (Megatron-LM)
  std::vector<ForwardStep> steps;
  steps.push_back(memory_step("final.norm", OpKind::norm, act, act));
  steps.push_back({gemm("logits", d.tokens, vocab_local, d.h, 1, d.element, d.other), ForwardStep::Grad::weight_gemm});
  // Cross-entropy in fp32 over the local vocabulary slice.
  steps.push_back(memory_step("loss", OpKind::loss, d.tokens * vocab_local * d.element, d.tokens * vocab_local * 4.0));
  return assemble(steps, Recompute::none, d);
}

PassOps mtp_projection_ops(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p) {
  const Dims d = dims_of(m, tr, p);
  const double act = d.sp_tokens * d.h * d.element;
  std::vector<ForwardStep> steps;
  steps.push_back(memory_step("mtp.norms", OpKind::norm, 2.0 * act, 2.0 * act));
  add_weight_gemm(gemm("mtp.proj", d.tokens, d.h / d.t, 2.0 * d.h, 1, d.element, d.linear), d, steps,
                  column_parallel(d, TpOverlapGemm::qkv_fprop));
  return assemble(steps, Recompute::none, d);
}

Op optimizer_op(double parameters, const TrainingSpec& tr) {
  // Reads the optimizer states and the gradient, writes the states and the new weights.
  const StateBytesPerParameter per = state_bytes_per_parameter(tr);
  Op op = memory_op("optimizer", OpKind::optimizer, parameters * (2.0 * per.optimizer + per.gradients + per.weights));
  op.pass = OpPass::backward;
  return op;
}

}  // namespace trainsim
