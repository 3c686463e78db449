#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "own_kernels.hpp"

namespace trainsim::kernels {

namespace {

constexpr int k_block = 256;

__device__ float hashed_unit(unsigned long long i, unsigned seed) {
  unsigned long long z = i * 0x9E3779B97F4A7C15ULL + seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) / static_cast<float>(1ULL << 24) * 2.0f - 1.0f;
}

template <typename T>
__device__ T from_float(float v);
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}
template <>
__device__ __half from_float<__half>(float v) {
  return __float2half(v);
}
template <>
__device__ __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float v) {
  return __nv_fp8_e4m3(v);
}
template <>
__device__ float from_float<float>(float v) {
  return v;
}

template <typename T>
__global__ void fill_kernel(T* data, unsigned long long count, unsigned seed, float scale) {
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    data[i] = from_float<T>(scale * hashed_unit(i, seed));
  }
}

int grid_for(long long n) {
  const long long blocks = (n + k_block - 1) / k_block;
  return static_cast<int>(std::min<long long>(std::max<long long>(blocks, 1), 65535LL * 16));
}

// Sum over the block; every thread gets the result. blockDim.x == k_block.
__device__ float block_sum(float v) {
  __shared__ float partial[k_block / 32];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  float total = 0;
  for (int w = 0; w < k_block / 32; ++w) total += partial[w];
  return total;
}

__device__ float block_max(float v) {
  __shared__ float partial[k_block / 32];
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  float total = -INFINITY;
  for (int w = 0; w < k_block / 32; ++w) total = fmaxf(total, partial[w]);
  return total;
}

__global__ void rmsnorm_forward_kernel(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int cols) {
  const long long row = blockIdx.x;
  const __nv_bfloat16* xr = x + row * cols;
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = __bfloat162float(xr[c]);
    sum += v * v;
  }
  const float r = rsqrtf(block_sum(sum) / cols + 1e-5f);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    y[row * cols + c] = __float2bfloat16(__bfloat162float(xr[c]) * r * __bfloat162float(w[c]));
  }
}

__global__ void rmsnorm_backward_kernel(const __nv_bfloat16* x, const __nv_bfloat16* w, const __nv_bfloat16* dy,
                                        __nv_bfloat16* dx, int cols) {
  const long long row = blockIdx.x;
  const long long base = row * cols;
  float squares = 0;
  float dot = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float xv = __bfloat162float(x[base + c]);
    squares += xv * xv;
    dot += __bfloat162float(dy[base + c]) * __bfloat162float(w[c]) * xv;
  }
  const float r = rsqrtf(block_sum(squares) / cols + 1e-5f);
  const float d = block_sum(dot);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float xv = __bfloat162float(x[base + c]);
    const float g = __bfloat162float(dy[base + c]) * __bfloat162float(w[c]);
    dx[base + c] = __float2bfloat16(r * g - xv * r * r * r * d / cols);
  }
}

__global__ void layernorm_forward_kernel(const __nv_bfloat16* x, const __nv_bfloat16* gamma, const __nv_bfloat16* beta,
                                         __nv_bfloat16* y, int cols) {
  const long long base = static_cast<long long>(blockIdx.x) * cols;
  float sum = 0;
  float squares = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = __bfloat162float(x[base + c]);
    sum += v;
    squares += v * v;
  }
  const float mean = block_sum(sum) / cols;
  const float var = fmaxf(block_sum(squares) / cols - mean * mean, 0.0f);
  const float r = rsqrtf(var + 1e-5f);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = (__bfloat162float(x[base + c]) - mean) * r;
    y[base + c] = __float2bfloat16(v * __bfloat162float(gamma[c]) + __bfloat162float(beta[c]));
  }
}

__global__ void softmax_forward_kernel(const __nv_bfloat16* x, __nv_bfloat16* y, int cols, int causal_period) {
  const long long base = static_cast<long long>(blockIdx.x) * cols;
  const int limit = causal_period > 0 ? static_cast<int>(blockIdx.x % causal_period) + 1 : cols;
  float top = -INFINITY;
  for (int c = threadIdx.x; c < limit; c += blockDim.x) top = fmaxf(top, __bfloat162float(x[base + c]));
  top = block_max(top);
  float sum = 0;
  for (int c = threadIdx.x; c < limit; c += blockDim.x) sum += __expf(__bfloat162float(x[base + c]) - top);
  const float inv = 1.0f / block_sum(sum);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float p = c < limit ? __expf(__bfloat162float(x[base + c]) - top) * inv : 0.0f;
    y[base + c] = __float2bfloat16(p);
  }
}

__global__ void softmax_backward_kernel(const __nv_bfloat16* y, const __nv_bfloat16* dy, __nv_bfloat16* dx, int cols) {
  const long long base = static_cast<long long>(blockIdx.x) * cols;
  float dot = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    dot += __bfloat162float(y[base + c]) * __bfloat162float(dy[base + c]);
  }
  dot = block_sum(dot);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float yv = __bfloat162float(y[base + c]);
    dx[base + c] = __float2bfloat16(yv * (__bfloat162float(dy[base + c]) - dot));
  }
}

