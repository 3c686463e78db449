#include "sim/core/error.hpp"

#include <utility>

namespace trainsim {

namespace {
std::string format_input_error(const std::string& file, const std::string& key, const std::string& value,
                               const std::string& rule) {
  std::string msg = file.empty() ? std::string("command line") : file;
  if (!key.empty()) msg += ": " + key;
  if (!value.empty()) msg += " = '" + value + "'";
  msg += ": " + rule;
  return msg;
}
}  // namespace

InputError::InputError(std::string file, std::string key, std::string value, std::string rule)
    : Error(format_input_error(file, key, value, rule)),
      file_(std::move(file)),
      key_(std::move(key)),
      value_(std::move(value)),
      rule_(std::move(rule)) {}

OutputError::OutputError(std::string path, std::string reason)
    : Error("cannot write " + path + ": " + reason), path_(std::move(path)), reason_(std::move(reason)) {}

}  // namespace trainsim
