#pragma once
// Published model shapes, by name: the data files models/presets/<name>.ini, read from the
// data folder by sim/scenario/preset_library.cpp, which defines these (link trainsim::scenario).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/model_spec.hpp"

namespace trainsim {

/// The preset of that name, or nothing.
std::optional<ModelSpec> model_preset(std::string_view name);

/// Every preset name, in a stable order (for help texts and error suggestions).
std::vector<std::string> model_preset_names();

}  // namespace trainsim
