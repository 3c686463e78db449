#pragma once
// Ops timed by the seconds they carry, for the host-pace tests (host_bound_pass_test.cpp,
// host_bound_pair_test.cpp).

#include <string>

#include "models/op.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/step/host_bound_pass.hpp"

namespace trainsim::testing {

/// Times each op by the seconds it carries in `flops`.
class GivenTimes final : public ComputeModel {
 public:
  double op_time_s(const Op& op) const override { return op.flops; }
  std::string description() const override { return "given times"; }
};

/// An op of `gpu_s` seconds in `kernels` kernels, a host sync before it where `host_sync`.
inline Op op(const std::string& name, double gpu_s, int kernels, bool host_sync = false) {
  Op o;
  o.name = name;
  o.flops = gpu_s;
  o.kernels = kernels;
  o.host_sync = host_sync;
  return o;
}

inline constexpr double k_us = 1e-6;

/// 30 us an op and a kernel alike, to read the cases by launches.
inline constexpr HostLaunchCost k_host{30e-6, 30e-6};

}  // namespace trainsim::testing
