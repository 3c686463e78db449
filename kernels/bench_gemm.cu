#include <algorithm>

#include "benchmarks.hpp"
#include "gemm_plan.hpp"
#include "own_kernels.hpp"

namespace trainsim::kernels {

namespace {

struct Operands {
  DeviceBuffer a, b, d;
};

Operands allocate(const BenchContext& ctx, GemmType type, double max_a, double max_b, double max_d) {
  Operands o{DeviceBuffer(static_cast<std::size_t>(max_a) * input_bytes(type)),
             DeviceBuffer(static_cast<std::size_t>(max_b) * input_bytes(type)),
             DeviceBuffer(static_cast<std::size_t>(max_d) * output_bytes(type))};
  // Pseudo-random values, not zeros or constants: stated assumption that data with few
  // bit toggles draws less power and so holds higher clocks than training data does.
  fill(o.a.get(), type, static_cast<std::size_t>(max_a), 1, 1.0f, ctx.stream());
  fill(o.b.get(), type, static_cast<std::size_t>(max_b), 2, 1.0f, ctx.stream());
  check_cuda(cudaStreamSynchronize(ctx.stream()), "GEMM fill");
  return o;
}

MeasuredRow time_gemm(const BenchContext& ctx, GemmType type, const Operands& o, const char* kernel, double m, double n,
                      double k, double batch) {
  // Row (m tokens, n features, k): cuBLAS computes the column-major n x m output
  // D = W^T X with W stored k x n (op T) and X stored k x m.
  const GemmShape3 shape{static_cast<long long>(n),
                         static_cast<long long>(m),
                         static_cast<long long>(k),
                         static_cast<long long>(batch),
                         true,
                         false};
  const GemmPlan plan(ctx.lt(), type, shape, ctx.workspace_bytes());
  const double seconds = time_per_call_s(
      [&] { plan.run(o.a.get(), o.b.get(), o.d.get(), ctx.workspace(), ctx.stream()); }, ctx.stream(), ctx.policy());
  MeasuredRow row{kernel, gemm_type_name(type), m, n, k, batch, seconds, 2.0 * m * n * k * batch, 0};
  row.bytes =
      ((m * k + k * n) * static_cast<double>(input_bytes(type)) + m * n * static_cast<double>(output_bytes(type))) *
      batch;
  return row;
}

double max_of(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}

}  // namespace

std::vector<MeasuredRow> bench_gemm(const BenchContext& ctx, const CalibrationGrid& grid, const std::string& dtype) {
  const GemmType type = gemm_type(dtype);
  const double top = max_of(grid.gemm_axis);
  const Operands o = allocate(ctx, type, top * top, top * top, top * top);
  std::vector<MeasuredRow> rows;
  for (double m : grid.gemm_axis) {
    for (double n : grid.gemm_axis) {
      for (double k : grid.gemm_axis) rows.push_back(time_gemm(ctx, type, o, "gemm", m, n, k, 1));
    }
  }
  return rows;
}

std::vector<MeasuredRow> bench_batched_gemm(const BenchContext& ctx, const CalibrationGrid& grid,
                                            const std::string& dtype) {
  const GemmType type = gemm_type(dtype);
  const double m_top = max_of(grid.batched_m);
  const double nk_top = max_of(grid.batched_nk);
  const double b_top = max_of(grid.batched_batch);
  // A holds the k x n weights, B the k x m inputs, D the n x m outputs, `batch` of each.
  const Operands o = allocate(ctx, type, nk_top * nk_top * b_top, nk_top * m_top * b_top, m_top * nk_top * b_top);
  std::vector<MeasuredRow> rows;
  for (double m : grid.batched_m) {
    for (double n : grid.batched_nk) {
      for (double k : grid.batched_nk) {
        for (double b : grid.batched_batch) rows.push_back(time_gemm(ctx, type, o, "batched_gemm", m, n, k, b));
      }
    }
  }
  return rows;
}

}  // namespace trainsim::kernels
