#include "sim/step/module_host_call.hpp"

#include <string_view>

namespace trainsim {

namespace {

bool ends_with(std::string_view s, std::string_view tail) { return s.ends_with(tail); }

}  // namespace

HostCall host_call(const Op& op) {
  const std::string_view name = op.name;
  // Launched by the module that owns them: its casts, its weight gradient and accumulation.
  if (name.find(".quantize") != std::string_view::npos || ends_with(name, ".wgrad") ||
      ends_with(name, ".wgrad.accumulate"))
    return HostCall::inside_module;
  // The layer's input norm runs inside linear_qkv (TELayerNormColumnParallelLinear), forward
  // and backward.
  if (name.starts_with("attention.norm") || name.starts_with("block.norm")) return HostCall::inside_module;
  // The router's gating linear is Megatron-Core's own (router.py: a torch GEMM), and the
  // output layer a ColumnParallelLinear: framework ops.
  const bool megatron_linear = name.starts_with("router") || name.starts_with("output");
  switch (op.kind) {
    case OpKind::gemm:
    case OpKind::attention:
    case OpKind::norm:
      return megatron_linear ? HostCall::framework_op : HostCall::te_module;
    default:
      return HostCall::framework_op;
  }
}

}  // namespace trainsim
