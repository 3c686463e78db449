#include "sim/drill/number_format.hpp"

#include <Eigen/Core>

namespace trainsim::drill {

std::string format_name(NumberFormat f) {
  switch (f) {
    case NumberFormat::fp32:
      return "fp32";
    case NumberFormat::bf16:
      return "bf16";
    case NumberFormat::fp16:
      return "fp16";
  }
  return "?";
}

float round_to(NumberFormat f, float x) {
  switch (f) {
    case NumberFormat::fp32:
      return x;
    case NumberFormat::bf16:
      return static_cast<float>(Eigen::bfloat16(x));
    case NumberFormat::fp16:
      return static_cast<float>(Eigen::half(x));
  }
  return x;
}

double unit_roundoff(NumberFormat f) {
  switch (f) {
    case NumberFormat::fp32:
      return 0x1p-24;
    case NumberFormat::bf16:
      return 0x1p-8;
    case NumberFormat::fp16:
      return 0x1p-11;
  }
  return 0x1p-24;
}

}  // namespace trainsim::drill
