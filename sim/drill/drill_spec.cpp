#include "sim/drill/drill_spec.hpp"

namespace trainsim::drill {

namespace {
const std::vector<std::pair<std::string, CheckpointItem>> k_items{{"rng", CheckpointItem::rng},
                                                                  {"cursor", CheckpointItem::cursor},
                                                                  {"optimizer", CheckpointItem::optimizer},
                                                                  {"scheduler", CheckpointItem::scheduler},
                                                                  {"loss_scale", CheckpointItem::loss_scale}};
}  // namespace

std::string item_name(CheckpointItem item) {
  for (const auto& [name, value] : k_items)
    if (value == item) return name;
  return "?";
}

std::optional<CheckpointItem> parse_item(const std::string& text) {
  for (const auto& [name, value] : k_items)
    if (name == text) return value;
  return std::nullopt;
}

std::vector<std::string> item_names() {
  std::vector<std::string> out;
  for (const auto& [name, value] : k_items) out.push_back(name);
  return out;
}

}  // namespace trainsim::drill
