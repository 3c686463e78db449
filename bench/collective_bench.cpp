// trainsim-bench-collective: how long the engine takes to simulate one large collective
// with contention, and how much memory it needs (issue 3: 1 GiB all-reduce on 16,384 GPUs
// of rail-optimized DGX H100 nodes, <= 5 s wall and <= 2 GB RSS on 2 cores; issue 18: on
// 131,072 GPUs <= 10 s and <= 4 GB, on 1,048,576 <= 90 s and <= 16 GB).
//
//   trainsim-bench-collective [--gpus 16384 [32768 ...]] [--cluster dgx-h100]
//                             [--fabric rail-optimized] [--op allreduce] [--algo ring]
//                             [--bytes 1073741824]
// Each GPU count runs in its own process (one SimGrid engine per process).

#include <boost/program_options.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "bench/process_usage.hpp"
#include "sim/core/forked_call.hpp"
#include "sim/core/large_stack_call.hpp"
#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/collective.hpp"
#include "sim/engine/plan_runner.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "topologies/cluster_spec.hpp"

namespace {

namespace po = boost::program_options;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

trainsim::Fabric parse_fabric(const std::string& s) {
  if (s == "single-switch") return trainsim::Fabric::single_switch;
  if (s == "fat-tree") return trainsim::Fabric::fat_tree;
  if (s == "ideal") return trainsim::Fabric::ideal;
  return trainsim::Fabric::rail_optimized;
}

}  // namespace

namespace {

std::string bench_one(trainsim::ClusterSpec cluster, int gpus, double bytes, trainsim::engine::CollectiveOp op_id,
                      trainsim::engine::CollectiveAlgo algo_id, const std::string& cluster_name,
                      const std::string& fabric, const std::string& op);

int run_bench(int argc, char** argv) {
  namespace eng = trainsim::engine;
  std::vector<int> gpu_counts{16384};
  double bytes = 1073741824.0;
  std::string cluster_name = "dgx-h100";
  std::string fabric = "rail-optimized";
  std::string op = "allreduce";
  std::string algo = "ring";
  po::options_description d("trainsim-bench-collective options");
  d.add_options()("help,h", "show this help")("gpus", po::value(&gpu_counts)->multitoken(), "GPUs (several: one run each)")(
      "bytes", po::value(&bytes)->default_value(bytes), "collective size in bytes")(
      "cluster", po::value(&cluster_name)->default_value(cluster_name), "cluster preset")(
      "fabric", po::value(&fabric)->default_value(fabric), "single-switch|fat-tree|rail-optimized|ideal")(
      "op", po::value(&op)->default_value(op), "collective")("algo", po::value(&algo)->default_value(algo),
                                                             "auto|ring|tree|hierarchical|pairwise|direct");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, d), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "trainsim-bench-collective: " << e.what() << "\n";
    return 2;
  }
  if (vm.count("help")) {
    std::cout << d;
    return 0;
  }
  auto cluster = trainsim::cluster_preset(cluster_name);
  const auto parsed_op = eng::parse_op(op);
  const auto parsed_algo = eng::parse_algo(algo);
  const bool bad_gpus = std::any_of(gpu_counts.begin(), gpu_counts.end(), [](int g) { return g < 1; });
  if (!cluster || !parsed_op || !parsed_algo || bad_gpus) {
    std::cerr << "trainsim-bench-collective: bad --cluster, --op, --algo or --gpus\n";
    return 2;
  }
  for (const int gpus : gpu_counts) {
    std::fputs(trainsim::forked_call([&] {
                 return bench_one(*cluster, gpus, bytes, *parsed_op, *parsed_algo, cluster_name, fabric, op);
               }).c_str(),
               stdout);
    std::fflush(stdout);
  }
  return 0;
}

std::string bench_one(trainsim::ClusterSpec cluster, int gpus, double bytes, trainsim::engine::CollectiveOp op_id,
                      trainsim::engine::CollectiveAlgo algo_id, const std::string& cluster_name,
                      const std::string& fabric, const std::string& op) {
  namespace eng = trainsim::engine;
  cluster.nodes = (gpus + cluster.gpus_per_node - 1) / cluster.gpus_per_node;
  cluster.fabric = parse_fabric(fabric);

  const auto t0 = Clock::now();
  eng::Simulation sim;
  eng::CollectiveCall call;
  call.op = op_id;
  call.algo = algo_id;
  call.bytes = bytes;
  for (int g = 0; g < gpus; ++g) call.gpus.push_back(g);
  // Planned on the cluster without SimGrid; the platform then builds only the endpoints the
  // lone collective keeps (plan_runner.hpp: prepare_lone_plan).
  const eng::Platform planning = eng::Platform::without_simgrid(cluster);
  std::vector<bool> endpoints;
  eng::PreparedPlan plan = eng::prepare_lone_plan(planning, eng::plan_collective(call, planning), &endpoints);
  size_t transfers = 0;
  for (const auto& ph : plan.plan.phases) transfers += ph.transfers.size();
  const auto built = std::count(endpoints.begin(), endpoints.end(), true);
  const double plan_s = seconds_since(t0);
  const auto t1 = Clock::now();
  const eng::Platform platform(cluster, std::move(endpoints));
  const double build_s = seconds_since(t1);
  const auto t2 = Clock::now();
  const eng::CommActivity activity = eng::start_prepared_plan(
      platform, std::make_shared<const eng::PreparedPlan>(std::move(plan)), "bench", eng::k_lone_plan_run);
  sim.run();
  const double run_s = seconds_since(t2);
  const double time_s = activity.duration_s();
  const double algbw = bytes / time_s;
  std::string text;
  char line[300];
  std::snprintf(line, sizeof line, "collective   %s (%s) of %.0f bytes on %d GPUs, %s %s\n", op.c_str(),
              eng::algo_name(eng::choose_algorithm(call, platform)).c_str(), bytes, gpus, cluster_name.c_str(),
              fabric.c_str());
  text += line;
  std::snprintf(line, sizeof line, "simulated    %.6f s  algbw %.2f GB/s  busbw %.2f GB/s  (%zu transfers)\n", time_s, algbw / 1e9,
              algbw * eng::bus_bandwidth_factor(call.op, gpus) / 1e9, transfers);
  text += line;
  std::snprintf(line, sizeof line,
                "wall         %.3f s total: plan %.3f s, platform %.3f s (%ld of %d endpoints), simulation %.3f s\n",
                seconds_since(t0), plan_s, build_s, static_cast<long>(built), planning.endpoint_count(), run_s);
  text += line;
  std::snprintf(line, sizeof line, "peak RSS     %.1f MB\n", trainsim::bench::peak_rss_bytes() / 1e6);
  return text + line;
}

}  // namespace

int main(int argc, char** argv) {
  int code = 1;
  // The engine runs on the simulation's large stack (sim/core/large_stack_call.hpp).
  trainsim::large_stack_call([&] { code = run_bench(argc, argv); });
  return code;
}
