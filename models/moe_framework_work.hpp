#pragma once
// An MoE layer's framework work beside its math, set on its ops once they are built: the
// experts' quantization padding (models/expert_quantization_padding.hpp), the router's and
// dispatcher's Python-level calls and kernels (models/moe_kernel_counts.hpp) and the host's
// collective calls among them (models/moe_collective_calls.hpp), all on the code path the
// layer's settings take.

#include "models/layer_workload.hpp"
#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"
#include "models/training_spec.hpp"

namespace trainsim {

/// Applies the three above to `ops` (one MoE layer's passes, before CUDA graphs are applied).
void apply_moe_framework_work(PassOps& ops, const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p);

}  // namespace trainsim
