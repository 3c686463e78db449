#include "models/eager_passes.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace trainsim {

EagerPassCount unfused_rope_pass() {
  return {2.0 + 1.0 + 2.0 + 2.0 + 3.0 + 2.0, 2.0 + 2.0 + 1.0 + 2.0 + 3.0 + 3.0, 6 + 6, 7};
}

EagerPassCount activation_clamp_pass() {
  return {1.0 + 1.0 + 2.0, 2.0 + 3.5 + 2.0, 3, 7};
}

EagerPassCount unfused_bias_pass() {
  return {2.0, 0.0, 1, 0};
}

EagerPassCount expert_bias_pass(int local_experts) {
  return {1.0 + 3.0 + 2.0, 3.0 + 3.0, 2 * local_experts + 1, 4 * local_experts};
}

namespace {

// One eager pass as an op: each forward kernel a torch call from Python, the backward's
// launched by the autograd engine (one call, then kernel launches).
Op eager_op(const std::string& name, OpPass pass, double bytes, int kernels) {
  Op op;
  op.name = name;
  op.kind = OpKind::elementwise;
  op.pass = pass;
  op.bytes = bytes;
  op.kernels = kernels;
  op.calls = pass == OpPass::backward ? 1 : kernels;
  return op;
}

// Inserts `op` into `ops` before (or after) the first op named `anchor`; nothing if none is.
void insert_at(std::vector<Op>& ops, const std::string& anchor, bool after, Op op) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const Op& o) { return o.name == anchor; });
  if (it == ops.end()) return;
  ops.insert(after ? it + 1 : it, std::move(op));
}

// The forward's pass into the forward and, recomputed, into the recompute list when that
// repeats the op it sits beside.
void insert_forward(PassOps& ops, const std::string& anchor, bool after, const Op& op) {
  insert_at(ops.forward, anchor, after, op);
  Op again = op;
  again.pass = OpPass::recompute;
  insert_at(ops.recompute, anchor, after, again);
}

}  // namespace

bool rotary_runs_eager(const ModelSpec& m) {
  return m.rope_scaling == RopeScaling::yarn && m.position == PositionEmbedding::rope && !m.is_mla();
}

bool clamps_glu_input(const ModelSpec& m) {
  return m.is_moe() && m.activation_clamp > 0 && m.activation == FfnActivation::swiglu;
}

PassOps with_eager_passes(PassOps ops, const ModelSpec& m, const TrainingSpec& tr, const ParallelSpec& p) {
  const double element = activation_element_bytes(tr.precision);
  const double tokens = static_cast<double>(tr.micro_batch) * m.seq_len / p.cp;
  // YaRN on plain (non-MLA) attention: query and key, a/t and kv/t heads of head_dim each.
  if (rotary_runs_eager(m)) {
    const double qk = tokens * (static_cast<double>(m.heads) + m.kv_heads) / p.tp * m.head_dim() * element;
    const EagerPassCount c = unfused_rope_pass();
    for (std::vector<Op>* pass : {&ops.forward, &ops.recompute, &ops.backward})
      for (Op& op : *pass) {
        const bool backward = op.name == "attention.rope.bwd";
        if (op.name != "attention.rope" && !backward) continue;
        // Renamed: plain multiplies, adds and copies, timed as the tables' streaming kernels
        // (the add curve), not as the fused rotary kernel.
        op.name = backward ? "attention.rotary_eager.bwd" : "attention.rotary_eager";
        op.bytes = (backward ? c.backward_bytes : c.forward_bytes) * qk;
        op.kernels = 2 * (backward ? c.backward_kernels : c.forward_kernels);  // the query's call and the key's
        op.calls = backward ? 1 : op.kernels;
      }
  }
  // The output projections' biases unfused (training.bias_dropout_fusion off): Attention and
  // MLP build linear_proj and linear_fc2 with skip_bias_add (transformer/attention.py, mlp.py)
  // and hand the bias to the bias-dropout-add, whose unfused form (_bias_dropout_add_func,
  // fusions/fused_bias_dropout.py) adds it as its own kernel; dropout at p = 0 launches none
  // (ATen's _dropout_impl returns its input) and the residual add is the one the fused form
  // runs. MoE layers return no bias (moe_layer.py): the experts add theirs (below).
  if (m.bias && !tr.bias_dropout_fusion) {
    const double act = tokens / (p.sequence_parallel ? p.tp : 1) * m.hidden * element;
    const EagerPassCount c = unfused_bias_pass();
    for (const char* anchor : {"attention.proj", "mlp.down"}) {
      const std::string name = std::string(anchor) + "_bias";
      insert_forward(ops, anchor, true,
                     eager_op(name, OpPass::forward, c.forward_bytes * act + m.hidden * element, c.forward_kernels));
    }
  }
  if (!m.is_moe()) return ops;
  // The rows this rank's experts run (models/layer_workload.cpp, add_mlp): T top_k etp / t.
  const double etp = p.expert_tp_size();
  const double rows = tokens * m.top_k * etp / p.tp;
  if (clamps_glu_input(m)) {
    const double fc1_out = rows * 2.0 * m.expert_ffn() / etp * element;
    const EagerPassCount c = activation_clamp_pass();
    insert_forward(ops, "experts.activation", false,
                   eager_op("experts.clamp", OpPass::forward, c.forward_bytes * fc1_out, c.forward_kernels));
    insert_at(ops.backward, "experts.activation.bwd", true,
              eager_op("experts.clamp.bwd", OpPass::backward, c.backward_bytes * fc1_out, c.backward_kernels));
  }
  if (m.bias) {
    const int local_experts = std::max(1, m.experts / p.ep);
    const double fc2_out = rows * m.hidden * element;
    const EagerPassCount c = expert_bias_pass(local_experts);
    insert_forward(ops, "experts.down", true,
                   eager_op("experts.bias", OpPass::forward, c.forward_bytes * fc2_out, c.forward_kernels));
    insert_at(ops.backward, "experts.down.dgrad", false,
              eager_op("experts.bias.bwd", OpPass::backward, c.backward_bytes * fc2_out, c.backward_kernels));
  }
  return ops;
}

}  // namespace trainsim
