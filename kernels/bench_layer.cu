#include <cuda_bf16.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "benchmarks.hpp"
#include "gemm_plan.hpp"
#include "own_kernels.hpp"
#include "unfused_attention.hpp"

namespace trainsim::kernels {

namespace {

struct LayerOp {
  std::string name;
  double m = 0, n = 0, k = 0;  ///< cuBLAS column-major GEMM dimensions; rows x cols for the others
  double flops = 0;
  double bytes = 0;
  std::function<void()> launch;
};

// Row-major [rows, cols] bf16 buffer, filled.
DeviceBuffer tensor(const BenchContext& ctx, long long rows, long long cols, unsigned seed) {
  DeviceBuffer b(static_cast<std::size_t>(rows * cols) * 2);
  fill(b.get(), GemmType::bf16, static_cast<std::size_t>(rows * cols), seed, 0.5f, ctx.stream());
  return b;
}

}  // namespace

LayerShape parse_layer_shape(const std::string& spec) {
  LayerShape s;
  std::istringstream in(spec);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("--layer: '" + item + "' is not key=value");
    const std::string key = item.substr(0, eq);
    long long value = 0;
    try {
      std::size_t used = 0;
      value = std::stoll(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      throw std::invalid_argument("--layer: " + key + " = '" + item.substr(eq + 1) + "' is not an integer");
    }
    if (value <= 0) throw std::invalid_argument("--layer: " + key + " must be positive");
    if (key == "h")
      s.hidden = value;
    else if (key == "heads")
      s.heads = value;
    else if (key == "kv_heads")
      s.kv_heads = value;
    else if (key == "ffn")
      s.ffn = value;
    else if (key == "seq")
      s.seq = value;
    else if (key == "mb")
      s.micro_batch = value;
    else
      throw std::invalid_argument("--layer: unknown key '" + key + "' (h, heads, kv_heads, ffn, seq, mb)");
  }
  if (s.hidden % s.heads != 0) throw std::invalid_argument("--layer: h must be a multiple of heads");
  if (s.heads % s.kv_heads != 0) throw std::invalid_argument("--layer: heads must be a multiple of kv_heads");
  if (s.hidden % 2 != 0 || s.ffn % 2 != 0) throw std::invalid_argument("--layer: h and ffn must be even");
  return s;
}

std::string layer_spec(const LayerShape& s) {
  return "h=" + std::to_string(s.hidden) + ",heads=" + std::to_string(s.heads) +
         ",kv_heads=" + std::to_string(s.kv_heads) + ",ffn=" + std::to_string(s.ffn) +
         ",seq=" + std::to_string(s.seq) + ",mb=" + std::to_string(s.micro_batch);
}

std::vector<MeasuredRow> bench_layer(const BenchContext& ctx, const LayerShape& shape) {
  const cudaStream_t st = ctx.stream();
  const long long t = shape.micro_batch * shape.seq;  // tokens
  const long long h = shape.hidden;
  const long long d = h / shape.heads;
  const long long q_width = shape.heads * d;
  const long long qkv_width = (shape.heads + 2 * shape.kv_heads) * d;
  const long long f = shape.ffn;
  const int hi = static_cast<int>(h);

  // Activations and weights (PyTorch Linear: weight [out, in] row-major).
  const DeviceBuffer x = tensor(ctx, t, h, 21), xn = tensor(ctx, t, h, 22), qkv = tensor(ctx, t, qkv_width, 23),
                     attn = tensor(ctx, t, q_width, 24), proj = tensor(ctx, t, h, 25), r1 = tensor(ctx, t, h, 26),
                     xn2 = tensor(ctx, t, h, 27), up = tensor(ctx, t, 2 * f, 28), act = tensor(ctx, t, f, 29),
                     down = tensor(ctx, t, h, 30), out = tensor(ctx, t, h, 31);
  const DeviceBuffer w_qkv = tensor(ctx, qkv_width, h, 41), w_o = tensor(ctx, h, q_width, 42),
                     w_up = tensor(ctx, 2 * f, h, 43), w_down = tensor(ctx, h, f, 44), w_n1 = tensor(ctx, 1, h, 45),
                     w_n2 = tensor(ctx, 1, h, 46);
  const DeviceBuffer d_out = tensor(ctx, t, h, 51), d_act = tensor(ctx, t, f, 52), d_up = tensor(ctx, t, 2 * f, 53),
                     d_xn2 = tensor(ctx, t, h, 54), d_tmp = tensor(ctx, t, h, 55), d_r1 = tensor(ctx, t, h, 56),
                     d_attn = tensor(ctx, t, q_width, 57), d_qkv = tensor(ctx, t, qkv_width, 58),
                     d_xn = tensor(ctx, t, h, 59), d_x = tensor(ctx, t, h, 60);
  const DeviceBuffer dw_qkv = tensor(ctx, qkv_width, h, 61), dw_o = tensor(ctx, h, q_width, 62),
                     dw_up = tensor(ctx, 2 * f, h, 63), dw_down = tensor(ctx, h, f, 64);
  // fp32 accumulation buffers of the weight gradients (Megatron-LM's main_grad), as large as
  // the largest weight.
  DeviceBuffer main_grad(static_cast<std::size_t>(std::max(qkv_width, std::max(q_width, 2 * f)) * h) * 4);
  check_cuda(cudaMemsetAsync(main_grad.get(), 0, main_grad.bytes(), st), "main_grad");
  // GQA's K and V are expanded to every query head before the unfused products (as Hugging
  // Face's repeat_kv does); that layout copy is not timed.
  const UnfusedAttention attention(ctx, shape.micro_batch * shape.heads, shape.seq, d);
  check_cuda(cudaStreamSynchronize(st), "layer setup");

  std::vector<std::unique_ptr<GemmPlan>> plans;
  std::vector<LayerOp> forward, backward;
  const auto gemm = [&](std::vector<LayerOp>& pass, const std::string& name, long long m, long long n, long long k,
                        bool transb, const DeviceBuffer& a, const DeviceBuffer& b, const DeviceBuffer& c) {
    // Linear forward: TN (transa); dgrad: NN; wgrad: NT (transb).
    const bool transa = !transb && name.find(".dgrad") == std::string::npos;
    plans.push_back(std::make_unique<GemmPlan>(ctx.lt(), GemmType::bf16, GemmShape3{m, n, k, 1, transa, transb},
                                               ctx.workspace_bytes()));
    const GemmPlan* plan = plans.back().get();
    const double md = static_cast<double>(m), nd = static_cast<double>(n), kd = static_cast<double>(k);
    pass.push_back({name, md, nd, kd, 2 * md * nd * kd, 2 * (md * kd + kd * nd + md * nd),
                    [plan, &a, &b, &c, &ctx] { plan->run(a.get(), b.get(), c.get(), ctx.workspace(), ctx.stream()); }});
  };
  const auto bf = [](const DeviceBuffer& b) { return b.as<__nv_bfloat16>(); };
  // The weight gradient of `elements` values added to main_grad: fp32 read and written, bf16 read.
  const auto accumulate_op = [&](std::vector<LayerOp>& pass, const std::string& name, const DeviceBuffer& dw,
                                 long long elements) {
    pass.push_back({name, static_cast<double>(elements), 1, 0, 0, 10.0 * static_cast<double>(elements),
                    [&, elements] { accumulate(main_grad.as<float>(), bf(dw), elements, st); }});
  };
  const double th = static_cast<double>(t) * static_cast<double>(h);
  const double tf = static_cast<double>(t) * static_cast<double>(f);
  const double td = static_cast<double>(t);

  forward.push_back({"attention.norm", td, static_cast<double>(h), 0, 0, 4 * th,
                     [&] { rmsnorm_forward(bf(x), bf(w_n1), bf(xn), t, hi, st); }});
  gemm(forward, "qkv", qkv_width, t, h, false, w_qkv, xn, qkv);
  // Rotary embedding of Q and K in place (a fused kernel over both: Megatron-Core's
  // apply_rope_fusion); bytes: read and write both.
  const int qk_heads = static_cast<int>(shape.heads + shape.kv_heads);
  const double qk_values = td * static_cast<double>(qk_heads * d);
  forward.push_back({"attention.rope", td, static_cast<double>(qk_heads * d), 0, 0, 4 * qk_values,
                     [&] { rope(bf(qkv), t, qkv_width, qk_heads, static_cast<int>(d), false, st); }});
  forward.push_back({"attention", td, static_cast<double>(d), 0, attention.forward_flops(), attention.forward_bytes(),
                     [&] { attention.forward(ctx); }});
  gemm(forward, "attention.proj", h, t, q_width, false, w_o, attn, proj);
  forward.push_back({"attention.residual", td, static_cast<double>(h), 0, 0, 6 * th,
                     [&] { add(bf(x), bf(proj), bf(r1), t * h, st); }});
  forward.push_back({"mlp.norm", td, static_cast<double>(h), 0, 0, 4 * th,
                     [&] { rmsnorm_forward(bf(r1), bf(w_n2), bf(xn2), t, hi, st); }});
  gemm(forward, "mlp.up", 2 * f, t, h, false, w_up, xn2, up);
  forward.push_back({"mlp.activation", td, static_cast<double>(f), 0, 0, 6 * tf,
                     [&] { swiglu_forward(bf(up), bf(act), t, static_cast<int>(f), st); }});
  gemm(forward, "mlp.down", h, t, f, false, w_down, act, down);
  forward.push_back(
      {"mlp.residual", td, static_cast<double>(h), 0, 0, 6 * th, [&] { add(bf(r1), bf(down), bf(out), t * h, st); }});

  gemm(backward, "mlp.down.dgrad", f, t, h, false, w_down, d_out, d_act);
  gemm(backward, "mlp.down.wgrad", f, h, t, true, act, d_out, dw_down);
  accumulate_op(backward, "mlp.down.wgrad.accumulate", dw_down, h * f);
  backward.push_back({"mlp.activation.bwd", td, static_cast<double>(f), 0, 0, 10 * tf,
                      [&] { swiglu_backward(bf(up), bf(d_act), bf(d_up), t, static_cast<int>(f), st); }});
  gemm(backward, "mlp.up.dgrad", h, t, 2 * f, false, w_up, d_up, d_xn2);
  gemm(backward, "mlp.up.wgrad", h, 2 * f, t, true, xn2, d_up, dw_up);
  accumulate_op(backward, "mlp.up.wgrad.accumulate", dw_up, 2 * f * h);
  backward.push_back({"mlp.norm.bwd", td, static_cast<double>(h), 0, 0, 6 * th,
                      [&] { rmsnorm_backward(bf(r1), bf(w_n2), bf(d_xn2), bf(d_tmp), t, hi, st); }});
  backward.push_back({"mlp.residual.bwd", td, static_cast<double>(h), 0, 0, 6 * th,
                      [&] { add(bf(d_out), bf(d_tmp), bf(d_r1), t * h, st); }});
  gemm(backward, "attention.proj.dgrad", q_width, t, h, false, w_o, d_r1, d_attn);
  gemm(backward, "attention.proj.wgrad", q_width, h, t, true, attn, d_r1, dw_o);
  accumulate_op(backward, "attention.proj.wgrad.accumulate", dw_o, h * q_width);
  backward.push_back({"attention.bwd", td, static_cast<double>(d), 0, attention.backward_flops(),
                      attention.backward_bytes(), [&] { attention.backward(ctx); }});
  backward.push_back({"attention.rope.bwd", td, static_cast<double>(qk_heads * d), 0, 0, 4 * qk_values,
                      [&] { rope(bf(d_qkv), t, qkv_width, qk_heads, static_cast<int>(d), true, st); }});
  gemm(backward, "qkv.dgrad", h, t, qkv_width, false, w_qkv, d_qkv, d_xn);
  gemm(backward, "qkv.wgrad", h, qkv_width, t, true, xn, d_qkv, dw_qkv);
  accumulate_op(backward, "qkv.wgrad.accumulate", dw_qkv, qkv_width * h);
  backward.push_back({"attention.norm.bwd", td, static_cast<double>(h), 0, 0, 6 * th,
                      [&] { rmsnorm_backward(bf(x), bf(w_n1), bf(d_xn), bf(d_tmp), t, hi, st); }});
  backward.push_back({"attention.residual.bwd", td, static_cast<double>(h), 0, 0, 6 * th,
                      [&] { add(bf(d_r1), bf(d_tmp), bf(d_x), t * h, st); }});

  std::vector<MeasuredRow> rows;
  const double layer_batch = static_cast<double>(shape.micro_batch);
  for (const auto* pass : {&forward, &backward}) {
    double flops = 0, bytes = 0;
    for (const LayerOp& op : *pass) {
      rows.push_back({"layer." + op.name, "bf16", op.m, op.n, op.k, 1, time_per_call_s(op.launch, st, ctx.policy()),
                      op.flops, op.bytes});
      flops += op.flops;
      bytes += op.bytes;
    }
    const auto whole = [pass] {
      for (const LayerOp& op : *pass) op.launch();
    };
    rows.push_back({pass == &forward ? "layer_fwd" : "layer_bwd", "bf16", static_cast<double>(shape.seq),
                    static_cast<double>(h), static_cast<double>(f), layer_batch,
                    time_per_call_s(whole, st, ctx.policy()), flops, bytes});
  }
  return rows;
}

}  // namespace trainsim::kernels
