#include "sim/profile/op_rules.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <tuple>

namespace trainsim::profile {

namespace {

using Shape = std::vector<std::int64_t>;

OpMapping none(std::string reason) {
  return {std::nullopt, std::move(reason)};
}

OpMapping row(std::string kernel, std::string dtype, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
              double flops, double bytes) {
  return {MappedOp{{std::move(kernel), std::move(dtype), m, n, k, batch}, flops, bytes}, ""};
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

double numel(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), 1.0, [](double a, std::int64_t d) { return a * static_cast<double>(d); });
}

// The element type as the profiler spells it (c10's ScalarType names, as
// c10::toString/typeMetaToScalarType print them), its table dtype ("" if none) and size.
struct Element {
  std::string dtype;  ///< table dtype: bf16, fp16, fp8, fp32; "" when the table has none
  double bytes = 0;   ///< 0 when unknown
};

Element element_of(const std::string& type) {
  static const std::map<std::string, Element> k_types = {{"float", {"fp32", 4}},
                                                         {"c10::BFloat16", {"bf16", 2}},
                                                         {"c10::Half", {"fp16", 2}},
                                                         {"c10::Float8_e4m3fn", {"fp8", 1}},
                                                         {"c10::Float8_e5m2", {"", 1}},
                                                         {"double", {"", 8}},
                                                         {"long int", {"", 8}},
                                                         {"long", {"", 8}},
                                                         {"int", {"", 4}},
                                                         {"short int", {"", 2}},
                                                         {"short", {"", 2}},
                                                         {"signed char", {"", 1}},
                                                         {"unsigned char", {"", 1}},
                                                         {"bool", {"", 1}}};
  const auto it = k_types.find(type);
  return it == k_types.end() ? Element{} : it->second;
}

std::string no_dtype(const std::string& type) {
  return "input type '" + type + "' has no table dtype (bf16, fp16, fp8, fp32/tf32)";
}

const OpInput* input(const TraceOp& op, std::size_t i) {
  return i < op.inputs.size() ? &op.inputs[i] : nullptr;
}

std::string shape_text(const Shape& s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

// ---- GEMMs -----------------------------------------------------------------------------

// kernels/README.md: bytes = (mk + kn) in + mn out per matrix; fp8 GEMMs write bf16.
double gemm_bytes(double m, double n, double k, double batch, const std::string& dtype) {
  const double in = dtype == "fp8" ? 1 : (dtype == "bf16" || dtype == "fp16") ? 2 : 4;
  const double out = dtype == "fp8" ? 2 : in;
  return ((m * k + k * n) * in + m * n * out) * batch;
}

bool on_tf32_tensor_cores(const std::vector<std::string>& kernels) {
  for (const std::string& k : kernels) {
    const std::string name = lower(k);
    if (name.find("tf32") != std::string::npos || name.find("tensorop") != std::string::npos) return true;
  }
  return false;
}

OpMapping gemm_row(const OpInput& a, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                   const std::vector<std::string>& kernels) {
  const Element e = element_of(a.type);
  if (e.dtype.empty()) return none(no_dtype(a.type));
  const std::string dtype = e.dtype == "fp32" ? (on_tf32_tensor_cores(kernels) ? "tf32" : "fp32") : e.dtype;
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return none("an empty GEMM");
  const auto [dm, dn, dk, db] =
      std::tuple{static_cast<double>(m), static_cast<double>(n), static_cast<double>(k), static_cast<double>(batch)};
  // A batch of one matrix is a plain GEMM (the table's gemm rows have batch 1).
  return row(batch == 1 ? "gemm" : "batched_gemm", dtype, m, n, k, batch, 2.0 * dm * dn * dk * db,
             gemm_bytes(dm, dn, dk, db, dtype));
}

std::string gemm_shapes_rule(const OpInput& a, const OpInput& b) {
  return "GEMM operand shapes " + shape_text(a.shape) + " x " + shape_text(b.shape) + " are not a matrix product";
}

// C[m,n] = A[m,k] B[k,n] (aten::mm, addmm's mat1 and mat2, _scaled_mm).
OpMapping matrix_product(const TraceOp& op, std::size_t ai, const std::vector<std::string>& kernels) {
  const OpInput* a = input(op, ai);
  const OpInput* b = input(op, ai + 1);
  if (!a || !b) return none("GEMM operands not recorded");
  if (a->shape.size() != 2 || b->shape.size() != 2 || a->shape[1] != b->shape[0]) return none(gemm_shapes_rule(*a, *b));
  return gemm_row(*a, a->shape[0], b->shape[1], a->shape[1], 1, kernels);
}

// C[b,m,n] = A[b,m,k] B[b,k,n] (aten::bmm, baddbmm's batch1 and batch2).
OpMapping batched_product(const TraceOp& op, std::size_t ai, const std::vector<std::string>& kernels) {
  const OpInput* a = input(op, ai);
  const OpInput* b = input(op, ai + 1);
  if (!a || !b) return none("GEMM operands not recorded");
  if (a->shape.size() != 3 || b->shape.size() != 3 || a->shape[0] != b->shape[0] || a->shape[2] != b->shape[1])
    return none(gemm_shapes_rule(*a, *b));
  return gemm_row(*a, a->shape[1], b->shape[2], a->shape[2], a->shape[0], kernels);
}

// aten::linear(input[..., k], weight[n, k], bias): every leading dim of the input is a row.
OpMapping linear(const TraceOp& op, const std::vector<std::string>& kernels) {
  const OpInput* x = input(op, 0);
  const OpInput* w = input(op, 1);
  if (!x || !w) return none("GEMM operands not recorded");
  if (x->shape.empty() || w->shape.size() != 2 || x->shape.back() != w->shape[1]) return none(gemm_shapes_rule(*x, *w));
  const Shape lead(x->shape.begin(), x->shape.end() - 1);
  return gemm_row(*x, static_cast<std::int64_t>(numel(lead)), w->shape[0], w->shape[1], 1, kernels);
}

// aten::matmul's cases (torch.matmul documentation): a 2-D right operand folds the left's
// leading dims into m; N-D operands broadcast their batch dims; vectors are left out.
OpMapping matmul(const TraceOp& op, const std::vector<std::string>& kernels) {
  const OpInput* a = input(op, 0);
  const OpInput* b = input(op, 1);
  if (!a || !b) return none("GEMM operands not recorded");
  const Shape& x = a->shape;
  const Shape& y = b->shape;
  if (x.size() < 2 || y.size() < 2) return none("a matrix-vector product (no table row)");
  if (x.back() != y[y.size() - 2]) return none(gemm_shapes_rule(*a, *b));
  if (y.size() == 2) {
    const Shape lead(x.begin(), x.end() - 1);
    return gemm_row(*a, static_cast<std::int64_t>(numel(lead)), y[1], x.back(), 1, kernels);
  }
  // Broadcast the batch dims, aligned from the right.
  const std::size_t xb = x.size() - 2, yb = y.size() - 2, nb = std::max(xb, yb);
  double batch = 1;
  for (std::size_t i = 0; i < nb; ++i) {
    const std::int64_t dx = i < nb - xb ? 1 : x[i - (nb - xb)];
    const std::int64_t dy = i < nb - yb ? 1 : y[i - (nb - yb)];
    if (dx != dy && dx != 1 && dy != 1) return none(gemm_shapes_rule(*a, *b));
    batch *= static_cast<double>(std::max(dx, dy));
  }
  return gemm_row(*a, x[x.size() - 2], y.back(), x.back(), static_cast<std::int64_t>(batch), kernels);
}

// ---- Fused attention -------------------------------------------------------------------

// Query [b, heads, s_q, d], key [b, kv_heads, s_k, d], value alike; is_causal from
// "Concrete Inputs". FLOPs as the workload counts them (models/layer_workload.cpp): 4 s_q
// s_k d per head forward, half that when causal (FlashAttention-2 §3.1.1), backward 2.5x
// the forward (FlashAttention-2 §4.1); bytes Q, K, V read and O written, twice backward.
OpMapping attention(const TraceOp& op, std::size_t q_index, std::size_t causal_index, bool backward) {
  const OpInput* q = input(op, q_index);
  const OpInput* k = input(op, q_index + 1);
  const OpInput* v = input(op, q_index + 2);
  if (!q || !k || !v || q->shape.size() != 4 || k->shape.size() != 4 || v->shape.size() != 4)
    return none("query, key and value shapes not recorded as [batch, heads, seq, head_dim]");
  const Element e = element_of(q->type);
  if (e.dtype.empty()) return none(no_dtype(q->type));
  const OpInput* causal = input(op, causal_index);
  const std::string flag = causal ? causal->value : "";
  if (flag != "True" && flag != "False" && flag != "1" && flag != "0")
    return none("is_causal not recorded (args.\"Concrete Inputs\", PyTorch >= 2.1)");
  const bool is_causal = flag == "True" || flag == "1";
  const std::int64_t bh = q->shape[0] * q->shape[1];
  const double forward = 4.0 * static_cast<double>(bh) * static_cast<double>(q->shape[2]) *
                         static_cast<double>(k->shape[2]) * static_cast<double>(q->shape[3]) * (is_causal ? 0.5 : 1.0);
  const double io = (2.0 * numel(q->shape) + numel(k->shape) + numel(v->shape)) * e.bytes;
  return row(backward ? "attention_bwd" : "attention_fwd", e.dtype, q->shape[2], k->shape[2], q->shape[3], bh,
             backward ? 2.5 * forward : forward, backward ? 2.0 * io : io);
}

// ---- Memory-bound ops ------------------------------------------------------------------

// rows x columns of a tensor: the last dim is the columns (or `cols` when given).
struct Rows {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  double elements() const { return static_cast<double>(rows) * static_cast<double>(cols); }
};

std::optional<Rows> rows_of(const Shape& s, std::int64_t cols = 0) {
  if (s.empty()) return std::nullopt;
  const double n = numel(s);
  const std::int64_t c = cols > 0 ? cols : s.back();
  if (c <= 0 || n <= 0) return std::nullopt;
  return Rows{static_cast<std::int64_t>(n / static_cast<double>(c)), c};
}

// A memory-bound row: `moved` activation-sized tensors of the input's dtype read or written
// per element (kernels/README.md: norms, softmax, gelu 2, add and swiglu 3), plus `weights`
// vectors of `cols`.
OpMapping memory_row(const std::string& kernel, const OpInput* x, std::int64_t cols, double moved, double weights) {
  if (!x || x->shape.empty()) return none("input shape not recorded");
  const Element e = element_of(x->type);
  if (e.dtype.empty()) return none(no_dtype(x->type));
  const auto r = rows_of(x->shape, cols);
  if (!r) return none("an empty tensor");
  return row(kernel, e.dtype, r->rows, r->cols, 0, 1, 0,
             (moved * r->elements() + weights * static_cast<double>(r->cols)) * e.bytes);
}

// Norms: columns are the normalised width (the weight's size, or the input's last dim);
// layernorm reads a weight and a bias, rmsnorm a weight (kernels/README.md).
OpMapping norm(const TraceOp& op, const std::string& kernel, std::size_t x, std::size_t w, bool backward) {
  const OpInput* weight = input(op, w);
  const std::int64_t cols = weight && !weight->shape.empty() ? static_cast<std::int64_t>(numel(weight->shape)) : 0;
  const double weights = kernel.rfind("layernorm", 0) == 0 ? 2 : 1;
  return memory_row(kernel, input(op, x), cols, backward ? 3 : 2, weights);
}

OpMapping add(const TraceOp& op) {
  const OpInput* a = input(op, 0);
  const OpInput* b = input(op, 1);
  if (!a || !b || a->shape.empty() || a->shape != b->shape || a->type != b->type)
    return none("an add with a scalar or broadcast operand (the table's add reads two whole tensors)");
  return memory_row("add", a, 0, 3, 0);
}

OpMapping copy(const TraceOp& op) {
  const OpInput* dst = input(op, 0);
  const OpInput* src = input(op, 1);
  if (!dst || !src || dst->shape.empty()) return none("copy shapes not recorded");
  if (dst->type != src->type) return none("a dtype conversion (copy_d2d rows copy bytes unchanged)");
  const Element e = element_of(dst->type);
  if (e.bytes == 0) return none("element type '" + dst->type + "' of unknown size");
  const double copied = numel(dst->shape) * e.bytes;
  return row("copy_d2d", "u8", static_cast<std::int64_t>(copied), 1, 0, 1, 0, 2.0 * copied);
}

// Fused Adam/AdamW over a tensor list of parameters (PyTorch >= 2.1 records the list's
// shapes). Bytes: fp32 weights, exp_avg and exp_avg_sq read and written, the gradient
// read, 28 per parameter (trainsim-calibrate's adam counts 30: it also writes a bf16 copy).
OpMapping adam(const TraceOp& op) {
  const OpInput* params = input(op, 0);
  if (!params || params->list.empty())
    return none("parameter shapes not recorded (a tensor list's dims need PyTorch >= 2.1)");
  double n = 0;
  for (const Shape& s : params->list) n += numel(s);
  if (n <= 0) return none("no parameters");
  return row("adam", "fp32", static_cast<std::int64_t>(n), 1, 0, 1, 0, 28.0 * n);
}

using Rule = std::function<OpMapping(const TraceOp&, const std::vector<std::string>&)>;

const std::map<std::string, Rule>& rules() {
  using K = const std::vector<std::string>&;
  static const std::map<std::string, Rule> k_rules = {
      {"aten::mm", [](const TraceOp& op, K k) { return matrix_product(op, 0, k); }},
      {"aten::addmm", [](const TraceOp& op, K k) { return matrix_product(op, 1, k); }},
      {"aten::_scaled_mm", [](const TraceOp& op, K k) { return matrix_product(op, 0, k); }},
      {"aten::bmm", [](const TraceOp& op, K k) { return batched_product(op, 0, k); }},
      {"aten::baddbmm", [](const TraceOp& op, K k) { return batched_product(op, 1, k); }},
      {"aten::linear", [](const TraceOp& op, K k) { return linear(op, k); }},
      {"aten::matmul", [](const TraceOp& op, K k) { return matmul(op, k); }},
      // (query, key, value, dropout_p, is_causal, ...)
      {"aten::_scaled_dot_product_flash_attention", [](const TraceOp& op, K) { return attention(op, 0, 4, false); }},
      // (query, key, value, attn_bias, compute_log_sumexp, dropout_p, is_causal, ...)
      {"aten::_scaled_dot_product_efficient_attention",
       [](const TraceOp& op, K) { return attention(op, 0, 6, false); }},
      // (grad_out, query, key, value, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k,
      //  dropout_p, is_causal, ...)
      {"aten::_scaled_dot_product_flash_attention_backward",
       [](const TraceOp& op, K) { return attention(op, 1, 11, true); }},
      // (grad_out_, query, key, value, attn_bias, out, logsumexp, philox_seed,
      //  philox_offset, dropout_p, grad_input_mask, is_causal, ...)
      {"aten::_scaled_dot_product_efficient_attention_backward",
       [](const TraceOp& op, K) { return attention(op, 1, 11, true); }},
      // (input, normalized_shape, weight, bias, eps[, cudnn_enable])
      {"aten::layer_norm", [](const TraceOp& op, K) { return norm(op, "layernorm", 0, 2, false); }},
      {"aten::native_layer_norm", [](const TraceOp& op, K) { return norm(op, "layernorm", 0, 2, false); }},
      // (grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
      {"aten::native_layer_norm_backward", [](const TraceOp& op, K) { return norm(op, "layernorm_bwd", 1, 5, true); }},
      // (input, normalized_shape, weight, eps), PyTorch >= 2.4
      {"aten::rms_norm", [](const TraceOp& op, K) { return norm(op, "rmsnorm", 0, 2, false); }},
      {"aten::softmax", [](const TraceOp& op, K) { return memory_row("softmax", input(op, 0), 0, 2, 0); }},
      {"aten::_softmax", [](const TraceOp& op, K) { return memory_row("softmax", input(op, 0), 0, 2, 0); }},
      // (grad_output, output, dim, input_dtype)
      {"aten::_softmax_backward_data",
       [](const TraceOp& op, K) { return memory_row("softmax_bwd", input(op, 0), 0, 3, 0); }},
      {"aten::gelu", [](const TraceOp& op, K) { return memory_row("gelu", input(op, 0), 0, 2, 0); }},
      {"aten::gelu_backward", [](const TraceOp& op, K) { return memory_row("gelu_bwd", input(op, 0), 0, 3, 0); }},
      {"aten::silu", [](const TraceOp& op, K) { return memory_row("silu", input(op, 0), 0, 2, 0); }},
      {"aten::silu_", [](const TraceOp& op, K) { return memory_row("silu", input(op, 0), 0, 2, 0); }},
      {"aten::silu_backward", [](const TraceOp& op, K) { return memory_row("silu_bwd", input(op, 0), 0, 3, 0); }},
      {"aten::add", [](const TraceOp& op, K) { return add(op); }},
      {"aten::add_", [](const TraceOp& op, K) { return add(op); }},
      {"aten::copy_", [](const TraceOp& op, K) { return copy(op); }},
      // (self[], grads[], exp_avgs[], exp_avg_sqs[], max_exp_avg_sqs[], state_steps[], ...)
      {"aten::_fused_adam_", [](const TraceOp& op, K) { return adam(op); }},
      {"aten::_fused_adamw_", [](const TraceOp& op, K) { return adam(op); }},
  };
  return k_rules;
}

}  // namespace

bool has_rule(const std::string& op_name) {
  return rules().contains(op_name);
}

OpMapping map_op(const TraceOp& op, const std::vector<std::string>& kernel_names) {
  const auto it = rules().find(op.name);
  if (it == rules().end()) return none("no rule for " + op.name);
  if (!op.has_shapes) return none("recorded without shapes (record_shapes=True)");
  return it->second(op, kernel_names);
}

OpMapping map_memcpy(const GpuActivity& copy) {
  if (copy.bytes <= 0) return none("a copy without args.bytes");
  const auto copied = static_cast<std::int64_t>(copy.bytes);
  if (copy.name.find("DtoD") != std::string::npos) return row("copy_d2d", "u8", copied, 1, 0, 1, 0, 2.0 * copy.bytes);
  // trainsim-calibrate times pinned host buffers; pageable ones are staged by the driver.
  if (copy.name.find("Pageable") != std::string::npos)
    return none("a pageable host copy (the table's host copies are pinned)");
  if (copy.name.find("HtoD") != std::string::npos) return row("memcpy_h2d", "u8", copied, 1, 0, 1, 0, copy.bytes);
  if (copy.name.find("DtoH") != std::string::npos) return row("memcpy_d2h", "u8", copied, 1, 0, 1, 0, copy.bytes);
  return none("a copy with no table row (" + copy.name + ")");
}

}  // namespace trainsim::profile
