#include "sim/step/memory_fit.hpp"

#include "sim/core/units.hpp"

namespace trainsim {

MemoryFit memory_fit(double peak_memory_bytes, double capacity_bytes) {
  return {peak_memory_bytes <= capacity_bytes, capacity_bytes, capacity_bytes - peak_memory_bytes};
}

MemoryFit memory_fit(const Scenario& s, const StepResult& r) {
  return memory_fit(r.peak_memory_bytes, static_cast<double>(s.gpu_memory_bytes()));
}

std::optional<std::string> memory_fit_warning(const Scenario& s, const StepResult& r) {
  if (memory_fit(s, r).fits) return std::nullopt;
  return "peak memory " + units::format_bytes_binary(r.peak_memory_bytes) + " per GPU exceeds the " +
         s.cluster.gpu.name + "'s " + units::format_bytes_binary(s.gpu_memory_bytes()) +
         ": the step would not run as configured (trainsim memory shows where; recomputation, ZeRO or more pipeline "
         "stages help)";
}

}  // namespace trainsim
