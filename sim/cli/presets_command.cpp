// `trainsim presets`: the GPU, cluster and model presets this binary reads from its data
// folder (sim/scenario/preset_library.hpp), each with the sources its file states.

#include <ostream>
#include <string>
#include <vector>

#include "sim/cli/command.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/preset_library.hpp"

namespace trainsim::cli {

namespace {

template <typename Spec>
void list(std::ostream& out, const std::string& title, const std::vector<PresetFile<Spec>>& presets) {
  out << title << " (" << presets.size() << "):\n";
  for (const PresetFile<Spec>& p : presets) {
    out << "  " << p.name << "  " << p.path << "\n";
    for (const PresetSource& s : p.sources) out << "      " << s.key << ": " << s.text << "\n";
  }
}

}  // namespace

Command presets_command() {
  Command c;
  c.name = "presets";
  c.summary = "list the GPU, cluster and model presets (data files) with their sources";
  c.run = [summary = c.summary](const std::vector<std::string>& args, std::ostream& out) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
      out << "usage: trainsim presets\n\n"
          << summary << ": each preset's name, file and `source` keys. A scenario names one by\n"
          << "cluster.preset = NAME, model.preset = NAME or cluster.gpu = NAME, or takes its own file by\n"
          << "cluster.preset = PATH and model.preset = PATH (topologies/README.md, models/README.md).\n";
      return 0;
    }
    if (!args.empty()) throw InputError("", args[0], "", "trainsim presets takes no arguments");
    const PresetLibrary& library = shipped_presets();
    out << "presets of " << library.folder << "\n\n";
    list(out, "GPUs", library.gpus);
    out << "\n";
    list(out, "clusters", library.clusters);
    out << "\n";
    list(out, "models", library.models);
    return 0;
  };
  return c;
}

}  // namespace trainsim::cli
