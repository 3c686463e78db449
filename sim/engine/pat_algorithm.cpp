#include "sim/engine/pat_algorithm.hpp"

#include "sim/core/error.hpp"
#include "sim/engine/ring_algorithm.hpp"

namespace trainsim::engine {

CommPlan PatAlgorithm::plan(const CollectiveCall& call, const Platform& platform) const {
  if (gpus_by_node(call.gpus, platform).size() != call.gpus.size())
    throw InputError("", "--algo", "pat", "PAT runs with one GPU of the collective per NVLink domain (NCCL 2.23+)");
  return RingAlgorithm().plan(call, platform);
}

}  // namespace trainsim::engine
