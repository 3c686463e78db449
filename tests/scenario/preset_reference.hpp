#pragma once
// The presets as C++ code had them before they became data files (preset_reference.cpp).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/model_spec.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim::reference {

std::optional<GpuSpec> reference_gpu_preset(std::string_view name);
std::vector<std::string> reference_gpu_preset_names();
std::optional<ClusterSpec> reference_cluster_preset(std::string_view name);
std::vector<std::string> reference_cluster_preset_names();
std::optional<ModelSpec> reference_model_preset(std::string_view name);
std::vector<std::string> reference_model_preset_names();

}  // namespace trainsim::reference