__device__ float gelu(float v) {
  const float k = 0.7978845608f;  // sqrt(2 / pi)
  return 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v)));
}

__device__ float silu(float v) {
  return v / (1.0f + __expf(-v));
}

// Pairs of bf16 (4-byte accesses) for the streaming kernels; n is even in every caller.
__global__ void gelu_kernel(const __nv_bfloat162* x, __nv_bfloat162* y, long long pairs) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < pairs;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float2 v = __bfloat1622float2(x[i]);
    y[i] = __floats2bfloat162_rn(gelu(v.x), gelu(v.y));
  }
}

__global__ void add_kernel(const __nv_bfloat162* a, const __nv_bfloat162* b, __nv_bfloat162* y, long long pairs) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < pairs;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    y[i] = __hadd2(a[i], b[i]);
  }
}

__global__ void swiglu_forward_kernel(const __nv_bfloat162* x, __nv_bfloat162* y, long long rows, int half_pairs) {
  const long long total = rows * half_pairs;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long r = i / half_pairs;
    const long long c = i % half_pairs;
    const float2 a = __bfloat1622float2(x[r * 2 * half_pairs + c]);
    const float2 b = __bfloat1622float2(x[r * 2 * half_pairs + half_pairs + c]);
    y[i] = __floats2bfloat162_rn(silu(a.x) * b.x, silu(a.y) * b.y);
  }
}

__global__ void swiglu_backward_kernel(const __nv_bfloat162* x, const __nv_bfloat162* dy, __nv_bfloat162* dx,
                                       long long rows, int half_pairs) {
  const long long total = rows * half_pairs;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long r = i / half_pairs;
    const long long c = i % half_pairs;
    const long long ia = r * 2 * half_pairs + c;
    const long long ib = ia + half_pairs;
    const float2 a = __bfloat1622float2(x[ia]);
    const float2 b = __bfloat1622float2(x[ib]);
    const float2 g = __bfloat1622float2(dy[i]);
    const float sx = 1.0f / (1.0f + __expf(-a.x));
    const float sy = 1.0f / (1.0f + __expf(-a.y));
    // d silu(a) / da = s (1 + a (1 - s)), s = sigmoid(a).
    dx[ia] = __floats2bfloat162_rn(g.x * b.x * sx * (1 + a.x * (1 - sx)), g.y * b.y * sy * (1 + a.y * (1 - sy)));
    dx[ib] = __floats2bfloat162_rn(g.x * a.x * sx, g.y * a.y * sy);
  }
}

// Rotary embedding (Su et al. 2021, RoFormer, eq. 34) in the rotate-half layout of Llama:
// in each head of `dim` values, the pair (i, i + dim/2) of token `row` is rotated by
// row * base^(-2i/dim) (sign -1: the inverse rotation, the gradient). In place on the
// `heads` heads at the start of each row of `row_stride` values (Q and K of a QKV buffer).
__global__ void rope_kernel(__nv_bfloat16* x, long long rows, long long row_stride, int heads, int dim, float sign) {
  const int half = dim / 2;
  const long long total = rows * heads * half;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long row = i / (static_cast<long long>(heads) * half);
    const int rest = static_cast<int>(i % (static_cast<long long>(heads) * half));
    const int head = rest / half;
    const int j = rest % half;
    const float angle = sign * static_cast<float>(row) * __powf(10000.0f, -2.0f * j / dim);
    float s = 0, c = 0;
    __sincosf(angle, &s, &c);
    __nv_bfloat16* p = x + row * row_stride + static_cast<long long>(head) * dim;
    const float a = __bfloat162float(p[j]);
    const float b = __bfloat162float(p[j + half]);
    p[j] = __float2bfloat16(a * c - b * s);
    p[j + half] = __float2bfloat16(b * c + a * s);
  }
}

// acc += g: a weight gradient added to its fp32 accumulation buffer.
__global__ void accumulate_kernel(float* acc, const __nv_bfloat16* g, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    acc[i] += __bfloat162float(g[i]);
  }
}

__global__ void adam_kernel(float* w, const float* g, float* m, float* v, __nv_bfloat16* w16, long long n) {
  const float lr = 1e-4f, beta1 = 0.9f, beta2 = 0.95f, eps = 1e-8f;
  const float correction1 = 1.0f - 0.34867844f;  // 1 - 0.9^10
  const float correction2 = 1.0f - 0.59873694f;  // 1 - 0.95^10
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float gi = g[i];
    const float mi = beta1 * m[i] + (1 - beta1) * gi;
    const float vi = beta2 * v[i] + (1 - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    const float wi = w[i] - lr * (mi / correction1) / (sqrtf(vi / correction2) + eps);
    w[i] = wi;
    w16[i] = __float2bfloat16(wi);
  }
}

}  // namespace

