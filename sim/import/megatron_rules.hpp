#pragma once
// The pieces of an import (megatron_import.cpp): Megatron's settings as given or defaulted
// (MegatronState), the scenario's keys as they are worked out (ScenarioValues), and the rules
// of the table's `#` rows, which read several settings at once (apply_megatron_rules).

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/import/megatron_import.hpp"
#include "sim/scenario/megatron_names.hpp"

namespace trainsim {

struct MegatronValue {
  std::string text;
  std::string written;  ///< as the input wrote it ("" for Megatron's default)
  bool given = false;
};

/// Each name of the table spelled where the input comes from: its value as given (the last
/// time), or Megatron's default.
class MegatronState {
 public:
  explicit MegatronState(const MegatronInput& input);

  const MegatronValue* value(std::string_view name) const;
  /// Whether `row.needs` holds (megatron_names.hpp).
  bool needs_met(const MegatronName& row) const;
  const MegatronInput& input() const { return input_; }
  /// The name as the input spells it: "--kv-channels" or "kv_channels".
  std::string shown(std::string_view name) const;

 private:
  const MegatronInput& input_;
  std::map<std::string, MegatronValue, std::less<>> values_;
};

struct ScenarioValue {
  std::string text;
  std::string written;  ///< the setting that gave it, for messages
  bool given = false;   ///< from a setting the input gave (else from Megatron's defaults)
};

/// The scenario's keys: a given value replaces any; a default fills only an empty key.
class ScenarioValues {
 public:
  void set(const std::string& key, const std::string& text, const std::string& written, bool given);
  std::optional<std::string> value(const std::string& key) const;
  std::optional<long long> integer(const std::string& key) const;
  std::string written(const std::string& key) const;
  void erase_if(const std::function<bool(const std::string&, const ScenarioValue&)>& drop);

 private:
  std::map<std::string, ScenarioValue> values_;
};

/// The `#` rows (head_dim, moe_ffn, expert_tp, microbatch_group, per_virtual_stage, window,
/// layer_freq, cuda_graphs) and what Megatron derives when not told (the FFN size, the
/// schedule, one micro-batch without a global batch); the shape's required settings.
void apply_megatron_rules(const MegatronState& state, ScenarioValues& keys, std::vector<std::string>& not_modelled);

/// GPUs of one model replica (tp x pp x cp), and the fewest nodes of `gpus_per_node` that hold
/// whole replicas whose data-parallel ranks fold into the expert-parallel groups.
int replica_gpus(const ScenarioValues& keys);
int replica_nodes(const ScenarioValues& keys, int gpus_per_node);

}  // namespace trainsim
