#pragma once
// The exception types of trainsim. One root type, so the CLI can catch everything
// trainsim throws in one place; InputError carries what a user needs to fix bad input.

#include <stdexcept>
#include <string>

namespace trainsim {

/// Root of every exception trainsim throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input: a scenario file, a command-line value or a calibration file.
/// The message is one line naming the file, the key, the value and the rule;
/// the CLI prints it and exits with code 2.
class InputError : public Error {
 public:
  /// `file` may be empty (command-line input), `key` is `section.key` or an option name.
  InputError(std::string file, std::string key, std::string value, std::string rule);

  const std::string& file() const { return file_; }
  const std::string& key() const { return key_; }
  const std::string& value() const { return value_; }
  const std::string& rule() const { return rule_; }

 private:
  std::string file_;
  std::string key_;
  std::string value_;
  std::string rule_;
};

}  // namespace trainsim