void fill(void* data, GemmType type, std::size_t count, unsigned seed, float scale, cudaStream_t stream) {
  const int grid = grid_for(static_cast<long long>(count));
  const auto n = static_cast<unsigned long long>(count);
  switch (type) {
    case GemmType::bf16:
      fill_kernel<<<grid, k_block, 0, stream>>>(static_cast<__nv_bfloat16*>(data), n, seed, scale);
      break;
    case GemmType::fp16:
      fill_kernel<<<grid, k_block, 0, stream>>>(static_cast<__half*>(data), n, seed, scale);
      break;
    case GemmType::fp8:
      fill_kernel<<<grid, k_block, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(data), n, seed, scale);
      break;
    default:
      fill_kernel<<<grid, k_block, 0, stream>>>(static_cast<float*>(data), n, seed, scale);
  }
}

void accumulate(float* acc, const __nv_bfloat16* g, long long n, cudaStream_t stream) {
  accumulate_kernel<<<grid_for(n), k_block, 0, stream>>>(acc, g, n);
}

void rope(__nv_bfloat16* x, long long rows, long long row_stride, int heads, int dim, bool inverse,
          cudaStream_t stream) {
  rope_kernel<<<grid_for(rows * heads * (dim / 2)), k_block, 0, stream>>>(x, rows, row_stride, heads, dim,
                                                                          inverse ? -1.0f : 1.0f);
}

void rmsnorm_forward(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, long long rows, int cols,
                     cudaStream_t stream) {
  rmsnorm_forward_kernel<<<static_cast<unsigned>(rows), k_block, 0, stream>>>(x, w, y, cols);
}

void rmsnorm_backward(const __nv_bfloat16* x, const __nv_bfloat16* w, const __nv_bfloat16* dy, __nv_bfloat16* dx,
                      long long rows, int cols, cudaStream_t stream) {
  rmsnorm_backward_kernel<<<static_cast<unsigned>(rows), k_block, 0, stream>>>(x, w, dy, dx, cols);
}

void layernorm_forward(const __nv_bfloat16* x, const __nv_bfloat16* gamma, const __nv_bfloat16* beta, __nv_bfloat16* y,
                       long long rows, int cols, cudaStream_t stream) {
  layernorm_forward_kernel<<<static_cast<unsigned>(rows), k_block, 0, stream>>>(x, gamma, beta, y, cols);
}

void softmax_forward(const __nv_bfloat16* x, __nv_bfloat16* y, long long rows, int cols, int causal_period,
                     cudaStream_t stream) {
  softmax_forward_kernel<<<static_cast<unsigned>(rows), k_block, 0, stream>>>(x, y, cols, causal_period);
}

void softmax_backward(const __nv_bfloat16* y, const __nv_bfloat16* dy, __nv_bfloat16* dx, long long rows, int cols,
                      cudaStream_t stream) {
  softmax_backward_kernel<<<static_cast<unsigned>(rows), k_block, 0, stream>>>(y, dy, dx, cols);
}

void gelu_forward(const __nv_bfloat16* x, __nv_bfloat16* y, long long n, cudaStream_t stream) {
  gelu_kernel<<<grid_for(n / 2), k_block, 0, stream>>>(reinterpret_cast<const __nv_bfloat162*>(x),
                                                       reinterpret_cast<__nv_bfloat162*>(y), n / 2);
}

void swiglu_forward(const __nv_bfloat16* x, __nv_bfloat16* y, long long rows, int cols, cudaStream_t stream) {
  swiglu_forward_kernel<<<grid_for(rows * cols / 2), k_block, 0, stream>>>(
      reinterpret_cast<const __nv_bfloat162*>(x), reinterpret_cast<__nv_bfloat162*>(y), rows, cols / 2);
}

void swiglu_backward(const __nv_bfloat16* x, const __nv_bfloat16* dy, __nv_bfloat16* dx, long long rows, int cols,
                     cudaStream_t stream) {
  swiglu_backward_kernel<<<grid_for(rows * cols / 2), k_block, 0, stream>>>(
      reinterpret_cast<const __nv_bfloat162*>(x), reinterpret_cast<const __nv_bfloat162*>(dy),
      reinterpret_cast<__nv_bfloat162*>(dx), rows, cols / 2);
}

void add(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* y, long long n, cudaStream_t stream) {
  add_kernel<<<grid_for(n / 2), k_block, 0, stream>>>(reinterpret_cast<const __nv_bfloat162*>(a),
                                                      reinterpret_cast<const __nv_bfloat162*>(b),
                                                      reinterpret_cast<__nv_bfloat162*>(y), n / 2);
}

void adam_step(float* weights, const float* grads, float* m, float* v, __nv_bfloat16* weights_bf16, long long n,
               cudaStream_t stream) {
  adam_kernel<<<grid_for(n), k_block, 0, stream>>>(weights, grads, m, v, weights_bf16, n);
}

}  // namespace trainsim::kernels
