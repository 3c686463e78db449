// NCCL across NVL72 racks as the simulation charges it (algorithm_selection.hpp): the automatic
// all-reduce never gets faster as its buffer grows and runs the algorithm and protocol whose
// charged time is least; an all-to-all of a few bytes pays NCCL's p2p batches inside a rack
// and a proxy turn per network peer (pairwise_algorithm.hpp), not one latency per peer.

#include <gtest/gtest.h>

#include <simgrid/s4u/Actor.hpp>

#include <cmath>
#include <vector>

#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/pairwise_algorithm.hpp"
#include "tests/engine/measured_collective.hpp"

namespace trainsim::engine {
namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

// One simulation, one collective at a time (as nccl-tests runs its sizes): the time of `op` on
// `gpus` for each size of `sizes` and each algorithm of `algos`, size-major.
std::vector<double> times_s(const ClusterSpec& c, CollectiveOp op, const std::vector<int>& gpus,
                            const std::vector<double>& sizes, const std::vector<CollectiveAlgo>& algos) {
  return test::run_isolated([&] {
    Simulation sim;
    const Platform p(c);
    std::vector<double> out;
    simgrid::s4u::Actor::create("sweep", p.host(0), [&] {
      for (const double bytes : sizes)
        for (const CollectiveAlgo algo : algos) {
          CollectiveCall call;
          call.op = op;
          call.algo = algo;
          call.bytes = bytes;
          call.gpus = gpus;
          const CommActivity a = start_collective(p, call);
          a.wait();
          out.push_back(a.duration_s());
        }
    });
    sim.run();
    return out;
  });
}

std::vector<double> sweep(double from, double to, double factor) {
  std::vector<double> s;
  for (double b = from; b <= to; b *= factor) s.push_back(std::round(b));
  return s;
}

struct RackCase {
  const char* name;
  int racks;
  int per_rack;
  bool nvls;
};

class AutoAllReduceAcrossRacks : public ::testing::TestWithParam<RackCase> {};

TEST_P(AutoAllReduceAcrossRacks, NeverGetsFasterAsTheBufferGrows) {
  const RackCase k = GetParam();
  ClusterSpec c = test::racks("gb200-nvl72", k.racks);
  c.nvls = k.nvls;
  const std::vector<double> sizes = sweep(8, 16 * k_gib, std::sqrt(2.0));
  const std::vector<double> t =
      times_s(c, CollectiveOp::all_reduce, test::per_rack_gpus(k.racks, k.per_rack), sizes, {CollectiveAlgo::automatic});
  for (size_t i = 1; i < t.size(); ++i) EXPECT_GE(t[i], t[i - 1]) << k.name << " at " << sizes[i] << " bytes";
}

TEST_P(AutoAllReduceAcrossRacks, RunsTheAlgorithmItChargesLeast) {
  // Every algorithm NCCL's model has across racks, each at its cheapest protocol: the automatic
  // choice is never slower than any of them (the same collective, nothing else running).
  const RackCase k = GetParam();
  ClusterSpec c = test::racks("gb200-nvl72", k.racks);
  c.nvls = k.nvls;
  std::vector<CollectiveAlgo> algos{CollectiveAlgo::automatic, CollectiveAlgo::ring, CollectiveAlgo::double_binary_tree};
  if (k.nvls) algos.push_back(CollectiveAlgo::nvls_tree);
  const std::vector<double> sizes = sweep(8, 16 * k_gib, 8);
  const std::vector<double> t =
      times_s(c, CollectiveOp::all_reduce, test::per_rack_gpus(k.racks, k.per_rack), sizes, algos);
  for (size_t i = 0; i < sizes.size(); ++i)
    for (size_t a = 1; a < algos.size(); ++a)
      EXPECT_LE(t[i * algos.size()], t[i * algos.size() + a] * (1 + 1e-9))
          << k.name << " at " << sizes[i] << " bytes against " << algo_name(algos[a]);
}

INSTANTIATE_TEST_SUITE_P(Racks, AutoAllReduceAcrossRacks,
                         ::testing::Values(RackCase{"two_full_racks", 2, 72, true},
                                           RackCase{"eight_full_racks", 8, 72, true},
                                           RackCase{"eight_racks_of_64_nvls_off", 8, 64, false},
                                           RackCase{"sixteen_racks_of_8", 16, 8, true}),
                         [](const ::testing::TestParamInfo<RackCase>& rack) { return std::string(rack.param.name); });

TEST(NcclAllToAll, WavesFollowNcclsP2pSchedule) {
  // One domain: a channel base per round, 32 p2p channels.
  EXPECT_EQ(nccl_all_to_all_waves({8}), 1);
  EXPECT_EQ(nccl_all_to_all_waves({72}), 3);
  // Across domains: a base per 8 rounds of a schedule group (8 ranks, or the gcd).
  EXPECT_EQ(nccl_all_to_all_waves(std::vector<int>(32, 8)), 1);   // 256 GPUs
  EXPECT_EQ(nccl_all_to_all_waves(std::vector<int>(128, 8)), 4);  // 1,024 GPUs
  EXPECT_EQ(nccl_all_to_all_waves(std::vector<int>(8, 72)), 3);   // 576 GPUs: 72 bases
  EXPECT_EQ(nccl_all_to_all_waves(std::vector<int>(64, 4)), 2);   // 256 GPUs in groups of 4: 64 bases
}

// `gpus` of `c` exchanging 8 bytes: {simulated time, NCCL's base latency, the slowest NVLink
// hop, the slowest network hop} (hops between GPUs 0 and 1, and 0 and the last).
std::vector<double> tiny_all_to_all(const ClusterSpec& c, int gpus) {
  return test::run_isolated([&] {
    Simulation sim;
    const Platform p(c);
    CollectiveCall call;
    call.op = CollectiveOp::all_to_all;
    call.bytes = 8;
    call.gpus = test::first_gpus(gpus);
    const double base = nccl_base_latency_s(call, p);
    const double nvlink = std::max(p.latency_s(0, 1), p.latency_s(1, 0));
    const double network = p.domain_of(0) == p.domain_of(gpus - 1) ? 0.0 : std::max(p.latency_s(0, gpus - 1), p.latency_s(gpus - 1, 0));
    const CommActivity a = start_collective(p, call);
    sim.run();
    return std::vector<double>{a.duration_s(), base, nvlink, network};
  });
}

TEST(NcclAllToAll, AcrossRacksEachNetworkPeerTakesAProxyTurn) {
  // 8 bytes over 8 full racks: 72 channel bases (3 waves of the NVLink hop), and the 504 peers in
  // other racks one network hop each, closed form; one slowest hop per peer would be 575 network hops.
  const std::vector<double> r = tiny_all_to_all(test::racks("gb200-nvl72", 8), 576);
  const double expected = r[1] + nccl_all_to_all_latency_s(3, r[2], 504, r[3]);
  EXPECT_NEAR(r[0], expected, 0.02 * expected);
  EXPECT_LT(r[0], r[1] + 575 * r[3]);
}

}  // namespace
}  // namespace trainsim::engine
