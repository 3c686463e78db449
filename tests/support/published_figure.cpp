#include "support/published_figure.hpp"

#include <fstream>
#include <utility>

namespace trainsim::testing {

std::optional<PublishedFigure> published_figure(const std::string& file) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    for (const auto& [metric, field] : {std::pair{"tflops_per_gpu", "hardware_tflops_per_gpu_full_attention"},
                                        std::pair{"tokens_per_s_per_gpu", "tokens_per_s_per_gpu"},
                                        std::pair{"model_tflops_per_gpu", "model_tflops_per_gpu"}}) {
      const std::string tag = std::string("# published_") + metric + " = ";
      if (line.rfind(tag, 0) == 0) return PublishedFigure{field, std::stod(line.substr(tag.size()))};
    }
  }
  return std::nullopt;
}

}  // namespace trainsim::testing
