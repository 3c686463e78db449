// The one-zone platform (sim/engine/fabric_zone.hpp) routes exactly as the zone tree it
// replaced (tests/engine/zoned_reference_platform.hpp): the same links in the same order,
// with the same bandwidths, and the same route latency to the bit, on every fabric; and so
// do the routes by number (sim/engine/fabric_routes.hpp) that plans read without SimGrid. With
// the same links and routes SimGrid's solver sees the same system, so simulated times are
// unchanged (bench/README.md, "Benchmarks and scale").

#include <gtest/gtest.h>

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/engine/isolated_run.hpp"
#include "tests/engine/test_clusters.hpp"
#include "tests/engine/zoned_reference_platform.hpp"
#include "topologies/cluster_spec.hpp"

namespace trainsim::engine {
namespace {

const std::string k_prefix = "ref.";

// Endpoints whose routes are compared: every GPU and NIC of `nodes`.
std::vector<int> endpoints_of(const Platform& p, const std::vector<int>& nodes) {
  std::vector<int> out;
  for (const int n : nodes) {
    if (n >= p.cluster().nodes) continue;
    for (int g = 0; g < p.cluster().gpus_per_node; ++g) out.push_back(n * p.cluster().gpus_per_node + g);
    for (int i = 0; i < p.layout().nics_per_node; ++i) out.push_back(p.nic_endpoint(n, i));
  }
  return out;
}

// Route mismatches between the two platforms over every pair of `nodes`' GPUs (within a
// node) and NICs, and the number of routes compared.
std::vector<double> compare_routes(const ClusterSpec& c, const std::vector<int>& nodes) {
  return test::run_isolated([&] {
    Simulation sim;
    // Both platforms side by side under one root.
    simgrid::s4u::NetZone* root = simgrid::s4u::create_star_zone("root");
    const std::vector<simgrid::s4u::Host*> ref = test::build_zoned_reference(c, k_prefix);
    const Platform platform(c);
    root->seal();
    const std::vector<int> ends = endpoints_of(platform, nodes);
    double mismatches = 0, compared = 0;
    std::map<int, const simgrid::s4u::Link*> link_of_number;
    std::map<const simgrid::s4u::Link*, int> number_of_link;
    for (const int a : ends) {
      for (const int b : ends) {
        const bool gpu_a = a < platform.gpu_count(), gpu_b = b < platform.gpu_count();
        if (a == b || gpu_a != gpu_b) continue;
        if (gpu_a && platform.node_of(a) != platform.node_of(b)) continue;
        std::vector<simgrid::s4u::Link*> got, want;
        double got_s = 0, want_s = 0;
        platform.host(a)->route_to(platform.host(b), got, &got_s);
        ref[static_cast<size_t>(a)]->route_to(ref[static_cast<size_t>(b)], want, &want_s);
        bool same = got.size() == want.size() && std::memcmp(&got_s, &want_s, sizeof got_s) == 0;
        for (size_t i = 0; same && i < got.size(); ++i)
          same = k_prefix + got[i]->get_name() == want[i]->get_name() &&
                 got[i]->get_bandwidth() == want[i]->get_bandwidth() && got[i]->get_latency() == want[i]->get_latency();
        // The routes by number (fabric_routes.hpp) name the same links, with their bandwidths
        // and latencies, and add the same latency to the bit; one number is one link.
        RouteLinks numbered;
        platform.routes().route(a, b, numbered);
        same = same && numbered.count == static_cast<int>(got.size()) &&
               std::memcmp(&numbered.latency_s, &got_s, sizeof got_s) == 0;
        for (int i = 0; same && i < numbered.count; ++i) {
          const int id = numbered.links[static_cast<size_t>(i)];
          const auto [it, added] = link_of_number.emplace(id, got[static_cast<size_t>(i)]);
          const auto [jt, added_back] = number_of_link.emplace(got[static_cast<size_t>(i)], id);
          same = it->second == got[static_cast<size_t>(i)] && jt->second == id &&
                 platform.routes().bandwidth_Bps(id) == got[static_cast<size_t>(i)]->get_bandwidth() &&
                 platform.routes().latency_s(id) == got[static_cast<size_t>(i)]->get_latency();
        }
        mismatches += same ? 0 : 1;
        compared += 1;
      }
    }
    return std::vector<double>{mismatches, compared};
  });
}

void expect_same_routes(const ClusterSpec& c, const std::vector<int>& nodes) {
  const auto r = compare_routes(c, nodes);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_GT(r[1], 0);
  EXPECT_EQ(r[0], 0) << "of " << r[1] << " routes";
}

TEST(FabricZone, RoutesAsTheZoneTreeOnARailOptimizedFabric) {
  ClusterSpec c = *cluster_preset("dgx-h100");
  c.nodes = 80;  // 3 rail leaves per rail, the last one partly filled
  c.fabric = Fabric::rail_optimized;
  expect_same_routes(c, {0, 1, 31, 32, 33, 64, 79});
}

TEST(FabricZone, RoutesAsTheZoneTreeOnATwoLevelFatTree) {
  ClusterSpec c = *cluster_preset("dgx-a100");
  c.nodes = 12;
  c.fabric = Fabric::fat_tree;
  c.oversubscription = 2;
  expect_same_routes(c, {0, 1, 2, 5, 11});
}

TEST(FabricZone, RoutesAsTheZoneTreeOnAThreeLevelFatTree) {
  ClusterSpec c = *cluster_preset("dgx-h100");
  c.nodes = 260;  // 2,080 NICs: 65 leaves in 3 pods
  c.fat_tree_levels = 3;
  c.fabric = Fabric::fat_tree;
  expect_same_routes(c, {0, 3, 4, 127, 128, 255, 256, 259});
}

TEST(FabricZone, RoutesAsTheZoneTreeOnOneSwitchAndTheIdealFabric) {
  for (const Fabric f : {Fabric::single_switch, Fabric::ideal}) {
    ClusterSpec c = test::small_cluster(6, 4, f);
    expect_same_routes(c, {0, 1, 2, 3, 4, 5});
  }
}

TEST(FabricZone, RoutesAsTheZoneTreeWithFewerNicsThanGpus) {
  ClusterSpec c = test::small_cluster(45, 4, Fabric::rail_optimized);
  c.nics_per_node = 2;
  expect_same_routes(c, {0, 1, 19, 20, 44});
}

}  // namespace
}  // namespace trainsim::engine
