#pragma once
// The scenario the Chakra export tests write out (export_test.cpp, chakra_interop_test.cpp).

namespace trainsim::workload {

// 16 GPUs on two DGX H100 nodes: tp 2, pp 2, dp 4, ZeRO-1, eight micro-batches.
inline constexpr const char* k_export_scenario = R"([model]
layers = 8
hidden = 1024
heads = 16
ffn_hidden = 4096
vocab = 32000
seq_len = 2048

[training]
micro_batch = 1
grad_accum = 8

[parallel]
tp = 2
pp = 2
zero = 1

[cluster]
preset = dgx-h100
nodes = 2
)";

}  // namespace trainsim::workload
