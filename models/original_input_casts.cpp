#include "models/original_input_casts.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "models/cast_ops.hpp"

namespace trainsim {

namespace {

constexpr const char* k_projection = "attention.proj";
const std::string k_forward_cast = std::string(k_projection) + ".quantize";

}  // namespace

bool projection_saves_original_input(const TrainingSpec& training) {
  if (!is_quantized(training.precision)) return false;
  return !(training.precision == Precision::fp8 && training.fp8_scaling == Fp8Scaling::delayed);
}

void apply_original_input_casts(PassOps& ops, const TrainingSpec& training) {
  if (!projection_saves_original_input(training)) return;
  const auto gemm = std::find_if(ops.forward.begin(), ops.forward.end(),
                                 [](const Op& op) { return op.name == k_projection && op.kind == OpKind::gemm; });
  if (gemm == ops.forward.end() || !is_quantized(gemm->precision)) return;
  const GemmShape g = gemm->gemm;
  const double elements = g.m * g.k * g.batch;  // the projection's input on this rank: not gathered
  const double weight = g.k * g.n * g.batch;
  const Precision format = training.precision;
  // Forward (and recomputed forward): the row-wise copy alone, with the weight's scale swizzle
  // the forward GEMM runs as before. fp8 on a GPU reading one copy for both GEMMs already wrote one.
  const std::optional<Op> row_wise = cast_op(k_forward_cast, format, 1 * elements, 1, 1, weight);
  for (std::vector<Op>* pass : {&ops.forward, &ops.recompute})
    for (Op& op : *pass)
      if (op.name == k_forward_cast) {
        op.bytes = row_wise->bytes;
        op.kernels = row_wise->kernels;
      }
  // Backward: the saved 16-bit input cast column-wise for the weight-gradient GEMM (its scales
  // written in the GEMM's layout: no swizzle).
  std::vector<Op>& b = ops.backward;
  const auto wgrad = std::find_if(b.begin(), b.end(), [](const Op& op) {
    return op.name == std::string(k_projection) + ".wgrad";
  });
  if (wgrad == b.end()) return;
  Op column_wise = *cast_op(k_forward_cast + ".input", format, elements, 1);
  column_wise.pass = OpPass::backward;
  b.insert(wgrad, column_wise);
}

}  // namespace trainsim
