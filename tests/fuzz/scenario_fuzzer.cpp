// libFuzzer target of the scenario reader (issue 19, item 7): INI text in, and either a
// validated scenario or an InputError out; nothing else may happen (another exception, a
// crash, undefined behaviour, a hang). A scenario that loads is written back as resolved text
// (trainsim check), which must load again to the same text, and go into JSON.
//
//   build-fuzz/tests/fuzz/trainsim-fuzz-scenario -dict=tests/fuzz/scenario.dict CORPUS...
// (tests/fuzz/README.md, "Fuzzing and sanitizers").

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/core/error.hpp"
#include "sim/scenario/ini_reader.hpp"
#include "sim/scenario/scenario_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::optional<trainsim::Scenario> scenario;
  try {
    scenario = trainsim::load_scenario(trainsim::read_ini_text(text, "fuzz.ini"), "fuzz.ini");
  } catch (const trainsim::InputError&) {
    return 0;  // refused with the one-line reason the CLI prints: fine
  }
  // Outside the try: resolved text that does not load back is a bug, not bad input.
  const std::string resolved = trainsim::resolved_ini(*scenario);
  const trainsim::Scenario again =
      trainsim::load_scenario(trainsim::read_ini_text(resolved, "resolved.ini"), "resolved.ini");
  if (trainsim::resolved_ini(again) != resolved) __builtin_trap();
  // Every value ends up in JSON (--json, sweep results): it must be UTF-8, or dump() throws.
  (void)nlohmann::json{{"scenario", resolved}}.dump();
  return 0;
}
