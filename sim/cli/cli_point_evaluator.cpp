#include "sim/cli/cli_point_evaluator.hpp"

#include <filesystem>
#include <system_error>

#include "sim/cli/scenario_compute_model.hpp"
#include "sim/core/error.hpp"
#include "sim/sweep/step_point_evaluator.hpp"
#include "sim/sweep/traced_point_evaluator.hpp"

namespace trainsim::cli {

sweep::PointEvaluator cli_point_evaluator(bool trace, const std::string& out_dir) {
  if (!trace) return sweep::step_point_evaluator(scenario_compute_model);
  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw Error("cannot find the trainsim executable: " + ec.message());
  return sweep::traced_point_evaluator(exe, out_dir);
}

}  // namespace trainsim::cli
