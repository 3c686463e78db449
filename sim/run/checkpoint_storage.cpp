#include "sim/run/checkpoint_storage.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "models/checkpoint_size.hpp"
#include "sim/engine/simulation.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim {

namespace {

namespace sg4 = simgrid::s4u;

// One transfer per node, all at once, towards the file system (write) or from it (read);
// returns when the last one ends.
double transfer_all(sg4::Host* storage, const std::vector<sg4::Host*>& nodes, const std::vector<double>& bytes,
                    bool write) {
  const double start = sg4::Engine::get_clock();
  std::vector<sg4::CommPtr> comms;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (bytes[n] <= 0) continue;
    const auto size = static_cast<std::uint64_t>(bytes[n]);
    comms.push_back(write ? sg4::Comm::sendto_async(nodes[n], storage, size)
                          : sg4::Comm::sendto_async(storage, nodes[n], size));
  }
  for (const sg4::CommPtr& c : comms) c->wait();
  return sg4::Engine::get_clock() - start;
}

}  // namespace

std::vector<double> checkpoint_bytes_per_node(const Scenario& s) {
  const std::vector<StageCheckpoint> stages = stage_checkpoints(s.model, s.training, s.parallel);
  const RankMapping map(s.parallel, s.cluster);
  std::vector<double> bytes(static_cast<std::size_t>(s.cluster.nodes), 0.0);
  for (int rank = 0; rank < map.world_size(); ++rank) {
    const StageCheckpoint& st = stages[static_cast<std::size_t>(map.coordinate(rank, ParallelAxis::pp))];
    // Index in the gradient group (data x context parallel): 0 writes the weights.
    const int replica = map.coordinate(rank, ParallelAxis::dp) * s.parallel.cp + map.coordinate(rank, ParallelAxis::cp);
    double b = 0;
    if (replica == 0) b += st.weights_bytes;
    if (replica < st.optimizer_shards) b += st.optimizer_bytes / st.optimizer_shards + k_checkpoint_small_states_bytes;
    bytes[static_cast<std::size_t>(map.node_of(rank))] += b;
  }
  return bytes;
}

CheckpointCosts simulate_checkpoint_storage(const Scenario& s) {
  const CheckpointSize size = checkpoint_size(s.model, s.training, s.parallel);
  const std::vector<double> bytes = checkpoint_bytes_per_node(s);
  CheckpointCosts costs;
  costs.bytes = size.total_bytes;
  // All GPUs copy their shards to host memory at once, each over its own host link.
  costs.snapshot_s =
      s.cluster.host_link_bandwidth_Bps > 0 ? size.largest_shard_bytes / s.cluster.host_link_bandwidth_Bps : 0;

  engine::Simulation simulation;
  sg4::NetZone* zone = sg4::create_star_zone("storage");
  sg4::Link* write = zone->create_link("pfs_write", s.checkpoint.write_bandwidth_Bps)->seal();
  sg4::Link* read = zone->create_link("pfs_read", s.checkpoint.read_bandwidth_Bps)->seal();
  sg4::Host* storage = zone->create_host("pfs", 1.0);
  // Into the file system through pfs_write, out of it through pfs_read.
  zone->add_route(nullptr, storage->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(write)}, false);
  zone->add_route(storage->get_netpoint(), nullptr, nullptr, nullptr, {sg4::LinkInRoute(read)}, false);
  std::vector<sg4::Host*> nodes;
  for (int n = 0; n < s.cluster.nodes; ++n) {
    sg4::Host* h = zone->create_host("node" + std::to_string(n), 1.0);
    sg4::Link* link =
        zone->create_split_duplex_link("node" + std::to_string(n), s.checkpoint.node_bandwidth_Bps)->seal();
    zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::UP)}, true);
    nodes.push_back(h);
  }
  zone->seal();
  sg4::Actor::create("checkpoint", storage, [&] {
    costs.write_s = transfer_all(storage, nodes, bytes, true);
    costs.read_s = transfer_all(storage, nodes, bytes, false);
  });
  simulation.run();
  return costs;
}

}  // namespace trainsim
