// libFuzzer target of the sweep-file reader (issue 19, item 7): INI text in, and either a
// sweep (its values expanded, its point count) or an InputError out; nothing else may happen.
// The text is read as if it were a file in scenarios/sweeps/, so `base = ../default.ini`
// names the real default scenario. A sweep of at most 64 points is also planned, and its
// manifest read back to the same points.
//
//   build-fuzz/tests/fuzz/trainsim-fuzz-sweep -dict=tests/fuzz/sweep.dict CORPUS...
// (tests/fuzz/README.md, "Fuzzing and sanitizers").

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "sim/core/error.hpp"
#include "sim/scenario/ini_reader.hpp"
#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/sweep_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sw = trainsim::sweep;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string path = std::string(TRAINSIM_SOURCE_DIR) + "/scenarios/sweeps/fuzz.ini";
  std::optional<sw::SweepSpec> spec;
  try {
    spec = sw::sweep_spec_from(trainsim::read_ini_text(text, path), path);
  } catch (const trainsim::InputError&) {
    return 0;  // refused with the one-line reason the CLI prints: fine
  }
  const std::size_t points = sw::point_count(*spec);
  if (points == 0 || points > 64) return 0;
  const sw::SweepPlan plan = sw::sweep_plan(*spec, "fuzz");
  if (plan.points.size() != points) __builtin_trap();
  const sw::SweepPlan back = sw::parse_plan(sw::plan_json(plan), "manifest");
  if (back.points.size() != points) __builtin_trap();
  for (std::size_t i = 0; i < points; ++i)
    if (back.points[i].overrides != plan.points[i].overrides || back.points[i].fingerprint != plan.points[i].fingerprint)
      __builtin_trap();
  return 0;
}
