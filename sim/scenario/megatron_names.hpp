#pragma once
// Megatron's names for the settings trainsim models: one table (megatron_names.cpp) that
// `trainsim import megatron` and `trainsim import bridge` read an argument list or a recipe by,
// and that scenario files accept as aliases of trainsim's keys (`tensor_model_parallel_size = 8`
// in [parallel]). docs/megatron-names.md shows the same table (megatron_names_markdown).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/ini_reader.hpp"

namespace trainsim {

/// Where a name is spelled: a Megatron-LM argument (`--tensor-model-parallel-size`, its
/// underscores written as dashes), a field of the config a Megatron-Bridge recipe dumps
/// (TransformerConfig, DistributedDataParallelConfig, MixedPrecisionConfig...), or both.
enum class MegatronSpelling { both, argument, config };

/// A value after the name, or a switch (argparse's store_true; true or false in a config).
enum class MegatronTakes { value, flag };

struct MegatronName {
  std::string_view name;  ///< with underscores: the argument's dest, the config's field
  MegatronSpelling spelling;
  MegatronTakes takes;
  /// The scenario key it sets ("parallel.tp"); empty: a condition another row reads (`needs`).
  std::string_view key;
  /// How its value becomes the key's: "from=to;from=to" (a switch: from true or false; an
  /// empty `to`: another row gives the key), "*" (as written), or "#rule" (worked out with
  /// other settings: sim/import/megatron_rules.cpp).
  std::string_view values;
  /// Megatron's default when the name is not given, in Megatron's words ("" none).
  std::string_view megatron_default;
  /// Names, '|' between, one of which must be set (not false, none or null; "name=value": to
  /// that value) for this one to count; a name not spelled where it is read does not count.
  std::string_view needs;
  /// What a reader should know (shown in the README's table).
  std::string_view note;

  std::string argument() const;  ///< "--tensor-model-parallel-size"
  bool spelled_as_argument() const { return spelling != MegatronSpelling::config; }
  bool spelled_in_config() const { return spelling != MegatronSpelling::argument; }
  /// The key's value for Megatron's `value` (true or false for a switch), or nullopt when
  /// the table has no translation of that value (or the row is a condition or a #rule).
  std::optional<std::string> translate(std::string_view value) const;
  /// The values `translate` takes, for messages: "LayerNorm or RMSNorm".
  std::string accepted_values() const;
};

/// Every row, grouped by the scenario's sections; rows of one key are read in order, a later
/// given one overriding an earlier.
const std::vector<MegatronName>& megatron_names();

/// The row of `name` (underscores), spelled as an argument or in a config; null if none.
const MegatronName* megatron_argument(std::string_view name);
const MegatronName* megatron_config_field(std::string_view name);

/// A scenario file's `section.name = value` with a Megatron name of a key of that section,
/// as that key and its value: nullopt when `entry.name` is no such alias. Throws InputError
/// (naming the entry's file, its name and value) when the value has no translation.
std::optional<IniEntry> megatron_alias(const IniEntry& entry);

/// The table as docs/megatron-names.md shows it (markdown, one row a line).
std::string megatron_names_markdown();

}  // namespace trainsim
