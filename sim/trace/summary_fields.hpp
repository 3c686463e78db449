#pragma once
// Internal to sim/trace: the numeric metrics of /summary, named as in `trainsim run --json`
// (breakdown_s entries as breakdown_<category>_s), each bound to its StepResult field, so
// that the writer and the reader share one list.

#include <string>
#include <utility>
#include <vector>

#include "sim/step/step_result.hpp"

namespace trainsim::hdf5 {

/// (attribute name, field) for every double-valued metric of `result`; seconds, bytes,
/// joules and watts as the field's own documentation says.
std::vector<std::pair<std::string, double*>> summary_fields(StepResult& result);

}  // namespace trainsim::hdf5
