// `trainsim import megatron [--cluster PRESET --nodes N] ARGS...|@FILE`,
// `trainsim import bridge [--cluster PRESET --nodes N] RECIPE.yaml`: a Megatron-LM argument
// list or a Megatron-Bridge recipe as a scenario file on stdout (sim/import/);
// `trainsim import names`: the table of Megatron's names, as docs/megatron-names.md shows it.

#include <ostream>

#include "sim/cli/command.hpp"
#include "sim/core/error.hpp"
#include "sim/import/megatron_import.hpp"
#include "sim/scenario/megatron_names.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim::cli {

namespace {

constexpr const char* k_usage =
    "usage: trainsim import megatron [--cluster PRESET] [--nodes N] ARGS...   (or @FILE holding them)\n"
    "       trainsim import bridge [--cluster PRESET] [--nodes N] RECIPE.yaml\n"
    "       trainsim import names\n\n"
    "Prints a scenario file: every setting of a Megatron-LM argument list (as pretrain_gpt.py takes it) or of\n"
    "a Megatron-Bridge recipe's config (YAML, as ConfigContainer dumps it) that trainsim models, as its key;\n"
    "the others in '# not modelled:' comments. `names` prints the table of Megatron's names each key takes\n"
    "(scenario files accept them too). --cluster: a cluster preset (default dgx-h100); --nodes: the job's\n"
    "nodes (default: the fewest holding one model replica).\n";

// Takes --cluster and --nodes (Megatron-LM has neither) out of `args`.
ImportCluster take_cluster_options(std::vector<std::string>& args) {
  ImportCluster cluster;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i], value;
    const auto eq = name.find('=');
    if (eq != std::string::npos) value = name.substr(eq + 1), name = name.substr(0, eq);
    if (name != "--cluster" && name != "--nodes") {
      rest.push_back(args[i]);
      continue;
    }
    if (eq == std::string::npos) {
      if (i + 1 >= args.size()) throw InputError("", name, "", "needs a value");
      value = args[++i];
    }
    if (name == "--cluster") {
      cluster.preset = value;
      continue;
    }
    const auto n = parse::integer(value);
    if (!n || *n < 1 || *n > (1 << 20)) throw InputError("", "--nodes", value, "expected an integer from 1 to 1048576");
    cluster.nodes = static_cast<int>(*n);
  }
  args = rest;
  return cluster;
}

}  // namespace

Command import_command() {
  Command c;
  c.name = "import";
  c.summary = "a Megatron-LM argument list or a Megatron-Bridge recipe as a scenario file";
  c.run = [](const std::vector<std::string>& all, std::ostream& out) {
    if (all.empty() || all[0] == "--help" || all[0] == "-h") {
      out << k_usage;
      return all.empty() ? 2 : 0;
    }
    const std::string what = all[0];
    std::vector<std::string> args(all.begin() + 1, all.end());
    if (what == "names") {
      if (!args.empty()) throw InputError("", "trainsim import names", args[0], "takes no arguments");
      out << megatron_names_markdown();
      return 0;
    }
    if (what != "megatron" && what != "bridge")
      throw InputError("", "trainsim import", what, "expected megatron, bridge or names (trainsim import --help)");
    const ImportCluster cluster = take_cluster_options(args);
    if (what == "megatron") {
      out << megatron_scenario(read_megatron_arguments(args), cluster, "trainsim import megatron");
      return 0;
    }
    if (args.size() != 1)
      throw InputError("", "trainsim import bridge", args.empty() ? "" : args[1], "expected one recipe file (YAML)");
    out << megatron_scenario(read_bridge_recipe(args[0]), cluster, "trainsim import bridge");
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
