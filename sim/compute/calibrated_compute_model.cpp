#include "sim/compute/calibrated_compute_model.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "sim/compute/cast_rate.hpp"
#include "sim/compute/row_gather.hpp"
#include "sim/core/error.hpp"
#include "sim/core/portable_math.hpp"

namespace trainsim {

namespace {

enum class Axes { mnk, mnk_batch, flops_bytes, bytes };

// The kernels the model uses and the coordinates their grids span.
const std::map<std::string, Axes>& used_kernels() {
  static const std::map<std::string, Axes> kernels = {
      {"gemm", Axes::mnk},
      {"gemm_dgrad", Axes::mnk},
      {"gemm_wgrad", Axes::mnk},
      {"batched_gemm", Axes::mnk_batch},
      {"grouped_gemm", Axes::mnk_batch},
      {"grouped_gemm_dgrad", Axes::mnk_batch},
      {"grouped_gemm_wgrad", Axes::mnk_batch},
      {"attention_fwd", Axes::flops_bytes},
      {"attention_bwd", Axes::flops_bytes},
      {"rmsnorm", Axes::bytes},
      {"layernorm", Axes::bytes},
      {"softmax", Axes::bytes},
      {"swiglu", Axes::bytes},
      {"gelu", Axes::bytes},
      {"rope", Axes::bytes},
      {"add", Axes::bytes},
      {"adam", Axes::bytes},
      {"copy_d2d", Axes::bytes},
  };
  return kernels;
}

std::vector<double> coords_of(const CalibrationRow& row, Axes axes) {
  switch (axes) {
    case Axes::mnk:
      return {row.m, row.n, row.k};
    case Axes::mnk_batch:
      return {row.m, row.n, row.k, row.batch};
    case Axes::flops_bytes:
      return {row.flops, row.bytes};
    case Axes::bytes:
      return {row.bytes};
  }
  return {};
}

std::string key_of(const std::string& kernel, const std::string& dtype) {
  return kernel + "/" + dtype;
}

std::vector<std::string> gemm_dtypes(Precision p) {
  switch (p) {
    case Precision::bf16:
      return {"bf16", "fp16"};
    case Precision::fp16:
      return {"fp16", "bf16"};
    case Precision::fp8:
      return {"fp8"};
    // MXFP8 GEMMs by their own rows where the table has them (the Blackwell tables: measured on
    // B200 by flashinfer#2464 and torchao, kernels/README.md); elsewhere fp8 rows stand in (the
    // datasheets give both one peak: a stated assumption).
    case Precision::mxfp8:
      return {"mxfp8", "fp8"};
    case Precision::nvfp4:
      return {"nvfp4"};
    case Precision::fp32:
      return {"tf32", "fp32"};
  }
  return {};
}

std::vector<std::string> other_dtypes(Precision p) {
  std::vector<std::string> d = gemm_dtypes(p);
  for (const char* extra : {"bf16", "fp16", "fp32", "u8"}) {
    bool present = false;
    for (const std::string& s : d) present = present || s == extra;
    if (!present) d.emplace_back(extra);
  }
  return d;
}

std::vector<std::string> attention_dtypes(Precision attention, Precision training) {
  if (is_quantized(attention)) return {"fp8"};
  return other_dtypes(is_quantized(training) ? Precision::bf16 : training);
}

bool contains_text(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

// The dtype whose rows fill a curve's gaps: bf16 and fp16 share their tensor-core and memory
// rates on every GPU trainsim models (NVIDIA datasheets), other dtypes have none.
std::string same_rate_dtype(const std::string& dtype) {
  if (dtype == "bf16") return "fp16";
  if (dtype == "fp16") return "bf16";
  return "";
}

// The kernel whose rows fill a backward GEMM layout's gaps: where the data- or weight-gradient
// GEMM was not timed at a shape, the forward GEMM of that shape stands in (a GEMM of the same
// m, n, k; what every table without layout rows uses for all three).
std::string forward_kernel_of(const std::string& kernel) {
  if (kernel == "gemm_dgrad" || kernel == "gemm_wgrad") return "gemm";
  if (kernel == "grouped_gemm_dgrad" || kernel == "grouped_gemm_wgrad") return "grouped_gemm";
  return "";
}

// Appends to `all` the samples of `more` (repeats included) at coordinates `all` has none at.
void fill_gaps(std::vector<CurveSample>& all, const std::vector<CurveSample>& more) {
  std::set<std::vector<double>> own;
  for (const CurveSample& s : all) own.insert(s.coords);
  for (const CurveSample& s : more) {
    if (!own.count(s.coords)) all.push_back(s);
  }
}

// Fused attention rows by head dim (the row's k): head dims of 128 and more form one curve, the
// kernel's own name, as every table had before head dim 64 was timed (SimuMax's B200 rows at MLA's
// 192 run at 0.83 to 1.02 x the 128 rows' rate at the same sequence and heads, b200.csv; cuDNN's
// full causal kernel at 64 at 0.7 forward and 0.84 backward, its GPT-OSS window rows at about
// half, kernels/calibration/converter/head_dim.py); each narrower
// head dim its own curve, "attention_fwd.d64".
constexpr int k_pooled_head_dim = 128;

std::string attention_class_kernel(const std::string& kernel, int head_dim) {
  if (head_dim <= 0 || head_dim >= k_pooled_head_dim) return kernel;
  return kernel + ".d" + std::to_string(head_dim);
}

bool is_attention_kernel(const std::string& kernel) {
  return kernel == "attention_fwd" || kernel == "attention_bwd";
}

// The table kernel that times a dense GEMM op: the backward layouts by their own rows (the
// input gradient dA = dC B^T, the weight gradient dB = A^T dC: other operand layouts, another
// kernel choice and, for the weight gradient, accumulation into the gradient buffer), the
// forward and recomputed products by 'gemm'.
const char* layout_kernel(const Op& op) {
  if (op.kind != OpKind::gemm || op.pass != OpPass::backward) return "gemm";
  return op.weight_gradient ? "gemm_wgrad" : "gemm_dgrad";
}

}  // namespace

CalibratedComputeModel::CalibratedComputeModel(CalibrationTable table, Precision precision, RooflineParameters fallback)
    : table_(std::move(table)), precision_(precision), fallback_(fallback) {
  std::map<std::string, std::vector<CurveSample>> samples;
  for (const CalibrationRow& row : table_.rows) {
    const auto used = used_kernels().find(row.kernel);
    if (used == used_kernels().end()) continue;
    if (used->second == Axes::mnk && row.batch != 1) {
      throw InputError(table_.file, "line " + std::to_string(row.line) + ", column 6 (batch)",
                       std::to_string(row.batch),
                       "'" + row.kernel + "' rows have batch 1; batched GEMMs are 'batched_gemm' rows");
    }
    std::string kernel = row.kernel;
    if (is_attention_kernel(kernel)) {
      const int head_dim = static_cast<int>(row.k);
      kernel = attention_class_kernel(kernel, head_dim);
      if (kernel != row.kernel) attention_head_dims_.insert(head_dim);
    }
    samples[key_of(kernel, row.dtype)].push_back(
        {coords_of(row, used->second), row.time_s, row.flops, row.bytes, row.line});
  }
  // A kernel's rows, then the same-rate dtype's at coordinates they lack.
  const auto with_sibling = [&samples](const std::string& kernel, const std::string& dtype) {
    std::vector<CurveSample> all;
    const auto own = samples.find(key_of(kernel, dtype));
    if (own != samples.end()) all = own->second;
    const std::string sibling = same_rate_dtype(dtype);
    const auto other = sibling.empty() ? samples.end() : samples.find(key_of(kernel, sibling));
    if (other != samples.end()) fill_gaps(all, other->second);
    return all;
  };
  for (const auto& [key, list] : samples) {
    const auto slash = key.find('/');
    const std::string kernel = key.substr(0, slash);
    const std::string dtype = key.substr(slash + 1);
    std::vector<CurveSample> all = with_sibling(kernel, dtype);
    if (const std::string forward = forward_kernel_of(kernel); !forward.empty()) {
      fill_gaps(all, with_sibling(forward, dtype));
    }
    curves_.emplace(key, KernelCurve(all, table_.file, key));
    fused_wgrad_accumulation_ = fused_wgrad_accumulation_ || kernel == "gemm_wgrad";
  }
}

int CalibratedComputeModel::attention_head_dim(int op_head_dim) const {
  if (op_head_dim <= 0 || op_head_dim >= k_pooled_head_dim) return k_pooled_head_dim;
  // The nearest measured head dim in ratio (|log(d / m)|), the wider one on a tie.
  int best = k_pooled_head_dim;
  double best_distance = std::abs(portable::log(static_cast<double>(op_head_dim) / best));
  for (const int measured : attention_head_dims_) {
    const double distance = std::abs(portable::log(static_cast<double>(op_head_dim) / measured));
    if (distance < best_distance || (distance == best_distance && measured > best)) {
      best = measured;
      best_distance = distance;
    }
  }
  return best;
}

bool CalibratedComputeModel::has_fp8_attention() const {
  return find("attention_fwd", {"fp8"}) != nullptr && find("attention_bwd", {"fp8"}) != nullptr;
}

const KernelCurve* CalibratedComputeModel::find(const std::string& kernel,
                                                const std::vector<std::string>& dtypes) const {
  for (const std::string& dtype : dtypes) {
    const auto it = curves_.find(key_of(kernel, dtype));
    if (it != curves_.end()) return &it->second;
  }
  return nullptr;
}

const KernelCurve* CalibratedComputeModel::memory_curve(const Op& op) const {
  std::vector<std::string> kernels;
  switch (op.kind) {
    case OpKind::norm:
      kernels = {"rmsnorm", "layernorm"};
      break;
    case OpKind::elementwise:
      if (contains_text(op.name, "softmax")) {
        kernels = {"softmax"};
      } else if (contains_text(op.name, "rope")) {
        kernels = {"rope", "add"};  // trainsim-calibrate measures no rope: another streaming kernel
      } else if (contains_text(op.name, "activation")) {
        kernels = {"swiglu", "gelu"};
      } else {
        kernels = {"add"};
      }
      break;
    case OpKind::loss:
      kernels = {"softmax"};
      break;
    case OpKind::optimizer:
      kernels = {"adam"};
      break;
    default:
      break;
  }
  kernels.emplace_back("copy_d2d");
  const std::vector<std::string> dtypes = other_dtypes(precision_);
  for (const std::string& kernel : kernels) {
    if (const KernelCurve* curve = find(kernel, dtypes)) return curve;
  }
  return nullptr;
}

double CalibratedComputeModel::gemm_time_s(const Op& op, bool& covered) const {
  const GemmShape& g = op.gemm;
  if (!(g.m > 0 && g.n > 0 && g.k > 0 && g.batch >= 1)) return fallback_.op_time_s(op);
  // Under fp8 (mxfp8, nvfp4) training each GEMM in its own format (Transformer Engine: the layers' linear
  // GEMMs in fp8, attention and the output layer in bf16); the training precision otherwise.
  const std::vector<std::string> dtypes = gemm_dtypes(is_quantized(precision_) ? op.precision : precision_);
  // Grouped expert GEMMs (batch = local experts, m = rows per expert) where the table
  // measured them as Transformer Engine's grouped GEMM runs them (SimuMax's B200 rows: the
  // forward, data-gradient and weight-gradient layouts, 75 calls back to back; kernels/README.md):
  // by rows per expert, n, k and groups, not as one batched kernel.
  if (g.batch > 1 && op.kind == OpKind::gemm) {
    const KernelCurve* grouped = find(std::string("grouped_") + layout_kernel(op), dtypes);
    if (grouped == nullptr) grouped = find("grouped_gemm", dtypes);  // a layout not timed: the forward's
    if (grouped != nullptr) {
      covered = true;
      return grouped->time_s({g.m, g.n, g.k, g.batch}, op.flops, op.bytes);
    }
  }
  if (g.batch > 1 || op.kind == OpKind::batched_gemm) {
    if (const KernelCurve* batched = find("batched_gemm", dtypes)) {
      covered = true;
      return batched->time_s({g.m, g.n, g.k, g.batch}, op.flops, op.bytes);
    }
  }
  // Unfused attention's per-head products are one strided-batched kernel whose k (the head
  // dimension) lies far below any Linear layer's: without batched rows, the datasheet
  // roofline times that kernel better than `batch` single GEMMs extrapolated from Linear
  // shapes (the A100's measured GEMMs start at k = 1024).
  if (op.kind == OpKind::batched_gemm) return fallback_.op_time_s(op);
  const KernelCurve* single = g.batch == 1 ? find(layout_kernel(op), dtypes) : nullptr;
  if (single == nullptr) single = find("gemm", dtypes);
  if (single != nullptr) {
    // Without batched rows: `batch` independent GEMMs back to back (grouped MoE experts).
    covered = true;
    return g.batch * single->time_s({g.m, g.n, g.k}, op.flops / g.batch, op.bytes / g.batch);
  }
  return fallback_.op_time_s(op);
}

double CalibratedComputeModel::time_s(const Op& op, bool& covered) const {
  covered = false;
  switch (op.kind) {
    case OpKind::gemm:
    case OpKind::batched_gemm:
      return gemm_time_s(op, covered);
    case OpKind::attention: {
      const char* kernel = op.pass == OpPass::backward ? "attention_bwd" : "attention_fwd";
      // Attention in its own format (Op::precision): fp8 (training.attention_precision) from the
      // table's fp8 rows only, whose rate is cuDNN's FP8 kernel's, not a bf16 row's; 16-bit
      // attention never from fp8 rows, whatever format the linear GEMMs train in.
      const std::vector<std::string> dtypes = attention_dtypes(op.precision, precision_);
      const KernelCurve* curve = find(attention_class_kernel(kernel, attention_head_dim(static_cast<int>(op.gemm.k))), dtypes);
      if (curve == nullptr) curve = find(kernel, dtypes);
      if (curve == nullptr || !(op.flops > 0)) return fallback_.op_time_s(op);
      if (!(op.bytes > 0)) return fallback_.op_time_s(op);
      covered = true;
      return curve->time_s({op.flops, op.bytes}, op.flops, op.bytes);
    }
    default: {
      // The accumulation of a dense weight gradient into its buffer (the workload's one
      // elementwise weight-gradient op; Op::gemm is its GEMM) is inside the table's gemm_wgrad
      // rows, timed accumulating into the buffer as Megatron-LM's
      // --gradient-accumulation-fusion runs it: no time of its own. Grouped expert GEMMs
      // (batch > 1) likewise where the table has grouped weight-gradient rows of the experts'
      // format (SimuMax's accumulate into an fp32 main_grad); elsewhere they keep theirs.
      if (op.kind == OpKind::elementwise && op.weight_gradient && op.gemm.m > 0 &&
          (op.gemm.batch == 1 ? fused_wgrad_accumulation_
                              : find("grouped_gemm_wgrad", gemm_dtypes(precision_)) != nullptr)) {
        covered = true;
        return 0;
      }
      const KernelCurve* curve = memory_curve(op);
      if (curve == nullptr || !(op.bytes > 0)) return fallback_.op_time_s(op);
      covered = true;
      // An op of several kernels (a cast's amax, scale and cast; a grouped cast's one per
      // expert; the router's unfused torch ops) runs each at its own size: the table's memory
      // rows time one kernel, floor included (measured: vidur's H100 adds take 2 us at 3 MB,
      // kernels/calibration/h100-sxm.csv; derived rows 3 us + bytes at 0.85 x HBM), so the op
      // pays `kernels` kernels of bytes / kernels each, not one kernel of all its bytes.
      const double k = std::max(1, op.kernels);
      const double kernel_bytes = op.bytes / k;
      const double streamed = k * curve->time_s({kernel_bytes}, op.flops / k, kernel_bytes);
      // Token permutation moves rows through a map, and a block-scaled cast writes its copies
      // and scales, slower than the streaming kernels the table's memory rows time
      // (sim/compute/row_gather.hpp, cast_rate.hpp).
      const double hbm_Bps = fallback_.parameters().hbm_bandwidth_Bps;
      return cast_time_s(op, row_gather_time_s(op, streamed, hbm_Bps), hbm_Bps);
    }
  }
}

double CalibratedComputeModel::op_time_s(const Op& op) const {
  bool covered = false;
  return time_s(op, covered);
}

bool CalibratedComputeModel::covers(const Op& op) const {
  bool covered = false;
  time_s(op, covered);
  return covered;
}

std::string CalibratedComputeModel::description() const {
  const auto gpu = table_.header.find("gpu");
  std::string kind;
  switch (table_.source_kind()) {
    case CalibrationSource::measured:
      kind = "measured";
      break;
    case CalibrationSource::converted:
      kind = "converted from public measurements";
      break;
    case CalibrationSource::derived:
      kind = "derived, not measured";
      break;
  }
  std::size_t grids = 0;
  for (const auto& [key, curve] : curves_) grids += curve.is_grid() ? 1 : 0;
  return "calibration table " + table_.file + " (" + kind + ", " + std::to_string(table_.measured_rows()) + " of " +
         std::to_string(table_.rows.size()) +
         " rows measured; gpu: " + (gpu == table_.header.end() ? std::string("?") : gpu->second) +
         "; source: " + table_.source() + "); " + std::to_string(curves_.size()) + " kernel curves (" +
         std::to_string(grids) + " grids, " + std::to_string(curves_.size() - grids) +
         " scattered), other ops by the datasheet roofline";
}

}  // namespace trainsim
