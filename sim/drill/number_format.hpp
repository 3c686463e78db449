#pragma once
// The number formats a gradient reduction runs in, emulated on fp32 by rounding.

#include <string>

namespace trainsim::drill {

enum class NumberFormat { fp32, bf16, fp16 };

std::string format_name(NumberFormat f);

/// `x` rounded to the nearest value of `f` (ties to even), through Eigen's bfloat16 and half
/// conversions: fp16 overflows to infinity beyond 65504 (IEEE 754 binary16); bf16 keeps fp32's
/// range with 8 significant bits.
float round_to(NumberFormat f, float x);

/// Unit roundoff u of `f` (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
/// §2.1): 2^-24 for fp32, 2^-8 for bf16, 2^-11 for fp16.
double unit_roundoff(NumberFormat f);

}  // namespace trainsim::drill
