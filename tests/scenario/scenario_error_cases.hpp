// The invalid-input cases of tests/scenario/scenario_errors*_test.cpp: a valid base scenario,
// one bad input a case, and what its one-line error must name. The cases are split by the
// rules they break (scenario_errors_test.cpp: sections, keys and their rules;
// scenario_errors_values_test.cpp: values, bytes and architecture keys), one test body for all.

#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace trainsim::scenario_errors {

// A valid base: Llama 3 8B on 2 DGX H100 nodes (16 GPUs).
inline const char* const k_base = R"([model]
preset = llama3-8b
[training]
micro_batch = 1
grad_accum = 8
[parallel]
tp = 4
pp = 2
[cluster]
preset = dgx-h100
nodes = 2
)";

struct BadInput {
  const char* name;
  std::string scenario;            ///< file text (empty: no file is written)
  std::vector<std::string> extra;  ///< extra CLI arguments (--set ...)
  std::string expected_key;        ///< must appear in the message
  std::string expected_words;      ///< a word of the rule
};

inline std::ostream& operator<<(std::ostream& os, const BadInput& b) {
  return os << b.name;
}

/// Exit code 2, one line on stderr naming the key, the rule's word and where the value came
/// from, nothing on stdout (the test body: scenario_errors_test.cpp).
class ScenarioErrors : public ::testing::TestWithParam<BadInput> {};

inline std::string base_with(const std::string& extra) {
  return std::string(k_base) + extra;
}

inline std::string replace(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace trainsim::scenario_errors
