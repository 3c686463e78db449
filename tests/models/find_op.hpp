#pragma once
// The op named `name` in a pass's op list, for the workload tests.

#include <string>
#include <vector>

#include "models/op.hpp"

namespace trainsim::testing {

inline const Op* find_op(const std::vector<Op>& ops, const std::string& name) {
  for (const Op& op : ops)
    if (op.name == name) return &op;
  return nullptr;
}

}  // namespace trainsim::testing
