#include "sim/workload/comm_types.hpp"

namespace trainsim::workload {

namespace eng = trainsim::engine;

// A barrier is what PyTorch's NCCL process group runs for one: an all-reduce of a one-element
// tensor (pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp, barrier()); the
// replay takes it as 4 bytes.
std::optional<eng::CollectiveOp> engine_op(CommType type) {
  switch (type) {
    case CommType::all_reduce:
    case CommType::barrier:
      return eng::CollectiveOp::all_reduce;
    case CommType::all_gather:
      return eng::CollectiveOp::all_gather;
    case CommType::reduce_scatter:
    case CommType::reduce_scatter_block:
      return eng::CollectiveOp::reduce_scatter;
    case CommType::broadcast:
      return eng::CollectiveOp::broadcast;
    case CommType::all_to_all:
      return eng::CollectiveOp::all_to_all;
    default:
      return std::nullopt;
  }
}

CommType chakra_comm_type(eng::CollectiveOp op) {
  switch (op) {
    case eng::CollectiveOp::all_reduce:
      return CommType::all_reduce;
    case eng::CollectiveOp::all_gather:
      return CommType::all_gather;
    case eng::CollectiveOp::reduce_scatter:
      return CommType::reduce_scatter;
    case eng::CollectiveOp::broadcast:
      return CommType::broadcast;
    case eng::CollectiveOp::all_to_all:
    case eng::CollectiveOp::send_recv:
      break;
  }
  return CommType::all_to_all;
}

}  // namespace trainsim::workload
