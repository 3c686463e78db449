#pragma once
// The last check on a number before it is printed or written as a result: one that cannot
// be (an MFU above 1, a negative time, a NaN) is trainsim's own error, never the user's, since
// bad input is refused where it is read. It stops the command as an internal error (exit 1,
// one line naming the quantity and the value) rather than print it.

#include <string_view>

namespace trainsim {

/// `value`, if a result named `quantity` can take it, by the name's kind: a fraction (`mfu`,
/// `hfu`, `*_fraction`, `*_ratio`) lies in [0, 1]; a time (`*_s`) is finite and >= 0. Other
/// names are returned as they are. Else throws std::logic_error ("impossible result: mfu =
/// 1.25, a fraction must lie in [0, 1]"), which the CLI reports as an internal error.
/// `mfu_full_attention` is not a fraction: it credits causal attention with the full
/// attention's FLOPs (Megatron-LM's convention), work the GPU never does, so it may pass 1.
double checked_output(std::string_view quantity, double value);

}  // namespace trainsim
