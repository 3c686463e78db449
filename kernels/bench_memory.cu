#include <cuda_bf16.h>

#include <algorithm>

#include "benchmarks.hpp"
#include "own_kernels.hpp"
#include "pinned_buffer.hpp"

namespace trainsim::kernels {

namespace {
double max_of(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}
}  // namespace

std::vector<MeasuredRow> bench_memory_kernels(const BenchContext& ctx, const CalibrationGrid& grid) {
  const cudaStream_t st = ctx.stream();
  const auto cols = static_cast<long long>(grid.row_cols);
  const auto max_elements = static_cast<std::size_t>(max_of(grid.row_rows)) * 2 * static_cast<std::size_t>(cols);
  const DeviceBuffer x(max_elements * 2), y(max_elements * 2), z(max_elements * 2), w(2 * cols * 2);
  fill(x.get(), GemmType::bf16, max_elements, 3, 1.0f, st);
  fill(y.get(), GemmType::bf16, max_elements, 4, 1.0f, st);
  fill(w.get(), GemmType::bf16, 2 * cols, 5, 1.0f, st);
  const auto* xb = x.as<__nv_bfloat16>();
  auto* yb = y.as<__nv_bfloat16>();
  auto* zb = z.as<__nv_bfloat16>();
  const auto* wb = w.as<__nv_bfloat16>();
  const int c = static_cast<int>(cols);
  std::vector<MeasuredRow> rows;
  const auto time = [&](const char* kernel, double r, double bytes, const std::function<void()>& launch) {
    rows.push_back(
        {kernel, "bf16", r, static_cast<double>(cols), 0, 1, time_per_call_s(launch, st, ctx.policy()), 0, bytes});
  };
  // HBM bytes: every element read once and written once (what the kernel must move).
  for (double rd : grid.row_rows) {
    const auto r = static_cast<long long>(rd);
    const double rc = rd * static_cast<double>(cols);
    time("layernorm", rd, 4 * rc + 4.0 * cols, [&] { layernorm_forward(xb, wb, wb + cols, zb, r, c, st); });
    time("rmsnorm", rd, 4 * rc + 2.0 * cols, [&] { rmsnorm_forward(xb, wb, zb, r, c, st); });
    time("softmax", rd, 4 * rc, [&] { softmax_forward(xb, zb, r, c, 0, st); });
    time("gelu", rd, 4 * rc, [&] { gelu_forward(xb, zb, r * cols, st); });
    time("swiglu", rd, 6 * rc, [&] { swiglu_forward(xb, zb, r, c, st); });
    time("add", rd, 6 * rc, [&] { add(xb, yb, zb, r * cols, st); });
  }
  std::sort(rows.begin(), rows.end(), [](const MeasuredRow& a, const MeasuredRow& b) {
    return a.kernel != b.kernel ? a.kernel < b.kernel : a.m < b.m;
  });

  const auto max_params = static_cast<std::size_t>(max_of(grid.adam_params));
  const DeviceBuffer weights(max_params * 4), grads(max_params * 4), m(max_params * 4), v(max_params * 4),
      weights_bf16(max_params * 2);
  fill(weights.get(), GemmType::fp32, max_params, 6, 1.0f, st);
  fill(grads.get(), GemmType::fp32, max_params, 7, 1e-3f, st);
  fill(m.get(), GemmType::fp32, max_params, 8, 1e-3f, st);
  check_cuda(cudaMemsetAsync(v.get(), 0, max_params * 4, st), "memset");  // second moments start >= 0
  for (double p : grid.adam_params) {
    const auto n = static_cast<long long>(p);
    // fp32 weights, m, v read and written (24 B), fp32 gradient read (4 B), bf16 weight written (2 B).
    const double seconds = time_per_call_s(
        [&] {
          adam_step(weights.as<float>(), grads.as<float>(), m.as<float>(), v.as<float>(),
                    weights_bf16.as<__nv_bfloat16>(), n, st);
        },
        st, ctx.policy());
    rows.push_back({"adam", "fp32", p, 1, 0, 1, seconds, 0, 30.0 * p});
  }
  return rows;
}

std::vector<MeasuredRow> bench_copies(const BenchContext& ctx, const CalibrationGrid& grid) {
  const cudaStream_t st = ctx.stream();
  std::vector<MeasuredRow> rows;
  {
    const auto top = static_cast<std::size_t>(max_of(grid.copy_bytes));
    const DeviceBuffer from(top), to(top);
    check_cuda(cudaMemsetAsync(from.get(), 1, top, st), "memset");
    for (double size : grid.copy_bytes) {
      const auto bytes = static_cast<std::size_t>(size);
      const double seconds = time_per_call_s(
          [&] { check_cuda(cudaMemcpyAsync(to.get(), from.get(), bytes, cudaMemcpyDeviceToDevice, st), "copy"); }, st,
          ctx.policy());
      rows.push_back({"copy_d2d", "u8", size, 1, 0, 1, seconds, 0, 2 * size});  // read + write
    }
  }
  const auto top = static_cast<std::size_t>(max_of(grid.host_copy_bytes));
  const PinnedBuffer host(top);
  const DeviceBuffer device(top);
  for (const auto& [kernel, direction] : {std::pair<const char*, cudaMemcpyKind>{"memcpy_h2d", cudaMemcpyHostToDevice},
                                          {"memcpy_d2h", cudaMemcpyDeviceToHost}}) {
    for (double size : grid.host_copy_bytes) {
      const auto bytes = static_cast<std::size_t>(size);
      void* dst = direction == cudaMemcpyHostToDevice ? device.get() : host.get();
      const void* src = direction == cudaMemcpyHostToDevice ? host.get() : device.get();
      const cudaMemcpyKind kind = direction;
      const double seconds = time_per_call_s(
          [&] { check_cuda(cudaMemcpyAsync(dst, src, bytes, kind, st), "host copy"); }, st, ctx.policy());
      rows.push_back({kernel, "u8", size, 1, 0, 1, seconds, 0, size});
    }
  }
  return rows;
}

}  // namespace trainsim::kernels
