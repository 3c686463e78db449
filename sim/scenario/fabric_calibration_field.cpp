#include "sim/scenario/fabric_calibration_field.hpp"

#include <filesystem>

#include "sim/core/error.hpp"
#include "topologies/fabric_calibration.hpp"

namespace trainsim {

namespace {

constexpr const char* k_key = "cluster.fabric_calibration";

void check_gpu(const FabricCalibration& f, const std::string& gpu, const std::string& source, const std::string& key) {
  if (f.gpu != gpu)
    throw InputError(source, key, f.file,
                     "was measured on " + f.gpu + " (its 'gpu' line), the cluster's GPU is " + gpu +
                         ": its bandwidths are that GPU's NVLink");
}

}  // namespace

ScenarioField fabric_calibration_field() {
  ScenarioField f;
  f.name = k_key;
  f.help = "collectives inside an NVLink domain and across domains fitted to your nccl-tests logs (trainsim "
           "calibrate --from-nccl-tests --out FILE): the file, relative to the scenario; none: the built-in ones";
  f.apply = [](Scenario& s, std::string_view text) -> std::optional<std::string> {
    if (text.empty()) return "expected none or the path of a fabric calibration file";
    if (text == "none") {
      s.cluster.fabric_calibration.reset();
      return std::nullopt;
    }
    std::filesystem::path path{std::string(text)};
    if (path.is_relative()) path = std::filesystem::path(s.source).parent_path() / path;
    std::error_code ec;
    path = std::filesystem::absolute(path, ec).lexically_normal();
    if (ec || !std::filesystem::is_regular_file(path, ec))
      return "must name a fabric calibration file (" + path.string() + " is none)";
    s.cluster.fabric_calibration = std::make_shared<const FabricCalibration>(read_fabric_calibration(path.string()));
    s.read_files.push_back(path.string());
    return std::nullopt;
  };
  f.show = [](const Scenario& s) {
    return s.cluster.fabric_calibration ? s.cluster.fabric_calibration->file : std::string("none");
  };
  return f;
}

std::shared_ptr<const FabricCalibration> load_fabric_calibration(const std::string& path, const std::string& gpu,
                                                                 const std::string& source, const std::string& key) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(source, key, path, "must name a fabric calibration file (trainsim calibrate --from-nccl-tests)");
  auto f = std::make_shared<const FabricCalibration>(read_fabric_calibration(path));
  check_gpu(*f, gpu, source, key);
  return f;
}

void check_fabric_calibration(const Scenario& s) {
  if (s.cluster.fabric_calibration) check_gpu(*s.cluster.fabric_calibration, s.cluster.gpu.name, s.source, k_key);
}

}  // namespace trainsim
