#pragma once
// How the model is trained: batch shape, number formats, optimizer, memory savers.

namespace trainsim {

enum class Precision { bf16, fp16, fp8, fp32 };
enum class Optimizer { adam, sgd };
enum class Recompute { none, selective, full };
enum class Offload { none, cpu };
/// flash: fused attention that stores no s x s score matrix (Dao et al., FlashAttention);
/// standard: the unfused attention that Korthikanti et al. account for (Table 2).
enum class AttentionKernel { flash, standard };

struct TrainingSpec {
  int micro_batch = 1;  ///< b: samples per micro-batch per pipeline
  int grad_accum = 1;   ///< a: micro-batches per optimizer step (= m, the pipeline's micro-batch count)
  Precision precision = Precision::bf16;
  Optimizer optimizer = Optimizer::adam;
  Recompute recompute = Recompute::none;
  Offload offload = Offload::none;
  AttentionKernel attention = AttentionKernel::flash;
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
};

}  // namespace trainsim
