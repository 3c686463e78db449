#include "models/pipeline_inflight.hpp"

#include <algorithm>

namespace trainsim {

double inflight_microbatches(Schedule schedule, int pp, int stage, int microbatches, int virtual_stages) {
  if (pp == 1) return 1.0;
  switch (schedule) {
    case Schedule::gpipe:
      return microbatches;
    case Schedule::one_f_one_b:
    case Schedule::zb_h1:
      return std::min(pp - stage, microbatches);
    case Schedule::interleaved: {
      const int v = virtual_stages;
      const int chunks = std::min((pp - stage - 1) * 2 + (v - 1) * pp + 1, microbatches * v);
      return static_cast<double>(chunks) / v;
    }
  }
  return 1.0;
}

}  // namespace trainsim
