#include "models/expert_quantization_padding.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "models/expert_capacity.hpp"

namespace trainsim {

namespace {

// Transformer Engine keeps the tokens between modules in bf16 under FP8 and FP4 training; the
// routing probabilities are fp32 (Megatron-Core's router).
constexpr double k_token_element_bytes = 2.0;
constexpr double k_probability_bytes = 4.0;

bool starts(const Op& op, std::string_view prefix) { return op.name.starts_with(prefix); }

Op copy_op(std::string name, OpPass pass, double bytes, int kernels) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::elementwise;
  op.pass = pass;
  op.bytes = bytes;
  op.kernels = kernels;
  op.calls = kernels;
  return op;
}

}  // namespace

int quantization_alignment(Precision precision) {
  if (!is_quantized(precision)) return 0;
  return precision == Precision::mxfp8 ? 32 : 16;
}

bool pads_expert_splits(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p, double rows_per_expert) {
  const int align = quantization_alignment(tr.precision);
  if (!m.is_moe() || align == 0 || p.moe_dispatcher != MoeDispatcher::alltoall) return false;
  if (!pads_to_capacity(m)) return true;
  return std::fmod(rows_per_expert, static_cast<double>(align)) != 0.0;
}

void add_expert_quantization_padding(PassOps& ops, const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p) {
  const auto up = std::find_if(ops.forward.begin(), ops.forward.end(),
                               [](const Op& op) { return op.name == "experts.up"; });
  if (up == ops.forward.end() || !pads_expert_splits(m, tr, p, up->gemm.m)) return;
  const double rows = up->gemm.m * up->gemm.batch;
  const double tokens_bytes = 2.0 * rows * up->gemm.k * k_token_element_bytes;  // read and written
  const double probs_bytes = 2.0 * rows * k_probability_bytes;
  // Forward and recomputed forward: padded before the first GEMM's input cast, unpadded after
  // the second GEMM.
  for (std::vector<Op>* pass : {&ops.forward, &ops.recompute}) {
    std::vector<Op>& f = *pass;
    const auto first = std::find_if(f.begin(), f.end(), [](const Op& op) { return starts(op, "experts.up"); });
    if (first == f.end()) continue;
    const OpPass kind = first->pass;
    f.insert(first, copy_op("experts.pad", kind, tokens_bytes + probs_bytes, 2));
    const auto last = std::find_if(f.rbegin(), f.rend(), [](const Op& op) { return starts(op, "experts.down"); });
    f.insert(last.base(), copy_op("experts.unpad", kind, tokens_bytes, 1));
  }
  // Backward: the output gradient padded before the second GEMM's backward, the tokens' and
  // probabilities' gradients unpadded after the first GEMM's.
  std::vector<Op>& b = ops.backward;
  const auto down = std::find_if(b.begin(), b.end(), [](const Op& op) { return starts(op, "experts.down"); });
  if (down == b.end()) return;
  b.insert(down, copy_op("experts.unpad.bwd", OpPass::backward, tokens_bytes, 1));
  const auto last_up = std::find_if(b.rbegin(), b.rend(), [](const Op& op) { return starts(op, "experts.up"); });
  b.insert(last_up.base(), copy_op("experts.pad.bwd", OpPass::backward, tokens_bytes + probs_bytes, 2));
}

}  // namespace trainsim
