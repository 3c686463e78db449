#include "support/published_figure.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>

#include "support/run_trainsim.hpp"

namespace trainsim::testing {

std::optional<PublishedFigure> published_figure(const std::string& file) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    for (const auto& [metric, field] :
         {std::pair{"tflops_per_gpu", "hardware_tflops_per_gpu_full_attention"},
          std::pair{"tokens_per_s_per_gpu", "tokens_per_s_per_gpu"},
          std::pair{"model_tflops_per_gpu", "model_tflops_per_gpu"}, std::pair{"step_time_s", "step_time_s"}}) {
      const std::string tag = std::string("# published_") + metric + " = ";
      if (line.rfind(tag, 0) == 0)
        return PublishedFigure{field, std::stod(line.substr(tag.size())), std::string(metric) == "step_time_s"};
    }
  }
  return std::nullopt;
}

bool is_mlperf_run(const std::string& file) {
  return std::filesystem::path(file).filename().string().rfind("mlperf-", 0) == 0;
}

std::vector<std::pair<std::string, PublishedFigure>> published_validation_runs() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(source_path("scenarios/validation")))
    if (entry.path().extension() == ".ini") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, PublishedFigure>> runs;
  for (const std::string& file : files)
    if (const auto figure = published_figure(file)) runs.emplace_back(file, *figure);
  return runs;
}

}  // namespace trainsim::testing
