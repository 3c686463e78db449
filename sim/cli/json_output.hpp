#pragma once
// The text of a command's --json result. JSON text is UTF-8: a string that is not (a path the
// user named, `plan --out $'p\xff' --json`, `replay $'c\xff/step' --json`) ended the command with
// "internal error: [json.exception.type_error.316]" after its work was done. Its bytes that are
// not UTF-8 are written as U+FFFD (the scenario's own name is refused before: ini_reader.cpp).

#include <string>

namespace trainsim::cli {

template <typename Json>
std::string json_output(const Json& j) {
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace trainsim::cli
