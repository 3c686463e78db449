#pragma once
// The exception types of trainsim. One root type, so the CLI can catch everything
// trainsim throws in one place; InputError carries what a user needs to fix bad input,
// OutputError what stopped an output from being written.

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

/// An output that could not be written (a full disk, a read-only file system, a device that
/// refuses the bytes): one line naming the path and the system's reason; the CLI exits with
/// code 2, and no partial file is left under the path.
class OutputError : public Error {
 public:
  OutputError(std::string path, std::string reason);

  const std::string& path() const { return path_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string path_;
  std::string reason_;
};

/// A command stopped by a stop signal (sim/core/stop_signals.hpp) once it has cleaned up: the
/// CLI prints the message (what was done, how to go on) and ends by the same signal.
class Interrupted : public Error {
 public:
  Interrupted(int signal_number, const std::string& message) : Error(message), signal_number_(signal_number) {}

  int signal_number() const { return signal_number_; }

 private:
  int signal_number_;
};

}  // namespace trainsim
