#include "sim/engine/domain_collective.hpp"

#include "sim/engine/nccl_latency.hpp"

namespace trainsim::engine {

namespace {

// Ring steps as SimuMax counts them (latency x (n + offset) x scale): 2(n-1) for an all-reduce, n-1 otherwise.
double steps(CollectiveOp op, int ranks) {
  return (op == CollectiveOp::all_reduce ? 2.0 : 1.0) * (ranks - 1);
}

}  // namespace

const MeasuredCollective* measured_in_domain(CollectiveOp op, const Platform& platform) {
  const ProtocolEfficiency& e = platform.efficiency();
  const MeasuredCollective* m = nullptr;
  switch (op) {
    case CollectiveOp::all_reduce:
      m = &e.all_reduce;
      break;
    case CollectiveOp::all_gather:
      m = &e.all_gather;
      break;
    case CollectiveOp::reduce_scatter:
      m = &e.reduce_scatter;
      break;
    case CollectiveOp::all_to_all:
      m = &e.all_to_all;
      break;
    case CollectiveOp::send_recv:
      m = &e.send_recv;
      break;
    default:
      return nullptr;
  }
  return m->measured() ? m : nullptr;
}

double measured_latency_s(CollectiveOp op, const MeasuredCollective& m, int ranks) {
  return m.latency_s(ranks, steps(op, ranks));
}

std::optional<DomainCost> domain_cost(CollectiveOp op, double bytes, int ranks, const Platform& platform) {
  const MeasuredCollective* m = measured_in_domain(op, platform);
  if (m == nullptr || ranks < 2) return std::nullopt;
  const double bus_bytes = bytes * bus_bandwidth_factor(op, ranks);
  const double links_Bps = platform.nvlink_Bps();
  const double measured_Bps = platform.cluster().nvlink_bandwidth_Bps * m->efficiency;
  const DomainCost measured{measured_latency_s(op, *m, ranks) + bus_bytes / measured_Bps,
                            measured_latency_s(op, *m, ranks), links_Bps / measured_Bps};
  if (m->small_sizes_measured) return measured;
  const double ll_latency_s = k_nccl_ll_ring_base_s + steps(op, ranks) * platform.cluster().nvlink_latency_s;
  const DomainCost ll{ll_latency_s + bus_bytes / (links_Bps * k_nccl_ll_efficiency), ll_latency_s,
                      1.0 / k_nccl_ll_efficiency};
  return ll.time_s < measured.time_s ? ll : measured;
}

}  // namespace trainsim::engine
