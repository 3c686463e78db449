#pragma once
// A sweep file: a base scenario and the scenario keys to vary.
//
//   [sweep]
//   base = ../default.ini        # relative to the sweep file's folder
//   mode = cross                 # cross (every combination) or zip (i-th values together)
//   [vary]
//   cluster.nodes = 8,16,...,64  # see value_list.hpp for lists and ranges
//   parallel.tp = 1,2,4,8
//   [set]
//   training.grad_accum = 8      # optional: fixed overrides applied to every point

#include <string>
#include <vector>

#include "sim/scenario/ini_reader.hpp"

namespace trainsim::sweep {

enum class SweepMode { cross, zip };

struct SweepParameter {
  std::string key;                  ///< "section.key" of the scenario
  std::vector<std::string> values;  ///< as passed to the scenario (units kept as text)
};

struct SweepSpec {
  std::string source;     ///< the sweep file
  std::string base_path;  ///< the base scenario, resolved against the sweep file
  SweepMode mode = SweepMode::cross;
  std::vector<SweepParameter> parameters;    ///< in file order; the first varies slowest (cross)
  std::vector<std::string> fixed_overrides;  ///< "section.key=value", from [set]
};

/// Reads and checks a sweep file: unknown sections and keys (with the nearest valid
/// name), a missing base, bad lists or ranges, zip lists of different lengths, a scenario
/// key that does not exist, a value its key never takes (`grad_accum = abc`: every point
/// would be invalid). Throws InputError(file, key, value, rule).
SweepSpec read_sweep_file(const std::string& path);

/// The same from entries already read (read_ini_text: the fuzz target, tests); `path` is the
/// sweep file they came from, against which the base scenario is resolved.
SweepSpec sweep_spec_from(const std::vector<IniEntry>& entries, const std::string& path);

}  // namespace trainsim::sweep
