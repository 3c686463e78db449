#include "calibration_grid.hpp"

namespace trainsim::kernels {

CalibrationGrid full_grid() {
  CalibrationGrid g;
  g.gemm_dtypes = {"bf16", "fp16", "fp8", "tf32", "fp32"};
  g.gemm_axis = {512, 2048, 8192, 32768};
  g.batched_dtypes = {"bf16", "fp16", "fp8"};
  g.batched_m = {512, 2048, 8192};
  g.batched_nk = {128, 2048, 8192};
  g.batched_batch = {4, 32};
  g.attention_seq = {512, 1024, 2048, 4096, 8192, 16384};
  g.row_rows = {256, 1024, 4096, 16384, 65536};
  g.adam_params = {1 << 22, 1 << 24, 1 << 26, 1 << 28, 1 << 30};
  g.copy_bytes = {1 << 22, 1 << 24, 1 << 26, 1 << 28, 1 << 30, 4.0 * (1 << 30)};
  g.host_copy_bytes = {1 << 22, 1 << 24, 1 << 26, 1 << 28, 1 << 30};
  return g;
}

CalibrationGrid quick_grid() {
  CalibrationGrid g = full_grid();
  g.gemm_dtypes = {"bf16", "fp8"};
  g.gemm_axis = {512, 8192};
  g.batched_dtypes = {"bf16"};
  g.batched_m = {2048};
  g.batched_nk = {128, 2048};
  g.batched_batch = {32};
  g.attention_seq = {1024, 4096};
  g.row_rows = {1024, 16384};
  g.adam_params = {1 << 24, 1 << 28};
  g.copy_bytes = {1 << 24, 1 << 30};
  g.host_copy_bytes = {1 << 26};
  return g;
}

int row_count(const CalibrationGrid& g, bool has_fp8) {
  const auto count = [has_fp8](const std::vector<std::string>& dtypes) {
    int n = 0;
    for (const std::string& d : dtypes) n += (d != "fp8" || has_fp8) ? 1 : 0;
    return n;
  };
  const auto size = [](const auto& v) { return static_cast<int>(v.size()); };
  const int gemm = size(g.gemm_axis);
  int rows = count(g.gemm_dtypes) * gemm * gemm * gemm;
  rows += count(g.batched_dtypes) * size(g.batched_m) * size(g.batched_nk) * size(g.batched_nk) * size(g.batched_batch);
  rows += 2 * size(g.attention_seq);
  rows += 6 * size(g.row_rows);  // layernorm, rmsnorm, softmax, gelu, swiglu, add
  rows += size(g.adam_params) + size(g.copy_bytes) + 2 * size(g.host_copy_bytes);
  return rows;
}

}  // namespace trainsim::kernels
