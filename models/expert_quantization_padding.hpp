#pragma once
// The quantization padding of the experts' grouped GEMM inputs. Under FP8 or FP4 training
// Megatron-Core's TEGroupedMLP pads every local expert's rows to the quantized GEMM's
// alignment before its first GEMM and strips the padding from its output
// (megatron/core/transformer/moe/experts.py @ 0d8e0714, TEGroupedMLP.forward:
// quantization_padding of the tokens and of the routing probabilities, quantization_unpadding
// of the output; Transformer Engine v2.9 pytorch/module/fp8_padding.py and fp8_unpadding.py):
// each an autograd Function that allocates the output and runs one copy kernel
// (tex.fused_multi_row_padding / fused_multi_row_unpadding), its backward the inverse copy.
// The alignment is 32 rows under MXFP8 and 16 otherwise, and Fp8Padding returns its input
// untouched when every split is already aligned.
//
// So the dropless path pays it: its per-expert counts come from the routing (forced balance
// draws them at random), and a rank's local experts all landing on multiples of 16 is a
// 16^-experts chance. Padded to capacity every expert gets the same capacity x ep x tp rows,
// known on the host: padded only when that count is not a multiple of the alignment (the
// A3 pairs' 2,048 and 4,096 are; models/expert_capacity.hpp).
//
// Ops, in launch order: forward `experts.pad` (2 calls and kernels: tokens, probabilities)
// before the first GEMM's input cast, `experts.unpad` (1) after the second GEMM; backward
// `experts.unpad.bwd` (the output gradient padded, 1) before the second GEMM's backward,
// `experts.pad.bwd` (the tokens' and probabilities' gradients unpadded, 2) after the first
// GEMM's. Each copies the rows it moves once (read and write, bf16 tokens, fp32
// probabilities). The `alltoall` dispatcher only: the flex dispatcher's paths pad in their own
// ways (moe_router_padding_for_quantization), left as they were.

#include "models/layer_workload.hpp"
#include "models/model_spec.hpp"
#include "models/parallel_spec.hpp"
#include "models/training_spec.hpp"

namespace trainsim {

/// Rows each local expert's split is padded to a multiple of under `precision`: 32 for
/// mxfp8, 16 for the other quantized formats, 0 when the GEMMs are not quantized.
int quantization_alignment(Precision precision);

/// Whether TEGroupedMLP pads the experts' splits of an MoE layer of `m` (the rules above;
/// `rows_per_expert`: each local expert's rows when padded to capacity).
bool pads_expert_splits(const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p, double rows_per_expert);

/// Inserts the padding ops above into `ops` (one MoE layer's passes, before their kernel
/// counts and CUDA graphs are applied) where pads_expert_splits holds; the recomputed forward
/// pads again.
void add_expert_quantization_padding(PassOps& ops, const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p);

}  // namespace trainsim
