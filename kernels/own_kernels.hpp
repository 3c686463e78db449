#pragma once
// trainsim's own CUDA kernels for the memory-bound parts of a transformer layer that no
// library in the CUDA Toolkit provides: RMSNorm / LayerNorm, softmax (causal for
// attention scores), GeLU, SwiGLU, residual add, the Adam update, and a fill. bf16 data,
// fp32 arithmetic. Each enqueues on `stream` and returns; errors surface at the next
// synchronisation (gpu_timer.hpp checks).
//
// Formulas: rotary embedding (Su et al. 2021, RoFormer), RMSNorm y = x / sqrt(mean(x^2) + eps) * w (Zhang & Sennrich 2019, eq. 4);
// LayerNorm (Ba et al. 2016); GeLU tanh approximation (Hendrycks & Gimpel 2016, §2);
// SwiGLU y = silu(a) * b (Shazeer 2020, eq. 5); Adam with bias correction (Kingma & Ba
// 2015, Algorithm 1), fp32 master weights and a bf16 copy written (mixed precision,
// Micikevicius et al. 2018).

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "gemm_plan.hpp"

namespace trainsim::kernels {

/// Fills `count` elements of `type` at `data` with deterministic values in [-scale, scale].
void fill(void* data, GemmType type, std::size_t count, unsigned seed, float scale, cudaStream_t stream);

/// y[r, :] = rmsnorm(x[r, :]) * w, rows x cols.
void rmsnorm_forward(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, long long rows, int cols,
                     cudaStream_t stream);
/// dx from x, w and dy (the weight gradient, a [cols] reduction over rows, is not computed).
void rmsnorm_backward(const __nv_bfloat16* x, const __nv_bfloat16* w, const __nv_bfloat16* dy, __nv_bfloat16* dx,
                      long long rows, int cols, cudaStream_t stream);
/// y = layernorm(x) * gamma + beta.
void layernorm_forward(const __nv_bfloat16* x, const __nv_bfloat16* gamma, const __nv_bfloat16* beta, __nv_bfloat16* y,
                       long long rows, int cols, cudaStream_t stream);
/// Row softmax. With causal_period > 0, row r may see columns <= r % causal_period (the
/// scores of causal attention, one [period x cols] matrix per head); the rest become 0.
void softmax_forward(const __nv_bfloat16* x, __nv_bfloat16* y, long long rows, int cols, int causal_period,
                     cudaStream_t stream);
/// dx = y * (dy - sum(y * dy)) per row.
void softmax_backward(const __nv_bfloat16* y, const __nv_bfloat16* dy, __nv_bfloat16* dx, long long rows, int cols,
                      cudaStream_t stream);
/// y = gelu(x), n elements.
void gelu_forward(const __nv_bfloat16* x, __nv_bfloat16* y, long long n, cudaStream_t stream);
/// x is [rows, 2 cols] = [a | b]; y[rows, cols] = silu(a) * b.
void swiglu_forward(const __nv_bfloat16* x, __nv_bfloat16* y, long long rows, int cols, cudaStream_t stream);
/// dx[rows, 2 cols] from x and dy[rows, cols].
void swiglu_backward(const __nv_bfloat16* x, const __nv_bfloat16* dy, __nv_bfloat16* dx, long long rows, int cols,
                     cudaStream_t stream);
/// Rotary embedding in place on the first `heads` heads of `dim` values of each of `rows`
/// rows `row_stride` values apart (Q and K at the start of a QKV row); `inverse`: the
/// opposite rotation (its gradient). Position = row index, base 10000.
void rope(__nv_bfloat16* x, long long rows, long long row_stride, int heads, int dim, bool inverse,
          cudaStream_t stream);
/// acc += g over n elements: a bf16 weight gradient into its fp32 accumulation buffer
/// (PyTorch's AccumulateGrad across micro-batches, Megatron-LM's main_grad).
void accumulate(float* acc, const __nv_bfloat16* g, long long n, cudaStream_t stream);
/// y = a + b, n elements.
void add(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* y, long long n, cudaStream_t stream);
/// One Adam step on n parameters: fp32 weights, gradients, first and second moments; also
/// writes the bf16 weights. lr 1e-4, betas (0.9, 0.95), eps 1e-8, step 10.
void adam_step(float* weights, const float* grads, float* m, float* v, __nv_bfloat16* weights_bf16, long long n,
               cudaStream_t stream);

}  // namespace trainsim::kernels
