#pragma once
// A Megatron-LM argument list or a Megatron-Bridge recipe as a scenario file: the settings
// trainsim models as their keys (the table of sim/scenario/megatron_names.hpp), the others
// listed in `# not modelled:` comments, none dropped silently.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace trainsim {

/// One setting as read: its name with underscores, its value as text (a switch's "true" or
/// "false"; a list's items joined by ','), and how the input wrote it, for comments and errors
/// ("--tensor-model-parallel-size 4", "model.tensor_model_parallel_size: 4").
struct MegatronSetting {
  std::string name;
  std::string value;
  std::string written;
};

/// What an importer read: the settings of the names trainsim's table may know (in order), and
/// the others, as written, for the `# not modelled` comments.
struct MegatronInput {
  std::string origin;      ///< the file, or "the arguments"
  bool arguments = false;  ///< an argument list (else a recipe's config)
  std::vector<MegatronSetting> settings;
  std::vector<std::string> not_modelled;
};

/// The largest argument file or recipe read: 16 MiB (a resolved recipe is some 30 KB).
inline constexpr std::size_t k_max_megatron_input_bytes = std::size_t{16} << 20;

/// `ARGS...` as pretrain_gpt.py takes them (`--name value...`, `--name=value`, `--switch`),
/// or `@FILE` holding them (whitespace, `\` line ends and `#` comment lines allowed). Throws
/// InputError naming the argument and the rule.
MegatronInput read_megatron_arguments(const std::vector<std::string>& args);

/// A Megatron-Bridge recipe's config as ConfigContainer dumps it (to_yaml / print_yaml): the
/// sections model, train, ddp, optimizer, dist, comm_overlap and mixed_precision are read in
/// that order (a later one's value wins: Bridge applies comm_overlap and mixed_precision onto
/// the model at setup); every other section is listed as not modelled.
MegatronInput read_bridge_recipe(const std::string& path);

/// Where the scenario runs: `--cluster PRESET --nodes N` (the preset's default and one model
/// replica's nodes when not given).
struct ImportCluster {
  std::string preset = "dgx-h100";
  std::optional<int> nodes;
};

/// The scenario file text: `[section]`s of `key = value` and the comments. Checked by loading
/// it: a value trainsim refuses is an InputError naming the setting as the input wrote it.
std::string megatron_scenario(const MegatronInput& input, const ImportCluster& cluster, const std::string& command);

}  // namespace trainsim
