#include "models/cp_ring_attention.hpp"

#include <string>
#include <utility>
#include <vector>

namespace trainsim {
namespace {

constexpr double k_lse_element = 4.0;  // softmax_lse is fp32 (flash and cuDNN kernels' output)

// The rank's shapes (models/layer_workload.cpp's Dims, for one layer).
struct RingDims {
  double cp;
  double q;        ///< s' = seq_len / cp: the rank's queries (and its own keys) per sample
  double batch;    ///< micro_batch x query heads on this TP rank
  double samples;  ///< micro_batch
  double heads, kv_heads, qk_d, v_d;
  double element;  ///< bytes of a Q, K, V or O element, as the replaced op reads them
};

// Q, K, V and O of a block of `queries` x `keys` per sample, read and written once.
double block_bytes(const RingDims& d, double queries, double keys) {
  const double per_sample = queries * d.heads * (d.qk_d + d.v_d) + keys * d.kv_heads * (d.qk_d + d.v_d);
  return d.samples * per_sample * d.element;
}

// One attention piece of `kernels` identical kernels of `queries` x `keys`, `causal` or not.
// Its model FLOPs are the replaced op's share by executed FLOPs (they sum to the replaced op's).
Op piece(const Op& whole, const RingDims& d, const std::string& name, double queries, double keys, bool causal,
         int kernels, bool beside) {
  Op op = whole;
  op.name = name;
  const double one = 2.0 * d.batch * queries * keys * (d.qk_d + d.v_d) * (causal ? 0.5 : 1.0);
  // The causal kernel's executed FLOPs the pieces share: diagonal s'^2 / 2 + (cp - 1) s'^2 / 2.
  const double whole_causal = 2.0 * d.batch * d.q * d.q * (d.qk_d + d.v_d) * 0.5 * d.cp;
  const double fraction = kernels * one / whole_causal;
  op.flops = whole.flops * fraction;  // backward keeps FlashAttention-2's 2.5x of the forward
  op.model_flops = whole.model_flops * fraction;
  op.causal_model_flops = whole.causal_model_flops * fraction;
  const double bytes = block_bytes(d, queries, keys) * (whole.pass == OpPass::backward ? 2.0 : 1.0);
  op.bytes = kernels * bytes;
  // Each kernel's row shape (ComputeModel::time_s times the `splits` kernels one by one).
  op.gemm = {kernels * queries, keys, d.qk_d, d.batch};
  op.kernels = op.calls = op.splits = kernels;
  op.beside_cp_exchange = beside;
  return op;
}

// `kernels` memory-bound kernels moving `bytes` in all (torch elementwise ops, one call each).
Op memory_piece(const Op& whole, const std::string& name, double bytes, int kernels, bool beside) {
  Op op;
  op.name = name;
  op.kind = OpKind::elementwise;
  op.pass = whole.pass;
  op.precision = whole.precision;
  op.bytes = bytes;
  op.kernels = op.calls = op.splits = kernels;
  op.beside_cp_exchange = beside;
  return op;
}

std::vector<Op> forward_pieces(const Op& whole, const RingDims& d) {
  const int cp = static_cast<int>(d.cp);
  const double kv = d.samples * d.q * d.kv_heads * (d.qk_d + d.v_d) * d.element;  // the rank's K and V
  const double out = d.samples * d.q * d.heads * d.v_d * d.element;
  const double lse = d.samples * d.heads * d.q * k_lse_element;
  std::vector<Op> ops;
  ops.push_back(memory_piece(whole, "attention.cp.kv_pack", 2.0 * kv, 1, false));
  ops.push_back(piece(whole, d, "attention.cp.diagonal", d.q, d.q, true, 1, true));
  if (cp > 2) ops.push_back(piece(whole, d, "attention.cp.lower", d.q, d.q / 2, false, cp - 2, true));
  ops.push_back(piece(whole, d, "attention.cp.lower.last", d.q, d.q / 2, false, 1, false));
  // Step 1's is a clone of step 0's statistics; each later one reads two and writes one.
  ops.push_back(memory_piece(whole, "attention.cp.lse_correction", lse * (2.0 + 3.0 * (cp - 1)), cp, false));
  // Step 0's output rescaled into the sum (read, write), each later one added (read two, write).
  ops.push_back(
      memory_piece(whole, "attention.cp.out_correction", 2.0 * out + 3.0 * out * (cp - 1) + 2.0 * lse * cp, cp, false));
  return ops;
}

std::vector<Op> backward_pieces(const Op& whole, const RingDims& d) {
  const int cp = static_cast<int>(d.cp);
  const double kv = d.samples * d.q * d.kv_heads * (d.qk_d + d.v_d) * d.element;
  const double dq = d.samples * d.q * d.heads * d.qk_d * d.element;
  std::vector<Op> ops;
  ops.push_back(memory_piece(whole, "attention.cp.kv_pack.bwd", 2.0 * kv, 1, false));
  ops.push_back(piece(whole, d, "attention.cp.lower.bwd", d.q, d.q / 2, false, cp - 1, true));
  ops.push_back(piece(whole, d, "attention.cp.diagonal.bwd", d.q, d.q, true, 1, true));
  // dQ: copied at step 0, accumulated after; issued before the wait for the receive.
  ops.push_back(memory_piece(whole, "attention.cp.dq_correction", 2.0 * dq + 3.0 * dq * (cp - 1), cp, true));
  // dK and dV of the lower blocks' first key half: copied at step 0, then accumulated into the
  // received running sums; the diagonal's whole blocks accumulated at the last step.
  const double dkv = kv / 2 * 2.0 + kv / 2 * 3.0 * (cp - 2) + kv * 3.0;
  ops.push_back(memory_piece(whole, "attention.cp.dkv_correction", dkv, 2 * cp, false));
  return ops;
}

bool is_fused_causal(const Op& op) {
  return op.kind == OpKind::attention && op.name.rfind("attention.window", 0) != 0;
}

}  // namespace

void apply_cp_ring_attention(PassOps& ops, const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p) {
  if (p.cp <= 1 || p.cp_algo != CpAlgo::ring) return;
  const bool pieces = tr.attention == AttentionKernel::flash && m.sliding_window == 0;
  RingDims d{};
  d.cp = p.cp;
  d.q = static_cast<double>(m.seq_len) / p.cp;
  d.samples = tr.micro_batch;
  d.heads = static_cast<double>(m.heads) / p.tp;
  d.kv_heads = (m.is_mla() ? static_cast<double>(m.heads) : static_cast<double>(m.kv_heads)) / p.tp;
  d.batch = d.samples * d.heads;
  d.qk_d = m.qk_head_dim();
  d.v_d = m.value_head_dim();
  d.element = 1.0;
  const double unit = block_bytes(d, d.q, d.q);  // the replaced op's elements (layer_workload.cpp)
  for (std::vector<Op>* pass : {&ops.forward, &ops.recompute, &ops.backward}) {
    std::vector<Op> out;
    for (const Op& op : *pass) {
      if (!pieces || !is_fused_causal(op) || !(op.flops > 0)) {
        out.push_back(op);
        out.back().beside_cp_exchange = out.back().beside_cp_exchange || is_attention_core(op);
        continue;
      }
      d.element = op.bytes / ((op.pass == OpPass::backward ? 2.0 : 1.0) * unit);  // fp8 attention: one byte
      for (Op& piece_op : op.pass == OpPass::backward ? backward_pieces(op, d) : forward_pieces(op, d))
        out.push_back(std::move(piece_op));
    }
    *pass = std::move(out);
  }
}

}  // namespace trainsim
