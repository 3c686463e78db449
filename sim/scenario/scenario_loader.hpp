#pragma once
// The scenario boundary: INI text in, a validated Scenario out, or an InputError that
// names the file, key, value and rule.

#include <string>
#include <vector>

#include "sim/scenario/ini_reader.hpp"
#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// Reads `path`, applies `overrides` (`section.key=value`, as given to --set), fills in
/// defaults and presets, derives dp when it is omitted, and validates.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

/// Refuses a key the user's --set arguments give twice (`--set parallel.tp=2 --set parallel.tp=4`,
/// or once by its Megatron name): InputError("--set", key, the later value, rule). The last one
/// won, silently. Commands call it on the arguments as given, before adding overrides of their own.
void check_overrides_given_once(const std::vector<std::string>& overrides);

/// The same from entries already read (tests build these directly).
Scenario load_scenario(const std::vector<IniEntry>& entries, const std::string& source);

/// Keys a scenario may leave open as `auto` for `trainsim plan` to search: parallel.cp,
/// parallel.ep, parallel.virtual_stages, parallel.zero. Every other command refuses `auto`
/// there (plan resolves the keys before it loads).
const std::vector<std::string>& plan_open_keys();

/// The scenario with every key resolved, as INI text that load_scenario reads back.
std::string resolved_ini(const Scenario& scenario);

}  // namespace trainsim
