#include "sim/profile/trace_layer_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/training_spec.hpp"

namespace trainsim::profile {

namespace {

// What a workload op would be in a trace table, and how to recognise it.
struct Wanted {
  std::string kernel;               ///< empty: no single PyTorch op runs it
  std::vector<std::string> dtypes;  ///< acceptable, preferred first
  bool gemm = false;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;  ///< GEMMs
  double elements = 0;                          ///< memory-bound ops: rows x columns
  double flops = 0;                             ///< fused attention
  std::string why;                              ///< when `kernel` is empty
};

bool same(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

std::string dims(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
  std::string s = std::to_string(m) + "x" + std::to_string(n) + (k > 0 ? "x" + std::to_string(k) : "");
  return batch > 1 ? s + " x" + std::to_string(batch) : s;
}

std::vector<std::string> gemm_dtypes(Precision p) {
  switch (p) {
    case Precision::bf16:
      return {"bf16"};
    case Precision::fp16:
      return {"fp16"};
    case Precision::fp8:
      return {"fp8", "bf16"};  // fp8 recipes keep attention and some GEMMs in bf16
    case Precision::mxfp8:
      return {"mxfp8", "fp8", "bf16"};
    case Precision::nvfp4:
      return {"nvfp4", "bf16"};
    case Precision::fp32:
      return {"tf32", "fp32"};
  }
  return {};
}

std::vector<std::string> memory_dtypes(Precision p) {
  return {p == Precision::fp32 ? "fp32" : p == Precision::fp16 ? "fp16" : "bf16"};
}

bool contains(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

bool ends_with(const std::string& s, const char* tail) {
  return s.ends_with(tail);
}

Wanted wanted_row(const Op& op, const LayerTraceSpec& spec) {
  Wanted w;
  const bool backward = op.pass == OpPass::backward;
  const double element = activation_element_bytes(spec.precision);
  const auto memory = [&](const std::string& kernel, double per_element) {
    w.kernel = backward ? kernel + "_bwd" : kernel;
    w.dtypes = memory_dtypes(spec.precision);
    w.elements = op.bytes / (per_element * element);
  };
  switch (op.kind) {
    case OpKind::gemm:
    case OpKind::batched_gemm: {
      w.gemm = true;
      w.m = std::llround(op.gemm.m);
      w.n = std::llround(op.gemm.n);
      w.k = std::llround(op.gemm.k);
      w.batch = std::llround(op.gemm.batch);
      w.kernel = w.batch > 1 ? "batched_gemm" : "gemm";
      w.dtypes = gemm_dtypes(spec.precision);
      return w;
    }
    case OpKind::attention:
      w.kernel = backward ? "attention_bwd" : "attention_fwd";
      w.dtypes = memory_dtypes(spec.precision);
      w.flops = op.flops;
      return w;
    case OpKind::norm:
      memory(spec.norm == NormKind::layernorm ? "layernorm" : "rmsnorm", backward ? 3 : 2);
      return w;
    case OpKind::elementwise:
      if (contains(op.name, "softmax")) {
        memory("softmax", backward ? 3 : 2);
      } else if (contains(op.name, "activation")) {
        if (spec.activation == FfnActivation::gelu)
          memory("gelu", backward ? 3 : 2);
        else
          w.why = "silu and mul in PyTorch";  // SwiGLU is two PyTorch ops: no single row
      } else if (ends_with(op.name, "residual") && !backward) {
        memory("add", 3);
      } else {
        // A sum's gradient passes through to both inputs: PyTorch launches no kernel for it.
        w.why = backward && contains(op.name, "residual") ? "no kernel in PyTorch" : "no PyTorch op with a row";
      }
      return w;
    default:
      w.why = "no PyTorch op with a row";
      return w;
  }
}

std::string describe(const Wanted& w) {
  if (w.kernel.empty()) return "(" + w.why + ")";
  const std::string dtype = w.dtypes.empty() ? "" : " " + w.dtypes.front();
  if (w.gemm) return w.kernel + dtype + " " + dims(w.m, w.n, w.k, w.batch);
  if (w.flops > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %.4g GFLOP", w.flops / 1e9);
    return w.kernel + dtype + buf;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, " %.0f elements", w.elements);
  return w.kernel + dtype + buf;
}

int dtype_rank(const Wanted& w, const std::string& dtype) {
  for (std::size_t i = 0; i < w.dtypes.size(); ++i)
    if (w.dtypes[i] == dtype) return static_cast<int>(i);
  return -1;
}

// How well `r` matches: -1 for not at all; higher is better (exact orientation, preferred
// dtype, more calls).
double match_score(const Wanted& w, const ProfileRow& r) {
  const RowShape& s = r.op.shape;
  if (w.kernel.empty() || s.kernel != w.kernel) return -1;
  const int rank = dtype_rank(w, s.dtype);
  if (rank < 0) return -1;
  double score = 1e6 * static_cast<double>(static_cast<int>(w.dtypes.size()) - rank) + r.calls;
  if (w.gemm) {
    if (s.k != w.k || s.batch != w.batch) return -1;
    if (s.m == w.m && s.n == w.n) return score + 1e9;
    return s.m == w.n && s.n == w.m ? score : -1;
  }
  if (w.flops > 0) return same(r.op.flops, w.flops) ? score : -1;
  return same(static_cast<double>(s.m) * static_cast<double>(s.n), w.elements) ? score : -1;
}

}  // namespace

int TraceLayerCheck::found() const {
  int n = 0;
  for (const TraceLayerRow& r : rows) n += r.found ? 1 : 0;
  return n;
}

bool TraceLayerCheck::within(double tolerance) const {
  return found() > 0 && std::abs(matched.deviation()) <= tolerance;
}

TraceLayerCheck check_layer_against_trace(const PassOps& ops, const ComputeModel& model,
                                          const std::vector<ProfileRow>& rows, const LayerTraceSpec& spec) {
  TraceLayerCheck check;
  for (const std::vector<Op>* pass : {&ops.forward, &ops.backward})
    for (const Op& op : *pass) {
      TraceLayerRow row;
      row.op = op.name;
      row.pass = op.pass;
      row.time.predicted_s = model.time_s(op);  // as the step charges it (a split GEMM as its chunks)
      const Wanted w = wanted_row(op, spec);
      row.wanted = describe(w);
      double best = -1;
      for (const ProfileRow& r : rows) {
        const double score = match_score(w, r);
        if (score > best) {
          best = score;
          row.found = r;
        }
      }
      if (row.found) {
        row.time.measured_s = row.found->time_s;
        check.matched.predicted_s += row.time.predicted_s;
        check.matched.measured_s += row.time.measured_s;
      }
      check.rows.push_back(std::move(row));
    }
  return check;
}

std::string row_label(const RowShape& s) {
  return s.kernel + " " + s.dtype + " " + dims(s.m, s.n, s.k, s.batch);
}

}  // namespace trainsim::profile
